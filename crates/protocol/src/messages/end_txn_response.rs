//! `EndTxnResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `EndTxnResponse`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct EndTxnResponse {
    /// Versions 0-5.
    pub throttle_time_ms: i32,
    /// Versions 0-5.
    pub error_code: i16,
    /// Versions 5; ignorable.
    pub producer_id: ProducerId,
    /// Versions 5; ignorable.
    pub producer_epoch: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for EndTxnResponse {
    fn default() -> Self {
        EndTxnResponse {
            throttle_time_ms: 0,
            error_code: 0,
            producer_id: ProducerId(-1_i64),
            producer_epoch: -1_i16,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for EndTxnResponse {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = EndTxnResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        if version >= 5 {
            this.producer_id = d.i64().map(ProducerId)?;
        }
        if version >= 5 {
            this.producer_epoch = d.i16()?;
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
        let flexible = version >= 3;
        out.put_i32(self.throttle_time_ms);
        out.put_i16(self.error_code);
        if version >= 5 {
            out.put_i64(self.producer_id.0);
        }
        if version >= 5 {
            out.put_i16(self.producer_epoch);
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

impl Message for EndTxnResponse {
    const NAME: &'static str = "EndTxnResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 5 };
    const FLEXIBLE_MIN: Option<i16> = Some(3);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for EndTxnResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        if version >= 5 {
            this.producer_id = ProducerId(g.i64());
        }
        if version >= 5 {
            this.producer_epoch = g.i16();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
