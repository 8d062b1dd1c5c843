//! `DescribeTopicPartitionsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeTopicPartitionsResponse`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeTopicPartitionsResponse {
    /// Versions 0; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 0.
    pub topics: Vec<DescribeTopicPartitionsResponseTopic>,
    /// Versions 0; nullable 0.
    pub next_cursor: Option<Cursor>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeTopicPartitionsResponse {
    fn default() -> Self {
        DescribeTopicPartitionsResponse {
            throttle_time_ms: 0,
            topics: Vec::new(),
            next_cursor: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeTopicPartitionsResponse {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribeTopicPartitionsResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.topics = d.array(flexible, DescribeTopicPartitionsResponseTopic::ENCODED_SIZE_MIN, "topics", |d| {
            DescribeTopicPartitionsResponseTopic::decode(d, version)
        })?;
        this.next_cursor = if d.struct_marker()? { Some(Cursor::decode(d, version)?) } else { None };
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
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        match &self.next_cursor {
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

impl Message for DescribeTopicPartitionsResponse {
    const NAME: &'static str = "DescribeTopicPartitionsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeTopicPartitionsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.topics = g.vec(|g| <DescribeTopicPartitionsResponseTopic as crate::sample::Sample>::sample(g, version));
        this.next_cursor = g.nullable(|g| <Cursor as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribeTopicPartitionsResponsePartition`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeTopicPartitionsResponsePartition {
    /// Versions 0.
    pub error_code: i16,
    /// Versions 0.
    pub partition_index: i32,
    /// Versions 0.
    pub leader_id: BrokerId,
    /// Versions 0; ignorable.
    pub leader_epoch: i32,
    /// Versions 0.
    pub replica_nodes: Vec<BrokerId>,
    /// Versions 0.
    pub isr_nodes: Vec<BrokerId>,
    /// Versions 0; nullable 0.
    pub eligible_leader_replicas: Option<Vec<BrokerId>>,
    /// Versions 0; nullable 0.
    pub last_known_elr: Option<Vec<BrokerId>>,
    /// Versions 0; ignorable.
    pub offline_replicas: Vec<BrokerId>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeTopicPartitionsResponsePartition {
    fn default() -> Self {
        DescribeTopicPartitionsResponsePartition {
            error_code: 0,
            partition_index: 0,
            leader_id: BrokerId(0),
            leader_epoch: -1_i32,
            replica_nodes: Vec::new(),
            isr_nodes: Vec::new(),
            eligible_leader_replicas: None,
            last_known_elr: None,
            offline_replicas: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeTopicPartitionsResponsePartition {
    const ENCODED_SIZE_MIN: usize = 20;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribeTopicPartitionsResponsePartition::default();
        this.error_code = d.i16()?;
        this.partition_index = d.i32()?;
        this.leader_id = d.i32().map(BrokerId)?;
        this.leader_epoch = d.i32()?;
        this.replica_nodes = d.array(flexible, 4, "replica_nodes", |d| d.i32().map(BrokerId))?;
        this.isr_nodes = d.array(flexible, 4, "isr_nodes", |d| d.i32().map(BrokerId))?;
        this.eligible_leader_replicas = d.nullable_array(flexible, 4, |d| d.i32().map(BrokerId))?;
        this.last_known_elr = d.nullable_array(flexible, 4, |d| d.i32().map(BrokerId))?;
        this.offline_replicas = d.array(flexible, 4, "offline_replicas", |d| d.i32().map(BrokerId))?;
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
        out.put_i32(self.partition_index);
        out.put_i32(self.leader_id.0);
        out.put_i32(self.leader_epoch);
        out.put_length(flexible, false, Some(self.replica_nodes.len()), "replica_nodes")?;
        for item in &self.replica_nodes {
            out.put_i32(item.0);
        }
        out.put_length(flexible, false, Some(self.isr_nodes.len()), "isr_nodes")?;
        for item in &self.isr_nodes {
            out.put_i32(item.0);
        }
        match &self.eligible_leader_replicas {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "eligible_leader_replicas")?;
                for item in value {
                    out.put_i32(item.0);
                }
            }
            None => {
                out.put_length(flexible, false, None, "eligible_leader_replicas")?;
            }
        }
        match &self.last_known_elr {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "last_known_elr")?;
                for item in value {
                    out.put_i32(item.0);
                }
            }
            None => {
                out.put_length(flexible, false, None, "last_known_elr")?;
            }
        }
        out.put_length(flexible, false, Some(self.offline_replicas.len()), "offline_replicas")?;
        for item in &self.offline_replicas {
            out.put_i32(item.0);
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
impl crate::sample::Sample for DescribeTopicPartitionsResponsePartition {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.partition_index = g.i32();
        this.leader_id = BrokerId(g.i32());
        this.leader_epoch = g.i32();
        this.replica_nodes = g.vec(|g| BrokerId(g.i32()));
        this.isr_nodes = g.vec(|g| BrokerId(g.i32()));
        this.eligible_leader_replicas = g.nullable(|g| g.vec(|g| BrokerId(g.i32())));
        this.last_known_elr = g.nullable(|g| g.vec(|g| BrokerId(g.i32())));
        this.offline_replicas = g.vec(|g| BrokerId(g.i32()));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribeTopicPartitionsResponseTopic`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeTopicPartitionsResponseTopic {
    /// Versions 0.
    pub error_code: i16,
    /// Versions 0; nullable 0; map key.
    pub name: Option<String>,
    /// Versions 0; ignorable.
    pub topic_id: Uuid,
    /// Versions 0; ignorable.
    pub is_internal: bool,
    /// Versions 0.
    pub partitions: Vec<DescribeTopicPartitionsResponsePartition>,
    /// Versions 0.
    pub topic_authorized_operations: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeTopicPartitionsResponseTopic {
    fn default() -> Self {
        DescribeTopicPartitionsResponseTopic {
            error_code: 0,
            name: Some(String::new()),
            topic_id: Uuid::ZERO,
            is_internal: false,
            partitions: Vec::new(),
            topic_authorized_operations: -2147483648_i32,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeTopicPartitionsResponseTopic {
    const ENCODED_SIZE_MIN: usize = 26;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribeTopicPartitionsResponseTopic::default();
        this.error_code = d.i16()?;
        this.name = d.nullable_string(flexible)?;
        this.topic_id = d.uuid()?;
        this.is_internal = d.bool()?;
        this.partitions =
            d.array(flexible, DescribeTopicPartitionsResponsePartition::ENCODED_SIZE_MIN, "partitions", |d| {
                DescribeTopicPartitionsResponsePartition::decode(d, version)
            })?;
        this.topic_authorized_operations = d.i32()?;
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
        match &self.name {
            Some(value) => {
                out.put_string(flexible, value, "name")?;
            }
            None => {
                out.put_length(flexible, true, None, "name")?;
            }
        }
        out.put_uuid(&self.topic_id);
        out.put_bool(self.is_internal);
        out.put_length(flexible, false, Some(self.partitions.len()), "partitions")?;
        for item in &self.partitions {
            item.encode(out, version)?;
        }
        out.put_i32(self.topic_authorized_operations);
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
impl crate::sample::Sample for DescribeTopicPartitionsResponseTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.name = g.nullable(|g| g.string());
        this.topic_id = g.uuid();
        this.is_internal = g.bool();
        this.partitions =
            g.vec(|g| <DescribeTopicPartitionsResponsePartition as crate::sample::Sample>::sample(g, version));
        this.topic_authorized_operations = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Cursor`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Cursor {
    /// Versions 0.
    pub topic_name: String,
    /// Versions 0.
    pub partition_index: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Cursor {
    fn default() -> Self {
        Cursor { topic_name: String::new(), partition_index: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for Cursor {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Cursor::default();
        this.topic_name = d.string(flexible, "topic_name")?;
        this.partition_index = d.i32()?;
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
        out.put_i32(self.partition_index);
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
impl crate::sample::Sample for Cursor {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_name = g.string();
        this.partition_index = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
