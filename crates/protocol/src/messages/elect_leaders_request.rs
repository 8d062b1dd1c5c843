//! `ElectLeadersRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ElectLeadersRequest`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct ElectLeadersRequest {
    /// Versions 1-2.
    pub election_type: i8,
    /// Versions 0-2; nullable 0-2.
    pub topic_partitions: Option<Vec<TopicPartitions>>,
    /// Versions 0-2.
    pub timeout_ms: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ElectLeadersRequest {
    fn default() -> Self {
        ElectLeadersRequest {
            election_type: 0,
            topic_partitions: Some(Vec::new()),
            timeout_ms: 60000,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ElectLeadersRequest {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = ElectLeadersRequest::default();
        if version >= 1 {
            this.election_type = d.i8()?;
        }
        this.topic_partitions =
            d.nullable_array(flexible, TopicPartitions::ENCODED_SIZE_MIN, |d| TopicPartitions::decode(d, version))?;
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
        if version >= 1 {
            out.put_i8(self.election_type);
        } else {
            if self.election_type != 0 {
                return Err(EncodeError::FieldNotInVersion { field: "election_type", version });
            }
        }
        match &self.topic_partitions {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "topic_partitions")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "topic_partitions")?;
            }
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

impl Message for ElectLeadersRequest {
    const NAME: &'static str = "ElectLeadersRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 2 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ElectLeadersRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        if version >= 1 {
            this.election_type = g.i8();
        }
        this.topic_partitions =
            g.nullable(|g| g.vec(|g| <TopicPartitions as crate::sample::Sample>::sample(g, version)));
        this.timeout_ms = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicPartitions`, versions 0-2.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicPartitions {
    /// Versions 0-2; map key.
    pub topic: String,
    /// Versions 0-2.
    pub partitions: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicPartitions {
    fn default() -> Self {
        TopicPartitions { topic: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TopicPartitions {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = TopicPartitions::default();
        this.topic = d.string(flexible, "topic")?;
        this.partitions = d.array(flexible, 4, "partitions", |d| d.i32())?;
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
        out.put_string(flexible, &self.topic, "topic")?;
        out.put_length(flexible, false, Some(self.partitions.len()), "partitions")?;
        for item in &self.partitions {
            out.put_i32(*item);
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
impl crate::sample::Sample for TopicPartitions {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.topic = g.string();
        this.partitions = g.vec(|g| g.i32());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
