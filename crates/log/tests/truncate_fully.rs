//! Two operations a replica needs from its log: starting over at an offset (every segment,
//! epoch and producer gone, appends continue there, a reopen finds the same), and recording a
//! leader epoch's start before any batch of it is written.

mod common;

use std::sync::Arc;

use bytes::BytesMut;
use common::{append_record, open};
use strand_base::testkit::ManualClock;
use strand_log::LogConfig;
use strand_log::epoch_cache::EpochEntry;
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

fn batch() -> ValidatedBatch {
    let mut builder = RecordBatchBuilder::new();
    builder.append(&NewRecord { timestamp_ms: 5, key: None, value: Some(b"v"), headers: &[] }).expect("record");
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

/// After `truncate_fully_and_start_at(100)` the log is empty at 100 (start, end, recovery
/// point), holds one segment based there and no epochs; the next append gets offset 100 and a
/// reopen finds the same.
#[test]
fn starting_over_at_an_offset() {
    let clock = Arc::new(ManualClock::default());
    let config = LogConfig { segment_bytes: 200, ..LogConfig::default() };
    let (dir, mut log) = open(config.clone(), clock.clone());
    for _ in 0..10 {
        append_record(&mut log, 5, 50);
    }
    assert!(log.segment_count() > 1);
    log.truncate_fully_and_start_at(100).expect("truncate fully");
    assert_eq!((log.log_start_offset(), log.log_end_offset(), log.recovery_point()), (100, 100, 100));
    assert_eq!(log.segment_base_offsets(), vec![100]);
    assert!(log.epoch_cache().is_empty());
    let info = log.append_as_leader(batch(), 3, AppendContext::client(VerificationGuard::SENTINEL)).expect("append");
    assert_eq!(info.first_offset, 100);
    assert_eq!(log.epoch_cache().entries(), &[EpochEntry::new(3, 100)]);
    log.close().expect("close");
    drop(log);
    let checkpoints = LogCheckpoints { recovery_point: 101, log_start_offset: 100, clean_shutdown: true };
    let config = LogConfig { segment_index_bytes: 4096, ..config };
    let log = strand_log::Log::open(dir.path(), config, checkpoints, clock).expect("reopen");
    assert_eq!((log.log_start_offset(), log.log_end_offset()), (100, 101));
    assert_eq!(log.segment_base_offsets(), vec![100]);
}

/// A new leader's epoch is recorded at the log end offset before it writes; an epoch that is not
/// above the latest one changes nothing.
#[test]
fn an_epoch_starts_before_its_first_batch() {
    let (_dir, mut log) = open(LogConfig::default(), Arc::new(ManualClock::default()));
    append_record(&mut log, 5, 10);
    log.maybe_assign_epoch_start_offset(4, log.log_end_offset()).expect("assign");
    assert_eq!(log.epoch_cache().entries(), &[EpochEntry::new(0, 0), EpochEntry::new(4, 1)]);
    log.maybe_assign_epoch_start_offset(2, 1).expect("lower epoch");
    log.maybe_assign_epoch_start_offset(4, 1).expect("same epoch");
    assert_eq!(log.epoch_cache().entries(), &[EpochEntry::new(0, 0), EpochEntry::new(4, 1)]);
    assert_eq!(log.epoch_cache().end_offset_for(0, log.log_end_offset()), (0, 1));
}

/// Truncating at the log end removes nothing but an epoch recorded there without a batch (a
/// leader that wrote nothing in its epoch), as Kafka's `truncateTo` does.
#[test]
fn truncating_at_the_end_drops_an_empty_epoch() {
    let (_dir, mut log) = open(LogConfig::default(), Arc::new(ManualClock::default()));
    append_record(&mut log, 5, 10);
    log.maybe_assign_epoch_start_offset(4, 1).expect("assign");
    log.truncate_to(1).expect("truncate");
    assert_eq!(log.log_end_offset(), 1);
    assert_eq!(log.epoch_cache().entries(), &[EpochEntry::new(0, 0)]);
}
