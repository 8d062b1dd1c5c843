//! `AllocateProducerIdsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AllocateProducerIdsResponse`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct AllocateProducerIdsResponse {
    /// Versions 0.
    pub throttle_time_ms: i32,
    /// Versions 0.
    pub error_code: i16,
    /// Versions 0.
    pub producer_id_start: ProducerId,
    /// Versions 0.
    pub producer_id_len: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AllocateProducerIdsResponse {
    fn default() -> Self {
        AllocateProducerIdsResponse {
            throttle_time_ms: 0,
            error_code: 0,
            producer_id_start: ProducerId(0),
            producer_id_len: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AllocateProducerIdsResponse {
    const ENCODED_SIZE_MIN: usize = 19;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AllocateProducerIdsResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.producer_id_start = d.i64().map(ProducerId)?;
        this.producer_id_len = d.i32()?;
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
        out.put_i64(self.producer_id_start.0);
        out.put_i32(self.producer_id_len);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for AllocateProducerIdsResponse {
    const NAME: &'static str = "AllocateProducerIdsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AllocateProducerIdsResponse {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.producer_id_start = ProducerId(g.i64());
        this.producer_id_len = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
