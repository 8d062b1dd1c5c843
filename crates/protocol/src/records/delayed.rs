//! Strand's delayed delivery, as it is written in a partition's own log (ARCHITECTURE.md,
//! "Delayed delivery"): two control record types of Strand's, which every Kafka consumer skips as
//! it skips any control batch.
//!
//! - A **pending** batch ([`ControlRecordType::Unknown`]`(`[`PENDING_TYPE`]`)`) holds a
//!   producer's delayed records in place of its batch: the same producer id, epoch, sequence,
//!   transactional attribute and record count, each record's value the original record and its
//!   due time ([`PendingRecord`]). It takes the offsets the producer's batch would have taken.
//! - A **cancel** batch ([`CANCEL_TYPE`]) stands in for a producer's batch of records with the
//!   [`CANCEL_HEADER`] header, with its producer fields too: each record names a key, and every
//!   pending record of that key before it is dropped, not delivered.
//! - A **delivered** batch ([`DELIVERED_TYPE`]) names the pending records (by offset, with their
//!   due times) whose copies the data batch right after it holds, at new offsets. The two are
//!   appended together; a delivered batch at the end of a log, its data batch lost with a crash or
//!   a leader change, is completed by the next leader before anything else is appended.
//!
//! ```text
//! pending value:   version i16 (0) | due i64 | timestamp i64 | key bytes32 | value bytes32
//!                  | header count i32 | headers: key bytes32 (UTF-8) | value bytes32
//! delivered value: version i16 (0) | count i32 | (offset i64 | due i64) * count
//! cancel value:    version i16 (0) | key bytes32
//! ```
//! (`bytes32`: an i32 length, -1 for null, then the bytes.)

use bytes::{BufMut, Bytes};
use strand_base::{Offset, ProducerId};

use super::RecordsError;
use super::batch::{Attributes, RECORD_BATCH_OVERHEAD, RecordBatch};
use super::builder::{NewRecord, RecordBatchBuilder};
use super::compression::Compression;
use super::control::ControlRecordType;
use super::record::Header;
use crate::codec::varint::{read_varint, read_varlong};

/// The header naming a record's due time: epoch milliseconds, as ASCII decimal digits.
pub const DELIVER_AT_HEADER: &str = "strand.deliver.at";
/// The header naming a record's delay from its append, in milliseconds, as ASCII decimal digits.
pub const DELAY_MS_HEADER: &str = "strand.delay.ms";
/// The header making a record a cancellation of the pending records with its key (any value).
pub const CANCEL_HEADER: &str = "strand.cancel";

/// The control record type of a pending batch's records (far from Kafka's 0..=6).
pub const PENDING_TYPE: i16 = 0x7F01;
/// The control record type of a delivered batch's record.
pub const DELIVERED_TYPE: i16 = 0x7F02;
/// The control record type of a cancel batch's records.
pub const CANCEL_TYPE: i16 = 0x7F03;

const VERSION: i16 = 0;

/// What a batch is to delayed delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DelayedKind {
    Pending,
    Delivered,
    Cancel,
}

/// Whether `batch` is one of delayed delivery's control batches: an uncompressed control batch
/// whose first record's key names [`PENDING_TYPE`] or [`DELIVERED_TYPE`]. Reads one key, never
/// the records after it.
pub fn delayed_kind(batch: &RecordBatch) -> Option<DelayedKind> {
    let attributes = batch.attributes();
    if !attributes.is_control() || attributes.compression() != Ok(Compression::None) || batch.record_count() < 1 {
        return None;
    }
    let bytes = batch.as_bytes();
    let mut at = RECORD_BATCH_OVERHEAD;
    at += read_varint(bytes.get(at..)?).ok()?.1; // length
    at += 1; // attributes
    at += read_varlong(bytes.get(at..)?).ok()?.1; // timestamp delta
    at += read_varint(bytes.get(at..)?).ok()?.1; // offset delta
    let (key_len, read) = read_varint(bytes.get(at..)?).ok()?;
    at += read;
    let key_len = usize::try_from(key_len).ok()?;
    match ControlRecordType::decode_key(bytes.get(at..at.checked_add(key_len)?)?).ok()? {
        ControlRecordType::Unknown(PENDING_TYPE) => Some(DelayedKind::Pending),
        ControlRecordType::Unknown(DELIVERED_TYPE) => Some(DelayedKind::Delivered),
        ControlRecordType::Unknown(CANCEL_TYPE) => Some(DelayedKind::Cancel),
        _ => None,
    }
}

/// One pending record: its due time and the producer's record, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingRecord {
    pub due_ms: i64,
    pub timestamp_ms: i64,
    pub key: Option<Bytes>,
    pub value: Option<Bytes>,
    pub headers: Vec<(String, Option<Bytes>)>,
}

impl PendingRecord {
    /// The pending record's control value.
    pub fn encode(&self) -> Result<Vec<u8>, RecordsError> {
        let mut out = Vec::with_capacity(
            30 + self.key.as_ref().map_or(0, Bytes::len) + self.value.as_ref().map_or(0, Bytes::len),
        );
        out.put_i16(VERSION);
        out.put_i64(self.due_ms);
        out.put_i64(self.timestamp_ms);
        put_bytes32(&mut out, self.key.as_deref())?;
        put_bytes32(&mut out, self.value.as_deref())?;
        out.put_i32(len32(self.headers.len(), "header count")?);
        for (key, value) in &self.headers {
            put_bytes32(&mut out, Some(key.as_bytes()))?;
            put_bytes32(&mut out, value.as_deref())?;
        }
        Ok(out)
    }

    /// Reads a pending record's control value (any version from 0, reading the fields it knows).
    pub fn decode(value: &[u8]) -> Result<PendingRecord, RecordsError> {
        let mut r = Reader { rest: value };
        if r.i16()? < 0 {
            return Err(RecordsError::InvalidControlRecord("negative pending record version"));
        }
        let due_ms = r.i64()?;
        let timestamp_ms = r.i64()?;
        let key = r.bytes32()?;
        let value = r.bytes32()?;
        let count = r.i32()?;
        let count = usize::try_from(count).map_err(|_| RecordsError::InvalidControlRecord("negative header count"))?;
        let mut headers = Vec::with_capacity(count.min(r.rest.len() / 8));
        for _ in 0..count {
            let key = r.bytes32()?.ok_or(RecordsError::InvalidControlRecord("null header key"))?;
            let key = String::from_utf8(key.to_vec())
                .map_err(|_| RecordsError::InvalidControlRecord("header key is not UTF-8"))?;
            headers.push((key, r.bytes32()?));
        }
        Ok(PendingRecord { due_ms, timestamp_ms, key, value, headers })
    }

    /// Only the due time and the key of a pending record's control value (the key borrowed).
    pub fn decode_due_and_key(value: &[u8]) -> Result<(i64, Option<&[u8]>), RecordsError> {
        let mut r = Reader { rest: value };
        if r.i16()? < 0 {
            return Err(RecordsError::InvalidControlRecord("negative pending record version"));
        }
        let due = r.i64()?;
        r.i64()?;
        Ok((due, r.slice32()?))
    }
}

/// A pending batch in place of a producer's batch: the same producer fields and attributes
/// (transactional or not), control, uncompressed, one control record per original record with
/// the original's timestamp. The caller stamps offsets and the leader epoch.
pub fn pending_batch(
    producer: (ProducerId, i16, i32),
    transactional: bool,
    records: &[PendingRecord],
) -> Result<Bytes, RecordsError> {
    let values = records.iter().map(|record| Ok((record.timestamp_ms, record.encode()?)));
    control_batch(PENDING_TYPE, Some(producer), transactional, values)
}

/// A control batch of Strand's `control_type`, one record per `(timestamp, value)`, with the
/// producer's fields if any.
fn control_batch(
    control_type: i16,
    producer: Option<(ProducerId, i16, i32)>,
    transactional: bool,
    values: impl Iterator<Item = Result<(i64, Vec<u8>), RecordsError>>,
) -> Result<Bytes, RecordsError> {
    let key = ControlRecordType::Unknown(control_type).encode_key();
    let mut builder = RecordBatchBuilder::new().control();
    if let Some((id, epoch, sequence)) = producer {
        builder = builder.producer(id, epoch, sequence);
    }
    if transactional {
        builder = builder.transactional();
    }
    for value in values {
        let (timestamp_ms, value) = value?;
        builder.append(&NewRecord { timestamp_ms, key: Some(&key), value: Some(&value), headers: &[] })?;
    }
    builder.build()
}

/// Each record's offset and what `read` makes of its (non-null) value. Nothing is reserved
/// from the header's record count, which a damaged batch may overstate.
fn map_values<T>(
    batch: &RecordBatch,
    mut read: impl FnMut(&[u8]) -> Result<T, RecordsError>,
) -> Result<Vec<(Offset, T)>, RecordsError> {
    let records = batch.records()?;
    let mut out = Vec::new();
    for record in records.iter() {
        let record = record?;
        let value = record.value().ok_or(RecordsError::InvalidControlRecord("null delayed-delivery value"))?;
        out.push((batch.record_offset(&record), read(value)?));
    }
    Ok(out)
}

/// The pending records of a pending batch, with their offsets.
pub fn read_pending(batch: &RecordBatch) -> Result<Vec<(Offset, PendingRecord)>, RecordsError> {
    map_values(batch, PendingRecord::decode)
}

/// The offsets, due times and key hashes ([`key_hash`]) of a pending batch's records, without
/// copying their payloads.
pub fn pending_dues(batch: &RecordBatch) -> Result<Vec<(Offset, i64, u64)>, RecordsError> {
    let dues = map_values(batch, |value| {
        let (due, key) = PendingRecord::decode_due_and_key(value)?;
        Ok((due, key_hash(key)))
    })?;
    Ok(dues.into_iter().map(|(offset, (due, key))| (offset, due, key)).collect())
}

/// A key's 64-bit FNV-1a hash, the same on every node and build (a null key has its own value):
/// what the index keeps to find a cancelled key's pending records.
pub fn key_hash(key: Option<&[u8]>) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    match key {
        None => u64::MAX,
        Some(key) => key.iter().fold(OFFSET_BASIS, |hash, byte| (hash ^ u64::from(*byte)).wrapping_mul(PRIME)),
    }
}

/// A cancel batch in place of a producer's batch of cancellations: the producer's fields,
/// control, uncompressed, one record per key (with the original's timestamp).
pub fn cancel_batch(producer: (ProducerId, i16, i32), keys: &[(i64, Bytes)]) -> Result<Bytes, RecordsError> {
    let values = keys.iter().map(|(timestamp_ms, key)| {
        let mut value = Vec::with_capacity(6 + key.len());
        value.put_i16(VERSION);
        put_bytes32(&mut value, Some(key))?;
        Ok((*timestamp_ms, value))
    });
    control_batch(CANCEL_TYPE, Some(producer), false, values)
}

/// The key hashes a cancel batch names, each with its record's offset.
pub fn read_cancels(batch: &RecordBatch) -> Result<Vec<(Offset, u64)>, RecordsError> {
    map_values(batch, |value| {
        let mut r = Reader { rest: value };
        if r.i16()? < 0 {
            return Err(RecordsError::InvalidControlRecord("negative cancel record version"));
        }
        let key = r.slice32()?.ok_or(RecordsError::InvalidControlRecord("null cancelled key"))?;
        Ok(key_hash(Some(key)))
    })
}

/// A delivered batch naming `delivered` (pending offsets with their due times): control, no
/// producer, one record.
pub fn delivered_batch(delivered: &[(Offset, i64)], timestamp_ms: i64) -> Result<Bytes, RecordsError> {
    let mut value = Vec::with_capacity(6 + 16 * delivered.len());
    value.put_i16(VERSION);
    value.put_i32(len32(delivered.len(), "delivered count")?);
    for (offset, due) in delivered {
        value.put_i64(*offset);
        value.put_i64(*due);
    }
    control_batch(DELIVERED_TYPE, None, false, std::iter::once(Ok((timestamp_ms, value))))
}

/// The pending offsets (with their due times) a delivered batch names.
pub fn read_delivered(batch: &RecordBatch) -> Result<Vec<(Offset, i64)>, RecordsError> {
    let records = batch.records()?;
    let record = records.iter().next().ok_or(RecordsError::InvalidControlRecord("empty delivered batch"))??;
    let value = record.value().ok_or(RecordsError::InvalidControlRecord("null delivered value"))?;
    let mut r = Reader { rest: value };
    if r.i16()? < 0 {
        return Err(RecordsError::InvalidControlRecord("negative delivered record version"));
    }
    let count = usize::try_from(r.i32()?).map_err(|_| RecordsError::InvalidControlRecord("negative count"))?;
    if count > r.rest.len() / 16 {
        return Err(RecordsError::InvalidControlRecord("delivered count larger than its record"));
    }
    (0..count).map(|_| Ok((r.i64()?, r.i64()?))).collect()
}

/// The data batch that delivers `records` (in order): no producer, uncompressed, the records'
/// own timestamps (or `log_append_time_ms` for a LogAppendTime topic).
pub fn delivery_batch(records: &[PendingRecord], log_append_time_ms: Option<i64>) -> Result<Bytes, RecordsError> {
    let mut builder = RecordBatchBuilder::new();
    if let Some(now) = log_append_time_ms {
        builder = builder.log_append_time(now);
    }
    for record in records {
        let headers: Vec<Header<'_>> =
            record.headers.iter().map(|(key, value)| Header { key, value: value.as_deref() }).collect();
        builder.append(&NewRecord {
            timestamp_ms: record.timestamp_ms,
            key: record.key.as_deref(),
            value: record.value.as_deref(),
            headers: &headers,
        })?;
    }
    builder.build()
}

/// Whether `attributes` could belong to a delayed-delivery batch (cheap pre-check).
pub fn may_be_delayed(attributes: Attributes) -> bool {
    attributes.is_control() && attributes.compression() == Ok(Compression::None)
}

fn len32(len: usize, what: &'static str) -> Result<i32, RecordsError> {
    i32::try_from(len).map_err(|_| RecordsError::TooLarge { what, size: len })
}

fn put_bytes32(out: &mut Vec<u8>, bytes: Option<&[u8]>) -> Result<(), RecordsError> {
    match bytes {
        None => out.put_i32(-1),
        Some(bytes) => {
            out.put_i32(len32(bytes.len(), "field")?);
            out.extend_from_slice(bytes);
        }
    }
    Ok(())
}

struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], RecordsError> {
        let (head, rest) =
            self.rest.split_first_chunk::<N>().ok_or(RecordsError::InvalidControlRecord("delayed record cut short"))?;
        self.rest = rest;
        Ok(*head)
    }

    fn i16(&mut self) -> Result<i16, RecordsError> {
        Ok(i16::from_be_bytes(self.take()?))
    }

    fn i32(&mut self) -> Result<i32, RecordsError> {
        Ok(i32::from_be_bytes(self.take()?))
    }

    fn i64(&mut self) -> Result<i64, RecordsError> {
        Ok(i64::from_be_bytes(self.take()?))
    }

    fn slice32(&mut self) -> Result<Option<&'a [u8]>, RecordsError> {
        let len = self.i32()?;
        if len == -1 {
            return Ok(None);
        }
        let len = usize::try_from(len).map_err(|_| RecordsError::InvalidControlRecord("negative field length"))?;
        let (bytes, rest) =
            self.rest.split_at_checked(len).ok_or(RecordsError::InvalidControlRecord("delayed record cut short"))?;
        self.rest = rest;
        Ok(Some(bytes))
    }

    fn bytes32(&mut self) -> Result<Option<Bytes>, RecordsError> {
        let len = self.i32()?;
        if len == -1 {
            return Ok(None);
        }
        let len = usize::try_from(len).map_err(|_| RecordsError::InvalidControlRecord("negative field length"))?;
        let (bytes, rest) =
            self.rest.split_at_checked(len).ok_or(RecordsError::InvalidControlRecord("delayed record cut short"))?;
        self.rest = rest;
        Ok(Some(Bytes::copy_from_slice(bytes)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(due_ms: i64) -> PendingRecord {
        PendingRecord {
            due_ms,
            timestamp_ms: 1_700_000_000_000,
            key: Some(Bytes::from_static(b"order-7")),
            value: None,
            headers: vec![("strand.delay.ms".into(), Some(Bytes::from_static(b"1800000"))), ("h".into(), None)],
        }
    }

    /// A pending batch keeps the producer's fields, reads back as pending, and its records and
    /// due times round-trip; a delivered batch names what it was given.
    #[test]
    fn pending_and_delivered_batches_round_trip() {
        let records = [record(5), record(9)];
        let bytes = pending_batch((ProducerId(42), 3, 17), true, &records).expect("builds");
        let batch = RecordBatch::parse(bytes).expect("parses");
        assert_eq!(delayed_kind(&batch), Some(DelayedKind::Pending));
        assert!(batch.attributes().is_transactional() && batch.attributes().is_control());
        assert_eq!((batch.producer_id(), batch.producer_epoch(), batch.base_sequence()), (ProducerId(42), 3, 17));
        assert_eq!(batch.record_count(), 2);
        let read = read_pending(&batch).expect("reads");
        assert_eq!(read, vec![(0, records[0].clone()), (1, records[1].clone())]);
        let hash = key_hash(Some(b"order-7"));
        assert_eq!(pending_dues(&batch).expect("dues"), vec![(0, 5, hash), (1, 9, hash)]);
        assert_ne!(hash, key_hash(Some(b"order-8")));
        assert_ne!(key_hash(None), key_hash(Some(b"")));

        let cancel = cancel_batch((ProducerId(42), 3, 19), &[(1, Bytes::from_static(b"order-7"))]).expect("builds");
        let cancel = RecordBatch::parse(cancel).expect("parses");
        assert_eq!(delayed_kind(&cancel), Some(DelayedKind::Cancel));
        assert_eq!(read_cancels(&cancel).expect("reads"), vec![(0, hash)]);

        let delivered = delivered_batch(&[(0, 5), (1, 9)], 100).expect("builds");
        let delivered = RecordBatch::parse(delivered).expect("parses");
        assert_eq!(delayed_kind(&delivered), Some(DelayedKind::Delivered));
        assert_eq!(delivered.producer_id(), ProducerId::NONE);
        assert_eq!(read_delivered(&delivered).expect("reads"), vec![(0, 5), (1, 9)]);

        let data = RecordBatch::parse(delivery_batch(&records, None).expect("builds")).expect("parses");
        assert_eq!(delayed_kind(&data), None);
        let data_records = data.records().expect("records");
        let first = data_records.iter().next().expect("one").expect("valid");
        assert_eq!(first.key(), Some(&b"order-7"[..]));
        assert_eq!(first.headers().count(), 2);
        assert_eq!(data.record_timestamp(&first), 1_700_000_000_000);
    }

    /// A transaction marker is not a delayed batch, and a value cut short is an error, never a
    /// panic.
    #[test]
    fn other_batches_and_short_values() {
        let marker = super::super::control::end_txn_marker_batch(
            ProducerId(1),
            0,
            super::super::control::TransactionResult::Commit,
            super::super::control::EndTxnMarker { coordinator_epoch: 0 },
            0,
        )
        .expect("marker")
        .build()
        .expect("builds");
        assert_eq!(delayed_kind(&RecordBatch::parse(marker).expect("parses")), None);
        let encoded = record(1).encode().expect("encodes");
        for cut in 0..encoded.len() {
            assert!(PendingRecord::decode(&encoded[..cut]).is_err(), "cut at {cut}");
        }
    }
}
