//! `AlterPartitionRequest`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `AlterPartitionRequest`, versions 2-3.
#[derive(Debug, Clone, PartialEq)]
pub struct AlterPartitionRequest {
    /// Versions 2-3.
    pub broker_id: BrokerId,
    /// Versions 2-3.
    pub broker_epoch: i64,
    /// Versions 2-3.
    pub topics: Vec<TopicData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AlterPartitionRequest {
    fn default() -> Self {
        AlterPartitionRequest {
            broker_id: BrokerId(0),
            broker_epoch: -1_i64,
            topics: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for AlterPartitionRequest {
    const ENCODED_SIZE_MIN: usize = 14;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = AlterPartitionRequest::default();
        this.broker_id = d.i32().map(BrokerId)?;
        this.broker_epoch = d.i64()?;
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
        out.put_i32(self.broker_id.0);
        out.put_i64(self.broker_epoch);
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

impl Message for AlterPartitionRequest {
    const NAME: &'static str = "AlterPartitionRequest";
    const VERSIONS: VersionRange = VersionRange { min: 2, max: 3 };
    const FLEXIBLE_MIN: Option<i16> = Some(0);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for AlterPartitionRequest {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.broker_id = BrokerId(g.i32());
        this.broker_epoch = g.i64();
        this.topics = g.vec(|g| <TopicData as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `BrokerState`, versions 3.
#[derive(Debug, Clone, PartialEq)]
pub struct BrokerState {
    /// Versions 3.
    pub broker_id: BrokerId,
    /// Versions 3.
    pub broker_epoch: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for BrokerState {
    fn default() -> Self {
        BrokerState { broker_id: BrokerId(0), broker_epoch: -1_i64, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for BrokerState {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = BrokerState::default();
        this.broker_id = d.i32().map(BrokerId)?;
        this.broker_epoch = d.i64()?;
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
        out.put_i32(self.broker_id.0);
        out.put_i64(self.broker_epoch);
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
impl crate::sample::Sample for BrokerState {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.broker_id = BrokerId(g.i32());
        this.broker_epoch = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `PartitionData`, versions 2-3.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionData {
    /// Versions 2-3.
    pub partition_index: i32,
    /// Versions 2-3.
    pub leader_epoch: i32,
    /// Versions 2.
    pub new_isr: Vec<BrokerId>,
    /// Versions 3.
    pub new_isr_with_epochs: Vec<BrokerState>,
    /// Versions 2-3.
    pub leader_recovery_state: i8,
    /// Versions 2-3.
    pub partition_epoch: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionData {
    fn default() -> Self {
        PartitionData {
            partition_index: 0,
            leader_epoch: 0,
            new_isr: Vec::new(),
            new_isr_with_epochs: Vec::new(),
            leader_recovery_state: 0,
            partition_epoch: 0,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionData {
    const ENCODED_SIZE_MIN: usize = 15;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = PartitionData::default();
        this.partition_index = d.i32()?;
        this.leader_epoch = d.i32()?;
        if version <= 2 {
            this.new_isr = d.array(flexible, 4, "new_isr", |d| d.i32().map(BrokerId))?;
        }
        if version >= 3 {
            this.new_isr_with_epochs =
                d.array(flexible, BrokerState::ENCODED_SIZE_MIN, "new_isr_with_epochs", |d| {
                    BrokerState::decode(d, version)
                })?;
        }
        this.leader_recovery_state = d.i8()?;
        this.partition_epoch = d.i32()?;
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
        out.put_i32(self.leader_epoch);
        if version <= 2 {
            out.put_length(flexible, false, Some(self.new_isr.len()), "new_isr")?;
            for item in &self.new_isr {
                out.put_i32(item.0);
            }
        } else {
            if !self.new_isr.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "new_isr", version });
            }
        }
        if version >= 3 {
            out.put_length(flexible, false, Some(self.new_isr_with_epochs.len()), "new_isr_with_epochs")?;
            for item in &self.new_isr_with_epochs {
                item.encode(out, version)?;
            }
        } else {
            if !self.new_isr_with_epochs.is_empty() {
                return Err(EncodeError::FieldNotInVersion { field: "new_isr_with_epochs", version });
            }
        }
        out.put_i8(self.leader_recovery_state);
        out.put_i32(self.partition_epoch);
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
impl crate::sample::Sample for PartitionData {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.leader_epoch = g.i32();
        if version <= 2 {
            this.new_isr = g.vec(|g| BrokerId(g.i32()));
        }
        if version >= 3 {
            this.new_isr_with_epochs = g.vec(|g| <BrokerState as crate::sample::Sample>::sample(g, version));
        }
        this.leader_recovery_state = g.i8();
        this.partition_epoch = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `TopicData`, versions 2-3.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicData {
    /// Versions 2-3; ignorable.
    pub topic_id: Uuid,
    /// Versions 2-3.
    pub partitions: Vec<PartitionData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for TopicData {
    fn default() -> Self {
        TopicData { topic_id: Uuid::ZERO, partitions: Vec::new(), unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for TopicData {
    const ENCODED_SIZE_MIN: usize = 18;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = TopicData::default();
        this.topic_id = d.uuid()?;
        this.partitions =
            d.array(flexible, PartitionData::ENCODED_SIZE_MIN, "partitions", |d| PartitionData::decode(d, version))?;
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
impl crate::sample::Sample for TopicData {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.topic_id = g.uuid();
        this.partitions = g.vec(|g| <PartitionData as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
