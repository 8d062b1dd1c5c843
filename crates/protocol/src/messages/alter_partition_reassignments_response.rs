//! `AlterPartitionReassignmentsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AlterPartitionReassignmentsResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterPartitionReassignmentsResponse {
    /// Versions 0-1.
    pub throttle_time_ms: i32,
    /// Versions 1; ignorable.
    pub allow_replication_factor_change: bool,
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1; nullable 0-1.
    pub error_message: Option<String>,
    /// Versions 0-1.
    pub responses: Vec<ReassignableTopicResponse>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AlterPartitionReassignmentsResponse {
    fn default() -> Self {
        AlterPartitionReassignmentsResponse {
            throttle_time_ms: 0,
            allow_replication_factor_change: true,
            error_code: 0,
            error_message: Some(String::new()),
            responses: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AlterPartitionReassignmentsResponse {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AlterPartitionReassignmentsResponse::default();
        this.throttle_time_ms = d.i32()?;
        if version >= 1 {
            this.allow_replication_factor_change = d.bool()?;
        }
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.responses = d.array(flexible, ReassignableTopicResponse::ENCODED_SIZE_MIN, "responses", |d| {
            ReassignableTopicResponse::decode(d, version)
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
        let flexible = true;
        out.put_i32(self.throttle_time_ms);
        if version >= 1 {
            out.put_bool(self.allow_replication_factor_change);
        }
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
        out.put_length(flexible, false, Some(self.responses.len()), "responses")?;
        for item in &self.responses {
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

impl Message for AlterPartitionReassignmentsResponse {
    const NAME: &'static str = "AlterPartitionReassignmentsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AlterPartitionReassignmentsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        if version >= 1 {
            this.allow_replication_factor_change = g.bool();
        }
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.responses = g.vec(|g| <ReassignableTopicResponse as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ReassignablePartitionResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct ReassignablePartitionResponse {
    /// Versions 0-1.
    pub partition_index: i32,
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1; nullable 0-1.
    pub error_message: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ReassignablePartitionResponse {
    fn default() -> Self {
        ReassignablePartitionResponse {
            partition_index: 0,
            error_code: 0,
            error_message: Some(String::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ReassignablePartitionResponse {
    const ENCODED_SIZE_MIN: usize = 8;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ReassignablePartitionResponse::default();
        this.partition_index = d.i32()?;
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
        let flexible = true;
        out.put_i32(self.partition_index);
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
impl crate::sample::Sample for ReassignablePartitionResponse {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ReassignableTopicResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct ReassignableTopicResponse {
    /// Versions 0-1.
    pub name: String,
    /// Versions 0-1.
    pub partitions: Vec<ReassignablePartitionResponse>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ReassignableTopicResponse {
    fn default() -> Self {
        ReassignableTopicResponse { name: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ReassignableTopicResponse {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ReassignableTopicResponse::default();
        this.name = d.string(flexible, "name")?;
        this.partitions = d.array(flexible, ReassignablePartitionResponse::ENCODED_SIZE_MIN, "partitions", |d| {
            ReassignablePartitionResponse::decode(d, version)
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
        let flexible = true;
        out.put_string(flexible, &self.name, "name")?;
        out.put_length(flexible, false, Some(self.partitions.len()), "partitions")?;
        for item in &self.partitions {
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
impl crate::sample::Sample for ReassignableTopicResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.partitions = g.vec(|g| <ReassignablePartitionResponse as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
