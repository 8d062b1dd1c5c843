//! `OffsetFetchResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `OffsetFetchResponse`, versions 1-10.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetFetchResponse {
    /// Versions 3-10; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 1-7.
    pub topics: Vec<OffsetFetchResponseTopic>,
    /// Versions 2-7; ignorable.
    pub error_code: i16,
    /// Versions 8-10.
    pub groups: Vec<OffsetFetchResponseGroup>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetFetchResponse {
    fn default() -> Self {
        OffsetFetchResponse {
            throttle_time_ms: 0,
            topics: Vec::new(),
            error_code: 0,
            groups: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for OffsetFetchResponse {
    const ENCODED_SIZE_MIN: usize = 1;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 6;
        let mut this = OffsetFetchResponse::default();
        if version >= 3 {
            this.throttle_time_ms = d.i32()?;
        }
        if version <= 7 {
            this.topics = d.array(flexible, OffsetFetchResponseTopic::ENCODED_SIZE_MIN, "topics", |d| {
                OffsetFetchResponseTopic::decode(d, version)
            })?;
        }
        if (2..=7).contains(&version) {
            this.error_code = d.i16()?;
        }
        if version >= 8 {
            this.groups = d.array(flexible, OffsetFetchResponseGroup::ENCODED_SIZE_MIN, "groups", |d| {
                OffsetFetchResponseGroup::decode(d, version)
            })?;
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
        let flexible = version >= 6;
        if version >= 3 {
            out.put_i32(self.throttle_time_ms);
        }
        if version <= 7 {
            out.put_length(flexible, false, Some(self.topics.len()), "topics")?;
            for item in &self.topics {
                item.encode(out, version)?;
            }
        } else {
            if !self.topics.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "topics", version });
            }
        }
        if (2..=7).contains(&version) {
            out.put_i16(self.error_code);
        }
        if version >= 8 {
            out.put_length(flexible, false, Some(self.groups.len()), "groups")?;
            for item in &self.groups {
                item.encode(out, version)?;
            }
        } else {
            if !self.groups.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "groups", version });
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

impl Message for OffsetFetchResponse {
    const NAME: &'static str = "OffsetFetchResponse";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 10 };
    const FLEXIBLE_MIN: Option<i16> = Some(6);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for OffsetFetchResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 6;
        let mut this = Self::default();
        if version >= 3 {
            this.throttle_time_ms = g.i32();
        }
        if version <= 7 {
            this.topics = g.vec(|g| <OffsetFetchResponseTopic as crate::sample::Sample>::sample(g, version));
        }
        if (2..=7).contains(&version) {
            this.error_code = g.i16();
        }
        if version >= 8 {
            this.groups = g.vec(|g| <OffsetFetchResponseGroup as crate::sample::Sample>::sample(g, version));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `OffsetFetchResponsePartition`, versions 1-7.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetFetchResponsePartition {
    /// Versions 1-7.
    pub partition_index: i32,
    /// Versions 1-7.
    pub committed_offset: i64,
    /// Versions 5-7; ignorable.
    pub committed_leader_epoch: i32,
    /// Versions 1-7; nullable 1-7.
    pub metadata: Option<String>,
    /// Versions 1-7.
    pub error_code: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetFetchResponsePartition {
    fn default() -> Self {
        OffsetFetchResponsePartition {
            partition_index: 0,
            committed_offset: 0,
            committed_leader_epoch: -1_i32,
            metadata: Some(String::new()),
            error_code: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for OffsetFetchResponsePartition {
    const ENCODED_SIZE_MIN: usize = 15;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 6;
        let mut this = OffsetFetchResponsePartition::default();
        this.partition_index = d.i32()?;
        this.committed_offset = d.i64()?;
        if version >= 5 {
            this.committed_leader_epoch = d.i32()?;
        }
        this.metadata = d.nullable_string(flexible)?;
        this.error_code = d.i16()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 6;
        out.put_i32(self.partition_index);
        out.put_i64(self.committed_offset);
        if version >= 5 {
            out.put_i32(self.committed_leader_epoch);
        }
        match &self.metadata {
            Some(value) => {
                out.put_string(flexible, value, "metadata")?;
            }
            None => {
                out.put_length(flexible, true, None, "metadata")?;
            }
        }
        out.put_i16(self.error_code);
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
impl crate::sample::Sample for OffsetFetchResponsePartition {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 6;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.committed_offset = g.i64();
        if version >= 5 {
            this.committed_leader_epoch = g.i32();
        }
        this.metadata = g.nullable(|g| g.string());
        this.error_code = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `OffsetFetchResponseTopic`, versions 1-7.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetFetchResponseTopic {
    /// Versions 1-7.
    pub name: String,
    /// Versions 1-7.
    pub partitions: Vec<OffsetFetchResponsePartition>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetFetchResponseTopic {
    fn default() -> Self {
        OffsetFetchResponseTopic { name: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for OffsetFetchResponseTopic {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 6;
        let mut this = OffsetFetchResponseTopic::default();
        this.name = d.string(flexible, "name")?;
        this.partitions = d.array(flexible, OffsetFetchResponsePartition::ENCODED_SIZE_MIN, "partitions", |d| {
            OffsetFetchResponsePartition::decode(d, version)
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
        let flexible = version >= 6;
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
impl crate::sample::Sample for OffsetFetchResponseTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 6;
        let mut this = Self::default();
        this.name = g.string();
        this.partitions = g.vec(|g| <OffsetFetchResponsePartition as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `OffsetFetchResponsePartitions`, versions 8-10.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetFetchResponsePartitions {
    /// Versions 8-10.
    pub partition_index: i32,
    /// Versions 8-10.
    pub committed_offset: i64,
    /// Versions 8-10; ignorable.
    pub committed_leader_epoch: i32,
    /// Versions 8-10; nullable 8-10.
    pub metadata: Option<String>,
    /// Versions 8-10.
    pub error_code: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetFetchResponsePartitions {
    fn default() -> Self {
        OffsetFetchResponsePartitions {
            partition_index: 0,
            committed_offset: 0,
            committed_leader_epoch: -1_i32,
            metadata: Some(String::new()),
            error_code: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for OffsetFetchResponsePartitions {
    const ENCODED_SIZE_MIN: usize = 20;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = OffsetFetchResponsePartitions::default();
        this.partition_index = d.i32()?;
        this.committed_offset = d.i64()?;
        this.committed_leader_epoch = d.i32()?;
        this.metadata = d.nullable_string(flexible)?;
        this.error_code = d.i16()?;
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
        out.put_i32(self.partition_index);
        out.put_i64(self.committed_offset);
        out.put_i32(self.committed_leader_epoch);
        match &self.metadata {
            Some(value) => {
                out.put_string(flexible, value, "metadata")?;
            }
            None => {
                out.put_length(flexible, true, None, "metadata")?;
            }
        }
        out.put_i16(self.error_code);
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
impl crate::sample::Sample for OffsetFetchResponsePartitions {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.committed_offset = g.i64();
        this.committed_leader_epoch = g.i32();
        this.metadata = g.nullable(|g| g.string());
        this.error_code = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `OffsetFetchResponseTopics`, versions 8-10.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetFetchResponseTopics {
    /// Versions 8-9; ignorable.
    pub name: String,
    /// Versions 10; ignorable.
    pub topic_id: Uuid,
    /// Versions 8-10.
    pub partitions: Vec<OffsetFetchResponsePartitions>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetFetchResponseTopics {
    fn default() -> Self {
        OffsetFetchResponseTopics {
            name: String::new(),
            topic_id: Uuid::ZERO,
            partitions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for OffsetFetchResponseTopics {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = OffsetFetchResponseTopics::default();
        if version <= 9 {
            this.name = d.string(flexible, "name")?;
        }
        if version >= 10 {
            this.topic_id = d.uuid()?;
        }
        this.partitions = d.array(flexible, OffsetFetchResponsePartitions::ENCODED_SIZE_MIN, "partitions", |d| {
            OffsetFetchResponsePartitions::decode(d, version)
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
        if version <= 9 {
            out.put_string(flexible, &self.name, "name")?;
        }
        if version >= 10 {
            out.put_uuid(&self.topic_id);
        }
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
impl crate::sample::Sample for OffsetFetchResponseTopics {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        if version <= 9 {
            this.name = g.string();
        }
        if version >= 10 {
            this.topic_id = g.uuid();
        }
        this.partitions = g.vec(|g| <OffsetFetchResponsePartitions as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `OffsetFetchResponseGroup`, versions 8-10.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetFetchResponseGroup {
    /// Versions 8-10.
    pub group_id: String,
    /// Versions 8-10.
    pub topics: Vec<OffsetFetchResponseTopics>,
    /// Versions 8-10.
    pub error_code: i16,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetFetchResponseGroup {
    fn default() -> Self {
        OffsetFetchResponseGroup {
            group_id: String::new(),
            topics: Vec::new(),
            error_code: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for OffsetFetchResponseGroup {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = OffsetFetchResponseGroup::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.topics = d.array(flexible, OffsetFetchResponseTopics::ENCODED_SIZE_MIN, "topics", |d| {
            OffsetFetchResponseTopics::decode(d, version)
        })?;
        this.error_code = d.i16()?;
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
        out.put_i16(self.error_code);
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
impl crate::sample::Sample for OffsetFetchResponseGroup {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.group_id = g.string();
        this.topics = g.vec(|g| <OffsetFetchResponseTopics as crate::sample::Sample>::sample(g, version));
        this.error_code = g.i16();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
