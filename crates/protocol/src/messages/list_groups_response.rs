//! `ListGroupsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ListGroupsResponse`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct ListGroupsResponse {
    /// Versions 1-5; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 0-5.
    pub error_code: i16,
    /// Versions 0-5.
    pub groups: Vec<ListedGroup>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListGroupsResponse {
    fn default() -> Self {
        ListGroupsResponse { throttle_time_ms: 0, error_code: 0, groups: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ListGroupsResponse {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = ListGroupsResponse::default();
        if version >= 1 {
            this.throttle_time_ms = d.i32()?;
        }
        this.error_code = d.i16()?;
        this.groups =
            d.array(flexible, ListedGroup::ENCODED_SIZE_MIN, "groups", |d| ListedGroup::decode(d, version))?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 3;
        if version >= 1 {
            out.put_i32(self.throttle_time_ms);
        }
        out.put_i16(self.error_code);
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

impl Message for ListGroupsResponse {
    const NAME: &'static str = "ListGroupsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 5 };
    const FLEXIBLE_MIN: Option<i16> = Some(3);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ListGroupsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        if version >= 1 {
            this.throttle_time_ms = g.i32();
        }
        this.error_code = g.i16();
        this.groups = g.vec(|g| <ListedGroup as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ListedGroup`, versions 0-5.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedGroup {
    /// Versions 0-5.
    pub group_id: String,
    /// Versions 0-5.
    pub protocol_type: String,
    /// Versions 4-5; ignorable.
    pub group_state: String,
    /// Versions 5; ignorable.
    pub group_type: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListedGroup {
    fn default() -> Self {
        ListedGroup {
            group_id: String::new(),
            protocol_type: String::new(),
            group_state: String::new(),
            group_type: String::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ListedGroup {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 3;
        let mut this = ListedGroup::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.protocol_type = d.string(flexible, "protocol_type")?;
        if version >= 4 {
            this.group_state = d.string(flexible, "group_state")?;
        }
        if version >= 5 {
            this.group_type = d.string(flexible, "group_type")?;
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
        let flexible = version >= 3;
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_string(flexible, &self.protocol_type, "protocol_type")?;
        if version >= 4 {
            out.put_string(flexible, &self.group_state, "group_state")?;
        }
        if version >= 5 {
            out.put_string(flexible, &self.group_type, "group_type")?;
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
impl crate::sample::Sample for ListedGroup {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 3;
        let mut this = Self::default();
        this.group_id = g.string();
        this.protocol_type = g.string();
        if version >= 4 {
            this.group_state = g.string();
        }
        if version >= 5 {
            this.group_type = g.string();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
