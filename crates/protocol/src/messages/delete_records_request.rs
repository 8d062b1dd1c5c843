//! `DeleteRecordsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DeleteRecordsRequest`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteRecordsRequest {
    /// Versions 0-2.
    pub topics: Vec<DeleteRecordsTopic>,
    /// Versions 0-2.
    pub timeout_ms: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DeleteRecordsRequest {
    fn default() -> Self {
        DeleteRecordsRequest { topics: Vec::new(), timeout_ms: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for DeleteRecordsRequest {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DeleteRecordsRequest::default();
        this.topics = d.array(flexible, DeleteRecordsTopic::ENCODED_SIZE_MIN, "topics", |d| {
            DeleteRecordsTopic::decode(d, version)
        })?;
        this.timeout_ms = d.i32()?;
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
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for DeleteRecordsRequest {
    const NAME: &'static str = "DeleteRecordsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DeleteRecordsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.topics = g.vec(|g| <DeleteRecordsTopic as crate::sample::Sample>::sample(g, version));
        this.timeout_ms = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DeleteRecordsPartition`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteRecordsPartition {
    /// Versions 0-2.
    pub partition_index: i32,
    /// Versions 0-2.
    pub offset: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DeleteRecordsPartition {
    fn default() -> Self {
        DeleteRecordsPartition { partition_index: 0, offset: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for DeleteRecordsPartition {
    const ENCODED_SIZE_MIN: usize = 12;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DeleteRecordsPartition::default();
        this.partition_index = d.i32()?;
        this.offset = d.i64()?;
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
        out.put_i32(self.partition_index);
        out.put_i64(self.offset);
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
impl crate::sample::Sample for DeleteRecordsPartition {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.offset = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DeleteRecordsTopic`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteRecordsTopic {
    /// Versions 0-2.
    pub name: String,
    /// Versions 0-2.
    pub partitions: Vec<DeleteRecordsPartition>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DeleteRecordsTopic {
    fn default() -> Self {
        DeleteRecordsTopic { name: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for DeleteRecordsTopic {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DeleteRecordsTopic::default();
        this.name = d.string(flexible, "name")?;
        this.partitions = d.array(flexible, DeleteRecordsPartition::ENCODED_SIZE_MIN, "partitions", |d| {
            DeleteRecordsPartition::decode(d, version)
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
impl crate::sample::Sample for DeleteRecordsTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.name = g.string();
        this.partitions = g.vec(|g| <DeleteRecordsPartition as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
