//! `DescribeTopicPartitionsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeTopicPartitionsRequest`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeTopicPartitionsRequest {
    /// Versions 0.
    pub topics: Vec<TopicRequest>,
    /// Versions 0.
    pub response_partition_limit: i32,
    /// Versions 0; nullable 0.
    pub cursor: Option<Cursor>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeTopicPartitionsRequest {
    fn default() -> Self {
        DescribeTopicPartitionsRequest {
            topics: Vec::new(),
            response_partition_limit: 2000,
            cursor: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeTopicPartitionsRequest {
    const ENCODED_SIZE_MIN: usize = 7;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribeTopicPartitionsRequest::default();
        this.topics =
            d.array(flexible, TopicRequest::ENCODED_SIZE_MIN, "topics", |d| TopicRequest::decode(d, version))?;
        this.response_partition_limit = d.i32()?;
        this.cursor = if d.struct_marker()? { Some(Cursor::decode(d, version)?) } else { None };
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
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        out.put_i32(self.response_partition_limit);
        match &self.cursor {
            Some(value) => {
                out.put_i8(1);
                value.encode(out, version)?;
            }
            None => {
                out.put_i8(-1);
            }
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

impl Message for DescribeTopicPartitionsRequest {
    const NAME: &'static str = "DescribeTopicPartitionsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeTopicPartitionsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topics = g.vec(|g| <TopicRequest as crate::sample::Sample>::sample(g, version));
        this.response_partition_limit = g.i32();
        this.cursor = g.nullable(|g| <Cursor as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicRequest`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicRequest {
    /// Versions 0.
    pub name: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicRequest {
    fn default() -> Self {
        TopicRequest { name: String::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TopicRequest {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicRequest::default();
        this.name = d.string(flexible, "name")?;
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
impl crate::sample::Sample for TopicRequest {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Cursor`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Cursor {
    /// Versions 0.
    pub topic_name: String,
    /// Versions 0.
    pub partition_index: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Cursor {
    fn default() -> Self {
        Cursor { topic_name: String::new(), partition_index: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for Cursor {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Cursor::default();
        this.topic_name = d.string(flexible, "topic_name")?;
        this.partition_index = d.i32()?;
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
        out.put_string(flexible, &self.topic_name, "topic_name")?;
        out.put_i32(self.partition_index);
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
impl crate::sample::Sample for Cursor {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_name = g.string();
        this.partition_index = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
