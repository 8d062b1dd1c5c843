//! The `--offsets-decoder` and `--transaction-log-decoder` record formats: a coordinator
//! record's key and value printed as Kafka 4.4's `CoordinatorRecordMessageParser` prints them.
//!
//! A key is `{"type":"<record type>","data":{...}}`, a value `{"version":"<version>","data":{...}}`
//! and a tombstone `<DELETE>`. The `data` objects are the JSON of Kafka's generated converters:
//! camelCase field names in schema order, only the fields of the record's version, tagged
//! fields only when they differ from their default, bytes as base64, uuids in Kafka's form.
//! Two rewrites Kafka's tool makes are made too: a classic group of protocol type `consumer`
//! shows each member's subscription and assignment decoded (left as bytes if they do not
//! decode), and a transaction's status is its state's name.
//!
//! Records of an unknown type, of a version Kafka does not know, or that do not decode are one
//! line saying so, as Kafka's tool says it; nothing here panics on a file's bytes. Every group,
//! transaction and share-state record type is printed.

use std::fmt::Display;

use bytes::Bytes;
use strand_base::Uuid;
use strand_coordinator::group::records::{CoordinatorRecord, RecordDecodeError};
use strand_protocol::codec::Decoder;
use strand_protocol::messages::records::{
    GroupCoordinatorKey, GroupCoordinatorValue, ShareCoordinatorKey, ShareCoordinatorValue, TransactionCoordinatorKey,
    TransactionCoordinatorValue,
};
use strand_protocol::messages::{ShareSnapshotValue, ShareUpdateValue, TransactionLogValue};
use strand_protocol::records::Record;

use super::group_values::group_value_json;
use super::json::{Object, list, text, uuid};

/// Which coordinator's records a segment holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CoordinatorDecoder {
    /// `__consumer_offsets`: the group coordinator's records.
    Offsets,
    /// `__transaction_state`: the transaction coordinator's records.
    TransactionLog,
    /// `__share_group_state`: the share coordinator's records.
    ShareGroupState,
}

/// What is printed of one record: its key's text and its value's, each if there is one.
#[derive(Debug, PartialEq, Eq)]
pub struct Parsed {
    pub key: Option<String>,
    pub payload: Option<String>,
}

/// Parses one record as `decoder`'s records; `Err` (ending the dump, as Kafka's tool ends) for a
/// record without a key.
pub fn parse(decoder: CoordinatorDecoder, record: &Record<'_>, offset: i64) -> Result<Parsed, String> {
    let Some(key) = record.key() else {
        return Err(format!(
            "Failed to decode message at offset {offset} using the specified decoder (message had a missing key)"
        ));
    };
    Ok(parse_bytes(decoder, key, record.value(), offset))
}

/// [`parse`] on a record's key and value bytes.
pub fn parse_bytes(decoder: CoordinatorDecoder, key: &[u8], value: Option<&[u8]>, offset: i64) -> Parsed {
    let failed =
        |message: String| Parsed { key: Some(format!("Error at offset {offset}, skipping. {message}")), payload: None };
    let Some(record_type) = read_i16(key) else {
        return failed("Could not read version from key's buffer.".into());
    };
    let key_json = match key_json(decoder, record_type, &key[2..]) {
        KeyJson::Unknown => {
            return Parsed {
                key: Some(format!("Unknown record type {record_type} at offset {offset}, skipping.")),
                payload: None,
            };
        }
        KeyJson::Failed(message) => return failed(message),
        KeyJson::Json(json) => json,
    };
    let key_text = format!("{{\"type\":\"{record_type}\",\"data\":{key_json}}}");
    let Some(value) = value else {
        return Parsed { key: Some(key_text), payload: Some("<DELETE>".into()) };
    };
    match value_json(decoder, record_type, key, value) {
        Ok((version, json)) => {
            Parsed { key: Some(key_text), payload: Some(format!("{{\"version\":\"{version}\",\"data\":{json}}}")) }
        }
        Err(message) => failed(message),
    }
}

enum KeyJson {
    Json(String),
    Unknown,
    Failed(String),
}

fn read_i16(bytes: &[u8]) -> Option<i16> {
    Some(i16::from_be_bytes([*bytes.first()?, *bytes.get(1)?]))
}

/// A key's `data` object; keys are read at version 0 (their only one).
fn key_json(decoder: CoordinatorDecoder, record_type: i16, bytes: &[u8]) -> KeyJson {
    let mut d = Decoder::new(Bytes::copy_from_slice(bytes));
    let read_failed = |e: &dyn Display| {
        KeyJson::Failed(format!("Could not read record with version {record_type} from key's buffer due to: {e}."))
    };
    match decoder {
        CoordinatorDecoder::TransactionLog => {
            if TransactionCoordinatorKey::versions(record_type).is_none() {
                return KeyJson::Unknown;
            }
            match TransactionCoordinatorKey::decode(record_type, &mut d, 0) {
                Ok(TransactionCoordinatorKey::TransactionLogKey(k)) => {
                    KeyJson::Json(Object::new().field("transactionalId", text(&k.transactional_id)).end())
                }
                Err(e) => read_failed(&e),
            }
        }
        CoordinatorDecoder::ShareGroupState => {
            if ShareCoordinatorKey::versions(record_type).is_none() {
                return KeyJson::Unknown;
            }
            match ShareCoordinatorKey::decode(record_type, &mut d, 0) {
                Ok(ShareCoordinatorKey::ShareSnapshotKey(k)) => {
                    KeyJson::Json(share_key(&k.group_id, &k.topic_id, k.partition))
                }
                Ok(ShareCoordinatorKey::ShareUpdateKey(k)) => {
                    KeyJson::Json(share_key(&k.group_id, &k.topic_id, k.partition))
                }
                Err(e) => read_failed(&e),
            }
        }
        CoordinatorDecoder::Offsets => {
            if GroupCoordinatorKey::versions(record_type).is_none() {
                return KeyJson::Unknown;
            }
            match GroupCoordinatorKey::decode(record_type, &mut d, 0) {
                Ok(key) => KeyJson::Json(group_key_json(&key)),
                Err(e) => read_failed(&e),
            }
        }
    }
}

fn group_key_json(key: &GroupCoordinatorKey) -> String {
    use GroupCoordinatorKey as K;
    let group = |id: &str| Object::new().field("groupId", text(id)).end();
    let member =
        |id: &str, member: &str| Object::new().field("groupId", text(id)).field("memberId", text(member)).end();
    match key {
        K::LegacyOffsetCommitKey(k) => offset_key(&k.group, &k.topic, k.partition),
        K::OffsetCommitKey(k) => offset_key(&k.group, &k.topic, k.partition),
        K::GroupMetadataKey(k) => Object::new().field("group", text(&k.group)).end(),
        K::ConsumerGroupRegularExpressionKey(k) => Object::new()
            .field("groupId", text(&k.group_id))
            .field("regularExpression", text(&k.regular_expression))
            .end(),
        K::ConsumerGroupMetadataKey(k) => group(&k.group_id),
        K::ConsumerGroupPartitionMetadataKey(k) => group(&k.group_id),
        K::ConsumerGroupTargetAssignmentMetadataKey(k) => group(&k.group_id),
        K::ShareGroupMetadataKey(k) => group(&k.group_id),
        K::ShareGroupTargetAssignmentMetadataKey(k) => group(&k.group_id),
        K::ShareGroupStatePartitionMetadataKey(k) => group(&k.group_id),
        K::StreamsGroupMetadataKey(k) => group(&k.group_id),
        K::StreamsGroupTargetAssignmentMetadataKey(k) => group(&k.group_id),
        K::StreamsGroupTopologyKey(k) => group(&k.group_id),
        K::ConsumerGroupMemberMetadataKey(k) => member(&k.group_id, &k.member_id),
        K::ConsumerGroupTargetAssignmentMemberKey(k) => member(&k.group_id, &k.member_id),
        K::ConsumerGroupCurrentMemberAssignmentKey(k) => member(&k.group_id, &k.member_id),
        K::ShareGroupMemberMetadataKey(k) => member(&k.group_id, &k.member_id),
        K::ShareGroupTargetAssignmentMemberKey(k) => member(&k.group_id, &k.member_id),
        K::ShareGroupCurrentMemberAssignmentKey(k) => member(&k.group_id, &k.member_id),
        K::StreamsGroupMemberMetadataKey(k) => member(&k.group_id, &k.member_id),
        K::StreamsGroupTargetAssignmentMemberKey(k) => member(&k.group_id, &k.member_id),
        K::StreamsGroupCurrentMemberAssignmentKey(k) => member(&k.group_id, &k.member_id),
    }
}

fn share_key(group: &str, topic_id: &Uuid, partition: i32) -> String {
    Object::new().field("groupId", text(group)).field("topicId", uuid(topic_id)).field("partition", partition).end()
}

fn offset_key(group: &str, topic: &str, partition: i32) -> String {
    Object::new().field("group", text(group)).field("topic", text(topic)).field("partition", partition).end()
}

/// A value's version and `data` object, or the message Kafka's tool prints for it.
fn value_json(
    decoder: CoordinatorDecoder,
    record_type: i16,
    key: &[u8],
    bytes: &[u8],
) -> Result<(i16, String), String> {
    let Some(version) = read_i16(bytes) else {
        return Err("Could not read version from value's buffer.".into());
    };
    let versions = match decoder {
        CoordinatorDecoder::Offsets => GroupCoordinatorValue::versions(record_type),
        CoordinatorDecoder::TransactionLog => TransactionCoordinatorValue::versions(record_type),
        CoordinatorDecoder::ShareGroupState => ShareCoordinatorValue::versions(record_type),
    };
    if !versions.is_some_and(|v| v.contains(version)) {
        return Err(format!("Found an unknown record version {version} for {record_type} type"));
    }
    let mut d = Decoder::new(Bytes::copy_from_slice(&bytes[2..]));
    let read_failed =
        |e: &dyn Display| format!("Could not read record with version {version} from value's buffer due to: {e}.");
    let json = match decoder {
        CoordinatorDecoder::Offsets => {
            // The coordinator's own reader: it takes the explicit null Kafka writes for a member's
            // classic metadata, which the generated decoder refuses.
            let record = CoordinatorRecord::decode(Bytes::copy_from_slice(key), Some(Bytes::copy_from_slice(bytes)));
            match record {
                Ok(CoordinatorRecord { value: Some((_, value)), .. }) => group_value_json(&value, version),
                Ok(CoordinatorRecord { value: None, .. }) => return Err(read_failed(&"no value")),
                Err(RecordDecodeError::Malformed { error, .. }) => return Err(read_failed(&error)),
                Err(other) => return Err(read_failed(&other)),
            }
        }
        CoordinatorDecoder::TransactionLog => {
            match TransactionCoordinatorValue::decode(record_type, &mut d, version).map_err(|e| read_failed(&e))? {
                TransactionCoordinatorValue::TransactionLogValue(v) => transaction_json(&v, version)?,
            }
        }
        CoordinatorDecoder::ShareGroupState => {
            match ShareCoordinatorValue::decode(record_type, &mut d, version).map_err(|e| read_failed(&e))? {
                ShareCoordinatorValue::ShareSnapshotValue(v) => {
                    let mut o = Object::new();
                    o.field("snapshotEpoch", v.snapshot_epoch)
                        .field("stateEpoch", v.state_epoch)
                        .field("leaderEpoch", v.leader_epoch)
                        .field("startOffset", v.start_offset);
                    if v.delivery_complete_count != ShareSnapshotValue::default().delivery_complete_count {
                        o.field("deliveryCompleteCount", v.delivery_complete_count);
                    }
                    let batches = list(&v.state_batches, |b| {
                        state_batch(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count)
                    });
                    o.field("createTimestamp", v.create_timestamp)
                        .field("writeTimestamp", v.write_timestamp)
                        .field("stateBatches", batches);
                    o.end()
                }
                ShareCoordinatorValue::ShareUpdateValue(v) => {
                    let mut o = Object::new();
                    o.field("snapshotEpoch", v.snapshot_epoch)
                        .field("leaderEpoch", v.leader_epoch)
                        .field("startOffset", v.start_offset);
                    if v.delivery_complete_count != ShareUpdateValue::default().delivery_complete_count {
                        o.field("deliveryCompleteCount", v.delivery_complete_count);
                    }
                    let batches = list(&v.state_batches, |b| {
                        state_batch(b.first_offset, b.last_offset, b.delivery_state, b.delivery_count)
                    });
                    o.field("stateBatches", batches);
                    o.end()
                }
            }
        }
    };
    Ok((version, json))
}

fn state_batch(first_offset: i64, last_offset: i64, delivery_state: i8, delivery_count: i16) -> String {
    Object::new()
        .field("firstOffset", first_offset)
        .field("lastOffset", last_offset)
        .field("deliveryState", delivery_state)
        .field("deliveryCount", delivery_count)
        .end()
}

/// A transaction's value, its status as its state's name (Kafka's `TransactionState.stateName`).
fn transaction_json(v: &TransactionLogValue, version: i16) -> Result<String, String> {
    let state =
        strand_coordinator::txn::state::TxnState::from_id(v.transaction_status).map(|s| s.name()).ok_or_else(|| {
            format!("Unknown transaction state id {} from the transaction status message", v.transaction_status)
        })?;
    let defaults = TransactionLogValue::default();
    let tagged = version >= 1;
    let mut o = Object::new();
    o.field("producerId", v.producer_id);
    if tagged && v.previous_producer_id != defaults.previous_producer_id {
        o.field("previousProducerId", v.previous_producer_id);
    }
    if tagged && v.next_producer_id != defaults.next_producer_id {
        o.field("nextProducerId", v.next_producer_id);
    }
    o.field("producerEpoch", v.producer_epoch);
    if tagged && v.next_producer_epoch != defaults.next_producer_epoch {
        o.field("nextProducerEpoch", v.next_producer_epoch);
    }
    let partitions = match &v.transaction_partitions {
        None => "null".to_owned(),
        Some(all) => list(all, |p| {
            Object::new().field("topic", text(&p.topic)).field("partitionIds", list(&p.partition_ids, |i| *i)).end()
        }),
    };
    o.field("transactionTimeoutMs", v.transaction_timeout_ms)
        .field("transactionStatus", text(state))
        .field("transactionPartitions", partitions)
        .field("transactionLastUpdateTimestampMs", v.transaction_last_update_timestamp_ms)
        .field("transactionStartTimestampMs", v.transaction_start_timestamp_ms);
    if tagged && v.client_transaction_version != defaults.client_transaction_version {
        o.field("clientTransactionVersion", v.client_transaction_version);
    }
    Ok(o.end())
}

#[cfg(test)]
mod tests {
    use strand_protocol::codec::Message;
    use strand_protocol::messages::group_metadata_value::MemberMetadata;
    use strand_protocol::messages::{
        GroupMetadataKey, GroupMetadataValue, OffsetCommitKey, OffsetCommitValue, TransactionLogKey,
    };

    use super::*;

    /// A key's bytes: the record type, then the key at version 0.
    fn key<M: Message>(record_type: i16, message: &M) -> Vec<u8> {
        let mut out = record_type.to_be_bytes().to_vec();
        out.extend_from_slice(&message.encode_to_bytes(0).expect("key"));
        out
    }

    /// A value's bytes: the version, then the value at that version.
    fn value<M: Message>(version: i16, message: &M) -> Vec<u8> {
        let mut out = version.to_be_bytes().to_vec();
        out.extend_from_slice(&message.encode_to_bytes(version).expect("value"));
        out
    }

    fn check(decoder: CoordinatorDecoder, key: &[u8], value: Option<&[u8]>, expected: (Option<&str>, Option<&str>)) {
        let parsed = parse_bytes(decoder, key, value, 7);
        assert_eq!((parsed.key.as_deref(), parsed.payload.as_deref()), expected);
    }

    fn commit_key() -> Vec<u8> {
        key(1, &OffsetCommitKey { group: "g".into(), topic: "t".into(), partition: 3 })
    }

    const COMMIT_KEY_JSON: &str = r#"{"type":"1","data":{"group":"g","topic":"t","partition":3}}"#;

    /// A tombstone prints its key and `<DELETE>`.
    #[test]
    fn a_tombstone_prints_delete() {
        check(CoordinatorDecoder::Offsets, &commit_key(), None, (Some(COMMIT_KEY_JSON), Some("<DELETE>")));
    }

    /// Each offset commit version prints the fields it has (v1 its expiry, v3+ the epoch).
    #[test]
    fn offset_commits_print_their_version_s_fields() {
        let commit = OffsetCommitValue {
            offset: 42,
            leader_epoch: 5,
            metadata: "m\"x".into(),
            commit_timestamp: 1000,
            expire_timestamp: 2000,
            ..OffsetCommitValue::default()
        };
        let v1 =
            r#"{"version":"1","data":{"offset":42,"metadata":"m\"x","commitTimestamp":1000,"expireTimestamp":2000}}"#;
        check(CoordinatorDecoder::Offsets, &commit_key(), Some(&value(1, &commit)), (Some(COMMIT_KEY_JSON), Some(v1)));
        let v3 = r#"{"version":"3","data":{"offset":42,"leaderEpoch":5,"metadata":"m\"x","commitTimestamp":1000}}"#;
        check(CoordinatorDecoder::Offsets, &commit_key(), Some(&value(3, &commit)), (Some(COMMIT_KEY_JSON), Some(v3)));
    }

    /// Unknown record types and versions, and bytes that do not decode, are one line each.
    #[test]
    fn what_kafka_cannot_read_is_one_line() {
        let unknown_type = key(99, &OffsetCommitKey::default());
        check(
            CoordinatorDecoder::Offsets,
            &unknown_type,
            None,
            (Some("Unknown record type 99 at offset 7, skipping."), None),
        );
        let future = [&9i16.to_be_bytes()[..], &[0; 30]].concat();
        let message = "Error at offset 7, skipping. Found an unknown record version 9 for 1 type";
        check(CoordinatorDecoder::Offsets, &commit_key(), Some(&future), (Some(message), None));
        let truncated = value(3, &OffsetCommitValue::default());
        let parsed = parse_bytes(CoordinatorDecoder::Offsets, &commit_key(), Some(&truncated[..8]), 7);
        let line = parsed.key.expect("a line");
        assert!(line.starts_with("Error at offset 7, skipping. Could not read record with version 3"), "{line}");
        assert_eq!(parsed.payload, None);
        let short = parse_bytes(CoordinatorDecoder::Offsets, &[0], None, 7);
        assert_eq!(
            short.key.as_deref(),
            Some("Error at offset 7, skipping. Could not read version from key's buffer.")
        );
    }

    /// A consumer group's member whose subscription is not the consumer protocol keeps its bytes.
    #[test]
    fn a_subscription_that_does_not_decode_stays_bytes() {
        let group = GroupMetadataValue {
            protocol_type: "consumer".into(),
            generation: 1,
            protocol: None,
            leader: None,
            members: vec![MemberMetadata {
                member_id: "m".into(),
                subscription: Bytes::from_static(&[0, 9]),
                assignment: Bytes::from_static(&[0, 0, 0, 0, 0, 0, 255, 255, 255, 255]),
                ..MemberMetadata::default()
            }],
            ..GroupMetadataValue::default()
        };
        let group_key = key(2, &GroupMetadataKey { group: "g".into() });
        let expected = r#"{"version":"0","data":{"protocolType":"consumer","generation":1,"protocol":null,"leader":null,"members":[{"memberId":"m","clientId":"","clientHost":"","sessionTimeout":0,"subscription":"AAk=","assignment":{"assignedPartitions":[],"userData":null}}]}}"#;
        check(
            CoordinatorDecoder::Offsets,
            &group_key,
            Some(&value(0, &group)),
            (Some(r#"{"type":"2","data":{"group":"g"}}"#), Some(expected)),
        );
    }

    /// A transaction's status is its state's name; an unknown state is Kafka's error line.
    #[test]
    fn transaction_states_print_by_name() {
        let txn_key = key(0, &TransactionLogKey { transactional_id: "tx".into() });
        let state = |status: i8| TransactionLogValue {
            producer_id: 4,
            producer_epoch: 1,
            transaction_timeout_ms: 60_000,
            transaction_status: status,
            transaction_partitions: None,
            transaction_last_update_timestamp_ms: 10,
            transaction_start_timestamp_ms: -1,
            ..TransactionLogValue::default()
        };
        let expected = r#"{"version":"0","data":{"producerId":4,"producerEpoch":1,"transactionTimeoutMs":60000,"transactionStatus":"PrepareAbort","transactionPartitions":null,"transactionLastUpdateTimestampMs":10,"transactionStartTimestampMs":-1}}"#;
        let key_json = r#"{"type":"0","data":{"transactionalId":"tx"}}"#;
        check(
            CoordinatorDecoder::TransactionLog,
            &txn_key,
            Some(&value(0, &state(3))),
            (Some(key_json), Some(expected)),
        );
        let message = "Error at offset 7, skipping. Unknown transaction state id 9 from the transaction status message";
        check(CoordinatorDecoder::TransactionLog, &txn_key, Some(&value(0, &state(9))), (Some(message), None));
    }
}
