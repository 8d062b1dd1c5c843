//! `AllocateProducerIdsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AllocateProducerIdsRequest`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct AllocateProducerIdsRequest {
    /// Versions 0.
    pub broker_id: BrokerId,
    /// Versions 0.
    pub broker_epoch: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AllocateProducerIdsRequest {
    fn default() -> Self {
        AllocateProducerIdsRequest { broker_id: BrokerId(0), broker_epoch: -1_i64, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for AllocateProducerIdsRequest {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AllocateProducerIdsRequest::default();
        this.broker_id = d.i32().map(BrokerId)?;
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
        out.put_i32(self.broker_id.0);
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

impl Message for AllocateProducerIdsRequest {
    const NAME: &'static str = "AllocateProducerIdsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AllocateProducerIdsRequest {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.broker_id = BrokerId(g.i32());
        this.broker_epoch = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
