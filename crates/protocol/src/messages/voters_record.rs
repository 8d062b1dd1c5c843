//! `VotersRecord`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `VotersRecord`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct VotersRecord {
    /// Versions 0.
    pub version: i16,
    /// Versions 0.
    pub voters: Vec<Voter>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for VotersRecord {
    fn default() -> Self {
        VotersRecord { version: 0, voters: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for VotersRecord {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = VotersRecord::default();
        this.version = d.i16()?;
        this.voters = d.array(flexible, Voter::ENCODED_SIZE_MIN, "voters", |d| Voter::decode(d, version))?;
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
        out.put_i16(self.version);
        out.put_length(flexible, false, Some(self.voters.len()), "voters")?;
        for item in &self.voters {
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

impl Message for VotersRecord {
    const NAME: &'static str = "VotersRecord";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for VotersRecord {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.version = g.i16();
        this.voters = g.vec(|g| <Voter as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Endpoint`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Endpoint {
    /// Versions 0; map key.
    pub name: String,
    /// Versions 0.
    pub host: String,
    /// Versions 0.
    pub port: u16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Endpoint {
    fn default() -> Self {
        Endpoint { name: String::new(), host: String::new(), port: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for Endpoint {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Endpoint::default();
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
impl crate::sample::Sample for Endpoint {
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

/// `Voter`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Voter {
    /// Versions 0.
    pub voter_id: BrokerId,
    /// Versions 0.
    pub voter_directory_id: Uuid,
    /// Versions 0.
    pub endpoints: Vec<Endpoint>,
    /// Versions 0.
    pub kraft_version_feature: KRaftVersionFeature,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Voter {
    fn default() -> Self {
        Voter {
            voter_id: BrokerId(0),
            voter_directory_id: Uuid::ZERO,
            endpoints: Vec::new(),
            kraft_version_feature: KRaftVersionFeature::default(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for Voter {
    const ENCODED_SIZE_MIN: usize = 22;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Voter::default();
        this.voter_id = d.i32().map(BrokerId)?;
        this.voter_directory_id = d.uuid()?;
        this.endpoints =
            d.array(flexible, Endpoint::ENCODED_SIZE_MIN, "endpoints", |d| Endpoint::decode(d, version))?;
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
        out.put_i32(self.voter_id.0);
        out.put_uuid(&self.voter_directory_id);
        out.put_length(flexible, false, Some(self.endpoints.len()), "endpoints")?;
        for item in &self.endpoints {
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

#[cfg(feature = "sample")]
impl crate::sample::Sample for Voter {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.voter_id = BrokerId(g.i32());
        this.voter_directory_id = g.uuid();
        this.endpoints = g.vec(|g| <Endpoint as crate::sample::Sample>::sample(g, version));
        this.kraft_version_feature = <KRaftVersionFeature as crate::sample::Sample>::sample(g, version);
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
