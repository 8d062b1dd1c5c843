//! `IncrementalAlterConfigsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `IncrementalAlterConfigsResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct IncrementalAlterConfigsResponse {
    /// Versions 0-1.
    pub throttle_time_ms: i32,
    /// Versions 0-1.
    pub responses: Vec<AlterConfigsResourceResponse>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for IncrementalAlterConfigsResponse {
    fn default() -> Self {
        IncrementalAlterConfigsResponse {
            throttle_time_ms: 0,
            responses: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for IncrementalAlterConfigsResponse {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = IncrementalAlterConfigsResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.responses = d.array(flexible, AlterConfigsResourceResponse::ENCODED_SIZE_MIN, "responses", |d| {
            AlterConfigsResourceResponse::decode(d, version)
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
        let flexible = version >= 1;
        out.put_i32(self.throttle_time_ms);
        out.put_length(flexible, false, Some(self.responses.len()), "responses")?;
        for item in &self.responses {
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

impl Message for IncrementalAlterConfigsResponse {
    const NAME: &'static str = "IncrementalAlterConfigsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(1);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for IncrementalAlterConfigsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.responses = g.vec(|g| <AlterConfigsResourceResponse as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AlterConfigsResourceResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterConfigsResourceResponse {
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1; nullable 0-1.
    pub error_message: Option<String>,
    /// Versions 0-1.
    pub resource_type: i8,
    /// Versions 0-1.
    pub resource_name: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AlterConfigsResourceResponse {
    fn default() -> Self {
        AlterConfigsResourceResponse {
            error_code: 0,
            error_message: Some(String::new()),
            resource_type: 0,
            resource_name: String::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AlterConfigsResourceResponse {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = AlterConfigsResourceResponse::default();
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.resource_type = d.i8()?;
        this.resource_name = d.string(flexible, "resource_name")?;
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
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
        out.put_i8(self.resource_type);
        out.put_string(flexible, &self.resource_name, "resource_name")?;
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
impl crate::sample::Sample for AlterConfigsResourceResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.resource_type = g.i8();
        this.resource_name = g.string();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
