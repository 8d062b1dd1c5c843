//! The durability promise's file-system half: a flush makes durable not only the bytes it covers
//! but the directory entries they live in. A flush after a segment was created (a new log, a
//! roll) syncs the partition directory after the segment's files, and only then.

use std::path::Path;
use std::sync::Arc;

use bytes::BytesMut;
use strand_base::SystemClock;
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{Log, LogConfig};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

fn batch() -> ValidatedBatch {
    let mut builder = RecordBatchBuilder::new();
    builder
        .append(&NewRecord { timestamp_ms: 1_000, key: None, value: Some(&[7; 200]), headers: &[] })
        .expect("record");
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

fn append(log: &mut Log) {
    log.append_as_leader(batch(), 0, AppendContext::client(VerificationGuard::SENTINEL)).expect("append");
}

/// The paths the next flush of everything would sync; the flush is then carried out.
fn flush_targets(log: &mut Log) -> Vec<std::path::PathBuf> {
    let flush = log.begin_flush(log.log_end_offset()).expect("something to flush");
    let targets = flush.targets().map(Path::to_path_buf).collect();
    let synced = flush.sync().expect("sync");
    log.complete_flush(synced);
    targets
}

/// A new log's first flush, and the first flush after each roll, sync the partition directory
/// after the files in it; flushes in between do not. A new log's first flush also syncs the log
/// dir holding its directory (created without a sync of its own), last, and only that once.
#[test]
fn a_flush_after_a_new_segment_syncs_the_directory_last() {
    let root = tempfile::tempdir().expect("dir");
    let dir = root.path().join("t-0");
    let config = LogConfig { segment_bytes: 1_000, ..LogConfig::default() };
    let mut log = Log::open(&dir, config, LogCheckpoints::default(), Arc::new(SystemClock)).expect("open");
    append(&mut log);
    let first = flush_targets(&mut log);
    assert_eq!(first[first.len().saturating_sub(2)..], [dir.clone(), root.path().to_owned()], "{first:?}");
    append(&mut log);
    let next = flush_targets(&mut log);
    assert!(!next.contains(&dir), "no new segment, no directory sync: {next:?}");
    assert!(!next.contains(&root.path().to_owned()), "the log dir is synced once: {next:?}");
    let segments_before = log.segment_count();
    while log.segment_count() == segments_before {
        append(&mut log);
    }
    let after_roll = flush_targets(&mut log);
    assert_eq!(after_roll.last(), Some(&dir), "the first flush after a roll: {after_roll:?}");
}

/// A failed `fdatasync` takes the log's whole directory offline until a restart ("fsyncgate": a
/// later sync that succeeds proves nothing about the pages the failed one dropped): the flush
/// fails, the recovery point stays, and every log in the directory refuses appends, reads and
/// flushes, while a log in another directory goes on. A restart reads the directory again.
#[test]
fn a_failed_sync_takes_the_directory_offline_until_a_restart() {
    use strand_base::{TopicPartition, Uuid};
    use strand_log::manager::{LogManager, NodeIdentity, flush_unlocked};
    let scenario = fail::FailScenario::setup();
    let (a, b) = (tempfile::tempdir().expect("dir"), tempfile::tempdir().expect("dir"));
    let dirs = [a.path().to_path_buf(), b.path().to_path_buf()];
    let identity = NodeIdentity { cluster_id: "c".into(), node_id: 1 };
    let clock = Arc::new(SystemClock);
    let mut manager = LogManager::open(&dirs, &identity, LogConfig::default(), clock.clone()).expect("open");
    let partition = |p| TopicPartition::new("t", p);
    let logs: Vec<_> = (0..4)
        .map(|p| manager.get_or_create(&partition(p), Uuid([1; 16]), LogConfig::default()).expect("create"))
        .collect();
    for log in &logs {
        append(&mut log.lock().expect("lock"));
        flush_unlocked(log, 1).expect("flush");
    }
    let first = logs[0].lock().expect("lock").dir().parent().expect("log dir").to_path_buf();
    append(&mut logs[0].lock().expect("lock"));
    fail::cfg("log::sync", "return").expect("failpoint");
    assert!(flush_unlocked(&logs[0], 2).is_err(), "the failed sync is an error");
    fail::remove("log::sync");
    assert_eq!(logs[0].lock().expect("lock").recovery_point(), 1, "no recovery point past a failed sync");
    assert!(flush_unlocked(&logs[0], 2).is_err(), "a later sync does not succeed");
    assert_eq!(manager.offline_dirs(), std::slice::from_ref(&first));
    for log in &logs {
        let mut log = log.lock().expect("lock");
        let offline = log.dir().starts_with(&first);
        let appended = log.append_as_leader(batch(), 0, AppendContext::client(VerificationGuard::SENTINEL));
        assert_eq!(appended.is_err(), offline, "append in {}", log.dir().display());
        assert_eq!(log.read(0, 1 << 20, None).is_err(), offline, "read in {}", log.dir().display());
    }
    drop(logs);
    drop(manager);
    scenario.teardown();
    let manager = LogManager::open(&dirs, &identity, LogConfig::default(), clock).expect("reopen");
    assert!(manager.offline_dirs().is_empty());
    let log = manager.get(&partition(0)).expect("log");
    assert!(log.lock().expect("lock").read(0, 1 << 20, None).is_ok());
}
