//! `AddPartitionsToTxnResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AddPartitionsToTxnResponse`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct AddPartitionsToTxnResponse {
    /// Versions 0-5.
    pub throttle_time_ms: i32,
    /// Versions 4-5; ignorable.
    pub error_code: i16,
    /// Versions 4-5.
    pub results_by_transaction: Vec<AddPartitionsToTxnResult>,
    /// Versions 0-3.
    pub results_by_topic_v3_and_below: Vec<AddPartitionsToTxnTopicResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AddPartitionsToTxnResponse {
    fn default() -> Self {
        AddPartitionsToTxnResponse {
            throttle_time_ms: 0,
            error_code: 0,
            results_by_transaction: Vec::new(),
            results_by_topic_v3_and_below: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AddPartitionsToTxnResponse {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = AddPartitionsToTxnResponse::default();
        this.throttle_time_ms = d.i32()?;
        if version >= 4 {
            this.error_code = d.i16()?;
        }
        if version >= 4 {
            this.results_by_transaction =
                d.array(flexible, AddPartitionsToTxnResult::ENCODED_SIZE_MIN, "results_by_transaction", |d| {
                    AddPartitionsToTxnResult::decode(d, version)
                })?;
        }
        if version <= 3 {
            this.results_by_topic_v3_and_below = d.array(
                flexible,
                AddPartitionsToTxnTopicResult::ENCODED_SIZE_MIN,
                "results_by_topic_v3_and_below",
                |d| AddPartitionsToTxnTopicResult::decode(d, version),
            )?;
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
        out.put_i32(self.throttle_time_ms);
        if version >= 4 {
            out.put_i16(self.error_code);
        }
        if version >= 4 {
            out.put_length(flexible, false, Some(self.results_by_transaction.len()), "results_by_transaction")?;
            for item in &self.results_by_transaction {
                item.encode(out, version)?;
            }
        } else {
            if !self.results_by_transaction.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "results_by_transaction", version });
            }
        }
        if version <= 3 {
            out.put_length(
                flexible,
                false,
                Some(self.results_by_topic_v3_and_below.len()),
                "results_by_topic_v3_and_below",
            )?;
            for item in &self.results_by_topic_v3_and_below {
                item.encode(out, version)?;
            }
        } else {
            if !self.results_by_topic_v3_and_below.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "results_by_topic_v3_and_below", version });
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

impl Message for AddPartitionsToTxnResponse {
    const NAME: &'static str = "AddPartitionsToTxnResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 5 };
    const FLEXIBLE_MIN: Option<i16> = Some(3);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AddPartitionsToTxnResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        if version >= 4 {
            this.error_code = g.i16();
        }
        if version >= 4 {
            this.results_by_transaction =
                g.vec(|g| <AddPartitionsToTxnResult as crate::sample::Sample>::sample(g, version));
        }
        if version <= 3 {
            this.results_by_topic_v3_and_below =
                g.vec(|g| <AddPartitionsToTxnTopicResult as crate::sample::Sample>::sample(g, version));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AddPartitionsToTxnResult`, versions 4-5.
#[derive(Debug, Clone, PartialEq)]
pub struct AddPartitionsToTxnResult {
    /// Versions 4-5; map key.
    pub transactional_id: String,
    /// Versions 4-5.
    pub topic_results: Vec<AddPartitionsToTxnTopicResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AddPartitionsToTxnResult {
    fn default() -> Self {
        AddPartitionsToTxnResult {
            transactional_id: String::new(),
            topic_results: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AddPartitionsToTxnResult {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AddPartitionsToTxnResult::default();
        this.transactional_id = d.string(flexible, "transactional_id")?;
        this.topic_results =
            d.array(flexible, AddPartitionsToTxnTopicResult::ENCODED_SIZE_MIN, "topic_results", |d| {
                AddPartitionsToTxnTopicResult::decode(d, version)
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
        out.put_length(flexible, false, Some(self.topic_results.len()), "topic_results")?;
        for item in &self.topic_results {
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
impl crate::sample::Sample for AddPartitionsToTxnResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.transactional_id = g.string();
        this.topic_results = g.vec(|g| <AddPartitionsToTxnTopicResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AddPartitionsToTxnTopicResult`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct AddPartitionsToTxnTopicResult {
    /// Versions 0-5; map key.
    pub name: String,
    /// Versions 0-5.
    pub results_by_partition: Vec<AddPartitionsToTxnPartitionResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AddPartitionsToTxnTopicResult {
    fn default() -> Self {
        AddPartitionsToTxnTopicResult {
            name: String::new(),
            results_by_partition: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AddPartitionsToTxnTopicResult {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = AddPartitionsToTxnTopicResult::default();
        this.name = d.string(flexible, "name")?;
        this.results_by_partition =
            d.array(flexible, AddPartitionsToTxnPartitionResult::ENCODED_SIZE_MIN, "results_by_partition", |d| {
                AddPartitionsToTxnPartitionResult::decode(d, version)
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
        let flexible = version >= 3;
        out.put_string(flexible, &self.name, "name")?;
        out.put_length(flexible, false, Some(self.results_by_partition.len()), "results_by_partition")?;
        for item in &self.results_by_partition {
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
impl crate::sample::Sample for AddPartitionsToTxnTopicResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        this.name = g.string();
        this.results_by_partition =
            g.vec(|g| <AddPartitionsToTxnPartitionResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AddPartitionsToTxnPartitionResult`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct AddPartitionsToTxnPartitionResult {
    /// Versions 0-5; map key.
    pub partition_index: i32,
    /// Versions 0-5.
    pub partition_error_code: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AddPartitionsToTxnPartitionResult {
    fn default() -> Self {
        AddPartitionsToTxnPartitionResult {
            partition_index: 0,
            partition_error_code: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AddPartitionsToTxnPartitionResult {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = AddPartitionsToTxnPartitionResult::default();
        this.partition_index = d.i32()?;
        this.partition_error_code = d.i16()?;
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
        out.put_i32(self.partition_index);
        out.put_i16(self.partition_error_code);
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
impl crate::sample::Sample for AddPartitionsToTxnPartitionResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.partition_error_code = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
