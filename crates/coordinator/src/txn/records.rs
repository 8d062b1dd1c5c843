//! The records of `__transaction_state`, in Kafka's format so that Kafka's tools (and a Kafka
//! broker taking over the log) read them:
//!
//! ```text
//! key   = record type 0 (i16) | TransactionLogKey v0: transactional id (i16 length, UTF-8)
//! value = version (i16)       | TransactionLogValue at that version
//!         or null: a tombstone, which removes the transactional id
//! ```
//!
//! The value is the whole state of the id after a transition: producer id and epoch, timeout,
//! status byte ([`TxnState::id`]), partitions grouped by topic (null in Empty, as Kafka writes
//! it), last-update and start times; version 1 (flexible, written once `transaction.version` is
//! 1 or more) adds tagged fields: `PreviousProducerId` (tag 0), `NextProducerId` (1),
//! `ClientTransactionVersion` (2) and `NextProducerEpoch` (3). Kafka 4 writes only tag 2 but reads
//! them all; Strand writes tags 0 and 1 too (when not -1), because a coordinator that takes over
//! needs them to complete a V2 transaction that moved to a new producer id and to recognise a
//! retry across that move. Tags this build does not know are kept and written back.

use std::collections::BTreeSet;

use bytes::{BufMut, Bytes, BytesMut};
use strand_base::TopicPartition;
use strand_protocol::codec::{DecodeError, Decoder, EncodeError, Struct};
use strand_protocol::messages::TransactionLogKey;
use strand_protocol::messages::transaction_log_value::{PartitionsSchema, TransactionLogValue};
use strand_protocol::records::{NewRecord, RecordBatchBuilder, RecordsError};

use super::metadata::{NO_PRODUCER_EPOCH, TxnMetadata};
use super::state::TxnState;

/// The record type (key version) of a transaction log key.
pub const TRANSACTION_LOG_KEY_TYPE: i16 = 0;

/// One record of `__transaction_state`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnRecord {
    pub transactional_id: String,
    /// `None` is a tombstone; otherwise the value version and the id's new state.
    pub value: Option<(i16, TxnMetadata)>,
}

/// Why the bytes of a record could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TxnRecordError {
    #[error("the key is shorter than its 2-byte record type")]
    MissingKeyType,
    #[error("unknown transaction log key type {0}")]
    UnknownKeyType(i16),
    #[error("the value is shorter than its 2-byte version")]
    MissingValueVersion,
    #[error("unknown transaction log value version {0}")]
    UnknownValueVersion(i16),
    #[error("unknown transaction status {0}")]
    UnknownStatus(i8),
    #[error("a transaction log record is malformed: {0}")]
    Malformed(#[from] DecodeError),
}

impl TxnRecordError {
    /// Whether a newer Kafka could have written the record: skipped on load rather than failing
    /// it (Kafka skips unknown key and value versions too).
    pub fn is_unknown_version(&self) -> bool {
        matches!(self, TxnRecordError::UnknownKeyType(_) | TxnRecordError::UnknownValueVersion(_))
    }
}

impl TxnRecord {
    /// The id's new state, written at `version`.
    pub fn value(transactional_id: &str, version: i16, metadata: TxnMetadata) -> Self {
        TxnRecord { transactional_id: transactional_id.to_owned(), value: Some((version, metadata)) }
    }

    /// Removes the id.
    pub fn tombstone(transactional_id: &str) -> Self {
        TxnRecord { transactional_id: transactional_id.to_owned(), value: None }
    }

    pub fn encode_key(&self) -> Result<Bytes, EncodeError> {
        let mut out = BytesMut::new();
        out.put_i16(TRANSACTION_LOG_KEY_TYPE);
        let key = TransactionLogKey { transactional_id: self.transactional_id.clone() };
        key.encode(&mut out, 0)?;
        Ok(out.freeze())
    }

    pub fn encode_value(&self) -> Result<Option<Bytes>, EncodeError> {
        let Some((version, metadata)) = &self.value else {
            return Ok(None);
        };
        let mut out = BytesMut::new();
        out.put_i16(*version);
        to_log_value(metadata, *version).encode(&mut out, *version)?;
        Ok(Some(out.freeze()))
    }

    /// Reads a record as Kafka (or Strand) wrote it.
    pub fn decode(key: Bytes, value: Option<Bytes>) -> Result<Self, TxnRecordError> {
        let mut d = Decoder::new(key);
        let key_type = d.i16().map_err(|_| TxnRecordError::MissingKeyType)?;
        if key_type != TRANSACTION_LOG_KEY_TYPE {
            return Err(TxnRecordError::UnknownKeyType(key_type));
        }
        let transactional_id = TransactionLogKey::decode(&mut d, 0)?.transactional_id;
        let Some(value) = value else {
            return Ok(TxnRecord { transactional_id, value: None });
        };
        let mut d = Decoder::new(value);
        let version = d.i16().map_err(|_| TxnRecordError::MissingValueVersion)?;
        if !(0..=1).contains(&version) {
            return Err(TxnRecordError::UnknownValueVersion(version));
        }
        let value = TransactionLogValue::decode(&mut d, version)?;
        let metadata = from_log_value(value)?;
        Ok(TxnRecord { transactional_id, value: Some((version, metadata)) })
    }
}

/// The log's value for `metadata`. Version 0 has no tagged fields: they are left at their
/// defaults (only a `transaction.version` 0 coordinator writes it, which has none to write).
fn to_log_value(metadata: &TxnMetadata, version: i16) -> TransactionLogValue {
    let partitions = (metadata.state != TxnState::Empty).then(|| group_by_topic(&metadata.partitions));
    let mut value = TransactionLogValue {
        producer_id: metadata.producer_id,
        producer_epoch: metadata.producer_epoch,
        transaction_timeout_ms: metadata.timeout_ms,
        transaction_status: metadata.state.id(),
        transaction_partitions: partitions,
        transaction_last_update_timestamp_ms: metadata.last_update_timestamp_ms,
        transaction_start_timestamp_ms: metadata.start_timestamp_ms,
        ..TransactionLogValue::default()
    };
    if version >= 1 {
        value.previous_producer_id = metadata.previous_producer_id;
        value.next_producer_id = metadata.next_producer_id;
        value.next_producer_epoch = metadata.next_producer_epoch;
        value.client_transaction_version = metadata.client_transaction_version;
        value.unknown_tagged_fields = metadata.unknown_tagged_fields.clone();
    }
    value
}

fn group_by_topic(partitions: &BTreeSet<TopicPartition>) -> Vec<PartitionsSchema> {
    let mut topics: Vec<PartitionsSchema> = Vec::new();
    for tp in partitions {
        match topics.last_mut() {
            Some(last) if last.topic == tp.topic => last.partition_ids.push(tp.partition),
            _ => topics.push(PartitionsSchema {
                topic: tp.topic.clone(),
                partition_ids: vec![tp.partition],
                ..PartitionsSchema::default()
            }),
        }
    }
    topics
}

fn from_log_value(value: TransactionLogValue) -> Result<TxnMetadata, TxnRecordError> {
    let state =
        TxnState::from_id(value.transaction_status).ok_or(TxnRecordError::UnknownStatus(value.transaction_status))?;
    let partitions = if state == TxnState::Empty {
        BTreeSet::new()
    } else {
        value
            .transaction_partitions
            .iter()
            .flatten()
            .flat_map(|t| t.partition_ids.iter().map(|&p| TopicPartition::new(t.topic.clone(), p)))
            .collect()
    };
    Ok(TxnMetadata {
        producer_id: value.producer_id,
        previous_producer_id: value.previous_producer_id,
        next_producer_id: value.next_producer_id,
        producer_epoch: value.producer_epoch,
        last_producer_epoch: NO_PRODUCER_EPOCH,
        timeout_ms: value.transaction_timeout_ms,
        state,
        partitions,
        start_timestamp_ms: value.transaction_start_timestamp_ms,
        last_update_timestamp_ms: value.transaction_last_update_timestamp_ms,
        client_transaction_version: value.client_transaction_version,
        next_producer_epoch: value.next_producer_epoch,
        unknown_tagged_fields: value.unknown_tagged_fields,
    })
}

/// Why an operation's records could not be made into a batch.
#[derive(Debug, thiserror::Error)]
pub enum TxnBatchError {
    #[error(transparent)]
    Encode(#[from] EncodeError),
    #[error(transparent)]
    Records(#[from] RecordsError),
}

/// One uncompressed magic-2 batch holding `records`, as Kafka's coordinator appends them.
pub fn build_batch(records: &[TxnRecord], timestamp_ms: i64) -> Result<Bytes, TxnBatchError> {
    let mut builder = RecordBatchBuilder::new();
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
    use strand_protocol::codec::RawTaggedField;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn ongoing() -> TxnMetadata {
        TxnMetadata {
            producer_id: 1000,
            previous_producer_id: 1000,
            next_producer_id: -1,
            producer_epoch: 3,
            last_producer_epoch: -1,
            timeout_ms: 60_000,
            state: TxnState::Ongoing,
            partitions: BTreeSet::from([
                TopicPartition::new("a", 1),
                TopicPartition::new("a", 0),
                TopicPartition::new("b", 2),
            ]),
            start_timestamp_ms: 5,
            last_update_timestamp_ms: 6,
            client_transaction_version: 2,
            next_producer_epoch: -1,
            unknown_tagged_fields: Vec::new(),
        }
    }

    /// Key and value bytes laid out by hand from Kafka's schemas: record type 0 and the id; value
    /// version 1, producer id, epoch, timeout, status, compact partitions by topic, times, then
    /// the tagged fields in tag order (0: previous producer id, 2: client transaction version).
    #[test]
    fn bytes_follow_the_schema() {
        let record = TxnRecord::value("tx", 1, ongoing());
        assert_eq!(hex(&record.encode_key().expect("encodes")), "000000027478");
        let expected = [
            "0001",             // version 1
            "00000000000003e8", // producer id 1000
            "0003",             // epoch
            "0000ea60",         // timeout 60000
            "01",               // Ongoing
            "03",               // 2 topics (compact: n + 1)
            "0261",
            "03",
            "00000000",
            "00000001",
            "00", // "a" [0, 1], no tags
            "0262",
            "02",
            "00000002",
            "00",               // "b" [2]
            "0000000000000006", // last update
            "0000000000000005", // start
            "02",               // 2 tagged fields
            "00",
            "08",
            "00000000000003e8", // tag 0: previous producer id
            "02",
            "02",
            "0002", // tag 2: client transaction version
        ]
        .concat();
        assert_eq!(hex(&record.encode_value().expect("encodes").expect("encodes")), expected);
    }

    /// Version 0 (no tagged fields) and an Empty value (null partitions), as a
    /// `transaction.version=0` Kafka writes them.
    #[test]
    fn version_0_and_empty_state() {
        let empty =
            TxnMetadata { state: TxnState::Empty, partitions: BTreeSet::new(), start_timestamp_ms: -1, ..ongoing() };
        let value = TxnRecord::value("tx", 0, empty).encode_value().expect("encodes").expect("encodes");
        let expected =
            ["0000", "00000000000003e8", "0003", "0000ea60", "00", "ffffffff", "0000000000000006", "ffffffffffffffff"]
                .concat();
        assert_eq!(hex(&value), expected);
    }

    /// Every field survives a write and a read, unknown tagged fields included; the in-memory
    /// last epoch does not (it is not in the format).
    #[test]
    fn values_round_trip() {
        let mut metadata = ongoing();
        metadata.next_producer_id = 2000;
        metadata.last_producer_epoch = 2;
        metadata.unknown_tagged_fields = vec![RawTaggedField { tag: 9, data: Bytes::from_static(b"xy") }];
        let record = TxnRecord::value("tx", 1, metadata.clone());
        let decoded = TxnRecord::decode(record.encode_key().expect("encodes"), record.encode_value().expect("encodes"))
            .expect("decodes");
        metadata.last_producer_epoch = -1;
        assert_eq!(decoded, TxnRecord::value("tx", 1, metadata));
        let tombstone = TxnRecord::tombstone("tx");
        assert_eq!(TxnRecord::decode(tombstone.encode_key().expect("encodes"), None).expect("encodes"), tombstone);
    }

    /// Unknown key types and value versions are recognised as such (skipped on load).
    #[test]
    fn unknown_versions_are_told_apart() {
        let key = Bytes::from_static(&[0, 1, 0, 1, b'x']);
        assert!(TxnRecord::decode(key, None).expect_err("fails").is_unknown_version());
        let key = TxnRecord::tombstone("x").encode_key().expect("encodes");
        let error = TxnRecord::decode(key, Some(Bytes::from_static(&[0, 7]))).expect_err("fails");
        assert_eq!(error, TxnRecordError::UnknownValueVersion(7));
        assert!(TxnRecord::decode(Bytes::from_static(&[0]), None).is_err());
    }
}
