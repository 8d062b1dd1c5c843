//! `BrokerRegistrationRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `BrokerRegistrationRequest`, versions 0-4.
#[derive(Debug, Clone, PartialEq)]
pub struct BrokerRegistrationRequest {
    /// Versions 0-4.
    pub broker_id: BrokerId,
    /// Versions 0-4.
    pub cluster_id: String,
    /// Versions 0-4.
    pub incarnation_id: Uuid,
    /// Versions 0-4.
    pub listeners: Vec<Listener>,
    /// Versions 0-4.
    pub features: Vec<Feature>,
    /// Versions 0-4; nullable 0-4.
    pub rack: Option<String>,
    /// Versions 1-4.
    pub is_migrating_zk_broker: bool,
    /// Versions 2-4; ignorable.
    pub log_dirs: Vec<Uuid>,
    /// Versions 3-4; ignorable.
    pub previous_broker_epoch: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for BrokerRegistrationRequest {
    fn default() -> Self {
        BrokerRegistrationRequest {
            broker_id: BrokerId(0),
            cluster_id: String::new(),
            incarnation_id: Uuid::ZERO,
            listeners: Vec::new(),
            features: Vec::new(),
            rack: Some(String::new()),
            is_migrating_zk_broker: false,
            log_dirs: Vec::new(),
            previous_broker_epoch: -1_i64,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for BrokerRegistrationRequest {
    const ENCODED_SIZE_MIN: usize = 25;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = BrokerRegistrationRequest::default();
        this.broker_id = d.i32().map(BrokerId)?;
        this.cluster_id = d.string(flexible, "cluster_id")?;
        this.incarnation_id = d.uuid()?;
        this.listeners =
            d.array(flexible, Listener::ENCODED_SIZE_MIN, "listeners", |d| Listener::decode(d, version))?;
        this.features = d.array(flexible, Feature::ENCODED_SIZE_MIN, "features", |d| Feature::decode(d, version))?;
        this.rack = d.nullable_string(flexible)?;
        if version >= 1 {
            this.is_migrating_zk_broker = d.bool()?;
        }
        if version >= 2 {
            this.log_dirs = d.array(flexible, 16, "log_dirs", |d| d.uuid())?;
        }
        if version >= 3 {
            this.previous_broker_epoch = d.i64()?;
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
        out.put_i32(self.broker_id.0);
        out.put_string(flexible, &self.cluster_id, "cluster_id")?;
        out.put_uuid(&self.incarnation_id);
        out.put_length(flexible, false, Some(self.listeners.len()), "listeners")?;
        for item in &self.listeners {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.features.len()), "features")?;
        for item in &self.features {
            item.encode(out, version)?;
        }
        match &self.rack {
            Some(value) => {
                out.put_string(flexible, value, "rack")?;
            }
            None => {
                out.put_length(flexible, true, None, "rack")?;
            }
        }
        if version >= 1 {
            out.put_bool(self.is_migrating_zk_broker);
        } else {
            if self.is_migrating_zk_broker {
                return Err(EncodeError::FieldNotInVersion { field: "is_migrating_zk_broker", version });
            }
        }
        if version >= 2 {
            out.put_length(flexible, false, Some(self.log_dirs.len()), "log_dirs")?;
            for item in &self.log_dirs {
                out.put_uuid(item);
            }
        }
        if version >= 3 {
            out.put_i64(self.previous_broker_epoch);
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

impl Message for BrokerRegistrationRequest {
    const NAME: &'static str = "BrokerRegistrationRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 4 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for BrokerRegistrationRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.broker_id = BrokerId(g.i32());
        this.cluster_id = g.string();
        this.incarnation_id = g.uuid();
        this.listeners = g.vec(|g| <Listener as crate::sample::Sample>::sample(g, version));
        this.features = g.vec(|g| <Feature as crate::sample::Sample>::sample(g, version));
        this.rack = g.nullable(|g| g.string());
        if version >= 1 {
            this.is_migrating_zk_broker = g.bool();
        }
        if version >= 2 {
            this.log_dirs = g.vec(|g| g.uuid());
        }
        if version >= 3 {
            this.previous_broker_epoch = g.i64();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Listener`, versions 0-4.
#[derive(Debug, Clone, PartialEq)]
pub struct Listener {
    /// Versions 0-4; map key.
    pub name: String,
    /// Versions 0-4.
    pub host: String,
    /// Versions 0-4.
    pub port: u16,
    /// Versions 0-4.
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

/// `Feature`, versions 0-4.
#[derive(Debug, Clone, PartialEq)]
pub struct Feature {
    /// Versions 0-4; map key.
    pub name: String,
    /// Versions 0-4.
    pub min_supported_version: i16,
    /// Versions 0-4.
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
