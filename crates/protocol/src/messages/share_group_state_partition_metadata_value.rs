//! `ShareGroupStatePartitionMetadataValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ShareGroupStatePartitionMetadataValue`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareGroupStatePartitionMetadataValue {
    /// Versions 0.
    pub initializing_topics: Vec<TopicPartitionsInfo>,
    /// Versions 0.
    pub initialized_topics: Vec<TopicPartitionsInfo>,
    /// Versions 0.
    pub deleting_topics: Vec<TopicInfo>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ShareGroupStatePartitionMetadataValue {
    fn default() -> Self {
        ShareGroupStatePartitionMetadataValue {
            initializing_topics: Vec::new(),
            initialized_topics: Vec::new(),
            deleting_topics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ShareGroupStatePartitionMetadataValue {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ShareGroupStatePartitionMetadataValue::default();
        this.initializing_topics =
            d.array(flexible, TopicPartitionsInfo::ENCODED_SIZE_MIN, "initializing_topics", |d| {
                TopicPartitionsInfo::decode(d, version)
            })?;
        this.initialized_topics =
            d.array(flexible, TopicPartitionsInfo::ENCODED_SIZE_MIN, "initialized_topics", |d| {
                TopicPartitionsInfo::decode(d, version)
            })?;
        this.deleting_topics =
            d.array(flexible, TopicInfo::ENCODED_SIZE_MIN, "deleting_topics", |d| TopicInfo::decode(d, version))?;
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
        out.put_length(flexible, false, Some(self.initializing_topics.len()), "initializing_topics")?;
        for item in &self.initializing_topics {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.initialized_topics.len()), "initialized_topics")?;
        for item in &self.initialized_topics {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.deleting_topics.len()), "deleting_topics")?;
        for item in &self.deleting_topics {
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

impl Message for ShareGroupStatePartitionMetadataValue {
    const NAME: &'static str = "ShareGroupStatePartitionMetadataValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ShareGroupStatePartitionMetadataValue {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.initializing_topics = g.vec(|g| <TopicPartitionsInfo as crate::sample::Sample>::sample(g, version));
        this.initialized_topics = g.vec(|g| <TopicPartitionsInfo as crate::sample::Sample>::sample(g, version));
        this.deleting_topics = g.vec(|g| <TopicInfo as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicPartitionsInfo`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicPartitionsInfo {
    /// Versions 0.
    pub topic_id: Uuid,
    /// Versions 0.
    pub topic_name: String,
    /// Versions 0.
    pub partitions: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicPartitionsInfo {
    fn default() -> Self {
        TopicPartitionsInfo {
            topic_id: Uuid::ZERO,
            topic_name: String::new(),
            partitions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TopicPartitionsInfo {
    const ENCODED_SIZE_MIN: usize = 19;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicPartitionsInfo::default();
        this.topic_id = d.uuid()?;
        this.topic_name = d.string(flexible, "topic_name")?;
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
        out.put_string(flexible, &self.topic_name, "topic_name")?;
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
impl crate::sample::Sample for TopicPartitionsInfo {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_id = g.uuid();
        this.topic_name = g.string();
        this.partitions = g.vec(|g| g.i32());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicInfo`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicInfo {
    /// Versions 0.
    pub topic_id: Uuid,
    /// Versions 0.
    pub topic_name: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicInfo {
    fn default() -> Self {
        TopicInfo { topic_id: Uuid::ZERO, topic_name: String::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TopicInfo {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicInfo::default();
        this.topic_id = d.uuid()?;
        this.topic_name = d.string(flexible, "topic_name")?;
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
impl crate::sample::Sample for TopicInfo {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_id = g.uuid();
        this.topic_name = g.string();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
