//! `ShareAcknowledgeRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ShareAcknowledgeRequest`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareAcknowledgeRequest {
    /// Versions 1-2; nullable 1-2.
    pub group_id: Option<String>,
    /// Versions 1-2; nullable 1-2.
    pub member_id: Option<String>,
    /// Versions 1-2.
    pub share_session_epoch: i32,
    /// Versions 2.
    pub is_renew_ack: bool,
    /// Versions 1-2.
    pub topics: Vec<AcknowledgeTopic>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ShareAcknowledgeRequest {
    fn default() -> Self {
        ShareAcknowledgeRequest {
            group_id: None,
            member_id: Some(String::new()),
            share_session_epoch: 0,
            is_renew_ack: false,
            topics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ShareAcknowledgeRequest {
    const ENCODED_SIZE_MIN: usize = 8;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ShareAcknowledgeRequest::default();
        this.group_id = d.nullable_string(flexible)?;
        this.member_id = d.nullable_string(flexible)?;
        this.share_session_epoch = d.i32()?;
        if version >= 2 {
            this.is_renew_ack = d.bool()?;
        }
        this.topics =
            d.array(flexible, AcknowledgeTopic::ENCODED_SIZE_MIN, "topics", |d| AcknowledgeTopic::decode(d, version))?;
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
        match &self.group_id {
            Some(value) => {
                out.put_string(flexible, value, "group_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "group_id")?;
            }
        }
        match &self.member_id {
            Some(value) => {
                out.put_string(flexible, value, "member_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "member_id")?;
            }
        }
        out.put_i32(self.share_session_epoch);
        if version >= 2 {
            out.put_bool(self.is_renew_ack);
        } else {
            if self.is_renew_ack {
                return Err(EncodeError::FieldNotInVersion { field: "is_renew_ack", version });
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

impl Message for ShareAcknowledgeRequest {
    const NAME: &'static str = "ShareAcknowledgeRequest";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ShareAcknowledgeRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.group_id = g.nullable(|g| g.string());
        this.member_id = g.nullable(|g| g.string());
        this.share_session_epoch = g.i32();
        if version >= 2 {
            this.is_renew_ack = g.bool();
        }
        this.topics = g.vec(|g| <AcknowledgeTopic as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AcknowledgementBatch`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct AcknowledgementBatch {
    /// Versions 1-2.
    pub first_offset: i64,
    /// Versions 1-2.
    pub last_offset: i64,
    /// Versions 1-2.
    pub acknowledge_types: Vec<i8>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AcknowledgementBatch {
    fn default() -> Self {
        AcknowledgementBatch {
            first_offset: 0,
            last_offset: 0,
            acknowledge_types: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AcknowledgementBatch {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AcknowledgementBatch::default();
        this.first_offset = d.i64()?;
        this.last_offset = d.i64()?;
        this.acknowledge_types = d.array(flexible, 1, "acknowledge_types", |d| d.i8())?;
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
        out.put_length(flexible, false, Some(self.acknowledge_types.len()), "acknowledge_types")?;
        for item in &self.acknowledge_types {
            out.put_i8(*item);
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
impl crate::sample::Sample for AcknowledgementBatch {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.first_offset = g.i64();
        this.last_offset = g.i64();
        this.acknowledge_types = g.vec(|g| g.i8());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AcknowledgePartition`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct AcknowledgePartition {
    /// Versions 1-2; map key.
    pub partition_index: i32,
    /// Versions 1-2.
    pub acknowledgement_batches: Vec<AcknowledgementBatch>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AcknowledgePartition {
    fn default() -> Self {
        AcknowledgePartition {
            partition_index: 0,
            acknowledgement_batches: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AcknowledgePartition {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AcknowledgePartition::default();
        this.partition_index = d.i32()?;
        this.acknowledgement_batches =
            d.array(flexible, AcknowledgementBatch::ENCODED_SIZE_MIN, "acknowledgement_batches", |d| {
                AcknowledgementBatch::decode(d, version)
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
        out.put_length(flexible, false, Some(self.acknowledgement_batches.len()), "acknowledgement_batches")?;
        for item in &self.acknowledgement_batches {
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
impl crate::sample::Sample for AcknowledgePartition {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.acknowledgement_batches = g.vec(|g| <AcknowledgementBatch as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AcknowledgeTopic`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct AcknowledgeTopic {
    /// Versions 1-2; map key.
    pub topic_id: Uuid,
    /// Versions 1-2.
    pub partitions: Vec<AcknowledgePartition>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AcknowledgeTopic {
    fn default() -> Self {
        AcknowledgeTopic { topic_id: Uuid::ZERO, partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for AcknowledgeTopic {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AcknowledgeTopic::default();
        this.topic_id = d.uuid()?;
        this.partitions = d.array(flexible, AcknowledgePartition::ENCODED_SIZE_MIN, "partitions", |d| {
            AcknowledgePartition::decode(d, version)
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
impl crate::sample::Sample for AcknowledgeTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_id = g.uuid();
        this.partitions = g.vec(|g| <AcknowledgePartition as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
