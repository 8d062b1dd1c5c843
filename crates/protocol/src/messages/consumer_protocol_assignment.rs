//! `ConsumerProtocolAssignment`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ConsumerProtocolAssignment`, versions 0-3.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerProtocolAssignment {
    /// Versions 0-3.
    pub assigned_partitions: Vec<TopicPartition>,
    /// Versions 0-3; nullable 0-3.
    pub user_data: Option<Bytes>,
}

impl Default for ConsumerProtocolAssignment {
    fn default() -> Self {
        ConsumerProtocolAssignment { assigned_partitions: Vec::new(), user_data: None }
    }
}

impl Struct for ConsumerProtocolAssignment {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = ConsumerProtocolAssignment::default();
        this.assigned_partitions = d.array(flexible, TopicPartition::ENCODED_SIZE_MIN, "assigned_partitions", |d| {
            TopicPartition::decode(d, version)
        })?;
        this.user_data = d.nullable_bytes(flexible)?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_length(flexible, false, Some(self.assigned_partitions.len()), "assigned_partitions")?;
        for item in &self.assigned_partitions {
            item.encode(out, version)?;
        }
        match &self.user_data {
            Some(value) => {
                out.put_bytes_field(flexible, value, "user_data")?;
            }
            None => {
                out.put_length(flexible, false, None, "user_data")?;
            }
        }
        Ok(())
    }
}

impl Message for ConsumerProtocolAssignment {
    const NAME: &'static str = "ConsumerProtocolAssignment";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 3 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ConsumerProtocolAssignment {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let mut this = Self::default();
        this.assigned_partitions = g.vec(|g| <TopicPartition as crate::sample::Sample>::sample(g, version));
        this.user_data = g.nullable(|g| g.bytes());
        this
    }
}

/// `TopicPartition`, versions 0-3.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicPartition {
    /// Versions 0-3; map key.
    pub topic: String,
    /// Versions 0-3.
    pub partitions: Vec<i32>,
}

impl Default for TopicPartition {
    fn default() -> Self {
        TopicPartition { topic: String::new(), partitions: Vec::new() }
    }
}

impl Struct for TopicPartition {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = TopicPartition::default();
        this.topic = d.string(flexible, "topic")?;
        this.partitions = d.array(flexible, 4, "partitions", |d| d.i32())?;
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, _version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_string(flexible, &self.topic, "topic")?;
        out.put_length(flexible, false, Some(self.partitions.len()), "partitions")?;
        for item in &self.partitions {
            out.put_i32(*item);
        }
        Ok(())
    }
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for TopicPartition {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let mut this = Self::default();
        this.topic = g.string();
        this.partitions = g.vec(|g| g.i32());
        this
    }
}
