//! `FetchResponse`: generated from Kafka's schema by `xtask codegen`; do not edit.

#[allow(unused_imports)]
use crate::messages::prelude::*;

/// `FetchResponse`, versions 4-18.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchResponse {
    /// Versions 4-18; ignorable.
    pub throttle_time_ms: i32,
    /// Versions 7-18; ignorable.
    pub error_code: i16,
    /// Versions 7-18.
    pub session_id: i32,
    /// Versions 4-18.
    pub responses: Vec<FetchableTopicResponse>,
    /// Tagged only; tag 0 in 16+.
    pub node_endpoints: Vec<NodeEndpoint>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for FetchResponse {
    fn default() -> Self {
        FetchResponse {
            throttle_time_ms: 0,
            error_code: 0,
            session_id: 0,
            responses: Vec::new(),
            node_endpoints: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for FetchResponse {
    const ENCODED_SIZE_MIN: usize = 5;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 12;
        let mut this = FetchResponse::default();
        this.throttle_time_ms = d.i32()?;
        if version >= 7 {
            this.error_code = d.i16()?;
        }
        if version >= 7 {
            this.session_id = d.i32()?;
        }
        this.responses = d.array(flexible, FetchableTopicResponse::ENCODED_SIZE_MIN, "responses", |d| {
            FetchableTopicResponse::decode(d, version)
        })?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 if version >= 16 => {
                        let d = &mut field;
                        this.node_endpoints = d.array(true, NodeEndpoint::ENCODED_SIZE_MIN, "node_endpoints", |d| {
                            NodeEndpoint::decode(d, version)
                        })?;
                        d.finish_tagged(tag)?;
                    }
                    _ => this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() }),
                }
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 12;
        out.put_i32(self.throttle_time_ms);
        if version >= 7 {
            out.put_i16(self.error_code);
        }
        if version >= 7 {
            out.put_i32(self.session_id);
        } else {
            if self.session_id != 0 {
                return Err(EncodeError::FieldNotInVersion { field: "session_id", version });
            }
        }
        out.put_length(flexible, false, Some(self.responses.len()), "responses")?;
        for item in &self.responses {
            item.encode(out, version)?;
        }
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if version >= 16 && !self.node_endpoints.is_empty() {
                let out = tagged.field(0);
                out.put_length(true, false, Some(self.node_endpoints.len()), "node_endpoints")?;
                for item in &self.node_endpoints {
                    item.encode(out, version)?;
                }
            } else {
                if !self.node_endpoints.is_empty() {
                    return Err(EncodeError::FieldNotInVersion { field: "node_endpoints", version });
                }
            }
            tagged.finish(out, &self.unknown_tagged_fields)?;
        } else if !self.unknown_tagged_fields.is_empty() {
            return Err(EncodeError::FieldNotInVersion { field: "unknown_tagged_fields", version });
        }
        Ok(())
    }
}

impl Message for FetchResponse {
    const NAME: &'static str = "FetchResponse";
    const VERSIONS: VersionRange = VersionRange { min: 4, max: 18 };
    const FLEXIBLE_MIN: Option<i16> = Some(12);
}

#[cfg(feature = "sample")]
impl crate::sample::Sample for FetchResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 12;
        let mut this = Self::default();
        this.throttle_time_ms = g.i32();
        if version >= 7 {
            this.error_code = g.i16();
        }
        if version >= 7 {
            this.session_id = g.i32();
        }
        this.responses = g.vec(|g| <FetchableTopicResponse as crate::sample::Sample>::sample(g, version));
        if version >= 16 && g.bool() {
            this.node_endpoints = g.vec(|g| <NodeEndpoint as crate::sample::Sample>::sample(g, version));
        }
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `EpochEndOffset`, versions 12-18.
#[derive(Debug, Clone, PartialEq)]
pub struct EpochEndOffset {
    /// Versions 12-18.
    pub epoch: i32,
    /// Versions 12-18.
    pub end_offset: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for EpochEndOffset {
    fn default() -> Self {
        EpochEndOffset { epoch: -1_i32, end_offset: -1_i64, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for EpochEndOffset {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = EpochEndOffset::default();
        this.epoch = d.i32()?;
        this.end_offset = d.i64()?;
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
        out.put_i32(self.epoch);
        out.put_i64(self.end_offset);
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
impl crate::sample::Sample for EpochEndOffset {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.epoch = g.i32();
        this.end_offset = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `LeaderIdAndEpoch`, versions 12-18.
#[derive(Debug, Clone, PartialEq)]
pub struct LeaderIdAndEpoch {
    /// Versions 12-18.
    pub leader_id: BrokerId,
    /// Versions 12-18.
    pub leader_epoch: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for LeaderIdAndEpoch {
    fn default() -> Self {
        LeaderIdAndEpoch { leader_id: BrokerId(-1_i32), leader_epoch: -1_i32, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for LeaderIdAndEpoch {
    const ENCODED_SIZE_MIN: usize = 9;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = LeaderIdAndEpoch::default();
        this.leader_id = d.i32().map(BrokerId)?;
        this.leader_epoch = d.i32()?;
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
        out.put_i32(self.leader_id.0);
        out.put_i32(self.leader_epoch);
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
impl crate::sample::Sample for LeaderIdAndEpoch {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.leader_id = BrokerId(g.i32());
        this.leader_epoch = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `SnapshotId`, versions 12-18.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotId {
    /// Versions 12-18.
    pub end_offset: i64,
    /// Versions 12-18.
    pub epoch: i32,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for SnapshotId {
    fn default() -> Self {
        SnapshotId { end_offset: -1_i64, epoch: -1_i32, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for SnapshotId {
    const ENCODED_SIZE_MIN: usize = 13;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = SnapshotId::default();
        this.end_offset = d.i64()?;
        this.epoch = d.i32()?;
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
        out.put_i64(self.end_offset);
        out.put_i32(self.epoch);
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
impl crate::sample::Sample for SnapshotId {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.end_offset = g.i64();
        this.epoch = g.i32();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `AbortedTransaction`, versions 4-18.
#[derive(Debug, Clone, PartialEq)]
pub struct AbortedTransaction {
    /// Versions 4-18.
    pub producer_id: ProducerId,
    /// Versions 4-18.
    pub first_offset: i64,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for AbortedTransaction {
    fn default() -> Self {
        AbortedTransaction { producer_id: ProducerId(0), first_offset: 0, unknown_tagged_fields: Vec::new() }
    }
}

impl Struct for AbortedTransaction {
    const ENCODED_SIZE_MIN: usize = 16;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 12;
        let mut this = AbortedTransaction::default();
        this.producer_id = d.i64().map(ProducerId)?;
        this.first_offset = d.i64()?;
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, field) = d.tagged_field()?;
                this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() });
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 12;
        out.put_i64(self.producer_id.0);
        out.put_i64(self.first_offset);
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
impl crate::sample::Sample for AbortedTransaction {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 12;
        let mut this = Self::default();
        this.producer_id = ProducerId(g.i64());
        this.first_offset = g.i64();
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `PartitionData`, versions 4-18.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionData {
    /// Versions 4-18.
    pub partition_index: i32,
    /// Versions 4-18.
    pub error_code: i16,
    /// Versions 4-18.
    pub high_watermark: i64,
    /// Versions 4-18; ignorable.
    pub last_stable_offset: i64,
    /// Versions 5-18; ignorable.
    pub log_start_offset: i64,
    /// Tagged only; tag 0 in 12+.
    pub diverging_epoch: EpochEndOffset,
    /// Tagged only; tag 1 in 12+.
    pub current_leader: LeaderIdAndEpoch,
    /// Tagged only; tag 2 in 12+.
    pub snapshot_id: SnapshotId,
    /// Versions 4-18; nullable 4-18; ignorable.
    pub aborted_transactions: Option<Vec<AbortedTransaction>>,
    /// Versions 11-18.
    pub preferred_read_replica: BrokerId,
    /// Versions 4-18; nullable 4-18.
    pub records: Option<Records>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for PartitionData {
    fn default() -> Self {
        PartitionData {
            partition_index: 0,
            error_code: 0,
            high_watermark: 0,
            last_stable_offset: -1_i64,
            log_start_offset: -1_i64,
            diverging_epoch: EpochEndOffset::default(),
            current_leader: LeaderIdAndEpoch::default(),
            snapshot_id: SnapshotId::default(),
            aborted_transactions: Some(Vec::new()),
            preferred_read_replica: BrokerId(-1_i32),
            records: Some(Records::default()),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for PartitionData {
    const ENCODED_SIZE_MIN: usize = 24;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 12;
        let mut this = PartitionData::default();
        this.partition_index = d.i32()?;
        this.error_code = d.i16()?;
        this.high_watermark = d.i64()?;
        this.last_stable_offset = d.i64()?;
        if version >= 5 {
            this.log_start_offset = d.i64()?;
        }
        this.aborted_transactions = d.nullable_array(flexible, AbortedTransaction::ENCODED_SIZE_MIN, |d| {
            AbortedTransaction::decode(d, version)
        })?;
        if version >= 11 {
            this.preferred_read_replica = d.i32().map(BrokerId)?;
        }
        this.records = d.nullable_bytes(flexible)?.map(Records::Bytes);
        if flexible {
            for _ in 0..d.tagged_field_count()? {
                let (tag, mut field) = d.tagged_field()?;
                match tag {
                    0 if version >= 12 => {
                        let d = &mut field;
                        this.diverging_epoch = EpochEndOffset::decode(d, version)?;
                        d.finish_tagged(tag)?;
                    }
                    1 if version >= 12 => {
                        let d = &mut field;
                        this.current_leader = LeaderIdAndEpoch::decode(d, version)?;
                        d.finish_tagged(tag)?;
                    }
                    2 if version >= 12 => {
                        let d = &mut field;
                        this.snapshot_id = SnapshotId::decode(d, version)?;
                        d.finish_tagged(tag)?;
                    }
                    _ => this.unknown_tagged_fields.push(RawTaggedField { tag, data: field.into_bytes() }),
                }
            }
        }
        Ok(this)
    }

    fn encode<W: WireWrite>(&self, out: &mut W, version: i16) -> Result<(), EncodeError> {
        let flexible = version >= 12;
        out.put_i32(self.partition_index);
        out.put_i16(self.error_code);
        out.put_i64(self.high_watermark);
        out.put_i64(self.last_stable_offset);
        if version >= 5 {
            out.put_i64(self.log_start_offset);
        }
        match &self.aborted_transactions {
            Some(value) => {
                out.put_length(flexible, false, Some(value.len()), "aborted_transactions")?;
                for item in value {
                    item.encode(out, version)?;
                }
            }
            None => {
                out.put_length(flexible, false, None, "aborted_transactions")?;
            }
        }
        if version >= 11 {
            out.put_i32(self.preferred_read_replica.0);
        } else {
            if self.preferred_read_replica != BrokerId(-1_i32) {
                return Err(EncodeError::FieldNotInVersion { field: "preferred_read_replica", version });
            }
        }
        match &self.records {
            Some(value) => {
                out.put_records(flexible, Some(value), "records")?;
            }
            None => {
                out.put_length(flexible, false, None, "records")?;
            }
        }
        if flexible {
            let mut tagged = TaggedFieldWriter::new();
            if version >= 12 && self.diverging_epoch != EpochEndOffset::default() {
                let out = tagged.field(0);
                self.diverging_epoch.encode(out, version)?;
            } else {
                if self.diverging_epoch != EpochEndOffset::default() {
                    return Err(EncodeError::FieldNotInVersion { field: "diverging_epoch", version });
                }
            }
            if version >= 12 && self.current_leader != LeaderIdAndEpoch::default() {
                let out = tagged.field(1);
                self.current_leader.encode(out, version)?;
            } else {
                if self.current_leader != LeaderIdAndEpoch::default() {
                    return Err(EncodeError::FieldNotInVersion { field: "current_leader", version });
                }
            }
            if version >= 12 && self.snapshot_id != SnapshotId::default() {
                let out = tagged.field(2);
                self.snapshot_id.encode(out, version)?;
            } else {
                if self.snapshot_id != SnapshotId::default() {
                    return Err(EncodeError::FieldNotInVersion { field: "snapshot_id", version });
                }
            }
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
        let flexible = version >= 12;
        let mut this = Self::default();
        this.partition_index = g.i32();
        this.error_code = g.i16();
        this.high_watermark = g.i64();
        this.last_stable_offset = g.i64();
        if version >= 5 {
            this.log_start_offset = g.i64();
        }
        if version >= 12 && g.bool() {
            this.diverging_epoch = <EpochEndOffset as crate::sample::Sample>::sample(g, version);
        }
        if version >= 12 && g.bool() {
            this.current_leader = <LeaderIdAndEpoch as crate::sample::Sample>::sample(g, version);
        }
        if version >= 12 && g.bool() {
            this.snapshot_id = <SnapshotId as crate::sample::Sample>::sample(g, version);
        }
        this.aborted_transactions =
            g.nullable(|g| g.vec(|g| <AbortedTransaction as crate::sample::Sample>::sample(g, version)));
        if version >= 11 {
            this.preferred_read_replica = BrokerId(g.i32());
        }
        this.records = g.nullable(|g| Records::Bytes(g.bytes()));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `FetchableTopicResponse`, versions 4-18.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchableTopicResponse {
    /// Versions 4-12; ignorable.
    pub topic: String,
    /// Versions 13-18; ignorable.
    pub topic_id: Uuid,
    /// Versions 4-18.
    pub partitions: Vec<PartitionData>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for FetchableTopicResponse {
    fn default() -> Self {
        FetchableTopicResponse {
            topic: String::new(),
            topic_id: Uuid::ZERO,
            partitions: Vec::new(),
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for FetchableTopicResponse {
    const ENCODED_SIZE_MIN: usize = 2;

    fn decode(d: &mut Decoder, version: i16) -> Result<Self, DecodeError> {
        let flexible = version >= 12;
        let mut this = FetchableTopicResponse::default();
        if version <= 12 {
            this.topic = d.string(flexible, "topic")?;
        }
        if version >= 13 {
            this.topic_id = d.uuid()?;
        }
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
        let flexible = version >= 12;
        if version <= 12 {
            out.put_string(flexible, &self.topic, "topic")?;
        }
        if version >= 13 {
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
impl crate::sample::Sample for FetchableTopicResponse {
    fn sample(g: &mut crate::sample::SampleGen, version: i16) -> Self {
        let flexible = version >= 12;
        let mut this = Self::default();
        if version <= 12 {
            this.topic = g.string();
        }
        if version >= 13 {
            this.topic_id = g.uuid();
        }
        this.partitions = g.vec(|g| <PartitionData as crate::sample::Sample>::sample(g, version));
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}

/// `NodeEndpoint`, versions 16-18.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeEndpoint {
    /// Versions 16-18; map key.
    pub node_id: BrokerId,
    /// Versions 16-18.
    pub host: String,
    /// Versions 16-18.
    pub port: i32,
    /// Versions 16-18; nullable 16-18.
    pub rack: Option<String>,
    /// Tagged fields this build does not know, re-encoded unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl Default for NodeEndpoint {
    fn default() -> Self {
        NodeEndpoint {
            node_id: BrokerId(0),
            host: String::new(),
            port: 0,
            rack: None,
            unknown_tagged_fields: Vec::new(),
        }
    }
}

impl Struct for NodeEndpoint {
    const ENCODED_SIZE_MIN: usize = 11;

    fn decode(d: &mut Decoder, _version: i16) -> Result<Self, DecodeError> {
        let flexible = true;
        let mut this = NodeEndpoint::default();
        this.node_id = d.i32().map(BrokerId)?;
        this.host = d.string(flexible, "host")?;
        this.port = d.i32()?;
        this.rack = d.nullable_string(flexible)?;
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
        out.put_i32(self.node_id.0);
        out.put_string(flexible, &self.host, "host")?;
        out.put_i32(self.port);
        match &self.rack {
            Some(value) => {
                out.put_string(flexible, value, "rack")?;
            }
            None => {
                out.put_length(flexible, true, None, "rack")?;
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
impl crate::sample::Sample for NodeEndpoint {
    fn sample(g: &mut crate::sample::SampleGen, _version: i16) -> Self {
        let flexible = true;
        let mut this = Self::default();
        this.node_id = BrokerId(g.i32());
        this.host = g.string();
        this.port = g.i32();
        this.rack = g.nullable(|g| g.string());
        if flexible {
            this.unknown_tagged_fields = g.unknown_tagged_fields();
        }
        this
    }
}
