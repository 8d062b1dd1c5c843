//! `RenewDelegationTokenResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `RenewDelegationTokenResponse`, versions 1-2.
#[derive(Debug, Clone, PartialEq)]
pub struct RenewDelegationTokenResponse {
    /// Versions 1-2.
    pub error_code: i16,
    /// Versions 1-2.
    pub expiry_timestamp_ms: i64,
    /// Versions 1-2.
    pub throttle_time_ms: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for RenewDelegationTokenResponse {
    fn default() -> Self {
        RenewDelegationTokenResponse {
            error_code: 0,
            expiry_timestamp_ms: 0,
            throttle_time_ms: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for RenewDelegationTokenResponse {
    const ENCODED_SIZE_MIN: usize = 14;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = RenewDelegationTokenResponse::default();
        this.error_code = d.i16()?;
        this.expiry_timestamp_ms = d.i64()?;
        this.throttle_time_ms = d.i32()?;
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
        out.put_i64(self.expiry_timestamp_ms);
        out.put_i32(self.throttle_time_ms);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for RenewDelegationTokenResponse {
    const NAME: &'static str = "RenewDelegationTokenResponse";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for RenewDelegationTokenResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.expiry_timestamp_ms = g.i64();
        this.throttle_time_ms = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
