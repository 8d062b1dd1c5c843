//! `AlterPartitionReassignmentsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AlterPartitionReassignmentsRequest`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterPartitionReassignmentsRequest {
    /// Versions 0-1.
    pub timeout_ms: i32,
    /// Versions 1.
    pub allow_replication_factor_change: bool,
    /// Versions 0-1.
    pub topics: Vec<ReassignableTopic>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AlterPartitionReassignmentsRequest {
    fn default() -> Self {
        AlterPartitionReassignmentsRequest {
            timeout_ms: 60000,
            allow_replication_factor_change: true,
            topics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AlterPartitionReassignmentsRequest {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AlterPartitionReassignmentsRequest::default();
        this.timeout_ms = d.i32()?;
        if version >= 1 {
            this.allow_replication_factor_change = d.bool()?;
        }
        this.topics = d.array(flexible, ReassignableTopic::ENCODED_SIZE_MIN, "topics", |d| {
            ReassignableTopic::decode(d, version)
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
        out.put_i32(self.timeout_ms);
        if version >= 1 {
            out.put_bool(self.allow_replication_factor_change);
        } else {
            if !self.allow_replication_factor_change {
                return Err(EncodeError::FieldNotInVersion { field: "allow_replication_factor_change", version });
            }
        }
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
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

impl Message for AlterPartitionReassignmentsRequest {
    const NAME: &'static str = "AlterPartitionReassignmentsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AlterPartitionReassignmentsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.timeout_ms = g.i32();
        if version >= 1 {
            this.allow_replication_factor_change = g.bool();
        }
        this.topics = g.vec(|g| <ReassignableTopic as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ReassignablePartition`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct ReassignablePartition {
    /// Versions 0-1.
    pub partition_index: i32,
    /// Versions 0-1; nullable 0-1.
    pub replicas: Option<Vec<BrokerId>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ReassignablePartition {
    fn default() -> Self {
        ReassignablePartition { partition_index: 0, replicas: None, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ReassignablePartition {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ReassignablePartition::default();
        this.partition_index = d.i32()?;
        this.replicas = d.nullable_array(flexible, 4, |d| d.i32().map(BrokerId))?;
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
        match &self.replicas {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "replicas")?;
                for item in value {
                    out.put_i32(item.0);
                }
            }
            None => {
                out.put_length(flexible, false, None, "replicas")?;
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
impl crate::sample::Sample for ReassignablePartition {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.replicas = g.nullable(|g| g.vec(|g| BrokerId(g.i32())));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ReassignableTopic`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct ReassignableTopic {
    /// Versions 0-1.
    pub name: String,
    /// Versions 0-1.
    pub partitions: Vec<ReassignablePartition>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ReassignableTopic {
    fn default() -> Self {
        ReassignableTopic { name: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ReassignableTopic {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ReassignableTopic::default();
        this.name = d.string(flexible, "name")?;
        this.partitions = d.array(flexible, ReassignablePartition::ENCODED_SIZE_MIN, "partitions", |d| {
            ReassignablePartition::decode(d, version)
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
impl crate::sample::Sample for ReassignableTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.partitions = g.vec(|g| <ReassignablePartition as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
