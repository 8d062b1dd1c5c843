//! `ConsumerGroupPartitionMetadataValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ConsumerGroupPartitionMetadataValue`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerGroupPartitionMetadataValue {
    /// Versions 0.
    pub topics: Vec<TopicMetadata>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ConsumerGroupPartitionMetadataValue {
    fn default() -> Self {
        ConsumerGroupPartitionMetadataValue { topics: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ConsumerGroupPartitionMetadataValue {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ConsumerGroupPartitionMetadataValue::default();
        this.topics =
            d.array(flexible, TopicMetadata::ENCODED_SIZE_MIN, "topics", |d| TopicMetadata::decode(d, version))?;
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

impl Message for ConsumerGroupPartitionMetadataValue {
    const NAME: &'static str = "ConsumerGroupPartitionMetadataValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ConsumerGroupPartitionMetadataValue {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topics = g.vec(|g| <TopicMetadata as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `PartitionMetadata`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionMetadata {
    /// Versions 0.
    pub partition: i32,
    /// Versions 0.
    pub racks: Vec<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionMetadata {
    fn default() -> Self {
        PartitionMetadata { partition: 0, racks: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for PartitionMetadata {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = PartitionMetadata::default();
        this.partition = d.i32()?;
        this.racks = d.array(flexible, 1, "racks", |d| d.string(flexible, "racks"))?;
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
        out.put_i32(self.partition);
        out.put_length(flexible, false, Some(self.racks.len()), "racks")?;
        for item in &self.racks {
            out.put_string(flexible, item, "racks")?;
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
impl crate::sample::Sample for PartitionMetadata {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition = g.i32();
        this.racks = g.vec(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicMetadata`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicMetadata {
    /// Versions 0.
    pub topic_id: Uuid,
    /// Versions 0.
    pub topic_name: String,
    /// Versions 0.
    pub num_partitions: i32,
    /// Versions 0.
    pub partition_metadata: Vec<PartitionMetadata>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicMetadata {
    fn default() -> Self {
        TopicMetadata {
            topic_id: Uuid::ZERO,
            topic_name: String::new(),
            num_partitions: 0,
            partition_metadata: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TopicMetadata {
    const ENCODED_SIZE_MIN: usize = 23;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicMetadata::default();
        this.topic_id = d.uuid()?;
        this.topic_name = d.string(flexible, "topic_name")?;
        this.num_partitions = d.i32()?;
        this.partition_metadata =
            d.array(flexible, PartitionMetadata::ENCODED_SIZE_MIN, "partition_metadata", |d| {
                PartitionMetadata::decode(d, version)
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
        out.put_uuid(&self.topic_id);
        out.put_string(flexible, &self.topic_name, "topic_name")?;
        out.put_i32(self.num_partitions);
        out.put_length(flexible, false, Some(self.partition_metadata.len()), "partition_metadata")?;
        for item in &self.partition_metadata {
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
impl crate::sample::Sample for TopicMetadata {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_id = g.uuid();
        this.topic_name = g.string();
        this.num_partitions = g.i32();
        this.partition_metadata = g.vec(|g| <PartitionMetadata as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
