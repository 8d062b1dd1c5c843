//! `RegisterControllerRecord`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `RegisterControllerRecord`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct RegisterControllerRecord {
    /// Versions 0.
    pub controller_id: i32,
    /// Versions 0.
    pub incarnation_id: Uuid,
    /// Versions 0.
    pub zk_migration_ready: bool,
    /// Versions 0.
    pub end_points: Vec<ControllerEndpoint>,
    /// Versions 0.
    pub features: Vec<ControllerFeature>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for RegisterControllerRecord {
    fn default() -> Self {
        RegisterControllerRecord {
            controller_id: 0,
            incarnation_id: Uuid::ZERO,
            zk_migration_ready: false,
            end_points: Vec::new(),
            features: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for RegisterControllerRecord {
    const ENCODED_SIZE_MIN: usize = 24;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = RegisterControllerRecord::default();
        this.controller_id = d.i32()?;
        this.incarnation_id = d.uuid()?;
        this.zk_migration_ready = d.bool()?;
        this.end_points = d.array(flexible, ControllerEndpoint::ENCODED_SIZE_MIN, "end_points", |d| {
            ControllerEndpoint::decode(d, version)
        })?;
        this.features = d.array(flexible, ControllerFeature::ENCODED_SIZE_MIN, "features", |d| {
            ControllerFeature::decode(d, version)
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
        out.put_i32(self.controller_id);
        out.put_uuid(&self.incarnation_id);
        out.put_bool(self.zk_migration_ready);
        out.put_length(flexible, false, Some(self.end_points.len()), "end_points")?;
        for item in &self.end_points {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.features.len()), "features")?;
        for item in &self.features {
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

impl Message for RegisterControllerRecord {
    const NAME: &'static str = "RegisterControllerRecord";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for RegisterControllerRecord {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.controller_id = g.i32();
        this.incarnation_id = g.uuid();
        this.zk_migration_ready = g.bool();
        this.end_points = g.vec(|g| <ControllerEndpoint as crate::sample::Sample>::sample(g, version));
        this.features = g.vec(|g| <ControllerFeature as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ControllerEndpoint`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ControllerEndpoint {
    /// Versions 0; map key.
    pub name: String,
    /// Versions 0.
    pub host: String,
    /// Versions 0.
    pub port: u16,
    /// Versions 0.
    pub security_protocol: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ControllerEndpoint {
    fn default() -> Self {
        ControllerEndpoint {
            name: String::new(),
            host: String::new(),
            port: 0,
            security_protocol: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ControllerEndpoint {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ControllerEndpoint::default();
        this.name = d.string(flexible, "name")?;
        this.host = d.string(flexible, "host")?;
        this.port = d.u16()?;
        this.security_protocol = d.i16()?;
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
        out.put_string(flexible, &self.name, "name")?;
        out.put_string(flexible, &self.host, "host")?;
        out.put_u16(self.port);
        out.put_i16(self.security_protocol);
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
impl crate::sample::Sample for ControllerEndpoint {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.host = g.string();
        this.port = g.u16();
        this.security_protocol = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ControllerFeature`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ControllerFeature {
    /// Versions 0; map key.
    pub name: String,
    /// Versions 0.
    pub min_supported_version: i16,
    /// Versions 0.
    pub max_supported_version: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ControllerFeature {
    fn default() -> Self {
        ControllerFeature {
            name: String::new(),
            min_supported_version: 0,
            max_supported_version: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ControllerFeature {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ControllerFeature::default();
        this.name = d.string(flexible, "name")?;
        this.min_supported_version = d.i16()?;
        this.max_supported_version = d.i16()?;
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
        out.put_string(flexible, &self.name, "name")?;
        out.put_i16(self.min_supported_version);
        out.put_i16(self.max_supported_version);
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
impl crate::sample::Sample for ControllerFeature {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.min_supported_version = g.i16();
        this.max_supported_version = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
