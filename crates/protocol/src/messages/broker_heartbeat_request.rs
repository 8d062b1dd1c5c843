//! `BrokerHeartbeatRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `BrokerHeartbeatRequest`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct BrokerHeartbeatRequest {
    /// Versions 0-2.
    pub broker_id: BrokerId,
    /// Versions 0-2.
    pub broker_epoch: i64,
    /// Versions 0-2.
    pub current_metadata_offset: i64,
    /// Versions 0-2.
    pub want_fence: bool,
    /// Versions 0-2.
    pub want_shut_down: bool,
    /// Tagged only; tag 0 in 1+.
    pub offline_log_dirs: Vec<Uuid>,
    /// Tagged only; nullable 2; tag 1 in 2+.
    pub cordoned_log_dirs: Option<Vec<Uuid>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for BrokerHeartbeatRequest {
    fn default() -> Self {
        BrokerHeartbeatRequest {
            broker_id: BrokerId(0),
            broker_epoch: -1_i64,
            current_metadata_offset: 0,
            want_fence: false,
            want_shut_down: false,
            offline_log_dirs: Vec::new(),
            cordoned_log_dirs: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for BrokerHeartbeatRequest {
    const ENCODED_SIZE_MIN: usize = 23;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = BrokerHeartbeatRequest::default();
        this.broker_id = d.i32().map(BrokerId)?;
        this.broker_epoch = d.i64()?;
        this.current_metadata_offset = d.i64()?;
        this.want_fence = d.bool()?;
        this.want_shut_down = d.bool()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 if version >= 1 => {
                        let d = &mut field;
                        this.offline_log_dirs = d.array(true, 16, "offline_log_dirs", |d| d.uuid())?;
                        d.finish_tagged(tag)?;
                    }
                    1 if version >= 2 => {
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
        out.put_i64(self.current_metadata_offset);
        out.put_bool(self.want_fence);
        out.put_bool(self.want_shut_down);
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if version >= 1 && !self.offline_log_dirs.is_empty() {
                let out = tagged.field(0);
                out.put_length(true, false, Some(self.offline_log_dirs.len()), "offline_log_dirs")?;
                for item in &self.offline_log_dirs {
                    out.put_uuid(item);
                }
            } else {
                if !self.offline_log_dirs.is_empty() {
                    return Err(EncodeError::FieldNotInVersion { field: "offline_log_dirs", version });
                }
            }
            if version >= 2 && self.cordoned_log_dirs.is_some() {
                let out = tagged.field(1);
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

impl Message for BrokerHeartbeatRequest {
    const NAME: &'static str = "BrokerHeartbeatRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for BrokerHeartbeatRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.broker_id = BrokerId(g.i32());
        this.broker_epoch = g.i64();
        this.current_metadata_offset = g.i64();
        this.want_fence = g.bool();
        this.want_shut_down = g.bool();
        if version >= 1 && g.bool() {
            this.offline_log_dirs = g.vec(|g| g.uuid());
        }
        if version >= 2 && g.bool() {
            this.cordoned_log_dirs = g.nullable(|g| g.vec(|g| g.uuid()));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
