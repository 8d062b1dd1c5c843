//! Idempotence and transactions survive restarts: the producer state is kept on append, written
//! to `.snapshot` files at segment boundaries and on close, and rebuilt from the segments after an
//! unclean stop, so a retried batch is still recognised, a sequence gap still refused, and
//! aborted transactions still found in the transaction index.

use std::sync::Arc;

use bytes::BytesMut;
use strand_base::{Clock, ProducerId, SystemClock};
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, ProducerStateError, VerificationGuard};
use strand_log::{Log, LogConfig, LogError};
use strand_protocol::records::control::{EndTxnMarker, TransactionResult, end_txn_marker_batch};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

const PRODUCER: ProducerId = ProducerId(4000);

fn config() -> LogConfig {
    LogConfig { segment_bytes: 300, segment_index_bytes: 1024, ..LogConfig::default() }
}

fn open(dir: &std::path::Path, clean: bool) -> Log {
    let checkpoints = LogCheckpoints { recovery_point: 0, log_start_offset: 0, clean_shutdown: clean };
    Log::open(dir, config(), checkpoints, Arc::new(SystemClock)).expect("open")
}

/// An idempotent batch of two records with `sequence` as its first sequence number.
fn idempotent(sequence: i32, transactional: bool) -> ValidatedBatch {
    let mut builder = RecordBatchBuilder::new().producer(PRODUCER, 0, sequence);
    if transactional {
        builder = builder.transactional();
    }
    for i in 0..2 {
        let value = format!("value-{sequence}-{i}");
        builder
            .append(&NewRecord { timestamp_ms: now(), key: None, value: Some(value.as_bytes()), headers: &[] })
            .expect("record");
    }
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

/// Real time: producers idle for `producer.id.expiration.ms` (a day) by their batches' timestamps
/// are forgotten on load, as Kafka forgets them.
fn now() -> i64 {
    SystemClock.now_ms()
}

fn client() -> AppendContext {
    AppendContext::client(VerificationGuard::SENTINEL)
}

/// Appends sequences 0, 2, 4, ... (two records each) across several segments.
fn write_batches(log: &mut Log, count: i32) {
    for n in 0..count {
        let info = log.append_as_leader(idempotent(n * 2, false), 0, client()).expect("append");
        assert!(!info.duplicate);
    }
}

/// A retry of one of the last five batches is answered with its original offsets and appends
/// nothing, after a clean restart and after an unclean one alike; a gap is refused.
#[test]
fn retries_are_recognised_across_restarts() {
    for clean in [true, false] {
        let dir = tempfile::tempdir().expect("dir");
        let mut log = open(dir.path(), true);
        write_batches(&mut log, 12);
        assert!(log.segment_count() > 2, "rolls should have written snapshots");
        let end = log.log_end_offset();
        if clean {
            log.close().expect("close");
        }
        drop(log);
        let snapshots = std::fs::read_dir(dir.path())
            .expect("dir")
            .filter(|e| e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "snapshot")))
            .count();
        assert!(snapshots > 0, "no .snapshot files");

        let mut log = open(dir.path(), clean);
        assert_eq!(log.log_end_offset(), end);
        // The last batch (sequence 22) again: a duplicate with its original offsets.
        let retry = log.append_as_leader(idempotent(22, false), 0, client()).expect("retry");
        assert!(retry.duplicate);
        assert_eq!((retry.first_offset, retry.last_offset), (end - 2, end - 1));
        assert_eq!(log.log_end_offset(), end);
        // Sequence 30 skips 24..29: out of order.
        let gap = log.append_as_leader(idempotent(30, false), 0, client());
        assert!(matches!(gap, Err(LogError::ProducerState(ProducerStateError::OutOfOrderSequence { .. }))), "{gap:?}");
        // The next sequence is accepted.
        let next = log.append_as_leader(idempotent(24, false), 0, client()).expect("next");
        assert!(!next.duplicate);
        assert_eq!(next.first_offset, end);
    }
}

/// An aborted transaction is in the transaction index, and is found again after an unclean
/// restart rebuilt the index from the segments.
#[test]
fn aborted_transactions_survive_recovery() {
    let dir = tempfile::tempdir().expect("dir");
    let mut log = open(dir.path(), true);
    write_batches(&mut log, 1);
    let guard = log.producer_state_mut().maybe_start_txn_verification(PRODUCER, 2, 0, false, 0).expect("verify");
    let first = log.append_as_leader(idempotent(2, true), 0, AppendContext::client(guard)).expect("txn data");
    log.append_as_leader(idempotent(4, true), 0, client()).expect("more txn data");
    assert_eq!(log.first_unstable_offset(), Some(first.first_offset));
    let marker =
        end_txn_marker_batch(PRODUCER, 0, TransactionResult::Abort, EndTxnMarker { coordinator_epoch: 1 }, now())
            .expect("marker")
            .build()
            .expect("marker batch");
    let marker = ValidatedBatch::validate(BytesMut::from(&marker[..])).expect("valid marker");
    let marker = log.append_as_leader(marker, 0, AppendContext::coordinator(0)).expect("abort marker");
    let end = log.log_end_offset();
    let aborted = log.collect_aborted_txns(0, end);
    assert_eq!(aborted.len(), 1);
    assert_eq!((aborted[0].first_offset, aborted[0].last_offset), (first.first_offset, marker.last_offset));
    drop(log);

    let log = open(dir.path(), false);
    assert_eq!(log.collect_aborted_txns(0, end), aborted);
    assert_eq!(log.epoch_cache().latest_epoch(), Some(0));
}
