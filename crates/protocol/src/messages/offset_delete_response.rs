//! `OffsetDeleteResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `OffsetDeleteResponse`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetDeleteResponse {
    /// Versions 0.
    pub error_code: i16,
    /// Versions 0; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 0.
    pub topics: Vec<OffsetDeleteResponseTopic>,
}

impl Default for OffsetDeleteResponse {
    fn default() -> Self {
        OffsetDeleteResponse { error_code: 0, throttle_time_ms: 0, topics: Vec::new() }
    }
}

impl Struct for OffsetDeleteResponse {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = OffsetDeleteResponse::default();
        this.error_code = d.i16()?;
        this.throttle_time_ms = d.i32()?;
        this.topics = d.array(flexible, OffsetDeleteResponseTopic::ENCODED_SIZE_MIN, "topics", |d| {
            OffsetDeleteResponseTopic::decode(d, version)
        })?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_i16(self.error_code);
        out.put_i32(self.throttle_time_ms);
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        Ok(())
    }
}

impl Message for OffsetDeleteResponse {
    const NAME: &'static str = "OffsetDeleteResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for OffsetDeleteResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let mut this = Self::default();
        this.error_code = g.i16();
        this.throttle_time_ms = g.i32();
        this.topics = g.vec(|g| <OffsetDeleteResponseTopic as crate::sample::Sample>::sample(g, version));
        this
    }
}

/// `OffsetDeleteResponsePartition`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetDeleteResponsePartition {
    /// Versions 0; map key.
    pub partition_index: i32,
    /// Versions 0.
    pub error_code: i16,
}

impl Default for OffsetDeleteResponsePartition {
    fn default() -> Self {
        OffsetDeleteResponsePartition { partition_index: 0, error_code: 0 }
    }
}

impl Struct for OffsetDeleteResponsePartition {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let mut this = OffsetDeleteResponsePartition::default();
        this.partition_index = d.i32()?;
        this.error_code = d.i16()?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        out.put_i32(self.partition_index);
        out.put_i16(self.error_code);
        Ok(())
    }
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for OffsetDeleteResponsePartition {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.error_code = g.i16();
        this
    }
}

/// `OffsetDeleteResponseTopic`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetDeleteResponseTopic {
    /// Versions 0; map key.
    pub name: String,
    /// Versions 0.
    pub partitions: Vec<OffsetDeleteResponsePartition>,
}

impl Default for OffsetDeleteResponseTopic {
    fn default() -> Self {
        OffsetDeleteResponseTopic { name: String::new(), partitions: Vec::new() }
    }
}

impl Struct for OffsetDeleteResponseTopic {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = OffsetDeleteResponseTopic::default();
        this.name = d.string(flexible, "name")?;
        this.partitions = d.array(flexible, OffsetDeleteResponsePartition::ENCODED_SIZE_MIN, "partitions", |d| {
            OffsetDeleteResponsePartition::decode(d, version)
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
impl crate::sample::Sample for OffsetDeleteResponseTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let mut this = Self::default();
        this.name = g.string();
        this.partitions = g.vec(|g| <OffsetDeleteResponsePartition as crate::sample::Sample>::sample(g, version));
        this
    }
}
