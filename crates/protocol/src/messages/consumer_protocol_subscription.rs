//! `ConsumerProtocolSubscription`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ConsumerProtocolSubscription`, versions 0-3.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerProtocolSubscription {
    /// Versions 0-3.
    pub topics: Vec<String>,
    /// Versions 0-3; nullable 0-3.
    pub user_data: Option<Bytes>,
    /// Versions 1-3; ignorable.
    pub owned_partitions: Vec<TopicPartition>,
    /// Versions 2-3; ignorable.
    pub generation_id: i32,
    /// Versions 3; nullable 3; ignorable.
    pub rack_id: Option<String>,
}

impl Default for ConsumerProtocolSubscription {
    fn default() -> Self {
        ConsumerProtocolSubscription {
            topics: Vec::new(),
            user_data: None,
            owned_partitions: Vec::new(),
            generation_id: -1_i32,
            rack_id: None,
        }
    }
}

impl Struct for ConsumerProtocolSubscription {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = false;
        let mut this = ConsumerProtocolSubscription::default();
        this.topics = d.array(flexible, 1, "topics", |d| d.string(flexible, "topics"))?;
        this.user_data = d.nullable_bytes(flexible)?;
        if version >= 1 {
            this.owned_partitions = d.array(flexible, TopicPartition::ENCODED_SIZE_MIN, "owned_partitions", |d| {
                TopicPartition::decode(d, version)
            })?;
        }
        if version >= 2 {
            this.generation_id = d.i32()?;
        }
        if version >= 3 {
            this.rack_id = d.nullable_string(flexible)?;
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = false;
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            out.put_string(flexible, item, "topics")?;
        }
        match &self.user_data {
            Some(value) => {
                out.put_bytes_field(flexible, value, "user_data")?;
            }
            None => {
                out.put_length(flexible, false, None, "user_data")?;
            }
        }
        if version >= 1 {
            out.put_length(flexible, false, Some(self.owned_partitions.len()), "owned_partitions")?;
            for item in &self.owned_partitions {
                item.encode(out, version)?;
            }
        }
        if version >= 2 {
            out.put_i32(self.generation_id);
        }
        if version >= 3 {
            match &self.rack_id {
                Some(value) => {
                    out.put_string(flexible, value, "rack_id")?;
                }
                None => {
                    out.put_length(flexible, true, None, "rack_id")?;
                }
            }
        }
        Ok(())
    }
}

impl Message for ConsumerProtocolSubscription {
    const NAME: &'static str = "ConsumerProtocolSubscription";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 3 };
    const FLEXIBLE_MIN: Option<i16> = None;
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ConsumerProtocolSubscription {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let mut this = Self::default();
        this.topics = g.vec(|g| g.string());
        this.user_data = g.nullable(|g| g.bytes());
        if version >= 1 {
            this.owned_partitions = g.vec(|g| <TopicPartition as crate::sample::Sample>::sample(g, version));
        }
        if version >= 2 {
            this.generation_id = g.i32();
        }
        if version >= 3 {
            this.rack_id = g.nullable(|g| g.string());
        }
        this
    }
}

/// `TopicPartition`, versions 1-3.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicPartition {
    /// Versions 1-3; map key.
    pub topic: String,
    /// Versions 1-3.
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
