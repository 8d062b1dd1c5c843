//! `PartitionRecord`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `PartitionRecord`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionRecord {
    /// Versions 0-2.
    pub partition_id: i32,
    /// Versions 0-2.
    pub topic_id: Uuid,
    /// Versions 0-2.
    pub replicas: Vec<BrokerId>,
    /// Versions 0-2.
    pub isr: Vec<i32>,
    /// Versions 0-2.
    pub removing_replicas: Vec<BrokerId>,
    /// Versions 0-2.
    pub adding_replicas: Vec<BrokerId>,
    /// Versions 0-2.
    pub leader: BrokerId,
    /// Tagged only; tag 0 in 0+.
    pub leader_recovery_state: i8,
    /// Versions 0-2.
    pub leader_epoch: i32,
    /// Versions 0-2.
    pub partition_epoch: i32,
    /// Versions 1-2.
    pub directories: Vec<Uuid>,
    /// Tagged only; nullable 2; tag 1 in 2+.
    pub eligible_leader_replicas: Option<Vec<BrokerId>>,
    /// Tagged only; nullable 2; tag 2 in 2+.
    pub last_known_elr: Option<Vec<BrokerId>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionRecord {
    fn default() -> Self {
        PartitionRecord {
            partition_id: -1_i32,
            topic_id: Uuid::ZERO,
            replicas: Vec::new(),
            isr: Vec::new(),
            removing_replicas: Vec::new(),
            adding_replicas: Vec::new(),
            leader: BrokerId(-1_i32),
            leader_recovery_state: 0,
            leader_epoch: -1_i32,
            partition_epoch: -1_i32,
            directories: Vec::new(),
            eligible_leader_replicas: None,
            last_known_elr: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionRecord {
    const ENCODED_SIZE_MIN: usize = 37;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = PartitionRecord::default();
        this.partition_id = d.i32()?;
        this.topic_id = d.uuid()?;
        this.replicas = d.array(flexible, 4, "replicas", |d| d.i32().map(BrokerId))?;
        this.isr = d.array(flexible, 4, "isr", |d| d.i32())?;
        this.removing_replicas = d.array(flexible, 4, "removing_replicas", |d| d.i32().map(BrokerId))?;
        this.adding_replicas = d.array(flexible, 4, "adding_replicas", |d| d.i32().map(BrokerId))?;
        this.leader = d.i32().map(BrokerId)?;
        this.leader_epoch = d.i32()?;
        this.partition_epoch = d.i32()?;
        if version >= 1 {
            this.directories = d.array(flexible, 16, "directories", |d| d.uuid())?;
        }
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 => {
                        let d = &mut field;
                        this.leader_recovery_state = d.i8()?;
                        d.finish_tagged(tag)?;
                    }
                    1 if version >= 2 => {
                        let d = &mut field;
                        this.eligible_leader_replicas = d.nullable_array(true, 4, |d| d.i32().map(BrokerId))?;
                        d.finish_tagged(tag)?;
                    }
                    2 if version >= 2 => {
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
        out.put_length(flexible, false, Some(self.replicas.len()), "replicas")?;
        for item in &self.replicas {
            out.put_i32(item.0);
        }
        out.put_length(flexible, false, Some(self.isr.len()), "isr")?;
        for item in &self.isr {
            out.put_i32(*item);
        }
        out.put_length(flexible, false, Some(self.removing_replicas.len()), "removing_replicas")?;
        for item in &self.removing_replicas {
            out.put_i32(item.0);
        }
        out.put_length(flexible, false, Some(self.adding_replicas.len()), "adding_replicas")?;
        for item in &self.adding_replicas {
            out.put_i32(item.0);
        }
        out.put_i32(self.leader.0);
        out.put_i32(self.leader_epoch);
        out.put_i32(self.partition_epoch);
        if version >= 1 {
            out.put_length(flexible, false, Some(self.directories.len()), "directories")?;
            for item in &self.directories {
                out.put_uuid(item);
            }
        } else {
            if !self.directories.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "directories", version });
            }
        }
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if self.leader_recovery_state != 0 {
                let out = tagged.field(0);
                out.put_i8(self.leader_recovery_state);
            }
            if version >= 2 && self.eligible_leader_replicas.is_some() {
                let out = tagged.field(1);
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
                let out = tagged.field(2);
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

impl Message for PartitionRecord {
    const NAME: &'static str = "PartitionRecord";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for PartitionRecord {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition_id = g.i32();
        this.topic_id = g.uuid();
        this.replicas = g.vec(|g| BrokerId(g.i32()));
        this.isr = g.vec(|g| g.i32());
        this.removing_replicas = g.vec(|g| BrokerId(g.i32()));
        this.adding_replicas = g.vec(|g| BrokerId(g.i32()));
        this.leader = BrokerId(g.i32());
        if g.bool() {
            this.leader_recovery_state = g.i8();
        }
        this.leader_epoch = g.i32();
        this.partition_epoch = g.i32();
        if version >= 1 {
            this.directories = g.vec(|g| g.uuid());
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
