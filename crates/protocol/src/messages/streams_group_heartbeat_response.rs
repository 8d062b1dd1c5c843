//! `StreamsGroupHeartbeatResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `StreamsGroupHeartbeatResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsGroupHeartbeatResponse {
    /// Versions 0-1.
    pub throttle_time_ms: i32,
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1; nullable 0-1.
    pub error_message: Option<String>,
    /// Versions 0-1.
    pub member_id: String,
    /// Versions 0-1.
    pub member_epoch: i32,
    /// Versions 0-1.
    pub heartbeat_interval_ms: i32,
    /// Versions 0.
    pub acceptable_recovery_lag_legacy: i32,
    /// Versions 0-1.
    pub task_offset_interval_ms: i32,
    /// Versions 1; ignorable.
    pub acceptable_recovery_lag: i64,
    /// Versions 0-1; nullable 0-1.
    pub status: Option<Vec<Status>>,
    /// Versions 0-1; nullable 0-1.
    pub active_tasks: Option<Vec<TaskIds>>,
    /// Versions 0-1; nullable 0-1.
    pub standby_tasks: Option<Vec<TaskIds>>,
    /// Versions 0-1; nullable 0-1.
    pub warmup_tasks: Option<Vec<TaskIds>>,
    /// Versions 1.
    pub topology_description_required: bool,
    /// Versions 0-1.
    pub endpoint_information_epoch: i32,
    /// Versions 0-1; nullable 0-1.
    pub partitions_by_user_endpoint: Option<Vec<EndpointToPartitions>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for StreamsGroupHeartbeatResponse {
    fn default() -> Self {
        StreamsGroupHeartbeatResponse {
            throttle_time_ms: 0,
            error_code: 0,
            error_message: None,
            member_id: String::new(),
            member_epoch: 0,
            heartbeat_interval_ms: 0,
            acceptable_recovery_lag_legacy: 0,
            task_offset_interval_ms: 0,
            acceptable_recovery_lag: -1_i64,
            status: Some(Vec::new()),
            active_tasks: None,
            standby_tasks: None,
            warmup_tasks: None,
            topology_description_required: false,
            endpoint_information_epoch: 0,
            partitions_by_user_endpoint: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for StreamsGroupHeartbeatResponse {
    const ENCODED_SIZE_MIN: usize = 34;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = StreamsGroupHeartbeatResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.member_id = d.string(flexible, "member_id")?;
        this.member_epoch = d.i32()?;
        this.heartbeat_interval_ms = d.i32()?;
        if version <= 0 {
            this.acceptable_recovery_lag_legacy = d.i32()?;
        }
        this.task_offset_interval_ms = d.i32()?;
        if version >= 1 {
            this.acceptable_recovery_lag = d.i64()?;
        }
        this.status = d.nullable_array(flexible, Status::ENCODED_SIZE_MIN, |d| Status::decode(d, version))?;
        this.active_tasks = d.nullable_array(flexible, TaskIds::ENCODED_SIZE_MIN, |d| TaskIds::decode(d, version))?;
        this.standby_tasks = d.nullable_array(flexible, TaskIds::ENCODED_SIZE_MIN, |d| TaskIds::decode(d, version))?;
        this.warmup_tasks = d.nullable_array(flexible, TaskIds::ENCODED_SIZE_MIN, |d| TaskIds::decode(d, version))?;
        if version >= 1 {
            this.topology_description_required = d.bool()?;
        }
        this.endpoint_information_epoch = d.i32()?;
        this.partitions_by_user_endpoint = d.nullable_array(flexible, EndpointToPartitions::ENCODED_SIZE_MIN, |d| {
            EndpointToPartitions::decode(d, version)
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
        out.put_string(flexible, &self.member_id, "member_id")?;
        out.put_i32(self.member_epoch);
        out.put_i32(self.heartbeat_interval_ms);
        if version <= 0 {
            out.put_i32(self.acceptable_recovery_lag_legacy);
        } else {
            if self.acceptable_recovery_lag_legacy != 0 {
                return Err(EncodeError::FieldNotInVersion { field: "acceptable_recovery_lag_legacy", version });
            }
        }
        out.put_i32(self.task_offset_interval_ms);
        if version >= 1 {
            out.put_i64(self.acceptable_recovery_lag);
        }
        match &self.status {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "status")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "status")?;
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
        if version >= 1 {
            out.put_bool(self.topology_description_required);
        } else {
            if self.topology_description_required {
                return Err(EncodeError::FieldNotInVersion { field: "topology_description_required", version });
            }
        }
        out.put_i32(self.endpoint_information_epoch);
        match &self.partitions_by_user_endpoint {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "partitions_by_user_endpoint")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "partitions_by_user_endpoint")?;
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

impl Message for StreamsGroupHeartbeatResponse {
    const NAME: &'static str = "StreamsGroupHeartbeatResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for StreamsGroupHeartbeatResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.member_id = g.string();
        this.member_epoch = g.i32();
        this.heartbeat_interval_ms = g.i32();
        if version <= 0 {
            this.acceptable_recovery_lag_legacy = g.i32();
        }
        this.task_offset_interval_ms = g.i32();
        if version >= 1 {
            this.acceptable_recovery_lag = g.i64();
        }
        this.status = g.nullable(|g| g.vec(|g| <Status as crate::sample::Sample>::sample(g, version)));
        this.active_tasks = g.nullable(|g| g.vec(|g| <TaskIds as crate::sample::Sample>::sample(g, version)));
        this.standby_tasks = g.nullable(|g| g.vec(|g| <TaskIds as crate::sample::Sample>::sample(g, version)));
        this.warmup_tasks = g.nullable(|g| g.vec(|g| <TaskIds as crate::sample::Sample>::sample(g, version)));
        if version >= 1 {
            this.topology_description_required = g.bool();
        }
        this.endpoint_information_epoch = g.i32();
        this.partitions_by_user_endpoint =
            g.nullable(|g| g.vec(|g| <EndpointToPartitions as crate::sample::Sample>::sample(g, version)));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `EndpointToPartitions`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct EndpointToPartitions {
    /// Versions 0-1.
    pub user_endpoint: Endpoint,
    /// Versions 0-1.
    pub active_partitions: Vec<TopicPartition>,
    /// Versions 0-1.
    pub standby_partitions: Vec<TopicPartition>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for EndpointToPartitions {
    fn default() -> Self {
        EndpointToPartitions {
            user_endpoint: Endpoint::default(),
            active_partitions: Vec::new(),
            standby_partitions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for EndpointToPartitions {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = EndpointToPartitions::default();
        this.user_endpoint = Endpoint::decode(d, version)?;
        this.active_partitions = d.array(flexible, TopicPartition::ENCODED_SIZE_MIN, "active_partitions", |d| {
            TopicPartition::decode(d, version)
        })?;
        this.standby_partitions = d.array(flexible, TopicPartition::ENCODED_SIZE_MIN, "standby_partitions", |d| {
            TopicPartition::decode(d, version)
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
        self.user_endpoint.encode(out, version)?;
        out.put_length(flexible, false, Some(self.active_partitions.len()), "active_partitions")?;
        for item in &self.active_partitions {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.standby_partitions.len()), "standby_partitions")?;
        for item in &self.standby_partitions {
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
impl crate::sample::Sample for EndpointToPartitions {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.user_endpoint = <Endpoint as crate::sample::Sample>::sample(g, version);
        this.active_partitions = g.vec(|g| <TopicPartition as crate::sample::Sample>::sample(g, version));
        this.standby_partitions = g.vec(|g| <TopicPartition as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Status`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    /// Versions 0-1.
    pub status_code: i8,
    /// Versions 0-1.
    pub status_detail: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Status {
    fn default() -> Self {
        Status { status_code: 0, status_detail: String::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for Status {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Status::default();
        this.status_code = d.i8()?;
        this.status_detail = d.string(flexible, "status_detail")?;
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
        out.put_i8(self.status_code);
        out.put_string(flexible, &self.status_detail, "status_detail")?;
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
impl crate::sample::Sample for Status {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.status_code = g.i8();
        this.status_detail = g.string();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicPartition`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicPartition {
    /// Versions 0-1.
    pub topic: String,
    /// Versions 0-1.
    pub partitions: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicPartition {
    fn default() -> Self {
        TopicPartition { topic: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TopicPartition {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicPartition::default();
        this.topic = d.string(flexible, "topic")?;
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
        out.put_string(flexible, &self.topic, "topic")?;
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
impl crate::sample::Sample for TopicPartition {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic = g.string();
        this.partitions = g.vec(|g| g.i32());
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
