//! `DescribeConfigsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeConfigsResponse`, versions 1-4.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeConfigsResponse {
    /// Versions 1-4.
    pub throttle_time_ms: i32,
    /// Versions 1-4.
    pub results: Vec<DescribeConfigsResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeConfigsResponse {
    fn default() -> Self {
        DescribeConfigsResponse { throttle_time_ms: 0, results: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for DescribeConfigsResponse {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = DescribeConfigsResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.results = d.array(flexible, DescribeConfigsResult::ENCODED_SIZE_MIN, "results", |d| {
            DescribeConfigsResult::decode(d, version)
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
        let flexible = version >= 4;
        out.put_i32(self.throttle_time_ms);
        out.put_length(flexible, false, Some(self.results.len()), "results")?;
        for item in &self.results {
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

impl Message for DescribeConfigsResponse {
    const NAME: &'static str = "DescribeConfigsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 4 };
    const FLEXIBLE_MIN: Option<i16> = Some(4);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeConfigsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.results = g.vec(|g| <DescribeConfigsResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribeConfigsSynonym`, versions 1-4.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeConfigsSynonym {
    /// Versions 1-4.
    pub name: String,
    /// Versions 1-4; nullable 1-4.
    pub value: Option<String>,
    /// Versions 1-4.
    pub source: i8,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeConfigsSynonym {
    fn default() -> Self {
        DescribeConfigsSynonym {
            name: String::new(),
            value: Some(String::new()),
            source: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeConfigsSynonym {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = DescribeConfigsSynonym::default();
        this.name = d.string(flexible, "name")?;
        this.value = d.nullable_string(flexible)?;
        this.source = d.i8()?;
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
        out.put_string(flexible, &self.name, "name")?;
        match &self.value {
            Some(value) => {
                out.put_string(flexible, value, "value")?;
            }
            None => {
                out.put_length(flexible, true, None, "value")?;
            }
        }
        out.put_i8(self.source);
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
impl crate::sample::Sample for DescribeConfigsSynonym {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.name = g.string();
        this.value = g.nullable(|g| g.string());
        this.source = g.i8();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribeConfigsResourceResult`, versions 1-4.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeConfigsResourceResult {
    /// Versions 1-4.
    pub name: String,
    /// Versions 1-4; nullable 1-4.
    pub value: Option<String>,
    /// Versions 1-4.
    pub read_only: bool,
    /// Versions 1-4; ignorable.
    pub config_source: i8,
    /// Versions 1-4.
    pub is_sensitive: bool,
    /// Versions 1-4; ignorable.
    pub synonyms: Vec<DescribeConfigsSynonym>,
    /// Versions 3-4; ignorable.
    pub config_type: i8,
    /// Versions 3-4; nullable 3-4; ignorable.
    pub documentation: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeConfigsResourceResult {
    fn default() -> Self {
        DescribeConfigsResourceResult {
            name: String::new(),
            value: Some(String::new()),
            read_only: false,
            config_source: -1_i8,
            is_sensitive: false,
            synonyms: Vec::new(),
            config_type: 0,
            documentation: Some(String::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeConfigsResourceResult {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = DescribeConfigsResourceResult::default();
        this.name = d.string(flexible, "name")?;
        this.value = d.nullable_string(flexible)?;
        this.read_only = d.bool()?;
        this.config_source = d.i8()?;
        this.is_sensitive = d.bool()?;
        this.synonyms = d.array(flexible, DescribeConfigsSynonym::ENCODED_SIZE_MIN, "synonyms", |d| {
            DescribeConfigsSynonym::decode(d, version)
        })?;
        if version >= 3 {
            this.config_type = d.i8()?;
        }
        if version >= 3 {
            this.documentation = d.nullable_string(flexible)?;
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
        let flexible = version >= 4;
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
        out.put_length(flexible, false, Some(self.synonyms.len()), "synonyms")?;
        for item in &self.synonyms {
            item.encode(out, version)?;
        }
        if version >= 3 {
            out.put_i8(self.config_type);
        }
        if version >= 3 {
            match &self.documentation {
                Some(value) => {
                    out.put_string(flexible, value, "documentation")?;
                }
                None => {
                    out.put_length(flexible, true, None, "documentation")?;
                }
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
impl crate::sample::Sample for DescribeConfigsResourceResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.name = g.string();
        this.value = g.nullable(|g| g.string());
        this.read_only = g.bool();
        this.config_source = g.i8();
        this.is_sensitive = g.bool();
        this.synonyms = g.vec(|g| <DescribeConfigsSynonym as crate::sample::Sample>::sample(g, version));
        if version >= 3 {
            this.config_type = g.i8();
        }
        if version >= 3 {
            this.documentation = g.nullable(|g| g.string());
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribeConfigsResult`, versions 1-4.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeConfigsResult {
    /// Versions 1-4.
    pub error_code: i16,
    /// Versions 1-4; nullable 1-4.
    pub error_message: Option<String>,
    /// Versions 1-4.
    pub resource_type: i8,
    /// Versions 1-4.
    pub resource_name: String,
    /// Versions 1-4.
    pub configs: Vec<DescribeConfigsResourceResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeConfigsResult {
    fn default() -> Self {
        DescribeConfigsResult {
            error_code: 0,
            error_message: Some(String::new()),
            resource_type: 0,
            resource_name: String::new(),
            configs: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeConfigsResult {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 4;
        let mut this = DescribeConfigsResult::default();
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.resource_type = d.i8()?;
        this.resource_name = d.string(flexible, "resource_name")?;
        this.configs = d.array(flexible, DescribeConfigsResourceResult::ENCODED_SIZE_MIN, "configs", |d| {
            DescribeConfigsResourceResult::decode(d, version)
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
        let flexible = version >= 4;
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
        out.put_i8(self.resource_type);
        out.put_string(flexible, &self.resource_name, "resource_name")?;
        out.put_length(flexible, false, Some(self.configs.len()), "configs")?;
        for item in &self.configs {
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

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeConfigsResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 4;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.resource_type = g.i8();
        this.resource_name = g.string();
        this.configs = g.vec(|g| <DescribeConfigsResourceResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
