//! `VoteRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `VoteRequest`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct VoteRequest {
    /// Versions 0-2; nullable 0-2.
    pub cluster_id: Option<String>,
    /// Versions 1-2; ignorable.
    pub voter_id: BrokerId,
    /// Versions 0-2.
    pub topics: Vec<TopicData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for VoteRequest {
    fn default() -> Self {
        VoteRequest {
            cluster_id: None,
            voter_id: BrokerId(-1_i32),
            topics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for VoteRequest {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = VoteRequest::default();
        this.cluster_id = d.nullable_string(flexible)?;
        if version >= 1 {
            this.voter_id = d.i32().map(BrokerId)?;
        }
        this.topics = d.array(flexible, TopicData::ENCODED_SIZE_MIN, "topics", |d| TopicData::decode(d, version))?;
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
        match &self.cluster_id {
            Some(value) => {
                out.put_string(flexible, value, "cluster_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "cluster_id")?;
            }
        }
        if version >= 1 {
            out.put_i32(self.voter_id.0);
        }
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
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

impl Message for VoteRequest {
    const NAME: &'static str = "VoteRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for VoteRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.cluster_id = g.nullable(|g| g.string());
        if version >= 1 {
            this.voter_id = BrokerId(g.i32());
        }
        this.topics = g.vec(|g| <TopicData as crate::sample::Sample>::sample(g, version));
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
    pub replica_epoch: i32,
    /// Versions 0-2.
    pub replica_id: BrokerId,
    /// Versions 1-2; ignorable.
    pub replica_directory_id: Uuid,
    /// Versions 1-2; ignorable.
    pub voter_directory_id: Uuid,
    /// Versions 0-2.
    pub last_offset_epoch: i32,
    /// Versions 0-2.
    pub last_offset: i64,
    /// Versions 2.
    pub pre_vote: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionData {
    fn default() -> Self {
        PartitionData {
            partition_index: 0,
            replica_epoch: 0,
            replica_id: BrokerId(0),
            replica_directory_id: Uuid::ZERO,
            voter_directory_id: Uuid::ZERO,
            last_offset_epoch: 0,
            last_offset: 0,
            pre_vote: false,
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
        this.replica_epoch = d.i32()?;
        this.replica_id = d.i32().map(BrokerId)?;
        if version >= 1 {
            this.replica_directory_id = d.uuid()?;
        }
        if version >= 1 {
            this.voter_directory_id = d.uuid()?;
        }
        this.last_offset_epoch = d.i32()?;
        this.last_offset = d.i64()?;
        if version >= 2 {
            this.pre_vote = d.bool()?;
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
        out.put_i32(self.partition_index);
        out.put_i32(self.replica_epoch);
        out.put_i32(self.replica_id.0);
        if version >= 1 {
            out.put_uuid(&self.replica_directory_id);
        }
        if version >= 1 {
            out.put_uuid(&self.voter_directory_id);
        }
        out.put_i32(self.last_offset_epoch);
        out.put_i64(self.last_offset);
        if version >= 2 {
            out.put_bool(self.pre_vote);
        } else {
            if self.pre_vote {
                return Err(EncodeError::FieldNotInVersion { field: "pre_vote", version });
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
        let flexible = true;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.replica_epoch = g.i32();
        this.replica_id = BrokerId(g.i32());
        if version >= 1 {
            this.replica_directory_id = g.uuid();
        }
        if version >= 1 {
            this.voter_directory_id = g.uuid();
        }
        this.last_offset_epoch = g.i32();
        this.last_offset = g.i64();
        if version >= 2 {
            this.pre_vote = g.bool();
        }
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
