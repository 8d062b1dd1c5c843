//! `QuorumStateData`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `QuorumStateData`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct QuorumStateData {
    /// Versions 0.
    pub cluster_id: String,
    /// Versions 0-1.
    pub leader_id: i32,
    /// Versions 0-1.
    pub leader_epoch: i32,
    /// Versions 0-1.
    pub voted_id: i32,
    /// Versions 1.
    pub voted_directory_id: Uuid,
    /// Versions 0.
    pub applied_offset: i64,
    /// Versions 0; nullable 0.
    pub current_voters: Option<Vec<Voter>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for QuorumStateData {
    fn default() -> Self {
        QuorumStateData {
            cluster_id: String::new(),
            leader_id: -1_i32,
            leader_epoch: -1_i32,
            voted_id: -1_i32,
            voted_directory_id: Uuid::ZERO,
            applied_offset: 0,
            current_voters: Some(Vec::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for QuorumStateData {
    const ENCODED_SIZE_MIN: usize = 23;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = QuorumStateData::default();
        if version <= 0 {
            this.cluster_id = d.string(flexible, "cluster_id")?;
        }
        this.leader_id = d.i32()?;
        this.leader_epoch = d.i32()?;
        this.voted_id = d.i32()?;
        if version >= 1 {
            this.voted_directory_id = d.uuid()?;
        }
        if version <= 0 {
            this.applied_offset = d.i64()?;
        }
        if version <= 0 {
            this.current_voters = d.nullable_array(flexible, Voter::ENCODED_SIZE_MIN, |d| Voter::decode(d, version))?;
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
        if version <= 0 {
            out.put_string(flexible, &self.cluster_id, "cluster_id")?;
        } else {
            if !self.cluster_id.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "cluster_id", version });
            }
        }
        out.put_i32(self.leader_id);
        out.put_i32(self.leader_epoch);
        out.put_i32(self.voted_id);
        if version >= 1 {
            out.put_uuid(&self.voted_directory_id);
        } else {
            if self.voted_directory_id != Uuid::ZERO {
                return Err(EncodeError::FieldNotInVersion { field: "voted_directory_id", version });
            }
        }
        if version <= 0 {
            out.put_i64(self.applied_offset);
        } else {
            if self.applied_offset != 0 {
                return Err(EncodeError::FieldNotInVersion { field: "applied_offset", version });
            }
        }
        if version <= 0 {
            match &self.current_voters {
                Some(value) => {
                    out.put_length(flexible, false, Some(value.len()), "current_voters")?;
                    for item in value {
                        item.encode(out, version)?;
                    }
                }
                None => {
                    out.put_length(flexible, false, None, "current_voters")?;
                }
            }
        } else {
            if self.current_voters != Some(Vec::new()) {
                return Err(EncodeError::FieldNotInVersion { field: "current_voters", version });
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

impl Message for QuorumStateData {
    const NAME: &'static str = "QuorumStateData";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for QuorumStateData {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        if version <= 0 {
            this.cluster_id = g.string();
        }
        this.leader_id = g.i32();
        this.leader_epoch = g.i32();
        this.voted_id = g.i32();
        if version >= 1 {
            this.voted_directory_id = g.uuid();
        }
        if version <= 0 {
            this.applied_offset = g.i64();
        }
        if version <= 0 {
            this.current_voters = g.nullable(|g| g.vec(|g| <Voter as crate::sample::Sample>::sample(g, version)));
        }
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
    pub voter_id: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Voter {
    fn default() -> Self {
        Voter { voter_id: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for Voter {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Voter::default();
        this.voter_id = d.i32()?;
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
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.voter_id = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
