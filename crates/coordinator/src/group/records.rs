//! The records of `__consumer_offsets`, in Kafka's own format so that Kafka's tools (and a Kafka
//! broker taking over the log) read them.
//!
//! Every record of the log is a key and a value (`CoordinatorRecordSerde`):
//!
//! ```text
//! key   = record type (i16, the key schema's apiKey) | key struct (version 0)
//! value = value version (i16)                       | value struct at that version
//!         or null: a tombstone, which deletes the key
//! ```
//!
//! Record types: 0 and 1 are offset commits (0 is the legacy key of Kafka 0.8, written by no
//! broker since; both keys hold group, topic and partition), 2 is a classic group's metadata; 3
//! to 8 and 16 are the KIP-848 consumer groups' (group epoch, partition metadata, member
//! subscription, target assignment epoch and members, current member assignment, resolved
//! regular expressions); 17 and 19 to 23 are streams groups' (replayed by
//! [`super::streams::records`]); the share groups' types are decoded but not replayed here.
//!
//! Versions written are Kafka 4.4's (`GroupCoordinatorRecordHelpers`): `OffsetCommitValue` v4
//! (v1 when the commit carries an expire timestamp, from OffsetCommit v2-v4's retention time),
//! `GroupMetadataValue` v3, every consumer group value v0. Kafka 4.4 no longer writes
//! `ConsumerGroupPartitionMetadata` (the group's metadata hash replaced it) but deletes it with
//! the group, and so does Strand. Every version is read.

use bytes::{Bytes, BytesMut};
use strand_base::{ProducerId, Uuid};
use strand_protocol::codec::{DecodeError, Decoder, EncodeError, RawTaggedField, Struct};
use strand_protocol::messages::consumer_group_target_assignment_member_value::TopicPartition as TargetPartitions;
use strand_protocol::messages::records::{GroupCoordinatorKey, GroupCoordinatorValue};
use strand_protocol::messages::{
    ConsumerGroupCurrentMemberAssignmentKey, ConsumerGroupMemberMetadataKey, ConsumerGroupMetadataKey,
    ConsumerGroupMetadataValue, ConsumerGroupPartitionMetadataKey, ConsumerGroupRegularExpressionKey,
    ConsumerGroupRegularExpressionValue, ConsumerGroupTargetAssignmentMemberKey,
    ConsumerGroupTargetAssignmentMemberValue, ConsumerGroupTargetAssignmentMetadataKey,
    ConsumerGroupTargetAssignmentMetadataValue, GroupMetadataKey, GroupMetadataValue, OffsetCommitKey,
    OffsetCommitValue,
};

use super::consumer::{Assignment, ConsumerMember, ResolvedRegex};
use strand_protocol::records::{NewRecord, RECORD_BATCH_OVERHEAD, RecordBatchBuilder, RecordsError};

/// Record type of an offset commit under its legacy key (Kafka 0.8's key version 0).
pub const LEGACY_OFFSET_COMMIT: i16 = 0;
/// Record type of an offset commit.
pub const OFFSET_COMMIT: i16 = 1;
/// Record type of a classic group's metadata.
pub const GROUP_METADATA: i16 = 2;
/// Record type of a consumer group member's subscription.
pub const CONSUMER_GROUP_MEMBER_METADATA: i16 = 5;

/// The `OffsetCommitValue` version Kafka 4.4 writes (topic id as a tagged field).
pub const OFFSET_COMMIT_VALUE_VERSION: i16 = 4;
/// The `OffsetCommitValue` version Kafka writes for a commit with an explicit expire timestamp.
pub const OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY: i16 = 1;
/// The `GroupMetadataValue` version Kafka 4.4 writes.
pub const GROUP_METADATA_VALUE_VERSION: i16 = 3;

/// One record of `__consumer_offsets`: a key and, unless it is a tombstone, a versioned value.
#[derive(Debug, Clone, PartialEq)]
pub struct CoordinatorRecord {
    pub key: GroupCoordinatorKey,
    /// `None` is a tombstone; otherwise the value and the version it is (to be) written at.
    pub value: Option<(i16, GroupCoordinatorValue)>,
}

/// One committed offset, as the store keeps it and an `OffsetCommitValue` carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetAndMetadata {
    pub committed_offset: i64,
    /// -1 when the client sent none.
    pub leader_epoch: i32,
    pub metadata: String,
    pub commit_timestamp_ms: i64,
    /// Only from OffsetCommit v2-v4 with a retention time: the commit then expires at this time
    /// instead of `offsets.retention.minutes` after its group empties.
    pub expire_timestamp_ms: Option<i64>,
    /// The topic's id when the commit named the topic by id (OffsetCommit v10), else zero.
    pub topic_id: Uuid,
}

impl OffsetAndMetadata {
    fn from_value(value: &OffsetCommitValue) -> Self {
        OffsetAndMetadata {
            committed_offset: value.offset,
            leader_epoch: value.leader_epoch,
            metadata: value.metadata.clone(),
            commit_timestamp_ms: value.commit_timestamp,
            expire_timestamp_ms: (value.expire_timestamp != -1).then_some(value.expire_timestamp),
            topic_id: value.topic_id,
        }
    }
}

/// What a record means to the group coordinator, once decoded.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordView<'a> {
    /// An offset commit (either key type) or, with `None`, its tombstone.
    OffsetCommit { group: &'a str, topic: &'a str, partition: i32, offset: Option<OffsetAndMetadata> },
    /// A classic group's metadata or, with `None`, its tombstone.
    GroupMetadata { group: &'a str, value: Option<&'a GroupMetadataValue> },
    /// A KIP-848 consumer group's record (of any of its types) or tombstone.
    ConsumerGroup { group: &'a str },
    /// A record of a group type the shard does not replay through this view (share; streams
    /// records are routed by their key first).
    Other { record_type: i16 },
}

/// Why the bytes of a record could not be turned into a [`CoordinatorRecord`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordDecodeError {
    #[error("the key is shorter than its 2-byte record type")]
    MissingRecordType,
    #[error("the value of a record of type {record_type} is shorter than its 2-byte version")]
    MissingValueVersion { record_type: i16 },
    #[error("unknown record type {0}")]
    UnknownRecordType(i16),
    #[error("record type {record_type} has no value version {version}")]
    UnknownValueVersion { record_type: i16, version: i16 },
    #[error("a record of type {record_type} is malformed: {error}")]
    Malformed { record_type: i16, error: DecodeError },
}

impl CoordinatorRecord {
    /// An offset commit as Kafka 4.4 writes it (`newOffsetCommitRecord`).
    pub fn offset_commit(group: &str, topic: &str, partition: i32, offset: &OffsetAndMetadata) -> Self {
        let version = match offset.expire_timestamp_ms {
            Some(_) => OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY,
            None => OFFSET_COMMIT_VALUE_VERSION,
        };
        let value = OffsetCommitValue {
            offset: offset.committed_offset,
            leader_epoch: offset.leader_epoch,
            metadata: offset.metadata.clone(),
            commit_timestamp: offset.commit_timestamp_ms,
            expire_timestamp: offset.expire_timestamp_ms.unwrap_or(-1),
            topic_id: offset.topic_id,
            ..OffsetCommitValue::default()
        };
        CoordinatorRecord {
            key: offset_commit_key(group, topic, partition),
            value: Some((version, GroupCoordinatorValue::OffsetCommitValue(value))),
        }
    }

    /// Deletes one committed offset.
    pub fn offset_commit_tombstone(group: &str, topic: &str, partition: i32) -> Self {
        CoordinatorRecord { key: offset_commit_key(group, topic, partition), value: None }
    }

    /// A classic group's metadata as Kafka 4.4 writes it (version 3).
    pub fn group_metadata(group: &str, value: GroupMetadataValue) -> Self {
        CoordinatorRecord {
            key: group_metadata_key(group),
            value: Some((GROUP_METADATA_VALUE_VERSION, GroupCoordinatorValue::GroupMetadataValue(value))),
        }
    }

    /// Deletes a classic group.
    pub fn group_metadata_tombstone(group: &str) -> Self {
        CoordinatorRecord { key: group_metadata_key(group), value: None }
    }

    /// A consumer group's epoch and metadata hash (`newConsumerGroupEpochRecord`).
    pub fn consumer_group_epoch(group: &str, epoch: i32, metadata_hash: i64) -> Self {
        let value = ConsumerGroupMetadataValue { epoch, metadata_hash, ..ConsumerGroupMetadataValue::default() };
        CoordinatorRecord {
            key: GroupCoordinatorKey::ConsumerGroupMetadataKey(ConsumerGroupMetadataKey { group_id: group.to_owned() }),
            value: Some((0, GroupCoordinatorValue::ConsumerGroupMetadataValue(value))),
        }
    }

    pub fn consumer_group_epoch_tombstone(group: &str) -> Self {
        let key = ConsumerGroupMetadataKey { group_id: group.to_owned() };
        CoordinatorRecord { key: GroupCoordinatorKey::ConsumerGroupMetadataKey(key), value: None }
    }

    /// Deletes the subscription metadata Kafka wrote before 4.1.
    pub fn consumer_partition_metadata_tombstone(group: &str) -> Self {
        let key = ConsumerGroupPartitionMetadataKey { group_id: group.to_owned() };
        CoordinatorRecord { key: GroupCoordinatorKey::ConsumerGroupPartitionMetadataKey(key), value: None }
    }

    /// A member's subscription (`newConsumerGroupMemberSubscriptionRecord`).
    pub fn consumer_member(group: &str, member: &ConsumerMember) -> Self {
        let key = ConsumerGroupMemberMetadataKey { group_id: group.to_owned(), member_id: member.member_id.clone() };
        CoordinatorRecord {
            key: GroupCoordinatorKey::ConsumerGroupMemberMetadataKey(key),
            value: Some((0, GroupCoordinatorValue::ConsumerGroupMemberMetadataValue(member.to_metadata_value()))),
        }
    }

    pub fn consumer_member_tombstone(group: &str, member_id: &str) -> Self {
        let key = ConsumerGroupMemberMetadataKey { group_id: group.to_owned(), member_id: member_id.to_owned() };
        CoordinatorRecord { key: GroupCoordinatorKey::ConsumerGroupMemberMetadataKey(key), value: None }
    }

    /// A member's target assignment (`newConsumerGroupTargetAssignmentRecord`), topics by id.
    pub fn consumer_target_assignment(group: &str, member_id: &str, assignment: &Assignment) -> Self {
        let key =
            ConsumerGroupTargetAssignmentMemberKey { group_id: group.to_owned(), member_id: member_id.to_owned() };
        let topic_partitions = assignment
            .iter()
            .map(|(topic_id, partitions)| TargetPartitions {
                topic_id: *topic_id,
                partitions: partitions.iter().copied().collect(),
                ..TargetPartitions::default()
            })
            .collect();
        let value = ConsumerGroupTargetAssignmentMemberValue { topic_partitions, ..Default::default() };
        CoordinatorRecord {
            key: GroupCoordinatorKey::ConsumerGroupTargetAssignmentMemberKey(key),
            value: Some((0, GroupCoordinatorValue::ConsumerGroupTargetAssignmentMemberValue(value))),
        }
    }

    pub fn consumer_target_assignment_tombstone(group: &str, member_id: &str) -> Self {
        let key =
            ConsumerGroupTargetAssignmentMemberKey { group_id: group.to_owned(), member_id: member_id.to_owned() };
        CoordinatorRecord { key: GroupCoordinatorKey::ConsumerGroupTargetAssignmentMemberKey(key), value: None }
    }

    /// The target assignment's epoch and when it was computed
    /// (`newConsumerGroupTargetAssignmentMetadataRecord`).
    pub fn consumer_target_assignment_metadata(group: &str, epoch: i32, timestamp_ms: i64) -> Self {
        let key = ConsumerGroupTargetAssignmentMetadataKey { group_id: group.to_owned() };
        let value = ConsumerGroupTargetAssignmentMetadataValue {
            assignment_epoch: epoch,
            assignment_timestamp: timestamp_ms,
            ..ConsumerGroupTargetAssignmentMetadataValue::default()
        };
        CoordinatorRecord {
            key: GroupCoordinatorKey::ConsumerGroupTargetAssignmentMetadataKey(key),
            value: Some((0, GroupCoordinatorValue::ConsumerGroupTargetAssignmentMetadataValue(value))),
        }
    }

    pub fn consumer_target_assignment_metadata_tombstone(group: &str) -> Self {
        let key = ConsumerGroupTargetAssignmentMetadataKey { group_id: group.to_owned() };
        CoordinatorRecord { key: GroupCoordinatorKey::ConsumerGroupTargetAssignmentMetadataKey(key), value: None }
    }

    /// A member's epochs, state and current assignment (`newConsumerGroupCurrentAssignmentRecord`).
    pub fn consumer_current_assignment(group: &str, member: &ConsumerMember) -> Self {
        let key =
            ConsumerGroupCurrentMemberAssignmentKey { group_id: group.to_owned(), member_id: member.member_id.clone() };
        CoordinatorRecord {
            key: GroupCoordinatorKey::ConsumerGroupCurrentMemberAssignmentKey(key),
            value: Some((
                0,
                GroupCoordinatorValue::ConsumerGroupCurrentMemberAssignmentValue(member.to_assignment_value()),
            )),
        }
    }

    pub fn consumer_current_assignment_tombstone(group: &str, member_id: &str) -> Self {
        let key =
            ConsumerGroupCurrentMemberAssignmentKey { group_id: group.to_owned(), member_id: member_id.to_owned() };
        CoordinatorRecord { key: GroupCoordinatorKey::ConsumerGroupCurrentMemberAssignmentKey(key), value: None }
    }

    /// A resolved regular expression (`newConsumerGroupRegularExpressionRecord`), topics sorted.
    pub fn consumer_regex(group: &str, regex: &str, resolved: &ResolvedRegex) -> Self {
        let key =
            ConsumerGroupRegularExpressionKey { group_id: group.to_owned(), regular_expression: regex.to_owned() };
        let value = ConsumerGroupRegularExpressionValue {
            topics: resolved.topics.iter().cloned().collect(),
            version: resolved.version,
            timestamp: resolved.timestamp_ms,
            ..ConsumerGroupRegularExpressionValue::default()
        };
        CoordinatorRecord {
            key: GroupCoordinatorKey::ConsumerGroupRegularExpressionKey(key),
            value: Some((0, GroupCoordinatorValue::ConsumerGroupRegularExpressionValue(value))),
        }
    }

    pub fn consumer_regex_tombstone(group: &str, regex: &str) -> Self {
        let key =
            ConsumerGroupRegularExpressionKey { group_id: group.to_owned(), regular_expression: regex.to_owned() };
        CoordinatorRecord { key: GroupCoordinatorKey::ConsumerGroupRegularExpressionKey(key), value: None }
    }

    /// The record's type: the key schema's apiKey.
    pub fn record_type(&self) -> i16 {
        self.key.api_key()
    }

    /// The key's bytes: the record type, then the key struct.
    pub fn encode_key(&self) -> Result<Bytes, EncodeError> {
        let mut out = BytesMut::new();
        out.extend_from_slice(&self.record_type().to_be_bytes());
        self.key.encode(&mut out, 0)?;
        Ok(out.freeze())
    }

    /// The value's bytes (the version, then the value struct), or `None` for a tombstone.
    pub fn encode_value(&self) -> Result<Option<Bytes>, EncodeError> {
        let Some((version, value)) = &self.value else {
            return Ok(None);
        };
        let mut out = BytesMut::new();
        out.extend_from_slice(&version.to_be_bytes());
        match value {
            GroupCoordinatorValue::ConsumerGroupMemberMetadataValue(member)
                if member.classic_member_metadata.is_none() =>
            {
                // Kafka's default for this nullable tagged struct is an empty struct, not null, so
                // Kafka writes a null one explicitly (tag 0, one byte: the unsigned-varint null
                // marker). The generated code takes null for the default and would omit it.
                let mut explicit = member.clone();
                explicit.unknown_tagged_fields.insert(0, RawTaggedField { tag: 0, data: Bytes::from_static(&[0]) });
                explicit.encode(&mut out, *version)?;
            }
            value => value.encode(&mut out, *version)?,
        }
        Ok(Some(out.freeze()))
    }

    /// Reads a record from its key and value bytes, as `CoordinatorRecordSerde.deserialize` does:
    /// the value schema follows from the key's record type, its version from the value's prefix.
    pub fn decode(key: Bytes, value: Option<Bytes>) -> Result<Self, RecordDecodeError> {
        let mut d = Decoder::new(key);
        let record_type = d.i16().map_err(|_| RecordDecodeError::MissingRecordType)?;
        if GroupCoordinatorKey::versions(record_type).is_none() {
            return Err(RecordDecodeError::UnknownRecordType(record_type));
        }
        let key = GroupCoordinatorKey::decode(record_type, &mut d, 0)
            .map_err(|error| RecordDecodeError::Malformed { record_type, error })?;
        let Some(value) = value else {
            return Ok(CoordinatorRecord { key, value: None });
        };
        let mut d = Decoder::new(value.clone());
        let version = d.i16().map_err(|_| RecordDecodeError::MissingValueVersion { record_type })?;
        let known = GroupCoordinatorValue::versions(record_type).is_some_and(|range| range.contains(version));
        if !known {
            return Err(RecordDecodeError::UnknownValueVersion { record_type, version });
        }
        let decoded = match GroupCoordinatorValue::decode(record_type, &mut d, version) {
            Err(DecodeError::InvalidStructMarker(0)) if record_type == CONSUMER_GROUP_MEMBER_METADATA => {
                decode_member_with_null_classic_metadata(&value, version)
            }
            decoded => decoded,
        };
        let value = decoded.map_err(|error| RecordDecodeError::Malformed { record_type, error })?;
        Ok(CoordinatorRecord { key, value: Some((version, value)) })
    }

    /// What the record means to the classic group coordinator.
    pub fn view(&self) -> RecordView<'_> {
        match (&self.key, &self.value) {
            (GroupCoordinatorKey::OffsetCommitKey(key), value) => RecordView::OffsetCommit {
                group: &key.group,
                topic: &key.topic,
                partition: key.partition,
                offset: value.as_ref().and_then(|(_, value)| offset_of(value)),
            },
            (GroupCoordinatorKey::LegacyOffsetCommitKey(key), value) => RecordView::OffsetCommit {
                group: &key.group,
                topic: &key.topic,
                partition: key.partition,
                offset: value.as_ref().and_then(|(_, value)| offset_of(value)),
            },
            (GroupCoordinatorKey::GroupMetadataKey(key), value) => {
                let value = match value {
                    Some((_, GroupCoordinatorValue::GroupMetadataValue(value))) => Some(value),
                    _ => None,
                };
                RecordView::GroupMetadata { group: &key.group, value }
            }
            (key, _) => match super::consumer::record_group_id(key) {
                Some(group) => RecordView::ConsumerGroup { group },
                None => RecordView::Other { record_type: key.api_key() },
            },
        }
    }
}

/// The tagged-field section Kafka ends a `ConsumerGroupMemberMetadataValue` with when its member
/// has no classic metadata: one field, tag 0, one byte long, holding the unsigned-varint null
/// marker 0.
const NULL_CLASSIC_METADATA_TAGS: [u8; 4] = [1, 0, 1, 0];

/// Reads a member subscription whose classic metadata Kafka wrote as an explicit null. In tagged
/// fields Kafka marks a nullable struct with an unsigned varint (0: null, 1: present), where the
/// generated decoder expects the byte -1 for null; present structs are the same byte (1) both
/// ways. The explicit null is the struct's default here, so it is read as if absent.
fn decode_member_with_null_classic_metadata(value: &Bytes, version: i16) -> Result<GroupCoordinatorValue, DecodeError> {
    let Some(body) = value.strip_suffix(&NULL_CLASSIC_METADATA_TAGS) else {
        return Err(DecodeError::InvalidStructMarker(0));
    };
    let mut patched = BytesMut::with_capacity(body.len() + 1);
    patched.extend_from_slice(body);
    patched.extend_from_slice(&[0]);
    let mut d = Decoder::new(patched.freeze());
    d.i16()?;
    GroupCoordinatorValue::decode(CONSUMER_GROUP_MEMBER_METADATA, &mut d, version)
}

fn offset_of(value: &GroupCoordinatorValue) -> Option<OffsetAndMetadata> {
    match value {
        GroupCoordinatorValue::OffsetCommitValue(value) => Some(OffsetAndMetadata::from_value(value)),
        GroupCoordinatorValue::LegacyOffsetCommitValue(value) => Some(OffsetAndMetadata {
            committed_offset: value.offset,
            leader_epoch: -1,
            metadata: value.metadata.clone(),
            commit_timestamp_ms: value.commit_timestamp,
            expire_timestamp_ms: None,
            topic_id: Uuid::ZERO,
        }),
        _ => None,
    }
}

fn offset_commit_key(group: &str, topic: &str, partition: i32) -> GroupCoordinatorKey {
    GroupCoordinatorKey::OffsetCommitKey(OffsetCommitKey {
        group: group.to_owned(),
        topic: topic.to_owned(),
        partition,
    })
}

fn group_metadata_key(group: &str) -> GroupCoordinatorKey {
    GroupCoordinatorKey::GroupMetadataKey(GroupMetadataKey { group: group.to_owned() })
}

/// Why records could not be written as a batch.
#[derive(Debug, thiserror::Error)]
pub enum BatchBuildError {
    #[error("encoding a record: {0}")]
    Encode(#[from] EncodeError),
    #[error("building the batch: {0}")]
    Batch(#[from] RecordsError),
}

/// One uncompressed magic-2 batch holding `records` in order, each stamped `timestamp_ms`, with no
/// producer id: what the coordinator appends for one operation (one batch, so it is all or
/// nothing). `records` must not be empty.
pub fn build_batch(records: &[CoordinatorRecord], timestamp_ms: i64) -> Result<Bytes, BatchBuildError> {
    fill(RecordBatchBuilder::new(), records, timestamp_ms)
}

/// Whether the batch `records` make (plain or transactional: the header is the same size) is at
/// most `max_bytes`, the `max.message.bytes` the log would hold it to. Computed record by record
/// as Kafka's `DefaultRecord.sizeInBytes` sizes them, stopping as soon as the limit is passed, so
/// no more than one record is ever encoded at a time. A record that cannot be encoded does not
/// fit.
pub fn batch_fits(records: &[CoordinatorRecord], max_bytes: usize) -> bool {
    let mut size = RECORD_BATCH_OVERHEAD;
    for (offset_delta, record) in records.iter().enumerate() {
        let (Ok(key), Ok(value)) = (record.encode_key(), record.encode_value()) else { return false };
        let Ok(offset_delta) = i64::try_from(offset_delta) else { return false };
        let value_size = value.as_ref().map_or(zigzag_varint_len(-1), |v| varint_prefixed_len(v.len()));
        // Attributes, timestamp delta (always 0), offset delta, key, value, header count (0).
        let body = 1
            + zigzag_varint_len(0)
            + zigzag_varint_len(offset_delta)
            + varint_prefixed_len(key.len())
            + value_size
            + 1;
        size = size.saturating_add(zigzag_varint_len(i64::try_from(body).unwrap_or(i64::MAX))).saturating_add(body);
        if size > max_bytes {
            return false;
        }
    }
    true
}

/// The bytes of a length-prefixed field of `len` bytes in a record (a zigzag varint prefix).
fn varint_prefixed_len(len: usize) -> usize {
    zigzag_varint_len(i64::try_from(len).unwrap_or(i64::MAX)).saturating_add(len)
}

/// The bytes of `value` as a zigzag varint (varlong): 7 bits a byte.
fn zigzag_varint_len(value: i64) -> usize {
    let mut zigzag = ((value << 1) ^ (value >> 63)) as u64;
    let mut len = 1;
    while zigzag >= 0x80 {
        zigzag >>= 7;
        len += 1;
    }
    len
}

/// As [`build_batch`], but transactional and carrying `producer_id` and `producer_epoch`: the
/// offsets of a TxnOffsetCommit, which the producer's transaction marker later decides. No
/// sequence number, as Kafka's coordinators write them.
pub fn build_transactional_batch(
    records: &[CoordinatorRecord],
    producer_id: ProducerId,
    producer_epoch: i16,
    timestamp_ms: i64,
) -> Result<Bytes, BatchBuildError> {
    let builder = RecordBatchBuilder::new().producer(producer_id, producer_epoch, NO_SEQUENCE).transactional();
    fill(builder, records, timestamp_ms)
}

/// Kafka's `RecordBatch.NO_SEQUENCE`.
const NO_SEQUENCE: i32 = -1;

fn fill(
    mut builder: RecordBatchBuilder,
    records: &[CoordinatorRecord],
    timestamp_ms: i64,
) -> Result<Bytes, BatchBuildError> {
    for record in records {
        let key = record.encode_key()?;
        let value = record.encode_value()?;
        builder.append(&NewRecord { timestamp_ms, key: Some(&key), value: value.as_deref(), headers: &[] })?;
    }
    Ok(builder.build()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use strand_protocol::messages::group_metadata_value::MemberMetadata;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// An offset commit's key and value, byte for byte as Kafka's schema lays them out (derived by
    /// hand: record type 1, then group, topic, partition; value version 4, then offset, leader
    /// epoch, metadata, commit timestamp and an empty tagged-field section).
    #[test]
    fn offset_commit_bytes_follow_the_schema() {
        let offset = OffsetAndMetadata {
            committed_offset: 42,
            leader_epoch: 7,
            metadata: "m".to_owned(),
            commit_timestamp_ms: 1_000,
            expire_timestamp_ms: None,
            topic_id: Uuid::ZERO,
        };
        let record = CoordinatorRecord::offset_commit("g", "t", 3, &offset);
        let key = record.encode_key().expect("key");
        assert_eq!(hex(&key), "0001000167000174".to_owned() + "00000003");
        let value = record.encode_value().expect("value").expect("not a tombstone");
        assert_eq!(
            hex(&value),
            ["0004", "000000000000002a", "00000007", "026d", "00000000000003e8", "00"].concat(),
            "v4 is flexible: compact string, then an empty tagged-field section"
        );
        let back = CoordinatorRecord::decode(key, Some(value)).expect("decode");
        assert_eq!(back, record);
        let tombstone = CoordinatorRecord::offset_commit_tombstone("g", "t", 3);
        assert_eq!(tombstone.encode_value().expect("value"), None);
    }

    /// A commit carrying an expire timestamp is written at version 1, which has that field.
    #[test]
    fn offset_commit_with_expiry_is_version_1() {
        let offset = OffsetAndMetadata {
            committed_offset: 1,
            leader_epoch: -1,
            metadata: String::new(),
            commit_timestamp_ms: 2,
            expire_timestamp_ms: Some(3),
            topic_id: Uuid::ZERO,
        };
        let value = CoordinatorRecord::offset_commit("g", "t", 0, &offset).encode_value().expect("v").expect("some");
        assert_eq!(hex(&value), ["0001", "0000000000000001", "0000", "0000000000000002", "0000000000000003"].concat());
    }

    /// Group metadata v3: protocol type, generation, protocol, leader, state timestamp, members
    /// (each with instance id, client, host, timeouts, subscription and assignment bytes).
    #[test]
    fn group_metadata_bytes_follow_the_schema() {
        let value = GroupMetadataValue {
            protocol_type: "consumer".to_owned(),
            generation: 1,
            protocol: Some("range".to_owned()),
            leader: Some("m".to_owned()),
            current_state_timestamp: 5,
            members: vec![MemberMetadata {
                member_id: "m".to_owned(),
                group_instance_id: None,
                client_id: "c".to_owned(),
                client_host: "/h".to_owned(),
                rebalance_timeout: 300,
                session_timeout: 100,
                subscription: Bytes::from_static(&[1, 2]),
                assignment: Bytes::from_static(&[3]),
                ..MemberMetadata::default()
            }],
            ..GroupMetadataValue::default()
        };
        let record = CoordinatorRecord::group_metadata("g", value);
        assert_eq!(hex(&record.encode_key().expect("key")), "0002000167");
        let bytes = record.encode_value().expect("value").expect("some");
        let expected = [
            "0003",
            "0008",
            &hex(b"consumer"),
            "00000001",
            "0005",
            &hex(b"range"),
            "0001",
            "6d",
            "0000000000000005",
            "00000001",
            "00016d",
            "ffff",
            "000163",
            "00022f68",
            "0000012c",
            "00000064",
            "000000020102",
            "0000000103",
        ]
        .concat();
        assert_eq!(hex(&bytes), expected);
    }

    /// Every version Kafka has written reads back: OffsetCommitValue v0-v4 (v1 with its expire
    /// timestamp, v3+ with a leader epoch), the legacy key of type 0 with its value, and
    /// GroupMetadataValue v0-v4.
    #[test]
    fn every_version_is_read() {
        use bytes::BufMut;
        use strand_protocol::codec::Struct;
        use strand_protocol::messages::{LegacyOffsetCommitKey, LegacyOffsetCommitValue};
        let versioned = |version: i16, encode: &dyn Fn(&mut BytesMut)| {
            let mut out = BytesMut::new();
            out.put_i16(version);
            encode(&mut out);
            out.freeze()
        };
        let key = CoordinatorRecord::offset_commit_tombstone("g", "t", 1).encode_key().expect("key");
        for version in 0..=4i16 {
            let value = OffsetCommitValue {
                offset: 9,
                leader_epoch: if version >= 3 { 2 } else { -1 },
                metadata: "m".to_owned(),
                commit_timestamp: 5,
                expire_timestamp: if version == 1 { 7 } else { -1 },
                ..OffsetCommitValue::default()
            };
            let bytes = versioned(version, &|out| value.encode(out, version).expect("encode"));
            let record = CoordinatorRecord::decode(key.clone(), Some(bytes)).expect("decode");
            let RecordView::OffsetCommit { group: "g", topic: "t", partition: 1, offset: Some(offset) } = record.view()
            else {
                panic!("v{version} read as {:?}", record.view())
            };
            assert_eq!((offset.committed_offset, offset.commit_timestamp_ms, offset.metadata.as_str()), (9, 5, "m"));
            assert_eq!(offset.expire_timestamp_ms, (version == 1).then_some(7), "v{version}");
            assert_eq!(offset.leader_epoch, if version >= 3 { 2 } else { -1 }, "v{version}");
        }

        let legacy_key = LegacyOffsetCommitKey { group: "g".into(), topic: "t".into(), partition: 4 };
        let legacy_key = versioned(0, &|out| legacy_key.encode(out, 0).expect("encode"));
        let legacy_value = LegacyOffsetCommitValue { offset: 3, metadata: String::new(), commit_timestamp: 8 };
        let legacy_value = versioned(0, &|out| legacy_value.encode(out, 0).expect("encode"));
        let record = CoordinatorRecord::decode(legacy_key, Some(legacy_value)).expect("decode legacy");
        let RecordView::OffsetCommit { partition: 4, offset: Some(offset), .. } = record.view() else {
            panic!("legacy read as {:?}", record.view())
        };
        assert_eq!((offset.committed_offset, offset.commit_timestamp_ms), (3, 8));

        let key = CoordinatorRecord::group_metadata_tombstone("g").encode_key().expect("key");
        for version in 0..=4i16 {
            let value = GroupMetadataValue {
                protocol_type: "consumer".to_owned(),
                generation: 3,
                protocol: Some("range".to_owned()),
                leader: Some("m".to_owned()),
                current_state_timestamp: if version >= 2 { 11 } else { -1 },
                members: vec![MemberMetadata {
                    member_id: "m".to_owned(),
                    rebalance_timeout: if version >= 1 { 20 } else { -1 },
                    session_timeout: 10,
                    ..MemberMetadata::default()
                }],
                ..GroupMetadataValue::default()
            };
            let bytes = versioned(version, &|out| value.encode(out, version).expect("encode"));
            let record = CoordinatorRecord::decode(key.clone(), Some(bytes)).expect("decode");
            let RecordView::GroupMetadata { group: "g", value: Some(read) } = record.view() else {
                panic!("v{version} read as {:?}", record.view())
            };
            assert_eq!(read, &value, "v{version}");
        }
    }

    /// Unknown record types and value versions are reported, not misread.
    #[test]
    fn unknown_types_and_versions_are_errors() {
        let key = Bytes::from_static(&[0x00, 0x63, 0x00, 0x00]);
        assert_eq!(CoordinatorRecord::decode(key, None), Err(RecordDecodeError::UnknownRecordType(99)));
        let key = CoordinatorRecord::group_metadata_tombstone("g").encode_key().expect("key");
        let value = Bytes::from_static(&[0x00, 0x09]);
        assert_eq!(
            CoordinatorRecord::decode(key, Some(value)),
            Err(RecordDecodeError::UnknownValueVersion { record_type: 2, version: 9 })
        );
    }
}
