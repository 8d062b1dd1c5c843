//! `CreateAclsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `CreateAclsRequest`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateAclsRequest {
    /// Versions 1-3.
    pub creations: Vec<AclCreation>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CreateAclsRequest {
    fn default() -> Self {
        CreateAclsRequest { creations: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for CreateAclsRequest {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = CreateAclsRequest::default();
        this.creations =
            d.array(flexible, AclCreation::ENCODED_SIZE_MIN, "creations", |d| AclCreation::decode(d, version))?;
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
        out.put_length(flexible, false, Some(self.creations.len()), "creations")?;
        for item in &self.creations {
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

impl Message for CreateAclsRequest {
    const NAME: &'static str = "CreateAclsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 3 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for CreateAclsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.creations = g.vec(|g| <AclCreation as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AclCreation`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct AclCreation {
    /// Versions 1-3.
    pub resource_type: i8,
    /// Versions 1-3.
    pub resource_name: String,
    /// Versions 1-3.
    pub resource_pattern_type: i8,
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

impl Default for AclCreation {
    fn default() -> Self {
        AclCreation {
            resource_type: 0,
            resource_name: String::new(),
            resource_pattern_type: 3,
            principal: String::new(),
            host: String::new(),
            operation: 0,
            permission_type: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AclCreation {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = AclCreation::default();
        this.resource_type = d.i8()?;
        this.resource_name = d.string(flexible, "resource_name")?;
        this.resource_pattern_type = d.i8()?;
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
        out.put_i8(self.resource_type);
        out.put_string(flexible, &self.resource_name, "resource_name")?;
        out.put_i8(self.resource_pattern_type);
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
impl crate::sample::Sample for AclCreation {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.resource_type = g.i8();
        this.resource_name = g.string();
        this.resource_pattern_type = g.i8();
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
