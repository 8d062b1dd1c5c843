//! `StreamsGroupDescribeResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `StreamsGroupDescribeResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsGroupDescribeResponse {
    /// Versions 0-1.
    pub throttle_time_ms: i32,
    /// Versions 0-1.
    pub groups: Vec<DescribedGroup>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for StreamsGroupDescribeResponse {
    fn default() -> Self {
        StreamsGroupDescribeResponse { throttle_time_ms: 0, groups: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for StreamsGroupDescribeResponse {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = StreamsGroupDescribeResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.groups =
            d.array(flexible, DescribedGroup::ENCODED_SIZE_MIN, "groups", |d| DescribedGroup::decode(d, version))?;
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

impl Message for StreamsGroupDescribeResponse {
    const NAME: &'static str = "StreamsGroupDescribeResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for StreamsGroupDescribeResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.groups = g.vec(|g| <DescribedGroup as crate::sample::Sample>::sample(g, version));
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
    pub repartition_sink_topics: Vec<String>,
    /// Versions 0-1.
    pub state_changelog_topics: Vec<TopicInfo>,
    /// Versions 0-1.
    pub repartition_source_topics: Vec<TopicInfo>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Subtopology {
    fn default() -> Self {
        Subtopology {
            subtopology_id: String::new(),
            source_topics: Vec::new(),
            repartition_sink_topics: Vec::new(),
            state_changelog_topics: Vec::new(),
            repartition_source_topics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for Subtopology {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Subtopology::default();
        this.subtopology_id = d.string(flexible, "subtopology_id")?;
        this.source_topics = d.array(flexible, 1, "source_topics", |d| d.string(flexible, "source_topics"))?;
        this.repartition_sink_topics =
            d.array(flexible, 1, "repartition_sink_topics", |d| d.string(flexible, "repartition_sink_topics"))?;
        this.state_changelog_topics =
            d.array(flexible, TopicInfo::ENCODED_SIZE_MIN, "state_changelog_topics", |d| {
                TopicInfo::decode(d, version)
            })?;
        this.repartition_source_topics =
            d.array(flexible, TopicInfo::ENCODED_SIZE_MIN, "repartition_source_topics", |d| {
                TopicInfo::decode(d, version)
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
        out.put_length(flexible, false, Some(self.repartition_sink_topics.len()), "repartition_sink_topics")?;
        for item in &self.repartition_sink_topics {
            out.put_string(flexible, item, "repartition_sink_topics")?;
        }
        out.put_length(flexible, false, Some(self.state_changelog_topics.len()), "state_changelog_topics")?;
        for item in &self.state_changelog_topics {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.repartition_source_topics.len()), "repartition_source_topics")?;
        for item in &self.repartition_source_topics {
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
        this.repartition_sink_topics = g.vec(|g| g.string());
        this.state_changelog_topics = g.vec(|g| <TopicInfo as crate::sample::Sample>::sample(g, version));
        this.repartition_source_topics = g.vec(|g| <TopicInfo as crate::sample::Sample>::sample(g, version));
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
    /// Versions 0-1; nullable 0-1.
    pub subtopologies: Option<Vec<Subtopology>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Topology {
    fn default() -> Self {
        Topology { epoch: 0, subtopologies: None, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for Topology {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Topology::default();
        this.epoch = d.i32()?;
        this.subtopologies =
            d.nullable_array(flexible, Subtopology::ENCODED_SIZE_MIN, |d| Subtopology::decode(d, version))?;
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
        match &self.subtopologies {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "subtopologies")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "subtopologies")?;
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
impl crate::sample::Sample for Topology {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.epoch = g.i32();
        this.subtopologies = g.nullable(|g| g.vec(|g| <Subtopology as crate::sample::Sample>::sample(g, version)));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Member`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// Versions 0-1.
    pub member_id: String,
    /// Versions 0-1.
    pub member_epoch: i32,
    /// Versions 0-1; nullable 0-1.
    pub instance_id: Option<String>,
    /// Versions 0-1; nullable 0-1.
    pub rack_id: Option<String>,
    /// Versions 0-1.
    pub client_id: String,
    /// Versions 0-1.
    pub client_host: String,
    /// Versions 0-1.
    pub topology_epoch: i32,
    /// Versions 0-1.
    pub process_id: String,
    /// Versions 0-1; nullable 0-1.
    pub user_endpoint: Option<Endpoint>,
    /// Versions 0-1.
    pub client_tags: Vec<KeyValue>,
    /// Versions 0-1.
    pub task_offsets: Vec<TaskOffset>,
    /// Versions 0-1.
    pub task_end_offsets: Vec<TaskOffset>,
    /// Versions 0-1.
    pub assignment: Assignment,
    /// Versions 0-1.
    pub target_assignment: Assignment,
    /// Versions 0-1.
    pub is_classic: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Member {
    fn default() -> Self {
        Member {
            member_id: String::new(),
            member_epoch: 0,
            instance_id: None,
            rack_id: None,
            client_id: String::new(),
            client_host: String::new(),
            topology_epoch: 0,
            process_id: String::new(),
            user_endpoint: None,
            client_tags: Vec::new(),
            task_offsets: Vec::new(),
            task_end_offsets: Vec::new(),
            assignment: Assignment::default(),
            target_assignment: Assignment::default(),
            is_classic: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for Member {
    const ENCODED_SIZE_MIN: usize = 28;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Member::default();
        this.member_id = d.string(flexible, "member_id")?;
        this.member_epoch = d.i32()?;
        this.instance_id = d.nullable_string(flexible)?;
        this.rack_id = d.nullable_string(flexible)?;
        this.client_id = d.string(flexible, "client_id")?;
        this.client_host = d.string(flexible, "client_host")?;
        this.topology_epoch = d.i32()?;
        this.process_id = d.string(flexible, "process_id")?;
        this.user_endpoint = if d.struct_marker()? { Some(Endpoint::decode(d, version)?) } else { None };
        this.client_tags =
            d.array(flexible, KeyValue::ENCODED_SIZE_MIN, "client_tags", |d| KeyValue::decode(d, version))?;
        this.task_offsets =
            d.array(flexible, TaskOffset::ENCODED_SIZE_MIN, "task_offsets", |d| TaskOffset::decode(d, version))?;
        this.task_end_offsets =
            d.array(flexible, TaskOffset::ENCODED_SIZE_MIN, "task_end_offsets", |d| TaskOffset::decode(d, version))?;
        this.assignment = Assignment::decode(d, version)?;
        this.target_assignment = Assignment::decode(d, version)?;
        this.is_classic = d.bool()?;
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
        out.put_string(flexible, &self.member_id, "member_id")?;
        out.put_i32(self.member_epoch);
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
        out.put_string(flexible, &self.client_id, "client_id")?;
        out.put_string(flexible, &self.client_host, "client_host")?;
        out.put_i32(self.topology_epoch);
        out.put_string(flexible, &self.process_id, "process_id")?;
        match &self.user_endpoint {
            Some(value) => {
                out.put_i8(1);
                value.encode(out, version)?;
            }
            None => {
                out.put_i8(-1);
            }
        }
        out.put_length(flexible, false, Some(self.client_tags.len()), "client_tags")?;
        for item in &self.client_tags {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.task_offsets.len()), "task_offsets")?;
        for item in &self.task_offsets {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.task_end_offsets.len()), "task_end_offsets")?;
        for item in &self.task_end_offsets {
            item.encode(out, version)?;
        }
        self.assignment.encode(out, version)?;
        self.target_assignment.encode(out, version)?;
        out.put_bool(self.is_classic);
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
impl crate::sample::Sample for Member {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.member_id = g.string();
        this.member_epoch = g.i32();
        this.instance_id = g.nullable(|g| g.string());
        this.rack_id = g.nullable(|g| g.string());
        this.client_id = g.string();
        this.client_host = g.string();
        this.topology_epoch = g.i32();
        this.process_id = g.string();
        this.user_endpoint = g.nullable(|g| <Endpoint as crate::sample::Sample>::sample(g, version));
        this.client_tags = g.vec(|g| <KeyValue as crate::sample::Sample>::sample(g, version));
        this.task_offsets = g.vec(|g| <TaskOffset as crate::sample::Sample>::sample(g, version));
        this.task_end_offsets = g.vec(|g| <TaskOffset as crate::sample::Sample>::sample(g, version));
        this.assignment = <Assignment as crate::sample::Sample>::sample(g, version);
        this.target_assignment = <Assignment as crate::sample::Sample>::sample(g, version);
        this.is_classic = g.bool();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribedGroup`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribedGroup {
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1; nullable 0-1.
    pub error_message: Option<String>,
    /// Versions 0-1.
    pub group_id: String,
    /// Versions 0-1.
    pub group_state: String,
    /// Versions 0-1.
    pub group_epoch: i32,
    /// Versions 0-1.
    pub assignment_epoch: i32,
    /// Versions 0-1; nullable 0-1.
    pub topology: Option<Topology>,
    /// Versions 0-1.
    pub members: Vec<Member>,
    /// Versions 0-1.
    pub authorized_operations: i32,
    /// Versions 1; nullable 1.
    pub topology_description: Option<TopologyDescription>,
    /// Versions 1.
    pub topology_description_status: i8,
    /// Versions 1; nullable 1; ignorable.
    pub assignor_name: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribedGroup {
    fn default() -> Self {
        DescribedGroup {
            error_code: 0,
            error_message: None,
            group_id: String::new(),
            group_state: String::new(),
            group_epoch: 0,
            assignment_epoch: 0,
            topology: None,
            members: Vec::new(),
            authorized_operations: -2147483648_i32,
            topology_description: None,
            topology_description_status: 0,
            assignor_name: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribedGroup {
    const ENCODED_SIZE_MIN: usize = 20;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribedGroup::default();
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.group_id = d.string(flexible, "group_id")?;
        this.group_state = d.string(flexible, "group_state")?;
        this.group_epoch = d.i32()?;
        this.assignment_epoch = d.i32()?;
        this.topology = if d.struct_marker()? { Some(Topology::decode(d, version)?) } else { None };
        this.members = d.array(flexible, Member::ENCODED_SIZE_MIN, "members", |d| Member::decode(d, version))?;
        this.authorized_operations = d.i32()?;
        if version >= 1 {
            this.topology_description =
                if d.struct_marker()? { Some(TopologyDescription::decode(d, version)?) } else { None };
        }
        if version >= 1 {
            this.topology_description_status = d.i8()?;
        }
        if version >= 1 {
            this.assignor_name = d.nullable_string(flexible)?;
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
        let flexible = true;
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_string(flexible, &self.group_state, "group_state")?;
        out.put_i32(self.group_epoch);
        out.put_i32(self.assignment_epoch);
        match &self.topology {
            Some(value) => {
                out.put_i8(1);
                value.encode(out, version)?;
            }
            None => {
                out.put_i8(-1);
            }
        }
        out.put_length(flexible, false, Some(self.members.len()), "members")?;
        for item in &self.members {
            item.encode(out, version)?;
        }
        out.put_i32(self.authorized_operations);
        if version >= 1 {
            match &self.topology_description {
                Some(value) => {
                    out.put_i8(1);
                    value.encode(out, version)?;
                }
                None => {
                    out.put_i8(-1);
                }
            }
        } else {
            if self.topology_description.is_some() {
                return Err(EncodeError::FieldNotInVersion { field: "topology_description", version });
            }
        }
        if version >= 1 {
            out.put_i8(self.topology_description_status);
        } else {
            if self.topology_description_status != 0 {
                return Err(EncodeError::FieldNotInVersion { field: "topology_description_status", version });
            }
        }
        if version >= 1 {
            match &self.assignor_name {
                Some(value) => {
                    out.put_string(flexible, value, "assignor_name")?;
                }
                None => {
                    out.put_length(flexible, true, None, "assignor_name")?;
                }
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
impl crate::sample::Sample for DescribedGroup {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.group_id = g.string();
        this.group_state = g.string();
        this.group_epoch = g.i32();
        this.assignment_epoch = g.i32();
        this.topology = g.nullable(|g| <Topology as crate::sample::Sample>::sample(g, version));
        this.members = g.vec(|g| <Member as crate::sample::Sample>::sample(g, version));
        this.authorized_operations = g.i32();
        if version >= 1 {
            this.topology_description =
                g.nullable(|g| <TopologyDescription as crate::sample::Sample>::sample(g, version));
        }
        if version >= 1 {
            this.topology_description_status = g.i8();
        }
        if version >= 1 {
            this.assignor_name = g.nullable(|g| g.string());
        }
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

/// `Assignment`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    /// Versions 0-1.
    pub active_tasks: Vec<TaskIds>,
    /// Versions 0-1.
    pub standby_tasks: Vec<TaskIds>,
    /// Versions 0-1.
    pub warmup_tasks: Vec<TaskIds>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Assignment {
    fn default() -> Self {
        Assignment {
            active_tasks: Vec::new(),
            standby_tasks: Vec::new(),
            warmup_tasks: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for Assignment {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Assignment::default();
        this.active_tasks =
            d.array(flexible, TaskIds::ENCODED_SIZE_MIN, "active_tasks", |d| TaskIds::decode(d, version))?;
        this.standby_tasks =
            d.array(flexible, TaskIds::ENCODED_SIZE_MIN, "standby_tasks", |d| TaskIds::decode(d, version))?;
        this.warmup_tasks =
            d.array(flexible, TaskIds::ENCODED_SIZE_MIN, "warmup_tasks", |d| TaskIds::decode(d, version))?;
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
        out.put_length(flexible, false, Some(self.active_tasks.len()), "active_tasks")?;
        for item in &self.active_tasks {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.standby_tasks.len()), "standby_tasks")?;
        for item in &self.standby_tasks {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.warmup_tasks.len()), "warmup_tasks")?;
        for item in &self.warmup_tasks {
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
        this.active_tasks = g.vec(|g| <TaskIds as crate::sample::Sample>::sample(g, version));
        this.standby_tasks = g.vec(|g| <TaskIds as crate::sample::Sample>::sample(g, version));
        this.warmup_tasks = g.vec(|g| <TaskIds as crate::sample::Sample>::sample(g, version));
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

/// `TopologyDescription`, versions 1.
#[derive(Debug, Clone, PartialEq)]
pub struct TopologyDescription {
    /// Versions 1.
    pub subtopologies: Vec<TopologyDescriptionSubtopology>,
    /// Versions 1.
    pub global_stores: Vec<TopologyDescriptionGlobalStore>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopologyDescription {
    fn default() -> Self {
        TopologyDescription { subtopologies: Vec::new(), global_stores: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TopologyDescription {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopologyDescription::default();
        this.subtopologies =
            d.array(flexible, TopologyDescriptionSubtopology::ENCODED_SIZE_MIN, "subtopologies", |d| {
                TopologyDescriptionSubtopology::decode(d, version)
            })?;
        this.global_stores =
            d.array(flexible, TopologyDescriptionGlobalStore::ENCODED_SIZE_MIN, "global_stores", |d| {
                TopologyDescriptionGlobalStore::decode(d, version)
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
        out.put_length(flexible, false, Some(self.subtopologies.len()), "subtopologies")?;
        for item in &self.subtopologies {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.global_stores.len()), "global_stores")?;
        for item in &self.global_stores {
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
impl crate::sample::Sample for TopologyDescription {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.subtopologies = g.vec(|g| <TopologyDescriptionSubtopology as crate::sample::Sample>::sample(g, version));
        this.global_stores = g.vec(|g| <TopologyDescriptionGlobalStore as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopologyDescriptionSubtopology`, versions 1.
#[derive(Debug, Clone, PartialEq)]
pub struct TopologyDescriptionSubtopology {
    /// Versions 1.
    pub subtopology_id: String,
    /// Versions 1.
    pub nodes: Vec<TopologyDescriptionNode>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopologyDescriptionSubtopology {
    fn default() -> Self {
        TopologyDescriptionSubtopology {
            subtopology_id: String::new(),
            nodes: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TopologyDescriptionSubtopology {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopologyDescriptionSubtopology::default();
        this.subtopology_id = d.string(flexible, "subtopology_id")?;
        this.nodes = d.array(flexible, TopologyDescriptionNode::ENCODED_SIZE_MIN, "nodes", |d| {
            TopologyDescriptionNode::decode(d, version)
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
        out.put_length(flexible, false, Some(self.nodes.len()), "nodes")?;
        for item in &self.nodes {
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
impl crate::sample::Sample for TopologyDescriptionSubtopology {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.subtopology_id = g.string();
        this.nodes = g.vec(|g| <TopologyDescriptionNode as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopologyDescriptionNode`, versions 1.
#[derive(Debug, Clone, PartialEq)]
pub struct TopologyDescriptionNode {
    /// Versions 1.
    pub name: String,
    /// Versions 1.
    pub node_type: i8,
    /// Versions 1.
    pub source_topics: Vec<String>,
    /// Versions 1; nullable 1.
    pub sink_topic: Option<String>,
    /// Versions 1.
    pub stores: Vec<String>,
    /// Versions 1.
    pub successors: Vec<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopologyDescriptionNode {
    fn default() -> Self {
        TopologyDescriptionNode {
            name: String::new(),
            node_type: 0,
            source_topics: Vec::new(),
            sink_topic: None,
            stores: Vec::new(),
            successors: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TopologyDescriptionNode {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopologyDescriptionNode::default();
        this.name = d.string(flexible, "name")?;
        this.node_type = d.i8()?;
        this.source_topics = d.array(flexible, 1, "source_topics", |d| d.string(flexible, "source_topics"))?;
        this.sink_topic = d.nullable_string(flexible)?;
        this.stores = d.array(flexible, 1, "stores", |d| d.string(flexible, "stores"))?;
        this.successors = d.array(flexible, 1, "successors", |d| d.string(flexible, "successors"))?;
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
        out.put_i8(self.node_type);
        out.put_length(flexible, false, Some(self.source_topics.len()), "source_topics")?;
        for item in &self.source_topics {
            out.put_string(flexible, item, "source_topics")?;
        }
        match &self.sink_topic {
            Some(value) => {
                out.put_string(flexible, value, "sink_topic")?;
            }
            None => {
                out.put_length(flexible, true, None, "sink_topic")?;
            }
        }
        out.put_length(flexible, false, Some(self.stores.len()), "stores")?;
        for item in &self.stores {
            out.put_string(flexible, item, "stores")?;
        }
        out.put_length(flexible, false, Some(self.successors.len()), "successors")?;
        for item in &self.successors {
            out.put_string(flexible, item, "successors")?;
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
impl crate::sample::Sample for TopologyDescriptionNode {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.node_type = g.i8();
        this.source_topics = g.vec(|g| g.string());
        this.sink_topic = g.nullable(|g| g.string());
        this.stores = g.vec(|g| g.string());
        this.successors = g.vec(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopologyDescriptionGlobalStore`, versions 1.
#[derive(Debug, Clone, PartialEq)]
pub struct TopologyDescriptionGlobalStore {
    /// Versions 1.
    pub source: TopologyDescriptionNode,
    /// Versions 1.
    pub processor: TopologyDescriptionNode,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopologyDescriptionGlobalStore {
    fn default() -> Self {
        TopologyDescriptionGlobalStore {
            source: TopologyDescriptionNode::default(),
            processor: TopologyDescriptionNode::default(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TopologyDescriptionGlobalStore {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopologyDescriptionGlobalStore::default();
        this.source = TopologyDescriptionNode::decode(d, version)?;
        this.processor = TopologyDescriptionNode::decode(d, version)?;
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
        self.source.encode(out, version)?;
        self.processor.encode(out, version)?;
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
impl crate::sample::Sample for TopologyDescriptionGlobalStore {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.source = <TopologyDescriptionNode as crate::sample::Sample>::sample(g, version);
        this.processor = <TopologyDescriptionNode as crate::sample::Sample>::sample(g, version);
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
