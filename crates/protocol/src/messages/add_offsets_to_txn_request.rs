//! `AddOffsetsToTxnRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AddOffsetsToTxnRequest`, versions 0-4.
#[derive(Debug, Clone, PartialEq)]
pub struct AddOffsetsToTxnRequest {
    /// Versions 0-4.
    pub transactional_id: String,
    /// Versions 0-4.
    pub producer_id: ProducerId,
    /// Versions 0-4.
    pub producer_epoch: i16,
    /// Versions 0-4.
    pub group_id: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AddOffsetsToTxnRequest {
    fn default() -> Self {
        AddOffsetsToTxnRequest {
            transactional_id: String::new(),
            producer_id: ProducerId(0),
            producer_epoch: 0,
            group_id: String::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AddOffsetsToTxnRequest {
    const ENCODED_SIZE_MIN: usize = 12;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = AddOffsetsToTxnRequest::default();
        this.transactional_id = d.string(flexible, "transactional_id")?;
        this.producer_id = d.i64().map(ProducerId)?;
        this.producer_epoch = d.i16()?;
        this.group_id = d.string(flexible, "group_id")?;
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
        out.put_string(flexible, &self.group_id, "group_id")?;
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for AddOffsetsToTxnRequest {
    const NAME: &'static str = "AddOffsetsToTxnRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 4 };
    const FLEXIBLE_MIN: Option<i16> = Some(3);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AddOffsetsToTxnRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        this.transactional_id = g.string();
        this.producer_id = ProducerId(g.i64());
        this.producer_epoch = g.i16();
        this.group_id = g.string();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
