//! `CreateAclsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `CreateAclsResponse`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateAclsResponse {
    /// Versions 1-3.
    pub throttle_time_ms: i32,
    /// Versions 1-3.
    pub results: Vec<AclCreationResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CreateAclsResponse {
    fn default() -> Self {
        CreateAclsResponse { throttle_time_ms: 0, results: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for CreateAclsResponse {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = CreateAclsResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.results = d.array(flexible, AclCreationResult::ENCODED_SIZE_MIN, "results", |d| {
            AclCreationResult::decode(d, version)
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
        let flexible = version >= 2;
        out.put_i32(self.throttle_time_ms);
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

impl Message for CreateAclsResponse {
    const NAME: &'static str = "CreateAclsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 3 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for CreateAclsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.results = g.vec(|g| <AclCreationResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AclCreationResult`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct AclCreationResult {
    /// Versions 1-3.
    pub error_code: i16,
    /// Versions 1-3; nullable 1-3.
    pub error_message: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AclCreationResult {
    fn default() -> Self {
        AclCreationResult { error_code: 0, error_message: Some(String::new()), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for AclCreationResult {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = AclCreationResult::default();
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
        let flexible = version >= 2;
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
impl crate::sample::Sample for AclCreationResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
