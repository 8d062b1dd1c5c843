//! `ListOffsetsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ListOffsetsResponse`, versions 1-11.
#[derive(Debug, Clone, PartialEq)]
pub struct ListOffsetsResponse {
    /// Versions 2-11; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 1-11.
    pub topics: Vec<ListOffsetsTopicResponse>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListOffsetsResponse {
    fn default() -> Self {
        ListOffsetsResponse { throttle_time_ms: 0, topics: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ListOffsetsResponse {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 6;
        let mut this = ListOffsetsResponse::default();
        if version >= 2 {
            this.throttle_time_ms = d.i32()?;
        }
        this.topics = d.array(flexible, ListOffsetsTopicResponse::ENCODED_SIZE_MIN, "topics", |d| {
            ListOffsetsTopicResponse::decode(d, version)
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
        let flexible = version >= 6;
        if version >= 2 {
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

impl Message for ListOffsetsResponse {
    const NAME: &'static str = "ListOffsetsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 11 };
    const FLEXIBLE_MIN: Option<i16> = Some(6);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ListOffsetsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 6;
        let mut this = Self::default();
        if version >= 2 {
            this.throttle_time_ms = g.i32();
        }
        this.topics = g.vec(|g| <ListOffsetsTopicResponse as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ListOffsetsPartitionResponse`, versions 1-11.
#[derive(Debug, Clone, PartialEq)]
pub struct ListOffsetsPartitionResponse {
    /// Versions 1-11.
    pub partition_index: i32,
    /// Versions 1-11.
    pub error_code: i16,
    /// Versions 1-11.
    pub timestamp: i64,
    /// Versions 1-11.
    pub offset: i64,
    /// Versions 4-11.
    pub leader_epoch: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListOffsetsPartitionResponse {
    fn default() -> Self {
        ListOffsetsPartitionResponse {
            partition_index: 0,
            error_code: 0,
            timestamp: -1_i64,
            offset: -1_i64,
            leader_epoch: -1_i32,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ListOffsetsPartitionResponse {
    const ENCODED_SIZE_MIN: usize = 22;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 6;
        let mut this = ListOffsetsPartitionResponse::default();
        this.partition_index = d.i32()?;
        this.error_code = d.i16()?;
        this.timestamp = d.i64()?;
        this.offset = d.i64()?;
        if version >= 4 {
            this.leader_epoch = d.i32()?;
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
        let flexible = version >= 6;
        out.put_i32(self.partition_index);
        out.put_i16(self.error_code);
        out.put_i64(self.timestamp);
        out.put_i64(self.offset);
        if version >= 4 {
            out.put_i32(self.leader_epoch);
        } else {
            if self.leader_epoch != -1_i32 {
                return Err(EncodeError::FieldNotInVersion { field: "leader_epoch", version });
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
impl crate::sample::Sample for ListOffsetsPartitionResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 6;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.error_code = g.i16();
        this.timestamp = g.i64();
        this.offset = g.i64();
        if version >= 4 {
            this.leader_epoch = g.i32();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ListOffsetsTopicResponse`, versions 1-11.
#[derive(Debug, Clone, PartialEq)]
pub struct ListOffsetsTopicResponse {
    /// Versions 1-11.
    pub name: String,
    /// Versions 1-11.
    pub partitions: Vec<ListOffsetsPartitionResponse>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListOffsetsTopicResponse {
    fn default() -> Self {
        ListOffsetsTopicResponse { name: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ListOffsetsTopicResponse {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 6;
        let mut this = ListOffsetsTopicResponse::default();
        this.name = d.string(flexible, "name")?;
        this.partitions = d.array(flexible, ListOffsetsPartitionResponse::ENCODED_SIZE_MIN, "partitions", |d| {
            ListOffsetsPartitionResponse::decode(d, version)
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
        let flexible = version >= 6;
        out.put_string(flexible, &self.name, "name")?;
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
impl crate::sample::Sample for ListOffsetsTopicResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 6;
        let mut this = Self::default();
        this.name = g.string();
        this.partitions = g.vec(|g| <ListOffsetsPartitionResponse as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
