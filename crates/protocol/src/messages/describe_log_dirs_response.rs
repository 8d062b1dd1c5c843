//! `DescribeLogDirsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeLogDirsResponse`, versions 1-5.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeLogDirsResponse {
    /// Versions 1-5.
    pub throttle_time_ms: i32,
    /// Versions 3-5; ignorable.
    pub error_code: i16,
    /// Versions 1-5.
    pub results: Vec<DescribeLogDirsResult>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeLogDirsResponse {
    fn default() -> Self {
        DescribeLogDirsResponse {
            throttle_time_ms: 0,
            error_code: 0,
            results: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeLogDirsResponse {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DescribeLogDirsResponse::default();
        this.throttle_time_ms = d.i32()?;
        if version >= 3 {
            this.error_code = d.i16()?;
        }
        this.results = d.array(flexible, DescribeLogDirsResult::ENCODED_SIZE_MIN, "results", |d| {
            DescribeLogDirsResult::decode(d, version)
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
        let flexible = version >= 2;
        out.put_i32(self.throttle_time_ms);
        if version >= 3 {
            out.put_i16(self.error_code);
        }
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

impl Message for DescribeLogDirsResponse {
    const NAME: &'static str = "DescribeLogDirsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 5 };
    const FLEXIBLE_MIN: Option<i16> = Some(2);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeLogDirsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        if version >= 3 {
            this.error_code = g.i16();
        }
        this.results = g.vec(|g| <DescribeLogDirsResult as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribeLogDirsPartition`, versions 1-5.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeLogDirsPartition {
    /// Versions 1-5.
    pub partition_index: i32,
    /// Versions 1-5.
    pub partition_size: i64,
    /// Versions 1-5.
    pub offset_lag: i64,
    /// Versions 1-5.
    pub is_future_key: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeLogDirsPartition {
    fn default() -> Self {
        DescribeLogDirsPartition {
            partition_index: 0,
            partition_size: 0,
            offset_lag: 0,
            is_future_key: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeLogDirsPartition {
    const ENCODED_SIZE_MIN: usize = 21;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DescribeLogDirsPartition::default();
        this.partition_index = d.i32()?;
        this.partition_size = d.i64()?;
        this.offset_lag = d.i64()?;
        this.is_future_key = d.bool()?;
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
        out.put_i32(self.partition_index);
        out.put_i64(self.partition_size);
        out.put_i64(self.offset_lag);
        out.put_bool(self.is_future_key);
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
impl crate::sample::Sample for DescribeLogDirsPartition {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.partition_size = g.i64();
        this.offset_lag = g.i64();
        this.is_future_key = g.bool();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribeLogDirsTopic`, versions 1-5.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeLogDirsTopic {
    /// Versions 1-5.
    pub name: String,
    /// Versions 1-5.
    pub partitions: Vec<DescribeLogDirsPartition>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeLogDirsTopic {
    fn default() -> Self {
        DescribeLogDirsTopic { name: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for DescribeLogDirsTopic {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DescribeLogDirsTopic::default();
        this.name = d.string(flexible, "name")?;
        this.partitions = d.array(flexible, DescribeLogDirsPartition::ENCODED_SIZE_MIN, "partitions", |d| {
            DescribeLogDirsPartition::decode(d, version)
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
        let flexible = version >= 2;
        out.put_string(flexible, &self.name, "name")?;
        out.put_length(flexible, false, Some(self.partitions.len()), "partitions")?;
        for item in &self.partitions {
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
impl crate::sample::Sample for DescribeLogDirsTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.name = g.string();
        this.partitions = g.vec(|g| <DescribeLogDirsPartition as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribeLogDirsResult`, versions 1-5.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeLogDirsResult {
    /// Versions 1-5.
    pub error_code: i16,
    /// Versions 1-5.
    pub log_dir: String,
    /// Versions 1-5.
    pub topics: Vec<DescribeLogDirsTopic>,
    /// Versions 4-5; ignorable.
    pub total_bytes: i64,
    /// Versions 4-5; ignorable.
    pub usable_bytes: i64,
    /// Versions 5; ignorable.
    pub is_cordoned: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeLogDirsResult {
    fn default() -> Self {
        DescribeLogDirsResult {
            error_code: 0,
            log_dir: String::new(),
            topics: Vec::new(),
            total_bytes: -1_i64,
            usable_bytes: -1_i64,
            is_cordoned: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeLogDirsResult {
    const ENCODED_SIZE_MIN: usize = 4;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 2;
        let mut this = DescribeLogDirsResult::default();
        this.error_code = d.i16()?;
        this.log_dir = d.string(flexible, "log_dir")?;
        this.topics = d.array(flexible, DescribeLogDirsTopic::ENCODED_SIZE_MIN, "topics", |d| {
            DescribeLogDirsTopic::decode(d, version)
        })?;
        if version >= 4 {
            this.total_bytes = d.i64()?;
        }
        if version >= 4 {
            this.usable_bytes = d.i64()?;
        }
        if version >= 5 {
            this.is_cordoned = d.bool()?;
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
        let flexible = version >= 2;
        out.put_i16(self.error_code);
        out.put_string(flexible, &self.log_dir, "log_dir")?;
        out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
        for item in &self.topics {
            item.encode(out, version)?;
        }
        if version >= 4 {
            out.put_i64(self.total_bytes);
        }
        if version >= 4 {
            out.put_i64(self.usable_bytes);
        }
        if version >= 5 {
            out.put_bool(self.is_cordoned);
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
impl crate::sample::Sample for DescribeLogDirsResult {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 2;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.log_dir = g.string();
        this.topics = g.vec(|g| <DescribeLogDirsTopic as crate::sample::Sample>::sample(g, version));
        if version >= 4 {
            this.total_bytes = g.i64();
        }
        if version >= 4 {
            this.usable_bytes = g.i64();
        }
        if version >= 5 {
            this.is_cordoned = g.bool();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
