//! `StreamsGroupHeartbeatRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `StreamsGroupHeartbeatRequest`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsGroupHeartbeatRequest {
    /// Versions 0-1.
    pub group_id: String,
    /// Versions 0-1.
    pub member_id: String,
    /// Versions 0-1.
    pub member_epoch: i32,
    /// Versions 0-1.
    pub endpoint_information_epoch: i32,
    /// Versions 0-1; nullable 0-1.
    pub instance_id: Option<String>,
    /// Versions 0-1; nullable 0-1.
    pub rack_id: Option<String>,
    /// Versions 0-1.
    pub rebalance_timeout_ms: i32,
    /// Versions 0-1; nullable 0-1.
    pub topology: Option<Topology>,
    /// Versions 0-1; nullable 0-1.
    pub active_tasks: Option<Vec<TaskIds>>,
    /// Versions 0-1; nullable 0-1.
    pub standby_tasks: Option<Vec<TaskIds>>,
    /// Versions 0-1; nullable 0-1.
    pub warmup_tasks: Option<Vec<TaskIds>>,
    /// Versions 0-1; nullable 0-1.
    pub process_id: Option<String>,
    /// Versions 0-1; nullable 0-1.
    pub user_endpoint: Option<Endpoint>,
    /// Versions 0-1; nullable 0-1.
    pub client_tags: Option<Vec<KeyValue>>,
    /// Versions 0-1; nullable 0-1.
    pub task_offsets: Option<Vec<TaskOffset>>,
    /// Versions 0-1; nullable 0-1.
    pub task_end_offsets: Option<Vec<TaskOffset>>,
    /// Versions 0-1.
    pub shutdown_application: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for StreamsGroupHeartbeatRequest {
    fn default() -> Self {
        StreamsGroupHeartbeatRequest {
            group_id: String::new(),
            member_id: String::new(),
            member_epoch: 0,
            endpoint_information_epoch: 0,
            instance_id: None,
            rack_id: None,
            rebalance_timeout_ms: -1_i32,
            topology: None,
            active_tasks: None,
            standby_tasks: None,
            warmup_tasks: None,
            process_id: None,
            user_endpoint: None,
            client_tags: None,
            task_offsets: None,
            task_end_offsets: None,
            shutdown_application: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for StreamsGroupHeartbeatRequest {
    const ENCODED_SIZE_MIN: usize = 27;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = StreamsGroupHeartbeatRequest::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.member_id = d.string(flexible, "member_id")?;
        this.member_epoch = d.i32()?;
        this.endpoint_information_epoch = d.i32()?;
        this.instance_id = d.nullable_string(flexible)?;
        this.rack_id = d.nullable_string(flexible)?;
        this.rebalance_timeout_ms = d.i32()?;
        this.topology = if d.struct_marker()? { Some(Topology::decode(d, version)?) } else { None };
        this.active_tasks = d.nullable_array(flexible, TaskIds::ENCODED_SIZE_MIN, |d| TaskIds::decode(d, version))?;
        this.standby_tasks = d.nullable_array(flexible, TaskIds::ENCODED_SIZE_MIN, |d| TaskIds::decode(d, version))?;
        this.warmup_tasks = d.nullable_array(flexible, TaskIds::ENCODED_SIZE_MIN, |d| TaskIds::decode(d, version))?;
        this.process_id = d.nullable_string(flexible)?;
        this.user_endpoint = if d.struct_marker()? { Some(Endpoint::decode(d, version)?) } else { None };
        this.client_tags = d.nullable_array(flexible, KeyValue::ENCODED_SIZE_MIN, |d| KeyValue::decode(d, version))?;
        this.task_offsets =
            d.nullable_array(flexible, TaskOffset::ENCODED_SIZE_MIN, |d| TaskOffset::decode(d, version))?;
        this.task_end_offsets =
            d.nullable_array(flexible, TaskOffset::ENCODED_SIZE_MIN, |d| TaskOffset::decode(d, version))?;
        this.shutdown_application = d.bool()?;
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
        out.put_string(flexible, &self.member_id, "member_id")?;
        out.put_i32(self.member_epoch);
        out.put_i32(self.endpoint_information_epoch);
        match &self.instance_id {
            Some(value) => {
                out.put_string(flexible, value, "instance_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "instance_id")?;
            }
        }
        match &self.rack_id {
            Some(value) => {
                out.put_string(flexible, value, "rack_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "rack_id")?;
            }
        }
        out.put_i32(self.rebalance_timeout_ms);
        match &self.topology {
            Some(value) => {
                out.put_i8(1);
                value.encode(out, version)?;
            }
            None => {
                out.put_i8(-1);
            }
        }
        match &self.active_tasks {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "active_tasks")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "active_tasks")?;
            }
        }
        match &self.standby_tasks {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "standby_tasks")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "standby_tasks")?;
            }
        }
        match &self.warmup_tasks {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "warmup_tasks")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "warmup_tasks")?;
            }
        }
        match &self.process_id {
            Some(value) => {
                out.put_string(flexible, value, "process_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "process_id")?;
            }
        }
        match &self.user_endpoint {
            Some(value) => {
                out.put_i8(1);
                value.encode(out, version)?;
            }
            None => {
                out.put_i8(-1);
            }
        }
        match &self.client_tags {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "client_tags")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "client_tags")?;
            }
        }
        match &self.task_offsets {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "task_offsets")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "task_offsets")?;
            }
        }
        match &self.task_end_offsets {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "task_end_offsets")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "task_end_offsets")?;
            }
        }
        out.put_bool(self.shutdown_application);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for StreamsGroupHeartbeatRequest {
    const NAME: &'static str = "StreamsGroupHeartbeatRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for StreamsGroupHeartbeatRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.group_id = g.string();
        this.member_id = g.string();
        this.member_epoch = g.i32();
        this.endpoint_information_epoch = g.i32();
        this.instance_id = g.nullable(|g| g.string());
        this.rack_id = g.nullable(|g| g.string());
        this.rebalance_timeout_ms = g.i32();
        this.topology = g.nullable(|g| <Topology as crate::sample::Sample>::sample(g, version));
        this.active_tasks = g.nullable(|g| g.vec(|g| <TaskIds as crate::sample::Sample>::sample(g, version)));
        this.standby_tasks = g.nullable(|g| g.vec(|g| <TaskIds as crate::sample::Sample>::sample(g, version)));
        this.warmup_tasks = g.nullable(|g| g.vec(|g| <TaskIds as crate::sample::Sample>::sample(g, version)));
        this.process_id = g.nullable(|g| g.string());
        this.user_endpoint = g.nullable(|g| <Endpoint as crate::sample::Sample>::sample(g, version));
        this.client_tags = g.nullable(|g| g.vec(|g| <KeyValue as crate::sample::Sample>::sample(g, version)));
        this.task_offsets = g.nullable(|g| g.vec(|g| <TaskOffset as crate::sample::Sample>::sample(g, version)));
        this.task_end_offsets = g.nullable(|g| g.vec(|g| <TaskOffset as crate::sample::Sample>::sample(g, version)));
        this.shutdown_application = g.bool();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `CopartitionGroup`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct CopartitionGroup {
    /// Versions 0-1.
    pub source_topics: Vec<i16>,
    /// Versions 0-1.
    pub source_topic_regex: Vec<i16>,
    /// Versions 0-1.
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

/// `Subtopology`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct Subtopology {
    /// Versions 0-1.
    pub subtopology_id: String,
    /// Versions 0-1.
    pub source_topics: Vec<String>,
    /// Versions 0-1.
    pub source_topic_regex: Vec<String>,
    /// Versions 0-1.
    pub state_changelog_topics: Vec<TopicInfo>,
    /// Versions 0-1.
    pub repartition_sink_topics: Vec<String>,
    /// Versions 0-1.
    pub repartition_source_topics: Vec<TopicInfo>,
    /// Versions 0-1.
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

/// `Topology`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    /// Versions 0-1.
    pub epoch: i32,
    /// Versions 0-1.
    pub subtopologies: Vec<Subtopology>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Topology {
    fn default() -> Self {
        Topology { epoch: 0, subtopologies: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for Topology {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Topology::default();
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

#[cfg(feature = "sample")]
impl crate::sample::Sample for Topology {
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

/// `KeyValue`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyValue {
    /// Versions 0-1.
    pub key: String,
    /// Versions 0-1.
    pub value: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for KeyValue {
    fn default() -> Self {
        KeyValue { key: String::new(), value: String::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for KeyValue {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = KeyValue::default();
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
impl crate::sample::Sample for KeyValue {
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

/// `TopicInfo`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicInfo {
    /// Versions 0-1.
    pub name: String,
    /// Versions 0-1.
    pub partitions: i32,
    /// Versions 0-1.
    pub replication_factor: i16,
    /// Versions 0-1.
    pub topic_configs: Vec<KeyValue>,
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
            d.array(flexible, KeyValue::ENCODED_SIZE_MIN, "topic_configs", |d| KeyValue::decode(d, version))?;
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
        this.topic_configs = g.vec(|g| <KeyValue as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Endpoint`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    /// Versions 0-1.
    pub host: String,
    /// Versions 0-1.
    pub port: u16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Endpoint {
    fn default() -> Self {
        Endpoint { host: String::new(), port: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for Endpoint {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Endpoint::default();
        this.host = d.string(flexible, "host")?;
        this.port = d.u16()?;
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
        out.put_string(flexible, &self.host, "host")?;
        out.put_u16(self.port);
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
impl crate::sample::Sample for Endpoint {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.host = g.string();
        this.port = g.u16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TaskOffset`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskOffset {
    /// Versions 0-1.
    pub subtopology_id: String,
    /// Versions 0-1.
    pub partition: i32,
    /// Versions 0-1.
    pub offset: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TaskOffset {
    fn default() -> Self {
        TaskOffset { subtopology_id: String::new(), partition: 0, offset: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TaskOffset {
    const ENCODED_SIZE_MIN: usize = 14;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TaskOffset::default();
        this.subtopology_id = d.string(flexible, "subtopology_id")?;
        this.partition = d.i32()?;
        this.offset = d.i64()?;
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
        out.put_i32(self.partition);
        out.put_i64(self.offset);
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
impl crate::sample::Sample for TaskOffset {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.subtopology_id = g.string();
        this.partition = g.i32();
        this.offset = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TaskIds`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskIds {
    /// Versions 0-1.
    pub subtopology_id: String,
    /// Versions 0-1.
    pub partitions: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TaskIds {
    fn default() -> Self {
        TaskIds { subtopology_id: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TaskIds {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TaskIds::default();
        this.subtopology_id = d.string(flexible, "subtopology_id")?;
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
        out.put_string(flexible, &self.subtopology_id, "subtopology_id")?;
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
impl crate::sample::Sample for TaskIds {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.subtopology_id = g.string();
        this.partitions = g.vec(|g| g.i32());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
