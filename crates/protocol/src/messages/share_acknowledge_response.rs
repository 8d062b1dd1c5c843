//! `ShareAcknowledgeResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ShareAcknowledgeResponse`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareAcknowledgeResponse {
    /// Versions 1-2.
    pub throttle_time_ms: i32,
    /// Versions 1-2.
    pub error_code: i16,
    /// Versions 1-2; nullable 1-2.
    pub error_message: Option<String>,
    /// Versions 2; ignorable.
    pub acquisition_lock_timeout_ms: i32,
    /// Versions 1-2.
    pub responses: Vec<ShareAcknowledgeTopicResponse>,
    /// Versions 1-2.
    pub node_endpoints: Vec<NodeEndpoint>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ShareAcknowledgeResponse {
    fn default() -> Self {
        ShareAcknowledgeResponse {
            throttle_time_ms: 0,
            error_code: 0,
            error_message: None,
            acquisition_lock_timeout_ms: 0,
            responses: Vec::new(),
            node_endpoints: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ShareAcknowledgeResponse {
    const ENCODED_SIZE_MIN: usize = 10;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ShareAcknowledgeResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        if version >= 2 {
            this.acquisition_lock_timeout_ms = d.i32()?;
        }
        this.responses = d.array(flexible, ShareAcknowledgeTopicResponse::ENCODED_SIZE_MIN, "responses", |d| {
            ShareAcknowledgeTopicResponse::decode(d, version)
        })?;
        this.node_endpoints =
            d.array(flexible, NodeEndpoint::ENCODED_SIZE_MIN, "node_endpoints", |d| NodeEndpoint::decode(d, version))?;
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
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
        if version >= 2 {
            out.put_i32(self.acquisition_lock_timeout_ms);
        }
        out.put_length(flexible, false, Some(self.responses.len()), "responses")?;
        for item in &self.responses {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.node_endpoints.len()), "node_endpoints")?;
        for item in &self.node_endpoints {
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

impl Message for ShareAcknowledgeResponse {
    const NAME: &'static str = "ShareAcknowledgeResponse";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ShareAcknowledgeResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        if version >= 2 {
            this.acquisition_lock_timeout_ms = g.i32();
        }
        this.responses = g.vec(|g| <ShareAcknowledgeTopicResponse as crate::sample::Sample>::sample(g, version));
        this.node_endpoints = g.vec(|g| <NodeEndpoint as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `LeaderIdAndEpoch`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaderIdAndEpoch {
    /// Versions 1-2.
    pub leader_id: i32,
    /// Versions 1-2.
    pub leader_epoch: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for LeaderIdAndEpoch {
    fn default() -> Self {
        LeaderIdAndEpoch { leader_id: 0, leader_epoch: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for LeaderIdAndEpoch {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = LeaderIdAndEpoch::default();
        this.leader_id = d.i32()?;
        this.leader_epoch = d.i32()?;
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
        out.put_i32(self.leader_id);
        out.put_i32(self.leader_epoch);
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
impl crate::sample::Sample for LeaderIdAndEpoch {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.leader_id = g.i32();
        this.leader_epoch = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `PartitionData`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionData {
    /// Versions 1-2.
    pub partition_index: i32,
    /// Versions 1-2.
    pub error_code: i16,
    /// Versions 1-2; nullable 1-2.
    pub error_message: Option<String>,
    /// Versions 1-2.
    pub current_leader: LeaderIdAndEpoch,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionData {
    fn default() -> Self {
        PartitionData {
            partition_index: 0,
            error_code: 0,
            error_message: None,
            current_leader: LeaderIdAndEpoch::default(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionData {
    const ENCODED_SIZE_MIN: usize = 8;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = PartitionData::default();
        this.partition_index = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.current_leader = LeaderIdAndEpoch::decode(d, version)?;
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
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
        self.current_leader.encode(out, version)?;
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
        this.error_message = g.nullable(|g| g.string());
        this.current_leader = <LeaderIdAndEpoch as crate::sample::Sample>::sample(g, version);
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ShareAcknowledgeTopicResponse`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareAcknowledgeTopicResponse {
    /// Versions 1-2; map key.
    pub topic_id: Uuid,
    /// Versions 1-2.
    pub partitions: Vec<PartitionData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ShareAcknowledgeTopicResponse {
    fn default() -> Self {
        ShareAcknowledgeTopicResponse {
            topic_id: Uuid::ZERO,
            partitions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ShareAcknowledgeTopicResponse {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ShareAcknowledgeTopicResponse::default();
        this.topic_id = d.uuid()?;
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
        out.put_uuid(&self.topic_id);
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
impl crate::sample::Sample for ShareAcknowledgeTopicResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_id = g.uuid();
        this.partitions = g.vec(|g| <PartitionData as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `NodeEndpoint`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeEndpoint {
    /// Versions 1-2; map key.
    pub node_id: BrokerId,
    /// Versions 1-2.
    pub host: String,
    /// Versions 1-2.
    pub port: i32,
    /// Versions 1-2; nullable 1-2.
    pub rack: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for NodeEndpoint {
    fn default() -> Self {
        NodeEndpoint {
            node_id: BrokerId(0),
            host: String::new(),
            port: 0,
            rack: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for NodeEndpoint {
    const ENCODED_SIZE_MIN: usize = 11;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = NodeEndpoint::default();
        this.node_id = d.i32().map(BrokerId)?;
        this.host = d.string(flexible, "host")?;
        this.port = d.i32()?;
        this.rack = d.nullable_string(flexible)?;
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
        out.put_string(flexible, &self.host, "host")?;
        out.put_i32(self.port);
        match &self.rack {
            Some(value) => {
                out.put_string(flexible, value, "rack")?;
            }
            None => {
                out.put_length(flexible, true, None, "rack")?;
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
impl crate::sample::Sample for NodeEndpoint {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.node_id = BrokerId(g.i32());
        this.host = g.string();
        this.port = g.i32();
        this.rack = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
