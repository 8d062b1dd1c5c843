//! `FetchSnapshotRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `FetchSnapshotRequest`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchSnapshotRequest {
    /// Tagged only; nullable 0-1; tag 0 in 0+.
    pub cluster_id: Option<String>,
    /// Versions 0-1.
    pub replica_id: BrokerId,
    /// Versions 0-1.
    pub max_bytes: i32,
    /// Versions 0-1.
    pub topics: Vec<TopicSnapshot>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for FetchSnapshotRequest {
    fn default() -> Self {
        FetchSnapshotRequest {
            cluster_id: None,
            replica_id: BrokerId(-1_i32),
            max_bytes: 2147483647,
            topics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for FetchSnapshotRequest {
    const ENCODED_SIZE_MIN: usize = 10;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = FetchSnapshotRequest::default();
        this.replica_id = d.i32().map(BrokerId)?;
        this.max_bytes = d.i32()?;
        this.topics =
            d.array(flexible, TopicSnapshot::ENCODED_SIZE_MIN, "topics", |d| TopicSnapshot::decode(d, version))?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 => {
                        let d = &mut field;
                        this.cluster_id = d.nullable_string(true)?;
                        d.finish_tagged(tag)?;
                    }
                    _ => this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() }),
                }
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = true;
        out.put_i32(self.replica_id.0);
        out.put_i32(self.max_bytes);
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if self.cluster_id.is_some() {
                let out = tagged.field(0);
                match &self.cluster_id {
                    Some(value) => {
                        out.put_string(true, value, "cluster_id")?;
                    }
                    None => {
                        out.put_length(true, true, None, "cluster_id")?;
                    }
                }
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for FetchSnapshotRequest {
    const NAME: &'static str = "FetchSnapshotRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for FetchSnapshotRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        if g.bool() {
            this.cluster_id = g.nullable(|g| g.string());
        }
        this.replica_id = BrokerId(g.i32());
        this.max_bytes = g.i32();
        this.topics = g.vec(|g| <TopicSnapshot as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `SnapshotId`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotId {
    /// Versions 0-1.
    pub end_offset: i64,
    /// Versions 0-1.
    pub epoch: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for SnapshotId {
    fn default() -> Self {
        SnapshotId { end_offset: 0, epoch: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for SnapshotId {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = SnapshotId::default();
        this.end_offset = d.i64()?;
        this.epoch = d.i32()?;
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
        out.put_i64(self.end_offset);
        out.put_i32(self.epoch);
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
impl crate::sample::Sample for SnapshotId {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.end_offset = g.i64();
        this.epoch = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `PartitionSnapshot`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionSnapshot {
    /// Versions 0-1.
    pub partition: i32,
    /// Versions 0-1.
    pub current_leader_epoch: i32,
    /// Versions 0-1.
    pub snapshot_id: SnapshotId,
    /// Versions 0-1.
    pub position: i64,
    /// Tagged only; tag 0 in 1+; ignorable.
    pub replica_directory_id: Uuid,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionSnapshot {
    fn default() -> Self {
        PartitionSnapshot {
            partition: 0,
            current_leader_epoch: 0,
            snapshot_id: SnapshotId::default(),
            position: 0,
            replica_directory_id: Uuid::ZERO,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionSnapshot {
    const ENCODED_SIZE_MIN: usize = 17;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = PartitionSnapshot::default();
        this.partition = d.i32()?;
        this.current_leader_epoch = d.i32()?;
        this.snapshot_id = SnapshotId::decode(d, version)?;
        this.position = d.i64()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 if version >= 1 => {
                        let d = &mut field;
                        this.replica_directory_id = d.uuid()?;
                        d.finish_tagged(tag)?;
                    }
                    _ => this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() }),
                }
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = true;
        out.put_i32(self.partition);
        out.put_i32(self.current_leader_epoch);
        self.snapshot_id.encode(out, version)?;
        out.put_i64(self.position);
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if version >= 1 && self.replica_directory_id != Uuid::ZERO {
                let out = tagged.field(0);
                out.put_uuid(&self.replica_directory_id);
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for PartitionSnapshot {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition = g.i32();
        this.current_leader_epoch = g.i32();
        this.snapshot_id = <SnapshotId as crate::sample::Sample>::sample(g, version);
        this.position = g.i64();
        if version >= 1 && g.bool() {
            this.replica_directory_id = g.uuid();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicSnapshot`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicSnapshot {
    /// Versions 0-1.
    pub name: String,
    /// Versions 0-1.
    pub partitions: Vec<PartitionSnapshot>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicSnapshot {
    fn default() -> Self {
        TopicSnapshot { name: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TopicSnapshot {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicSnapshot::default();
        this.name = d.string(flexible, "name")?;
        this.partitions = d.array(flexible, PartitionSnapshot::ENCODED_SIZE_MIN, "partitions", |d| {
            PartitionSnapshot::decode(d, version)
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
impl crate::sample::Sample for TopicSnapshot {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.partitions = g.vec(|g| <PartitionSnapshot as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
