//! `CreateTopicsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `CreateTopicsRequest`, versions 2-7.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateTopicsRequest {
    /// Versions 2-7.
    pub topics: Vec<CreatableTopic>,
    /// Versions 2-7.
    pub timeout_ms: i32,
    /// Versions 2-7.
    pub validate_only: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CreateTopicsRequest {
    fn default() -> Self {
        CreateTopicsRequest {
            topics: Vec::new(),
            timeout_ms: 60000,
            validate_only: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for CreateTopicsRequest {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 5;
        let mut this = CreateTopicsRequest::default();
        this.topics =
            d.array(flexible, CreatableTopic::ENCODED_SIZE_MIN, "topics", |d| CreatableTopic::decode(d, version))?;
        this.timeout_ms = d.i32()?;
        this.validate_only = d.bool()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 5;
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        out.put_i32(self.timeout_ms);
        out.put_bool(self.validate_only);
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for CreateTopicsRequest {
    const NAME: &'static str = "CreateTopicsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 2, max: 7 };
    const FLEXIBLE_MIN: Option<i16> = Some(5);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for CreateTopicsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 5;
        let mut this = Self::default();
        this.topics = g.vec(|g| <CreatableTopic as crate::sample::Sample>::sample(g, version));
        this.timeout_ms = g.i32();
        this.validate_only = g.bool();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `CreatableReplicaAssignment`, versions 2-7.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatableReplicaAssignment {
    /// Versions 2-7; map key.
    pub partition_index: i32,
    /// Versions 2-7.
    pub broker_ids: Vec<BrokerId>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CreatableReplicaAssignment {
    fn default() -> Self {
        CreatableReplicaAssignment { partition_index: 0, broker_ids: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for CreatableReplicaAssignment {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 5;
        let mut this = CreatableReplicaAssignment::default();
        this.partition_index = d.i32()?;
        this.broker_ids = d.array(flexible, 4, "broker_ids", |d| d.i32().map(BrokerId))?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 5;
        out.put_i32(self.partition_index);
        out.put_length(flexible, false, Some(self.broker_ids.len()), "broker_ids")?;
        for item in &self.broker_ids {
            out.put_i32(item.0);
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
impl crate::sample::Sample for CreatableReplicaAssignment {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 5;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.broker_ids = g.vec(|g| BrokerId(g.i32()));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `CreatableTopicConfig`, versions 2-7.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatableTopicConfig {
    /// Versions 2-7; map key.
    pub name: String,
    /// Versions 2-7; nullable 2-7.
    pub value: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CreatableTopicConfig {
    fn default() -> Self {
        CreatableTopicConfig { name: String::new(), value: Some(String::new()), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for CreatableTopicConfig {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 5;
        let mut this = CreatableTopicConfig::default();
        this.name = d.string(flexible, "name")?;
        this.value = d.nullable_string(flexible)?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 5;
        out.put_string(flexible, &self.name, "name")?;
        match &self.value {
            Some(value) => {
                out.put_string(flexible, value, "value")?;
            }
            None => {
                out.put_length(flexible, true, None, "value")?;
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
impl crate::sample::Sample for CreatableTopicConfig {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 5;
        let mut this = Self::default();
        this.name = g.string();
        this.value = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `CreatableTopic`, versions 2-7.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatableTopic {
    /// Versions 2-7; map key.
    pub name: String,
    /// Versions 2-7.
    pub num_partitions: i32,
    /// Versions 2-7.
    pub replication_factor: i16,
    /// Versions 2-7.
    pub assignments: Vec<CreatableReplicaAssignment>,
    /// Versions 2-7.
    pub configs: Vec<CreatableTopicConfig>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CreatableTopic {
    fn default() -> Self {
        CreatableTopic {
            name: String::new(),
            num_partitions: 0,
            replication_factor: 0,
            assignments: Vec::new(),
            configs: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for CreatableTopic {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 5;
        let mut this = CreatableTopic::default();
        this.name = d.string(flexible, "name")?;
        this.num_partitions = d.i32()?;
        this.replication_factor = d.i16()?;
        this.assignments = d.array(flexible, CreatableReplicaAssignment::ENCODED_SIZE_MIN, "assignments", |d| {
            CreatableReplicaAssignment::decode(d, version)
        })?;
        this.configs = d.array(flexible, CreatableTopicConfig::ENCODED_SIZE_MIN, "configs", |d| {
            CreatableTopicConfig::decode(d, version)
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
        let flexible = version >= 5;
        out.put_string(flexible, &self.name, "name")?;
        out.put_i32(self.num_partitions);
        out.put_i16(self.replication_factor);
        out.put_length(flexible, false, Some(self.assignments.len()), "assignments")?;
        for item in &self.assignments {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.configs.len()), "configs")?;
        for item in &self.configs {
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
impl crate::sample::Sample for CreatableTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 5;
        let mut this = Self::default();
        this.name = g.string();
        this.num_partitions = g.i32();
        this.replication_factor = g.i16();
        this.assignments = g.vec(|g| <CreatableReplicaAssignment as crate::sample::Sample>::sample(g, version));
        this.configs = g.vec(|g| <CreatableTopicConfig as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
