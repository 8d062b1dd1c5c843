//! Retention (`cleanup.policy=delete`) deletes whole segments from the start of the log, as
//! Kafka's `deleteOldSegments` does: by age (`retention.ms` against a segment's newest record), by
//! size (`retention.bytes` per partition), never past the high watermark, never a segment holding
//! anything retention keeps; an expired active segment is rolled first; `compact`-only logs keep
//! everything. The log start offset follows, and a restart keeps it. Driven by a test clock.

mod common;

use std::sync::Arc;

use common::{append_record, open};
use strand_base::testkit::ManualClock;
use strand_log::log::LogCheckpoints;
use strand_log::{Log, LogConfig, LogError};

const HOUR_MS: i64 = 60 * 60 * 1000;

/// Segments of `records_per_segment` records each (`segment.bytes` sized to fit them).
fn config(retention_ms: i64, retention_bytes: i64) -> LogConfig {
    LogConfig { segment_bytes: 3 * 100, retention_ms, retention_bytes, ..LogConfig::default() }
}

/// Appends `count` records of about 100 bytes with timestamps `first_ts`, `first_ts + 1`, ...
fn fill(log: &mut Log, first_ts: i64, count: i64) {
    for i in 0..count {
        append_record(log, first_ts + i, 30);
    }
}

#[test]
fn old_segments_go_by_time_and_the_log_start_follows() {
    let clock = Arc::new(ManualClock::default());
    let (_dir, mut log) = open(config(HOUR_MS, -1), clock.clone());
    fill(&mut log, 0, 9);
    clock.set(HOUR_MS / 2);
    fill(&mut log, HOUR_MS / 2, 1);
    let segments = log.segment_base_offsets();
    assert!(segments.len() >= 3, "several segments: {segments:?}");
    let end = log.log_end_offset();

    // Nothing is old enough yet.
    clock.set(HOUR_MS);
    assert_eq!(log.apply_retention(end).expect("retention"), 0);

    // Past retention for the first records only: every segment whose newest record expired goes,
    // the one holding the newer record stays.
    clock.set(HOUR_MS + 9);
    let deleted = log.apply_retention(end).expect("retention");
    assert_eq!(deleted, segments.len() - 1, "segments {segments:?}, now {:?}", log.segment_base_offsets());
    assert_eq!(log.log_start_offset(), *segments.last().expect("segments"));
    assert!(matches!(log.read(0, 1 << 20, None), Err(LogError::OffsetOutOfRange { .. })), "offset 0 is gone");
}

#[test]
fn an_expired_active_segment_is_rolled_then_deleted() {
    let clock = Arc::new(ManualClock::default());
    let (dir, mut log) = open(config(HOUR_MS, -1), clock.clone());
    fill(&mut log, 0, 2);
    assert_eq!(log.segment_count(), 1);
    clock.set(2 * HOUR_MS);
    assert_eq!(log.apply_retention(2).expect("retention"), 1);
    assert_eq!(log.segment_base_offsets(), [2], "a fresh active segment at the end offset");
    assert_eq!((log.log_start_offset(), log.log_end_offset()), (2, 2));
    // Appends continue at the end offset, and a reopened log starts where retention left it.
    fill(&mut log, 2 * HOUR_MS, 1);
    log.close().expect("close");
    let checkpoints = LogCheckpoints { recovery_point: 3, log_start_offset: 0, clean_shutdown: true };
    let reopened = Log::open(dir.path(), config(HOUR_MS, -1), checkpoints, clock).expect("reopen");
    assert_eq!((reopened.log_start_offset(), reopened.log_end_offset()), (2, 3));
}

#[test]
fn size_retention_keeps_the_partition_within_its_limit() {
    let clock = Arc::new(ManualClock::default());
    let (_dir, mut log) = open(config(-1, 700), clock.clone());
    fill(&mut log, 0, 30);
    let size_before = log.size();
    let deleted = log.apply_retention(log.log_end_offset()).expect("retention");
    assert!(deleted > 0);
    let size_after = log.size();
    assert!(size_after <= 700 + 300, "within the limit plus less than a segment: {size_after} (was {size_before})");
    // One more segment's worth would have been enough to stay under: the limit is not undershot.
    assert!(size_after > 700 - 300, "only whole excess segments go: {size_after}");
}

#[test]
fn nothing_past_the_high_watermark_is_deleted() {
    let clock = Arc::new(ManualClock::default());
    let (_dir, mut log) = open(config(HOUR_MS, -1), clock.clone());
    fill(&mut log, 0, 9);
    let segments = log.segment_base_offsets();
    clock.set(10 * HOUR_MS);
    // A high watermark inside the second segment: only the first segment is wholly below it.
    let deleted = log.apply_retention(segments[1] + 1).expect("retention");
    assert_eq!(deleted, 1);
    assert_eq!(log.log_start_offset(), segments[1]);
}

#[test]
fn compact_only_logs_keep_everything() {
    let clock = Arc::new(ManualClock::default());
    let config = LogConfig { delete_enabled: false, ..config(HOUR_MS, 100) };
    let (_dir, mut log) = open(config, clock.clone());
    fill(&mut log, 0, 9);
    clock.set(10 * HOUR_MS);
    assert_eq!(log.apply_retention(log.log_end_offset()).expect("retention"), 0);
    assert_eq!(log.log_start_offset(), 0);
}

/// A crash in the middle of deleting a segment leaves a `.deleted` file and maybe indexes without
/// their `.log`: reopening removes both.
#[test]
fn interrupted_deletions_are_finished_on_open() {
    let clock = Arc::new(ManualClock::default());
    let (dir, mut log) = open(config(-1, -1), clock.clone());
    fill(&mut log, 0, 9);
    log.close().expect("close");
    let first = dir.path().join(format!("{:020}.log", 0));
    std::fs::rename(&first, dir.path().join(format!("{:020}.log.deleted", 0))).expect("rename");
    assert!(dir.path().join(format!("{:020}.index", 0)).exists());
    let checkpoints = LogCheckpoints { recovery_point: 9, log_start_offset: 0, clean_shutdown: true };
    let reopened = Log::open(dir.path(), config(-1, -1), checkpoints, clock).expect("reopen");
    assert!(reopened.log_start_offset() > 0);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    let first_prefix = format!("{:020}.", 0);
    assert!(!names.iter().any(|n| n.starts_with(&first_prefix)), "leftovers of segment 0: {names:?}");
}
