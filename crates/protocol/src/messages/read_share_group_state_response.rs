//! `ReadShareGroupStateResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ReadShareGroupStateResponse`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadShareGroupStateResponse {
    /// Versions 0.
    pub results: Vec<ReadStateResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ReadShareGroupStateResponse {
    fn default() -> Self {
        ReadShareGroupStateResponse { results: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ReadShareGroupStateResponse {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ReadShareGroupStateResponse::default();
        this.results =
            d.array(flexible, ReadStateResult::ENCODED_SIZE_MIN, "results", |d| ReadStateResult::decode(d, version))?;
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
        out.put_length(flexible, false, Some(self.results.len()), "results")?;
        for item in &self.results {
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

impl Message for ReadShareGroupStateResponse {
    const NAME: &'static str = "ReadShareGroupStateResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ReadShareGroupStateResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.results = g.vec(|g| <ReadStateResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `StateBatch`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct StateBatch {
    /// Versions 0.
    pub first_offset: i64,
    /// Versions 0.
    pub last_offset: i64,
    /// Versions 0.
    pub delivery_state: i8,
    /// Versions 0.
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

/// `PartitionResult`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionResult {
    /// Versions 0.
    pub partition: i32,
    /// Versions 0.
    pub error_code: i16,
    /// Versions 0; nullable 0.
    pub error_message: Option<String>,
    /// Versions 0.
    pub state_epoch: i32,
    /// Versions 0.
    pub start_offset: i64,
    /// Versions 0.
    pub state_batches: Vec<StateBatch>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionResult {
    fn default() -> Self {
        PartitionResult {
            partition: 0,
            error_code: 0,
            error_message: None,
            state_epoch: 0,
            start_offset: 0,
            state_batches: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionResult {
    const ENCODED_SIZE_MIN: usize = 21;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = PartitionResult::default();
        this.partition = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.state_epoch = d.i32()?;
        this.start_offset = d.i64()?;
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
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
        out.put_i32(self.state_epoch);
        out.put_i64(self.start_offset);
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
impl crate::sample::Sample for PartitionResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition = g.i32();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.state_epoch = g.i32();
        this.start_offset = g.i64();
        this.state_batches = g.vec(|g| <StateBatch as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ReadStateResult`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadStateResult {
    /// Versions 0.
    pub topic_id: Uuid,
    /// Versions 0.
    pub partitions: Vec<PartitionResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ReadStateResult {
    fn default() -> Self {
        ReadStateResult { topic_id: Uuid::ZERO, partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ReadStateResult {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ReadStateResult::default();
        this.topic_id = d.uuid()?;
        this.partitions = d.array(flexible, PartitionResult::ENCODED_SIZE_MIN, "partitions", |d| {
            PartitionResult::decode(d, version)
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
impl crate::sample::Sample for ReadStateResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_id = g.uuid();
        this.partitions = g.vec(|g| <PartitionResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
