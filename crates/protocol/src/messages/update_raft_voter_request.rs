//! `UpdateRaftVoterRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `UpdateRaftVoterRequest`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateRaftVoterRequest {
    /// Versions 0; nullable 0.
    pub cluster_id: Option<String>,
    /// Versions 0.
    pub current_leader_epoch: i32,
    /// Versions 0.
    pub voter_id: i32,
    /// Versions 0.
    pub voter_directory_id: Uuid,
    /// Versions 0.
    pub listeners: Vec<Listener>,
    /// Versions 0.
    pub kraft_version_feature: KRaftVersionFeature,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for UpdateRaftVoterRequest {
    fn default() -> Self {
        UpdateRaftVoterRequest {
            cluster_id: Some(String::new()),
            current_leader_epoch: 0,
            voter_id: 0,
            voter_directory_id: Uuid::ZERO,
            listeners: Vec::new(),
            kraft_version_feature: KRaftVersionFeature::default(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for UpdateRaftVoterRequest {
    const ENCODED_SIZE_MIN: usize = 32;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = UpdateRaftVoterRequest::default();
        this.cluster_id = d.nullable_string(flexible)?;
        this.current_leader_epoch = d.i32()?;
        this.voter_id = d.i32()?;
        this.voter_directory_id = d.uuid()?;
        this.listeners =
            d.array(flexible, Listener::ENCODED_SIZE_MIN, "listeners", |d| Listener::decode(d, version))?;
        this.kraft_version_feature = KRaftVersionFeature::decode(d, version)?;
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
        match &self.cluster_id {
            Some(value) => {
                out.put_string(flexible, value, "cluster_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "cluster_id")?;
            }
        }
        out.put_i32(self.current_leader_epoch);
        out.put_i32(self.voter_id);
        out.put_uuid(&self.voter_directory_id);
        out.put_length(flexible, false, Some(self.listeners.len()), "listeners")?;
        for item in &self.listeners {
            item.encode(out, version)?;
        }
        self.kraft_version_feature.encode(out, version)?;
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for UpdateRaftVoterRequest {
    const NAME: &'static str = "UpdateRaftVoterRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for UpdateRaftVoterRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.cluster_id = g.nullable(|g| g.string());
        this.current_leader_epoch = g.i32();
        this.voter_id = g.i32();
        this.voter_directory_id = g.uuid();
        this.listeners = g.vec(|g| <Listener as crate::sample::Sample>::sample(g, version));
        this.kraft_version_feature = <KRaftVersionFeature as crate::sample::Sample>::sample(g, version);
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
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Listener {
    fn default() -> Self {
        Listener { name: String::new(), host: String::new(), port: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for Listener {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Listener::default();
        this.name = d.string(flexible, "name")?;
        this.host = d.string(flexible, "host")?;
        this.port = d.u16()?;
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
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `KRaftVersionFeature`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct KRaftVersionFeature {
    /// Versions 0.
    pub min_supported_version: i16,
    /// Versions 0.
    pub max_supported_version: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for KRaftVersionFeature {
    fn default() -> Self {
        KRaftVersionFeature { min_supported_version: 0, max_supported_version: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for KRaftVersionFeature {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = KRaftVersionFeature::default();
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
impl crate::sample::Sample for KRaftVersionFeature {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.min_supported_version = g.i16();
        this.max_supported_version = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
