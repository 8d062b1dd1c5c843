//! `UpdateRaftVoterResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `UpdateRaftVoterResponse`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateRaftVoterResponse {
    /// Versions 0.
    pub throttle_time_ms: i32,
    /// Versions 0.
    pub error_code: i16,
    /// Tagged only; tag 0 in 0+.
    pub current_leader: CurrentLeader,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for UpdateRaftVoterResponse {
    fn default() -> Self {
        UpdateRaftVoterResponse {
            throttle_time_ms: 0,
            error_code: 0,
            current_leader: CurrentLeader::default(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for UpdateRaftVoterResponse {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = UpdateRaftVoterResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 => {
                        let d = &mut field;
                        this.current_leader = CurrentLeader::decode(d, version)?;
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
        out.put_i32(self.throttle_time_ms);
        out.put_i16(self.error_code);
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if self.current_leader != CurrentLeader::default() {
                let out = tagged.field(0);
                self.current_leader.encode(out, version)?;
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for UpdateRaftVoterResponse {
    const NAME: &'static str = "UpdateRaftVoterResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for UpdateRaftVoterResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        if g.bool() {
            this.current_leader = <CurrentLeader as crate::sample::Sample>::sample(g, version);
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `CurrentLeader`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct CurrentLeader {
    /// Versions 0.
    pub leader_id: BrokerId,
    /// Versions 0.
    pub leader_epoch: i32,
    /// Versions 0.
    pub host: String,
    /// Versions 0.
    pub port: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CurrentLeader {
    fn default() -> Self {
        CurrentLeader {
            leader_id: BrokerId(-1_i32),
            leader_epoch: -1_i32,
            host: String::new(),
            port: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for CurrentLeader {
    const ENCODED_SIZE_MIN: usize = 14;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = CurrentLeader::default();
        this.leader_id = d.i32().map(BrokerId)?;
        this.leader_epoch = d.i32()?;
        this.host = d.string(flexible, "host")?;
        this.port = d.i32()?;
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
        out.put_i32(self.leader_id.0);
        out.put_i32(self.leader_epoch);
        out.put_string(flexible, &self.host, "host")?;
        out.put_i32(self.port);
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
impl crate::sample::Sample for CurrentLeader {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.leader_id = BrokerId(g.i32());
        this.leader_epoch = g.i32();
        this.host = g.string();
        this.port = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
