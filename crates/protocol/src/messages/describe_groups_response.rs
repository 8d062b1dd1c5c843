//! `DescribeGroupsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeGroupsResponse`, versions 0-6.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeGroupsResponse {
    /// Versions 1-6; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 0-6.
    pub groups: Vec<DescribedGroup>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeGroupsResponse {
    fn default() -> Self {
        DescribeGroupsResponse { throttle_time_ms: 0, groups: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for DescribeGroupsResponse {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 5;
        let mut this = DescribeGroupsResponse::default();
        if version >= 1 {
            this.throttle_time_ms = d.i32()?;
        }
        this.groups =
            d.array(flexible, DescribedGroup::ENCODED_SIZE_MIN, "groups", |d| DescribedGroup::decode(d, version))?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 5;
        if version >= 1 {
            out.put_i32(self.throttle_time_ms);
        }
        out.put_length(flexible, false, Some(self.groups.len()), "groups")?;
        for item in &self.groups {
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

impl Message for DescribeGroupsResponse {
    const NAME: &'static str = "DescribeGroupsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 6 };
    const FLEXIBLE_MIN: Option<i16> = Some(5);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeGroupsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 5;
        let mut this = Self::default();
        if version >= 1 {
            this.throttle_time_ms = g.i32();
        }
        this.groups = g.vec(|g| <DescribedGroup as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribedGroupMember`, versions 0-6.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribedGroupMember {
    /// Versions 0-6.
    pub member_id: String,
    /// Versions 4-6; nullable 4-6; ignorable.
    pub group_instance_id: Option<String>,
    /// Versions 0-6.
    pub client_id: String,
    /// Versions 0-6.
    pub client_host: String,
    /// Versions 0-6.
    pub member_metadata: Bytes,
    /// Versions 0-6.
    pub member_assignment: Bytes,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribedGroupMember {
    fn default() -> Self {
        DescribedGroupMember {
            member_id: String::new(),
            group_instance_id: None,
            client_id: String::new(),
            client_host: String::new(),
            member_metadata: Bytes::new(),
            member_assignment: Bytes::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribedGroupMember {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 5;
        let mut this = DescribedGroupMember::default();
        this.member_id = d.string(flexible, "member_id")?;
        if version >= 4 {
            this.group_instance_id = d.nullable_string(flexible)?;
        }
        this.client_id = d.string(flexible, "client_id")?;
        this.client_host = d.string(flexible, "client_host")?;
        this.member_metadata = d.bytes(flexible, "member_metadata")?;
        this.member_assignment = d.bytes(flexible, "member_assignment")?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 5;
        out.put_string(flexible, &self.member_id, "member_id")?;
        if version >= 4 {
            match &self.group_instance_id {
                Some(value) => {
                    out.put_string(flexible, value, "group_instance_id")?;
                }
                None => {
                    out.put_length(flexible, true, None, "group_instance_id")?;
                }
            }
        }
        out.put_string(flexible, &self.client_id, "client_id")?;
        out.put_string(flexible, &self.client_host, "client_host")?;
        out.put_bytes_field(flexible, &self.member_metadata, "member_metadata")?;
        out.put_bytes_field(flexible, &self.member_assignment, "member_assignment")?;
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
impl crate::sample::Sample for DescribedGroupMember {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 5;
        let mut this = Self::default();
        this.member_id = g.string();
        if version >= 4 {
            this.group_instance_id = g.nullable(|g| g.string());
        }
        this.client_id = g.string();
        this.client_host = g.string();
        this.member_metadata = g.bytes();
        this.member_assignment = g.bytes();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribedGroup`, versions 0-6.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribedGroup {
    /// Versions 0-6.
    pub error_code: i16,
    /// Versions 6; nullable 6.
    pub error_message: Option<String>,
    /// Versions 0-6.
    pub group_id: String,
    /// Versions 0-6.
    pub group_state: String,
    /// Versions 0-6.
    pub protocol_type: String,
    /// Versions 0-6.
    pub protocol_data: String,
    /// Versions 0-6.
    pub members: Vec<DescribedGroupMember>,
    /// Versions 3-6.
    pub authorized_operations: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribedGroup {
    fn default() -> Self {
        DescribedGroup {
            error_code: 0,
            error_message: None,
            group_id: String::new(),
            group_state: String::new(),
            protocol_type: String::new(),
            protocol_data: String::new(),
            members: Vec::new(),
            authorized_operations: -2147483648_i32,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribedGroup {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 5;
        let mut this = DescribedGroup::default();
        this.error_code = d.i16()?;
        if version >= 6 {
            this.error_message = d.nullable_string(flexible)?;
        }
        this.group_id = d.string(flexible, "group_id")?;
        this.group_state = d.string(flexible, "group_state")?;
        this.protocol_type = d.string(flexible, "protocol_type")?;
        this.protocol_data = d.string(flexible, "protocol_data")?;
        this.members = d.array(flexible, DescribedGroupMember::ENCODED_SIZE_MIN, "members", |d| {
            DescribedGroupMember::decode(d, version)
        })?;
        if version >= 3 {
            this.authorized_operations = d.i32()?;
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
        let flexible = version >= 5;
        out.put_i16(self.error_code);
        if version >= 6 {
            match &self.error_message {
                Some(value) => {
                    out.put_string(flexible, value, "error_message")?;
                }
                None => {
                    out.put_length(flexible, true, None, "error_message")?;
                }
            }
        } else {
            if self.error_message.is_some() {
                return Err(EncodeError::FieldNotInVersion { field: "error_message", version });
            }
        }
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_string(flexible, &self.group_state, "group_state")?;
        out.put_string(flexible, &self.protocol_type, "protocol_type")?;
        out.put_string(flexible, &self.protocol_data, "protocol_data")?;
        out.put_length(flexible, false, Some(self.members.len()), "members")?;
        for item in &self.members {
            item.encode(out, version)?;
        }
        if version >= 3 {
            out.put_i32(self.authorized_operations);
        } else {
            if self.authorized_operations != -2147483648_i32 {
                return Err(EncodeError::FieldNotInVersion { field: "authorized_operations", version });
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
impl crate::sample::Sample for DescribedGroup {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 5;
        let mut this = Self::default();
        this.error_code = g.i16();
        if version >= 6 {
            this.error_message = g.nullable(|g| g.string());
        }
        this.group_id = g.string();
        this.group_state = g.string();
        this.protocol_type = g.string();
        this.protocol_data = g.string();
        this.members = g.vec(|g| <DescribedGroupMember as crate::sample::Sample>::sample(g, version));
        if version >= 3 {
            this.authorized_operations = g.i32();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
