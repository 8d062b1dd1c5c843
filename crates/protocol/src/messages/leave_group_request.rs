//! `LeaveGroupRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `LeaveGroupRequest`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaveGroupRequest {
    /// Versions 0-5.
    pub group_id: String,
    /// Versions 0-2.
    pub member_id: String,
    /// Versions 3-5.
    pub members: Vec<MemberIdentity>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for LeaveGroupRequest {
    fn default() -> Self {
        LeaveGroupRequest {
            group_id: String::new(),
            member_id: String::new(),
            members: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for LeaveGroupRequest {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = LeaveGroupRequest::default();
        this.group_id = d.string(flexible, "group_id")?;
        if version <= 2 {
            this.member_id = d.string(flexible, "member_id")?;
        }
        if version >= 3 {
            this.members =
                d.array(flexible, MemberIdentity::ENCODED_SIZE_MIN, "members", |d| MemberIdentity::decode(d, version))?;
        }
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
        if version <= 2 {
            out.put_string(flexible, &self.member_id, "member_id")?;
        } else {
            if !self.member_id.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "member_id", version });
            }
        }
        if version >= 3 {
            out.put_length(flexible, false, Some(self.members.len()), "members")?;
            for item in &self.members {
                item.encode(out, version)?;
            }
        } else {
            if !self.members.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "members", version });
            }
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

impl Message for LeaveGroupRequest {
    const NAME: &'static str = "LeaveGroupRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 5 };
    const FLEXIBLE_MIN: Option<i16> = Some(4);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for LeaveGroupRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.group_id = g.string();
        if version <= 2 {
            this.member_id = g.string();
        }
        if version >= 3 {
            this.members = g.vec(|g| <MemberIdentity as crate::sample::Sample>::sample(g, version));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `MemberIdentity`, versions 3-5.
#[derive(Debug, Clone, PartialEq)]
pub struct MemberIdentity {
    /// Versions 3-5.
    pub member_id: String,
    /// Versions 3-5; nullable 3-5.
    pub group_instance_id: Option<String>,
    /// Versions 5; nullable 5; ignorable.
    pub reason: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for MemberIdentity {
    fn default() -> Self {
        MemberIdentity {
            member_id: String::new(),
            group_instance_id: None,
            reason: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for MemberIdentity {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = MemberIdentity::default();
        this.member_id = d.string(flexible, "member_id")?;
        this.group_instance_id = d.nullable_string(flexible)?;
        if version >= 5 {
            this.reason = d.nullable_string(flexible)?;
        }
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
        match &self.group_instance_id {
            Some(value) => {
                out.put_string(flexible, value, "group_instance_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "group_instance_id")?;
            }
        }
        if version >= 5 {
            match &self.reason {
                Some(value) => {
                    out.put_string(flexible, value, "reason")?;
                }
                None => {
                    out.put_length(flexible, true, None, "reason")?;
                }
            }
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

#[cfg(feature = "sample")]
impl crate::sample::Sample for MemberIdentity {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.member_id = g.string();
        this.group_instance_id = g.nullable(|g| g.string());
        if version >= 5 {
            this.reason = g.nullable(|g| g.string());
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
