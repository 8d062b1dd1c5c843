//! `OffsetDeleteRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `OffsetDeleteRequest`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetDeleteRequest {
    /// Versions 0.
    pub group_id: String,
    /// Versions 0.
    pub topics: Vec<OffsetDeleteRequestTopic>,
}

impl Default for OffsetDeleteRequest {
    fn default() -> Self {
        OffsetDeleteRequest { group_id: String::new(), topics: Vec::new() }
    }
}

impl Struct for OffsetDeleteRequest {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = OffsetDeleteRequest::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.topics = d.array(flexible, OffsetDeleteRequestTopic::ENCODED_SIZE_MIN, "topics", |d| {
            OffsetDeleteRequestTopic::decode(d, version)
        })?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        Ok(())
    }
}

impl Message for OffsetDeleteRequest {
    const NAME: &'static str = "OffsetDeleteRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for OffsetDeleteRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let mut this = Self::default();
        this.group_id = g.string();
        this.topics = g.vec(|g| <OffsetDeleteRequestTopic as crate::sample::Sample>::sample(g, version));
        this
    }
}

/// `OffsetDeleteRequestPartition`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetDeleteRequestPartition {
    /// Versions 0.
    pub partition_index: i32,
}

impl Default for OffsetDeleteRequestPartition {
    fn default() -> Self {
        OffsetDeleteRequestPartition { partition_index: 0 }
    }
}

impl Struct for OffsetDeleteRequestPartition {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let mut this = OffsetDeleteRequestPartition::default();
        this.partition_index = d.i32()?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        out.put_i32(self.partition_index);
        Ok(())
    }
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for OffsetDeleteRequestPartition {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.partition_index = g.i32();
        this
    }
}

/// `OffsetDeleteRequestTopic`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetDeleteRequestTopic {
    /// Versions 0; map key.
    pub name: String,
    /// Versions 0.
    pub partitions: Vec<OffsetDeleteRequestPartition>,
}

impl Default for OffsetDeleteRequestTopic {
    fn default() -> Self {
        OffsetDeleteRequestTopic { name: String::new(), partitions: Vec::new() }
    }
}

impl Struct for OffsetDeleteRequestTopic {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = OffsetDeleteRequestTopic::default();
        this.name = d.string(flexible, "name")?;
        this.partitions = d.array(flexible, OffsetDeleteRequestPartition::ENCODED_SIZE_MIN, "partitions", |d| {
            OffsetDeleteRequestPartition::decode(d, version)
        })?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_string(flexible, &self.name, "name")?;
        out.put_length(flexible, false, Some(self.partitions.len()), "partitions")?;
        for item in &self.partitions {
            item.encode(out, version)?;
        }
        Ok(())
    }
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for OffsetDeleteRequestTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let mut this = Self::default();
        this.name = g.string();
        this.partitions = g.vec(|g| <OffsetDeleteRequestPartition as crate::sample::Sample>::sample(g, version));
        this
    }
}
