//! `LeaderChangeMessage`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `LeaderChangeMessage`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaderChangeMessage {
    /// Versions 0-1.
    pub version: i16,
    /// Versions 0-1.
    pub leader_id: BrokerId,
    /// Versions 0-1.
    pub voters: Vec<Voter>,
    /// Versions 0-1.
    pub granting_voters: Vec<Voter>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for LeaderChangeMessage {
    fn default() -> Self {
        LeaderChangeMessage {
            version: 0,
            leader_id: BrokerId(0),
            voters: Vec::new(),
            granting_voters: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for LeaderChangeMessage {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = LeaderChangeMessage::default();
        this.version = d.i16()?;
        this.leader_id = d.i32().map(BrokerId)?;
        this.voters = d.array(flexible, Voter::ENCODED_SIZE_MIN, "voters", |d| Voter::decode(d, version))?;
        this.granting_voters =
            d.array(flexible, Voter::ENCODED_SIZE_MIN, "granting_voters", |d| Voter::decode(d, version))?;
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
        out.put_i32(self.leader_id.0);
        out.put_length(flexible, false, Some(self.voters.len()), "voters")?;
        for item in &self.voters {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.granting_voters.len()), "granting_voters")?;
        for item in &self.granting_voters {
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

impl Message for LeaderChangeMessage {
    const NAME: &'static str = "LeaderChangeMessage";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for LeaderChangeMessage {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.version = g.i16();
        this.leader_id = BrokerId(g.i32());
        this.voters = g.vec(|g| <Voter as crate::sample::Sample>::sample(g, version));
        this.granting_voters = g.vec(|g| <Voter as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Voter`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct Voter {
    /// Versions 0-1.
    pub voter_id: i32,
    /// Versions 1.
    pub voter_directory_id: Uuid,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Voter {
    fn default() -> Self {
        Voter { voter_id: 0, voter_directory_id: Uuid::ZERO, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for Voter {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Voter::default();
        this.voter_id = d.i32()?;
        if version >= 1 {
            this.voter_directory_id = d.uuid()?;
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
        out.put_i32(self.voter_id);
        if version >= 1 {
            out.put_uuid(&self.voter_directory_id);
        } else {
            if self.voter_directory_id != Uuid::ZERO {
                return Err(EncodeError::FieldNotInVersion { field: "voter_directory_id", version });
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
impl crate::sample::Sample for Voter {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.voter_id = g.i32();
        if version >= 1 {
            this.voter_directory_id = g.uuid();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
