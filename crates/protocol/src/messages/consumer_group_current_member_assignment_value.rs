//! `ConsumerGroupCurrentMemberAssignmentValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ConsumerGroupCurrentMemberAssignmentValue`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerGroupCurrentMemberAssignmentValue {
    /// Versions 0.
    pub member_epoch: i32,
    /// Versions 0.
    pub previous_member_epoch: i32,
    /// Versions 0.
    pub state: i8,
    /// Versions 0.
    pub assigned_partitions: Vec<TopicPartitions>,
    /// Versions 0.
    pub partitions_pending_revocation: Vec<TopicPartitions>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ConsumerGroupCurrentMemberAssignmentValue {
    fn default() -> Self {
        ConsumerGroupCurrentMemberAssignmentValue {
            member_epoch: 0,
            previous_member_epoch: 0,
            state: 0,
            assigned_partitions: Vec::new(),
            partitions_pending_revocation: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ConsumerGroupCurrentMemberAssignmentValue {
    const ENCODED_SIZE_MIN: usize = 12;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ConsumerGroupCurrentMemberAssignmentValue::default();
        this.member_epoch = d.i32()?;
        this.previous_member_epoch = d.i32()?;
        this.state = d.i8()?;
        this.assigned_partitions =
            d.array(flexible, TopicPartitions::ENCODED_SIZE_MIN, "assigned_partitions", |d| {
                TopicPartitions::decode(d, version)
            })?;
        this.partitions_pending_revocation =
            d.array(flexible, TopicPartitions::ENCODED_SIZE_MIN, "partitions_pending_revocation", |d| {
                TopicPartitions::decode(d, version)
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
        out.put_length(flexible, false, Some(self.assigned_partitions.len()), "assigned_partitions")?;
        for item in &self.assigned_partitions {
            item.encode(out, version)?;
        }
        out.put_length(
            flexible,
            false,
            Some(self.partitions_pending_revocation.len()),
            "partitions_pending_revocation",
        )?;
        for item in &self.partitions_pending_revocation {
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

impl Message for ConsumerGroupCurrentMemberAssignmentValue {
    const NAME: &'static str = "ConsumerGroupCurrentMemberAssignmentValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ConsumerGroupCurrentMemberAssignmentValue {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.member_epoch = g.i32();
        this.previous_member_epoch = g.i32();
        this.state = g.i8();
        this.assigned_partitions = g.vec(|g| <TopicPartitions as crate::sample::Sample>::sample(g, version));
        this.partitions_pending_revocation = g.vec(|g| <TopicPartitions as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicPartitions`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicPartitions {
    /// Versions 0.
    pub topic_id: Uuid,
    /// Versions 0.
    pub partitions: Vec<i32>,
    /// Tagged only; nullable 0; tag 0 in 0+.
    pub assignment_epochs: Option<Vec<i32>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicPartitions {
    fn default() -> Self {
        TopicPartitions {
            topic_id: Uuid::ZERO,
            partitions: Vec::new(),
            assignment_epochs: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TopicPartitions {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicPartitions::default();
        this.topic_id = d.uuid()?;
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
        out.put_uuid(&self.topic_id);
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
impl crate::sample::Sample for TopicPartitions {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_id = g.uuid();
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
