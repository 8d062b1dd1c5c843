//! `LeaveGroupResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `LeaveGroupResponse`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaveGroupResponse {
    /// Versions 1-5; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 0-5.
    pub error_code: i16,
    /// Versions 3-5.
    pub members: Vec<MemberResponse>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for LeaveGroupResponse {
    fn default() -> Self {
        LeaveGroupResponse {
            throttle_time_ms: 0,
            error_code: 0,
            members: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for LeaveGroupResponse {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = LeaveGroupResponse::default();
        if version >= 1 {
            this.throttle_time_ms = d.i32()?;
        }
        this.error_code = d.i16()?;
        if version >= 3 {
            this.members =
                d.array(flexible, MemberResponse::ENCODED_SIZE_MIN, "members", |d| MemberResponse::decode(d, version))?;
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
        if version >= 1 {
            out.put_i32(self.throttle_time_ms);
        }
        out.put_i16(self.error_code);
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

impl Message for LeaveGroupResponse {
    const NAME: &'static str = "LeaveGroupResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 5 };
    const FLEXIBLE_MIN: Option<i16> = Some(4);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for LeaveGroupResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        if version >= 1 {
            this.throttle_time_ms = g.i32();
        }
        this.error_code = g.i16();
        if version >= 3 {
            this.members = g.vec(|g| <MemberResponse as crate::sample::Sample>::sample(g, version));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `MemberResponse`, versions 3-5.
#[derive(Debug, Clone, PartialEq)]
pub struct MemberResponse {
    /// Versions 3-5.
    pub member_id: String,
    /// Versions 3-5; nullable 3-5.
    pub group_instance_id: Option<String>,
    /// Versions 3-5.
    pub error_code: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for MemberResponse {
    fn default() -> Self {
        MemberResponse {
            member_id: String::new(),
            group_instance_id: Some(String::new()),
            error_code: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for MemberResponse {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = MemberResponse::default();
        this.member_id = d.string(flexible, "member_id")?;
        this.group_instance_id = d.nullable_string(flexible)?;
        this.error_code = d.i16()?;
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
        out.put_i16(self.error_code);
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
impl crate::sample::Sample for MemberResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.member_id = g.string();
        this.group_instance_id = g.nullable(|g| g.string());
        this.error_code = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
