//! `RenewDelegationTokenRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `RenewDelegationTokenRequest`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct RenewDelegationTokenRequest {
    /// Versions 1-2.
    pub hmac: Bytes,
    /// Versions 1-2.
    pub renew_period_ms: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for RenewDelegationTokenRequest {
    fn default() -> Self {
        RenewDelegationTokenRequest { hmac: Bytes::new(), renew_period_ms: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for RenewDelegationTokenRequest {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = RenewDelegationTokenRequest::default();
        this.hmac = d.bytes(flexible, "hmac")?;
        this.renew_period_ms = d.i64()?;
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
        out.put_bytes_field(flexible, &self.hmac, "hmac")?;
        out.put_i64(self.renew_period_ms);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for RenewDelegationTokenRequest {
    const NAME: &'static str = "RenewDelegationTokenRequest";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for RenewDelegationTokenRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.hmac = g.bytes();
        this.renew_period_ms = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
