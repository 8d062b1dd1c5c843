//! `StreamsGroupCurrentMemberAssignmentValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `StreamsGroupCurrentMemberAssignmentValue`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsGroupCurrentMemberAssignmentValue {
    /// Versions 0.
    pub member_epoch: i32,
    /// Versions 0.
    pub previous_member_epoch: i32,
    /// Versions 0.
    pub state: i8,
    /// Versions 0.
    pub active_tasks: Vec<TaskIds>,
    /// Versions 0.
    pub standby_tasks: Vec<TaskIds>,
    /// Versions 0.
    pub warmup_tasks: Vec<TaskIds>,
    /// Versions 0.
    pub active_tasks_pending_revocation: Vec<TaskIds>,
    /// Versions 0.
    pub standby_tasks_pending_revocation: Vec<TaskIds>,
    /// Versions 0.
    pub warmup_tasks_pending_revocation: Vec<TaskIds>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for StreamsGroupCurrentMemberAssignmentValue {
    fn default() -> Self {
        StreamsGroupCurrentMemberAssignmentValue {
            member_epoch: 0,
            previous_member_epoch: 0,
            state: 0,
            active_tasks: Vec::new(),
            standby_tasks: Vec::new(),
            warmup_tasks: Vec::new(),
            active_tasks_pending_revocation: Vec::new(),
            standby_tasks_pending_revocation: Vec::new(),
            warmup_tasks_pending_revocation: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for StreamsGroupCurrentMemberAssignmentValue {
    const ENCODED_SIZE_MIN: usize = 16;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = StreamsGroupCurrentMemberAssignmentValue::default();
        this.member_epoch = d.i32()?;
        this.previous_member_epoch = d.i32()?;
        this.state = d.i8()?;
        this.active_tasks =
            d.array(flexible, TaskIds::ENCODED_SIZE_MIN, "active_tasks", |d| TaskIds::decode(d, version))?;
        this.standby_tasks =
            d.array(flexible, TaskIds::ENCODED_SIZE_MIN, "standby_tasks", |d| TaskIds::decode(d, version))?;
        this.warmup_tasks =
            d.array(flexible, TaskIds::ENCODED_SIZE_MIN, "warmup_tasks", |d| TaskIds::decode(d, version))?;
        this.active_tasks_pending_revocation =
            d.array(flexible, TaskIds::ENCODED_SIZE_MIN, "active_tasks_pending_revocation", |d| {
                TaskIds::decode(d, version)
            })?;
        this.standby_tasks_pending_revocation =
            d.array(flexible, TaskIds::ENCODED_SIZE_MIN, "standby_tasks_pending_revocation", |d| {
                TaskIds::decode(d, version)
            })?;
        this.warmup_tasks_pending_revocation =
            d.array(flexible, TaskIds::ENCODED_SIZE_MIN, "warmup_tasks_pending_revocation", |d| {
                TaskIds::decode(d, version)
            })?;
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
        out.put_i32(self.member_epoch);
        out.put_i32(self.previous_member_epoch);
        out.put_i8(self.state);
        out.put_length(flexible, false, Some(self.active_tasks.len()), "active_tasks")?;
        for item in &self.active_tasks {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.standby_tasks.len()), "standby_tasks")?;
        for item in &self.standby_tasks {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.warmup_tasks.len()), "warmup_tasks")?;
        for item in &self.warmup_tasks {
            item.encode(out, version)?;
        }
        out.put_length(
            flexible,
            false,
            Some(self.active_tasks_pending_revocation.len()),
            "active_tasks_pending_revocation",
        )?;
        for item in &self.active_tasks_pending_revocation {
            item.encode(out, version)?;
        }
        out.put_length(
            flexible,
            false,
            Some(self.standby_tasks_pending_revocation.len()),
            "standby_tasks_pending_revocation",
        )?;
        for item in &self.standby_tasks_pending_revocation {
            item.encode(out, version)?;
        }
        out.put_length(
            flexible,
            false,
            Some(self.warmup_tasks_pending_revocation.len()),
            "warmup_tasks_pending_revocation",
        )?;
        for item in &self.warmup_tasks_pending_revocation {
            item.encode(out, version)?;
        }
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for StreamsGroupCurrentMemberAssignmentValue {
    const NAME: &'static str = "StreamsGroupCurrentMemberAssignmentValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for StreamsGroupCurrentMemberAssignmentValue {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.member_epoch = g.i32();
        this.previous_member_epoch = g.i32();
        this.state = g.i8();
        this.active_tasks = g.vec(|g| <TaskIds as crate::sample::Sample>::sample(g, version));
        this.standby_tasks = g.vec(|g| <TaskIds as crate::sample::Sample>::sample(g, version));
        this.warmup_tasks = g.vec(|g| <TaskIds as crate::sample::Sample>::sample(g, version));
        this.active_tasks_pending_revocation = g.vec(|g| <TaskIds as crate::sample::Sample>::sample(g, version));
        this.standby_tasks_pending_revocation = g.vec(|g| <TaskIds as crate::sample::Sample>::sample(g, version));
        this.warmup_tasks_pending_revocation = g.vec(|g| <TaskIds as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TaskIds`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskIds {
    /// Versions 0.
    pub subtopology_id: String,
    /// Versions 0.
    pub partitions: Vec<i32>,
    /// Tagged only; nullable 0; tag 0 in 0+.
    pub assignment_epochs: Option<Vec<i32>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TaskIds {
    fn default() -> Self {
        TaskIds {
            subtopology_id: String::new(),
            partitions: Vec::new(),
            assignment_epochs: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TaskIds {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TaskIds::default();
        this.subtopology_id = d.string(flexible, "subtopology_id")?;
        this.partitions = d.array(flexible, 4, "partitions", |d| d.i32())?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 => {
                        let d = &mut field;
                        this.assignment_epochs = d.nullable_array(true, 4, |d| d.i32())?;
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
        out.put_string(flexible, &self.subtopology_id, "subtopology_id")?;
        out.put_length(flexible, false, Some(self.partitions.len()), "partitions")?;
        for item in &self.partitions {
            out.put_i32(*item);
        }
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if self.assignment_epochs.is_some() {
                let out = tagged.field(0);
                match &self.assignment_epochs {
                    Some(value) => {
                        out.put_length(true, false, Some(value.len()), "assignment_epochs")?;
                        for item in value {
                            out.put_i32(*item);
                        }
                    }
                    None => {
                        out.put_length(true, false, None, "assignment_epochs")?;
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

#[cfg(feature = "sample")]
impl crate::sample::Sample for TaskIds {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.subtopology_id = g.string();
        this.partitions = g.vec(|g| g.i32());
        if g.bool() {
            this.assignment_epochs = g.nullable(|g| g.vec(|g| g.i32()));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
