//! `BrokerRegistrationResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `BrokerRegistrationResponse`, versions 0-4.
#[derive(Debug, Clone, PartialEq)]
pub struct BrokerRegistrationResponse {
    /// Versions 0-4.
    pub throttle_time_ms: i32,
    /// Versions 0-4.
    pub error_code: i16,
    /// Versions 0-4.
    pub broker_epoch: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for BrokerRegistrationResponse {
    fn default() -> Self {
        BrokerRegistrationResponse {
            throttle_time_ms: 0,
            error_code: 0,
            broker_epoch: -1_i64,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for BrokerRegistrationResponse {
    const ENCODED_SIZE_MIN: usize = 15;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = BrokerRegistrationResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.broker_epoch = d.i64()?;
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
        out.put_i64(self.broker_epoch);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for BrokerRegistrationResponse {
    const NAME: &'static str = "BrokerRegistrationResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 4 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for BrokerRegistrationResponse {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.broker_epoch = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
