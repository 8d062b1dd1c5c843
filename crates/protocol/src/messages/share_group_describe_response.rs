//! `ShareGroupDescribeResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ShareGroupDescribeResponse`, versions 1.
#[derive(Debug, Clone, PartialEq)]
pub struct ShareGroupDescribeResponse {
    /// Versions 1.
    pub throttle_time_ms: i32,
    /// Versions 1.
    pub groups: Vec<DescribedGroup>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ShareGroupDescribeResponse {
    fn default() -> Self {
        ShareGroupDescribeResponse { throttle_time_ms: 0, groups: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for ShareGroupDescribeResponse {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ShareGroupDescribeResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.groups =
            d.array(flexible, DescribedGroup::ENCODED_SIZE_MIN, "groups", |d| DescribedGroup::decode(d, version))?;
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
        out.put_i32(self.throttle_time_ms);
        out.put_length(flexible, false, Some(self.groups.len()), "groups")?;
        for item in &self.groups {
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

impl Message for ShareGroupDescribeResponse {
    const NAME: &'static str = "ShareGroupDescribeResponse";
    const VERSIONS: VersionRange = VersionRange { min: 1, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ShareGroupDescribeResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.groups = g.vec(|g| <DescribedGroup as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Member`, versions 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// Versions 1.
    pub member_id: String,
    /// Versions 1; nullable 1.
    pub rack_id: Option<String>,
    /// Versions 1.
    pub member_epoch: i32,
    /// Versions 1.
    pub client_id: String,
    /// Versions 1.
    pub client_host: String,
    /// Versions 1.
    pub subscribed_topic_names: Vec<String>,
    /// Versions 1.
    pub assignment: Assignment,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Member {
    fn default() -> Self {
        Member {
            member_id: String::new(),
            rack_id: None,
            member_epoch: 0,
            client_id: String::new(),
            client_host: String::new(),
            subscribed_topic_names: Vec::new(),
            assignment: Assignment::default(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for Member {
    const ENCODED_SIZE_MIN: usize = 12;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Member::default();
        this.member_id = d.string(flexible, "member_id")?;
        this.rack_id = d.nullable_string(flexible)?;
        this.member_epoch = d.i32()?;
        this.client_id = d.string(flexible, "client_id")?;
        this.client_host = d.string(flexible, "client_host")?;
        this.subscribed_topic_names =
            d.array(flexible, 1, "subscribed_topic_names", |d| d.string(flexible, "subscribed_topic_names"))?;
        this.assignment = Assignment::decode(d, version)?;
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
        out.put_string(flexible, &self.member_id, "member_id")?;
        match &self.rack_id {
            Some(value) => {
                out.put_string(flexible, value, "rack_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "rack_id")?;
            }
        }
        out.put_i32(self.member_epoch);
        out.put_string(flexible, &self.client_id, "client_id")?;
        out.put_string(flexible, &self.client_host, "client_host")?;
        out.put_length(flexible, false, Some(self.subscribed_topic_names.len()), "subscribed_topic_names")?;
        for item in &self.subscribed_topic_names {
            out.put_string(flexible, item, "subscribed_topic_names")?;
        }
        self.assignment.encode(out, version)?;
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
impl crate::sample::Sample for Member {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.member_id = g.string();
        this.rack_id = g.nullable(|g| g.string());
        this.member_epoch = g.i32();
        this.client_id = g.string();
        this.client_host = g.string();
        this.subscribed_topic_names = g.vec(|g| g.string());
        this.assignment = <Assignment as crate::sample::Sample>::sample(g, version);
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `DescribedGroup`, versions 1.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribedGroup {
    /// Versions 1.
    pub error_code: i16,
    /// Versions 1; nullable 1.
    pub error_message: Option<String>,
    /// Versions 1.
    pub group_id: String,
    /// Versions 1.
    pub group_state: String,
    /// Versions 1.
    pub group_epoch: i32,
    /// Versions 1.
    pub assignment_epoch: i32,
    /// Versions 1.
    pub assignor_name: String,
    /// Versions 1.
    pub members: Vec<Member>,
    /// Versions 1.
    pub authorized_operations: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribedGroup {
    fn default() -> Self {
        DescribedGroup {
            error_code: 0,
            error_message: None,
            group_id: String::new(),
            group_state: String::new(),
            group_epoch: 0,
            assignment_epoch: 0,
            assignor_name: String::new(),
            members: Vec::new(),
            authorized_operations: -2147483648_i32,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribedGroup {
    const ENCODED_SIZE_MIN: usize = 20;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribedGroup::default();
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.group_id = d.string(flexible, "group_id")?;
        this.group_state = d.string(flexible, "group_state")?;
        this.group_epoch = d.i32()?;
        this.assignment_epoch = d.i32()?;
        this.assignor_name = d.string(flexible, "assignor_name")?;
        this.members = d.array(flexible, Member::ENCODED_SIZE_MIN, "members", |d| Member::decode(d, version))?;
        this.authorized_operations = d.i32()?;
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
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
        out.put_string(flexible, &self.group_id, "group_id")?;
        out.put_string(flexible, &self.group_state, "group_state")?;
        out.put_i32(self.group_epoch);
        out.put_i32(self.assignment_epoch);
        out.put_string(flexible, &self.assignor_name, "assignor_name")?;
        out.put_length(flexible, false, Some(self.members.len()), "members")?;
        for item in &self.members {
            item.encode(out, version)?;
        }
        out.put_i32(self.authorized_operations);
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
impl crate::sample::Sample for DescribedGroup {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.group_id = g.string();
        this.group_state = g.string();
        this.group_epoch = g.i32();
        this.assignment_epoch = g.i32();
        this.assignor_name = g.string();
        this.members = g.vec(|g| <Member as crate::sample::Sample>::sample(g, version));
        this.authorized_operations = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicPartitions`, versions 1.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicPartitions {
    /// Versions 1.
    pub topic_id: Uuid,
    /// Versions 1.
    pub topic_name: String,
    /// Versions 1.
    pub partitions: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicPartitions {
    fn default() -> Self {
        TopicPartitions {
            topic_id: Uuid::ZERO,
            topic_name: String::new(),
            partitions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TopicPartitions {
    const ENCODED_SIZE_MIN: usize = 19;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicPartitions::default();
        this.topic_id = d.uuid()?;
        this.topic_name = d.string(flexible, "topic_name")?;
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
        let flexible = true;
        out.put_uuid(&self.topic_id);
        out.put_string(flexible, &self.topic_name, "topic_name")?;
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
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_id = g.uuid();
        this.topic_name = g.string();
        this.partitions = g.vec(|g| g.i32());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `Assignment`, versions 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    /// Versions 1.
    pub topic_partitions: Vec<TopicPartitions>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for Assignment {
    fn default() -> Self {
        Assignment { topic_partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for Assignment {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = Assignment::default();
        this.topic_partitions = d.array(flexible, TopicPartitions::ENCODED_SIZE_MIN, "topic_partitions", |d| {
            TopicPartitions::decode(d, version)
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
        out.put_length(flexible, false, Some(self.topic_partitions.len()), "topic_partitions")?;
        for item in &self.topic_partitions {
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
impl crate::sample::Sample for Assignment {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_partitions = g.vec(|g| <TopicPartitions as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
