//! `DescribeQuorumResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeQuorumResponse`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeQuorumResponse {
    /// Versions 0-2.
    pub error_code: i16,
    /// Versions 2; nullable 2; ignorable.
    pub error_message: Option<String>,
    /// Versions 0-2.
    pub topics: Vec<TopicData>,
    /// Versions 2.
    pub nodes: Vec<Node>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeQuorumResponse {
    fn default() -> Self {
        DescribeQuorumResponse {
            error_code: 0,
            error_message: Some(String::new()),
            topics: Vec::new(),
            nodes: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeQuorumResponse {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribeQuorumResponse::default();
        this.error_code = d.i16()?;
        if version >= 2 {
            this.error_message = d.nullable_string(flexible)?;
        }
        this.topics = d.array(flexible, TopicData::ENCODED_SIZE_MIN, "topics", |d| TopicData::decode(d, version))?;
        if version >= 2 {
            this.nodes = d.array(flexible, Node::ENCODED_SIZE_MIN, "nodes", |d| Node::decode(d, version))?;
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
        if version >= 2 {
            match &self.error_message {
                Some(value) => {
                    out.put_string(flexible, value, "error_message")?;
                }
                None => {
                    out.put_length(flexible, true, None, "error_message")?;
                }
            }
        }
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        if version >= 2 {
            out.put_length(flexible, false, Some(self.nodes.len()), "nodes")?;
            for item in &self.nodes {
                item.encode(out, version)?;
            }
        } else {
            if !self.nodes.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "nodes", version });
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

impl Message for DescribeQuorumResponse {
    const NAME: &'static str = "DescribeQuorumResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeQuorumResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.error_code = g.i16();
        if version >= 2 {
            this.error_message = g.nullable(|g| g.string());
        }
        this.topics = g.vec(|g| <TopicData as crate::sample::Sample>::sample(g, version));
        if version >= 2 {
            this.nodes = g.vec(|g| <Node as crate::sample::Sample>::sample(g, version));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `PartitionData`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionData {
    /// Versions 0-2.
    pub partition_index: i32,
    /// Versions 0-2.
    pub error_code: i16,
    /// Versions 2; nullable 2; ignorable.
    pub error_message: Option<String>,
    /// Versions 0-2.
    pub leader_id: BrokerId,
    /// Versions 0-2.
    pub leader_epoch: i32,
    /// Versions 0-2.
    pub high_watermark: i64,
    /// Versions 0-2.
    pub current_voters: Vec<ReplicaState>,
    /// Versions 0-2.
    pub observers: Vec<ReplicaState>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionData {
    fn default() -> Self {
        PartitionData {
            partition_index: 0,
            error_code: 0,
            error_message: Some(String::new()),
            leader_id: BrokerId(0),
            leader_epoch: 0,
            high_watermark: 0,
            current_voters: Vec::new(),
            observers: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionData {
    const ENCODED_SIZE_MIN: usize = 25;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = PartitionData::default();
        this.partition_index = d.i32()?;
        this.error_code = d.i16()?;
        if version >= 2 {
            this.error_message = d.nullable_string(flexible)?;
        }
        this.leader_id = d.i32().map(BrokerId)?;
        this.leader_epoch = d.i32()?;
        this.high_watermark = d.i64()?;
        this.current_voters =
            d.array(flexible, ReplicaState::ENCODED_SIZE_MIN, "current_voters", |d| ReplicaState::decode(d, version))?;
        this.observers =
            d.array(flexible, ReplicaState::ENCODED_SIZE_MIN, "observers", |d| ReplicaState::decode(d, version))?;
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
        out.put_i16(self.error_code);
        if version >= 2 {
            match &self.error_message {
                Some(value) => {
                    out.put_string(flexible, value, "error_message")?;
                }
                None => {
                    out.put_length(flexible, true, None, "error_message")?;
                }
            }
        }
        out.put_i32(self.leader_id.0);
        out.put_i32(self.leader_epoch);
        out.put_i64(self.high_watermark);
        out.put_length(flexible, false, Some(self.current_voters.len()), "current_voters")?;
        for item in &self.current_voters {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.observers.len()), "observers")?;
        for item in &self.observers {
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
impl crate::sample::Sample for PartitionData {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.error_code = g.i16();
        if version >= 2 {
            this.error_message = g.nullable(|g| g.string());
        }
        this.leader_id = BrokerId(g.i32());
        this.leader_epoch = g.i32();
        this.high_watermark = g.i64();
        this.current_voters = g.vec(|g| <ReplicaState as crate::sample::Sample>::sample(g, version));
        this.observers = g.vec(|g| <ReplicaState as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicData`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicData {
    /// Versions 0-2.
    pub topic_name: String,
    /// Versions 0-2.
    pub partitions: Vec<PartitionData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicData {
    fn default() -> Self {
        TopicData { topic_name: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TopicData {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicData::default();
        this.topic_name = d.string(flexible, "topic_name")?;
        this.partitions =
            d.array(flexible, PartitionData::ENCODED_SIZE_MIN, "partitions", |d| PartitionData::decode(d, version))?;
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
impl crate::sample::Sample for TopicData {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_name = g.string();
        this.partitions = g.vec(|g| <PartitionData as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Listener`, versions 2.
#[derive(Debug, Clone, PartialEq)]
pub struct Listener {
    /// Versions 2; map key.
    pub name: String,
    /// Versions 2.
    pub host: String,
    /// Versions 2.
    pub port: u16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Listener {
    fn default() -> Self {
        Listener { name: String::new(), host: String::new(), port: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for Listener {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Listener::default();
        this.name = d.string(flexible, "name")?;
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
        out.put_string(flexible, &self.name, "name")?;
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
impl crate::sample::Sample for Listener {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.host = g.string();
        this.port = g.u16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Node`, versions 2.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Versions 2; map key.
    pub node_id: BrokerId,
    /// Versions 2.
    pub listeners: Vec<Listener>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Node {
    fn default() -> Self {
        Node { node_id: BrokerId(0), listeners: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for Node {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Node::default();
        this.node_id = d.i32().map(BrokerId)?;
        this.listeners =
            d.array(flexible, Listener::ENCODED_SIZE_MIN, "listeners", |d| Listener::decode(d, version))?;
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
        out.put_i32(self.node_id.0);
        out.put_length(flexible, false, Some(self.listeners.len()), "listeners")?;
        for item in &self.listeners {
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
impl crate::sample::Sample for Node {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.node_id = BrokerId(g.i32());
        this.listeners = g.vec(|g| <Listener as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ReplicaState`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplicaState {
    /// Versions 0-2.
    pub replica_id: BrokerId,
    /// Versions 2.
    pub replica_directory_id: Uuid,
    /// Versions 0-2.
    pub log_end_offset: i64,
    /// Versions 1-2; ignorable.
    pub last_fetch_timestamp: i64,
    /// Versions 1-2; ignorable.
    pub last_caught_up_timestamp: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ReplicaState {
    fn default() -> Self {
        ReplicaState {
            replica_id: BrokerId(0),
            replica_directory_id: Uuid::ZERO,
            log_end_offset: 0,
            last_fetch_timestamp: -1_i64,
            last_caught_up_timestamp: -1_i64,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ReplicaState {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ReplicaState::default();
        this.replica_id = d.i32().map(BrokerId)?;
        if version >= 2 {
            this.replica_directory_id = d.uuid()?;
        }
        this.log_end_offset = d.i64()?;
        if version >= 1 {
            this.last_fetch_timestamp = d.i64()?;
        }
        if version >= 1 {
            this.last_caught_up_timestamp = d.i64()?;
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
        out.put_i32(self.replica_id.0);
        if version >= 2 {
            out.put_uuid(&self.replica_directory_id);
        } else {
            if self.replica_directory_id != Uuid::ZERO {
                return Err(EncodeError::FieldNotInVersion { field: "replica_directory_id", version });
            }
        }
        out.put_i64(self.log_end_offset);
        if version >= 1 {
            out.put_i64(self.last_fetch_timestamp);
        }
        if version >= 1 {
            out.put_i64(self.last_caught_up_timestamp);
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
impl crate::sample::Sample for ReplicaState {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.replica_id = BrokerId(g.i32());
        if version >= 2 {
            this.replica_directory_id = g.uuid();
        }
        this.log_end_offset = g.i64();
        if version >= 1 {
            this.last_fetch_timestamp = g.i64();
        }
        if version >= 1 {
            this.last_caught_up_timestamp = g.i64();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
