//! `InitProducerIdResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `InitProducerIdResponse`, versions 0-6.
#[derive(Debug, Clone, PartialEq)]
pub struct InitProducerIdResponse {
    /// Versions 0-6; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 0-6.
    pub error_code: i16,
    /// Versions 0-6.
    pub producer_id: ProducerId,
    /// Versions 0-6.
    pub producer_epoch: i16,
    /// Versions 6.
    pub ongoing_txn_producer_id: ProducerId,
    /// Versions 6.
    pub ongoing_txn_producer_epoch: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for InitProducerIdResponse {
    fn default() -> Self {
        InitProducerIdResponse {
            throttle_time_ms: 0,
            error_code: 0,
            producer_id: ProducerId(-1_i64),
            producer_epoch: 0,
            ongoing_txn_producer_id: ProducerId(-1_i64),
            ongoing_txn_producer_epoch: -1_i16,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for InitProducerIdResponse {
    const ENCODED_SIZE_MIN: usize = 16;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = InitProducerIdResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.producer_id = d.i64().map(ProducerId)?;
        this.producer_epoch = d.i16()?;
        if version >= 6 {
            this.ongoing_txn_producer_id = d.i64().map(ProducerId)?;
        }
        if version >= 6 {
            this.ongoing_txn_producer_epoch = d.i16()?;
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
        out.put_i32(self.throttle_time_ms);
        out.put_i16(self.error_code);
        out.put_i64(self.producer_id.0);
        out.put_i16(self.producer_epoch);
        if version >= 6 {
            out.put_i64(self.ongoing_txn_producer_id.0);
        } else {
            if self.ongoing_txn_producer_id != ProducerId(-1_i64) {
                return Err(EncodeError::FieldNotInVersion { field: "ongoing_txn_producer_id", version });
            }
        }
        if version >= 6 {
            out.put_i16(self.ongoing_txn_producer_epoch);
        } else {
            if self.ongoing_txn_producer_epoch != -1_i16 {
                return Err(EncodeError::FieldNotInVersion { field: "ongoing_txn_producer_epoch", version });
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

impl Message for InitProducerIdResponse {
    const NAME: &'static str = "InitProducerIdResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 5 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for InitProducerIdResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.producer_id = ProducerId(g.i64());
        this.producer_epoch = g.i16();
        if version >= 6 {
            this.ongoing_txn_producer_id = ProducerId(g.i64());
        }
        if version >= 6 {
            this.ongoing_txn_producer_epoch = g.i16();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
