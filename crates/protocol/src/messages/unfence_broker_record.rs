//! `UnfenceBrokerRecord`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `UnfenceBrokerRecord`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct UnfenceBrokerRecord {
    /// Versions 0.
    pub id: BrokerId,
    /// Versions 0.
    pub epoch: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for UnfenceBrokerRecord {
    fn default() -> Self {
        UnfenceBrokerRecord { id: BrokerId(0), epoch: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for UnfenceBrokerRecord {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = UnfenceBrokerRecord::default();
        this.id = d.i32().map(BrokerId)?;
        this.epoch = d.i64()?;
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
        out.put_i32(self.id.0);
        out.put_i64(self.epoch);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for UnfenceBrokerRecord {
    const NAME: &'static str = "UnfenceBrokerRecord";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for UnfenceBrokerRecord {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.id = BrokerId(g.i32());
        this.epoch = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
