//! `SnapshotHeaderRecord`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `SnapshotHeaderRecord`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotHeaderRecord {
    /// Versions 0.
    pub version: i16,
    /// Versions 0.
    pub last_contained_log_timestamp: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for SnapshotHeaderRecord {
    fn default() -> Self {
        SnapshotHeaderRecord { version: 0, last_contained_log_timestamp: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for SnapshotHeaderRecord {
    const ENCODED_SIZE_MIN: usize = 11;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = SnapshotHeaderRecord::default();
        this.version = d.i16()?;
        this.last_contained_log_timestamp = d.i64()?;
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
        out.put_i16(self.version);
        out.put_i64(self.last_contained_log_timestamp);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for SnapshotHeaderRecord {
    const NAME: &'static str = "SnapshotHeaderRecord";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for SnapshotHeaderRecord {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.version = g.i16();
        this.last_contained_log_timestamp = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
