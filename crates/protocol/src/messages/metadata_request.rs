//! `MetadataRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `MetadataRequest`, versions 0-13.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataRequest {
    /// Versions 0-13; nullable 1-13.
    pub topics: Option<Vec<MetadataRequestTopic>>,
    /// Versions 4-13.
    pub allow_auto_topic_creation: bool,
    /// Versions 8-10.
    pub include_cluster_authorized_operations: bool,
    /// Versions 8-13.
    pub include_topic_authorized_operations: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for MetadataRequest {
    fn default() -> Self {
        MetadataRequest {
            topics: Some(Vec::new()),
            allow_auto_topic_creation: true,
            include_cluster_authorized_operations: false,
            include_topic_authorized_operations: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for MetadataRequest {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 9;
        let mut this = MetadataRequest::default();
        this.topics = if version >= 1 {
            d.nullable_array(flexible, MetadataRequestTopic::ENCODED_SIZE_MIN, |d| {
                MetadataRequestTopic::decode(d, version)
            })?
        } else {
            Some(d.array(flexible, MetadataRequestTopic::ENCODED_SIZE_MIN, "topics", |d| {
                MetadataRequestTopic::decode(d, version)
            })?)
        };
        if version >= 4 {
            this.allow_auto_topic_creation = d.bool()?;
        }
        if (8..=10).contains(&version) {
            this.include_cluster_authorized_operations = d.bool()?;
        }
        if version >= 8 {
            this.include_topic_authorized_operations = d.bool()?;
        }
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 9;
        match &self.topics {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "topics")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None if version >= 1 => {
                out.put_length(flexible, false, None, "topics")?;
            }
            None => {
                return Err(EncodeError::NullNotAllowed { field: "topics", version });
            }
        }
        if version >= 4 {
            out.put_bool(self.allow_auto_topic_creation);
        } else {
            if !self.allow_auto_topic_creation {
                return Err(EncodeError::FieldNotInVersion { field: "allow_auto_topic_creation", version });
            }
        }
        if (8..=10).contains(&version) {
            out.put_bool(self.include_cluster_authorized_operations);
        } else {
            if self.include_cluster_authorized_operations {
                return Err(EncodeError::FieldNotInVersion { field: "include_cluster_authorized_operations", version });
            }
        }
        if version >= 8 {
            out.put_bool(self.include_topic_authorized_operations);
        } else {
            if self.include_topic_authorized_operations {
                return Err(EncodeError::FieldNotInVersion { field: "include_topic_authorized_operations", version });
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

impl Message for MetadataRequest {
    const NAME: &'static str = "MetadataRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 13 };
    const FLEXIBLE_MIN: Option<i16> = Some(9);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for MetadataRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 9;
        let mut this = Self::default();
        this.topics = if version >= 1 {
            g.nullable(|g| g.vec(|g| <MetadataRequestTopic as crate::sample::Sample>::sample(g, version)))
        } else {
            Some(g.vec(|g| <MetadataRequestTopic as crate::sample::Sample>::sample(g, version)))
        };
        if version >= 4 {
            this.allow_auto_topic_creation = g.bool();
        }
        if (8..=10).contains(&version) {
            this.include_cluster_authorized_operations = g.bool();
        }
        if version >= 8 {
            this.include_topic_authorized_operations = g.bool();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `MetadataRequestTopic`, versions 0-13.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataRequestTopic {
    /// Versions 10-13; ignorable.
    pub topic_id: Uuid,
    /// Versions 0-13; nullable 10-13.
    pub name: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for MetadataRequestTopic {
    fn default() -> Self {
        MetadataRequestTopic { topic_id: Uuid::ZERO, name: Some(String::new()), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for MetadataRequestTopic {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 9;
        let mut this = MetadataRequestTopic::default();
        if version >= 10 {
            this.topic_id = d.uuid()?;
        }
        this.name = if version >= 10 { d.nullable_string(flexible)? } else { Some(d.string(flexible, "name")?) };
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 9;
        if version >= 10 {
            out.put_uuid(&self.topic_id);
        }
        match &self.name {
            Some(value) => {
                out.put_string(flexible, value, "name")?;
            }
            None if version >= 10 => {
                out.put_length(flexible, true, None, "name")?;
            }
            None => {
                return Err(EncodeError::NullNotAllowed { field: "name", version });
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

#[cfg(feature = "sample")]
impl crate::sample::Sample for MetadataRequestTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 9;
        let mut this = Self::default();
        if version >= 10 {
            this.topic_id = g.uuid();
        }
        this.name = if version >= 10 { g.nullable(|g| g.string()) } else { Some(g.string()) };
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
