//! `BrokerRegistrationChangeRecord`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `BrokerRegistrationChangeRecord`, versions 0-3.
#[derive(Debug, Clone, PartialEq)]
pub struct BrokerRegistrationChangeRecord {
    /// Versions 0-3.
    pub broker_id: BrokerId,
    /// Versions 0-3.
    pub broker_epoch: i64,
    /// Tagged only; tag 0 in 0+.
    pub fenced: i8,
    /// Tagged only; tag 1 in 1+.
    pub in_controlled_shutdown: i8,
    /// Tagged only; tag 2 in 2+.
    pub log_dirs: Vec<Uuid>,
    /// Tagged only; nullable 3; tag 3 in 3+.
    pub cordoned_log_dirs: Option<Vec<Uuid>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for BrokerRegistrationChangeRecord {
    fn default() -> Self {
        BrokerRegistrationChangeRecord {
            broker_id: BrokerId(0),
            broker_epoch: 0,
            fenced: 0,
            in_controlled_shutdown: 0,
            log_dirs: Vec::new(),
            cordoned_log_dirs: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for BrokerRegistrationChangeRecord {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = BrokerRegistrationChangeRecord::default();
        this.broker_id = d.i32().map(BrokerId)?;
        this.broker_epoch = d.i64()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 => {
                        let d = &mut field;
                        this.fenced = d.i8()?;
                        d.finish_tagged(tag)?;
                    }
                    1 if version >= 1 => {
                        let d = &mut field;
                        this.in_controlled_shutdown = d.i8()?;
                        d.finish_tagged(tag)?;
                    }
                    2 if version >= 2 => {
                        let d = &mut field;
                        this.log_dirs = d.array(true, 16, "log_dirs", |d| d.uuid())?;
                        d.finish_tagged(tag)?;
                    }
                    3 if version >= 3 => {
                        let d = &mut field;
                        this.cordoned_log_dirs = d.nullable_array(true, 16, |d| d.uuid())?;
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
        out.put_i32(self.broker_id.0);
        out.put_i64(self.broker_epoch);
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if self.fenced != 0 {
                let out = tagged.field(0);
                out.put_i8(self.fenced);
            }
            if version >= 1 && self.in_controlled_shutdown != 0 {
                let out = tagged.field(1);
                out.put_i8(self.in_controlled_shutdown);
            } else {
                if self.in_controlled_shutdown != 0 {
                    return Err(EncodeError::FieldNotInVersion { field: "in_controlled_shutdown", version });
                }
            }
            if version >= 2 && !self.log_dirs.is_empty() {
                let out = tagged.field(2);
                out.put_length(true, false, Some(self.log_dirs.len()), "log_dirs")?;
                for item in &self.log_dirs {
                    out.put_uuid(item);
                }
            } else {
                if !self.log_dirs.is_empty() {
                    return Err(EncodeError::FieldNotInVersion { field: "log_dirs", version });
                }
            }
            if version >= 3 && self.cordoned_log_dirs.is_some() {
                let out = tagged.field(3);
                match &self.cordoned_log_dirs {
                    Some(value) => {
                        out.put_length(true, false, Some(value.len()), "cordoned_log_dirs")?;
                        for item in value {
                            out.put_uuid(item);
                        }
                    }
                    None => {
                        out.put_length(true, false, None, "cordoned_log_dirs")?;
                    }
                }
            } else {
                if self.cordoned_log_dirs.is_some() {
                    return Err(EncodeError::FieldNotInVersion { field: "cordoned_log_dirs", version });
                }
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for BrokerRegistrationChangeRecord {
    const NAME: &'static str = "BrokerRegistrationChangeRecord";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 3 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for BrokerRegistrationChangeRecord {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.broker_id = BrokerId(g.i32());
        this.broker_epoch = g.i64();
        if g.bool() {
            this.fenced = g.i8();
        }
        if version >= 1 && g.bool() {
            this.in_controlled_shutdown = g.i8();
        }
        if version >= 2 && g.bool() {
            this.log_dirs = g.vec(|g| g.uuid());
        }
        if version >= 3 && g.bool() {
            this.cordoned_log_dirs = g.nullable(|g| g.vec(|g| g.uuid()));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
