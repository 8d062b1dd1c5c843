//! `WriteShareGroupStateRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `WriteShareGroupStateRequest`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteShareGroupStateRequest {
    /// Versions 0-1.
    pub group_id: String,
    /// Versions 0-1.
    pub topics: Vec<WriteStateData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for WriteShareGroupStateRequest {
    fn default() -> Self {
        WriteShareGroupStateRequest { group_id: String::new(), topics: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for WriteShareGroupStateRequest {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = WriteShareGroupStateRequest::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.topics =
            d.array(flexible, WriteStateData::ENCODED_SIZE_MIN, "topics", |d| WriteStateData::decode(d, version))?;
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
        out.put_string(flexible, &self.group_id, "group_id")?;
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

impl Message for WriteShareGroupStateRequest {
    const NAME: &'static str = "WriteShareGroupStateRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for WriteShareGroupStateRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.group_id = g.string();
        this.topics = g.vec(|g| <WriteStateData as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `StateBatch`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct StateBatch {
    /// Versions 0-1.
    pub first_offset: i64,
    /// Versions 0-1.
    pub last_offset: i64,
    /// Versions 0-1.
    pub delivery_state: i8,
    /// Versions 0-1.
    pub delivery_count: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for StateBatch {
    fn default() -> Self {
        StateBatch {
            first_offset: 0,
            last_offset: 0,
            delivery_state: 0,
            delivery_count: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for StateBatch {
    const ENCODED_SIZE_MIN: usize = 20;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = StateBatch::default();
        this.first_offset = d.i64()?;
        this.last_offset = d.i64()?;
        this.delivery_state = d.i8()?;
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
        out.put_i8(self.delivery_state);
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
impl crate::sample::Sample for StateBatch {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.first_offset = g.i64();
        this.last_offset = g.i64();
        this.delivery_state = g.i8();
        this.delivery_count = g.i16();
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
    pub partition: i32,
    /// Versions 0-1.
    pub state_epoch: i32,
    /// Versions 0-1.
    pub leader_epoch: i32,
    /// Versions 0-1.
    pub start_offset: i64,
    /// Versions 1; ignorable.
    pub delivery_complete_count: i32,
    /// Versions 0-1.
    pub state_batches: Vec<StateBatch>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionData {
    fn default() -> Self {
        PartitionData {
            partition: 0,
            state_epoch: 0,
            leader_epoch: 0,
            start_offset: 0,
            delivery_complete_count: -1_i32,
            state_batches: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionData {
    const ENCODED_SIZE_MIN: usize = 22;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = PartitionData::default();
        this.partition = d.i32()?;
        this.state_epoch = d.i32()?;
        this.leader_epoch = d.i32()?;
        this.start_offset = d.i64()?;
        if version >= 1 {
            this.delivery_complete_count = d.i32()?;
        }
        this.state_batches =
            d.array(flexible, StateBatch::ENCODED_SIZE_MIN, "state_batches", |d| StateBatch::decode(d, version))?;
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
        out.put_i32(self.partition);
        out.put_i32(self.state_epoch);
        out.put_i32(self.leader_epoch);
        out.put_i64(self.start_offset);
        if version >= 1 {
            out.put_i32(self.delivery_complete_count);
        }
        out.put_length(flexible, false, Some(self.state_batches.len()), "state_batches")?;
        for item in &self.state_batches {
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
        this.partition = g.i32();
        this.state_epoch = g.i32();
        this.leader_epoch = g.i32();
        this.start_offset = g.i64();
        if version >= 1 {
            this.delivery_complete_count = g.i32();
        }
        this.state_batches = g.vec(|g| <StateBatch as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `WriteStateData`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteStateData {
    /// Versions 0-1.
    pub topic_id: Uuid,
    /// Versions 0-1.
    pub partitions: Vec<PartitionData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for WriteStateData {
    fn default() -> Self {
        WriteStateData { topic_id: Uuid::ZERO, partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for WriteStateData {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = WriteStateData::default();
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
impl crate::sample::Sample for WriteStateData {
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
