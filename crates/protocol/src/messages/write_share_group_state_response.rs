//! `WriteShareGroupStateResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `WriteShareGroupStateResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteShareGroupStateResponse {
    /// Versions 0-1.
    pub results: Vec<WriteStateResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for WriteShareGroupStateResponse {
    fn default() -> Self {
        WriteShareGroupStateResponse { results: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for WriteShareGroupStateResponse {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = WriteShareGroupStateResponse::default();
        this.results =
            d.array(flexible, WriteStateResult::ENCODED_SIZE_MIN, "results", |d| WriteStateResult::decode(d, version))?;
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

impl Message for WriteShareGroupStateResponse {
    const NAME: &'static str = "WriteShareGroupStateResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for WriteShareGroupStateResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.results = g.vec(|g| <WriteStateResult as crate::sample::Sample>::sample(g, version));
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
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionResult {
    fn default() -> Self {
        PartitionResult { partition: 0, error_code: 0, error_message: None, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for PartitionResult {
    const ENCODED_SIZE_MIN: usize = 8;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = PartitionResult::default();
        this.partition = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
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
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition = g.i32();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `WriteStateResult`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteStateResult {
    /// Versions 0-1.
    pub topic_id: Uuid,
    /// Versions 0-1.
    pub partitions: Vec<PartitionResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for WriteStateResult {
    fn default() -> Self {
        WriteStateResult { topic_id: Uuid::ZERO, partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for WriteStateResult {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = WriteStateResult::default();
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
impl crate::sample::Sample for WriteStateResult {
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
