//! `ProduceResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ProduceResponse`, versions 3-13.
#[derive(Debug, Clone, PartialEq)]
pub struct ProduceResponse {
    /// Versions 3-13.
    pub responses: Vec<TopicProduceResponse>,
    /// Versions 3-13; ignorable.
    pub throttle_time_ms: i32,
    /// Tagged only; tag 0 in 10+.
    pub node_endpoints: Vec<NodeEndpoint>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ProduceResponse {
    fn default() -> Self {
        ProduceResponse {
            responses: Vec::new(),
            throttle_time_ms: 0,
            node_endpoints: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ProduceResponse {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 9;
        let mut this = ProduceResponse::default();
        this.responses = d.array(flexible, TopicProduceResponse::ENCODED_SIZE_MIN, "responses", |d| {
            TopicProduceResponse::decode(d, version)
        })?;
        this.throttle_time_ms = d.i32()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 if version >= 10 => {
                        let d = &mut field;
                        this.node_endpoints = d.array(true, NodeEndpoint::ENCODED_SIZE_MIN, "node_endpoints", |d| {
                            NodeEndpoint::decode(d, version)
                        })?;
                        d.finish_tagged(tag)?;
                    }
                    _ => this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() }),
                }
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 9;
        out.put_length(flexible, false, Some(self.responses.len()), "responses")?;
        for item in &self.responses {
            item.encode(out, version)?;
        }
        out.put_i32(self.throttle_time_ms);
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if version >= 10 && !self.node_endpoints.is_empty() {
                let out = tagged.field(0);
                out.put_length(true, false, Some(self.node_endpoints.len()), "node_endpoints")?;
                for item in &self.node_endpoints {
                    item.encode(out, version)?;
                }
            } else {
                if !self.node_endpoints.is_empty() {
                    return Err(EncodeError::FieldNotInVersion { field: "node_endpoints", version });
                }
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for ProduceResponse {
    const NAME: &'static str = "ProduceResponse";
    const VERSIONS: VersionRange = VersionRange { min: 3, max: 13 };
    const FLEXIBLE_MIN: Option<i16> = Some(9);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ProduceResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 9;
        let mut this = Self::default();
        this.responses = g.vec(|g| <TopicProduceResponse as crate::sample::Sample>::sample(g, version));
        this.throttle_time_ms = g.i32();
        if version >= 10 && g.bool() {
            this.node_endpoints = g.vec(|g| <NodeEndpoint as crate::sample::Sample>::sample(g, version));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `BatchIndexAndErrorMessage`, versions 8-13.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchIndexAndErrorMessage {
    /// Versions 8-13.
    pub batch_index: i32,
    /// Versions 8-13; nullable 8-13.
    pub batch_index_error_message: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for BatchIndexAndErrorMessage {
    fn default() -> Self {
        BatchIndexAndErrorMessage { batch_index: 0, batch_index_error_message: None, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for BatchIndexAndErrorMessage {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 9;
        let mut this = BatchIndexAndErrorMessage::default();
        this.batch_index = d.i32()?;
        this.batch_index_error_message = d.nullable_string(flexible)?;
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
        out.put_i32(self.batch_index);
        match &self.batch_index_error_message {
            Some(value) => {
                out.put_string(flexible, value, "batch_index_error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "batch_index_error_message")?;
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
impl crate::sample::Sample for BatchIndexAndErrorMessage {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 9;
        let mut this = Self::default();
        this.batch_index = g.i32();
        this.batch_index_error_message = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `LeaderIdAndEpoch`, versions 10-13.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaderIdAndEpoch {
    /// Versions 10-13.
    pub leader_id: BrokerId,
    /// Versions 10-13.
    pub leader_epoch: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for LeaderIdAndEpoch {
    fn default() -> Self {
        LeaderIdAndEpoch { leader_id: BrokerId(-1_i32), leader_epoch: -1_i32, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for LeaderIdAndEpoch {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = LeaderIdAndEpoch::default();
        this.leader_id = d.i32().map(BrokerId)?;
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
        out.put_i32(self.leader_id.0);
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
        this.leader_id = BrokerId(g.i32());
        this.leader_epoch = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `PartitionProduceResponse`, versions 3-13.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionProduceResponse {
    /// Versions 3-13.
    pub index: i32,
    /// Versions 3-13.
    pub error_code: i16,
    /// Versions 3-13.
    pub base_offset: i64,
    /// Versions 3-13; ignorable.
    pub log_append_time_ms: i64,
    /// Versions 5-13; ignorable.
    pub log_start_offset: i64,
    /// Versions 8-13; ignorable.
    pub record_errors: Vec<BatchIndexAndErrorMessage>,
    /// Versions 8-13; nullable 8-13; ignorable.
    pub error_message: Option<String>,
    /// Tagged only; tag 0 in 10+.
    pub current_leader: LeaderIdAndEpoch,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionProduceResponse {
    fn default() -> Self {
        PartitionProduceResponse {
            index: 0,
            error_code: 0,
            base_offset: 0,
            log_append_time_ms: -1_i64,
            log_start_offset: -1_i64,
            record_errors: Vec::new(),
            error_message: None,
            current_leader: LeaderIdAndEpoch::default(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionProduceResponse {
    const ENCODED_SIZE_MIN: usize = 22;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 9;
        let mut this = PartitionProduceResponse::default();
        this.index = d.i32()?;
        this.error_code = d.i16()?;
        this.base_offset = d.i64()?;
        this.log_append_time_ms = d.i64()?;
        if version >= 5 {
            this.log_start_offset = d.i64()?;
        }
        if version >= 8 {
            this.record_errors =
                d.array(flexible, BatchIndexAndErrorMessage::ENCODED_SIZE_MIN, "record_errors", |d| {
                    BatchIndexAndErrorMessage::decode(d, version)
                })?;
        }
        if version >= 8 {
            this.error_message = d.nullable_string(flexible)?;
        }
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 if version >= 10 => {
                        let d = &mut field;
                        this.current_leader = LeaderIdAndEpoch::decode(d, version)?;
                        d.finish_tagged(tag)?;
                    }
                    _ => this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() }),
                }
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 9;
        out.put_i32(self.index);
        out.put_i16(self.error_code);
        out.put_i64(self.base_offset);
        out.put_i64(self.log_append_time_ms);
        if version >= 5 {
            out.put_i64(self.log_start_offset);
        }
        if version >= 8 {
            out.put_length(flexible, false, Some(self.record_errors.len()), "record_errors")?;
            for item in &self.record_errors {
                item.encode(out, version)?;
            }
        }
        if version >= 8 {
            match &self.error_message {
                Some(value) => {
                    out.put_string(flexible, value, "error_message")?;
                }
                None => {
                    out.put_length(flexible, true, None, "error_message")?;
                }
            }
        }
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if version >= 10 && self.current_leader != LeaderIdAndEpoch::default() {
                let out = tagged.field(0);
                self.current_leader.encode(out, version)?;
            } else {
                if self.current_leader != LeaderIdAndEpoch::default() {
                    return Err(EncodeError::FieldNotInVersion { field: "current_leader", version });
                }
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for PartitionProduceResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 9;
        let mut this = Self::default();
        this.index = g.i32();
        this.error_code = g.i16();
        this.base_offset = g.i64();
        this.log_append_time_ms = g.i64();
        if version >= 5 {
            this.log_start_offset = g.i64();
        }
        if version >= 8 {
            this.record_errors = g.vec(|g| <BatchIndexAndErrorMessage as crate::sample::Sample>::sample(g, version));
        }
        if version >= 8 {
            this.error_message = g.nullable(|g| g.string());
        }
        if version >= 10 && g.bool() {
            this.current_leader = <LeaderIdAndEpoch as crate::sample::Sample>::sample(g, version);
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicProduceResponse`, versions 3-13.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicProduceResponse {
    /// Versions 3-12; map key; ignorable.
    pub name: String,
    /// Versions 13; map key; ignorable.
    pub topic_id: Uuid,
    /// Versions 3-13.
    pub partition_responses: Vec<PartitionProduceResponse>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicProduceResponse {
    fn default() -> Self {
        TopicProduceResponse {
            name: String::new(),
            topic_id: Uuid::ZERO,
            partition_responses: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TopicProduceResponse {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 9;
        let mut this = TopicProduceResponse::default();
        if version <= 12 {
            this.name = d.string(flexible, "name")?;
        }
        if version >= 13 {
            this.topic_id = d.uuid()?;
        }
        this.partition_responses =
            d.array(flexible, PartitionProduceResponse::ENCODED_SIZE_MIN, "partition_responses", |d| {
                PartitionProduceResponse::decode(d, version)
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
        let flexible = version >= 9;
        if version <= 12 {
            out.put_string(flexible, &self.name, "name")?;
        }
        if version >= 13 {
            out.put_uuid(&self.topic_id);
        }
        out.put_length(flexible, false, Some(self.partition_responses.len()), "partition_responses")?;
        for item in &self.partition_responses {
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
impl crate::sample::Sample for TopicProduceResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 9;
        let mut this = Self::default();
        if version <= 12 {
            this.name = g.string();
        }
        if version >= 13 {
            this.topic_id = g.uuid();
        }
        this.partition_responses = g.vec(|g| <PartitionProduceResponse as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `NodeEndpoint`, versions 10-13.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeEndpoint {
    /// Versions 10-13; map key.
    pub node_id: BrokerId,
    /// Versions 10-13.
    pub host: String,
    /// Versions 10-13.
    pub port: i32,
    /// Versions 10-13; nullable 10-13.
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
