//! `StreamsGroupTargetAssignmentMetadataValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `StreamsGroupTargetAssignmentMetadataValue`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsGroupTargetAssignmentMetadataValue {
    /// Versions 0.
    pub assignment_epoch: i32,
    /// Tagged only; tag 0 in 0+; ignorable.
    pub assignment_timestamp: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for StreamsGroupTargetAssignmentMetadataValue {
    fn default() -> Self {
        StreamsGroupTargetAssignmentMetadataValue {
            assignment_epoch: 0,
            assignment_timestamp: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for StreamsGroupTargetAssignmentMetadataValue {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = StreamsGroupTargetAssignmentMetadataValue::default();
        this.assignment_epoch = d.i32()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 => {
                        let d = &mut field;
                        this.assignment_timestamp = d.i64()?;
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
        out.put_i32(self.assignment_epoch);
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if self.assignment_timestamp != 0 {
                let out = tagged.field(0);
                out.put_i64(self.assignment_timestamp);
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for StreamsGroupTargetAssignmentMetadataValue {
    const NAME: &'static str = "StreamsGroupTargetAssignmentMetadataValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for StreamsGroupTargetAssignmentMetadataValue {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.assignment_epoch = g.i32();
        if g.bool() {
            this.assignment_timestamp = g.i64();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
