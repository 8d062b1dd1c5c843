//! `OffsetForLeaderEpochResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `OffsetForLeaderEpochResponse`, versions 2-4.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetForLeaderEpochResponse {
    /// Versions 2-4; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 2-4.
    pub topics: Vec<OffsetForLeaderTopicResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetForLeaderEpochResponse {
    fn default() -> Self {
        OffsetForLeaderEpochResponse { throttle_time_ms: 0, topics: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for OffsetForLeaderEpochResponse {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = OffsetForLeaderEpochResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.topics = d.array(flexible, OffsetForLeaderTopicResult::ENCODED_SIZE_MIN, "topics", |d| {
            OffsetForLeaderTopicResult::decode(d, version)
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
        let flexible = version >= 4;
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

impl Message for OffsetForLeaderEpochResponse {
    const NAME: &'static str = "OffsetForLeaderEpochResponse";
    const VERSIONS: VersionRange = VersionRange { min: 2, max: 4 };
    const FLEXIBLE_MIN: Option<i16> = Some(4);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for OffsetForLeaderEpochResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.topics = g.vec(|g| <OffsetForLeaderTopicResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `EpochEndOffset`, versions 2-4.
#[derive(Debug, Clone, PartialEq)]
pub struct EpochEndOffset {
    /// Versions 2-4.
    pub error_code: i16,
    /// Versions 2-4.
    pub partition: i32,
    /// Versions 2-4; ignorable.
    pub leader_epoch: i32,
    /// Versions 2-4.
    pub end_offset: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for EpochEndOffset {
    fn default() -> Self {
        EpochEndOffset {
            error_code: 0,
            partition: 0,
            leader_epoch: -1_i32,
            end_offset: -1_i64,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for EpochEndOffset {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = EpochEndOffset::default();
        this.error_code = d.i16()?;
        this.partition = d.i32()?;
        this.leader_epoch = d.i32()?;
        this.end_offset = d.i64()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 4;
        out.put_i16(self.error_code);
        out.put_i32(self.partition);
        out.put_i32(self.leader_epoch);
        out.put_i64(self.end_offset);
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
impl crate::sample::Sample for EpochEndOffset {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.partition = g.i32();
        this.leader_epoch = g.i32();
        this.end_offset = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `OffsetForLeaderTopicResult`, versions 2-4.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetForLeaderTopicResult {
    /// Versions 2-4; map key.
    pub topic: String,
    /// Versions 2-4.
    pub partitions: Vec<EpochEndOffset>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetForLeaderTopicResult {
    fn default() -> Self {
        OffsetForLeaderTopicResult { topic: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for OffsetForLeaderTopicResult {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = OffsetForLeaderTopicResult::default();
        this.topic = d.string(flexible, "topic")?;
        this.partitions =
            d.array(flexible, EpochEndOffset::ENCODED_SIZE_MIN, "partitions", |d| EpochEndOffset::decode(d, version))?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 4;
        out.put_string(flexible, &self.topic, "topic")?;
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
impl crate::sample::Sample for OffsetForLeaderTopicResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.topic = g.string();
        this.partitions = g.vec(|g| <EpochEndOffset as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
