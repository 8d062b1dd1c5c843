//! `EnvelopeResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `EnvelopeResponse`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvelopeResponse {
    /// Versions 0; nullable 0.
    pub response_data: Option<Bytes>,
    /// Versions 0.
    pub error_code: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for EnvelopeResponse {
    fn default() -> Self {
        EnvelopeResponse { response_data: None, error_code: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for EnvelopeResponse {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = EnvelopeResponse::default();
        this.response_data = d.nullable_bytes(flexible)?;
        this.error_code = d.i16()?;
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
        match &self.response_data {
            Some(value) => {
                out.put_bytes_field(flexible, value, "response_data")?;
            }
            None => {
                out.put_length(flexible, false, None, "response_data")?;
            }
        }
        out.put_i16(self.error_code);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for EnvelopeResponse {
    const NAME: &'static str = "EnvelopeResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for EnvelopeResponse {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.response_data = g.nullable(|g| g.bytes());
        this.error_code = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
