//! `DescribeProducersResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeProducersResponse`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeProducersResponse {
    /// Versions 0.
    pub throttle_time_ms: i32,
    /// Versions 0.
    pub topics: Vec<TopicResponse>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeProducersResponse {
    fn default() -> Self {
        DescribeProducersResponse { throttle_time_ms: 0, topics: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for DescribeProducersResponse {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribeProducersResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.topics =
            d.array(flexible, TopicResponse::ENCODED_SIZE_MIN, "topics", |d| TopicResponse::decode(d, version))?;
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

impl Message for DescribeProducersResponse {
    const NAME: &'static str = "DescribeProducersResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeProducersResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.topics = g.vec(|g| <TopicResponse as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `ProducerState`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct ProducerState {
    /// Versions 0.
    pub producer_id: ProducerId,
    /// Versions 0.
    pub producer_epoch: i32,
    /// Versions 0.
    pub last_sequence: i32,
    /// Versions 0.
    pub last_timestamp: i64,
    /// Versions 0.
    pub coordinator_epoch: i32,
    /// Versions 0.
    pub current_txn_start_offset: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for ProducerState {
    fn default() -> Self {
        ProducerState {
            producer_id: ProducerId(0),
            producer_epoch: 0,
            last_sequence: -1_i32,
            last_timestamp: -1_i64,
            coordinator_epoch: 0,
            current_txn_start_offset: -1_i64,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for ProducerState {
    const ENCODED_SIZE_MIN: usize = 37;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = ProducerState::default();
        this.producer_id = d.i64().map(ProducerId)?;
        this.producer_epoch = d.i32()?;
        this.last_sequence = d.i32()?;
        this.last_timestamp = d.i64()?;
        this.coordinator_epoch = d.i32()?;
        this.current_txn_start_offset = d.i64()?;
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
        out.put_i64(self.producer_id.0);
        out.put_i32(self.producer_epoch);
        out.put_i32(self.last_sequence);
        out.put_i64(self.last_timestamp);
        out.put_i32(self.coordinator_epoch);
        out.put_i64(self.current_txn_start_offset);
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
impl crate::sample::Sample for ProducerState {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.producer_id = ProducerId(g.i64());
        this.producer_epoch = g.i32();
        this.last_sequence = g.i32();
        this.last_timestamp = g.i64();
        this.coordinator_epoch = g.i32();
        this.current_txn_start_offset = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `PartitionResponse`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionResponse {
    /// Versions 0.
    pub partition_index: i32,
    /// Versions 0.
    pub error_code: i16,
    /// Versions 0; nullable 0.
    pub error_message: Option<String>,
    /// Versions 0.
    pub active_producers: Vec<ProducerState>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionResponse {
    fn default() -> Self {
        PartitionResponse {
            partition_index: 0,
            error_code: 0,
            error_message: None,
            active_producers: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionResponse {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = PartitionResponse::default();
        this.partition_index = d.i32()?;
        this.error_code = d.i16()?;
        this.error_message = d.nullable_string(flexible)?;
        this.active_producers = d.array(flexible, ProducerState::ENCODED_SIZE_MIN, "active_producers", |d| {
            ProducerState::decode(d, version)
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
        out.put_i32(self.partition_index);
        out.put_i16(self.error_code);
        match &self.error_message {
            Some(value) => {
                out.put_string(flexible, value, "error_message")?;
            }
            None => {
                out.put_length(flexible, true, None, "error_message")?;
            }
        }
        out.put_length(flexible, false, Some(self.active_producers.len()), "active_producers")?;
        for item in &self.active_producers {
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
impl crate::sample::Sample for PartitionResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.error_code = g.i16();
        this.error_message = g.nullable(|g| g.string());
        this.active_producers = g.vec(|g| <ProducerState as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicResponse`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicResponse {
    /// Versions 0.
    pub name: String,
    /// Versions 0.
    pub partitions: Vec<PartitionResponse>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicResponse {
    fn default() -> Self {
        TopicResponse { name: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TopicResponse {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicResponse::default();
        this.name = d.string(flexible, "name")?;
        this.partitions = d.array(flexible, PartitionResponse::ENCODED_SIZE_MIN, "partitions", |d| {
            PartitionResponse::decode(d, version)
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
impl crate::sample::Sample for TopicResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.name = g.string();
        this.partitions = g.vec(|g| <PartitionResponse as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
