//! `JoinGroupResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `JoinGroupResponse`, versions 0-9.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinGroupResponse {
    /// Versions 2-9; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 0-9.
    pub error_code: i16,
    /// Versions 0-9.
    pub generation_id: i32,
    /// Versions 7-9; nullable 7-9; ignorable.
    pub protocol_type: Option<String>,
    /// Versions 0-9; nullable 7-9.
    pub protocol_name: Option<String>,
    /// Versions 0-9.
    pub leader: String,
    /// Versions 9.
    pub skip_assignment: bool,
    /// Versions 0-9.
    pub member_id: String,
    /// Versions 0-9.
    pub members: Vec<JoinGroupResponseMember>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for JoinGroupResponse {
    fn default() -> Self {
        JoinGroupResponse {
            throttle_time_ms: 0,
            error_code: 0,
            generation_id: -1_i32,
            protocol_type: None,
            protocol_name: Some(String::new()),
            leader: String::new(),
            skip_assignment: false,
            member_id: String::new(),
            members: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for JoinGroupResponse {
    const ENCODED_SIZE_MIN: usize = 10;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 6;
        let mut this = JoinGroupResponse::default();
        if version >= 2 {
            this.throttle_time_ms = d.i32()?;
        }
        this.error_code = d.i16()?;
        this.generation_id = d.i32()?;
        if version >= 7 {
            this.protocol_type = d.nullable_string(flexible)?;
        }
        this.protocol_name =
            if version >= 7 { d.nullable_string(flexible)? } else { Some(d.string(flexible, "protocol_name")?) };
        this.leader = d.string(flexible, "leader")?;
        if version >= 9 {
            this.skip_assignment = d.bool()?;
        }
        this.member_id = d.string(flexible, "member_id")?;
        this.members = d.array(flexible, JoinGroupResponseMember::ENCODED_SIZE_MIN, "members", |d| {
            JoinGroupResponseMember::decode(d, version)
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
        let flexible = version >= 6;
        if version >= 2 {
            out.put_i32(self.throttle_time_ms);
        }
        out.put_i16(self.error_code);
        out.put_i32(self.generation_id);
        if version >= 7 {
            match &self.protocol_type {
                Some(value) => {
                    out.put_string(flexible, value, "protocol_type")?;
                }
                None => {
                    out.put_length(flexible, true, None, "protocol_type")?;
                }
            }
        }
        match &self.protocol_name {
            Some(value) => {
                out.put_string(flexible, value, "protocol_name")?;
            }
            None if version >= 7 => {
                out.put_length(flexible, true, None, "protocol_name")?;
            }
            None => {
                return Err(EncodeError::NullNotAllowed { field: "protocol_name", version });
            }
        }
        out.put_string(flexible, &self.leader, "leader")?;
        if version >= 9 {
            out.put_bool(self.skip_assignment);
        } else {
            if self.skip_assignment {
                return Err(EncodeError::FieldNotInVersion { field: "skip_assignment", version });
            }
        }
        out.put_string(flexible, &self.member_id, "member_id")?;
        out.put_length(flexible, false, Some(self.members.len()), "members")?;
        for item in &self.members {
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

impl Message for JoinGroupResponse {
    const NAME: &'static str = "JoinGroupResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 9 };
    const FLEXIBLE_MIN: Option<i16> = Some(6);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for JoinGroupResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 6;
        let mut this = Self::default();
        if version >= 2 {
            this.throttle_time_ms = g.i32();
        }
        this.error_code = g.i16();
        this.generation_id = g.i32();
        if version >= 7 {
            this.protocol_type = g.nullable(|g| g.string());
        }
        this.protocol_name = if version >= 7 { g.nullable(|g| g.string()) } else { Some(g.string()) };
        this.leader = g.string();
        if version >= 9 {
            this.skip_assignment = g.bool();
        }
        this.member_id = g.string();
        this.members = g.vec(|g| <JoinGroupResponseMember as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `JoinGroupResponseMember`, versions 0-9.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinGroupResponseMember {
    /// Versions 0-9.
    pub member_id: String,
    /// Versions 5-9; nullable 5-9; ignorable.
    pub group_instance_id: Option<String>,
    /// Versions 0-9.
    pub metadata: Bytes,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for JoinGroupResponseMember {
    fn default() -> Self {
        JoinGroupResponseMember {
            member_id: String::new(),
            group_instance_id: None,
            metadata: Bytes::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for JoinGroupResponseMember {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 6;
        let mut this = JoinGroupResponseMember::default();
        this.member_id = d.string(flexible, "member_id")?;
        if version >= 5 {
            this.group_instance_id = d.nullable_string(flexible)?;
        }
        this.metadata = d.bytes(flexible, "metadata")?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 6;
        out.put_string(flexible, &self.member_id, "member_id")?;
        if version >= 5 {
            match &self.group_instance_id {
                Some(value) => {
                    out.put_string(flexible, value, "group_instance_id")?;
                }
                None => {
                    out.put_length(flexible, true, None, "group_instance_id")?;
                }
            }
        }
        out.put_bytes_field(flexible, &self.metadata, "metadata")?;
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
impl crate::sample::Sample for JoinGroupResponseMember {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 6;
        let mut this = Self::default();
        this.member_id = g.string();
        if version >= 5 {
            this.group_instance_id = g.nullable(|g| g.string());
        }
        this.metadata = g.bytes();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
