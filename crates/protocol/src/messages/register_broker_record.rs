//! `RegisterBrokerRecord`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `RegisterBrokerRecord`, versions 0-4.
#[derive(Debug, Clone, PartialEq)]
pub struct RegisterBrokerRecord {
    /// Versions 0-4.
    pub broker_id: BrokerId,
    /// Versions 2-4.
    pub is_migrating_zk_broker: bool,
    /// Versions 0-4.
    pub incarnation_id: Uuid,
    /// Versions 0-4.
    pub broker_epoch: i64,
    /// Versions 0-4.
    pub end_points: Vec<BrokerEndpoint>,
    /// Versions 0-4.
    pub features: Vec<BrokerFeature>,
    /// Versions 0-4; nullable 0-4.
    pub rack: Option<String>,
    /// Versions 0-4.
    pub fenced: bool,
    /// Versions 1-4.
    pub in_controlled_shutdown: bool,
    /// Tagged only; tag 0 in 3+.
    pub log_dirs: Vec<Uuid>,
    /// Tagged only; nullable 4; tag 1 in 4+.
    pub cordoned_log_dirs: Option<Vec<Uuid>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for RegisterBrokerRecord {
    fn default() -> Self {
        RegisterBrokerRecord {
            broker_id: BrokerId(0),
            is_migrating_zk_broker: false,
            incarnation_id: Uuid::ZERO,
            broker_epoch: 0,
            end_points: Vec::new(),
            features: Vec::new(),
            rack: Some(String::new()),
            fenced: true,
            in_controlled_shutdown: false,
            log_dirs: Vec::new(),
            cordoned_log_dirs: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for RegisterBrokerRecord {
    const ENCODED_SIZE_MIN: usize = 33;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = RegisterBrokerRecord::default();
        this.broker_id = d.i32().map(BrokerId)?;
        if version >= 2 {
            this.is_migrating_zk_broker = d.bool()?;
        }
        this.incarnation_id = d.uuid()?;
        this.broker_epoch = d.i64()?;
        this.end_points =
            d.array(flexible, BrokerEndpoint::ENCODED_SIZE_MIN, "end_points", |d| BrokerEndpoint::decode(d, version))?;
        this.features =
            d.array(flexible, BrokerFeature::ENCODED_SIZE_MIN, "features", |d| BrokerFeature::decode(d, version))?;
        this.rack = d.nullable_string(flexible)?;
        this.fenced = d.bool()?;
        if version >= 1 {
            this.in_controlled_shutdown = d.bool()?;
        }
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 if version >= 3 => {
                        let d = &mut field;
                        this.log_dirs = d.array(true, 16, "log_dirs", |d| d.uuid())?;
                        d.finish_tagged(tag)?;
                    }
                    1 if version >= 4 => {
                        let d = &mut field;
                        this.cordoned_log_dirs = d.nullable_array(true, 16, |d| d.uuid())?;
                        d.finish_tagged(tag)?;
                    }
                    _ => this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() }),
                }
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = true;
        out.put_i32(self.broker_id.0);
        if version >= 2 {
            out.put_bool(self.is_migrating_zk_broker);
        } else {
            if self.is_migrating_zk_broker {
                return Err(EncodeError::FieldNotInVersion { field: "is_migrating_zk_broker", version });
            }
        }
        out.put_uuid(&self.incarnation_id);
        out.put_i64(self.broker_epoch);
        out.put_length(flexible, false, Some(self.end_points.len()), "end_points")?;
        for item in &self.end_points {
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
        out.put_bool(self.fenced);
        if version >= 1 {
            out.put_bool(self.in_controlled_shutdown);
        } else {
            if self.in_controlled_shutdown {
                return Err(EncodeError::FieldNotInVersion { field: "in_controlled_shutdown", version });
            }
        }
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if version >= 3 && !self.log_dirs.is_empty() {
                let out = tagged.field(0);
                out.put_length(true, false, Some(self.log_dirs.len()), "log_dirs")?;
                for item in &self.log_dirs {
                    out.put_uuid(item);
                }
            } else {
                if !self.log_dirs.is_empty() {
                    return Err(EncodeError::FieldNotInVersion { field: "log_dirs", version });
                }
            }
            if version >= 4 && self.cordoned_log_dirs.is_some() {
                let out = tagged.field(1);
                match &self.cordoned_log_dirs {
                    Some(value) => {
                        out.put_length(true, false, Some(value.len()), "cordoned_log_dirs")?;
                        for item in value {
                            out.put_uuid(item);
                        }
                    }
                    None => {
                        out.put_length(true, false, None, "cordoned_log_dirs")?;
                    }
                }
            } else {
                if self.cordoned_log_dirs.is_some() {
                    return Err(EncodeError::FieldNotInVersion { field: "cordoned_log_dirs", version });
                }
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for RegisterBrokerRecord {
    const NAME: &'static str = "RegisterBrokerRecord";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 4 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for RegisterBrokerRecord {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.broker_id = BrokerId(g.i32());
        if version >= 2 {
            this.is_migrating_zk_broker = g.bool();
        }
        this.incarnation_id = g.uuid();
        this.broker_epoch = g.i64();
        this.end_points = g.vec(|g| <BrokerEndpoint as crate::sample::Sample>::sample(g, version));
        this.features = g.vec(|g| <BrokerFeature as crate::sample::Sample>::sample(g, version));
        this.rack = g.nullable(|g| g.string());
        this.fenced = g.bool();
        if version >= 1 {
            this.in_controlled_shutdown = g.bool();
        }
        if version >= 3 && g.bool() {
            this.log_dirs = g.vec(|g| g.uuid());
        }
        if version >= 4 && g.bool() {
            this.cordoned_log_dirs = g.nullable(|g| g.vec(|g| g.uuid()));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `BrokerEndpoint`, versions 0-4.
#[derive(Debug, Clone, PartialEq)]
pub struct BrokerEndpoint {
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

impl Default for BrokerEndpoint {
    fn default() -> Self {
        BrokerEndpoint {
            name: String::new(),
            host: String::new(),
            port: 0,
            security_protocol: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for BrokerEndpoint {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = BrokerEndpoint::default();
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
impl crate::sample::Sample for BrokerEndpoint {
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

/// `BrokerFeature`, versions 0-4.
#[derive(Debug, Clone, PartialEq)]
pub struct BrokerFeature {
    /// Versions 0-4; map key.
    pub name: String,
    /// Versions 0-4.
    pub min_supported_version: i16,
    /// Versions 0-4.
    pub max_supported_version: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for BrokerFeature {
    fn default() -> Self {
        BrokerFeature {
            name: String::new(),
            min_supported_version: 0,
            max_supported_version: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for BrokerFeature {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = BrokerFeature::default();
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
impl crate::sample::Sample for BrokerFeature {
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
