//! `ListOffsetsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ListOffsetsRequest`, versions 1-11.
#[derive(Debug, Clone, PartialEq)]
pub struct ListOffsetsRequest {
    /// Versions 1-11.
    pub replica_id: BrokerId,
    /// Versions 2-11.
    pub isolation_level: i8,
    /// Versions 1-11.
    pub topics: Vec<ListOffsetsTopic>,
    /// Versions 10-11; ignorable.
    pub timeout_ms: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListOffsetsRequest {
    fn default() -> Self {
        ListOffsetsRequest {
            replica_id: BrokerId(0),
            isolation_level: 0,
            topics: Vec::new(),
            timeout_ms: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ListOffsetsRequest {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 6;
        let mut this = ListOffsetsRequest::default();
        this.replica_id = d.i32().map(BrokerId)?;
        if version >= 2 {
            this.isolation_level = d.i8()?;
        }
        this.topics =
            d.array(flexible, ListOffsetsTopic::ENCODED_SIZE_MIN, "topics", |d| ListOffsetsTopic::decode(d, version))?;
        if version >= 10 {
            this.timeout_ms = d.i32()?;
        }
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 6;
        out.put_i32(self.replica_id.0);
        if version >= 2 {
            out.put_i8(self.isolation_level);
        } else {
            if self.isolation_level != 0 {
                return Err(EncodeError::FieldNotInVersion { field: "isolation_level", version });
            }
        }
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        if version >= 10 {
            out.put_i32(self.timeout_ms);
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

impl Message for ListOffsetsRequest {
    const NAME: &'static str = "ListOffsetsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 11 };
    const FLEXIBLE_MIN: Option<i16> = Some(6);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ListOffsetsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 6;
        let mut this = Self::default();
        this.replica_id = BrokerId(g.i32());
        if version >= 2 {
            this.isolation_level = g.i8();
        }
        this.topics = g.vec(|g| <ListOffsetsTopic as crate::sample::Sample>::sample(g, version));
        if version >= 10 {
            this.timeout_ms = g.i32();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ListOffsetsPartition`, versions 1-11.
#[derive(Debug, Clone, PartialEq)]
pub struct ListOffsetsPartition {
    /// Versions 1-11.
    pub partition_index: i32,
    /// Versions 4-11; ignorable.
    pub current_leader_epoch: i32,
    /// Versions 1-11.
    pub timestamp: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListOffsetsPartition {
    fn default() -> Self {
        ListOffsetsPartition {
            partition_index: 0,
            current_leader_epoch: -1_i32,
            timestamp: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ListOffsetsPartition {
    const ENCODED_SIZE_MIN: usize = 12;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 6;
        let mut this = ListOffsetsPartition::default();
        this.partition_index = d.i32()?;
        if version >= 4 {
            this.current_leader_epoch = d.i32()?;
        }
        this.timestamp = d.i64()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 6;
        out.put_i32(self.partition_index);
        if version >= 4 {
            out.put_i32(self.current_leader_epoch);
        }
        out.put_i64(self.timestamp);
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
impl crate::sample::Sample for ListOffsetsPartition {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 6;
        let mut this = Self::default();
        this.partition_index = g.i32();
        if version >= 4 {
            this.current_leader_epoch = g.i32();
        }
        this.timestamp = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ListOffsetsTopic`, versions 1-11.
#[derive(Debug, Clone, PartialEq)]
pub struct ListOffsetsTopic {
    /// Versions 1-11.
    pub name: String,
    /// Versions 1-11.
    pub partitions: Vec<ListOffsetsPartition>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ListOffsetsTopic {
    fn default() -> Self {
        ListOffsetsTopic { name: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ListOffsetsTopic {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 6;
        let mut this = ListOffsetsTopic::default();
        this.name = d.string(flexible, "name")?;
        this.partitions = d.array(flexible, ListOffsetsPartition::ENCODED_SIZE_MIN, "partitions", |d| {
            ListOffsetsPartition::decode(d, version)
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
        let flexible = version >= 6;
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
impl crate::sample::Sample for ListOffsetsTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 6;
        let mut this = Self::default();
        this.name = g.string();
        this.partitions = g.vec(|g| <ListOffsetsPartition as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
