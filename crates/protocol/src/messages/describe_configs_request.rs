//! `DescribeConfigsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeConfigsRequest`, versions 1-4.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeConfigsRequest {
    /// Versions 1-4.
    pub resources: Vec<DescribeConfigsResource>,
    /// Versions 1-4.
    pub include_synonyms: bool,
    /// Versions 3-4.
    pub include_documentation: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeConfigsRequest {
    fn default() -> Self {
        DescribeConfigsRequest {
            resources: Vec::new(),
            include_synonyms: false,
            include_documentation: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeConfigsRequest {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = DescribeConfigsRequest::default();
        this.resources = d.array(flexible, DescribeConfigsResource::ENCODED_SIZE_MIN, "resources", |d| {
            DescribeConfigsResource::decode(d, version)
        })?;
        this.include_synonyms = d.bool()?;
        if version >= 3 {
            this.include_documentation = d.bool()?;
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
        out.put_length(flexible, false, Some(self.resources.len()), "resources")?;
        for item in &self.resources {
            item.encode(out, version)?;
        }
        out.put_bool(self.include_synonyms);
        if version >= 3 {
            out.put_bool(self.include_documentation);
        } else {
            if self.include_documentation {
                return Err(EncodeError::FieldNotInVersion { field: "include_documentation", version });
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

impl Message for DescribeConfigsRequest {
    const NAME: &'static str = "DescribeConfigsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 4 };
    const FLEXIBLE_MIN: Option<i16> = Some(4);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeConfigsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.resources = g.vec(|g| <DescribeConfigsResource as crate::sample::Sample>::sample(g, version));
        this.include_synonyms = g.bool();
        if version >= 3 {
            this.include_documentation = g.bool();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribeConfigsResource`, versions 1-4.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeConfigsResource {
    /// Versions 1-4.
    pub resource_type: i8,
    /// Versions 1-4.
    pub resource_name: String,
    /// Versions 1-4; nullable 1-4.
    pub configuration_keys: Option<Vec<String>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeConfigsResource {
    fn default() -> Self {
        DescribeConfigsResource {
            resource_type: 0,
            resource_name: String::new(),
            configuration_keys: Some(Vec::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeConfigsResource {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = DescribeConfigsResource::default();
        this.resource_type = d.i8()?;
        this.resource_name = d.string(flexible, "resource_name")?;
        this.configuration_keys = d.nullable_array(flexible, 1, |d| d.string(flexible, "configuration_keys"))?;
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
        out.put_i8(self.resource_type);
        out.put_string(flexible, &self.resource_name, "resource_name")?;
        match &self.configuration_keys {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "configuration_keys")?;
                for item in value {
                    out.put_string(flexible, item, "configuration_keys")?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "configuration_keys")?;
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
impl crate::sample::Sample for DescribeConfigsResource {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.resource_type = g.i8();
        this.resource_name = g.string();
        this.configuration_keys = g.nullable(|g| g.vec(|g| g.string()));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
