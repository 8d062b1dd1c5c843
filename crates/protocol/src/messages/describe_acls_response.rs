//! `DescribeAclsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeAclsResponse`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeAclsResponse {
    /// Versions 1-3.
    pub throttle_time_ms: i32,
    /// Versions 1-3.
    pub error_code: i16,
    /// Versions 1-3; nullable 1-3.
    pub error_message: Option<String>,
    /// Versions 1-3.
    pub resources: Vec<DescribeAclsResource>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeAclsResponse {
    fn default() -> Self {
        DescribeAclsResponse {
            throttle_time_ms: 0,
            error_code: 0,
            error_message: Some(String::new()),
            resources: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeAclsResponse {
    const ENCODED_SIZE_MIN: usize = 8;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DescribeAclsResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.resources = d.array(flexible, DescribeAclsResource::ENCODED_SIZE_MIN, "resources", |d| {
            DescribeAclsResource::decode(d, version)
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
        let flexible = version >= 2;
        out.put_i32(self.throttle_time_ms);
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
        out.put_length(flexible, false, Some(self.resources.len()), "resources")?;
        for item in &self.resources {
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

impl Message for DescribeAclsResponse {
    const NAME: &'static str = "DescribeAclsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 3 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeAclsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.resources = g.vec(|g| <DescribeAclsResource as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AclDescription`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct AclDescription {
    /// Versions 1-3.
    pub principal: String,
    /// Versions 1-3.
    pub host: String,
    /// Versions 1-3.
    pub operation: i8,
    /// Versions 1-3.
    pub permission_type: i8,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AclDescription {
    fn default() -> Self {
        AclDescription {
            principal: String::new(),
            host: String::new(),
            operation: 0,
            permission_type: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AclDescription {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = AclDescription::default();
        this.principal = d.string(flexible, "principal")?;
        this.host = d.string(flexible, "host")?;
        this.operation = d.i8()?;
        this.permission_type = d.i8()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 2;
        out.put_string(flexible, &self.principal, "principal")?;
        out.put_string(flexible, &self.host, "host")?;
        out.put_i8(self.operation);
        out.put_i8(self.permission_type);
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
impl crate::sample::Sample for AclDescription {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.principal = g.string();
        this.host = g.string();
        this.operation = g.i8();
        this.permission_type = g.i8();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribeAclsResource`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeAclsResource {
    /// Versions 1-3.
    pub resource_type: i8,
    /// Versions 1-3.
    pub resource_name: String,
    /// Versions 1-3.
    pub pattern_type: i8,
    /// Versions 1-3.
    pub acls: Vec<AclDescription>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeAclsResource {
    fn default() -> Self {
        DescribeAclsResource {
            resource_type: 0,
            resource_name: String::new(),
            pattern_type: 3,
            acls: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeAclsResource {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DescribeAclsResource::default();
        this.resource_type = d.i8()?;
        this.resource_name = d.string(flexible, "resource_name")?;
        this.pattern_type = d.i8()?;
        this.acls =
            d.array(flexible, AclDescription::ENCODED_SIZE_MIN, "acls", |d| AclDescription::decode(d, version))?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 2;
        out.put_i8(self.resource_type);
        out.put_string(flexible, &self.resource_name, "resource_name")?;
        out.put_i8(self.pattern_type);
        out.put_length(flexible, false, Some(self.acls.len()), "acls")?;
        for item in &self.acls {
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

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeAclsResource {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.resource_type = g.i8();
        this.resource_name = g.string();
        this.pattern_type = g.i8();
        this.acls = g.vec(|g| <AclDescription as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
