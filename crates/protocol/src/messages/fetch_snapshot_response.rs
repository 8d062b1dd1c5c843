//! `FetchSnapshotResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `FetchSnapshotResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchSnapshotResponse {
    /// Versions 0-1; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1.
    pub topics: Vec<TopicSnapshot>,
    /// Tagged only; tag 0 in 1+.
    pub node_endpoints: Vec<NodeEndpoint>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for FetchSnapshotResponse {
    fn default() -> Self {
        FetchSnapshotResponse {
            throttle_time_ms: 0,
            error_code: 0,
            topics: Vec::new(),
            node_endpoints: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for FetchSnapshotResponse {
    const ENCODED_SIZE_MIN: usize = 8;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = FetchSnapshotResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.error_code = d.i16()?;
        this.topics =
            d.array(flexible, TopicSnapshot::ENCODED_SIZE_MIN, "topics", |d| TopicSnapshot::decode(d, version))?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 if version >= 1 => {
                        let d = &mut field;
                        this.node_endpoints = d.array(true, NodeEndpoint::ENCODED_SIZE_MIN, "node_endpoints", |d| {
                            NodeEndpoint::decode(d, version)
                        })?;
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
        out.put_i32(self.throttle_time_ms);
        out.put_i16(self.error_code);
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if version >= 1 && !self.node_endpoints.is_empty() {
                let out = tagged.field(0);
                out.put_length(true, false, Some(self.node_endpoints.len()), "node_endpoints")?;
                for item in &self.node_endpoints {
                    item.encode(out, version)?;
                }
            } else {
                if !self.node_endpoints.is_empty() {
                    return Err(EncodeError::FieldNotInVersion { field: "node_endpoints", version });
                }
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for FetchSnapshotResponse {
    const NAME: &'static str = "FetchSnapshotResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for FetchSnapshotResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.error_code = g.i16();
        this.topics = g.vec(|g| <TopicSnapshot as crate::sample::Sample>::sample(g, version));
        if version >= 1 && g.bool() {
            this.node_endpoints = g.vec(|g| <NodeEndpoint as crate::sample::Sample>::sample(g, version));
        }
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

/// `LeaderIdAndEpoch`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaderIdAndEpoch {
    /// Versions 0-1.
    pub leader_id: BrokerId,
    /// Versions 0-1.
    pub leader_epoch: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for LeaderIdAndEpoch {
    fn default() -> Self {
        LeaderIdAndEpoch { leader_id: BrokerId(0), leader_epoch: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for LeaderIdAndEpoch {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = LeaderIdAndEpoch::default();
        this.leader_id = d.i32().map(BrokerId)?;
        this.leader_epoch = d.i32()?;
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
        out.put_i32(self.leader_id.0);
        out.put_i32(self.leader_epoch);
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
impl crate::sample::Sample for LeaderIdAndEpoch {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.leader_id = BrokerId(g.i32());
        this.leader_epoch = g.i32();
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
    pub index: i32,
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1.
    pub snapshot_id: SnapshotId,
    /// Tagged only; tag 0 in 0+.
    pub current_leader: LeaderIdAndEpoch,
    /// Versions 0-1.
    pub size: i64,
    /// Versions 0-1.
    pub position: i64,
    /// Versions 0-1.
    pub unaligned_records: Records,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionSnapshot {
    fn default() -> Self {
        PartitionSnapshot {
            index: 0,
            error_code: 0,
            snapshot_id: SnapshotId::default(),
            current_leader: LeaderIdAndEpoch::default(),
            size: 0,
            position: 0,
            unaligned_records: Records::default(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionSnapshot {
    const ENCODED_SIZE_MIN: usize = 24;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = PartitionSnapshot::default();
        this.index = d.i32()?;
        this.error_code = d.i16()?;
        this.snapshot_id = SnapshotId::decode(d, version)?;
        this.size = d.i64()?;
        this.position = d.i64()?;
        this.unaligned_records = Records::Bytes(d.bytes(flexible, "unaligned_records")?);
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 => {
                        let d = &mut field;
                        this.current_leader = LeaderIdAndEpoch::decode(d, version)?;
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
        out.put_i32(self.index);
        out.put_i16(self.error_code);
        self.snapshot_id.encode(out, version)?;
        out.put_i64(self.size);
        out.put_i64(self.position);
        out.put_records(flexible, Some(&self.unaligned_records), "unaligned_records")?;
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if self.current_leader != LeaderIdAndEpoch::default() {
                let out = tagged.field(0);
                self.current_leader.encode(out, version)?;
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
        this.index = g.i32();
        this.error_code = g.i16();
        this.snapshot_id = <SnapshotId as crate::sample::Sample>::sample(g, version);
        if g.bool() {
            this.current_leader = <LeaderIdAndEpoch as crate::sample::Sample>::sample(g, version);
        }
        this.size = g.i64();
        this.position = g.i64();
        this.unaligned_records = Records::Bytes(g.bytes());
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

/// `NodeEndpoint`, versions 1.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeEndpoint {
    /// Versions 1; map key.
    pub node_id: BrokerId,
    /// Versions 1.
    pub host: String,
    /// Versions 1.
    pub port: u16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for NodeEndpoint {
    fn default() -> Self {
        NodeEndpoint { node_id: BrokerId(0), host: String::new(), port: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for NodeEndpoint {
    const ENCODED_SIZE_MIN: usize = 8;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = NodeEndpoint::default();
        this.node_id = d.i32().map(BrokerId)?;
        this.host = d.string(flexible, "host")?;
        this.port = d.u16()?;
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
        out.put_i32(self.node_id.0);
        out.put_string(flexible, &self.host, "host")?;
        out.put_u16(self.port);
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
impl crate::sample::Sample for NodeEndpoint {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.node_id = BrokerId(g.i32());
        this.host = g.string();
        this.port = g.u16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
