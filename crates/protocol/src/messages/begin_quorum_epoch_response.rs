//! `BeginQuorumEpochResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `BeginQuorumEpochResponse`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct BeginQuorumEpochResponse {
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1.
    pub topics: Vec<TopicData>,
    /// Tagged only; tag 0 in 1+.
    pub node_endpoints: Vec<NodeEndpoint>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for BeginQuorumEpochResponse {
    fn default() -> Self {
        BeginQuorumEpochResponse {
            error_code: 0,
            topics: Vec::new(),
            node_endpoints: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for BeginQuorumEpochResponse {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = BeginQuorumEpochResponse::default();
        this.error_code = d.i16()?;
        this.topics = d.array(flexible, TopicData::ENCODED_SIZE_MIN, "topics", |d| TopicData::decode(d, version))?;
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
        let flexible = version >= 1;
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

impl Message for BeginQuorumEpochResponse {
    const NAME: &'static str = "BeginQuorumEpochResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(1);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for BeginQuorumEpochResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.topics = g.vec(|g| <TopicData as crate::sample::Sample>::sample(g, version));
        if version >= 1 && g.bool() {
            this.node_endpoints = g.vec(|g| <NodeEndpoint as crate::sample::Sample>::sample(g, version));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `PartitionData`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionData {
    /// Versions 0-1.
    pub partition_index: i32,
    /// Versions 0-1.
    pub error_code: i16,
    /// Versions 0-1.
    pub leader_id: BrokerId,
    /// Versions 0-1.
    pub leader_epoch: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionData {
    fn default() -> Self {
        PartitionData {
            partition_index: 0,
            error_code: 0,
            leader_id: BrokerId(0),
            leader_epoch: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionData {
    const ENCODED_SIZE_MIN: usize = 14;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = PartitionData::default();
        this.partition_index = d.i32()?;
        this.error_code = d.i16()?;
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
        let flexible = version >= 1;
        out.put_i32(self.partition_index);
        out.put_i16(self.error_code);
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
impl crate::sample::Sample for PartitionData {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.error_code = g.i16();
        this.leader_id = BrokerId(g.i32());
        this.leader_epoch = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicData`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicData {
    /// Versions 0-1.
    pub topic_name: String,
    /// Versions 0-1.
    pub partitions: Vec<PartitionData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicData {
    fn default() -> Self {
        TopicData { topic_name: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TopicData {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 1;
        let mut this = TopicData::default();
        this.topic_name = d.string(flexible, "topic_name")?;
        this.partitions =
            d.array(flexible, PartitionData::ENCODED_SIZE_MIN, "partitions", |d| PartitionData::decode(d, version))?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 1;
        out.put_string(flexible, &self.topic_name, "topic_name")?;
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
impl crate::sample::Sample for TopicData {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 1;
        let mut this = Self::default();
        this.topic_name = g.string();
        this.partitions = g.vec(|g| <PartitionData as crate::sample::Sample>::sample(g, version));
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
