//! AlterReplicaLogDirs on a replica manager over two log dirs: each answer Kafka gives
//! (LOG_DIR_NOT_FOUND, REPLICA_NOT_AVAILABLE for a partition not hosted, whose log is then
//! created in the asked dir, NONE for the dir it is in), and a move while appends go on through
//! the manager: the mover swaps the future log in, every appended record is read back from the
//! moved log, the hosting watch fires, and a throttle holds the copy back until it is lifted.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::BytesMut;
use strand_base::{SystemClock, TopicPartition, Uuid};
use strand_log::log::ValidatedBatch;
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{LogConfig, LogManager, NodeIdentity};
use strand_protocol::error::ErrorCode;
use strand_protocol::records::{NewRecord, RecordBatchBuilder, RecordBatches};
use strand_replication::{Acks, Isolation, ReplicaManager, ReplicationThrottles};

fn batch(value: &[u8]) -> ValidatedBatch {
    let mut builder = RecordBatchBuilder::new();
    builder.append(&NewRecord { timestamp_ms: 10, key: None, value: Some(value), headers: &[] }).expect("record");
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

fn config() -> LogConfig {
    LogConfig { segment_bytes: 64 * 1024, segment_index_bytes: 4096, ..LogConfig::default() }
}

fn manager(dirs: &[PathBuf]) -> ReplicaManager {
    let identity = NodeIdentity { cluster_id: "c".into(), node_id: 1 };
    let logs = LogManager::open(dirs, &identity, config(), Arc::new(SystemClock)).expect("logs");
    ReplicaManager::new(logs, false)
}

/// The dir holding `tp`'s log, and whether it has a future log.
fn placement(replicas: &ReplicaManager, tp: &TopicPartition) -> (PathBuf, bool) {
    let dirs = replicas.log_dirs().expect("dirs");
    let current = dirs.iter().find(|d| d.partitions.iter().any(|(p, _)| p == tp)).expect("hosted");
    (current.path.clone(), dirs.iter().any(|d| d.futures.iter().any(|(p, ..)| p == tp)))
}

fn values(replicas: &ReplicaManager, tp: &TopicPartition) -> Vec<String> {
    let mut values = Vec::new();
    let mut offset = 0;
    loop {
        let read = replicas.read(tp, offset, 1 << 20, Isolation::ReadUncommitted).expect("read");
        let Some(records) = read.records else { return values };
        for batch in RecordBatches::new(records.read().expect("bytes")) {
            let batch = batch.expect("batch");
            for record in &batch.records().expect("records") {
                values.push(String::from_utf8(record.expect("record").value().expect("value").to_vec()).expect("utf8"));
            }
            offset = batch.next_offset();
        }
    }
}

/// Appends the next record of `expected` to `tp`.
fn append(replicas: &ReplicaManager, tp: &TopicPartition, expected: &mut Vec<String>) {
    let value = format!("{:06}-{}", expected.len(), "v".repeat(1000));
    let context = AppendContext::client(VerificationGuard::SENTINEL);
    replicas.append(tp, batch(value.as_bytes()), 0, Acks::Leader, context).expect("append");
    expected.push(value);
}

fn other(dirs: &[PathBuf], dir: &Path) -> PathBuf {
    dirs.iter().find(|d| d.as_path() != dir).expect("another dir").clone()
}

/// Kafka's answers, and a not-hosted partition's log created where it was asked to go.
#[tokio::test]
async fn answers_and_preferred_dir() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = vec![root.path().join("a"), root.path().join("b")];
    let replicas = manager(&dirs);
    let tp = TopicPartition::new("t", 0);
    assert_eq!(replicas.alter_log_dir(&tp, Path::new("/elsewhere")), ErrorCode::LogDirNotFound);
    // Not hosted: REPLICA_NOT_AVAILABLE, and its log goes where asked, beside u's, although the
    // other dir holds fewer logs.
    replicas.ensure_partition(&TopicPartition::new("u", 0), Uuid([2; 16]), config()).expect("host u");
    let (u_dir, _) = placement(&replicas, &TopicPartition::new("u", 0));
    let wanted = u_dir.clone();
    assert_eq!(replicas.alter_log_dir(&tp, &wanted), ErrorCode::ReplicaNotAvailable);
    replicas.ensure_partition(&tp, Uuid([1; 16]), config()).expect("host t");
    assert_eq!(placement(&replicas, &tp), (wanted.clone(), false), "created in the dir asked for");
    assert_eq!(replicas.alter_log_dir(&tp, &wanted), ErrorCode::None, "already there");
    assert_eq!(placement(&replicas, &tp), (wanted, false), "nothing moves");
    let long = TopicPartition::new("x".repeat(256), 0);
    assert_eq!(replicas.alter_log_dir(&long, &dirs[0]), ErrorCode::InvalidTopicException);
}

/// A throttled move does not finish while the throttle holds; lifted, the mover swaps the
/// future log in while appends go on, and every appended record is in the moved log.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_under_appends_swaps_with_every_record() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = vec![root.path().join("a"), root.path().join("b")];
    let replicas = Arc::new(manager(&dirs));
    let tp = TopicPartition::new("t", 0);
    replicas.ensure_partition(&tp, Uuid([1; 16]), config()).expect("host");
    let mut expected = Vec::new();
    for _ in 0..500 {
        append(&replicas, &tp, &mut expected);
    }
    let (from, _) = placement(&replicas, &tp);
    let to = other(&dirs, &from);
    // One byte a second: the mover copies a batch, then waits.
    replicas.set_replication_throttles(ReplicationThrottles { alter_log_dirs_rate: Some(1), ..Default::default() });
    let mut hosting = replicas.subscribe_hosting();
    hosting.borrow_and_update();
    assert_eq!(replicas.alter_log_dir(&tp, &to), ErrorCode::None);
    for _ in 0..50 {
        append(&replicas, &tp, &mut expected);
        tokio::task::yield_now().await;
    }
    assert_eq!(placement(&replicas, &tp), (from.clone(), true), "held back by the throttle");

    replicas.set_replication_throttles(ReplicationThrottles::default());
    let appending = {
        let (replicas, tp) = (Arc::clone(&replicas), tp.clone());
        let mut expected = std::mem::take(&mut expected);
        tokio::task::spawn_blocking(move || {
            while placement(&replicas, &tp).1 {
                append(&replicas, &tp, &mut expected);
            }
            for _ in 0..10 {
                append(&replicas, &tp, &mut expected);
            }
            expected
        })
    };
    hosting.changed().await.expect("the swap fires the hosting watch");
    let expected = appending.await.expect("appender");
    assert_eq!(placement(&replicas, &tp), (to.clone(), false));
    assert!(values(&replicas, &tp) == expected, "every appended record, in order");
    assert!(!from.join("t-0").exists() && to.join("t-0").is_dir());
}
