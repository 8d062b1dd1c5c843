//! `ControllerRegistrationRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ControllerRegistrationRequest`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ControllerRegistrationRequest {
    /// Versions 0.
    pub controller_id: i32,
    /// Versions 0.
    pub incarnation_id: Uuid,
    /// Versions 0.
    pub zk_migration_ready: bool,
    /// Versions 0.
    pub listeners: Vec<Listener>,
    /// Versions 0.
    pub features: Vec<Feature>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ControllerRegistrationRequest {
    fn default() -> Self {
        ControllerRegistrationRequest {
            controller_id: 0,
            incarnation_id: Uuid::ZERO,
            zk_migration_ready: false,
            listeners: Vec::new(),
            features: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ControllerRegistrationRequest {
    const ENCODED_SIZE_MIN: usize = 24;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ControllerRegistrationRequest::default();
        this.controller_id = d.i32()?;
        this.incarnation_id = d.uuid()?;
        this.zk_migration_ready = d.bool()?;
        this.listeners =
            d.array(flexible, Listener::ENCODED_SIZE_MIN, "listeners", |d| Listener::decode(d, version))?;
        this.features = d.array(flexible, Feature::ENCODED_SIZE_MIN, "features", |d| Feature::decode(d, version))?;
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
        out.put_length(flexible, false, Some(self.listeners.len()), "listeners")?;
        for item in &self.listeners {
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

impl Message for ControllerRegistrationRequest {
    const NAME: &'static str = "ControllerRegistrationRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ControllerRegistrationRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.controller_id = g.i32();
        this.incarnation_id = g.uuid();
        this.zk_migration_ready = g.bool();
        this.listeners = g.vec(|g| <Listener as crate::sample::Sample>::sample(g, version));
        this.features = g.vec(|g| <Feature as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Listener`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Listener {
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

impl Default for Listener {
    fn default() -> Self {
        Listener {
            name: String::new(),
            host: String::new(),
            port: 0,
            security_protocol: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for Listener {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Listener::default();
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
impl crate::sample::Sample for Listener {
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

/// `Feature`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Feature {
    /// Versions 0; map key.
    pub name: String,
    /// Versions 0.
    pub min_supported_version: i16,
    /// Versions 0.
    pub max_supported_version: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Feature {
    fn default() -> Self {
        Feature {
            name: String::new(),
            min_supported_version: 0,
            max_supported_version: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for Feature {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Feature::default();
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
impl crate::sample::Sample for Feature {
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
