//! `ConsumerGroupHeartbeatRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `ConsumerGroupHeartbeatRequest`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerGroupHeartbeatRequest {
    /// Versions 0-1.
    pub group_id: String,
    /// Versions 0-1.
    pub member_id: String,
    /// Versions 0-1.
    pub member_epoch: i32,
    /// Versions 0-1; nullable 0-1.
    pub instance_id: Option<String>,
    /// Versions 0-1; nullable 0-1.
    pub rack_id: Option<String>,
    /// Versions 0-1.
    pub rebalance_timeout_ms: i32,
    /// Versions 0-1; nullable 0-1.
    pub subscribed_topic_names: Option<Vec<String>>,
    /// Versions 1; nullable 1.
    pub subscribed_topic_regex: Option<String>,
    /// Versions 0-1; nullable 0-1.
    pub server_assignor: Option<String>,
    /// Versions 0-1; nullable 0-1.
    pub topic_partitions: Option<Vec<TopicPartitions>>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ConsumerGroupHeartbeatRequest {
    fn default() -> Self {
        ConsumerGroupHeartbeatRequest {
            group_id: String::new(),
            member_id: String::new(),
            member_epoch: 0,
            instance_id: None,
            rack_id: None,
            rebalance_timeout_ms: -1_i32,
            subscribed_topic_names: None,
            subscribed_topic_regex: None,
            server_assignor: None,
            topic_partitions: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ConsumerGroupHeartbeatRequest {
    const ENCODED_SIZE_MIN: usize = 16;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ConsumerGroupHeartbeatRequest::default();
        this.group_id = d.string(flexible, "group_id")?;
        this.member_id = d.string(flexible, "member_id")?;
        this.member_epoch = d.i32()?;
        this.instance_id = d.nullable_string(flexible)?;
        this.rack_id = d.nullable_string(flexible)?;
        this.rebalance_timeout_ms = d.i32()?;
        this.subscribed_topic_names =
            d.nullable_array(flexible, 1, |d| d.string(flexible, "subscribed_topic_names"))?;
        if version >= 1 {
            this.subscribed_topic_regex = d.nullable_string(flexible)?;
        }
        this.server_assignor = d.nullable_string(flexible)?;
        this.topic_partitions =
            d.nullable_array(flexible, TopicPartitions::ENCODED_SIZE_MIN, |d| TopicPartitions::decode(d, version))?;
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
        out.put_string(flexible, &self.member_id, "member_id")?;
        out.put_i32(self.member_epoch);
        match &self.instance_id {
            Some(value) => {
                out.put_string(flexible, value, "instance_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "instance_id")?;
            }
        }
        match &self.rack_id {
            Some(value) => {
                out.put_string(flexible, value, "rack_id")?;
            }
            None => {
                out.put_length(flexible, true, None, "rack_id")?;
            }
        }
        out.put_i32(self.rebalance_timeout_ms);
        match &self.subscribed_topic_names {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "subscribed_topic_names")?;
                for item in value {
                    out.put_string(flexible, item, "subscribed_topic_names")?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "subscribed_topic_names")?;
            }
        }
        if version >= 1 {
            match &self.subscribed_topic_regex {
                Some(value) => {
                    out.put_string(flexible, value, "subscribed_topic_regex")?;
                }
                None => {
                    out.put_length(flexible, true, None, "subscribed_topic_regex")?;
                }
            }
        } else {
            if self.subscribed_topic_regex.is_some() {
                return Err(EncodeError::FieldNotInVersion { field: "subscribed_topic_regex", version });
            }
        }
        match &self.server_assignor {
            Some(value) => {
                out.put_string(flexible, value, "server_assignor")?;
            }
            None => {
                out.put_length(flexible, true, None, "server_assignor")?;
            }
        }
        match &self.topic_partitions {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "topic_partitions")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "topic_partitions")?;
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

impl Message for ConsumerGroupHeartbeatRequest {
    const NAME: &'static str = "ConsumerGroupHeartbeatRequest";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 1 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for ConsumerGroupHeartbeatRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.group_id = g.string();
        this.member_id = g.string();
        this.member_epoch = g.i32();
        this.instance_id = g.nullable(|g| g.string());
        this.rack_id = g.nullable(|g| g.string());
        this.rebalance_timeout_ms = g.i32();
        this.subscribed_topic_names = g.nullable(|g| g.vec(|g| g.string()));
        if version >= 1 {
            this.subscribed_topic_regex = g.nullable(|g| g.string());
        }
        this.server_assignor = g.nullable(|g| g.string());
        this.topic_partitions =
            g.nullable(|g| g.vec(|g| <TopicPartitions as crate::sample::Sample>::sample(g, version)));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicPartitions`, versions 0-1.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicPartitions {
    /// Versions 0-1.
    pub topic_id: Uuid,
    /// Versions 0-1.
    pub partitions: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicPartitions {
    fn default() -> Self {
        TopicPartitions { topic_id: Uuid::ZERO, partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TopicPartitions {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicPartitions::default();
        this.topic_id = d.uuid()?;
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
        this.partitions = g.vec(|g| g.i32());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
