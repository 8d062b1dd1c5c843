//! `SyncGroupRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `SyncGroupRequest`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct SyncGroupRequest {
    /// Versions 0-5.
    pub group_id: String,
    /// Versions 0-5.
    pub generation_id: i32,
    /// Versions 0-5.
    pub member_id: String,
    /// Versions 3-5; nullable 3-5.
    pub group_instance_id: Option<String>,
    /// Versions 5; nullable 5; ignorable.
    pub protocol_type: Option<String>,
    /// Versions 5; nullable 5; ignorable.
    pub protocol_name: Option<String>,
    /// Versions 0-5.
    pub assignments: Vec<SyncGroupRequestAssignment>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for SyncGroupRequest {
    fn default() -> Self {
        SyncGroupRequest {
            group_id: String::new(),
            generation_id: 0,
            member_id: String::new(),
            group_instance_id: None,
            protocol_type: None,
            protocol_name: None,
            assignments: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for SyncGroupRequest {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = SyncGroupRequest::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.generation_id = d.i32()?;
        this.member_id = d.string(flexible, "member_id")?;
        if version >= 3 {
            this.group_instance_id = d.nullable_string(flexible)?;
        }
        if version >= 5 {
            this.protocol_type = d.nullable_string(flexible)?;
        }
        if version >= 5 {
            this.protocol_name = d.nullable_string(flexible)?;
        }
        this.assignments = d.array(flexible, SyncGroupRequestAssignment::ENCODED_SIZE_MIN, "assignments", |d| {
            SyncGroupRequestAssignment::decode(d, version)
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
        let flexible = version >= 4;
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_i32(self.generation_id);
        out.put_string(flexible, &self.member_id, "member_id")?;
        if version >= 3 {
            match &self.group_instance_id {
                Some(value) => {
                    out.put_string(flexible, value, "group_instance_id")?;
                }
                None => {
                    out.put_length(flexible, true, None, "group_instance_id")?;
                }
            }
        } else {
            if self.group_instance_id.is_some() {
                return Err(EncodeError::FieldNotInVersion { field: "group_instance_id", version });
            }
        }
        if version >= 5 {
            match &self.protocol_type {
                Some(value) => {
                    out.put_string(flexible, value, "protocol_type")?;
                }
                None => {
                    out.put_length(flexible, true, None, "protocol_type")?;
                }
            }
        }
        if version >= 5 {
            match &self.protocol_name {
                Some(value) => {
                    out.put_string(flexible, value, "protocol_name")?;
                }
                None => {
                    out.put_length(flexible, true, None, "protocol_name")?;
                }
            }
        }
        out.put_length(flexible, false, Some(self.assignments.len()), "assignments")?;
        for item in &self.assignments {
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

impl Message for SyncGroupRequest {
    const NAME: &'static str = "SyncGroupRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 5 };
    const FLEXIBLE_MIN: Option<i16> = Some(4);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for SyncGroupRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.group_id = g.string();
        this.generation_id = g.i32();
        this.member_id = g.string();
        if version >= 3 {
            this.group_instance_id = g.nullable(|g| g.string());
        }
        if version >= 5 {
            this.protocol_type = g.nullable(|g| g.string());
        }
        if version >= 5 {
            this.protocol_name = g.nullable(|g| g.string());
        }
        this.assignments = g.vec(|g| <SyncGroupRequestAssignment as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `SyncGroupRequestAssignment`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct SyncGroupRequestAssignment {
    /// Versions 0-5.
    pub member_id: String,
    /// Versions 0-5.
    pub assignment: Bytes,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for SyncGroupRequestAssignment {
    fn default() -> Self {
        SyncGroupRequestAssignment {
            member_id: String::new(),
            assignment: Bytes::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for SyncGroupRequestAssignment {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = SyncGroupRequestAssignment::default();
        this.member_id = d.string(flexible, "member_id")?;
        this.assignment = d.bytes(flexible, "assignment")?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 4;
        out.put_string(flexible, &self.member_id, "member_id")?;
        out.put_bytes_field(flexible, &self.assignment, "assignment")?;
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
impl crate::sample::Sample for SyncGroupRequestAssignment {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.member_id = g.string();
        this.assignment = g.bytes();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
