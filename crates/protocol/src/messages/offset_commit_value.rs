//! `OffsetCommitValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `OffsetCommitValue`, versions 0-4.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetCommitValue {
    /// Versions 0-4.
    pub offset: i64,
    /// Versions 3-4; ignorable.
    pub leader_epoch: i32,
    /// Versions 0-4.
    pub metadata: String,
    /// Versions 0-4.
    pub commit_timestamp: i64,
    /// Versions 1; ignorable.
    pub expire_timestamp: i64,
    /// Tagged only; tag 0 in 4+; ignorable.
    pub topic_id: Uuid,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetCommitValue {
    fn default() -> Self {
        OffsetCommitValue {
            offset: 0,
            leader_epoch: -1_i32,
            metadata: String::new(),
            commit_timestamp: 0,
            expire_timestamp: -1_i64,
            topic_id: Uuid::ZERO,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for OffsetCommitValue {
    const ENCODED_SIZE_MIN: usize = 17;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = OffsetCommitValue::default();
        this.offset = d.i64()?;
        if version >= 3 {
            this.leader_epoch = d.i32()?;
        }
        this.metadata = d.string(flexible, "metadata")?;
        this.commit_timestamp = d.i64()?;
        if version == 1 {
            this.expire_timestamp = d.i64()?;
        }
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 if version >= 4 => {
                        let d = &mut field;
                        this.topic_id = d.uuid()?;
                        d.finish_tagged(tag)?;
                    }
                    _ => this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() }),
                }
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 4;
        out.put_i64(self.offset);
        if version >= 3 {
            out.put_i32(self.leader_epoch);
        }
        out.put_string(flexible, &self.metadata, "metadata")?;
        out.put_i64(self.commit_timestamp);
        if version == 1 {
            out.put_i64(self.expire_timestamp);
        }
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if version >= 4 && self.topic_id != Uuid::ZERO {
                let out = tagged.field(0);
                out.put_uuid(&self.topic_id);
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for OffsetCommitValue {
    const NAME: &'static str = "OffsetCommitValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 4 };
    const FLEXIBLE_MIN: Option<i16> = Some(4);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for OffsetCommitValue {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.offset = g.i64();
        if version >= 3 {
            this.leader_epoch = g.i32();
        }
        this.metadata = g.string();
        this.commit_timestamp = g.i64();
        if version == 1 {
            this.expire_timestamp = g.i64();
        }
        if version >= 4 && g.bool() {
            this.topic_id = g.uuid();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
