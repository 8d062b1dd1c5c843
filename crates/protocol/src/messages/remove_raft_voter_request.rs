//! `RemoveRaftVoterRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `RemoveRaftVoterRequest`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoveRaftVoterRequest {
    /// Versions 0; nullable 0.
    pub cluster_id: Option<String>,
    /// Versions 0.
    pub voter_id: i32,
    /// Versions 0.
    pub voter_directory_id: Uuid,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for RemoveRaftVoterRequest {
    fn default() -> Self {
        RemoveRaftVoterRequest {
            cluster_id: Some(String::new()),
            voter_id: 0,
            voter_directory_id: Uuid::ZERO,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for RemoveRaftVoterRequest {
    const ENCODED_SIZE_MIN: usize = 22;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = RemoveRaftVoterRequest::default();
        this.cluster_id = d.nullable_string(flexible)?;
        this.voter_id = d.i32()?;
        this.voter_directory_id = d.uuid()?;
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
        out.put_i32(self.voter_id);
        out.put_uuid(&self.voter_directory_id);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for RemoveRaftVoterRequest {
    const NAME: &'static str = "RemoveRaftVoterRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for RemoveRaftVoterRequest {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.cluster_id = g.nullable(|g| g.string());
        this.voter_id = g.i32();
        this.voter_directory_id = g.uuid();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
