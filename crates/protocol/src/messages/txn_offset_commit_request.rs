//! `TxnOffsetCommitRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `TxnOffsetCommitRequest`, versions 0-6.
#[derive(Debug, Clone, PartialEq)]
pub struct TxnOffsetCommitRequest {
    /// Versions 0-6.
    pub transactional_id: String,
    /// Versions 0-6.
    pub group_id: String,
    /// Versions 0-6.
    pub producer_id: ProducerId,
    /// Versions 0-6.
    pub producer_epoch: i16,
    /// Versions 3-6.
    pub generation_id_or_member_epoch: i32,
    /// Versions 3-6.
    pub member_id: String,
    /// Versions 3-6; nullable 3-6.
    pub group_instance_id: Option<String>,
    /// Versions 0-6.
    pub topics: Vec<TxnOffsetCommitRequestTopic>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TxnOffsetCommitRequest {
    fn default() -> Self {
        TxnOffsetCommitRequest {
            transactional_id: String::new(),
            group_id: String::new(),
            producer_id: ProducerId(0),
            producer_epoch: 0,
            generation_id_or_member_epoch: -1_i32,
            member_id: String::new(),
            group_instance_id: None,
            topics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TxnOffsetCommitRequest {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = TxnOffsetCommitRequest::default();
        this.transactional_id = d.string(flexible, "transactional_id")?;
        this.group_id = d.string(flexible, "group_id")?;
        this.producer_id = d.i64().map(ProducerId)?;
        this.producer_epoch = d.i16()?;
        if version >= 3 {
            this.generation_id_or_member_epoch = d.i32()?;
        }
        if version >= 3 {
            this.member_id = d.string(flexible, "member_id")?;
        }
        if version >= 3 {
            this.group_instance_id = d.nullable_string(flexible)?;
        }
        this.topics = d.array(flexible, TxnOffsetCommitRequestTopic::ENCODED_SIZE_MIN, "topics", |d| {
            TxnOffsetCommitRequestTopic::decode(d, version)
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
        let flexible = version >= 3;
        out.put_string(flexible, &self.transactional_id, "transactional_id")?;
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_i64(self.producer_id.0);
        out.put_i16(self.producer_epoch);
        if version >= 3 {
            out.put_i32(self.generation_id_or_member_epoch);
        } else {
            if self.generation_id_or_member_epoch != -1_i32 {
                return Err(EncodeError::FieldNotInVersion { field: "generation_id_or_member_epoch", version });
            }
        }
        if version >= 3 {
            out.put_string(flexible, &self.member_id, "member_id")?;
        } else {
            if !self.member_id.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "member_id", version });
            }
        }
        if version >= 3 {
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

impl Message for TxnOffsetCommitRequest {
    const NAME: &'static str = "TxnOffsetCommitRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 6 };
    const FLEXIBLE_MIN: Option<i16> = Some(3);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for TxnOffsetCommitRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        this.transactional_id = g.string();
        this.group_id = g.string();
        this.producer_id = ProducerId(g.i64());
        this.producer_epoch = g.i16();
        if version >= 3 {
            this.generation_id_or_member_epoch = g.i32();
        }
        if version >= 3 {
            this.member_id = g.string();
        }
        if version >= 3 {
            this.group_instance_id = g.nullable(|g| g.string());
        }
        this.topics = g.vec(|g| <TxnOffsetCommitRequestTopic as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TxnOffsetCommitRequestPartition`, versions 0-6.
#[derive(Debug, Clone, PartialEq)]
pub struct TxnOffsetCommitRequestPartition {
    /// Versions 0-6.
    pub partition_index: i32,
    /// Versions 0-6.
    pub committed_offset: i64,
    /// Versions 2-6; ignorable.
    pub committed_leader_epoch: i32,
    /// Versions 0-6; nullable 0-6.
    pub committed_metadata: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TxnOffsetCommitRequestPartition {
    fn default() -> Self {
        TxnOffsetCommitRequestPartition {
            partition_index: 0,
            committed_offset: 0,
            committed_leader_epoch: -1_i32,
            committed_metadata: Some(String::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TxnOffsetCommitRequestPartition {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = TxnOffsetCommitRequestPartition::default();
        this.partition_index = d.i32()?;
        this.committed_offset = d.i64()?;
        if version >= 2 {
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
        let flexible = version >= 3;
        out.put_i32(self.partition_index);
        out.put_i64(self.committed_offset);
        if version >= 2 {
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
impl crate::sample::Sample for TxnOffsetCommitRequestPartition {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.committed_offset = g.i64();
        if version >= 2 {
            this.committed_leader_epoch = g.i32();
        }
        this.committed_metadata = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TxnOffsetCommitRequestTopic`, versions 0-6.
#[derive(Debug, Clone, PartialEq)]
pub struct TxnOffsetCommitRequestTopic {
    /// Versions 0-5; ignorable.
    pub name: String,
    /// Versions 6; ignorable.
    pub topic_id: Uuid,
    /// Versions 0-6.
    pub partitions: Vec<TxnOffsetCommitRequestPartition>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TxnOffsetCommitRequestTopic {
    fn default() -> Self {
        TxnOffsetCommitRequestTopic {
            name: String::new(),
            topic_id: Uuid::ZERO,
            partitions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TxnOffsetCommitRequestTopic {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = TxnOffsetCommitRequestTopic::default();
        if version <= 5 {
            this.name = d.string(flexible, "name")?;
        }
        if version >= 6 {
            this.topic_id = d.uuid()?;
        }
        this.partitions = d.array(flexible, TxnOffsetCommitRequestPartition::ENCODED_SIZE_MIN, "partitions", |d| {
            TxnOffsetCommitRequestPartition::decode(d, version)
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
        let flexible = version >= 3;
        if version <= 5 {
            out.put_string(flexible, &self.name, "name")?;
        }
        if version >= 6 {
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
impl crate::sample::Sample for TxnOffsetCommitRequestTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        if version <= 5 {
            this.name = g.string();
        }
        if version >= 6 {
            this.topic_id = g.uuid();
        }
        this.partitions = g.vec(|g| <TxnOffsetCommitRequestPartition as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
