//! The node's log directories hold Kafka's per-directory files: `meta.properties` naming the
//! cluster and node, the recovery-point and log-start-offset checkpoints, `partition.metadata` in
//! each partition, and `.kafka_cleanshutdown` after a clean stop only; a restart finds every log
//! where it was, and a directory of another cluster is refused.

use std::path::PathBuf;
use std::sync::Arc;

use bytes::BytesMut;
use strand_base::{SystemClock, TopicPartition, Uuid};
use strand_log::cleaner::{Cleaner, CleanerConfig};
use strand_log::dir::{CLEAN_SHUTDOWN_FILE, META_PROPERTIES_FILE, PartitionMetadata};
use strand_log::log::ValidatedBatch;
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{LogConfig, LogManager, NodeIdentity};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

fn identity(cluster: &str) -> NodeIdentity {
    NodeIdentity { cluster_id: cluster.into(), node_id: 1 }
}

fn batch() -> ValidatedBatch {
    let mut builder = RecordBatchBuilder::new();
    builder.append(&NewRecord { timestamp_ms: 5, key: None, value: Some(b"hello"), headers: &[] }).expect("record");
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

fn open(dirs: &[PathBuf], cluster: &str) -> strand_log::Result<LogManager> {
    let config = LogConfig { segment_index_bytes: 4096, ..LogConfig::default() };
    LogManager::open(dirs, &identity(cluster), config, Arc::new(SystemClock))
}

fn write_partitions(manager: &mut LogManager) {
    for partition in 0..4 {
        let tp = TopicPartition::new("orders", partition);
        let config = LogConfig { segment_index_bytes: 4096, ..LogConfig::default() };
        let log = manager.get_or_create(&tp, Uuid([partition as u8 + 1; 16]), config).expect("create");
        let mut log = strand_log::manager::lock(&log).expect("lock");
        for _ in 0..=partition {
            log.append_as_leader(batch(), 0, AppendContext::client(VerificationGuard::SENTINEL)).expect("append");
        }
    }
}

/// A clean shutdown writes the checkpoints and the marker; a restart consumes the marker and
/// finds every log at its offsets, spread over both directories.
#[test]
fn clean_shutdown_and_restart() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = vec![root.path().join("a"), root.path().join("b")];
    let mut manager = open(&dirs, "cluster-x").expect("open");
    write_partitions(&mut manager);
    manager.shutdown(7).expect("shutdown");

    for dir in &dirs {
        let meta = std::fs::read_to_string(dir.join(META_PROPERTIES_FILE)).expect("meta.properties");
        assert!(meta.contains("cluster.id=cluster-x") && meta.contains("node.id=1") && meta.contains("version=1"));
        assert!(dir.join(CLEAN_SHUTDOWN_FILE).exists());
        let recovery = std::fs::read_to_string(dir.join("recovery-point-offset-checkpoint")).expect("checkpoint");
        let lines: Vec<&str> = recovery.lines().collect();
        assert_eq!(lines[0], "0");
        assert_eq!(lines[1].parse::<usize>().ok(), Some(lines.len() - 2));
        assert_eq!(lines.len() - 2, 2, "two partitions per directory:\n{recovery}");
        assert!(dir.join("log-start-offset-checkpoint").exists());
    }
    let orders_2 = dirs.iter().map(|d| d.join("orders-2")).find(|p| p.exists()).expect("orders-2 dir");
    let metadata = PartitionMetadata::read(&orders_2).expect("read").expect("partition.metadata");
    assert_eq!(metadata.topic_id, Uuid([3; 16]));

    let manager = open(&dirs, "cluster-x").expect("reopen");
    for dir in &dirs {
        assert!(!dir.join(CLEAN_SHUTDOWN_FILE).exists(), "the marker is consumed at startup");
    }
    for partition in 0..4 {
        let log = manager.get(&TopicPartition::new("orders", partition)).expect("log");
        let log = strand_log::manager::lock(&log).expect("lock");
        assert_eq!(log.log_end_offset(), i64::from(partition) + 1);
        assert_eq!(log.recovery_point(), i64::from(partition) + 1);
    }
}

/// Without a clean shutdown the logs are recovered from their segments, data intact.
#[test]
fn crash_then_recovery() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = vec![root.path().join("a")];
    let mut manager = open(&dirs, "cluster-x").expect("open");
    write_partitions(&mut manager);
    drop(manager);
    let manager = open(&dirs, "cluster-x").expect("recover");
    for partition in 0..4 {
        let log = manager.get(&TopicPartition::new("orders", partition)).expect("log");
        assert_eq!(strand_log::manager::lock(&log).expect("lock").log_end_offset(), i64::from(partition) + 1);
    }
}

/// A directory formatted for another cluster is refused with a message naming both clusters.
#[test]
fn another_clusters_directory_is_refused() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = vec![root.path().join("a")];
    open(&dirs, "cluster-x").expect("open").shutdown(1).expect("shutdown");
    let err = open(&dirs, "cluster-y").err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("cluster-x") && err.contains("cluster-y"), "{err}");
}

/// The metadata log's directory sits among the partitions but belongs to the quorum: the manager
/// leaves it alone.
#[test]
fn the_metadata_log_is_not_a_partition() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = vec![root.path().join("a")];
    open(&dirs, "cluster-x").expect("open").shutdown(1).expect("shutdown");
    std::fs::create_dir_all(dirs[0].join("__cluster_metadata-0")).expect("metadata dir");
    let manager = open(&dirs, "cluster-x").expect("reopen");
    assert_eq!(manager.partitions().count(), 0);
}

/// High watermarks go to the `replication-offset-checkpoint` of the directory holding each
/// partition's log, in Kafka's text format, and read back after a restart; entries for
/// partitions without a log are dropped.
#[test]
fn high_watermarks_checkpoint_per_directory() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = vec![root.path().join("a"), root.path().join("b")];
    let mut manager = open(&dirs, "cluster-x").expect("open");
    write_partitions(&mut manager);
    let mut offsets: std::collections::BTreeMap<TopicPartition, i64> =
        (0..4).map(|p| (TopicPartition::new("orders", p), i64::from(p))).collect();
    offsets.insert(TopicPartition::new("gone", 0), 9);
    manager.write_high_watermarks(&offsets).expect("write");
    offsets.remove(&TopicPartition::new("gone", 0));
    let mut lines = 0;
    for dir in &dirs {
        let text = std::fs::read_to_string(dir.join("replication-offset-checkpoint")).expect("checkpoint");
        let all: Vec<&str> = text.lines().collect();
        assert_eq!(all[0], "0");
        assert_eq!(all[1].parse::<usize>().expect("count"), all.len() - 2);
        lines += all.len() - 2;
    }
    assert_eq!(lines, 4);
    manager.shutdown(1).expect("shutdown");
    let manager = open(&dirs, "cluster-x").expect("reopen");
    assert_eq!(manager.read_high_watermarks().expect("read"), offsets);
}

/// Deleting a log (DeleteTopics) while a cleaner pass over it has written a `.cleaned` segment
/// aborts the pass: the directory goes whole, and the pass's swap then changes nothing.
#[test]
fn deleting_a_log_abandons_its_cleaner_pass() {
    let root = tempfile::tempdir().expect("dir");
    let mut manager = open(&[root.path().join("a")], "cluster-x").expect("open");
    let tp = TopicPartition::new("compacted", 0);
    let config =
        LogConfig { segment_index_bytes: 4096, segment_bytes: 300, compact_enabled: true, ..LogConfig::default() };
    let shared = manager.get_or_create(&tp, Uuid([9; 16]), config).expect("create");
    let mut log = strand_log::manager::lock(&shared).expect("lock");
    for _ in 0..20 {
        log.append_as_leader(batch(), 0, AppendContext::client(VerificationGuard::SENTINEL)).expect("append");
    }
    let dir = log.dir().to_owned();
    let high_watermark = log.log_end_offset();
    let mut pass = Cleaner::prepare(&mut log, high_watermark).expect("prepare").expect("something to clean");
    drop(log);
    let mut cleaner = Cleaner::new(CleanerConfig { dedupe_buffer_bytes: 64 * 1024, ..CleanerConfig::default() });
    assert!(cleaner.build_offset_map(&mut pass).expect("map"));
    let group = cleaner.clean_next_group(&mut pass).expect("clean").expect("a group");
    assert!(
        std::fs::read_dir(&dir).expect("dir").any(|e| e
            .expect("entry")
            .path()
            .to_string_lossy()
            .ends_with(".log.cleaned"))
    );

    manager.delete(&tp).expect("delete");
    assert!(!dir.exists());
    let mut log = strand_log::manager::lock(&shared).expect("lock");
    assert!(!pass.swap(&mut log, group).expect("swap"), "nothing is swapped into a deleted log");
    assert!(cleaner.clean_next_group(&mut pass).expect("clean").is_none());
    assert!(pass.finish(&mut log).expect("stats").abandoned);
    assert!(!dir.exists(), "the pass made no file after the deletion");
}

/// The log dirs after [`write_partitions`] and a clean stop: the partitions of the second.
fn break_second_dir(dirs: &[PathBuf]) -> Vec<TopicPartition> {
    let mut manager = open(dirs, "cluster-x").expect("open");
    write_partitions(&mut manager);
    let contents = manager.dir_contents().expect("contents");
    manager.shutdown(7).expect("shutdown");
    contents[1].partitions.iter().map(|(tp, _)| tp.clone()).collect()
}

/// A log dir that cannot be loaded at start-up (here a partition's segment it cannot open) is
/// offline from the start, as Kafka's `LogManager` marks it, while the other dir loads and
/// serves; a clean stop then writes nothing into the offline dir (no marker, no checkpoint), so
/// its next start recovers it.
#[test]
fn a_dir_that_cannot_be_loaded_is_offline_and_the_others_load() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = vec![root.path().join("a"), root.path().join("b")];
    let in_second = break_second_dir(&dirs);
    let broken = &in_second[0];
    let segment = dirs[1].join(broken.to_string()).join("00000000000000000000.log");
    std::fs::remove_file(&segment).expect("remove the segment");
    std::fs::create_dir(&segment).expect("a directory in its place");
    std::fs::remove_file(dirs[1].join(CLEAN_SHUTDOWN_FILE)).expect("recovery reads every segment");

    let mut manager = open(&dirs, "cluster-x").expect("starts with one dir broken");
    assert_eq!(manager.offline_dirs(), [dirs[1].clone()]);
    assert!(in_second.iter().all(|tp| manager.get(tp).is_none()), "a partition of the offline dir is served");
    let first: Vec<TopicPartition> =
        (0..4).map(|p| TopicPartition::new("orders", p)).filter(|tp| !in_second.contains(tp)).collect();
    assert!(!first.is_empty());
    for tp in &first {
        let log = manager.get(tp).expect("a partition of the online dir");
        assert!(strand_log::manager::lock(&log).expect("lock").log_end_offset() > 0);
    }
    let contents = manager.dir_contents().expect("contents");
    assert_eq!(contents.iter().map(|d| d.path.clone()).collect::<Vec<_>>(), dirs);
    manager.get_or_create(&TopicPartition::new("new", 0), Uuid([9; 16]), LogConfig::default()).expect("created");
    assert!(dirs[0].join("new-0").exists(), "a new partition goes to the online dir");
    manager.shutdown(8).expect("a clean stop with a dir offline");
    assert!(dirs[0].join(CLEAN_SHUTDOWN_FILE).exists());
    assert!(!dirs[1].join(CLEAN_SHUTDOWN_FILE).exists(), "the offline dir was marked clean");
}

/// A regular file where a log dir should be (a dead mount, an operator's mistake) is offline
/// too; a directory of another cluster is still refused outright.
#[test]
fn a_file_in_place_of_a_dir_is_offline() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = vec![root.path().join("a"), root.path().join("b")];
    break_second_dir(&dirs);
    std::fs::remove_dir_all(&dirs[1]).expect("remove the second dir");
    std::fs::write(&dirs[1], b"not a directory").expect("a file in its place");
    let manager = open(&dirs, "cluster-x").expect("starts with one dir gone");
    assert_eq!(manager.offline_dirs(), [dirs[1].clone()]);
    manager.shutdown(9).expect("a clean stop");
    assert_eq!(std::fs::read(&dirs[1]).expect("the file"), b"not a directory");
}

/// The files in `dir`, by name.
fn file_names(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .map(|entry| entry.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Hosting a new partition as leader creates its segment's files only: `partition.metadata` and
/// the leader-epoch checkpoint follow with its first batch (a CreateTopics of thousands of
/// partitions paid two synced atomic writes for each). A clean close writes neither for one that
/// never got a batch (thousands of them held a clean stop past 30 s); hosted again after the
/// restart, it writes them with its first batch.
#[test]
fn a_new_partition_writes_its_state_files_with_its_first_batch() {
    let root = tempfile::tempdir().expect("dir");
    let dirs = [root.path().to_owned()];
    let mut manager = open(&dirs, "cluster-x").expect("open");
    let segment_files = ["00000000000000000000.index", "00000000000000000000.log", "00000000000000000000.timeindex"];
    let state_files = ["leader-epoch-checkpoint", "partition.metadata"];
    let has_state = |dir: &std::path::Path| {
        let names = file_names(dir);
        assert!(segment_files.iter().all(|f| names.contains(&f.to_string())), "{names:?}");
        let present = state_files.iter().filter(|f| names.contains(&f.to_string())).count();
        assert!(present == 0 || present == 2, "{names:?}");
        present == 2
    };
    let append = |log: &mut strand_log::Log| {
        log.append_as_leader(batch(), 2, AppendContext::client(VerificationGuard::SENTINEL)).expect("append")
    };
    for (partition, written) in [(0, true), (1, false)] {
        let tp = TopicPartition::new("fresh", partition);
        let log = manager.get_or_create(&tp, Uuid([9; 16]), LogConfig::default()).expect("create");
        let mut log = strand_log::manager::lock(&log).expect("lock");
        log.maybe_assign_epoch_start_offset(2, 0).expect("epoch");
        assert!(!has_state(log.dir()), "{tp} just hosted");
        if written {
            append(&mut log);
            assert!(has_state(log.dir()), "{tp} after its first batch");
        }
    }
    manager.shutdown(1).expect("shutdown");
    let (written, unwritten) = (root.path().join("fresh-0"), root.path().join("fresh-1"));
    assert!(has_state(&written), "a written partition after a clean close");
    assert!(!has_state(&unwritten), "an unwritten partition after a clean close");

    let manager = open(&dirs, "cluster-x").expect("reopen");
    let log = manager.get(&TopicPartition::new("fresh", 1)).expect("loaded");
    let mut log = strand_log::manager::lock(&log).expect("lock");
    log.defer_partition_metadata_if_missing(Uuid([9; 16]));
    log.maybe_assign_epoch_start_offset(2, 0).expect("epoch");
    append(&mut log);
    assert!(has_state(&unwritten), "its first batch after the restart");
    let metadata = PartitionMetadata::read(&unwritten).expect("read").expect("partition.metadata");
    assert_eq!(metadata.topic_id, Uuid([9; 16]));
    let epochs = strand_log::epoch_cache::LeaderEpochCache::open(&unwritten).expect("epochs");
    assert_eq!(epochs.latest_epoch(), Some(2));
}
