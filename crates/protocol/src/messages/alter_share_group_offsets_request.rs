//! `AlterShareGroupOffsetsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AlterShareGroupOffsetsRequest`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterShareGroupOffsetsRequest {
    /// Versions 0.
    pub group_id: String,
    /// Versions 0.
    pub topics: Vec<AlterShareGroupOffsetsRequestTopic>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AlterShareGroupOffsetsRequest {
    fn default() -> Self {
        AlterShareGroupOffsetsRequest { group_id: String::new(), topics: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for AlterShareGroupOffsetsRequest {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AlterShareGroupOffsetsRequest::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.topics = d.array(flexible, AlterShareGroupOffsetsRequestTopic::ENCODED_SIZE_MIN, "topics", |d| {
            AlterShareGroupOffsetsRequestTopic::decode(d, version)
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
        out.put_string(flexible, &self.group_id, "group_id")?;
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

impl Message for AlterShareGroupOffsetsRequest {
    const NAME: &'static str = "AlterShareGroupOffsetsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AlterShareGroupOffsetsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.group_id = g.string();
        this.topics = g.vec(|g| <AlterShareGroupOffsetsRequestTopic as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AlterShareGroupOffsetsRequestPartition`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterShareGroupOffsetsRequestPartition {
    /// Versions 0.
    pub partition_index: i32,
    /// Versions 0.
    pub start_offset: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AlterShareGroupOffsetsRequestPartition {
    fn default() -> Self {
        AlterShareGroupOffsetsRequestPartition {
            partition_index: 0,
            start_offset: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AlterShareGroupOffsetsRequestPartition {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AlterShareGroupOffsetsRequestPartition::default();
        this.partition_index = d.i32()?;
        this.start_offset = d.i64()?;
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
impl crate::sample::Sample for AlterShareGroupOffsetsRequestPartition {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.start_offset = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AlterShareGroupOffsetsRequestTopic`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterShareGroupOffsetsRequestTopic {
    /// Versions 0; map key.
    pub topic_name: String,
    /// Versions 0.
    pub partitions: Vec<AlterShareGroupOffsetsRequestPartition>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AlterShareGroupOffsetsRequestTopic {
    fn default() -> Self {
        AlterShareGroupOffsetsRequestTopic {
            topic_name: String::new(),
            partitions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AlterShareGroupOffsetsRequestTopic {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AlterShareGroupOffsetsRequestTopic::default();
        this.topic_name = d.string(flexible, "topic_name")?;
        this.partitions =
            d.array(flexible, AlterShareGroupOffsetsRequestPartition::ENCODED_SIZE_MIN, "partitions", |d| {
                AlterShareGroupOffsetsRequestPartition::decode(d, version)
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
impl crate::sample::Sample for AlterShareGroupOffsetsRequestTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_name = g.string();
        this.partitions =
            g.vec(|g| <AlterShareGroupOffsetsRequestPartition as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
