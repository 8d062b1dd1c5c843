//! `EndTxnRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `EndTxnRequest`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct EndTxnRequest {
    /// Versions 0-5.
    pub transactional_id: String,
    /// Versions 0-5.
    pub producer_id: ProducerId,
    /// Versions 0-5.
    pub producer_epoch: i16,
    /// Versions 0-5.
    pub committed: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for EndTxnRequest {
    fn default() -> Self {
        EndTxnRequest {
            transactional_id: String::new(),
            producer_id: ProducerId(0),
            producer_epoch: 0,
            committed: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for EndTxnRequest {
    const ENCODED_SIZE_MIN: usize = 12;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = EndTxnRequest::default();
        this.transactional_id = d.string(flexible, "transactional_id")?;
        this.producer_id = d.i64().map(ProducerId)?;
        this.producer_epoch = d.i16()?;
        this.committed = d.bool()?;
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
        out.put_string(flexible, &self.transactional_id, "transactional_id")?;
        out.put_i64(self.producer_id.0);
        out.put_i16(self.producer_epoch);
        out.put_bool(self.committed);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for EndTxnRequest {
    const NAME: &'static str = "EndTxnRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 5 };
    const FLEXIBLE_MIN: Option<i16> = Some(3);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for EndTxnRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        this.transactional_id = g.string();
        this.producer_id = ProducerId(g.i64());
        this.producer_epoch = g.i16();
        this.committed = g.bool();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
