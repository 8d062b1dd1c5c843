//! `DescribeAclsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeAclsRequest`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeAclsRequest {
    /// Versions 1-3.
    pub resource_type_filter: i8,
    /// Versions 1-3; nullable 1-3.
    pub resource_name_filter: Option<String>,
    /// Versions 1-3.
    pub pattern_type_filter: i8,
    /// Versions 1-3; nullable 1-3.
    pub principal_filter: Option<String>,
    /// Versions 1-3; nullable 1-3.
    pub host_filter: Option<String>,
    /// Versions 1-3.
    pub operation: i8,
    /// Versions 1-3.
    pub permission_type: i8,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeAclsRequest {
    fn default() -> Self {
        DescribeAclsRequest {
            resource_type_filter: 0,
            resource_name_filter: Some(String::new()),
            pattern_type_filter: 3,
            principal_filter: Some(String::new()),
            host_filter: Some(String::new()),
            operation: 0,
            permission_type: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeAclsRequest {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DescribeAclsRequest::default();
        this.resource_type_filter = d.i8()?;
        this.resource_name_filter = d.nullable_string(flexible)?;
        this.pattern_type_filter = d.i8()?;
        this.principal_filter = d.nullable_string(flexible)?;
        this.host_filter = d.nullable_string(flexible)?;
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
        out.put_i8(self.resource_type_filter);
        match &self.resource_name_filter {
            Some(value) => {
                out.put_string(flexible, value, "resource_name_filter")?;
            }
            None => {
                out.put_length(flexible, true, None, "resource_name_filter")?;
            }
        }
        out.put_i8(self.pattern_type_filter);
        match &self.principal_filter {
            Some(value) => {
                out.put_string(flexible, value, "principal_filter")?;
            }
            None => {
                out.put_length(flexible, true, None, "principal_filter")?;
            }
        }
        match &self.host_filter {
            Some(value) => {
                out.put_string(flexible, value, "host_filter")?;
            }
            None => {
                out.put_length(flexible, true, None, "host_filter")?;
            }
        }
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

impl Message for DescribeAclsRequest {
    const NAME: &'static str = "DescribeAclsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 3 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeAclsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.resource_type_filter = g.i8();
        this.resource_name_filter = g.nullable(|g| g.string());
        this.pattern_type_filter = g.i8();
        this.principal_filter = g.nullable(|g| g.string());
        this.host_filter = g.nullable(|g| g.string());
        this.operation = g.i8();
        this.permission_type = g.i8();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
