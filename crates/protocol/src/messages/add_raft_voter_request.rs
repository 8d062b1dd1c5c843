//! `AddRaftVoterRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AddRaftVoterRequest`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct AddRaftVoterRequest {
    /// Versions 0-1; nullable 0-1.
    pub cluster_id: Option<String>,
    /// Versions 0-1.
    pub timeout_ms: i32,
    /// Versions 0-1.
    pub voter_id: i32,
    /// Versions 0-1.
    pub voter_directory_id: Uuid,
    /// Versions 0-1.
    pub listeners: Vec<Listener>,
    /// Versions 1.
    pub ack_when_committed: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AddRaftVoterRequest {
    fn default() -> Self {
        AddRaftVoterRequest {
            cluster_id: Some(String::new()),
            timeout_ms: 0,
            voter_id: 0,
            voter_directory_id: Uuid::ZERO,
            listeners: Vec::new(),
            ack_when_committed: true,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AddRaftVoterRequest {
    const ENCODED_SIZE_MIN: usize = 27;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AddRaftVoterRequest::default();
        this.cluster_id = d.nullable_string(flexible)?;
        this.timeout_ms = d.i32()?;
        this.voter_id = d.i32()?;
        this.voter_directory_id = d.uuid()?;
        this.listeners =
            d.array(flexible, Listener::ENCODED_SIZE_MIN, "listeners", |d| Listener::decode(d, version))?;
        if version >= 1 {
            this.ack_when_committed = d.bool()?;
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
        match &self.cluster_id {
            Some(value) => {
                out.put_string(flexible, value, "cluster_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "cluster_id")?;
            }
        }
        out.put_i32(self.timeout_ms);
        out.put_i32(self.voter_id);
        out.put_uuid(&self.voter_directory_id);
        out.put_length(flexible, false, Some(self.listeners.len()), "listeners")?;
        for item in &self.listeners {
            item.encode(out, version)?;
        }
        if version >= 1 {
            out.put_bool(self.ack_when_committed);
        } else {
            if !self.ack_when_committed {
                return Err(EncodeError::FieldNotInVersion { field: "ack_when_committed", version });
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

impl Message for AddRaftVoterRequest {
    const NAME: &'static str = "AddRaftVoterRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AddRaftVoterRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.cluster_id = g.nullable(|g| g.string());
        this.timeout_ms = g.i32();
        this.voter_id = g.i32();
        this.voter_directory_id = g.uuid();
        this.listeners = g.vec(|g| <Listener as crate::sample::Sample>::sample(g, version));
        if version >= 1 {
            this.ack_when_committed = g.bool();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Listener`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct Listener {
    /// Versions 0-1; map key.
    pub name: String,
    /// Versions 0-1.
    pub host: String,
    /// Versions 0-1.
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
