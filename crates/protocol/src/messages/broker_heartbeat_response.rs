//! `BrokerHeartbeatResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `BrokerHeartbeatResponse`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct BrokerHeartbeatResponse {
    /// Versions 0-2.
    pub throttle_time_ms: i32,
    /// Versions 0-2.
    pub error_code: i16,
    /// Versions 0-2.
    pub is_caught_up: bool,
    /// Versions 0-2.
    pub is_fenced: bool,
    /// Versions 0-2.
    pub should_shut_down: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for BrokerHeartbeatResponse {
    fn default() -> Self {
        BrokerHeartbeatResponse {
            throttle_time_ms: 0,
            error_code: 0,
            is_caught_up: false,
            is_fenced: true,
            should_shut_down: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for BrokerHeartbeatResponse {
    const ENCODED_SIZE_MIN: usize = 10;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = BrokerHeartbeatResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.is_caught_up = d.bool()?;
        this.is_fenced = d.bool()?;
        this.should_shut_down = d.bool()?;
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
        out.put_bool(self.is_caught_up);
        out.put_bool(self.is_fenced);
        out.put_bool(self.should_shut_down);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for BrokerHeartbeatResponse {
    const NAME: &'static str = "BrokerHeartbeatResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for BrokerHeartbeatResponse {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.is_caught_up = g.bool();
        this.is_fenced = g.bool();
        this.should_shut_down = g.bool();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
