//! Control records: the single record of a control batch (attributes bit 5), which consumers
//! never see. Transaction markers (COMMIT, ABORT) are the ones the broker writes; KRaft's own
//! control records (leader change, snapshot header and footer, voters) share the key format.
//!
//! ```text
//! key:   version i16 (0) | type i16 (0 abort, 1 commit, 2 leader change, ...)
//! value: version i16 (0) | coordinatorEpoch i32          (transaction markers)
//! ```
//!
//! Readers accept newer key and value versions, reading the fields they know, as Kafka's
//! `ControlRecordType.parse` and `EndTransactionMarker.deserializeValue` do.

use strand_base::ProducerId;

use super::RecordsError;
use super::batch::field;
use super::builder::{NewRecord, RecordBatchBuilder};
use super::record::Record;

/// A control record's type, from its key. Types this build does not know are kept as
/// [`ControlRecordType::Unknown`] so a reader can skip them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ControlRecordType {
    Abort,
    Commit,
    LeaderChange,
    SnapshotHeader,
    SnapshotFooter,
    KraftVersion,
    KraftVoters,
    Unknown(i16),
}

impl ControlRecordType {
    /// The key version written (`CURRENT_CONTROL_RECORD_KEY_VERSION`).
    pub const KEY_VERSION: i16 = 0;
    /// The size of a version-0 key.
    pub const KEY_BYTES: usize = 4;

    pub fn id(self) -> i16 {
        match self {
            ControlRecordType::Abort => 0,
            ControlRecordType::Commit => 1,
            ControlRecordType::LeaderChange => 2,
            ControlRecordType::SnapshotHeader => 3,
            ControlRecordType::SnapshotFooter => 4,
            ControlRecordType::KraftVersion => 5,
            ControlRecordType::KraftVoters => 6,
            ControlRecordType::Unknown(id) => id,
        }
    }

    pub fn from_id(id: i16) -> Self {
        match id {
            0 => ControlRecordType::Abort,
            1 => ControlRecordType::Commit,
            2 => ControlRecordType::LeaderChange,
            3 => ControlRecordType::SnapshotHeader,
            4 => ControlRecordType::SnapshotFooter,
            5 => ControlRecordType::KraftVersion,
            6 => ControlRecordType::KraftVoters,
            other => ControlRecordType::Unknown(other),
        }
    }

    /// The transaction outcome of a COMMIT or ABORT marker; `None` for other types.
    pub fn transaction_result(self) -> Option<TransactionResult> {
        match self {
            ControlRecordType::Abort => Some(TransactionResult::Abort),
            ControlRecordType::Commit => Some(TransactionResult::Commit),
            _ => None,
        }
    }

    /// The version-0 key for this type.
    pub fn encode_key(self) -> [u8; Self::KEY_BYTES] {
        let mut key = [0; Self::KEY_BYTES];
        key[..2].copy_from_slice(&Self::KEY_VERSION.to_be_bytes());
        key[2..].copy_from_slice(&self.id().to_be_bytes());
        key
    }

    /// Reads a control record key of any non-negative version.
    pub fn decode_key(key: &[u8]) -> Result<Self, RecordsError> {
        if key.len() < Self::KEY_BYTES {
            return Err(RecordsError::InvalidControlRecord("key shorter than 4 bytes"));
        }
        if i16::from_be_bytes(field(key, 0)) < 0 {
            return Err(RecordsError::InvalidControlRecord("negative key version"));
        }
        Ok(Self::from_id(i16::from_be_bytes(field(key, 2))))
    }
}

/// How a transaction ended: the two control record types a transaction marker can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransactionResult {
    Abort,
    Commit,
}

impl TransactionResult {
    pub fn control_record_type(self) -> ControlRecordType {
        match self {
            TransactionResult::Abort => ControlRecordType::Abort,
            TransactionResult::Commit => ControlRecordType::Commit,
        }
    }
}

/// The value of a COMMIT or ABORT marker: the epoch of the transaction coordinator that wrote
/// it, so a stale coordinator's markers can be fenced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EndTxnMarker {
    pub coordinator_epoch: i32,
}

impl EndTxnMarker {
    /// The value version written (`CURRENT_END_TXN_MARKER_VERSION`).
    pub const VALUE_VERSION: i16 = 0;
    /// The size of a version-0 value.
    pub const VALUE_BYTES: usize = 6;

    pub fn encode_value(&self) -> [u8; Self::VALUE_BYTES] {
        let mut value = [0; Self::VALUE_BYTES];
        value[..2].copy_from_slice(&Self::VALUE_VERSION.to_be_bytes());
        value[2..].copy_from_slice(&self.coordinator_epoch.to_be_bytes());
        value
    }

    /// Reads a marker value of any non-negative version.
    pub fn decode_value(value: &[u8]) -> Result<Self, RecordsError> {
        if value.len() < Self::VALUE_BYTES {
            return Err(RecordsError::InvalidControlRecord("marker value shorter than 6 bytes"));
        }
        if i16::from_be_bytes(field(value, 0)) < 0 {
            return Err(RecordsError::InvalidControlRecord("negative marker value version"));
        }
        Ok(EndTxnMarker { coordinator_epoch: i32::from_be_bytes(field(value, 2)) })
    }

    /// Reads a transaction marker from the record of a control batch.
    pub fn from_record(record: &Record<'_>) -> Result<(TransactionResult, Self), RecordsError> {
        let key = record.key().ok_or(RecordsError::InvalidControlRecord("null key"))?;
        let result = ControlRecordType::decode_key(key)?
            .transaction_result()
            .ok_or(RecordsError::InvalidControlRecord("not a transaction marker"))?;
        let value = record.value().ok_or(RecordsError::InvalidControlRecord("null marker value"))?;
        Ok((result, Self::decode_value(value)?))
    }
}

/// A builder holding one transaction marker, as Kafka's `MemoryRecords.withEndTransactionMarker`
/// writes it: transactional and control attributes, the producer's id and epoch, no sequence, no
/// compression, CreateTime. The caller sets the base offset and leader epoch, then builds.
pub fn end_txn_marker_batch(
    producer_id: ProducerId,
    producer_epoch: i16,
    result: TransactionResult,
    marker: EndTxnMarker,
    timestamp_ms: i64,
) -> Result<RecordBatchBuilder, RecordsError> {
    let key = result.control_record_type().encode_key();
    let value = marker.encode_value();
    let mut builder = RecordBatchBuilder::new().producer(producer_id, producer_epoch, -1).transactional().control();
    builder.append(&NewRecord { timestamp_ms, key: Some(&key), value: Some(&value), headers: &[] })?;
    Ok(builder)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::batch::RecordBatch;

    /// Keys and values match Kafka's bytes and read back; unknown types are kept by id.
    #[test]
    fn keys_and_values_round_trip() {
        assert_eq!(ControlRecordType::Commit.encode_key(), [0, 0, 0, 1]);
        assert_eq!(EndTxnMarker { coordinator_epoch: 258 }.encode_value(), [0, 0, 0, 0, 1, 2]);
        for id in -1..10 {
            let record_type = ControlRecordType::from_id(id);
            assert_eq!(record_type.id(), id);
            assert_eq!(ControlRecordType::decode_key(&record_type.encode_key()), Ok(record_type));
        }
        assert_eq!(ControlRecordType::decode_key(&[0, 1, 0, 0, 9]), Ok(ControlRecordType::Abort));
        assert_eq!(EndTxnMarker::decode_value(&[0, 1, 0, 0, 0, 7, 9]), Ok(EndTxnMarker { coordinator_epoch: 7 }));
    }

    /// Short or negative-version keys and values are errors.
    #[test]
    fn malformed_control_records_are_errors() {
        assert!(ControlRecordType::decode_key(&[0, 0, 0]).is_err());
        assert!(ControlRecordType::decode_key(&[0xff, 0xff, 0, 0]).is_err());
        assert!(EndTxnMarker::decode_value(&[0, 0, 0, 0, 0]).is_err());
        assert!(EndTxnMarker::decode_value(&[0x80, 0, 0, 0, 0, 0]).is_err());
    }

    /// A marker batch carries the control and transactional bits and one readable marker.
    #[test]
    fn builds_a_marker_batch() {
        let marker = EndTxnMarker { coordinator_epoch: 12 };
        let builder =
            end_txn_marker_batch(ProducerId(99), 4, TransactionResult::Abort, marker, 1_234).expect("marker fits");
        let bytes = builder.base_offset(50).partition_leader_epoch(3).build().expect("builds");
        let batch = RecordBatch::parse(bytes).expect("parses");
        assert!(batch.attributes().is_control() && batch.attributes().is_transactional());
        assert_eq!((batch.producer_id(), batch.producer_epoch(), batch.base_sequence()), (ProducerId(99), 4, -1));
        assert_eq!((batch.base_offset(), batch.record_count()), (50, 1));
        let records = batch.records().expect("records");
        let record = records.iter().next().expect("one record").expect("valid record");
        assert_eq!(EndTxnMarker::from_record(&record), Ok((TransactionResult::Abort, marker)));
    }
}
