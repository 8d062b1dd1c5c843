//! `ListPartitionReassignmentsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ListPartitionReassignmentsRequest`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ListPartitionReassignmentsRequest {
    /// Versions 0.
    pub timeout_ms: i32,
    /// Versions 0; nullable 0.
    pub topics: Option<Vec<ListPartitionReassignmentsTopics>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListPartitionReassignmentsRequest {
    fn default() -> Self {
        ListPartitionReassignmentsRequest { timeout_ms: 60000, topics: None, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ListPartitionReassignmentsRequest {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ListPartitionReassignmentsRequest::default();
        this.timeout_ms = d.i32()?;
        this.topics = d.nullable_array(flexible, ListPartitionReassignmentsTopics::ENCODED_SIZE_MIN, |d| {
            ListPartitionReassignmentsTopics::decode(d, version)
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
        match &self.topics {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "topics")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "topics")?;
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

impl Message for ListPartitionReassignmentsRequest {
    const NAME: &'static str = "ListPartitionReassignmentsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ListPartitionReassignmentsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.timeout_ms = g.i32();
        this.topics =
            g.nullable(|g| g.vec(|g| <ListPartitionReassignmentsTopics as crate::sample::Sample>::sample(g, version)));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ListPartitionReassignmentsTopics`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ListPartitionReassignmentsTopics {
    /// Versions 0.
    pub name: String,
    /// Versions 0.
    pub partition_indexes: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListPartitionReassignmentsTopics {
    fn default() -> Self {
        ListPartitionReassignmentsTopics {
            name: String::new(),
            partition_indexes: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ListPartitionReassignmentsTopics {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ListPartitionReassignmentsTopics::default();
        this.name = d.string(flexible, "name")?;
        this.partition_indexes = d.array(flexible, 4, "partition_indexes", |d| d.i32())?;
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
        out.put_length(flexible, false, Some(self.partition_indexes.len()), "partition_indexes")?;
        for item in &self.partition_indexes {
            out.put_i32(*item);
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
impl crate::sample::Sample for ListPartitionReassignmentsTopics {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.partition_indexes = g.vec(|g| g.i32());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
