//! `AddPartitionsToTxnRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AddPartitionsToTxnRequest`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct AddPartitionsToTxnRequest {
    /// Versions 4-5.
    pub transactions: Vec<AddPartitionsToTxnTransaction>,
    /// Versions 0-3.
    pub v3_and_below_transactional_id: String,
    /// Versions 0-3.
    pub v3_and_below_producer_id: ProducerId,
    /// Versions 0-3.
    pub v3_and_below_producer_epoch: i16,
    /// Versions 0-3.
    pub v3_and_below_topics: Vec<AddPartitionsToTxnTopic>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AddPartitionsToTxnRequest {
    fn default() -> Self {
        AddPartitionsToTxnRequest {
            transactions: Vec::new(),
            v3_and_below_transactional_id: String::new(),
            v3_and_below_producer_id: ProducerId(0),
            v3_and_below_producer_epoch: 0,
            v3_and_below_topics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AddPartitionsToTxnRequest {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = AddPartitionsToTxnRequest::default();
        if version >= 4 {
            this.transactions =
                d.array(flexible, AddPartitionsToTxnTransaction::ENCODED_SIZE_MIN, "transactions", |d| {
                    AddPartitionsToTxnTransaction::decode(d, version)
                })?;
        }
        if version <= 3 {
            this.v3_and_below_transactional_id = d.string(flexible, "v3_and_below_transactional_id")?;
        }
        if version <= 3 {
            this.v3_and_below_producer_id = d.i64().map(ProducerId)?;
        }
        if version <= 3 {
            this.v3_and_below_producer_epoch = d.i16()?;
        }
        if version <= 3 {
            this.v3_and_below_topics =
                d.array(flexible, AddPartitionsToTxnTopic::ENCODED_SIZE_MIN, "v3_and_below_topics", |d| {
                    AddPartitionsToTxnTopic::decode(d, version)
                })?;
        }
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 3;
        if version >= 4 {
            out.put_length(flexible, false, Some(self.transactions.len()), "transactions")?;
            for item in &self.transactions {
                item.encode(out, version)?;
            }
        } else {
            if !self.transactions.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "transactions", version });
            }
        }
        if version <= 3 {
            out.put_string(flexible, &self.v3_and_below_transactional_id, "v3_and_below_transactional_id")?;
        } else {
            if !self.v3_and_below_transactional_id.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "v3_and_below_transactional_id", version });
            }
        }
        if version <= 3 {
            out.put_i64(self.v3_and_below_producer_id.0);
        } else {
            if self.v3_and_below_producer_id != ProducerId(0) {
                return Err(EncodeError::FieldNotInVersion { field: "v3_and_below_producer_id", version });
            }
        }
        if version <= 3 {
            out.put_i16(self.v3_and_below_producer_epoch);
        } else {
            if self.v3_and_below_producer_epoch != 0 {
                return Err(EncodeError::FieldNotInVersion { field: "v3_and_below_producer_epoch", version });
            }
        }
        if version <= 3 {
            out.put_length(flexible, false, Some(self.v3_and_below_topics.len()), "v3_and_below_topics")?;
            for item in &self.v3_and_below_topics {
                item.encode(out, version)?;
            }
        } else {
            if !self.v3_and_below_topics.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "v3_and_below_topics", version });
            }
        }
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for AddPartitionsToTxnRequest {
    const NAME: &'static str = "AddPartitionsToTxnRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 5 };
    const FLEXIBLE_MIN: Option<i16> = Some(3);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AddPartitionsToTxnRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        if version >= 4 {
            this.transactions = g.vec(|g| <AddPartitionsToTxnTransaction as crate::sample::Sample>::sample(g, version));
        }
        if version <= 3 {
            this.v3_and_below_transactional_id = g.string();
        }
        if version <= 3 {
            this.v3_and_below_producer_id = ProducerId(g.i64());
        }
        if version <= 3 {
            this.v3_and_below_producer_epoch = g.i16();
        }
        if version <= 3 {
            this.v3_and_below_topics =
                g.vec(|g| <AddPartitionsToTxnTopic as crate::sample::Sample>::sample(g, version));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AddPartitionsToTxnTransaction`, versions 4-5.
#[derive(Debug, Clone, PartialEq)]
pub struct AddPartitionsToTxnTransaction {
    /// Versions 4-5; map key.
    pub transactional_id: String,
    /// Versions 4-5.
    pub producer_id: ProducerId,
    /// Versions 4-5.
    pub producer_epoch: i16,
    /// Versions 4-5.
    pub verify_only: bool,
    /// Versions 4-5.
    pub topics: Vec<AddPartitionsToTxnTopic>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AddPartitionsToTxnTransaction {
    fn default() -> Self {
        AddPartitionsToTxnTransaction {
            transactional_id: String::new(),
            producer_id: ProducerId(0),
            producer_epoch: 0,
            verify_only: false,
            topics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AddPartitionsToTxnTransaction {
    const ENCODED_SIZE_MIN: usize = 14;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AddPartitionsToTxnTransaction::default();
        this.transactional_id = d.string(flexible, "transactional_id")?;
        this.producer_id = d.i64().map(ProducerId)?;
        this.producer_epoch = d.i16()?;
        this.verify_only = d.bool()?;
        this.topics = d.array(flexible, AddPartitionsToTxnTopic::ENCODED_SIZE_MIN, "topics", |d| {
            AddPartitionsToTxnTopic::decode(d, version)
        })?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = true;
        out.put_string(flexible, &self.transactional_id, "transactional_id")?;
        out.put_i64(self.producer_id.0);
        out.put_i16(self.producer_epoch);
        out.put_bool(self.verify_only);
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AddPartitionsToTxnTransaction {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.transactional_id = g.string();
        this.producer_id = ProducerId(g.i64());
        this.producer_epoch = g.i16();
        this.verify_only = g.bool();
        this.topics = g.vec(|g| <AddPartitionsToTxnTopic as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AddPartitionsToTxnTopic`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct AddPartitionsToTxnTopic {
    /// Versions 0-5; map key.
    pub name: String,
    /// Versions 0-5.
    pub partitions: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AddPartitionsToTxnTopic {
    fn default() -> Self {
        AddPartitionsToTxnTopic { name: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for AddPartitionsToTxnTopic {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = AddPartitionsToTxnTopic::default();
        this.name = d.string(flexible, "name")?;
        this.partitions = d.array(flexible, 4, "partitions", |d| d.i32())?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 3;
        out.put_string(flexible, &self.name, "name")?;
        out.put_length(flexible, false, Some(self.partitions.len()), "partitions")?;
        for item in &self.partitions {
            out.put_i32(*item);
        }
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AddPartitionsToTxnTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        this.name = g.string();
        this.partitions = g.vec(|g| g.i32());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
