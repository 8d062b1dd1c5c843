//! `ShareSnapshotValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ShareSnapshotValue`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareSnapshotValue {
    /// Versions 0.
    pub snapshot_epoch: i32,
    /// Versions 0.
    pub state_epoch: i32,
    /// Versions 0.
    pub leader_epoch: i32,
    /// Versions 0.
    pub start_offset: i64,
    /// Tagged only; tag 0 in 0+.
    pub delivery_complete_count: i32,
    /// Versions 0.
    pub create_timestamp: i64,
    /// Versions 0.
    pub write_timestamp: i64,
    /// Versions 0.
    pub state_batches: Vec<StateBatch>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ShareSnapshotValue {
    fn default() -> Self {
        ShareSnapshotValue {
            snapshot_epoch: 0,
            state_epoch: 0,
            leader_epoch: 0,
            start_offset: 0,
            delivery_complete_count: -1_i32,
            create_timestamp: 0,
            write_timestamp: 0,
            state_batches: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ShareSnapshotValue {
    const ENCODED_SIZE_MIN: usize = 38;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ShareSnapshotValue::default();
        this.snapshot_epoch = d.i32()?;
        this.state_epoch = d.i32()?;
        this.leader_epoch = d.i32()?;
        this.start_offset = d.i64()?;
        this.create_timestamp = d.i64()?;
        this.write_timestamp = d.i64()?;
        this.state_batches =
            d.array(flexible, StateBatch::ENCODED_SIZE_MIN, "state_batches", |d| StateBatch::decode(d, version))?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 => {
                        let d = &mut field;
                        this.delivery_complete_count = d.i32()?;
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
        out.put_i32(self.snapshot_epoch);
        out.put_i32(self.state_epoch);
        out.put_i32(self.leader_epoch);
        out.put_i64(self.start_offset);
        out.put_i64(self.create_timestamp);
        out.put_i64(self.write_timestamp);
        out.put_length(flexible, false, Some(self.state_batches.len()), "state_batches")?;
        for item in &self.state_batches {
            item.encode(out, version)?;
        }
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if self.delivery_complete_count != -1_i32 {
                let out = tagged.field(0);
                out.put_i32(self.delivery_complete_count);
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for ShareSnapshotValue {
    const NAME: &'static str = "ShareSnapshotValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ShareSnapshotValue {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.snapshot_epoch = g.i32();
        this.state_epoch = g.i32();
        this.leader_epoch = g.i32();
        this.start_offset = g.i64();
        if g.bool() {
            this.delivery_complete_count = g.i32();
        }
        this.create_timestamp = g.i64();
        this.write_timestamp = g.i64();
        this.state_batches = g.vec(|g| <StateBatch as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `StateBatch`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct StateBatch {
    /// Versions 0.
    pub first_offset: i64,
    /// Versions 0.
    pub last_offset: i64,
    /// Versions 0.
    pub delivery_state: i8,
    /// Versions 0.
    pub delivery_count: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for StateBatch {
    fn default() -> Self {
        StateBatch {
            first_offset: 0,
            last_offset: 0,
            delivery_state: 0,
            delivery_count: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for StateBatch {
    const ENCODED_SIZE_MIN: usize = 20;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = StateBatch::default();
        this.first_offset = d.i64()?;
        this.last_offset = d.i64()?;
        this.delivery_state = d.i8()?;
        this.delivery_count = d.i16()?;
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
        out.put_i64(self.first_offset);
        out.put_i64(self.last_offset);
        out.put_i8(self.delivery_state);
        out.put_i16(self.delivery_count);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for StateBatch {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.first_offset = g.i64();
        this.last_offset = g.i64();
        this.delivery_state = g.i8();
        this.delivery_count = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
