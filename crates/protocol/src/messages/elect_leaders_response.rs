//! `ElectLeadersResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ElectLeadersResponse`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct ElectLeadersResponse {
    /// Versions 0-2.
    pub throttle_time_ms: i32,
    /// Versions 1-2.
    pub error_code: i16,
    /// Versions 0-2.
    pub replica_election_results: Vec<ReplicaElectionResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ElectLeadersResponse {
    fn default() -> Self {
        ElectLeadersResponse {
            throttle_time_ms: 0,
            error_code: 0,
            replica_election_results: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ElectLeadersResponse {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = ElectLeadersResponse::default();
        this.throttle_time_ms = d.i32()?;
        if version >= 1 {
            this.error_code = d.i16()?;
        }
        this.replica_election_results =
            d.array(flexible, ReplicaElectionResult::ENCODED_SIZE_MIN, "replica_election_results", |d| {
                ReplicaElectionResult::decode(d, version)
            })?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 2;
        out.put_i32(self.throttle_time_ms);
        if version >= 1 {
            out.put_i16(self.error_code);
        } else {
            if self.error_code != 0 {
                return Err(EncodeError::FieldNotInVersion { field: "error_code", version });
            }
        }
        out.put_length(flexible, false, Some(self.replica_election_results.len()), "replica_election_results")?;
        for item in &self.replica_election_results {
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

impl Message for ElectLeadersResponse {
    const NAME: &'static str = "ElectLeadersResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ElectLeadersResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        if version >= 1 {
            this.error_code = g.i16();
        }
        this.replica_election_results = g.vec(|g| <ReplicaElectionResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `PartitionResult`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionResult {
    /// Versions 0-2.
    pub partition_id: i32,
    /// Versions 0-2.
    pub error_code: i16,
    /// Versions 0-2; nullable 0-2.
    pub error_message: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionResult {
    fn default() -> Self {
        PartitionResult {
            partition_id: 0,
            error_code: 0,
            error_message: Some(String::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionResult {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = PartitionResult::default();
        this.partition_id = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 2;
        out.put_i32(self.partition_id);
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
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
impl crate::sample::Sample for PartitionResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.partition_id = g.i32();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ReplicaElectionResult`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplicaElectionResult {
    /// Versions 0-2.
    pub topic: String,
    /// Versions 0-2.
    pub partition_result: Vec<PartitionResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ReplicaElectionResult {
    fn default() -> Self {
        ReplicaElectionResult { topic: String::new(), partition_result: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ReplicaElectionResult {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = ReplicaElectionResult::default();
        this.topic = d.string(flexible, "topic")?;
        this.partition_result = d.array(flexible, PartitionResult::ENCODED_SIZE_MIN, "partition_result", |d| {
            PartitionResult::decode(d, version)
        })?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 2;
        out.put_string(flexible, &self.topic, "topic")?;
        out.put_length(flexible, false, Some(self.partition_result.len()), "partition_result")?;
        for item in &self.partition_result {
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

#[cfg(feature = "sample")]
impl crate::sample::Sample for ReplicaElectionResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.topic = g.string();
        this.partition_result = g.vec(|g| <PartitionResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
