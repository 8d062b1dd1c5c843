//! `DescribeTransactionsResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `DescribeTransactionsResponse`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct DescribeTransactionsResponse {
    /// Versions 0.
    pub throttle_time_ms: i32,
    /// Versions 0.
    pub transaction_states: Vec<TransactionState>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for DescribeTransactionsResponse {
    fn default() -> Self {
        DescribeTransactionsResponse {
            throttle_time_ms: 0,
            transaction_states: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for DescribeTransactionsResponse {
    const ENCODED_SIZE_MIN: usize = 6;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = DescribeTransactionsResponse::default();
        this.throttle_time_ms = d.i32()?;
        this.transaction_states = d.array(flexible, TransactionState::ENCODED_SIZE_MIN, "transaction_states", |d| {
            TransactionState::decode(d, version)
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
        out.put_i32(self.throttle_time_ms);
        out.put_length(flexible, false, Some(self.transaction_states.len()), "transaction_states")?;
        for item in &self.transaction_states {
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

impl Message for DescribeTransactionsResponse {
    const NAME: &'static str = "DescribeTransactionsResponse";
    const VERSIONS: VersionRange = VersionRange { min: 0, max: 0 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for DescribeTransactionsResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        this.transaction_states = g.vec(|g| <TransactionState as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicData`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicData {
    /// Versions 0; map key.
    pub topic: String,
    /// Versions 0.
    pub partitions: Vec<i32>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicData {
    fn default() -> Self {
        TopicData { topic: String::new(), partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TopicData {
    const ENCODED_SIZE_MIN: usize = 3;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicData::default();
        this.topic = d.string(flexible, "topic")?;
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
        out.put_string(flexible, &self.topic, "topic")?;
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
impl crate::sample::Sample for TopicData {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic = g.string();
        this.partitions = g.vec(|g| g.i32());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TransactionState`, versions 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TransactionState {
    /// Versions 0.
    pub error_code: i16,
    /// Versions 0.
    pub transactional_id: String,
    /// Versions 0.
    pub transaction_state: String,
    /// Versions 0.
    pub transaction_timeout_ms: i32,
    /// Versions 0.
    pub transaction_start_time_ms: i64,
    /// Versions 0.
    pub producer_id: ProducerId,
    /// Versions 0.
    pub producer_epoch: i16,
    /// Versions 0.
    pub topics: Vec<TopicData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TransactionState {
    fn default() -> Self {
        TransactionState {
            error_code: 0,
            transactional_id: String::new(),
            transaction_state: String::new(),
            transaction_timeout_ms: 0,
            transaction_start_time_ms: 0,
            producer_id: ProducerId(0),
            producer_epoch: 0,
            topics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for TransactionState {
    const ENCODED_SIZE_MIN: usize = 28;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TransactionState::default();
        this.error_code = d.i16()?;
        this.transactional_id = d.string(flexible, "transactional_id")?;
        this.transaction_state = d.string(flexible, "transaction_state")?;
        this.transaction_timeout_ms = d.i32()?;
        this.transaction_start_time_ms = d.i64()?;
        this.producer_id = d.i64().map(ProducerId)?;
        this.producer_epoch = d.i16()?;
        this.topics = d.array(flexible, TopicData::ENCODED_SIZE_MIN, "topics", |d| TopicData::decode(d, version))?;
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
        out.put_string(flexible, &self.transactional_id, "transactional_id")?;
        out.put_string(flexible, &self.transaction_state, "transaction_state")?;
        out.put_i32(self.transaction_timeout_ms);
        out.put_i64(self.transaction_start_time_ms);
        out.put_i64(self.producer_id.0);
        out.put_i16(self.producer_epoch);
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

#[cfg(feature = "sample")]
impl crate::sample::Sample for TransactionState {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.error_code = g.i16();
        this.transactional_id = g.string();
        this.transaction_state = g.string();
        this.transaction_timeout_ms = g.i32();
        this.transaction_start_time_ms = g.i64();
        this.producer_id = ProducerId(g.i64());
        this.producer_epoch = g.i16();
        this.topics = g.vec(|g| <TopicData as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
