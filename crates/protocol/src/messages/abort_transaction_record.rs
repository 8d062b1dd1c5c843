//! `AbortTransactionRecord`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AbortTransactionRecord`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct AbortTransactionRecord {
    /// Tagged only; nullable 0; tag 0 in 0+.
    pub reason: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AbortTransactionRecord {
    fn default() -> Self {
        AbortTransactionRecord { reason: None, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for AbortTransactionRecord {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AbortTransactionRecord::default();
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 => {
                        let d = &mut field;
                        this.reason = d.nullable_string(true)?;
                        d.finish_tagged(tag)?;
                    }
                    _ => this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() }),
                }
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = true;
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if self.reason.is_some() {
                let out = tagged.field(0);
                match &self.reason {
                    Some(value) => {
                        out.put_string(true, value, "reason")?;
                    }
                    None => {
                        out.put_length(true, true, None, "reason")?;
                    }
                }
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for AbortTransactionRecord {
    const NAME: &'static str = "AbortTransactionRecord";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AbortTransactionRecord {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        if g.bool() {
            this.reason = g.nullable(|g| g.string());
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
