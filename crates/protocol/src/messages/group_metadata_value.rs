//! `GroupMetadataValue`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `GroupMetadataValue`, versions 0-4.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupMetadataValue {
    /// Versions 0-4.
    pub protocol_type: String,
    /// Versions 0-4.
    pub generation: i32,
    /// Versions 0-4; nullable 0-4.
    pub protocol: Option<String>,
    /// Versions 0-4; nullable 0-4.
    pub leader: Option<String>,
    /// Versions 2-4; ignorable.
    pub current_state_timestamp: i64,
    /// Versions 0-4.
    pub members: Vec<MemberMetadata>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for GroupMetadataValue {
    fn default() -> Self {
        GroupMetadataValue {
            protocol_type: String::new(),
            generation: 0,
            protocol: Some(String::new()),
            leader: Some(String::new()),
            current_state_timestamp: -1_i64,
            members: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for GroupMetadataValue {
    const ENCODED_SIZE_MIN: usize = 8;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = GroupMetadataValue::default();
        this.protocol_type = d.string(flexible, "protocol_type")?;
        this.generation = d.i32()?;
        this.protocol = d.nullable_string(flexible)?;
        this.leader = d.nullable_string(flexible)?;
        if version >= 2 {
            this.current_state_timestamp = d.i64()?;
        }
        this.members =
            d.array(flexible, MemberMetadata::ENCODED_SIZE_MIN, "members", |d| MemberMetadata::decode(d, version))?;
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
        out.put_string(flexible, &self.protocol_type, "protocol_type")?;
        out.put_i32(self.generation);
        match &self.protocol {
            Some(value) => {
                out.put_string(flexible, value, "protocol")?;
            }
            None => {
                out.put_length(flexible, true, None, "protocol")?;
            }
        }
        match &self.leader {
            Some(value) => {
                out.put_string(flexible, value, "leader")?;
            }
            None => {
                out.put_length(flexible, true, None, "leader")?;
            }
        }
        if version >= 2 {
            out.put_i64(self.current_state_timestamp);
        }
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

impl Message for GroupMetadataValue {
    const NAME: &'static str = "GroupMetadataValue";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 4 };
    const FLEXIBLE_MIN: Option<i16> = Some(4);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for GroupMetadataValue {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.protocol_type = g.string();
        this.generation = g.i32();
        this.protocol = g.nullable(|g| g.string());
        this.leader = g.nullable(|g| g.string());
        if version >= 2 {
            this.current_state_timestamp = g.i64();
        }
        this.members = g.vec(|g| <MemberMetadata as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `MemberMetadata`, versions 0-4.
#[derive(Debug, Clone, PartialEq)]
pub struct MemberMetadata {
    /// Versions 0-4.
    pub member_id: String,
    /// Versions 3-4; nullable 3-4; ignorable.
    pub group_instance_id: Option<String>,
    /// Versions 0-4.
    pub client_id: String,
    /// Versions 0-4.
    pub client_host: String,
    /// Versions 1-4; ignorable.
    pub rebalance_timeout: i32,
    /// Versions 0-4.
    pub session_timeout: i32,
    /// Versions 0-4.
    pub subscription: Bytes,
    /// Versions 0-4.
    pub assignment: Bytes,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for MemberMetadata {
    fn default() -> Self {
        MemberMetadata {
            member_id: String::new(),
            group_instance_id: None,
            client_id: String::new(),
            client_host: String::new(),
            rebalance_timeout: -1_i32,
            session_timeout: 0,
            subscription: Bytes::new(),
            assignment: Bytes::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for MemberMetadata {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = MemberMetadata::default();
        this.member_id = d.string(flexible, "member_id")?;
        if version >= 3 {
            this.group_instance_id = d.nullable_string(flexible)?;
        }
        this.client_id = d.string(flexible, "client_id")?;
        this.client_host = d.string(flexible, "client_host")?;
        if version >= 1 {
            this.rebalance_timeout = d.i32()?;
        }
        this.session_timeout = d.i32()?;
        this.subscription = d.bytes(flexible, "subscription")?;
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
        if version >= 3 {
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
        if version >= 1 {
            out.put_i32(self.rebalance_timeout);
        }
        out.put_i32(self.session_timeout);
        out.put_bytes_field(flexible, &self.subscription, "subscription")?;
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
impl crate::sample::Sample for MemberMetadata {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.member_id = g.string();
        if version >= 3 {
            this.group_instance_id = g.nullable(|g| g.string());
        }
        this.client_id = g.string();
        this.client_host = g.string();
        if version >= 1 {
            this.rebalance_timeout = g.i32();
        }
        this.session_timeout = g.i32();
        this.subscription = g.bytes();
        this.assignment = g.bytes();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
