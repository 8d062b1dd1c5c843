//! A hosted partition takes appends with each `acks`, reads stop at the high watermark, `acks=all`
//! returns only once the batch is on stable storage, a waiting fetch wakes on an append, and
//! retention and compaction passes run beside appends.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use bytes::BytesMut;
use strand_base::{SystemClock, TopicPartition, Uuid};
use strand_log::cleaner::CleanerConfig;
use strand_log::log::ValidatedBatch;
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{LogConfig, LogManager, NodeIdentity};
use strand_protocol::records::{NewRecord, RecordBatchBuilder, RecordBatches};
use strand_replication::{Acks, Isolation, ReplicaManager};

fn batch(value: &[u8]) -> ValidatedBatch {
    let mut builder = RecordBatchBuilder::new();
    builder.append(&NewRecord { timestamp_ms: 10, key: None, value: Some(value), headers: &[] }).expect("record");
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

fn manager(dir: &std::path::Path) -> ReplicaManager {
    let identity = NodeIdentity { cluster_id: "c".into(), node_id: 1 };
    let config = LogConfig { segment_index_bytes: 4096, ..LogConfig::default() };
    let logs = LogManager::open(&[dir.to_owned()], &identity, config, Arc::new(SystemClock)).expect("logs");
    ReplicaManager::new(logs, true)
}

fn client() -> AppendContext {
    AppendContext::client(VerificationGuard::SENTINEL)
}

/// acks=all flushes; acks=1 does not; reads return what was appended up to the high watermark.
#[test]
fn appends_and_reads() {
    let dir = tempfile::tempdir().expect("dir");
    let replicas = manager(dir.path());
    let tp = TopicPartition::new("t", 0);
    replicas
        .ensure_partition(&tp, Uuid([1; 16]), LogConfig { segment_index_bytes: 4096, ..LogConfig::default() })
        .expect("host");
    let (info, _) = replicas.append(&tp, batch(b"a"), 0, Acks::Leader, client()).expect("append");
    assert_eq!(info.first_offset, 0);
    let (info, _) = replicas.append(&tp, batch(b"b"), 0, Acks::All, client()).expect("append");
    assert_eq!(info.first_offset, 1);
    let offsets = replicas.offsets(&tp).expect("offsets");
    assert_eq!((offsets.high_watermark, offsets.last_stable_offset), (2, 2));
    let read = replicas.read(&tp, 0, 1 << 20, Isolation::ReadUncommitted).expect("read");
    let records = read.records.as_ref().expect("records").read().expect("readable");
    let batches: Vec<_> = RecordBatches::new(records).map(|b| b.expect("batch").base_offset()).collect();
    assert_eq!(batches, vec![0, 1]);
    let empty = replicas.read(&tp, 2, 1 << 20, Isolation::ReadUncommitted).expect("read at the end");
    assert!(empty.records.is_none() && empty.is_empty());
    assert!(replicas.read(&TopicPartition::new("t", 9), 0, 10, Isolation::ReadUncommitted).is_err());
    replicas.shutdown(1).expect("shutdown");
    let recovery = std::fs::read_to_string(dir.path().join("recovery-point-offset-checkpoint")).expect("checkpoint");
    assert!(recovery.contains("t 0 2"), "{recovery}");
}

/// A fetch waiting for data wakes when a batch is appended, well before its timeout.
#[tokio::test]
async fn waiting_fetch_wakes_on_append() {
    let dir = tempfile::tempdir().expect("dir");
    let replicas = Arc::new(manager(dir.path()));
    let tp = TopicPartition::new("t", 0);
    replicas
        .ensure_partition(&tp, Uuid([1; 16]), LogConfig { segment_index_bytes: 4096, ..LogConfig::default() })
        .expect("host");
    let waiter = {
        let replicas = replicas.clone();
        tokio::spawn(async move {
            let started = tokio::time::Instant::now();
            replicas.wait_for_append(Duration::from_secs(30)).await;
            started.elapsed()
        })
    };
    tokio::task::yield_now().await;
    replicas.append(&tp, batch(b"x"), 0, Acks::Leader, client()).expect("append");
    let waited = waiter.await.expect("waiter");
    assert!(waited < Duration::from_secs(30), "woke only at the timeout");
}

/// A retention pass deletes each partition's expired segments (its own `retention.ms`), and the
/// new log start offset is checkpointed, so a node reopened after it starts there.
#[test]
fn retention_deletes_expired_segments_and_checkpoints_the_start() {
    let dir = tempfile::tempdir().expect("dir");
    let replicas = manager(dir.path());
    let (expiring, kept) = (TopicPartition::new("t", 0), TopicPartition::new("forever", 0));
    // Records stamped at 10 ms after the epoch: far older than an hour by the system clock.
    let config =
        LogConfig { segment_index_bytes: 4096, segment_bytes: 200, retention_ms: 3_600_000, ..LogConfig::default() };
    replicas.ensure_partition(&expiring, Uuid([1; 16]), config.clone()).expect("host");
    replicas.ensure_partition(&kept, Uuid([2; 16]), LogConfig { retention_ms: -1, ..config }).expect("host");
    for tp in [&expiring, &kept] {
        for _ in 0..6 {
            replicas
                .append(tp, batch(b"0123456789012345678901234567890123456789"), 0, Acks::Leader, client())
                .expect("append");
        }
    }
    let report = replicas.apply_retention();
    assert!(report.failed.is_empty() && report.checkpoint_failed.is_none(), "{report:?}");
    assert!(report.changed.iter().map(|(_, deleted)| deleted).sum::<usize>() > 0);
    let start = replicas.offsets(&expiring).expect("offsets").log_start_offset;
    assert_eq!(start, 6, "every segment expired: the log starts at its end");
    assert_eq!(replicas.offsets(&kept).expect("offsets").log_start_offset, 0, "retention.ms=-1 keeps all");

    let checkpoint = std::fs::read_to_string(dir.path().join("log-start-offset-checkpoint")).expect("checkpoint");
    assert!(checkpoint.lines().any(|line| line == "t 0 6"), "{checkpoint}");
}

/// One record as read back: offset, key, value.
type Read = (i64, String, String);

fn keyed_batch(key: &str, value: &str) -> ValidatedBatch {
    let mut builder = RecordBatchBuilder::new();
    let record = NewRecord { timestamp_ms: 10, key: Some(key.as_bytes()), value: Some(value.as_bytes()), headers: &[] };
    builder.append(&record).expect("record");
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

/// Every record of `tp`'s local log from its start.
fn read_everything(replicas: &ReplicaManager, tp: &TopicPartition) -> Vec<Read> {
    let mut out = Vec::new();
    let mut offset = replicas.offsets(tp).expect("offsets").log_start_offset;
    while let Some(slice) = replicas.read_local(tp, offset, 1 << 20).expect("read") {
        for batch in RecordBatches::new(slice.read().expect("bytes")) {
            let batch = batch.expect("batch");
            offset = batch.next_offset();
            for record in batch.records().expect("records").iter() {
                let record = record.expect("record");
                let text = |b: Option<&[u8]>| String::from_utf8_lossy(b.unwrap_or_default()).into_owned();
                out.push((batch.record_offset(&record), text(record.key()), text(record.value())));
            }
        }
    }
    out
}

/// Compaction passes running on another thread while produces go on: every produce succeeds at
/// the next offset, and once the passes stop, the partition holds the latest record per key
/// below where the last pass ended and every record above it, each at its original offset.
#[test]
fn compaction_runs_beside_produces() {
    let dir = tempfile::tempdir().expect("dir");
    let replicas = Arc::new(manager(dir.path()));
    let tp = TopicPartition::new("compacted", 0);
    let config = LogConfig {
        segment_index_bytes: 4096,
        segment_bytes: 2048,
        compact_enabled: true,
        delete_enabled: false,
        min_cleanable_dirty_ratio: 0.0,
        ..LogConfig::default()
    };
    replicas.ensure_partition(&tp, Uuid([3; 16]), config).expect("host");
    let cleaner = CleanerConfig { dedupe_buffer_bytes: 64 * 1024, ..CleanerConfig::default() };
    let stop = Arc::new(AtomicBool::new(false));
    let passes = Arc::new(AtomicUsize::new(0));
    let compacting = {
        let (replicas, stop, passes) = (replicas.clone(), stop.clone(), passes.clone());
        std::thread::spawn(move || {
            let mut end = 0;
            while !stop.load(Ordering::SeqCst) {
                let report = replicas.apply_compaction(cleaner);
                assert!(report.failed.is_empty() && report.checkpoint_failed.is_none(), "{report:?}");
                for (_, stats) in &report.changed {
                    assert!(!stats.abandoned, "nothing invalidates these passes: {stats:?}");
                    end = end.max(stats.end_offset);
                    passes.fetch_add(1, Ordering::SeqCst);
                }
            }
            end
        })
    };

    // Produce until the other thread has finished several passes (a bound catches a stuck one).
    let mut appended = Vec::new();
    while passes.load(Ordering::SeqCst) < 5 || appended.len() < 2_000 {
        assert!(appended.len() < 1_000_000, "the compaction thread made no progress");
        let (key, value) = (format!("k{}", appended.len() % 50), format!("v{}", appended.len()));
        let (info, _) = replicas.append(&tp, keyed_batch(&key, &value), 0, Acks::Leader, client()).expect("append");
        assert_eq!(info.first_offset, appended.len() as i64);
        appended.push((info.first_offset, key, value));
    }
    stop.store(true, Ordering::SeqCst);
    let end = compacting.join().expect("the compaction thread");

    let mut latest = std::collections::BTreeMap::new();
    for (offset, key, _) in appended.iter().filter(|(o, _, _)| *o < end) {
        latest.insert(key.clone(), *offset);
    }
    let expected: Vec<Read> =
        appended.iter().filter(|(o, k, _)| *o >= end || latest.get(k) == Some(o)).cloned().collect();
    assert!(end > 0 && expected.len() < appended.len(), "something was compacted: end {end}");
    assert_eq!(read_everything(&replicas, &tp), expected);
}
