//! `DeleteShareGroupOffsetsRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DeleteShareGroupOffsetsRequest`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteShareGroupOffsetsRequest {
    /// Versions 0.
    pub group_id: String,
    /// Versions 0.
    pub topics: Vec<DeleteShareGroupOffsetsRequestTopic>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DeleteShareGroupOffsetsRequest {
    fn default() -> Self {
        DeleteShareGroupOffsetsRequest {
            group_id: String::new(),
            topics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DeleteShareGroupOffsetsRequest {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DeleteShareGroupOffsetsRequest::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.topics = d.array(flexible, DeleteShareGroupOffsetsRequestTopic::ENCODED_SIZE_MIN, "topics", |d| {
            DeleteShareGroupOffsetsRequestTopic::decode(d, version)
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
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
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

impl Message for DeleteShareGroupOffsetsRequest {
    const NAME: &'static str = "DeleteShareGroupOffsetsRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DeleteShareGroupOffsetsRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.group_id = g.string();
        this.topics = g.vec(|g| <DeleteShareGroupOffsetsRequestTopic as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DeleteShareGroupOffsetsRequestTopic`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteShareGroupOffsetsRequestTopic {
    /// Versions 0.
    pub topic_name: String,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DeleteShareGroupOffsetsRequestTopic {
    fn default() -> Self {
        DeleteShareGroupOffsetsRequestTopic { topic_name: String::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for DeleteShareGroupOffsetsRequestTopic {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DeleteShareGroupOffsetsRequestTopic::default();
        this.topic_name = d.string(flexible, "topic_name")?;
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
impl crate::sample::Sample for DeleteShareGroupOffsetsRequestTopic {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_name = g.string();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
