//! `ProduceRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ProduceRequest`, versions 3-13.
#[derive(Debug, Clone, PartialEq)]
pub struct ProduceRequest {
    /// Versions 3-13; nullable 3-13.
    pub transactional_id: Option<String>,
    /// Versions 3-13.
    pub acks: i16,
    /// Versions 3-13.
    pub timeout_ms: i32,
    /// Versions 3-13.
    pub topic_data: Vec<TopicProduceData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ProduceRequest {
    fn default() -> Self {
        ProduceRequest {
            transactional_id: None,
            acks: 0,
            timeout_ms: 0,
            topic_data: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ProduceRequest {
    const ENCODED_SIZE_MIN: usize = 8;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 9;
        let mut this = ProduceRequest::default();
        this.transactional_id = d.nullable_string(flexible)?;
        this.acks = d.i16()?;
        this.timeout_ms = d.i32()?;
        this.topic_data = d.array(flexible, TopicProduceData::ENCODED_SIZE_MIN, "topic_data", |d| {
            TopicProduceData::decode(d, version)
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
        let flexible = version >= 9;
        match &self.transactional_id {
            Some(value) => {
                out.put_string(flexible, value, "transactional_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "transactional_id")?;
            }
        }
        out.put_i16(self.acks);
        out.put_i32(self.timeout_ms);
        out.put_length(flexible, false, Some(self.topic_data.len()), "topic_data")?;
        for item in &self.topic_data {
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

impl Message for ProduceRequest {
    const NAME: &'static str = "ProduceRequest";
    const VERSIONS: VersionRange = VersionRange { min: 3, max: 13 };
    const FLEXIBLE_MIN: Option<i16> = Some(9);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ProduceRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 9;
        let mut this = Self::default();
        this.transactional_id = g.nullable(|g| g.string());
        this.acks = g.i16();
        this.timeout_ms = g.i32();
        this.topic_data = g.vec(|g| <TopicProduceData as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `PartitionProduceData`, versions 3-13.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionProduceData {
    /// Versions 3-13.
    pub index: i32,
    /// Versions 3-13; nullable 3-13.
    pub records: Option<Bytes>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionProduceData {
    fn default() -> Self {
        PartitionProduceData { index: 0, records: Some(Bytes::new()), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for PartitionProduceData {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 9;
        let mut this = PartitionProduceData::default();
        this.index = d.i32()?;
        this.records = d.nullable_bytes(flexible)?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 9;
        out.put_i32(self.index);
        match &self.records {
            Some(value) => {
                out.put_bytes_field(flexible, value, "records")?;
            }
            None => {
                out.put_length(flexible, false, None, "records")?;
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

#[cfg(feature = "sample")]
impl crate::sample::Sample for PartitionProduceData {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 9;
        let mut this = Self::default();
        this.index = g.i32();
        this.records = g.nullable(|g| g.bytes());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicProduceData`, versions 3-13.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicProduceData {
    /// Versions 3-12; map key; ignorable.
    pub name: String,
    /// Versions 13; map key; ignorable.
    pub topic_id: Uuid,
    /// Versions 3-13.
    pub partition_data: Vec<PartitionProduceData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicProduceData {
    fn default() -> Self {
        TopicProduceData {
            name: String::new(),
            topic_id: Uuid::ZERO,
            partition_data: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TopicProduceData {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 9;
        let mut this = TopicProduceData::default();
        if version <= 12 {
            this.name = d.string(flexible, "name")?;
        }
        if version >= 13 {
            this.topic_id = d.uuid()?;
        }
        this.partition_data = d.array(flexible, PartitionProduceData::ENCODED_SIZE_MIN, "partition_data", |d| {
            PartitionProduceData::decode(d, version)
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
        let flexible = version >= 9;
        if version <= 12 {
            out.put_string(flexible, &self.name, "name")?;
        }
        if version >= 13 {
            out.put_uuid(&self.topic_id);
        }
        out.put_length(flexible, false, Some(self.partition_data.len()), "partition_data")?;
        for item in &self.partition_data {
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
impl crate::sample::Sample for TopicProduceData {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 9;
        let mut this = Self::default();
        if version <= 12 {
            this.name = g.string();
        }
        if version >= 13 {
            this.topic_id = g.uuid();
        }
        this.partition_data = g.vec(|g| <PartitionProduceData as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
