//! `JoinGroupRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `JoinGroupRequest`, versions 0-9.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinGroupRequest {
    /// Versions 0-9.
    pub group_id: String,
    /// Versions 0-9.
    pub session_timeout_ms: i32,
    /// Versions 1-9; ignorable.
    pub rebalance_timeout_ms: i32,
    /// Versions 0-9.
    pub member_id: String,
    /// Versions 5-9; nullable 5-9.
    pub group_instance_id: Option<String>,
    /// Versions 0-9.
    pub protocol_type: String,
    /// Versions 0-9.
    pub protocols: Vec<JoinGroupRequestProtocol>,
    /// Versions 8-9; nullable 8-9; ignorable.
    pub reason: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for JoinGroupRequest {
    fn default() -> Self {
        JoinGroupRequest {
            group_id: String::new(),
            session_timeout_ms: 0,
            rebalance_timeout_ms: -1_i32,
            member_id: String::new(),
            group_instance_id: None,
            protocol_type: String::new(),
            protocols: Vec::new(),
            reason: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for JoinGroupRequest {
    const ENCODED_SIZE_MIN: usize = 8;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 6;
        let mut this = JoinGroupRequest::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.session_timeout_ms = d.i32()?;
        if version >= 1 {
            this.rebalance_timeout_ms = d.i32()?;
        }
        this.member_id = d.string(flexible, "member_id")?;
        if version >= 5 {
            this.group_instance_id = d.nullable_string(flexible)?;
        }
        this.protocol_type = d.string(flexible, "protocol_type")?;
        this.protocols = d.array(flexible, JoinGroupRequestProtocol::ENCODED_SIZE_MIN, "protocols", |d| {
            JoinGroupRequestProtocol::decode(d, version)
        })?;
        if version >= 8 {
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
        let flexible = version >= 6;
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_i32(self.session_timeout_ms);
        if version >= 1 {
            out.put_i32(self.rebalance_timeout_ms);
        }
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
        } else {
            if self.group_instance_id.is_some() {
                return Err(EncodeError::FieldNotInVersion { field: "group_instance_id", version });
            }
        }
        out.put_string(flexible, &self.protocol_type, "protocol_type")?;
        out.put_length(flexible, false, Some(self.protocols.len()), "protocols")?;
        for item in &self.protocols {
            item.encode(out, version)?;
        }
        if version >= 8 {
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

impl Message for JoinGroupRequest {
    const NAME: &'static str = "JoinGroupRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 9 };
    const FLEXIBLE_MIN: Option<i16> = Some(6);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for JoinGroupRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 6;
        let mut this = Self::default();
        this.group_id = g.string();
        this.session_timeout_ms = g.i32();
        if version >= 1 {
            this.rebalance_timeout_ms = g.i32();
        }
        this.member_id = g.string();
        if version >= 5 {
            this.group_instance_id = g.nullable(|g| g.string());
        }
        this.protocol_type = g.string();
        this.protocols = g.vec(|g| <JoinGroupRequestProtocol as crate::sample::Sample>::sample(g, version));
        if version >= 8 {
            this.reason = g.nullable(|g| g.string());
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `JoinGroupRequestProtocol`, versions 0-9.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinGroupRequestProtocol {
    /// Versions 0-9; map key.
    pub name: String,
    /// Versions 0-9.
    pub metadata: Bytes,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for JoinGroupRequestProtocol {
    fn default() -> Self {
        JoinGroupRequestProtocol { name: String::new(), metadata: Bytes::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for JoinGroupRequestProtocol {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 6;
        let mut this = JoinGroupRequestProtocol::default();
        this.name = d.string(flexible, "name")?;
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
        out.put_string(flexible, &self.name, "name")?;
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
impl crate::sample::Sample for JoinGroupRequestProtocol {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 6;
        let mut this = Self::default();
        this.name = g.string();
        this.metadata = g.bytes();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
