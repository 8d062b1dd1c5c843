//! `ReadShareGroupStateSummaryResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ReadShareGroupStateSummaryResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadShareGroupStateSummaryResponse {
    /// Versions 0-1.
    pub results: Vec<ReadStateSummaryResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ReadShareGroupStateSummaryResponse {
    fn default() -> Self {
        ReadShareGroupStateSummaryResponse { results: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ReadShareGroupStateSummaryResponse {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ReadShareGroupStateSummaryResponse::default();
        this.results = d.array(flexible, ReadStateSummaryResult::ENCODED_SIZE_MIN, "results", |d| {
            ReadStateSummaryResult::decode(d, version)
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

impl Message for ReadShareGroupStateSummaryResponse {
    const NAME: &'static str = "ReadShareGroupStateSummaryResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ReadShareGroupStateSummaryResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.results = g.vec(|g| <ReadStateSummaryResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `PartitionResult`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionResult {
    /// Versions 0-1.
    pub partition: i32,
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1; nullable 0-1.
    pub error_message: Option<String>,
    /// Versions 0-1.
    pub state_epoch: i32,
    /// Versions 0-1.
    pub leader_epoch: i32,
    /// Versions 0-1.
    pub start_offset: i64,
    /// Versions 1; ignorable.
    pub delivery_complete_count: i32,
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
            leader_epoch: 0,
            start_offset: 0,
            delivery_complete_count: -1_i32,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionResult {
    const ENCODED_SIZE_MIN: usize = 24;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = PartitionResult::default();
        this.partition = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.state_epoch = d.i32()?;
        this.leader_epoch = d.i32()?;
        this.start_offset = d.i64()?;
        if version >= 1 {
            this.delivery_complete_count = d.i32()?;
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
        out.put_i32(self.leader_epoch);
        out.put_i64(self.start_offset);
        if version >= 1 {
            out.put_i32(self.delivery_complete_count);
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
        this.leader_epoch = g.i32();
        this.start_offset = g.i64();
        if version >= 1 {
            this.delivery_complete_count = g.i32();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ReadStateSummaryResult`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadStateSummaryResult {
    /// Versions 0-1.
    pub topic_id: Uuid,
    /// Versions 0-1.
    pub partitions: Vec<PartitionResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ReadStateSummaryResult {
    fn default() -> Self {
        ReadStateSummaryResult { topic_id: Uuid::ZERO, partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ReadStateSummaryResult {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ReadStateSummaryResult::default();
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
impl crate::sample::Sample for ReadStateSummaryResult {
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
