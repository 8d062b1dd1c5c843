//! `StreamsGroupTopologyDescriptionUpdateRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `StreamsGroupTopologyDescriptionUpdateRequest`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsGroupTopologyDescriptionUpdateRequest {
    /// Versions 0.
    pub group_id: String,
    /// Versions 0.
    pub member_id: String,
    /// Versions 0.
    pub topology_epoch: i32,
    /// Versions 0.
    pub topology_description: TopologyDescription,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for StreamsGroupTopologyDescriptionUpdateRequest {
    fn default() -> Self {
        StreamsGroupTopologyDescriptionUpdateRequest {
            group_id: String::new(),
            member_id: String::new(),
            topology_epoch: 0,
            topology_description: TopologyDescription::default(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for StreamsGroupTopologyDescriptionUpdateRequest {
    const ENCODED_SIZE_MIN: usize = 10;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = StreamsGroupTopologyDescriptionUpdateRequest::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.member_id = d.string(flexible, "member_id")?;
        this.topology_epoch = d.i32()?;
        this.topology_description = TopologyDescription::decode(d, version)?;
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
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_string(flexible, &self.member_id, "member_id")?;
        out.put_i32(self.topology_epoch);
        self.topology_description.encode(out, version)?;
        if flexible {
            let tagged = TaggedFieldWriter::new();
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for StreamsGroupTopologyDescriptionUpdateRequest {
    const NAME: &'static str = "StreamsGroupTopologyDescriptionUpdateRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for StreamsGroupTopologyDescriptionUpdateRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.group_id = g.string();
        this.member_id = g.string();
        this.topology_epoch = g.i32();
        this.topology_description = <TopologyDescription as crate::sample::Sample>::sample(g, version);
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopologyDescription`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TopologyDescription {
    /// Versions 0.
    pub subtopologies: Vec<TopologyDescriptionSubtopology>,
    /// Versions 0.
    pub global_stores: Vec<TopologyDescriptionGlobalStore>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopologyDescription {
    fn default() -> Self {
        TopologyDescription { subtopologies: Vec::new(), global_stores: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TopologyDescription {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopologyDescription::default();
        this.subtopologies =
            d.array(flexible, TopologyDescriptionSubtopology::ENCODED_SIZE_MIN, "subtopologies", |d| {
                TopologyDescriptionSubtopology::decode(d, version)
            })?;
        this.global_stores =
            d.array(flexible, TopologyDescriptionGlobalStore::ENCODED_SIZE_MIN, "global_stores", |d| {
                TopologyDescriptionGlobalStore::decode(d, version)
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
        out.put_length(flexible, false, Some(self.subtopologies.len()), "subtopologies")?;
        for item in &self.subtopologies {
            item.encode(out, version)?;
        }
        out.put_length(flexible, false, Some(self.global_stores.len()), "global_stores")?;
        for item in &self.global_stores {
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
impl crate::sample::Sample for TopologyDescription {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.subtopologies = g.vec(|g| <TopologyDescriptionSubtopology as crate::sample::Sample>::sample(g, version));
        this.global_stores = g.vec(|g| <TopologyDescriptionGlobalStore as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopologyDescriptionSubtopology`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TopologyDescriptionSubtopology {
    /// Versions 0.
    pub subtopology_id: String,
    /// Versions 0.
    pub nodes: Vec<TopologyDescriptionNode>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopologyDescriptionSubtopology {
    fn default() -> Self {
        TopologyDescriptionSubtopology {
            subtopology_id: String::new(),
            nodes: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TopologyDescriptionSubtopology {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopologyDescriptionSubtopology::default();
        this.subtopology_id = d.string(flexible, "subtopology_id")?;
        this.nodes = d.array(flexible, TopologyDescriptionNode::ENCODED_SIZE_MIN, "nodes", |d| {
            TopologyDescriptionNode::decode(d, version)
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
        out.put_string(flexible, &self.subtopology_id, "subtopology_id")?;
        out.put_length(flexible, false, Some(self.nodes.len()), "nodes")?;
        for item in &self.nodes {
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
impl crate::sample::Sample for TopologyDescriptionSubtopology {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.subtopology_id = g.string();
        this.nodes = g.vec(|g| <TopologyDescriptionNode as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopologyDescriptionNode`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TopologyDescriptionNode {
    /// Versions 0.
    pub name: String,
    /// Versions 0.
    pub node_type: i8,
    /// Versions 0.
    pub source_topics: Vec<String>,
    /// Versions 0; nullable 0.
    pub sink_topic: Option<String>,
    /// Versions 0.
    pub stores: Vec<String>,
    /// Versions 0.
    pub successors: Vec<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopologyDescriptionNode {
    fn default() -> Self {
        TopologyDescriptionNode {
            name: String::new(),
            node_type: 0,
            source_topics: Vec::new(),
            sink_topic: None,
            stores: Vec::new(),
            successors: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TopologyDescriptionNode {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopologyDescriptionNode::default();
        this.name = d.string(flexible, "name")?;
        this.node_type = d.i8()?;
        this.source_topics = d.array(flexible, 1, "source_topics", |d| d.string(flexible, "source_topics"))?;
        this.sink_topic = d.nullable_string(flexible)?;
        this.stores = d.array(flexible, 1, "stores", |d| d.string(flexible, "stores"))?;
        this.successors = d.array(flexible, 1, "successors", |d| d.string(flexible, "successors"))?;
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
        out.put_i8(self.node_type);
        out.put_length(flexible, false, Some(self.source_topics.len()), "source_topics")?;
        for item in &self.source_topics {
            out.put_string(flexible, item, "source_topics")?;
        }
        match &self.sink_topic {
            Some(value) => {
                out.put_string(flexible, value, "sink_topic")?;
            }
            None => {
                out.put_length(flexible, true, None, "sink_topic")?;
            }
        }
        out.put_length(flexible, false, Some(self.stores.len()), "stores")?;
        for item in &self.stores {
            out.put_string(flexible, item, "stores")?;
        }
        out.put_length(flexible, false, Some(self.successors.len()), "successors")?;
        for item in &self.successors {
            out.put_string(flexible, item, "successors")?;
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
impl crate::sample::Sample for TopologyDescriptionNode {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.node_type = g.i8();
        this.source_topics = g.vec(|g| g.string());
        this.sink_topic = g.nullable(|g| g.string());
        this.stores = g.vec(|g| g.string());
        this.successors = g.vec(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopologyDescriptionGlobalStore`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TopologyDescriptionGlobalStore {
    /// Versions 0.
    pub source: TopologyDescriptionNode,
    /// Versions 0.
    pub processor: TopologyDescriptionNode,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopologyDescriptionGlobalStore {
    fn default() -> Self {
        TopologyDescriptionGlobalStore {
            source: TopologyDescriptionNode::default(),
            processor: TopologyDescriptionNode::default(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TopologyDescriptionGlobalStore {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopologyDescriptionGlobalStore::default();
        this.source = TopologyDescriptionNode::decode(d, version)?;
        this.processor = TopologyDescriptionNode::decode(d, version)?;
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
        self.source.encode(out, version)?;
        self.processor.encode(out, version)?;
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
impl crate::sample::Sample for TopologyDescriptionGlobalStore {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.source = <TopologyDescriptionNode as crate::sample::Sample>::sample(g, version);
        this.processor = <TopologyDescriptionNode as crate::sample::Sample>::sample(g, version);
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
