//! Segments roll where Kafka rolls them: at `segment.ms` (less the segment's jitter) counted from
//! the first batch's timestamp, when an index is full, and when an offset would not fit the
//! index's 4-byte relative offset.

use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use strand_base::testkit::ManualClock;
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{Log, LogConfig};
use strand_protocol::records::{NewRecord, RecordBatch, RecordBatchBuilder};

fn batch_bytes(timestamp_ms: i64, base_offset: i64) -> Bytes {
    let mut builder = RecordBatchBuilder::new().base_offset(base_offset);
    builder.append(&NewRecord { timestamp_ms, key: None, value: Some(b"v"), headers: &[] }).expect("record");
    builder.build().expect("batch")
}

fn append(log: &mut Log, timestamp_ms: i64) {
    let batch = ValidatedBatch::validate(BytesMut::from(&batch_bytes(timestamp_ms, 0)[..])).expect("valid");
    log.append_as_leader(batch, 0, AppendContext::client(VerificationGuard::SENTINEL)).expect("append");
}

fn open(config: LogConfig) -> (tempfile::TempDir, Log) {
    let dir = tempfile::tempdir().expect("dir");
    let log = Log::open(dir.path(), config, LogCheckpoints::default(), Arc::new(ManualClock::default())).expect("open");
    (dir, log)
}

/// A batch more than `segment.ms` younger than the segment's first batch starts a new segment;
/// one within it does not.
#[test]
fn rolls_at_segment_ms() {
    let (_dir, mut log) = open(LogConfig { segment_ms: 1_000, segment_index_bytes: 4096, ..LogConfig::default() });
    append(&mut log, 10_000);
    append(&mut log, 10_900);
    assert_eq!(log.segment_count(), 1);
    append(&mut log, 11_001);
    assert_eq!(log.segment_base_offsets(), vec![0, 2]);
}

/// With jitter, a segment rolls no later than `segment.ms` and no earlier than `segment.ms`
/// less `segment.jitter.ms`.
#[test]
fn jitter_rolls_within_its_window() {
    let config =
        LogConfig { segment_ms: 1_000, segment_jitter_ms: 500, segment_index_bytes: 4096, ..LogConfig::default() };
    let (_dir, mut log) = open(config);
    append(&mut log, 10_000);
    append(&mut log, 10_499);
    assert_eq!(log.segment_count(), 1, "rolled before segment.ms - segment.jitter.ms");
    append(&mut log, 11_001);
    assert_eq!(log.segment_count(), 2, "did not roll after segment.ms");
}

/// A full time index (the smallest that holds two entries) forces a roll.
#[test]
fn rolls_when_an_index_is_full() {
    let config = LogConfig { index_interval_bytes: 1, segment_index_bytes: 24, ..LogConfig::default() };
    let (_dir, mut log) = open(config);
    for t in 0..10 {
        append(&mut log, 1_000 + t);
    }
    assert!(log.segment_count() >= 3, "{:?}", log.segment_base_offsets());
}

/// A replicated batch whose offset is more than 2^31 past the segment's base cannot be indexed
/// there, so it starts a new segment at its own offset.
#[test]
fn rolls_when_an_offset_would_overflow_the_index() {
    let (_dir, mut log) = open(LogConfig { segment_index_bytes: 4096, ..LogConfig::default() });
    append(&mut log, 5);
    let far = i64::from(i32::MAX) + 10;
    let batch = RecordBatch::parse(batch_bytes(6, far)).expect("batch");
    log.append_as_follower(&batch).expect("follower append");
    assert_eq!(log.segment_base_offsets(), vec![0, far]);
    assert_eq!(log.log_end_offset(), far + 1);
}
