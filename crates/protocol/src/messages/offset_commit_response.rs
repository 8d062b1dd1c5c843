//! `OffsetCommitResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `OffsetCommitResponse`, versions 2-10.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetCommitResponse {
    /// Versions 3-10; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 2-10.
    pub topics: Vec<OffsetCommitResponseTopic>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetCommitResponse {
    fn default() -> Self {
        OffsetCommitResponse { throttle_time_ms: 0, topics: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for OffsetCommitResponse {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 8;
        let mut this = OffsetCommitResponse::default();
        if version >= 3 {
            this.throttle_time_ms = d.i32()?;
        }
        this.topics = d.array(flexible, OffsetCommitResponseTopic::ENCODED_SIZE_MIN, "topics", |d| {
            OffsetCommitResponseTopic::decode(d, version)
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
        let flexible = version >= 8;
        if version >= 3 {
            out.put_i32(self.throttle_time_ms);
        }
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

impl Message for OffsetCommitResponse {
    const NAME: &'static str = "OffsetCommitResponse";
    const VERSIONS: VersionRange = VersionRange { min: 2, max: 10 };
    const FLEXIBLE_MIN: Option<i16> = Some(8);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for OffsetCommitResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 8;
        let mut this = Self::default();
        if version >= 3 {
            this.throttle_time_ms = g.i32();
        }
        this.topics = g.vec(|g| <OffsetCommitResponseTopic as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `OffsetCommitResponsePartition`, versions 2-10.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetCommitResponsePartition {
    /// Versions 2-10.
    pub partition_index: i32,
    /// Versions 2-10.
    pub error_code: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetCommitResponsePartition {
    fn default() -> Self {
        OffsetCommitResponsePartition { partition_index: 0, error_code: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for OffsetCommitResponsePartition {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 8;
        let mut this = OffsetCommitResponsePartition::default();
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
        let flexible = version >= 8;
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
impl crate::sample::Sample for OffsetCommitResponsePartition {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 8;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.error_code = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `OffsetCommitResponseTopic`, versions 2-10.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetCommitResponseTopic {
    /// Versions 2-9; ignorable.
    pub name: String,
    /// Versions 10; ignorable.
    pub topic_id: Uuid,
    /// Versions 2-10.
    pub partitions: Vec<OffsetCommitResponsePartition>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetCommitResponseTopic {
    fn default() -> Self {
        OffsetCommitResponseTopic {
            name: String::new(),
            topic_id: Uuid::ZERO,
            partitions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for OffsetCommitResponseTopic {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 8;
        let mut this = OffsetCommitResponseTopic::default();
        if version <= 9 {
            this.name = d.string(flexible, "name")?;
        }
        if version >= 10 {
            this.topic_id = d.uuid()?;
        }
        this.partitions = d.array(flexible, OffsetCommitResponsePartition::ENCODED_SIZE_MIN, "partitions", |d| {
            OffsetCommitResponsePartition::decode(d, version)
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
        let flexible = version >= 8;
        if version <= 9 {
            out.put_string(flexible, &self.name, "name")?;
        }
        if version >= 10 {
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
impl crate::sample::Sample for OffsetCommitResponseTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 8;
        let mut this = Self::default();
        if version <= 9 {
            this.name = g.string();
        }
        if version >= 10 {
            this.topic_id = g.uuid();
        }
        this.partitions = g.vec(|g| <OffsetCommitResponsePartition as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
