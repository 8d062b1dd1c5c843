//! `DeleteTopicsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DeleteTopicsRequest`, versions 1-6.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteTopicsRequest {
    /// Versions 6.
    pub topics: Vec<DeleteTopicState>,
    /// Versions 1-5; ignorable.
    pub topic_names: Vec<String>,
    /// Versions 1-6.
    pub timeout_ms: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DeleteTopicsRequest {
    fn default() -> Self {
        DeleteTopicsRequest {
            topics: Vec::new(),
            topic_names: Vec::new(),
            timeout_ms: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DeleteTopicsRequest {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = DeleteTopicsRequest::default();
        if version >= 6 {
            this.topics = d.array(flexible, DeleteTopicState::ENCODED_SIZE_MIN, "topics", |d| {
                DeleteTopicState::decode(d, version)
            })?;
        }
        if version <= 5 {
            this.topic_names = d.array(flexible, 1, "topic_names", |d| d.string(flexible, "topic_names"))?;
        }
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
        let flexible = version >= 4;
        if version >= 6 {
            out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
            for item in &self.topics {
                item.encode(out, version)?;
            }
        } else {
            if !self.topics.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "topics", version });
            }
        }
        if version <= 5 {
            out.put_length(flexible, false, Some(self.topic_names.len()), "topic_names")?;
            for item in &self.topic_names {
                out.put_string(flexible, item, "topic_names")?;
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

impl Message for DeleteTopicsRequest {
    const NAME: &'static str = "DeleteTopicsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 6 };
    const FLEXIBLE_MIN: Option<i16> = Some(4);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DeleteTopicsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        if version >= 6 {
            this.topics = g.vec(|g| <DeleteTopicState as crate::sample::Sample>::sample(g, version));
        }
        if version <= 5 {
            this.topic_names = g.vec(|g| g.string());
        }
        this.timeout_ms = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DeleteTopicState`, versions 6.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteTopicState {
    /// Versions 6; nullable 6.
    pub name: Option<String>,
    /// Versions 6.
    pub topic_id: Uuid,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DeleteTopicState {
    fn default() -> Self {
        DeleteTopicState { name: None, topic_id: Uuid::ZERO, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for DeleteTopicState {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DeleteTopicState::default();
        this.name = d.nullable_string(flexible)?;
        this.topic_id = d.uuid()?;
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
        match &self.name {
            Some(value) => {
                out.put_string(flexible, value, "name")?;
            }
            None => {
                out.put_length(flexible, true, None, "name")?;
            }
        }
        out.put_uuid(&self.topic_id);
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
impl crate::sample::Sample for DeleteTopicState {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.nullable(|g| g.string());
        this.topic_id = g.uuid();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
