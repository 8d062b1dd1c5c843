//! `OffsetFetchRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `OffsetFetchRequest`, versions 1-10.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetFetchRequest {
    /// Versions 1-7.
    pub group_id: String,
    /// Versions 1-7; nullable 2-7.
    pub topics: Option<Vec<OffsetFetchRequestTopic>>,
    /// Versions 8-10.
    pub groups: Vec<OffsetFetchRequestGroup>,
    /// Versions 7-10.
    pub require_stable: bool,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetFetchRequest {
    fn default() -> Self {
        OffsetFetchRequest {
            group_id: String::new(),
            topics: Some(Vec::new()),
            groups: Vec::new(),
            require_stable: false,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for OffsetFetchRequest {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 6;
        let mut this = OffsetFetchRequest::default();
        if version <= 7 {
            this.group_id = d.string(flexible, "group_id")?;
        }
        if version <= 7 {
            this.topics = if version >= 2 {
                d.nullable_array(flexible, OffsetFetchRequestTopic::ENCODED_SIZE_MIN, |d| {
                    OffsetFetchRequestTopic::decode(d, version)
                })?
            } else {
                Some(d.array(flexible, OffsetFetchRequestTopic::ENCODED_SIZE_MIN, "topics", |d| {
                    OffsetFetchRequestTopic::decode(d, version)
                })?)
            };
        }
        if version >= 8 {
            this.groups = d.array(flexible, OffsetFetchRequestGroup::ENCODED_SIZE_MIN, "groups", |d| {
                OffsetFetchRequestGroup::decode(d, version)
            })?;
        }
        if version >= 7 {
            this.require_stable = d.bool()?;
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
        if version <= 7 {
            out.put_string(flexible, &self.group_id, "group_id")?;
        } else {
            if !self.group_id.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "group_id", version });
            }
        }
        if version <= 7 {
            match &self.topics {
                Some(value) => {
                    out.put_length(flexible, false, Some(value.len()), "topics")?;
                    for item in value {
                        item.encode(out, version)?;
                    }
                }
                None if version >= 2 => {
                    out.put_length(flexible, false, None, "topics")?;
                }
                None => {
                    return Err(EncodeError::NullNotAllowed { field: "topics", version });
                }
            }
        } else {
            if self.topics != Some(Vec::new()) {
                return Err(EncodeError::FieldNotInVersion { field: "topics", version });
            }
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
        if version >= 7 {
            out.put_bool(self.require_stable);
        } else {
            if self.require_stable {
                return Err(EncodeError::FieldNotInVersion { field: "require_stable", version });
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

impl Message for OffsetFetchRequest {
    const NAME: &'static str = "OffsetFetchRequest";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 10 };
    const FLEXIBLE_MIN: Option<i16> = Some(6);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for OffsetFetchRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 6;
        let mut this = Self::default();
        if version <= 7 {
            this.group_id = g.string();
        }
        if version <= 7 {
            this.topics = if version >= 2 {
                g.nullable(|g| g.vec(|g| <OffsetFetchRequestTopic as crate::sample::Sample>::sample(g, version)))
            } else {
                Some(g.vec(|g| <OffsetFetchRequestTopic as crate::sample::Sample>::sample(g, version)))
            };
        }
        if version >= 8 {
            this.groups = g.vec(|g| <OffsetFetchRequestGroup as crate::sample::Sample>::sample(g, version));
        }
        if version >= 7 {
            this.require_stable = g.bool();
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `OffsetFetchRequestTopic`, versions 1-7.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetFetchRequestTopic {
    /// Versions 1-7.
    pub name: String,
    /// Versions 1-7.
    pub partition_indexes: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetFetchRequestTopic {
    fn default() -> Self {
        OffsetFetchRequestTopic {
            name: String::new(),
            partition_indexes: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for OffsetFetchRequestTopic {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 6;
        let mut this = OffsetFetchRequestTopic::default();
        this.name = d.string(flexible, "name")?;
        this.partition_indexes = d.array(flexible, 4, "partition_indexes", |d| d.i32())?;
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
        out.put_length(flexible, false, Some(self.partition_indexes.len()), "partition_indexes")?;
        for item in &self.partition_indexes {
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
impl crate::sample::Sample for OffsetFetchRequestTopic {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 6;
        let mut this = Self::default();
        this.name = g.string();
        this.partition_indexes = g.vec(|g| g.i32());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `OffsetFetchRequestTopics`, versions 8-10.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetFetchRequestTopics {
    /// Versions 8-9; ignorable.
    pub name: String,
    /// Versions 10; ignorable.
    pub topic_id: Uuid,
    /// Versions 8-10.
    pub partition_indexes: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetFetchRequestTopics {
    fn default() -> Self {
        OffsetFetchRequestTopics {
            name: String::new(),
            topic_id: Uuid::ZERO,
            partition_indexes: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for OffsetFetchRequestTopics {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = OffsetFetchRequestTopics::default();
        if version <= 9 {
            this.name = d.string(flexible, "name")?;
        }
        if version >= 10 {
            this.topic_id = d.uuid()?;
        }
        this.partition_indexes = d.array(flexible, 4, "partition_indexes", |d| d.i32())?;
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
        out.put_length(flexible, false, Some(self.partition_indexes.len()), "partition_indexes")?;
        for item in &self.partition_indexes {
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
impl crate::sample::Sample for OffsetFetchRequestTopics {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        if version <= 9 {
            this.name = g.string();
        }
        if version >= 10 {
            this.topic_id = g.uuid();
        }
        this.partition_indexes = g.vec(|g| g.i32());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `OffsetFetchRequestGroup`, versions 8-10.
#[derive(Debug, Clone, PartialEq)]
pub struct OffsetFetchRequestGroup {
    /// Versions 8-10.
    pub group_id: String,
    /// Versions 9-10; nullable 9-10; ignorable.
    pub member_id: Option<String>,
    /// Versions 9-10; ignorable.
    pub member_epoch: i32,
    /// Versions 8-10; nullable 8-10.
    pub topics: Option<Vec<OffsetFetchRequestTopics>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for OffsetFetchRequestGroup {
    fn default() -> Self {
        OffsetFetchRequestGroup {
            group_id: String::new(),
            member_id: None,
            member_epoch: -1_i32,
            topics: Some(Vec::new()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for OffsetFetchRequestGroup {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = OffsetFetchRequestGroup::default();
        this.group_id = d.string(flexible, "group_id")?;
        if version >= 9 {
            this.member_id = d.nullable_string(flexible)?;
        }
        if version >= 9 {
            this.member_epoch = d.i32()?;
        }
        this.topics = d.nullable_array(flexible, OffsetFetchRequestTopics::ENCODED_SIZE_MIN, |d| {
            OffsetFetchRequestTopics::decode(d, version)
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
        if version >= 9 {
            match &self.member_id {
                Some(value) => {
                    out.put_string(flexible, value, "member_id")?;
                }
                None => {
                    out.put_length(flexible, true, None, "member_id")?;
                }
            }
        }
        if version >= 9 {
            out.put_i32(self.member_epoch);
        }
        match &self.topics {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "topics")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "topics")?;
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
impl crate::sample::Sample for OffsetFetchRequestGroup {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.group_id = g.string();
        if version >= 9 {
            this.member_id = g.nullable(|g| g.string());
        }
        if version >= 9 {
            this.member_epoch = g.i32();
        }
        this.topics =
            g.nullable(|g| g.vec(|g| <OffsetFetchRequestTopics as crate::sample::Sample>::sample(g, version)));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
