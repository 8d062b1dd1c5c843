//! A hosted partition takes appends with each `acks`, reads stop at the high watermark, `acks=all`
//! returns only once the batch is on stable storage, and a waiting fetch wakes on an append.

use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use strand_base::{SystemClock, TopicPartition, Uuid};
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
