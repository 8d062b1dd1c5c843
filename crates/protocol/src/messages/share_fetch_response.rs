//! `ShareFetchResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ShareFetchResponse`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareFetchResponse {
    /// Versions 1-2.
    pub throttle_time_ms: i32,
    /// Versions 1-2.
    pub error_code: i16,
    /// Versions 1-2; nullable 1-2.
    pub error_message: Option<String>,
    /// Versions 1-2.
    pub acquisition_lock_timeout_ms: i32,
    /// Versions 1-2.
    pub responses: Vec<ShareFetchableTopicResponse>,
    /// Versions 1-2.
    pub node_endpoints: Vec<NodeEndpoint>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ShareFetchResponse {
    fn default() -> Self {
        ShareFetchResponse {
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

impl Struct for ShareFetchResponse {
    const ENCODED_SIZE_MIN: usize = 14;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ShareFetchResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.acquisition_lock_timeout_ms = d.i32()?;
        this.responses = d.array(flexible, ShareFetchableTopicResponse::ENCODED_SIZE_MIN, "responses", |d| {
            ShareFetchableTopicResponse::decode(d, version)
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
        out.put_i32(self.acquisition_lock_timeout_ms);
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

impl Message for ShareFetchResponse {
    const NAME: &'static str = "ShareFetchResponse";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ShareFetchResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.acquisition_lock_timeout_ms = g.i32();
        this.responses = g.vec(|g| <ShareFetchableTopicResponse as crate::sample::Sample>::sample(g, version));
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

/// `AcquiredRecords`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct AcquiredRecords {
    /// Versions 1-2.
    pub first_offset: i64,
    /// Versions 1-2.
    pub last_offset: i64,
    /// Versions 1-2.
    pub delivery_count: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AcquiredRecords {
    fn default() -> Self {
        AcquiredRecords { first_offset: 0, last_offset: 0, delivery_count: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for AcquiredRecords {
    const ENCODED_SIZE_MIN: usize = 19;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AcquiredRecords::default();
        this.first_offset = d.i64()?;
        this.last_offset = d.i64()?;
        this.delivery_count = d.i16()?;
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
        out.put_i64(self.first_offset);
        out.put_i64(self.last_offset);
        out.put_i16(self.delivery_count);
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
impl crate::sample::Sample for AcquiredRecords {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.first_offset = g.i64();
        this.last_offset = g.i64();
        this.delivery_count = g.i16();
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
    pub acknowledge_error_code: i16,
    /// Versions 1-2; nullable 1-2.
    pub acknowledge_error_message: Option<String>,
    /// Versions 1-2.
    pub current_leader: LeaderIdAndEpoch,
    /// Versions 1-2.
    pub records: Option<Records>,
    /// Versions 1-2.
    pub acquired_records: Vec<AcquiredRecords>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionData {
    fn default() -> Self {
        PartitionData {
            partition_index: 0,
            error_code: 0,
            error_message: None,
            acknowledge_error_code: 0,
            acknowledge_error_message: None,
            current_leader: LeaderIdAndEpoch::default(),
            records: Some(Records::default()),
            acquired_records: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionData {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = PartitionData::default();
        this.partition_index = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.acknowledge_error_code = d.i16()?;
        this.acknowledge_error_message = d.nullable_string(flexible)?;
        this.current_leader = LeaderIdAndEpoch::decode(d, version)?;
        this.records = Some(Records::Bytes(d.bytes(flexible, "records")?));
        this.acquired_records = d.array(flexible, AcquiredRecords::ENCODED_SIZE_MIN, "acquired_records", |d| {
            AcquiredRecords::decode(d, version)
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
        out.put_i16(self.acknowledge_error_code);
        match &self.acknowledge_error_message {
            Some(value) => {
                out.put_string(flexible, value, "acknowledge_error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "acknowledge_error_message")?;
            }
        }
        self.current_leader.encode(out, version)?;
        match &self.records {
            Some(value) => {
                out.put_records(flexible, Some(value), "records")?;
            }
            None => {
                return Err(EncodeError::NullNotAllowed { field: "records", version });
            }
        }
        out.put_length(flexible, false, Some(self.acquired_records.len()), "acquired_records")?;
        for item in &self.acquired_records {
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
        this.error_message = g.nullable(|g| g.string());
        this.acknowledge_error_code = g.i16();
        this.acknowledge_error_message = g.nullable(|g| g.string());
        this.current_leader = <LeaderIdAndEpoch as crate::sample::Sample>::sample(g, version);
        this.records = Some(Records::Bytes(g.bytes()));
        this.acquired_records = g.vec(|g| <AcquiredRecords as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ShareFetchableTopicResponse`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareFetchableTopicResponse {
    /// Versions 1-2; map key.
    pub topic_id: Uuid,
    /// Versions 1-2.
    pub partitions: Vec<PartitionData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ShareFetchableTopicResponse {
    fn default() -> Self {
        ShareFetchableTopicResponse { topic_id: Uuid::ZERO, partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ShareFetchableTopicResponse {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ShareFetchableTopicResponse::default();
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
impl crate::sample::Sample for ShareFetchableTopicResponse {
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
