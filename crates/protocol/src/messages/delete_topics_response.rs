//! `DeleteTopicsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DeleteTopicsResponse`, versions 1-6.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteTopicsResponse {
    /// Versions 1-6; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 1-6.
    pub responses: Vec<DeletableTopicResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DeleteTopicsResponse {
    fn default() -> Self {
        DeleteTopicsResponse { throttle_time_ms: 0, responses: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for DeleteTopicsResponse {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = DeleteTopicsResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.responses = d.array(flexible, DeletableTopicResult::ENCODED_SIZE_MIN, "responses", |d| {
            DeletableTopicResult::decode(d, version)
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
        let flexible = version >= 4;
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

impl Message for DeleteTopicsResponse {
    const NAME: &'static str = "DeleteTopicsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 6 };
    const FLEXIBLE_MIN: Option<i16> = Some(4);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DeleteTopicsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.responses = g.vec(|g| <DeletableTopicResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DeletableTopicResult`, versions 1-6.
#[derive(Debug, Clone, PartialEq)]
pub struct DeletableTopicResult {
    /// Versions 1-6; nullable 6; map key.
    pub name: Option<String>,
    /// Versions 6; ignorable.
    pub topic_id: Uuid,
    /// Versions 1-6.
    pub error_code: i16,
    /// Versions 5-6; nullable 5-6; ignorable.
    pub error_message: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DeletableTopicResult {
    fn default() -> Self {
        DeletableTopicResult {
            name: Some(String::new()),
            topic_id: Uuid::ZERO,
            error_code: 0,
            error_message: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DeletableTopicResult {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = DeletableTopicResult::default();
        this.name = if version >= 6 { d.nullable_string(flexible)? } else { Some(d.string(flexible, "name")?) };
        if version >= 6 {
            this.topic_id = d.uuid()?;
        }
        this.error_code = d.i16()?;
        if version >= 5 {
            this.error_message = d.nullable_string(flexible)?;
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
        let flexible = version >= 4;
        match &self.name {
            Some(value) => {
                out.put_string(flexible, value, "name")?;
            }
            None if version >= 6 => {
                out.put_length(flexible, true, None, "name")?;
            }
            None => {
                return Err(EncodeError::NullNotAllowed { field: "name", version });
            }
        }
        if version >= 6 {
            out.put_uuid(&self.topic_id);
        }
        out.put_i16(self.error_code);
        if version >= 5 {
            match &self.error_message {
                Some(value) => {
                    out.put_string(flexible, value, "error_message")?;
                }
                None => {
                    out.put_length(flexible, true, None, "error_message")?;
                }
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
impl crate::sample::Sample for DeletableTopicResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.name = if version >= 6 { g.nullable(|g| g.string()) } else { Some(g.string()) };
        if version >= 6 {
            this.topic_id = g.uuid();
        }
        this.error_code = g.i16();
        if version >= 5 {
            this.error_message = g.nullable(|g| g.string());
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
