//! `SaslAuthenticateResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `SaslAuthenticateResponse`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct SaslAuthenticateResponse {
    /// Versions 0-2.
    pub error_code: i16,
    /// Versions 0-2; nullable 0-2.
    pub error_message: Option<String>,
    /// Versions 0-2.
    pub auth_bytes: Bytes,
    /// Versions 1-2; ignorable.
    pub session_lifetime_ms: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for SaslAuthenticateResponse {
    fn default() -> Self {
        SaslAuthenticateResponse {
            error_code: 0,
            error_message: Some(String::new()),
            auth_bytes: Bytes::new(),
            session_lifetime_ms: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for SaslAuthenticateResponse {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = SaslAuthenticateResponse::default();
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.auth_bytes = d.bytes(flexible, "auth_bytes")?;
        if version >= 1 {
            this.session_lifetime_ms = d.i64()?;
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
        out.put_bytes_field(flexible, &self.auth_bytes, "auth_bytes")?;
        if version >= 1 {
            out.put_i64(self.session_lifetime_ms);
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

impl Message for SaslAuthenticateResponse {
    const NAME: &'static str = "SaslAuthenticateResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for SaslAuthenticateResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.auth_bytes = g.bytes();
        if version >= 1 {
            this.session_lifetime_ms = g.i64();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
