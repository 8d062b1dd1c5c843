//! `OffsetCommitRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `OffsetCommitRequest`, versions 2-10.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetCommitRequest {
    /// Versions 2-10.
    pub group_id: String,
    /// Versions 2-10; ignorable.
    pub generation_id_or_member_epoch: i32,
    /// Versions 2-10; ignorable.
    pub member_id: String,
    /// Versions 7-10; nullable 7-10.
    pub group_instance_id: Option<String>,
    /// Versions 2-4; ignorable.
    pub retention_time_ms: i64,
    /// Versions 2-10.
    pub topics: Vec<OffsetCommitRequestTopic>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetCommitRequest {
    fn default() -> Self {
        OffsetCommitRequest {
            group_id: String::new(),
            generation_id_or_member_epoch: -1_i32,
            member_id: String::new(),
            group_instance_id: None,
            retention_time_ms: -1_i64,
            topics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for OffsetCommitRequest {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 8;
        let mut this = OffsetCommitRequest::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.generation_id_or_member_epoch = d.i32()?;
        this.member_id = d.string(flexible, "member_id")?;
        if version >= 7 {
            this.group_instance_id = d.nullable_string(flexible)?;
        }
        if version <= 4 {
            this.retention_time_ms = d.i64()?;
        }
        this.topics = d.array(flexible, OffsetCommitRequestTopic::ENCODED_SIZE_MIN, "topics", |d| {
            OffsetCommitRequestTopic::decode(d, version)
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
        let flexible = version >= 8;
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_i32(self.generation_id_or_member_epoch);
        out.put_string(flexible, &self.member_id, "member_id")?;
        if version >= 7 {
            match &self.group_instance_id {
                Some(value) => {
                    out.put_string(flexible, value, "group_instance_id")?;
                }
                None => {
                    out.put_length(flexible, true, None, "group_instance_id")?;
                }
            }
        } else {
            if self.group_instance_id.is_some() {
                return Err(EncodeError::FieldNotInVersion { field: "group_instance_id", version });
            }
        }
        if version <= 4 {
            out.put_i64(self.retention_time_ms);
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

impl Message for OffsetCommitRequest {
    const NAME: &'static str = "OffsetCommitRequest";
    const VERSIONS: VersionRange = VersionRange { min: 2, max: 10 };
    const FLEXIBLE_MIN: Option<i16> = Some(8);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for OffsetCommitRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 8;
        let mut this = Self::default();
        this.group_id = g.string();
        this.generation_id_or_member_epoch = g.i32();
        this.member_id = g.string();
        if version >= 7 {
            this.group_instance_id = g.nullable(|g| g.string());
        }
        if version <= 4 {
            this.retention_time_ms = g.i64();
        }
        this.topics = g.vec(|g| <OffsetCommitRequestTopic as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `OffsetCommitRequestPartition`, versions 2-10.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetCommitRequestPartition {
    /// Versions 2-10.
    pub partition_index: i32,
    /// Versions 2-10.
    pub committed_offset: i64,
    /// Versions 6-10; ignorable.
    pub committed_leader_epoch: i32,
    /// Versions 2-10; nullable 2-10.
    pub committed_metadata: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetCommitRequestPartition {
    fn default() -> Self {
        OffsetCommitRequestPartition {
            partition_index: 0,
            committed_offset: 0,
            committed_leader_epoch: -1_i32,
            committed_metadata: Some(String::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for OffsetCommitRequestPartition {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 8;
        let mut this = OffsetCommitRequestPartition::default();
        this.partition_index = d.i32()?;
        this.committed_offset = d.i64()?;
        if version >= 6 {
            this.committed_leader_epoch = d.i32()?;
        }
        this.committed_metadata = d.nullable_string(flexible)?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 8;
        out.put_i32(self.partition_index);
        out.put_i64(self.committed_offset);
        if version >= 6 {
            out.put_i32(self.committed_leader_epoch);
        }
        match &self.committed_metadata {
            Some(value) => {
                out.put_string(flexible, value, "committed_metadata")?;
            }
            None => {
                out.put_length(flexible, true, None, "committed_metadata")?;
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
impl crate::sample::Sample for OffsetCommitRequestPartition {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 8;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.committed_offset = g.i64();
        if version >= 6 {
            this.committed_leader_epoch = g.i32();
        }
        this.committed_metadata = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `OffsetCommitRequestTopic`, versions 2-10.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetCommitRequestTopic {
    /// Versions 2-9; ignorable.
    pub name: String,
    /// Versions 10; ignorable.
    pub topic_id: Uuid,
    /// Versions 2-10.
    pub partitions: Vec<OffsetCommitRequestPartition>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetCommitRequestTopic {
    fn default() -> Self {
        OffsetCommitRequestTopic {
            name: String::new(),
            topic_id: Uuid::ZERO,
            partitions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for OffsetCommitRequestTopic {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 8;
        let mut this = OffsetCommitRequestTopic::default();
        if version <= 9 {
            this.name = d.string(flexible, "name")?;
        }
        if version >= 10 {
            this.topic_id = d.uuid()?;
        }
        this.partitions = d.array(flexible, OffsetCommitRequestPartition::ENCODED_SIZE_MIN, "partitions", |d| {
            OffsetCommitRequestPartition::decode(d, version)
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
        let flexible = version >= 8;
        if version <= 9 {
            out.put_string(flexible, &self.name, "name")?;
        }
        if version >= 10 {
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
impl crate::sample::Sample for OffsetCommitRequestTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 8;
        let mut this = Self::default();
        if version <= 9 {
            this.name = g.string();
        }
        if version >= 10 {
            this.topic_id = g.uuid();
        }
        this.partitions = g.vec(|g| <OffsetCommitRequestPartition as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
