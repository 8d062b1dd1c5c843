//! `TxnOffsetCommitResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `TxnOffsetCommitResponse`, versions 0-6.
#[derive(Debug, Clone, PartialEq)]
pub struct TxnOffsetCommitResponse {
    /// Versions 0-6.
    pub throttle_time_ms: i32,
    /// Versions 0-6.
    pub topics: Vec<TxnOffsetCommitResponseTopic>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TxnOffsetCommitResponse {
    fn default() -> Self {
        TxnOffsetCommitResponse { throttle_time_ms: 0, topics: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TxnOffsetCommitResponse {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = TxnOffsetCommitResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.topics = d.array(flexible, TxnOffsetCommitResponseTopic::ENCODED_SIZE_MIN, "topics", |d| {
            TxnOffsetCommitResponseTopic::decode(d, version)
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
        out.put_i32(self.throttle_time_ms);
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

impl Message for TxnOffsetCommitResponse {
    const NAME: &'static str = "TxnOffsetCommitResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 6 };
    const FLEXIBLE_MIN: Option<i16> = Some(3);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for TxnOffsetCommitResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.topics = g.vec(|g| <TxnOffsetCommitResponseTopic as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TxnOffsetCommitResponsePartition`, versions 0-6.
#[derive(Debug, Clone, PartialEq)]
pub struct TxnOffsetCommitResponsePartition {
    /// Versions 0-6.
    pub partition_index: i32,
    /// Versions 0-6.
    pub error_code: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TxnOffsetCommitResponsePartition {
    fn default() -> Self {
        TxnOffsetCommitResponsePartition { partition_index: 0, error_code: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TxnOffsetCommitResponsePartition {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = TxnOffsetCommitResponsePartition::default();
        this.partition_index = d.i32()?;
        this.error_code = d.i16()?;
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
        out.put_i16(self.error_code);
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
impl crate::sample::Sample for TxnOffsetCommitResponsePartition {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.error_code = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TxnOffsetCommitResponseTopic`, versions 0-6.
#[derive(Debug, Clone, PartialEq)]
pub struct TxnOffsetCommitResponseTopic {
    /// Versions 0-5; ignorable.
    pub name: String,
    /// Versions 6; ignorable.
    pub topic_id: Uuid,
    /// Versions 0-6.
    pub partitions: Vec<TxnOffsetCommitResponsePartition>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TxnOffsetCommitResponseTopic {
    fn default() -> Self {
        TxnOffsetCommitResponseTopic {
            name: String::new(),
            topic_id: Uuid::ZERO,
            partitions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TxnOffsetCommitResponseTopic {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = TxnOffsetCommitResponseTopic::default();
        if version <= 5 {
            this.name = d.string(flexible, "name")?;
        }
        if version >= 6 {
            this.topic_id = d.uuid()?;
        }
        this.partitions = d.array(flexible, TxnOffsetCommitResponsePartition::ENCODED_SIZE_MIN, "partitions", |d| {
            TxnOffsetCommitResponsePartition::decode(d, version)
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
        if version <= 5 {
            out.put_string(flexible, &self.name, "name")?;
        }
        if version >= 6 {
            out.put_uuid(&self.topic_id);
        }
        out.put_length(flexible, false, Some(self.partitions.len()), "partitions")?;
        for item in &self.partitions {
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
impl crate::sample::Sample for TxnOffsetCommitResponseTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        if version <= 5 {
            this.name = g.string();
        }
        if version >= 6 {
            this.topic_id = g.uuid();
        }
        this.partitions = g.vec(|g| <TxnOffsetCommitResponsePartition as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
