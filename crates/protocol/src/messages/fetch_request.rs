//! `FetchRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `FetchRequest`, versions 4-18.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchRequest {
    /// Tagged only; nullable 12-18; tag 0 in 12+; ignorable.
    pub cluster_id: Option<String>,
    /// Versions 4-14.
    pub replica_id: BrokerId,
    /// Tagged only; tag 1 in 15+.
    pub replica_state: ReplicaState,
    /// Versions 4-18.
    pub max_wait_ms: i32,
    /// Versions 4-18.
    pub min_bytes: i32,
    /// Versions 4-18; ignorable.
    pub max_bytes: i32,
    /// Versions 4-18; ignorable.
    pub isolation_level: i8,
    /// Versions 7-18; ignorable.
    pub session_id: i32,
    /// Versions 7-18; ignorable.
    pub session_epoch: i32,
    /// Versions 4-18.
    pub topics: Vec<FetchTopic>,
    /// Versions 7-18.
    pub forgotten_topics_data: Vec<ForgottenTopic>,
    /// Versions 11-18; ignorable.
    pub rack_id: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for FetchRequest {
    fn default() -> Self {
        FetchRequest {
            cluster_id: None,
            replica_id: BrokerId(-1_i32),
            replica_state: ReplicaState::default(),
            max_wait_ms: 0,
            min_bytes: 0,
            max_bytes: 2147483647,
            isolation_level: 0,
            session_id: 0,
            session_epoch: -1_i32,
            topics: Vec::new(),
            forgotten_topics_data: Vec::new(),
            rack_id: String::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for FetchRequest {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 12;
        let mut this = FetchRequest::default();
        if version <= 14 {
            this.replica_id = d.i32().map(BrokerId)?;
        }
        this.max_wait_ms = d.i32()?;
        this.min_bytes = d.i32()?;
        this.max_bytes = d.i32()?;
        this.isolation_level = d.i8()?;
        if version >= 7 {
            this.session_id = d.i32()?;
        }
        if version >= 7 {
            this.session_epoch = d.i32()?;
        }
        this.topics = d.array(flexible, FetchTopic::ENCODED_SIZE_MIN, "topics", |d| FetchTopic::decode(d, version))?;
        if version >= 7 {
            this.forgotten_topics_data =
                d.array(flexible, ForgottenTopic::ENCODED_SIZE_MIN, "forgotten_topics_data", |d| {
                    ForgottenTopic::decode(d, version)
                })?;
        }
        if version >= 11 {
            this.rack_id = d.string(flexible, "rack_id")?;
        }
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 if version >= 12 => {
                        let d = &mut field;
                        this.cluster_id = d.nullable_string(true)?;
                        d.finish_tagged(tag)?;
                    }
                    1 if version >= 15 => {
                        let d = &mut field;
                        this.replica_state = ReplicaState::decode(d, version)?;
                        d.finish_tagged(tag)?;
                    }
                    _ => this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() }),
                }
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 12;
        if version <= 14 {
            out.put_i32(self.replica_id.0);
        } else {
            if self.replica_id != BrokerId(-1_i32) {
                return Err(EncodeError::FieldNotInVersion { field: "replica_id", version });
            }
        }
        out.put_i32(self.max_wait_ms);
        out.put_i32(self.min_bytes);
        out.put_i32(self.max_bytes);
        out.put_i8(self.isolation_level);
        if version >= 7 {
            out.put_i32(self.session_id);
        }
        if version >= 7 {
            out.put_i32(self.session_epoch);
        }
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        if version >= 7 {
            out.put_length(flexible, false, Some(self.forgotten_topics_data.len()), "forgotten_topics_data")?;
            for item in &self.forgotten_topics_data {
                item.encode(out, version)?;
            }
        } else {
            if !self.forgotten_topics_data.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "forgotten_topics_data", version });
            }
        }
        if version >= 11 {
            out.put_string(flexible, &self.rack_id, "rack_id")?;
        }
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if version >= 12 && self.cluster_id.is_some() {
                let out = tagged.field(0);
                match &self.cluster_id {
                    Some(value) => {
                        out.put_string(true, value, "cluster_id")?;
                    }
                    None => {
                        out.put_length(true, true, None, "cluster_id")?;
                    }
                }
            }
            if version >= 15 && self.replica_state != ReplicaState::default() {
                let out = tagged.field(1);
                self.replica_state.encode(out, version)?;
            } else {
                if self.replica_state != ReplicaState::default() {
                    return Err(EncodeError::FieldNotInVersion { field: "replica_state", version });
                }
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for FetchRequest {
    const NAME: &'static str = "FetchRequest";
    const VERSIONS: VersionRange = VersionRange { min: 4, max: 18 };
    const FLEXIBLE_MIN: Option<i16> = Some(12);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for FetchRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 12;
        let mut this = Self::default();
        if version >= 12 && g.bool() {
            this.cluster_id = g.nullable(|g| g.string());
        }
        if version <= 14 {
            this.replica_id = BrokerId(g.i32());
        }
        if version >= 15 && g.bool() {
            this.replica_state = <ReplicaState as crate::sample::Sample>::sample(g, version);
        }
        this.max_wait_ms = g.i32();
        this.min_bytes = g.i32();
        this.max_bytes = g.i32();
        this.isolation_level = g.i8();
        if version >= 7 {
            this.session_id = g.i32();
        }
        if version >= 7 {
            this.session_epoch = g.i32();
        }
        this.topics = g.vec(|g| <FetchTopic as crate::sample::Sample>::sample(g, version));
        if version >= 7 {
            this.forgotten_topics_data = g.vec(|g| <ForgottenTopic as crate::sample::Sample>::sample(g, version));
        }
        if version >= 11 {
            this.rack_id = g.string();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ReplicaState`, versions 15-18.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplicaState {
    /// Versions 15-18.
    pub replica_id: BrokerId,
    /// Versions 15-18.
    pub replica_epoch: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ReplicaState {
    fn default() -> Self {
        ReplicaState { replica_id: BrokerId(-1_i32), replica_epoch: -1_i64, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ReplicaState {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ReplicaState::default();
        this.replica_id = d.i32().map(BrokerId)?;
        this.replica_epoch = d.i64()?;
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
        out.put_i64(self.replica_epoch);
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
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.replica_id = BrokerId(g.i32());
        this.replica_epoch = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `FetchPartition`, versions 4-18.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchPartition {
    /// Versions 4-18.
    pub partition: i32,
    /// Versions 9-18; ignorable.
    pub current_leader_epoch: i32,
    /// Versions 4-18.
    pub fetch_offset: i64,
    /// Versions 12-18.
    pub last_fetched_epoch: i32,
    /// Versions 5-18; ignorable.
    pub log_start_offset: i64,
    /// Versions 4-18.
    pub partition_max_bytes: i32,
    /// Tagged only; tag 0 in 17+; ignorable.
    pub replica_directory_id: Uuid,
    /// Tagged only; tag 1 in 18+; ignorable.
    pub high_watermark: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for FetchPartition {
    fn default() -> Self {
        FetchPartition {
            partition: 0,
            current_leader_epoch: -1_i32,
            fetch_offset: 0,
            last_fetched_epoch: -1_i32,
            log_start_offset: -1_i64,
            partition_max_bytes: 0,
            replica_directory_id: Uuid::ZERO,
            high_watermark: 9223372036854775807,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for FetchPartition {
    const ENCODED_SIZE_MIN: usize = 16;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 12;
        let mut this = FetchPartition::default();
        this.partition = d.i32()?;
        if version >= 9 {
            this.current_leader_epoch = d.i32()?;
        }
        this.fetch_offset = d.i64()?;
        if version >= 12 {
            this.last_fetched_epoch = d.i32()?;
        }
        if version >= 5 {
            this.log_start_offset = d.i64()?;
        }
        this.partition_max_bytes = d.i32()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 if version >= 17 => {
                        let d = &mut field;
                        this.replica_directory_id = d.uuid()?;
                        d.finish_tagged(tag)?;
                    }
                    1 if version >= 18 => {
                        let d = &mut field;
                        this.high_watermark = d.i64()?;
                        d.finish_tagged(tag)?;
                    }
                    _ => this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() }),
                }
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 12;
        out.put_i32(self.partition);
        if version >= 9 {
            out.put_i32(self.current_leader_epoch);
        }
        out.put_i64(self.fetch_offset);
        if version >= 12 {
            out.put_i32(self.last_fetched_epoch);
        } else {
            if self.last_fetched_epoch != -1_i32 {
                return Err(EncodeError::FieldNotInVersion { field: "last_fetched_epoch", version });
            }
        }
        if version >= 5 {
            out.put_i64(self.log_start_offset);
        }
        out.put_i32(self.partition_max_bytes);
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if version >= 17 && self.replica_directory_id != Uuid::ZERO {
                let out = tagged.field(0);
                out.put_uuid(&self.replica_directory_id);
            }
            if version >= 18 && self.high_watermark != 9223372036854775807 {
                let out = tagged.field(1);
                out.put_i64(self.high_watermark);
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for FetchPartition {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 12;
        let mut this = Self::default();
        this.partition = g.i32();
        if version >= 9 {
            this.current_leader_epoch = g.i32();
        }
        this.fetch_offset = g.i64();
        if version >= 12 {
            this.last_fetched_epoch = g.i32();
        }
        if version >= 5 {
            this.log_start_offset = g.i64();
        }
        this.partition_max_bytes = g.i32();
        if version >= 17 && g.bool() {
            this.replica_directory_id = g.uuid();
        }
        if version >= 18 && g.bool() {
            this.high_watermark = g.i64();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `FetchTopic`, versions 4-18.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchTopic {
    /// Versions 4-12; ignorable.
    pub topic: String,
    /// Versions 13-18; ignorable.
    pub topic_id: Uuid,
    /// Versions 4-18.
    pub partitions: Vec<FetchPartition>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for FetchTopic {
    fn default() -> Self {
        FetchTopic {
            topic: String::new(),
            topic_id: Uuid::ZERO,
            partitions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for FetchTopic {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 12;
        let mut this = FetchTopic::default();
        if version <= 12 {
            this.topic = d.string(flexible, "topic")?;
        }
        if version >= 13 {
            this.topic_id = d.uuid()?;
        }
        this.partitions =
            d.array(flexible, FetchPartition::ENCODED_SIZE_MIN, "partitions", |d| FetchPartition::decode(d, version))?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 12;
        if version <= 12 {
            out.put_string(flexible, &self.topic, "topic")?;
        }
        if version >= 13 {
            out.put_uuid(&self.topic_id);
        }
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
impl crate::sample::Sample for FetchTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 12;
        let mut this = Self::default();
        if version <= 12 {
            this.topic = g.string();
        }
        if version >= 13 {
            this.topic_id = g.uuid();
        }
        this.partitions = g.vec(|g| <FetchPartition as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ForgottenTopic`, versions 7-18.
#[derive(Debug, Clone, PartialEq)]
pub struct ForgottenTopic {
    /// Versions 7-12; ignorable.
    pub topic: String,
    /// Versions 13-18; ignorable.
    pub topic_id: Uuid,
    /// Versions 7-18.
    pub partitions: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ForgottenTopic {
    fn default() -> Self {
        ForgottenTopic {
            topic: String::new(),
            topic_id: Uuid::ZERO,
            partitions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ForgottenTopic {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 12;
        let mut this = ForgottenTopic::default();
        if version <= 12 {
            this.topic = d.string(flexible, "topic")?;
        }
        if version >= 13 {
            this.topic_id = d.uuid()?;
        }
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
        let flexible = version >= 12;
        if version <= 12 {
            out.put_string(flexible, &self.topic, "topic")?;
        }
        if version >= 13 {
            out.put_uuid(&self.topic_id);
        }
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
impl crate::sample::Sample for ForgottenTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 12;
        let mut this = Self::default();
        if version <= 12 {
            this.topic = g.string();
        }
        if version >= 13 {
            this.topic_id = g.uuid();
        }
        this.partitions = g.vec(|g| g.i32());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
