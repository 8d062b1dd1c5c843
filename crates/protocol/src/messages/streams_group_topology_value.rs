//! `StreamsGroupTopologyValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `StreamsGroupTopologyValue`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsGroupTopologyValue {
    /// Versions 0.
    pub epoch: i32,
    /// Versions 0.
    pub subtopologies: Vec<Subtopology>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for StreamsGroupTopologyValue {
    fn default() -> Self {
        StreamsGroupTopologyValue { epoch: 0, subtopologies: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for StreamsGroupTopologyValue {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = StreamsGroupTopologyValue::default();
        this.epoch = d.i32()?;
        this.subtopologies =
            d.array(flexible, Subtopology::ENCODED_SIZE_MIN, "subtopologies", |d| Subtopology::decode(d, version))?;
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
        out.put_i32(self.epoch);
        out.put_length(flexible, false, Some(self.subtopologies.len()), "subtopologies")?;
        for item in &self.subtopologies {
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

impl Message for StreamsGroupTopologyValue {
    const NAME: &'static str = "StreamsGroupTopologyValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for StreamsGroupTopologyValue {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.epoch = g.i32();
        this.subtopologies = g.vec(|g| <Subtopology as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `CopartitionGroup`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct CopartitionGroup {
    /// Versions 0.
    pub source_topics: Vec<i16>,
    /// Versions 0.
    pub source_topic_regex: Vec<i16>,
    /// Versions 0.
    pub repartition_source_topics: Vec<i16>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CopartitionGroup {
    fn default() -> Self {
        CopartitionGroup {
            source_topics: Vec::new(),
            source_topic_regex: Vec::new(),
            repartition_source_topics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for CopartitionGroup {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = CopartitionGroup::default();
        this.source_topics = d.array(flexible, 2, "source_topics", |d| d.i16())?;
        this.source_topic_regex = d.array(flexible, 2, "source_topic_regex", |d| d.i16())?;
        this.repartition_source_topics = d.array(flexible, 2, "repartition_source_topics", |d| d.i16())?;
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
        out.put_length(flexible, false, Some(self.source_topics.len()), "source_topics")?;
        for item in &self.source_topics {
            out.put_i16(*item);
        }
        out.put_length(flexible, false, Some(self.source_topic_regex.len()), "source_topic_regex")?;
        for item in &self.source_topic_regex {
            out.put_i16(*item);
        }
        out.put_length(flexible, false, Some(self.repartition_source_topics.len()), "repartition_source_topics")?;
        for item in &self.repartition_source_topics {
            out.put_i16(*item);
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
impl crate::sample::Sample for CopartitionGroup {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.source_topics = g.vec(|g| g.i16());
        this.source_topic_regex = g.vec(|g| g.i16());
        this.repartition_source_topics = g.vec(|g| g.i16());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Subtopology`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Subtopology {
    /// Versions 0.
    pub subtopology_id: String,
    /// Versions 0.
    pub source_topics: Vec<String>,
    /// Versions 0.
    pub source_topic_regex: Vec<String>,
    /// Versions 0.
    pub state_changelog_topics: Vec<TopicInfo>,
    /// Versions 0.
    pub repartition_sink_topics: Vec<String>,
    /// Versions 0.
    pub repartition_source_topics: Vec<TopicInfo>,
    /// Versions 0.
    pub copartition_groups: Vec<CopartitionGroup>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Subtopology {
    fn default() -> Self {
        Subtopology {
            subtopology_id: String::new(),
            source_topics: Vec::new(),
            source_topic_regex: Vec::new(),
            state_changelog_topics: Vec::new(),
            repartition_sink_topics: Vec::new(),
            repartition_source_topics: Vec::new(),
            copartition_groups: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for Subtopology {
    const ENCODED_SIZE_MIN: usize = 8;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Subtopology::default();
        this.subtopology_id = d.string(flexible, "subtopology_id")?;
        this.source_topics = d.array(flexible, 1, "source_topics", |d| d.string(flexible, "source_topics"))?;
        this.source_topic_regex =
            d.array(flexible, 1, "source_topic_regex", |d| d.string(flexible, "source_topic_regex"))?;
        this.state_changelog_topics =
            d.array(flexible, TopicInfo::ENCODED_SIZE_MIN, "state_changelog_topics", |d| {
                TopicInfo::decode(d, version)
            })?;
        this.repartition_sink_topics =
            d.array(flexible, 1, "repartition_sink_topics", |d| d.string(flexible, "repartition_sink_topics"))?;
        this.repartition_source_topics =
            d.array(flexible, TopicInfo::ENCODED_SIZE_MIN, "repartition_source_topics", |d| {
                TopicInfo::decode(d, version)
            })?;
        this.copartition_groups = d.array(flexible, CopartitionGroup::ENCODED_SIZE_MIN, "copartition_groups", |d| {
            CopartitionGroup::decode(d, version)
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
        out.put_string(flexible, &self.subtopology_id, "subtopology_id")?;
        out.put_length(flexible, false, Some(self.source_topics.len()), "source_topics")?;
        for item in &self.source_topics {
            out.put_string(flexible, item, "source_topics")?;
        }
        out.put_length(flexible, false, Some(self.source_topic_regex.len()), "source_topic_regex")?;
        for item in &self.source_topic_regex {
            out.put_string(flexible, item, "source_topic_regex")?;
        }
        out.put_length(flexible, false, Some(self.state_changelog_topics.len()), "state_changelog_topics")?;
        for item in &self.state_changelog_topics {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.repartition_sink_topics.len()), "repartition_sink_topics")?;
        for item in &self.repartition_sink_topics {
            out.put_string(flexible, item, "repartition_sink_topics")?;
        }
        out.put_length(flexible, false, Some(self.repartition_source_topics.len()), "repartition_source_topics")?;
        for item in &self.repartition_source_topics {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.copartition_groups.len()), "copartition_groups")?;
        for item in &self.copartition_groups {
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
impl crate::sample::Sample for Subtopology {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.subtopology_id = g.string();
        this.source_topics = g.vec(|g| g.string());
        this.source_topic_regex = g.vec(|g| g.string());
        this.state_changelog_topics = g.vec(|g| <TopicInfo as crate::sample::Sample>::sample(g, version));
        this.repartition_sink_topics = g.vec(|g| g.string());
        this.repartition_source_topics = g.vec(|g| <TopicInfo as crate::sample::Sample>::sample(g, version));
        this.copartition_groups = g.vec(|g| <CopartitionGroup as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicConfig`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicConfig {
    /// Versions 0.
    pub key: String,
    /// Versions 0.
    pub value: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicConfig {
    fn default() -> Self {
        TopicConfig { key: String::new(), value: String::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TopicConfig {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicConfig::default();
        this.key = d.string(flexible, "key")?;
        this.value = d.string(flexible, "value")?;
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
        out.put_string(flexible, &self.key, "key")?;
        out.put_string(flexible, &self.value, "value")?;
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
impl crate::sample::Sample for TopicConfig {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.key = g.string();
        this.value = g.string();
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
    pub name: String,
    /// Versions 0.
    pub partitions: i32,
    /// Versions 0.
    pub replication_factor: i16,
    /// Versions 0.
    pub topic_configs: Vec<TopicConfig>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicInfo {
    fn default() -> Self {
        TopicInfo {
            name: String::new(),
            partitions: 0,
            replication_factor: 0,
            topic_configs: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TopicInfo {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicInfo::default();
        this.name = d.string(flexible, "name")?;
        this.partitions = d.i32()?;
        this.replication_factor = d.i16()?;
        this.topic_configs =
            d.array(flexible, TopicConfig::ENCODED_SIZE_MIN, "topic_configs", |d| TopicConfig::decode(d, version))?;
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
        out.put_string(flexible, &self.name, "name")?;
        out.put_i32(self.partitions);
        out.put_i16(self.replication_factor);
        out.put_length(flexible, false, Some(self.topic_configs.len()), "topic_configs")?;
        for item in &self.topic_configs {
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
impl crate::sample::Sample for TopicInfo {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.partitions = g.i32();
        this.replication_factor = g.i16();
        this.topic_configs = g.vec(|g| <TopicConfig as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
