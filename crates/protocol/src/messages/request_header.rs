//! `RequestHeader`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `RequestHeader`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestHeader {
    /// Versions 1-2.
    pub request_api_key: i16,
    /// Versions 1-2.
    pub request_api_version: i16,
    /// Versions 1-2.
    pub correlation_id: i32,
    /// Versions 1-2; nullable 1-2.
    pub client_id: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for RequestHeader {
    fn default() -> Self {
        RequestHeader {
            request_api_key: 0,
            request_api_version: 0,
            correlation_id: 0,
            client_id: Some(String::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for RequestHeader {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = RequestHeader::default();
        this.request_api_key = d.i16()?;
        this.request_api_version = d.i16()?;
        this.correlation_id = d.i32()?;
        this.client_id = d.nullable_string(false)?;
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
        out.put_i16(self.request_api_key);
        out.put_i16(self.request_api_version);
        out.put_i32(self.correlation_id);
        match &self.client_id {
            Some(value) => {
                out.put_string(false, value, "client_id")?;
            }
            None => {
                out.put_length(false, true, None, "client_id")?;
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

impl Message for RequestHeader {
    const NAME: &'static str = "RequestHeader";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for RequestHeader {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.request_api_key = g.i16();
        this.request_api_version = g.i16();
        this.correlation_id = g.i32();
        this.client_id = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
