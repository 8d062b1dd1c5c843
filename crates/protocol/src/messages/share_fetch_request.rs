//! `ShareFetchRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ShareFetchRequest`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareFetchRequest {
    /// Versions 1-2; nullable 1-2.
    pub group_id: Option<String>,
    /// Versions 1-2; nullable 1-2.
    pub member_id: Option<String>,
    /// Versions 1-2.
    pub share_session_epoch: i32,
    /// Versions 1-2.
    pub max_wait_ms: i32,
    /// Versions 1-2.
    pub min_bytes: i32,
    /// Versions 1-2.
    pub max_bytes: i32,
    /// Versions 1-2.
    pub max_records: i32,
    /// Versions 1-2.
    pub batch_size: i32,
    /// Versions 2; ignorable.
    pub share_acquire_mode: i8,
    /// Versions 2.
    pub is_renew_ack: bool,
    /// Versions 1-2.
    pub topics: Vec<FetchTopic>,
    /// Versions 1-2.
    pub forgotten_topics_data: Vec<ForgottenTopic>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ShareFetchRequest {
    fn default() -> Self {
        ShareFetchRequest {
            group_id: None,
            member_id: Some(String::new()),
            share_session_epoch: 0,
            max_wait_ms: 0,
            min_bytes: 0,
            max_bytes: 2147483647,
            max_records: 0,
            batch_size: 0,
            share_acquire_mode: 0,
            is_renew_ack: false,
            topics: Vec::new(),
            forgotten_topics_data: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ShareFetchRequest {
    const ENCODED_SIZE_MIN: usize = 29;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ShareFetchRequest::default();
        this.group_id = d.nullable_string(flexible)?;
        this.member_id = d.nullable_string(flexible)?;
        this.share_session_epoch = d.i32()?;
        this.max_wait_ms = d.i32()?;
        this.min_bytes = d.i32()?;
        this.max_bytes = d.i32()?;
        this.max_records = d.i32()?;
        this.batch_size = d.i32()?;
        if version >= 2 {
            this.share_acquire_mode = d.i8()?;
        }
        if version >= 2 {
            this.is_renew_ack = d.bool()?;
        }
        this.topics = d.array(flexible, FetchTopic::ENCODED_SIZE_MIN, "topics", |d| FetchTopic::decode(d, version))?;
        this.forgotten_topics_data =
            d.array(flexible, ForgottenTopic::ENCODED_SIZE_MIN, "forgotten_topics_data", |d| {
                ForgottenTopic::decode(d, version)
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
        out.put_i32(self.max_wait_ms);
        out.put_i32(self.min_bytes);
        out.put_i32(self.max_bytes);
        out.put_i32(self.max_records);
        out.put_i32(self.batch_size);
        if version >= 2 {
            out.put_i8(self.share_acquire_mode);
        }
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
        out.put_length(flexible, false, Some(self.forgotten_topics_data.len()), "forgotten_topics_data")?;
        for item in &self.forgotten_topics_data {
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

impl Message for ShareFetchRequest {
    const NAME: &'static str = "ShareFetchRequest";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ShareFetchRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.group_id = g.nullable(|g| g.string());
        this.member_id = g.nullable(|g| g.string());
        this.share_session_epoch = g.i32();
        this.max_wait_ms = g.i32();
        this.min_bytes = g.i32();
        this.max_bytes = g.i32();
        this.max_records = g.i32();
        this.batch_size = g.i32();
        if version >= 2 {
            this.share_acquire_mode = g.i8();
        }
        if version >= 2 {
            this.is_renew_ack = g.bool();
        }
        this.topics = g.vec(|g| <FetchTopic as crate::sample::Sample>::sample(g, version));
        this.forgotten_topics_data = g.vec(|g| <ForgottenTopic as crate::sample::Sample>::sample(g, version));
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

/// `FetchPartition`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchPartition {
    /// Versions 1-2; map key.
    pub partition_index: i32,
    /// Versions 1-2.
    pub acknowledgement_batches: Vec<AcknowledgementBatch>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for FetchPartition {
    fn default() -> Self {
        FetchPartition { partition_index: 0, acknowledgement_batches: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for FetchPartition {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = FetchPartition::default();
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
impl crate::sample::Sample for FetchPartition {
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

/// `FetchTopic`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchTopic {
    /// Versions 1-2; map key.
    pub topic_id: Uuid,
    /// Versions 1-2.
    pub partitions: Vec<FetchPartition>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for FetchTopic {
    fn default() -> Self {
        FetchTopic { topic_id: Uuid::ZERO, partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for FetchTopic {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = FetchTopic::default();
        this.topic_id = d.uuid()?;
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
impl crate::sample::Sample for FetchTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_id = g.uuid();
        this.partitions = g.vec(|g| <FetchPartition as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ForgottenTopic`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct ForgottenTopic {
    /// Versions 1-2.
    pub topic_id: Uuid,
    /// Versions 1-2.
    pub partitions: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ForgottenTopic {
    fn default() -> Self {
        ForgottenTopic { topic_id: Uuid::ZERO, partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ForgottenTopic {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ForgottenTopic::default();
        this.topic_id = d.uuid()?;
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
        out.put_uuid(&self.topic_id);
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
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_id = g.uuid();
        this.partitions = g.vec(|g| g.i32());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
