//! `AlterReplicaLogDirsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AlterReplicaLogDirsResponse`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterReplicaLogDirsResponse {
    /// Versions 1-2.
    pub throttle_time_ms: i32,
    /// Versions 1-2.
    pub results: Vec<AlterReplicaLogDirTopicResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AlterReplicaLogDirsResponse {
    fn default() -> Self {
        AlterReplicaLogDirsResponse { throttle_time_ms: 0, results: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for AlterReplicaLogDirsResponse {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = AlterReplicaLogDirsResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.results = d.array(flexible, AlterReplicaLogDirTopicResult::ENCODED_SIZE_MIN, "results", |d| {
            AlterReplicaLogDirTopicResult::decode(d, version)
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
        let flexible = version >= 2;
        out.put_i32(self.throttle_time_ms);
        out.put_length(flexible, false, Some(self.results.len()), "results")?;
        for item in &self.results {
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

impl Message for AlterReplicaLogDirsResponse {
    const NAME: &'static str = "AlterReplicaLogDirsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AlterReplicaLogDirsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.results = g.vec(|g| <AlterReplicaLogDirTopicResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AlterReplicaLogDirPartitionResult`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterReplicaLogDirPartitionResult {
    /// Versions 1-2.
    pub partition_index: i32,
    /// Versions 1-2.
    pub error_code: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AlterReplicaLogDirPartitionResult {
    fn default() -> Self {
        AlterReplicaLogDirPartitionResult { partition_index: 0, error_code: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for AlterReplicaLogDirPartitionResult {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = AlterReplicaLogDirPartitionResult::default();
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
        let flexible = version >= 2;
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
impl crate::sample::Sample for AlterReplicaLogDirPartitionResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.error_code = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AlterReplicaLogDirTopicResult`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterReplicaLogDirTopicResult {
    /// Versions 1-2.
    pub topic_name: String,
    /// Versions 1-2.
    pub partitions: Vec<AlterReplicaLogDirPartitionResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AlterReplicaLogDirTopicResult {
    fn default() -> Self {
        AlterReplicaLogDirTopicResult {
            topic_name: String::new(),
            partitions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AlterReplicaLogDirTopicResult {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = AlterReplicaLogDirTopicResult::default();
        this.topic_name = d.string(flexible, "topic_name")?;
        this.partitions =
            d.array(flexible, AlterReplicaLogDirPartitionResult::ENCODED_SIZE_MIN, "partitions", |d| {
                AlterReplicaLogDirPartitionResult::decode(d, version)
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
        let flexible = version >= 2;
        out.put_string(flexible, &self.topic_name, "topic_name")?;
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
impl crate::sample::Sample for AlterReplicaLogDirTopicResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.topic_name = g.string();
        this.partitions = g.vec(|g| <AlterReplicaLogDirPartitionResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
