//! `DeleteShareGroupOffsetsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DeleteShareGroupOffsetsResponse`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteShareGroupOffsetsResponse {
    /// Versions 0.
    pub throttle_time_ms: i32,
    /// Versions 0.
    pub error_code: i16,
    /// Versions 0; nullable 0.
    pub error_message: Option<String>,
    /// Versions 0.
    pub responses: Vec<DeleteShareGroupOffsetsResponseTopic>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DeleteShareGroupOffsetsResponse {
    fn default() -> Self {
        DeleteShareGroupOffsetsResponse {
            throttle_time_ms: 0,
            error_code: 0,
            error_message: None,
            responses: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DeleteShareGroupOffsetsResponse {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DeleteShareGroupOffsetsResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.responses =
            d.array(flexible, DeleteShareGroupOffsetsResponseTopic::ENCODED_SIZE_MIN, "responses", |d| {
                DeleteShareGroupOffsetsResponseTopic::decode(d, version)
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
        out.put_i32(self.throttle_time_ms);
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
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

impl Message for DeleteShareGroupOffsetsResponse {
    const NAME: &'static str = "DeleteShareGroupOffsetsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DeleteShareGroupOffsetsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.responses = g.vec(|g| <DeleteShareGroupOffsetsResponseTopic as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DeleteShareGroupOffsetsResponseTopic`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteShareGroupOffsetsResponseTopic {
    /// Versions 0.
    pub topic_name: String,
    /// Versions 0.
    pub topic_id: Uuid,
    /// Versions 0.
    pub error_code: i16,
    /// Versions 0; nullable 0.
    pub error_message: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DeleteShareGroupOffsetsResponseTopic {
    fn default() -> Self {
        DeleteShareGroupOffsetsResponseTopic {
            topic_name: String::new(),
            topic_id: Uuid::ZERO,
            error_code: 0,
            error_message: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DeleteShareGroupOffsetsResponseTopic {
    const ENCODED_SIZE_MIN: usize = 21;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DeleteShareGroupOffsetsResponseTopic::default();
        this.topic_name = d.string(flexible, "topic_name")?;
        this.topic_id = d.uuid()?;
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
        out.put_string(flexible, &self.topic_name, "topic_name")?;
        out.put_uuid(&self.topic_id);
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
impl crate::sample::Sample for DeleteShareGroupOffsetsResponseTopic {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_name = g.string();
        this.topic_id = g.uuid();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
