//! `EndQuorumEpochRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `EndQuorumEpochRequest`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct EndQuorumEpochRequest {
    /// Versions 0-1; nullable 0-1.
    pub cluster_id: Option<String>,
    /// Versions 0-1.
    pub topics: Vec<TopicData>,
    /// Versions 1; ignorable.
    pub leader_endpoints: Vec<LeaderEndpoint>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for EndQuorumEpochRequest {
    fn default() -> Self {
        EndQuorumEpochRequest {
            cluster_id: None,
            topics: Vec::new(),
            leader_endpoints: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for EndQuorumEpochRequest {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = EndQuorumEpochRequest::default();
        this.cluster_id = d.nullable_string(flexible)?;
        this.topics = d.array(flexible, TopicData::ENCODED_SIZE_MIN, "topics", |d| TopicData::decode(d, version))?;
        if version >= 1 {
            this.leader_endpoints = d.array(flexible, LeaderEndpoint::ENCODED_SIZE_MIN, "leader_endpoints", |d| {
                LeaderEndpoint::decode(d, version)
            })?;
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
        let flexible = version >= 1;
        match &self.cluster_id {
            Some(value) => {
                out.put_string(flexible, value, "cluster_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "cluster_id")?;
            }
        }
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        if version >= 1 {
            out.put_length(flexible, false, Some(self.leader_endpoints.len()), "leader_endpoints")?;
            for item in &self.leader_endpoints {
                item.encode(out, version)?;
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

impl Message for EndQuorumEpochRequest {
    const NAME: &'static str = "EndQuorumEpochRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(1);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for EndQuorumEpochRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.cluster_id = g.nullable(|g| g.string());
        this.topics = g.vec(|g| <TopicData as crate::sample::Sample>::sample(g, version));
        if version >= 1 {
            this.leader_endpoints = g.vec(|g| <LeaderEndpoint as crate::sample::Sample>::sample(g, version));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ReplicaInfo`, versions 1.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplicaInfo {
    /// Versions 1.
    pub candidate_id: BrokerId,
    /// Versions 1.
    pub candidate_directory_id: Uuid,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ReplicaInfo {
    fn default() -> Self {
        ReplicaInfo { candidate_id: BrokerId(0), candidate_directory_id: Uuid::ZERO, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ReplicaInfo {
    const ENCODED_SIZE_MIN: usize = 21;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ReplicaInfo::default();
        this.candidate_id = d.i32().map(BrokerId)?;
        this.candidate_directory_id = d.uuid()?;
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
        out.put_i32(self.candidate_id.0);
        out.put_uuid(&self.candidate_directory_id);
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
impl crate::sample::Sample for ReplicaInfo {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.candidate_id = BrokerId(g.i32());
        this.candidate_directory_id = g.uuid();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `PartitionData`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionData {
    /// Versions 0-1.
    pub partition_index: i32,
    /// Versions 0-1.
    pub leader_id: BrokerId,
    /// Versions 0-1.
    pub leader_epoch: i32,
    /// Versions 0; ignorable.
    pub preferred_successors: Vec<i32>,
    /// Versions 1; ignorable.
    pub preferred_candidates: Vec<ReplicaInfo>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionData {
    fn default() -> Self {
        PartitionData {
            partition_index: 0,
            leader_id: BrokerId(0),
            leader_epoch: 0,
            preferred_successors: Vec::new(),
            preferred_candidates: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionData {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = PartitionData::default();
        this.partition_index = d.i32()?;
        this.leader_id = d.i32().map(BrokerId)?;
        this.leader_epoch = d.i32()?;
        if version <= 0 {
            this.preferred_successors = d.array(flexible, 4, "preferred_successors", |d| d.i32())?;
        }
        if version >= 1 {
            this.preferred_candidates =
                d.array(flexible, ReplicaInfo::ENCODED_SIZE_MIN, "preferred_candidates", |d| {
                    ReplicaInfo::decode(d, version)
                })?;
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
        let flexible = version >= 1;
        out.put_i32(self.partition_index);
        out.put_i32(self.leader_id.0);
        out.put_i32(self.leader_epoch);
        if version <= 0 {
            out.put_length(flexible, false, Some(self.preferred_successors.len()), "preferred_successors")?;
            for item in &self.preferred_successors {
                out.put_i32(*item);
            }
        }
        if version >= 1 {
            out.put_length(flexible, false, Some(self.preferred_candidates.len()), "preferred_candidates")?;
            for item in &self.preferred_candidates {
                item.encode(out, version)?;
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
impl crate::sample::Sample for PartitionData {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.leader_id = BrokerId(g.i32());
        this.leader_epoch = g.i32();
        if version <= 0 {
            this.preferred_successors = g.vec(|g| g.i32());
        }
        if version >= 1 {
            this.preferred_candidates = g.vec(|g| <ReplicaInfo as crate::sample::Sample>::sample(g, version));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicData`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicData {
    /// Versions 0-1.
    pub topic_name: String,
    /// Versions 0-1.
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
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
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
        let flexible = version >= 1;
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
        let flexible = version >= 1;
        let mut this = Self::default();
        this.topic_name = g.string();
        this.partitions = g.vec(|g| <PartitionData as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `LeaderEndpoint`, versions 1.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaderEndpoint {
    /// Versions 1; map key.
    pub name: String,
    /// Versions 1.
    pub host: String,
    /// Versions 1.
    pub port: u16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for LeaderEndpoint {
    fn default() -> Self {
        LeaderEndpoint { name: String::new(), host: String::new(), port: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for LeaderEndpoint {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = LeaderEndpoint::default();
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
impl crate::sample::Sample for LeaderEndpoint {
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
