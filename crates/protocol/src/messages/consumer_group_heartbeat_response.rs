//! `ConsumerGroupHeartbeatResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ConsumerGroupHeartbeatResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerGroupHeartbeatResponse {
    /// Versions 0-1.
    pub throttle_time_ms: i32,
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1; nullable 0-1.
    pub error_message: Option<String>,
    /// Versions 0-1; nullable 0-1.
    pub member_id: Option<String>,
    /// Versions 0-1.
    pub member_epoch: i32,
    /// Versions 0-1.
    pub heartbeat_interval_ms: i32,
    /// Versions 0-1; nullable 0-1.
    pub assignment: Option<Assignment>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ConsumerGroupHeartbeatResponse {
    fn default() -> Self {
        ConsumerGroupHeartbeatResponse {
            throttle_time_ms: 0,
            error_code: 0,
            error_message: None,
            member_id: None,
            member_epoch: 0,
            heartbeat_interval_ms: 0,
            assignment: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ConsumerGroupHeartbeatResponse {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ConsumerGroupHeartbeatResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.member_id = d.nullable_string(flexible)?;
        this.member_epoch = d.i32()?;
        this.heartbeat_interval_ms = d.i32()?;
        this.assignment = if d.struct_marker()? { Some(Assignment::decode(d, version)?) } else { None };
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
        out.put_i32(self.throttle_time_ms);
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
        match &self.member_id {
            Some(value) => {
                out.put_string(flexible, value, "member_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "member_id")?;
            }
        }
        out.put_i32(self.member_epoch);
        out.put_i32(self.heartbeat_interval_ms);
        match &self.assignment {
            Some(value) => {
                out.put_i8(1);
                value.encode(out, version)?;
            }
            None => {
                out.put_i8(-1);
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

impl Message for ConsumerGroupHeartbeatResponse {
    const NAME: &'static str = "ConsumerGroupHeartbeatResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ConsumerGroupHeartbeatResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.member_id = g.nullable(|g| g.string());
        this.member_epoch = g.i32();
        this.heartbeat_interval_ms = g.i32();
        this.assignment = g.nullable(|g| <Assignment as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Assignment`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    /// Versions 0-1.
    pub topic_partitions: Vec<TopicPartitions>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Assignment {
    fn default() -> Self {
        Assignment { topic_partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for Assignment {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Assignment::default();
        this.topic_partitions = d.array(flexible, TopicPartitions::ENCODED_SIZE_MIN, "topic_partitions", |d| {
            TopicPartitions::decode(d, version)
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
        out.put_length(flexible, false, Some(self.topic_partitions.len()), "topic_partitions")?;
        for item in &self.topic_partitions {
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
impl crate::sample::Sample for Assignment {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_partitions = g.vec(|g| <TopicPartitions as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicPartitions`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicPartitions {
    /// Versions 0-1.
    pub topic_id: Uuid,
    /// Versions 0-1.
    pub partitions: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicPartitions {
    fn default() -> Self {
        TopicPartitions { topic_id: Uuid::ZERO, partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TopicPartitions {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicPartitions::default();
        this.topic_id = d.uuid()?;
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
        let flexible = true;
        out.put_uuid(&self.topic_id);
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
impl crate::sample::Sample for TopicPartitions {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_id = g.uuid();
        this.partitions = g.vec(|g| g.i32());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
