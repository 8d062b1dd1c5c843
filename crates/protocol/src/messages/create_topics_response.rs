//! `CreateTopicsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `CreateTopicsResponse`, versions 2-7.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateTopicsResponse {
    /// Versions 2-7; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 2-7.
    pub topics: Vec<CreatableTopicResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CreateTopicsResponse {
    fn default() -> Self {
        CreateTopicsResponse { throttle_time_ms: 0, topics: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for CreateTopicsResponse {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 5;
        let mut this = CreateTopicsResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.topics = d.array(flexible, CreatableTopicResult::ENCODED_SIZE_MIN, "topics", |d| {
            CreatableTopicResult::decode(d, version)
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
        let flexible = version >= 5;
        out.put_i32(self.throttle_time_ms);
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

impl Message for CreateTopicsResponse {
    const NAME: &'static str = "CreateTopicsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 2, max: 7 };
    const FLEXIBLE_MIN: Option<i16> = Some(5);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for CreateTopicsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 5;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.topics = g.vec(|g| <CreatableTopicResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `CreatableTopicConfigs`, versions 5-7.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatableTopicConfigs {
    /// Versions 5-7.
    pub name: String,
    /// Versions 5-7; nullable 5-7.
    pub value: Option<String>,
    /// Versions 5-7.
    pub read_only: bool,
    /// Versions 5-7; ignorable.
    pub config_source: i8,
    /// Versions 5-7.
    pub is_sensitive: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CreatableTopicConfigs {
    fn default() -> Self {
        CreatableTopicConfigs {
            name: String::new(),
            value: Some(String::new()),
            read_only: false,
            config_source: -1_i8,
            is_sensitive: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for CreatableTopicConfigs {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = CreatableTopicConfigs::default();
        this.name = d.string(flexible, "name")?;
        this.value = d.nullable_string(flexible)?;
        this.read_only = d.bool()?;
        this.config_source = d.i8()?;
        this.is_sensitive = d.bool()?;
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
        match &self.value {
            Some(value) => {
                out.put_string(flexible, value, "value")?;
            }
            None => {
                out.put_length(flexible, true, None, "value")?;
            }
        }
        out.put_bool(self.read_only);
        out.put_i8(self.config_source);
        out.put_bool(self.is_sensitive);
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
impl crate::sample::Sample for CreatableTopicConfigs {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.value = g.nullable(|g| g.string());
        this.read_only = g.bool();
        this.config_source = g.i8();
        this.is_sensitive = g.bool();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `CreatableTopicResult`, versions 2-7.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatableTopicResult {
    /// Versions 2-7; map key.
    pub name: String,
    /// Versions 7; ignorable.
    pub topic_id: Uuid,
    /// Versions 2-7.
    pub error_code: i16,
    /// Versions 2-7; nullable 2-7; ignorable.
    pub error_message: Option<String>,
    /// Tagged only; tag 0 in 5+; ignorable.
    pub topic_config_error_code: i16,
    /// Versions 5-7; ignorable.
    pub num_partitions: i32,
    /// Versions 5-7; ignorable.
    pub replication_factor: i16,
    /// Versions 5-7; nullable 5-7; ignorable.
    pub configs: Option<Vec<CreatableTopicConfigs>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for CreatableTopicResult {
    fn default() -> Self {
        CreatableTopicResult {
            name: String::new(),
            topic_id: Uuid::ZERO,
            error_code: 0,
            error_message: Some(String::new()),
            topic_config_error_code: 0,
            num_partitions: -1_i32,
            replication_factor: -1_i16,
            configs: Some(Vec::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for CreatableTopicResult {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 5;
        let mut this = CreatableTopicResult::default();
        this.name = d.string(flexible, "name")?;
        if version >= 7 {
            this.topic_id = d.uuid()?;
        }
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        if version >= 5 {
            this.num_partitions = d.i32()?;
        }
        if version >= 5 {
            this.replication_factor = d.i16()?;
        }
        if version >= 5 {
            this.configs = d.nullable_array(flexible, CreatableTopicConfigs::ENCODED_SIZE_MIN, |d| {
                CreatableTopicConfigs::decode(d, version)
            })?;
        }
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 if version >= 5 => {
                        let d = &mut field;
                        this.topic_config_error_code = d.i16()?;
                        d.finish_tagged(tag)?;
                    }
                    _ => this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() }),
                }
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 5;
        out.put_string(flexible, &self.name, "name")?;
        if version >= 7 {
            out.put_uuid(&self.topic_id);
        }
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
        if version >= 5 {
            out.put_i32(self.num_partitions);
        }
        if version >= 5 {
            out.put_i16(self.replication_factor);
        }
        if version >= 5 {
            match &self.configs {
                Some(value) => {
                    out.put_length(flexible, false, Some(value.len()), "configs")?;
                    for item in value {
                        item.encode(out, version)?;
                    }
                }
                None => {
                    out.put_length(flexible, false, None, "configs")?;
                }
            }
        }
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if version >= 5 && self.topic_config_error_code != 0 {
                let out = tagged.field(0);
                out.put_i16(self.topic_config_error_code);
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for CreatableTopicResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 5;
        let mut this = Self::default();
        this.name = g.string();
        if version >= 7 {
            this.topic_id = g.uuid();
        }
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        if version >= 5 && g.bool() {
            this.topic_config_error_code = g.i16();
        }
        if version >= 5 {
            this.num_partitions = g.i32();
        }
        if version >= 5 {
            this.replication_factor = g.i16();
        }
        if version >= 5 {
            this.configs =
                g.nullable(|g| g.vec(|g| <CreatableTopicConfigs as crate::sample::Sample>::sample(g, version)));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
