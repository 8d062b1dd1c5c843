//! `ListConfigResourcesResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ListConfigResourcesResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct ListConfigResourcesResponse {
    /// Versions 0-1.
    pub throttle_time_ms: i32,
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1.
    pub config_resources: Vec<ConfigResource>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListConfigResourcesResponse {
    fn default() -> Self {
        ListConfigResourcesResponse {
            throttle_time_ms: 0,
            error_code: 0,
            config_resources: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ListConfigResourcesResponse {
    const ENCODED_SIZE_MIN: usize = 8;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ListConfigResourcesResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.config_resources = d.array(flexible, ConfigResource::ENCODED_SIZE_MIN, "config_resources", |d| {
            ConfigResource::decode(d, version)
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
        let flexible = true;
        out.put_i32(self.throttle_time_ms);
        out.put_i16(self.error_code);
        out.put_length(flexible, false, Some(self.config_resources.len()), "config_resources")?;
        for item in &self.config_resources {
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

impl Message for ListConfigResourcesResponse {
    const NAME: &'static str = "ListConfigResourcesResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ListConfigResourcesResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.config_resources = g.vec(|g| <ConfigResource as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ConfigResource`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigResource {
    /// Versions 0-1.
    pub resource_name: String,
    /// Versions 1; ignorable.
    pub resource_type: i8,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ConfigResource {
    fn default() -> Self {
        ConfigResource { resource_name: String::new(), resource_type: 16, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ConfigResource {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ConfigResource::default();
        this.resource_name = d.string(flexible, "resource_name")?;
        if version >= 1 {
            this.resource_type = d.i8()?;
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
        let flexible = true;
        out.put_string(flexible, &self.resource_name, "resource_name")?;
        if version >= 1 {
            out.put_i8(self.resource_type);
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
impl crate::sample::Sample for ConfigResource {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.resource_name = g.string();
        if version >= 1 {
            this.resource_type = g.i8();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
