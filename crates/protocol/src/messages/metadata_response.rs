//! `MetadataResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `MetadataResponse`, versions 0-13.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataResponse {
    /// Versions 3-13; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 0-13.
    pub brokers: Vec<MetadataResponseBroker>,
    /// Versions 2-13; nullable 2-13; ignorable.
    pub cluster_id: Option<String>,
    /// Versions 1-13; ignorable.
    pub controller_id: BrokerId,
    /// Versions 0-13.
    pub topics: Vec<MetadataResponseTopic>,
    /// Versions 8-10.
    pub cluster_authorized_operations: i32,
    /// Versions 13; ignorable.
    pub error_code: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for MetadataResponse {
    fn default() -> Self {
        MetadataResponse {
            throttle_time_ms: 0,
            brokers: Vec::new(),
            cluster_id: None,
            controller_id: BrokerId(-1_i32),
            topics: Vec::new(),
            cluster_authorized_operations: -2147483648_i32,
            error_code: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for MetadataResponse {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 9;
        let mut this = MetadataResponse::default();
        if version >= 3 {
            this.throttle_time_ms = d.i32()?;
        }
        this.brokers = d.array(flexible, MetadataResponseBroker::ENCODED_SIZE_MIN, "brokers", |d| {
            MetadataResponseBroker::decode(d, version)
        })?;
        if version >= 2 {
            this.cluster_id = d.nullable_string(flexible)?;
        }
        if version >= 1 {
            this.controller_id = d.i32().map(BrokerId)?;
        }
        this.topics = d.array(flexible, MetadataResponseTopic::ENCODED_SIZE_MIN, "topics", |d| {
            MetadataResponseTopic::decode(d, version)
        })?;
        if (8..=10).contains(&version) {
            this.cluster_authorized_operations = d.i32()?;
        }
        if version >= 13 {
            this.error_code = d.i16()?;
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
        let flexible = version >= 9;
        if version >= 3 {
            out.put_i32(self.throttle_time_ms);
        }
        out.put_length(flexible, false, Some(self.brokers.len()), "brokers")?;
        for item in &self.brokers {
            item.encode(out, version)?;
        }
        if version >= 2 {
            match &self.cluster_id {
                Some(value) => {
                    out.put_string(flexible, value, "cluster_id")?;
                }
                None => {
                    out.put_length(flexible, true, None, "cluster_id")?;
                }
            }
        }
        if version >= 1 {
            out.put_i32(self.controller_id.0);
        }
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        if (8..=10).contains(&version) {
            out.put_i32(self.cluster_authorized_operations);
        } else {
            if self.cluster_authorized_operations != -2147483648_i32 {
                return Err(EncodeError::FieldNotInVersion { field: "cluster_authorized_operations", version });
            }
        }
        if version >= 13 {
            out.put_i16(self.error_code);
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

impl Message for MetadataResponse {
    const NAME: &'static str = "MetadataResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 13 };
    const FLEXIBLE_MIN: Option<i16> = Some(9);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for MetadataResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 9;
        let mut this = Self::default();
        if version >= 3 {
            this.throttle_time_ms = g.i32();
        }
        this.brokers = g.vec(|g| <MetadataResponseBroker as crate::sample::Sample>::sample(g, version));
        if version >= 2 {
            this.cluster_id = g.nullable(|g| g.string());
        }
        if version >= 1 {
            this.controller_id = BrokerId(g.i32());
        }
        this.topics = g.vec(|g| <MetadataResponseTopic as crate::sample::Sample>::sample(g, version));
        if (8..=10).contains(&version) {
            this.cluster_authorized_operations = g.i32();
        }
        if version >= 13 {
            this.error_code = g.i16();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `MetadataResponseBroker`, versions 0-13.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataResponseBroker {
    /// Versions 0-13; map key.
    pub node_id: BrokerId,
    /// Versions 0-13.
    pub host: String,
    /// Versions 0-13.
    pub port: i32,
    /// Versions 1-13; nullable 1-13; ignorable.
    pub rack: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for MetadataResponseBroker {
    fn default() -> Self {
        MetadataResponseBroker {
            node_id: BrokerId(0),
            host: String::new(),
            port: 0,
            rack: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for MetadataResponseBroker {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 9;
        let mut this = MetadataResponseBroker::default();
        this.node_id = d.i32().map(BrokerId)?;
        this.host = d.string(flexible, "host")?;
        this.port = d.i32()?;
        if version >= 1 {
            this.rack = d.nullable_string(flexible)?;
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
        let flexible = version >= 9;
        out.put_i32(self.node_id.0);
        out.put_string(flexible, &self.host, "host")?;
        out.put_i32(self.port);
        if version >= 1 {
            match &self.rack {
                Some(value) => {
                    out.put_string(flexible, value, "rack")?;
                }
                None => {
                    out.put_length(flexible, true, None, "rack")?;
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
impl crate::sample::Sample for MetadataResponseBroker {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 9;
        let mut this = Self::default();
        this.node_id = BrokerId(g.i32());
        this.host = g.string();
        this.port = g.i32();
        if version >= 1 {
            this.rack = g.nullable(|g| g.string());
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `MetadataResponsePartition`, versions 0-13.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataResponsePartition {
    /// Versions 0-13.
    pub error_code: i16,
    /// Versions 0-13.
    pub partition_index: i32,
    /// Versions 0-13.
    pub leader_id: BrokerId,
    /// Versions 7-13; ignorable.
    pub leader_epoch: i32,
    /// Versions 0-13.
    pub replica_nodes: Vec<BrokerId>,
    /// Versions 0-13.
    pub isr_nodes: Vec<BrokerId>,
    /// Versions 5-13; ignorable.
    pub offline_replicas: Vec<BrokerId>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for MetadataResponsePartition {
    fn default() -> Self {
        MetadataResponsePartition {
            error_code: 0,
            partition_index: 0,
            leader_id: BrokerId(0),
            leader_epoch: -1_i32,
            replica_nodes: Vec::new(),
            isr_nodes: Vec::new(),
            offline_replicas: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for MetadataResponsePartition {
    const ENCODED_SIZE_MIN: usize = 12;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 9;
        let mut this = MetadataResponsePartition::default();
        this.error_code = d.i16()?;
        this.partition_index = d.i32()?;
        this.leader_id = d.i32().map(BrokerId)?;
        if version >= 7 {
            this.leader_epoch = d.i32()?;
        }
        this.replica_nodes = d.array(flexible, 4, "replica_nodes", |d| d.i32().map(BrokerId))?;
        this.isr_nodes = d.array(flexible, 4, "isr_nodes", |d| d.i32().map(BrokerId))?;
        if version >= 5 {
            this.offline_replicas = d.array(flexible, 4, "offline_replicas", |d| d.i32().map(BrokerId))?;
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
        let flexible = version >= 9;
        out.put_i16(self.error_code);
        out.put_i32(self.partition_index);
        out.put_i32(self.leader_id.0);
        if version >= 7 {
            out.put_i32(self.leader_epoch);
        }
        out.put_length(flexible, false, Some(self.replica_nodes.len()), "replica_nodes")?;
        for item in &self.replica_nodes {
            out.put_i32(item.0);
        }
        out.put_length(flexible, false, Some(self.isr_nodes.len()), "isr_nodes")?;
        for item in &self.isr_nodes {
            out.put_i32(item.0);
        }
        if version >= 5 {
            out.put_length(flexible, false, Some(self.offline_replicas.len()), "offline_replicas")?;
            for item in &self.offline_replicas {
                out.put_i32(item.0);
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
impl crate::sample::Sample for MetadataResponsePartition {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 9;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.partition_index = g.i32();
        this.leader_id = BrokerId(g.i32());
        if version >= 7 {
            this.leader_epoch = g.i32();
        }
        this.replica_nodes = g.vec(|g| BrokerId(g.i32()));
        this.isr_nodes = g.vec(|g| BrokerId(g.i32()));
        if version >= 5 {
            this.offline_replicas = g.vec(|g| BrokerId(g.i32()));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `MetadataResponseTopic`, versions 0-13.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataResponseTopic {
    /// Versions 0-13.
    pub error_code: i16,
    /// Versions 0-13; nullable 12-13; map key.
    pub name: Option<String>,
    /// Versions 10-13; ignorable.
    pub topic_id: Uuid,
    /// Versions 1-13; ignorable.
    pub is_internal: bool,
    /// Versions 0-13.
    pub partitions: Vec<MetadataResponsePartition>,
    /// Versions 8-13.
    pub topic_authorized_operations: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for MetadataResponseTopic {
    fn default() -> Self {
        MetadataResponseTopic {
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

impl Struct for MetadataResponseTopic {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 9;
        let mut this = MetadataResponseTopic::default();
        this.error_code = d.i16()?;
        this.name = if version >= 12 { d.nullable_string(flexible)? } else { Some(d.string(flexible, "name")?) };
        if version >= 10 {
            this.topic_id = d.uuid()?;
        }
        if version >= 1 {
            this.is_internal = d.bool()?;
        }
        this.partitions = d.array(flexible, MetadataResponsePartition::ENCODED_SIZE_MIN, "partitions", |d| {
            MetadataResponsePartition::decode(d, version)
        })?;
        if version >= 8 {
            this.topic_authorized_operations = d.i32()?;
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
        let flexible = version >= 9;
        out.put_i16(self.error_code);
        match &self.name {
            Some(value) => {
                out.put_string(flexible, value, "name")?;
            }
            None if version >= 12 => {
                out.put_length(flexible, true, None, "name")?;
            }
            None => {
                return Err(EncodeError::NullNotAllowed { field: "name", version });
            }
        }
        if version >= 10 {
            out.put_uuid(&self.topic_id);
        }
        if version >= 1 {
            out.put_bool(self.is_internal);
        }
        out.put_length(flexible, false, Some(self.partitions.len()), "partitions")?;
        for item in &self.partitions {
            item.encode(out, version)?;
        }
        if version >= 8 {
            out.put_i32(self.topic_authorized_operations);
        } else {
            if self.topic_authorized_operations != -2147483648_i32 {
                return Err(EncodeError::FieldNotInVersion { field: "topic_authorized_operations", version });
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
impl crate::sample::Sample for MetadataResponseTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 9;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.name = if version >= 12 { g.nullable(|g| g.string()) } else { Some(g.string()) };
        if version >= 10 {
            this.topic_id = g.uuid();
        }
        if version >= 1 {
            this.is_internal = g.bool();
        }
        this.partitions = g.vec(|g| <MetadataResponsePartition as crate::sample::Sample>::sample(g, version));
        if version >= 8 {
            this.topic_authorized_operations = g.i32();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
