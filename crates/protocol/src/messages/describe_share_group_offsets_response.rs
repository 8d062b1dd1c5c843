//! `DescribeShareGroupOffsetsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeShareGroupOffsetsResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeShareGroupOffsetsResponse {
    /// Versions 0-1.
    pub throttle_time_ms: i32,
    /// Versions 0-1.
    pub groups: Vec<DescribeShareGroupOffsetsResponseGroup>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeShareGroupOffsetsResponse {
    fn default() -> Self {
        DescribeShareGroupOffsetsResponse { throttle_time_ms: 0, groups: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for DescribeShareGroupOffsetsResponse {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribeShareGroupOffsetsResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.groups = d.array(flexible, DescribeShareGroupOffsetsResponseGroup::ENCODED_SIZE_MIN, "groups", |d| {
            DescribeShareGroupOffsetsResponseGroup::decode(d, version)
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
        out.put_i32(self.throttle_time_ms);
        out.put_length(flexible, false, Some(self.groups.len()), "groups")?;
        for item in &self.groups {
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

impl Message for DescribeShareGroupOffsetsResponse {
    const NAME: &'static str = "DescribeShareGroupOffsetsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeShareGroupOffsetsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.groups = g.vec(|g| <DescribeShareGroupOffsetsResponseGroup as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribeShareGroupOffsetsResponsePartition`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeShareGroupOffsetsResponsePartition {
    /// Versions 0-1.
    pub partition_index: i32,
    /// Versions 0-1.
    pub start_offset: i64,
    /// Versions 0-1.
    pub leader_epoch: i32,
    /// Versions 1; ignorable.
    pub lag: i64,
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1; nullable 0-1.
    pub error_message: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeShareGroupOffsetsResponsePartition {
    fn default() -> Self {
        DescribeShareGroupOffsetsResponsePartition {
            partition_index: 0,
            start_offset: 0,
            leader_epoch: 0,
            lag: -1_i64,
            error_code: 0,
            error_message: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeShareGroupOffsetsResponsePartition {
    const ENCODED_SIZE_MIN: usize = 20;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribeShareGroupOffsetsResponsePartition::default();
        this.partition_index = d.i32()?;
        this.start_offset = d.i64()?;
        this.leader_epoch = d.i32()?;
        if version >= 1 {
            this.lag = d.i64()?;
        }
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
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
        out.put_i32(self.partition_index);
        out.put_i64(self.start_offset);
        out.put_i32(self.leader_epoch);
        if version >= 1 {
            out.put_i64(self.lag);
        }
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
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
impl crate::sample::Sample for DescribeShareGroupOffsetsResponsePartition {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.start_offset = g.i64();
        this.leader_epoch = g.i32();
        if version >= 1 {
            this.lag = g.i64();
        }
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribeShareGroupOffsetsResponseTopic`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeShareGroupOffsetsResponseTopic {
    /// Versions 0-1.
    pub topic_name: String,
    /// Versions 0-1.
    pub topic_id: Uuid,
    /// Versions 0-1.
    pub partitions: Vec<DescribeShareGroupOffsetsResponsePartition>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeShareGroupOffsetsResponseTopic {
    fn default() -> Self {
        DescribeShareGroupOffsetsResponseTopic {
            topic_name: String::new(),
            topic_id: Uuid::ZERO,
            partitions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeShareGroupOffsetsResponseTopic {
    const ENCODED_SIZE_MIN: usize = 19;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribeShareGroupOffsetsResponseTopic::default();
        this.topic_name = d.string(flexible, "topic_name")?;
        this.topic_id = d.uuid()?;
        this.partitions =
            d.array(flexible, DescribeShareGroupOffsetsResponsePartition::ENCODED_SIZE_MIN, "partitions", |d| {
                DescribeShareGroupOffsetsResponsePartition::decode(d, version)
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
        out.put_string(flexible, &self.topic_name, "topic_name")?;
        out.put_uuid(&self.topic_id);
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
impl crate::sample::Sample for DescribeShareGroupOffsetsResponseTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_name = g.string();
        this.topic_id = g.uuid();
        this.partitions =
            g.vec(|g| <DescribeShareGroupOffsetsResponsePartition as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribeShareGroupOffsetsResponseGroup`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeShareGroupOffsetsResponseGroup {
    /// Versions 0-1.
    pub group_id: String,
    /// Versions 0-1.
    pub topics: Vec<DescribeShareGroupOffsetsResponseTopic>,
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1; nullable 0-1.
    pub error_message: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeShareGroupOffsetsResponseGroup {
    fn default() -> Self {
        DescribeShareGroupOffsetsResponseGroup {
            group_id: String::new(),
            topics: Vec::new(),
            error_code: 0,
            error_message: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeShareGroupOffsetsResponseGroup {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribeShareGroupOffsetsResponseGroup::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.topics = d.array(flexible, DescribeShareGroupOffsetsResponseTopic::ENCODED_SIZE_MIN, "topics", |d| {
            DescribeShareGroupOffsetsResponseTopic::decode(d, version)
        })?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
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
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
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
impl crate::sample::Sample for DescribeShareGroupOffsetsResponseGroup {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.group_id = g.string();
        this.topics = g.vec(|g| <DescribeShareGroupOffsetsResponseTopic as crate::sample::Sample>::sample(g, version));
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
