//! `EnvelopeRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `EnvelopeRequest`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvelopeRequest {
    /// Versions 0.
    pub request_data: Bytes,
    /// Versions 0; nullable 0.
    pub request_principal: Option<Bytes>,
    /// Versions 0.
    pub client_host_address: Bytes,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for EnvelopeRequest {
    fn default() -> Self {
        EnvelopeRequest {
            request_data: Bytes::new(),
            request_principal: Some(Bytes::new()),
            client_host_address: Bytes::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for EnvelopeRequest {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = EnvelopeRequest::default();
        this.request_data = d.bytes(flexible, "request_data")?;
        this.request_principal = d.nullable_bytes(flexible)?;
        this.client_host_address = d.bytes(flexible, "client_host_address")?;
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
        out.put_bytes_field(flexible, &self.request_data, "request_data")?;
        match &self.request_principal {
            Some(value) => {
                out.put_bytes_field(flexible, value, "request_principal")?;
            }
            None => {
                out.put_length(flexible, false, None, "request_principal")?;
            }
        }
        out.put_bytes_field(flexible, &self.client_host_address, "client_host_address")?;
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for EnvelopeRequest {
    const NAME: &'static str = "EnvelopeRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for EnvelopeRequest {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.request_data = g.bytes();
        this.request_principal = g.nullable(|g| g.bytes());
        this.client_host_address = g.bytes();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
