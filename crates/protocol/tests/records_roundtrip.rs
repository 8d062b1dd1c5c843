//! Property tests of the record batch boundary: random batches built with every codec read back
//! field by field, every corrupted byte under the CRC is caught, and no input, however mangled,
//! makes [`RecordBatch::parse`], [`RecordBatches`] or [`RecordBatch::records`] panic.

use bytes::Bytes;
use proptest::collection::vec;
use proptest::prelude::*;
use strand_base::ProducerId;
use strand_protocol::records::{
    Compression, Header, NewRecord, RecordBatch, RecordBatchBuilder, RecordBatches, RecordsError, TimestampType,
    summarize,
};

/// A record as the test owns it, before and after the round trip.
#[derive(Debug, Clone, PartialEq)]
struct TestRecord {
    timestamp_ms: i64,
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    headers: Vec<(String, Option<Vec<u8>>)>,
}

/// Everything a test batch is built from.
#[derive(Debug, Clone)]
struct TestBatch {
    codec: Compression,
    base_offset: i64,
    partition_leader_epoch: i32,
    producer: (i64, i16, i32),
    transactional: bool,
    log_append_time_ms: Option<i64>,
    records: Vec<TestRecord>,
}

const DECOMPRESSED_LIMIT_BYTES: usize = 1 << 20;

fn codec() -> impl Strategy<Value = Compression> {
    prop::sample::select(Compression::ALL.to_vec())
}

fn nullable_bytes(len_max: usize) -> impl Strategy<Value = Option<Vec<u8>>> {
    prop::option::weighted(0.8, vec(any::<u8>(), 0..len_max))
}

/// Header keys from a small alphabet so that duplicates are common; one is non-ASCII.
fn header() -> impl Strategy<Value = (String, Option<Vec<u8>>)> {
    let key = prop::sample::select(vec!["trace", "id", "", "clé"]).prop_map(String::from);
    (key, nullable_bytes(16))
}

fn record() -> impl Strategy<Value = TestRecord> {
    (-1i64..4_000_000_000_000, nullable_bytes(32), nullable_bytes(300), vec(header(), 0..5))
        .prop_map(|(timestamp_ms, key, value, headers)| TestRecord { timestamp_ms, key, value, headers })
}

fn test_batch() -> impl Strategy<Value = TestBatch> {
    (
        codec(),
        0i64..i64::MAX / 2,
        -1i32..1000,
        (-1i64..10_000, -1i16..100, -1i32..i32::MAX),
        any::<bool>(),
        prop::option::of(0i64..4_000_000_000_000),
        vec(record(), 1..20),
    )
        .prop_map(|(codec, base_offset, epoch, producer, transactional, append_time, records)| TestBatch {
            codec,
            base_offset,
            partition_leader_epoch: epoch,
            producer,
            transactional,
            log_append_time_ms: append_time,
            records,
        })
}

fn build(spec: &TestBatch) -> Bytes {
    let (producer_id, epoch, sequence) = spec.producer;
    let mut builder = RecordBatchBuilder::new()
        .base_offset(spec.base_offset)
        .partition_leader_epoch(spec.partition_leader_epoch)
        .producer(ProducerId(producer_id), epoch, sequence)
        .compression(spec.codec);
    if spec.transactional {
        builder = builder.transactional();
    }
    if let Some(append_time) = spec.log_append_time_ms {
        builder = builder.log_append_time(append_time);
    }
    for record in &spec.records {
        let headers: Vec<Header<'_>> =
            record.headers.iter().map(|(key, value)| Header { key, value: value.as_deref() }).collect();
        let new = NewRecord {
            timestamp_ms: record.timestamp_ms,
            key: record.key.as_deref(),
            value: record.value.as_deref(),
            headers: &headers,
        };
        builder.append(&new).expect("test records fit");
    }
    builder.build().expect("test batch builds")
}

/// Checks every header field of `batch` against `spec`.
fn check_header(batch: &RecordBatch, spec: &TestBatch) {
    let count = spec.records.len() as i32;
    let max_timestamp = spec.records.iter().map(|r| r.timestamp_ms).max().unwrap_or(-1);
    let attributes = batch.attributes();
    assert_eq!(batch.base_offset(), spec.base_offset);
    assert_eq!(batch.partition_leader_epoch(), spec.partition_leader_epoch);
    assert_eq!(batch.magic(), 2);
    assert_eq!(attributes.compression(), Ok(spec.codec));
    assert_eq!(attributes.is_transactional(), spec.transactional);
    assert!(!attributes.is_control() && !attributes.has_delete_horizon());
    assert_eq!(batch.record_count(), count);
    assert_eq!(batch.last_offset_delta(), count - 1);
    assert_eq!(batch.last_offset(), spec.base_offset + i64::from(count) - 1);
    assert_eq!(batch.base_timestamp(), spec.records[0].timestamp_ms);
    let (producer_id, epoch, sequence) = spec.producer;
    assert_eq!((batch.producer_id(), batch.producer_epoch()), (ProducerId(producer_id), epoch));
    assert_eq!(batch.base_sequence(), sequence);
    match spec.log_append_time_ms {
        Some(append_time) => {
            assert_eq!(attributes.timestamp_type(), TimestampType::LogAppendTime);
            assert_eq!(batch.max_timestamp(), append_time);
        }
        None => {
            assert_eq!(attributes.timestamp_type(), TimestampType::CreateTime);
            assert_eq!(batch.max_timestamp(), max_timestamp);
        }
    }
}

/// Reads every record of `batch` back into the test's own form, with absolute timestamps.
fn read_records(batch: &RecordBatch) -> Result<Vec<TestRecord>, RecordsError> {
    let records = batch.records_with_limit(DECOMPRESSED_LIMIT_BYTES)?;
    let mut out = Vec::new();
    for (i, record) in records.iter().enumerate() {
        let record = record?;
        assert_eq!(batch.record_offset(&record), batch.base_offset() + i as i64);
        out.push(TestRecord {
            timestamp_ms: batch.base_timestamp() + record.timestamp_delta(),
            key: record.key().map(<[u8]>::to_vec),
            value: record.value().map(<[u8]>::to_vec),
            headers: record.headers().map(|h| (h.key.to_owned(), h.value.map(<[u8]>::to_vec))).collect(),
        });
    }
    Ok(out)
}

/// Exercises every reading path on arbitrary bytes; the only requirement is not to panic.
fn read_everything(bytes: Bytes) {
    let mut batches = RecordBatches::new(bytes.clone());
    for batch in batches.by_ref().flatten() {
        read_batch(&batch);
    }
    let _ = batches.partial_tail();
    if let Ok(batch) = RecordBatch::parse(bytes) {
        read_batch(&batch);
    }
}

fn read_batch(batch: &RecordBatch) {
    let _ = (batch.crc_is_valid(), batch.last_offset(), batch.next_offset(), batch.last_sequence());
    let _ = summarize(batch, DECOMPRESSED_LIMIT_BYTES);
    let _ = batch.validate_uncompressed_record_count();
    if let Ok(records) = batch.records_with_limit(DECOMPRESSED_LIMIT_BYTES) {
        for record in records.iter().flatten() {
            let _ = (batch.record_offset(&record), batch.record_timestamp(&record));
            let _ = record.headers().count();
        }
    }
}

/// Overwrites the batch length and magic so that random bytes get past the header checks.
fn plausible_batch(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.resize(bytes.len().max(61), 0);
    let batch_length = (bytes.len() - 12) as i32;
    bytes[8..12].copy_from_slice(&batch_length.to_be_bytes());
    bytes[16] = 2;
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A built batch reads back field by field, header and records, with every codec; its CRC
    /// verifies and, uncompressed, its record count matches its length prefixes.
    #[test]
    fn batches_round_trip(spec in test_batch()) {
        let batch = RecordBatch::parse(build(&spec)).expect("built batch parses");
        check_header(&batch, &spec);
        prop_assert!(batch.crc_is_valid());
        if spec.codec == Compression::None {
            prop_assert_eq!(batch.validate_uncompressed_record_count(), Ok(()));
        }
        prop_assert_eq!(read_records(&batch).expect("records read"), spec.records);
    }

    /// Changing any byte the CRC covers (attributes to the end) is detected; changing the base
    /// offset or leader epoch, which it does not cover, is not.
    #[test]
    fn crc_detects_every_corrupted_byte(spec in test_batch(), at in any::<prop::sample::Index>(), flip in 1u8..) {
        let mut bytes = build(&spec).to_vec();
        let covered = 21 + at.index(bytes.len() - 21);
        bytes[covered] ^= flip;
        let batch = RecordBatch::parse(Bytes::from(bytes.clone())).expect("header untouched");
        prop_assert!(!batch.crc_is_valid(), "flip at {} not detected", covered);
        bytes[covered] ^= flip;
        let outside = at.index(4) + if at.index(2) == 0 { 0 } else { 12 };
        bytes[outside] ^= flip;
        let batch = RecordBatch::parse(Bytes::from(bytes)).expect("header untouched");
        prop_assert!(batch.crc_is_valid());
    }

    /// Record sets of several batches split back into the same batches, and a cut anywhere in the
    /// last one leaves the others intact and reports a partial tail (none when the cut falls on
    /// the batch boundary).
    #[test]
    fn record_sets_split_into_batches(specs in vec(test_batch(), 1..4), cut in any::<prop::sample::Index>()) {
        let built: Vec<Bytes> = specs.iter().map(build).collect();
        let set = Bytes::from(built.concat());
        let split: Vec<Bytes> = RecordBatches::new(set.clone())
            .map(|b| b.expect("valid batch").into_bytes())
            .collect();
        prop_assert_eq!(&split, &built);
        let last = built.last().map_or(0, Bytes::len);
        let tail = cut.index(last);
        let mut batches = RecordBatches::new(set.slice(..set.len() - last + tail));
        prop_assert_eq!(batches.by_ref().count(), built.len() - 1);
        prop_assert_eq!(batches.partial_tail(), tail > 0);
        prop_assert_eq!(batches.remaining().len(), tail);
    }

    /// The produce path's walk of a built batch finds its records as they were built, with every
    /// codec: their count, smallest and largest timestamps, a missing key, offsets in order.
    #[test]
    fn summaries_match_the_records(spec in test_batch()) {
        let batch = RecordBatch::parse(build(&spec)).expect("built batch parses");
        let summary = summarize(&batch, DECOMPRESSED_LIMIT_BYTES).expect("a built batch walks");
        let stamps: Vec<i64> = match spec.log_append_time_ms {
            Some(append_time) => vec![append_time; spec.records.len()],
            None => spec.records.iter().map(|r| r.timestamp_ms).collect(),
        };
        let stamped = stamps.iter().copied().filter(|&t| t != -1);
        prop_assert_eq!(summary.count, spec.records.len() as i32);
        prop_assert_eq!(summary.max_timestamp, stamped.clone().max().unwrap_or(-1));
        prop_assert_eq!(summary.min_timestamp, stamped.min().unwrap_or(i64::MAX));
        prop_assert_eq!(summary.keyless, spec.records.iter().any(|r| r.key.is_none()));
        prop_assert!(summary.offsets_in_order);
    }

    /// On a mangled batch (CRC fixed up) the walk and the record reader agree: the walk accepts
    /// exactly the batches whose records all read, with the same count, but for two leniencies
    /// it shares with Java: header keys are not checked as UTF-8, and a 5-byte varint's bits past
    /// 32 are dropped.
    #[test]
    fn the_walk_agrees_with_the_record_reader(
        spec in test_batch(),
        edits in vec((any::<prop::sample::Index>(), any::<u8>()), 1..4),
    ) {
        let mut bytes = build(&spec).to_vec();
        for (at, byte) in &edits {
            let i = 57 + at.index(bytes.len() - 57);
            bytes[i] = *byte;
        }
        let crc = crc32c::crc32c(&bytes[21..]);
        bytes[17..21].copy_from_slice(&crc.to_be_bytes());
        let batch = RecordBatch::parse(Bytes::from(bytes)).expect("header untouched");
        let walked = summarize(&batch, DECOMPRESSED_LIMIT_BYTES);
        let read: Result<Vec<_>, _> = batch
            .records_with_limit(DECOMPRESSED_LIMIT_BYTES)
            .and_then(|records| records.iter().map(|r| r.map(|_| ())).collect());
        match (&walked, &read) {
            (Ok(summary), Ok(records)) => prop_assert_eq!(summary.count as usize, records.len()),
            (Err(_), Err(_)) => {}
            (Ok(_), Err(RecordsError::HeaderKeyNotUtf8)) => {}
            // A 5-byte varint with bits past 32: the walk drops them as Java's `readVarint` does.
            (Ok(_), Err(RecordsError::Malformed(strand_protocol::codec::DecodeError::VarintTooLong))) => {}
            _ => prop_assert!(false, "walk {:?} but reader {:?}", walked, read),
        }
    }

    /// Arbitrary bytes never make any reader panic.
    #[test]
    fn garbage_never_panics(bytes in vec(any::<u8>(), 0..400)) {
        read_everything(Bytes::from(bytes.clone()));
        read_everything(Bytes::from(plausible_batch(bytes)));
    }

    /// A valid batch with a few bytes changed (and, half the time, its CRC fixed up) never makes
    /// any reader panic, with every codec.
    #[test]
    fn mutated_batches_never_panic(
        spec in test_batch(),
        edits in vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let mut bytes = build(&spec).to_vec();
        for (at, byte) in &edits {
            let i = 12 + at.index(bytes.len() - 12);
            bytes[i] = *byte;
        }
        read_everything(Bytes::from(bytes.clone()));
        let mut fixed = plausible_batch(bytes);
        let crc = crc32c::crc32c(&fixed[21..]);
        fixed[17..21].copy_from_slice(&crc.to_be_bytes());
        read_everything(Bytes::from(fixed));
    }
}
