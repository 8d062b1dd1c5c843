//! `ListPartitionReassignmentsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ListPartitionReassignmentsResponse`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ListPartitionReassignmentsResponse {
    /// Versions 0.
    pub throttle_time_ms: i32,
    /// Versions 0.
    pub error_code: i16,
    /// Versions 0; nullable 0.
    pub error_message: Option<String>,
    /// Versions 0.
    pub topics: Vec<OngoingTopicReassignment>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListPartitionReassignmentsResponse {
    fn default() -> Self {
        ListPartitionReassignmentsResponse {
            throttle_time_ms: 0,
            error_code: 0,
            error_message: Some(String::new()),
            topics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ListPartitionReassignmentsResponse {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ListPartitionReassignmentsResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.topics = d.array(flexible, OngoingTopicReassignment::ENCODED_SIZE_MIN, "topics", |d| {
            OngoingTopicReassignment::decode(d, version)
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
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
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

impl Message for ListPartitionReassignmentsResponse {
    const NAME: &'static str = "ListPartitionReassignmentsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ListPartitionReassignmentsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.topics = g.vec(|g| <OngoingTopicReassignment as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `OngoingPartitionReassignment`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct OngoingPartitionReassignment {
    /// Versions 0.
    pub partition_index: i32,
    /// Versions 0.
    pub replicas: Vec<BrokerId>,
    /// Versions 0.
    pub adding_replicas: Vec<BrokerId>,
    /// Versions 0.
    pub removing_replicas: Vec<BrokerId>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OngoingPartitionReassignment {
    fn default() -> Self {
        OngoingPartitionReassignment {
            partition_index: 0,
            replicas: Vec::new(),
            adding_replicas: Vec::new(),
            removing_replicas: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for OngoingPartitionReassignment {
    const ENCODED_SIZE_MIN: usize = 8;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = OngoingPartitionReassignment::default();
        this.partition_index = d.i32()?;
        this.replicas = d.array(flexible, 4, "replicas", |d| d.i32().map(BrokerId))?;
        this.adding_replicas = d.array(flexible, 4, "adding_replicas", |d| d.i32().map(BrokerId))?;
        this.removing_replicas = d.array(flexible, 4, "removing_replicas", |d| d.i32().map(BrokerId))?;
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
        out.put_length(flexible, false, Some(self.replicas.len()), "replicas")?;
        for item in &self.replicas {
            out.put_i32(item.0);
        }
        out.put_length(flexible, false, Some(self.adding_replicas.len()), "adding_replicas")?;
        for item in &self.adding_replicas {
            out.put_i32(item.0);
        }
        out.put_length(flexible, false, Some(self.removing_replicas.len()), "removing_replicas")?;
        for item in &self.removing_replicas {
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
impl crate::sample::Sample for OngoingPartitionReassignment {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.replicas = g.vec(|g| BrokerId(g.i32()));
        this.adding_replicas = g.vec(|g| BrokerId(g.i32()));
        this.removing_replicas = g.vec(|g| BrokerId(g.i32()));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `OngoingTopicReassignment`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct OngoingTopicReassignment {
    /// Versions 0.
    pub name: String,
    /// Versions 0.
    pub partitions: Vec<OngoingPartitionReassignment>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OngoingTopicReassignment {
    fn default() -> Self {
        OngoingTopicReassignment { name: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for OngoingTopicReassignment {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = OngoingTopicReassignment::default();
        this.name = d.string(flexible, "name")?;
        this.partitions = d.array(flexible, OngoingPartitionReassignment::ENCODED_SIZE_MIN, "partitions", |d| {
            OngoingPartitionReassignment::decode(d, version)
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
impl crate::sample::Sample for OngoingTopicReassignment {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.partitions = g.vec(|g| <OngoingPartitionReassignment as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
