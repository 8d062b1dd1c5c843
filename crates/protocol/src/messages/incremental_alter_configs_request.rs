//! `IncrementalAlterConfigsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `IncrementalAlterConfigsRequest`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct IncrementalAlterConfigsRequest {
    /// Versions 0-1.
    pub resources: Vec<AlterConfigsResource>,
    /// Versions 0-1.
    pub validate_only: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for IncrementalAlterConfigsRequest {
    fn default() -> Self {
        IncrementalAlterConfigsRequest {
            resources: Vec::new(),
            validate_only: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for IncrementalAlterConfigsRequest {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = IncrementalAlterConfigsRequest::default();
        this.resources = d.array(flexible, AlterConfigsResource::ENCODED_SIZE_MIN, "resources", |d| {
            AlterConfigsResource::decode(d, version)
        })?;
        this.validate_only = d.bool()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 1;
        out.put_length(flexible, false, Some(self.resources.len()), "resources")?;
        for item in &self.resources {
            item.encode(out, version)?;
        }
        out.put_bool(self.validate_only);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for IncrementalAlterConfigsRequest {
    const NAME: &'static str = "IncrementalAlterConfigsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(1);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for IncrementalAlterConfigsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.resources = g.vec(|g| <AlterConfigsResource as crate::sample::Sample>::sample(g, version));
        this.validate_only = g.bool();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AlterableConfig`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterableConfig {
    /// Versions 0-1; map key.
    pub name: String,
    /// Versions 0-1; map key.
    pub config_operation: i8,
    /// Versions 0-1; nullable 0-1.
    pub value: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AlterableConfig {
    fn default() -> Self {
        AlterableConfig {
            name: String::new(),
            config_operation: 0,
            value: Some(String::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AlterableConfig {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = AlterableConfig::default();
        this.name = d.string(flexible, "name")?;
        this.config_operation = d.i8()?;
        this.value = d.nullable_string(flexible)?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 1;
        out.put_string(flexible, &self.name, "name")?;
        out.put_i8(self.config_operation);
        match &self.value {
            Some(value) => {
                out.put_string(flexible, value, "value")?;
            }
            None => {
                out.put_length(flexible, true, None, "value")?;
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
impl crate::sample::Sample for AlterableConfig {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.name = g.string();
        this.config_operation = g.i8();
        this.value = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AlterConfigsResource`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterConfigsResource {
    /// Versions 0-1; map key.
    pub resource_type: i8,
    /// Versions 0-1; map key.
    pub resource_name: String,
    /// Versions 0-1.
    pub configs: Vec<AlterableConfig>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AlterConfigsResource {
    fn default() -> Self {
        AlterConfigsResource {
            resource_type: 0,
            resource_name: String::new(),
            configs: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AlterConfigsResource {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = AlterConfigsResource::default();
        this.resource_type = d.i8()?;
        this.resource_name = d.string(flexible, "resource_name")?;
        this.configs =
            d.array(flexible, AlterableConfig::ENCODED_SIZE_MIN, "configs", |d| AlterableConfig::decode(d, version))?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 1;
        out.put_i8(self.resource_type);
        out.put_string(flexible, &self.resource_name, "resource_name")?;
        out.put_length(flexible, false, Some(self.configs.len()), "configs")?;
        for item in &self.configs {
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
impl crate::sample::Sample for AlterConfigsResource {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.resource_type = g.i8();
        this.resource_name = g.string();
        this.configs = g.vec(|g| <AlterableConfig as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
