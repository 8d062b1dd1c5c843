//! `PartitionChangeRecord`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `PartitionChangeRecord`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionChangeRecord {
    /// Versions 0-2.
    pub partition_id: i32,
    /// Versions 0-2.
    pub topic_id: Uuid,
    /// Tagged only; nullable 0-2; tag 0 in 0+.
    pub isr: Option<Vec<BrokerId>>,
    /// Tagged only; tag 1 in 0+.
    pub leader: BrokerId,
    /// Tagged only; nullable 0-2; tag 2 in 0+.
    pub replicas: Option<Vec<BrokerId>>,
    /// Tagged only; nullable 0-2; tag 3 in 0+.
    pub removing_replicas: Option<Vec<BrokerId>>,
    /// Tagged only; nullable 0-2; tag 4 in 0+.
    pub adding_replicas: Option<Vec<BrokerId>>,
    /// Tagged only; tag 5 in 0+.
    pub leader_recovery_state: i8,
    /// Tagged only; nullable 1-2; tag 8 in 1+.
    pub directories: Option<Vec<Uuid>>,
    /// Tagged only; nullable 2; tag 6 in 2+.
    pub eligible_leader_replicas: Option<Vec<BrokerId>>,
    /// Tagged only; nullable 2; tag 7 in 2+.
    pub last_known_elr: Option<Vec<BrokerId>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionChangeRecord {
    fn default() -> Self {
        PartitionChangeRecord {
            partition_id: -1_i32,
            topic_id: Uuid::ZERO,
            isr: None,
            leader: BrokerId(-2_i32),
            replicas: None,
            removing_replicas: None,
            adding_replicas: None,
            leader_recovery_state: -1_i8,
            directories: None,
            eligible_leader_replicas: None,
            last_known_elr: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionChangeRecord {
    const ENCODED_SIZE_MIN: usize = 21;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = PartitionChangeRecord::default();
        this.partition_id = d.i32()?;
        this.topic_id = d.uuid()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 => {
                        let d = &mut field;
                        this.isr = d.nullable_array(true, 4, |d| d.i32().map(BrokerId))?;
                        d.finish_tagged(tag)?;
                    }
                    1 => {
                        let d = &mut field;
                        this.leader = d.i32().map(BrokerId)?;
                        d.finish_tagged(tag)?;
                    }
                    2 => {
                        let d = &mut field;
                        this.replicas = d.nullable_array(true, 4, |d| d.i32().map(BrokerId))?;
                        d.finish_tagged(tag)?;
                    }
                    3 => {
                        let d = &mut field;
                        this.removing_replicas = d.nullable_array(true, 4, |d| d.i32().map(BrokerId))?;
                        d.finish_tagged(tag)?;
                    }
                    4 => {
                        let d = &mut field;
                        this.adding_replicas = d.nullable_array(true, 4, |d| d.i32().map(BrokerId))?;
                        d.finish_tagged(tag)?;
                    }
                    5 => {
                        let d = &mut field;
                        this.leader_recovery_state = d.i8()?;
                        d.finish_tagged(tag)?;
                    }
                    8 if version >= 1 => {
                        let d = &mut field;
                        this.directories = d.nullable_array(true, 16, |d| d.uuid())?;
                        d.finish_tagged(tag)?;
                    }
                    6 if version >= 2 => {
                        let d = &mut field;
                        this.eligible_leader_replicas = d.nullable_array(true, 4, |d| d.i32().map(BrokerId))?;
                        d.finish_tagged(tag)?;
                    }
                    7 if version >= 2 => {
                        let d = &mut field;
                        this.last_known_elr = d.nullable_array(true, 4, |d| d.i32().map(BrokerId))?;
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
        out.put_i32(self.partition_id);
        out.put_uuid(&self.topic_id);
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if self.isr.is_some() {
                let out = tagged.field(0);
                match &self.isr {
                    Some(value) => {
                        out.put_length(true, false, Some(value.len()), "isr")?;
                        for item in value {
                            out.put_i32(item.0);
                        }
                    }
                    None => {
                        out.put_length(true, false, None, "isr")?;
                    }
                }
            }
            if self.leader != BrokerId(-2_i32) {
                let out = tagged.field(1);
                out.put_i32(self.leader.0);
            }
            if self.replicas.is_some() {
                let out = tagged.field(2);
                match &self.replicas {
                    Some(value) => {
                        out.put_length(true, false, Some(value.len()), "replicas")?;
                        for item in value {
                            out.put_i32(item.0);
                        }
                    }
                    None => {
                        out.put_length(true, false, None, "replicas")?;
                    }
                }
            }
            if self.removing_replicas.is_some() {
                let out = tagged.field(3);
                match &self.removing_replicas {
                    Some(value) => {
                        out.put_length(true, false, Some(value.len()), "removing_replicas")?;
                        for item in value {
                            out.put_i32(item.0);
                        }
                    }
                    None => {
                        out.put_length(true, false, None, "removing_replicas")?;
                    }
                }
            }
            if self.adding_replicas.is_some() {
                let out = tagged.field(4);
                match &self.adding_replicas {
                    Some(value) => {
                        out.put_length(true, false, Some(value.len()), "adding_replicas")?;
                        for item in value {
                            out.put_i32(item.0);
                        }
                    }
                    None => {
                        out.put_length(true, false, None, "adding_replicas")?;
                    }
                }
            }
            if self.leader_recovery_state != -1_i8 {
                let out = tagged.field(5);
                out.put_i8(self.leader_recovery_state);
            }
            if version >= 1 && self.directories.is_some() {
                let out = tagged.field(8);
                match &self.directories {
                    Some(value) => {
                        out.put_length(true, false, Some(value.len()), "directories")?;
                        for item in value {
                            out.put_uuid(item);
                        }
                    }
                    None => {
                        out.put_length(true, false, None, "directories")?;
                    }
                }
            } else {
                if self.directories.is_some() {
                    return Err(EncodeError::FieldNotInVersion { field: "directories", version });
                }
            }
            if version >= 2 && self.eligible_leader_replicas.is_some() {
                let out = tagged.field(6);
                match &self.eligible_leader_replicas {
                    Some(value) => {
                        out.put_length(true, false, Some(value.len()), "eligible_leader_replicas")?;
                        for item in value {
                            out.put_i32(item.0);
                        }
                    }
                    None => {
                        out.put_length(true, false, None, "eligible_leader_replicas")?;
                    }
                }
            } else {
                if self.eligible_leader_replicas.is_some() {
                    return Err(EncodeError::FieldNotInVersion { field: "eligible_leader_replicas", version });
                }
            }
            if version >= 2 && self.last_known_elr.is_some() {
                let out = tagged.field(7);
                match &self.last_known_elr {
                    Some(value) => {
                        out.put_length(true, false, Some(value.len()), "last_known_elr")?;
                        for item in value {
                            out.put_i32(item.0);
                        }
                    }
                    None => {
                        out.put_length(true, false, None, "last_known_elr")?;
                    }
                }
            } else {
                if self.last_known_elr.is_some() {
                    return Err(EncodeError::FieldNotInVersion { field: "last_known_elr", version });
                }
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for PartitionChangeRecord {
    const NAME: &'static str = "PartitionChangeRecord";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for PartitionChangeRecord {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition_id = g.i32();
        this.topic_id = g.uuid();
        if g.bool() {
            this.isr = g.nullable(|g| g.vec(|g| BrokerId(g.i32())));
        }
        if g.bool() {
            this.leader = BrokerId(g.i32());
        }
        if g.bool() {
            this.replicas = g.nullable(|g| g.vec(|g| BrokerId(g.i32())));
        }
        if g.bool() {
            this.removing_replicas = g.nullable(|g| g.vec(|g| BrokerId(g.i32())));
        }
        if g.bool() {
            this.adding_replicas = g.nullable(|g| g.vec(|g| BrokerId(g.i32())));
        }
        if g.bool() {
            this.leader_recovery_state = g.i8();
        }
        if version >= 1 && g.bool() {
            this.directories = g.nullable(|g| g.vec(|g| g.uuid()));
        }
        if version >= 2 && g.bool() {
            this.eligible_leader_replicas = g.nullable(|g| g.vec(|g| BrokerId(g.i32())));
        }
        if version >= 2 && g.bool() {
            this.last_known_elr = g.nullable(|g| g.vec(|g| BrokerId(g.i32())));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
