//! `CreatePartitionsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `CreatePartitionsRequest`, versions 0-3.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatePartitionsRequest {
    /// Versions 0-3.
    pub topics: Vec<CreatePartitionsTopic>,
    /// Versions 0-3.
    pub timeout_ms: i32,
    /// Versions 0-3.
    pub validate_only: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CreatePartitionsRequest {
    fn default() -> Self {
        CreatePartitionsRequest {
            topics: Vec::new(),
            timeout_ms: 0,
            validate_only: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for CreatePartitionsRequest {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = CreatePartitionsRequest::default();
        this.topics = d.array(flexible, CreatePartitionsTopic::ENCODED_SIZE_MIN, "topics", |d| {
            CreatePartitionsTopic::decode(d, version)
        })?;
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
        let flexible = version >= 2;
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

impl Message for CreatePartitionsRequest {
    const NAME: &'static str = "CreatePartitionsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 3 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for CreatePartitionsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.topics = g.vec(|g| <CreatePartitionsTopic as crate::sample::Sample>::sample(g, version));
        this.timeout_ms = g.i32();
        this.validate_only = g.bool();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `CreatePartitionsAssignment`, versions 0-3.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatePartitionsAssignment {
    /// Versions 0-3.
    pub broker_ids: Vec<BrokerId>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CreatePartitionsAssignment {
    fn default() -> Self {
        CreatePartitionsAssignment { broker_ids: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for CreatePartitionsAssignment {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = CreatePartitionsAssignment::default();
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
        let flexible = version >= 2;
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
impl crate::sample::Sample for CreatePartitionsAssignment {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.broker_ids = g.vec(|g| BrokerId(g.i32()));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `CreatePartitionsTopic`, versions 0-3.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatePartitionsTopic {
    /// Versions 0-3; map key.
    pub name: String,
    /// Versions 0-3.
    pub count: i32,
    /// Versions 0-3; nullable 0-3.
    pub assignments: Option<Vec<CreatePartitionsAssignment>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CreatePartitionsTopic {
    fn default() -> Self {
        CreatePartitionsTopic {
            name: String::new(),
            count: 0,
            assignments: Some(Vec::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for CreatePartitionsTopic {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = CreatePartitionsTopic::default();
        this.name = d.string(flexible, "name")?;
        this.count = d.i32()?;
        this.assignments = d.nullable_array(flexible, CreatePartitionsAssignment::ENCODED_SIZE_MIN, |d| {
            CreatePartitionsAssignment::decode(d, version)
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
        out.put_string(flexible, &self.name, "name")?;
        out.put_i32(self.count);
        match &self.assignments {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "assignments")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "assignments")?;
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
impl crate::sample::Sample for CreatePartitionsTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.name = g.string();
        this.count = g.i32();
        this.assignments =
            g.nullable(|g| g.vec(|g| <CreatePartitionsAssignment as crate::sample::Sample>::sample(g, version)));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
