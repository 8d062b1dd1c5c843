//! Moving a partition's log between log directories (AlterReplicaLogDirs): a future log copied
//! in bounded steps while appends go on, then swapped in under the partition's lock with every
//! appended record in it; the partition's files end in the new directory only, a restart finds
//! the log there, and a crash at each point of a move restarts cleanly.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use bytes::BytesMut;
use strand_base::{SystemClock, TopicPartition, Uuid};
use strand_log::future_log::{FutureCreated, copy_step};
use strand_log::log::ValidatedBatch;
use strand_log::manager::{SharedLog, lock};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{LogConfig, LogManager, NodeIdentity};
use strand_protocol::records::{NewRecord, RecordBatchBuilder, RecordBatches};

fn config() -> LogConfig {
    // Small segments, so a move copies several and rolls on both sides.
    LogConfig { segment_bytes: 16 * 1024, segment_index_bytes: 4096, ..LogConfig::default() }
}

fn open(dirs: &[PathBuf]) -> LogManager {
    let identity = NodeIdentity { cluster_id: "c".into(), node_id: 1 };
    LogManager::open(dirs, &identity, config(), Arc::new(SystemClock)).expect("open")
}

fn append(log: &SharedLog, value: u64) {
    append_at_epoch(log, value, 3);
}

fn append_at_epoch(log: &SharedLog, value: u64, epoch: i32) {
    let value = format!("record-{value:08}");
    let mut builder = RecordBatchBuilder::new();
    let record = NewRecord { timestamp_ms: 5, key: None, value: Some(value.as_bytes()), headers: &[] };
    builder.append(&record).expect("record");
    let batch = ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid");
    let context = AppendContext::client(VerificationGuard::SENTINEL);
    lock(log).expect("lock").append_as_leader(batch, epoch, context).expect("append");
}

/// Every record value in the log, in offset order, with its offset.
fn values(log: &SharedLog) -> Vec<(i64, String)> {
    let log = lock(log).expect("lock");
    let mut out = Vec::new();
    let mut offset = log.log_start_offset();
    while offset < log.log_end_offset() {
        let slice = log.read(offset, 1 << 20, None).expect("read").expect("slice");
        for batch in RecordBatches::new(slice.read().expect("bytes")) {
            let batch = batch.expect("batch");
            let records = batch.records().expect("records");
            for record in &records {
                let record = record.expect("record");
                let value = String::from_utf8(record.value().expect("value").to_vec()).expect("utf8");
                out.push((batch.record_offset(&record), value));
            }
            offset = batch.next_offset();
        }
    }
    out
}

fn partition_dirs(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn dirs(root: &Path) -> Vec<PathBuf> {
    vec![root.join("a"), root.join("b")]
}

/// Copies in steps while another thread appends, then swaps: every acknowledged record is in
/// the moved log at its offset, the partition's directory is only in the destination, the
/// future shows in the destination's contents while it catches up, and a restart finds the log
/// there with its records.
#[test]
fn move_under_concurrent_appends() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = dirs(root.path());
    let tp = TopicPartition::new("orders", 0);
    let mut manager = open(&dirs);
    let log = manager.get_or_create(&tp, Uuid([7; 16]), config()).expect("create");
    let source = manager.dir_index(lock(&log).expect("lock").dir().parent().expect("parent"));
    let dest = 1 - source.expect("source dir");
    for value in 0..500 {
        append(&log, value);
    }
    assert_eq!(manager.create_future(&tp, dest).expect("future"), FutureCreated::Created);
    assert_eq!(manager.create_future(&tp, dest).expect("again"), FutureCreated::Moving);
    let future = manager.future(&tp).expect("future log");

    let stop = Arc::new(AtomicBool::new(false));
    let appender = {
        let (log, stop) = (Arc::clone(&log), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut next = 500;
            while !stop.load(Ordering::Relaxed) || next < 3000 {
                append(&log, next);
                next += 1;
            }
            next
        })
    };
    let mut steps = 0;
    loop {
        let caught_up = {
            let current = lock(&log).expect("lock");
            copy_step(&current, &mut lock(&future).expect("lock"), 4096).expect("copy").caught_up
        };
        steps += 1;
        let contents = manager.dir_contents().expect("contents");
        let moving = &contents[dest].futures;
        assert_eq!(moving.len(), 1, "the future log shows in its directory");
        assert!(moving[0].2 >= 0, "its lag is never negative");
        if caught_up && steps > 20 {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    assert!(manager.swap_in_future(&tp, &future).expect("swap"), "swapped");
    let appended = appender.join().expect("appender");
    // Appends after the swap went to the moved log, through the same shared handle.
    append(&log, appended);

    let expected: Vec<(i64, String)> = (0..=appended).map(|v| (v as i64, format!("record-{v:08}"))).collect();
    assert_eq!(values(&log), expected, "every acknowledged record, once, at its offset");
    assert_eq!(partition_dirs(&dirs[dest]), vec!["orders-0".to_owned()]);
    assert!(partition_dirs(&dirs[source.expect("source")]).is_empty(), "nothing left in the old dir");
    assert!(manager.future(&tp).is_none());
    let contents = manager.dir_contents().expect("contents");
    assert_eq!(contents[dest].partitions.len(), 1);
    assert!(contents[dest].futures.is_empty());
    let metadata = strand_log::dir::PartitionMetadata::read(&dirs[dest].join("orders-0")).expect("read");
    assert_eq!(metadata.map(|m| m.topic_id), Some(Uuid([7; 16])), "partition.metadata moved too");

    manager.shutdown(1).expect("shutdown");
    let manager = open(&dirs);
    let log = manager.get(&tp).expect("log after restart");
    assert_eq!(values(&log), expected);
    assert_eq!(manager.dir_contents().expect("contents")[dest].partitions.len(), 1);
}

/// A move to the directory the log is in does nothing; one to another directory while a
/// future exists elsewhere replaces it (Kafka cancels the first move).
#[test]
fn move_to_same_dir_and_cancel() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = vec![root.path().join("a"), root.path().join("b"), root.path().join("c")];
    let tp = TopicPartition::new("orders", 1);
    let mut manager = open(&dirs);
    let log = manager.get_or_create(&tp, Uuid([7; 16]), config()).expect("create");
    append(&log, 0);
    let source = manager.dir_index(lock(&log).expect("lock").dir().parent().expect("parent")).expect("dir");
    let (first, second) = ((source + 1) % 3, (source + 2) % 3);
    assert_eq!(manager.create_future(&tp, source).expect("same"), FutureCreated::AlreadyThere);
    assert!(partition_dirs(&dirs[first]).is_empty() && partition_dirs(&dirs[second]).is_empty());
    assert_eq!(manager.create_future(&tp, first).expect("first"), FutureCreated::Created);
    let cancelled = manager.future(&tp).expect("future");
    assert_eq!(manager.create_future(&tp, second).expect("second"), FutureCreated::Created);
    assert!(partition_dirs(&dirs[first]).is_empty(), "the first future log is gone");
    assert!(!manager.swap_in_future(&tp, &cancelled).expect("stale swap"), "a cancelled future never swaps");
    assert_eq!(manager.create_future(&tp, source).expect("back"), FutureCreated::AlreadyThere);
    assert!(manager.future(&tp).is_none() && partition_dirs(&dirs[second]).is_empty(), "moving back cancels");
}

/// A crash (no shutdown) mid-copy leaves a future log that the restart loads as one, still in
/// its directory, and whose copy resumes to a swap with every record.
#[test]
fn crash_mid_copy_resumes() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = dirs(root.path());
    let tp = TopicPartition::new("orders", 2);
    let mut manager = open(&dirs);
    let log = manager.get_or_create(&tp, Uuid([7; 16]), config()).expect("create");
    let source = manager.dir_index(lock(&log).expect("lock").dir().parent().expect("parent")).expect("dir");
    for value in 0..300 {
        append(&log, value);
    }
    manager.create_future(&tp, 1 - source).expect("future");
    let future = manager.future(&tp).expect("future");
    copy_step(&lock(&log).expect("lock"), &mut lock(&future).expect("lock"), 4096).expect("copy");
    lock(&log).expect("lock").flush_to(300).expect("flush");
    lock(&future).expect("lock").flush_to(i64::MAX).expect("flush");
    drop((manager, log, future)); // a crash: no shutdown, no clean marker

    let mut manager = open(&dirs);
    let future = manager.future(&tp).expect("the future log survives the crash");
    let log = manager.get(&tp).expect("current");
    assert!(lock(&future).expect("lock").log_end_offset() > 0);
    while !copy_step(&lock(&log).expect("lock"), &mut lock(&future).expect("lock"), 4096).expect("copy").caught_up {}
    assert!(manager.swap_in_future(&tp, &future).expect("swap"));
    let expected: Vec<(i64, String)> = (0..300).map(|v| (v as i64, format!("record-{v:08}"))).collect();
    assert_eq!(values(&log), expected);
    assert_eq!(partition_dirs(&dirs[1 - source]), vec!["orders-2".to_owned()]);
}

/// A crash between a swap's two renames (the current log renamed `-delete`, the future not yet
/// renamed current) is completed at the next start: the future becomes the log, with every
/// record, and the `-delete` directory goes.
#[test]
fn crash_between_swap_renames_completes() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = dirs(root.path());
    let tp = TopicPartition::new("orders", 3);
    let mut manager = open(&dirs);
    let log = manager.get_or_create(&tp, Uuid([7; 16]), config()).expect("create");
    let current_dir = lock(&log).expect("lock").dir().to_owned();
    let source = manager.dir_index(current_dir.parent().expect("parent")).expect("dir");
    for value in 0..200 {
        append(&log, value);
    }
    manager.create_future(&tp, 1 - source).expect("future");
    let future = manager.future(&tp).expect("future");
    while !copy_step(&lock(&log).expect("lock"), &mut lock(&future).expect("lock"), 4096).expect("copy").caught_up {}
    lock(&future).expect("lock").close().expect("close");
    drop((manager, log, future));
    let delete_dir = current_dir.with_file_name("orders-3.0123456789abcdef0123456789abcdef-delete");
    std::fs::rename(&current_dir, &delete_dir).expect("first rename");

    let manager = open(&dirs);
    let log = manager.get(&tp).expect("the moved log");
    let expected: Vec<(i64, String)> = (0..200).map(|v| (v as i64, format!("record-{v:08}"))).collect();
    assert_eq!(values(&log), expected);
    assert!(manager.future(&tp).is_none());
    assert_eq!(partition_dirs(&dirs[1 - source]), vec!["orders-3".to_owned()]);
    assert!(partition_dirs(&dirs[source]).is_empty(), "the -delete directory is gone");
}

/// The current log truncated under the copy (this node follows a new leader whose log
/// diverged) and rewritten at a newer epoch: the next copy step truncates the future log where
/// the two diverge, as a follower does, and the swap leaves exactly the current log's records.
#[test]
fn a_truncated_current_log_truncates_the_future() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = dirs(root.path());
    let tp = TopicPartition::new("orders", 4);
    let mut manager = open(&dirs);
    let log = manager.get_or_create(&tp, Uuid([7; 16]), config()).expect("create");
    let source = manager.dir_index(lock(&log).expect("lock").dir().parent().expect("parent")).expect("dir");
    for value in 0..200 {
        append(&log, value);
    }
    manager.create_future(&tp, 1 - source).expect("future");
    let future = manager.future(&tp).expect("future");
    while !copy_step(&lock(&log).expect("lock"), &mut lock(&future).expect("lock"), 4096).expect("copy").caught_up {}
    lock(&log).expect("lock").truncate_to(120).expect("truncate");
    for value in 1000..1050 {
        append_at_epoch(&log, value, 5);
    }
    assert!(manager.swap_in_future(&tp, &future).expect("swap"));
    let expected: Vec<(i64, String)> =
        (0..120).chain(1000..1050).enumerate().map(|(o, v)| (o as i64, format!("record-{v:08}"))).collect();
    assert_eq!(values(&log), expected);
    let epochs: Vec<(i32, i64)> =
        lock(&log).expect("lock").epoch_cache().entries().iter().map(|e| (e.epoch, e.start_offset)).collect();
    assert_eq!(epochs, [(3, 0), (5, 120)]);
}

/// While a log dir is offline (here dead at start: a file where it should be), no future log is
/// created, as Kafka refuses one then; a move to where the log already is still succeeds.
#[test]
fn no_future_log_while_a_dir_is_offline() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = vec![root.path().join("a"), root.path().join("b"), root.path().join("c")];
    std::fs::write(&dirs[2], b"a dead disk").expect("a file in place of c");
    let tp = TopicPartition::new("orders", 5);
    let mut manager = open(&dirs);
    let log = manager.get_or_create(&tp, Uuid([7; 16]), config()).expect("create");
    let source = manager.dir_index(lock(&log).expect("lock").dir().parent().expect("parent")).expect("dir");
    assert!(manager.is_dir_offline(2) && !manager.is_dir_offline(source));
    let refused = manager.create_future(&tp, 1 - source);
    assert!(matches!(refused, Err(strand_log::LogError::DirOffline { .. })), "{refused:?}");
    assert!(manager.future(&tp).is_none());
    assert_eq!(manager.create_future(&tp, source).expect("same dir"), FutureCreated::AlreadyThere);
}
