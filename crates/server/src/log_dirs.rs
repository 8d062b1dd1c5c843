//! A node's log directories as the cluster sees them: which dir holds each replica (Kafka's
//! `AssignmentsManager`, KIP-858: [`DirAssigner`]), which dirs a failed sync took offline (Kafka's
//! `LogDirFailureHandler`: [`watch_log_dirs_forever`], which stops the node once every dir, or
//! the metadata log's, failed), and the open-files limit the hosted partitions need
//! ([`raise_open_files_limit`], [`warn_if_open_files_too_few`]).
//!
//! What it is not: the logs themselves (`strand_log::LogManager`) or the heartbeats that carry
//! the offline dirs' ids (`node::heartbeat_forever`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use strand_base::{BrokerId, TopicPartition, Uuid};
use strand_broker::{ControllerChannel, call_controller};
use strand_metadata::image::MetadataImage;
use strand_protocol::codec::Message;
use strand_protocol::messages::AssignReplicasToDirsRequest;
use strand_replication::ReplicaManager;
use tokio::sync::watch;
use tracing::{error, info, warn};

/// The most replicas one AssignReplicasToDirs names (Kafka's AssignmentsManager sends at most
/// 2,250); the rest go once the image shows these placed.
const ASSIGNMENTS_PER_REQUEST_MAX: usize = 2250;

/// Kafka's `AssignmentsManager` (KIP-858): tells the controller which log dir holds each of
/// this broker's replicas that the image shows in none of its dirs (`UNASSIGNED`, as the
/// controller leaves them on a broker with several dirs) or in another dir than its log's (a
/// replica moved by AlterReplicaLogDirs), so that a dir reported offline names the partitions
/// to move, and only those.
#[derive(Debug)]
pub(crate) struct DirAssigner {
    pub(crate) channel: Arc<dyn ControllerChannel>,
    pub(crate) node: BrokerId,
    pub(crate) broker_epoch: i64,
    /// Each `log.dirs` entry and its directory id.
    pub(crate) dirs: Vec<(std::path::PathBuf, Uuid)>,
}

impl DirAssigner {
    /// On every published image, and every change of the replicas hosted here (a replica moved
    /// to another dir, AlterReplicaLogDirs): the replicas to place, sent; a failed request is
    /// sent again after `retry`.
    pub(crate) async fn assign_forever(
        self,
        mut image: watch::Receiver<Arc<MetadataImage>>,
        replicas: Arc<ReplicaManager>,
        retry: Duration,
    ) {
        let mut hosting = replicas.subscribe_hosting();
        loop {
            let current = image.borrow_and_update().clone();
            hosting.borrow_and_update();
            let sent = match replicas.replica_dirs() {
                Ok(located) => {
                    let unplaced = self.unplaced(&current, &located);
                    unplaced.is_empty() || self.send(&unplaced, &located).await
                }
                Err(e) => {
                    warn!("reading the log dirs for AssignReplicasToDirs: {e}");
                    false
                }
            };
            if !sent {
                tokio::time::sleep(retry).await;
                continue;
            }
            let changed = tokio::select! {
                changed = image.changed() => changed,
                changed = hosting.changed() => changed,
            };
            if changed.is_err() {
                return;
            }
        }
    }

    /// This broker's hosted replicas the image places in another dir than the one `located`
    /// finds their log in (none of its dirs, as the controller leaves them on a broker with
    /// several, or the dir a replica moved away from), and those the image places in none of
    /// its dirs that have no log yet (sent once they have one).
    pub(crate) fn unplaced(
        &self,
        image: &MetadataImage,
        located: &BTreeMap<TopicPartition, PathBuf>,
    ) -> Vec<(Uuid, TopicPartition)> {
        let mut unplaced = Vec::new();
        for topic in image.topics().iter() {
            for (&index, p) in &topic.partitions {
                let Some(at) = p.replicas.iter().position(|b| *b == self.node) else { continue };
                let dir = p.directories.get(at).copied().unwrap_or_default();
                let tp = TopicPartition::new(topic.name.clone(), index);
                let hosted_in = located.get(&tp).and_then(|path| self.dirs.iter().find(|(p, _)| p == path));
                let placed = match hosted_in {
                    Some((_, id)) => *id == dir,
                    None => self.dirs.iter().any(|(_, id)| *id == dir),
                };
                if !placed {
                    unplaced.push((topic.id, tp));
                }
            }
        }
        unplaced
    }

    /// Sends where the hosted logs of the unplaced replicas are; whether the controller took it.
    async fn send(&self, unplaced: &[(Uuid, TopicPartition)], located: &BTreeMap<TopicPartition, PathBuf>) -> bool {
        let Some(request) = self.request(unplaced, located) else { return true };
        let version = <AssignReplicasToDirsRequest as Message>::VERSIONS.max;
        let placed: usize =
            request.directories.iter().flat_map(|d| &d.topics).map(|topic| topic.partitions.len()).sum();
        match call_controller(self.channel.as_ref(), &request, version).await {
            Ok((response, _)) if response.error_code == 0 => {
                info!("placed {placed} replicas in their log dirs (AssignReplicasToDirs)");
                true
            }
            Ok((response, _)) => {
                warn!("AssignReplicasToDirs refused by the controller: error {}", response.error_code);
                false
            }
            Err(e) => {
                warn!("AssignReplicasToDirs failed: {e}");
                false
            }
        }
    }

    /// The request placing `unplaced` replicas in the dirs `located` finds their logs in (a
    /// replica not hosted yet waits for its log), at most [`ASSIGNMENTS_PER_REQUEST_MAX`].
    pub(crate) fn request(
        &self,
        unplaced: &[(Uuid, TopicPartition)],
        located: &BTreeMap<TopicPartition, PathBuf>,
    ) -> Option<AssignReplicasToDirsRequest> {
        use strand_protocol::messages::assign_replicas_to_dirs_request::{DirectoryData, PartitionData, TopicData};
        let mut by_dir: BTreeMap<Uuid, BTreeMap<Uuid, Vec<i32>>> = BTreeMap::new();
        let placed = unplaced.iter().filter_map(|(topic_id, tp)| {
            let path = located.get(tp)?;
            let dir = self.dirs.iter().find(|(p, _)| p == path)?.1;
            Some((dir, *topic_id, tp.partition))
        });
        for (dir, topic_id, index) in placed.take(ASSIGNMENTS_PER_REQUEST_MAX) {
            by_dir.entry(dir).or_default().entry(topic_id).or_default().push(index);
        }
        if by_dir.is_empty() {
            return None;
        }
        let directories = by_dir
            .into_iter()
            .map(|(id, topics)| {
                let topics = topics
                    .into_iter()
                    .map(|(topic_id, indexes)| {
                        let partitions = indexes
                            .into_iter()
                            .map(|i| PartitionData { partition_index: i, ..Default::default() })
                            .collect();
                        TopicData { topic_id, partitions, ..Default::default() }
                    })
                    .collect();
                DirectoryData { id, topics, ..Default::default() }
            })
            .collect();
        Some(AssignReplicasToDirsRequest {
            broker_id: self.node,
            broker_epoch: self.broker_epoch,
            directories,
            ..Default::default()
        })
    }
}

/// How often the node looks for log dirs a failed sync took offline.
const LOG_DIR_CHECK_INTERVAL: Duration = Duration::from_millis(100);

/// Kafka's `LogDirFailureHandler`: every [`LOG_DIR_CHECK_INTERVAL`], stops serving the
/// partitions of newly offline log dirs, publishes the offline dirs' ids (`dirs` pairs each
/// `log.dirs` entry with its directory id, unknown for a dir unreadable at start-up, which was
/// registered without it) for the heartbeats, and once every dir is offline, or the one holding
/// the metadata log (`metadata_dir`), wakes `fatal` (Kafka halts then).
pub(crate) async fn watch_log_dirs_forever(
    replicas: Arc<ReplicaManager>,
    dirs: Vec<(std::path::PathBuf, Option<Uuid>)>,
    metadata_dir: std::path::PathBuf,
    offline_ids: watch::Sender<Vec<Uuid>>,
    fatal: Arc<tokio::sync::Notify>,
) {
    loop {
        tokio::time::sleep(LOG_DIR_CHECK_INTERVAL).await;
        let offline = match replicas.handle_log_dir_failures() {
            Ok(offline) => offline,
            Err(e) => {
                warn!("checking the log dirs: {e}");
                continue;
            }
        };
        let ids: Vec<Uuid> = dirs.iter().filter(|(path, _)| offline.contains(path)).filter_map(|(_, id)| *id).collect();
        offline_ids.send_if_modified(|known| std::mem::replace(known, ids.clone()) != ids);
        if !dirs.is_empty() && offline.len() >= dirs.len() {
            error!("every log dir failed ({offline:?}): stopping the node");
            fatal.notify_one();
            return;
        }
        if offline.contains(&metadata_dir) {
            error!("the metadata log dir {} failed: stopping the node", metadata_dir.display());
            fatal.notify_one();
            return;
        }
    }
}

/// The open-files limit in force once [`raise_open_files_limit`] ran (0: unknown or unlimited).
static OPEN_FILES_LIMIT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Descriptors a node needs beside its partitions: client and peer connections, the metadata
/// log, checkpoints, the cold segments' cache (`strand_log::file::COLD_SEGMENT_FILES_MAX`).
const OPEN_FILES_HEADROOM: u64 = 1_024 + strand_log::file::COLD_SEGMENT_FILES_MAX as u64;

/// Raises the soft open-files limit (`RLIMIT_NOFILE`) to the hard one, as a node hosting many
/// partitions needs, and logs the limit in force.
pub(crate) fn raise_open_files_limit() {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let Rlimit { current, maximum } = getrlimit(Resource::Nofile);
    let limit = match (current, maximum) {
        (Some(soft), Some(hard)) if soft < hard => {
            match setrlimit(Resource::Nofile, Rlimit { current: maximum, maximum }) {
                Ok(()) => hard,
                Err(e) => {
                    warn!("cannot raise the open-files limit from {soft} to {hard}: {e}");
                    soft
                }
            }
        }
        (Some(soft), _) => soft,
        (None, _) => 0,
    };
    if limit > 0 {
        info!("open-files limit: {limit} (about one descriptor per partition written to, plus {OPEN_FILES_HEADROOM})");
    }
    OPEN_FILES_LIMIT.store(limit, std::sync::atomic::Ordering::Relaxed);
}

/// Warns, once each time the hosted partitions outgrow it, when the open-files limit is too low
/// for them: each partition holds about one descriptor (its active segment's `.log`, once written
/// to), the node [`OPEN_FILES_HEADROOM`] more. Past the limit, hosting new partitions fails.
pub(crate) fn warn_if_open_files_too_few(partitions: usize) {
    static WARNED_AT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let limit = OPEN_FILES_LIMIT.load(std::sync::atomic::Ordering::Relaxed);
    let needed = partitions as u64 + OPEN_FILES_HEADROOM;
    if limit == 0 || needed <= limit {
        return;
    }
    // Again only once the partitions grew by a tenth since the last warning.
    let warned = WARNED_AT.load(std::sync::atomic::Ordering::Relaxed);
    if warned == 0 || needed > warned + warned / 10 {
        WARNED_AT.store(needed, std::sync::atomic::Ordering::Relaxed);
        warn!(
            "the open-files limit {limit} is too low for the {partitions} partitions hosted (about {needed} \
             descriptors needed): raise the hard limit (`ulimit -Hn`, LimitNOFILE=)"
        );
    }
}

#[cfg(test)]
mod tests {
    use strand_base::SystemClock;
    use strand_log::LogConfig;
    use strand_log::log::ValidatedBatch;
    use strand_log::producer_state::{AppendContext, VerificationGuard};
    use strand_log::{LogManager, NodeIdentity};
    use strand_protocol::records::{NewRecord, RecordBatchBuilder};
    use strand_replication::Acks;

    use super::*;

    /// The `log::sync` failpoint is process-wide: one test at a time sets it.
    static FAILPOINT: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// A replica manager over `paths` hosting `t-0` (in the first dir), whose next append's
    /// sync fails: that dir goes offline.
    fn with_a_failed_sync(paths: &[std::path::PathBuf]) -> (Arc<ReplicaManager>, TopicPartition) {
        let identity = NodeIdentity { cluster_id: "MkU3OEVBNTcwNTJENDM2Qg".into(), node_id: 1 };
        let logs = LogManager::open(paths, &identity, LogConfig::default(), Arc::new(SystemClock)).expect("logs");
        let replicas = Arc::new(ReplicaManager::new(logs, true));
        let tp = TopicPartition::new("t", 0);
        // Every append synced: the failing sync comes with the append.
        let config = LogConfig { flush_interval_messages: 1, ..LogConfig::default() };
        replicas.ensure_partition(&tp, Uuid([1; 16]), config).expect("hosted");
        let mut builder = RecordBatchBuilder::new();
        builder.append(&NewRecord { timestamp_ms: 10, key: None, value: Some(b"v"), headers: &[] }).expect("record");
        let batch =
            ValidatedBatch::validate(bytes::BytesMut::from(&builder.build().expect("batch")[..])).expect("valid");
        let failing = FAILPOINT.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        fail::cfg("log::sync", "return").expect("failpoint");
        let appended = replicas.append(&tp, batch, 0, Acks::Leader, AppendContext::client(VerificationGuard::SENTINEL));
        fail::remove("log::sync");
        drop(failing);
        assert!(appended.is_err());
        (replicas, tp)
    }

    /// One failed sync on the only log dir: the watcher stops serving its partitions, publishes
    /// its directory id for the heartbeats, and asks the node to stop (Kafka halts when every
    /// log dir failed).
    #[tokio::test]
    async fn every_log_dir_failed_stops_the_node() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (replicas, tp) = with_a_failed_sync(&[dir.path().to_owned()]);
        let (offline_tx, offline_rx) = watch::channel(Vec::new());
        let all_failed = Arc::new(tokio::sync::Notify::new());
        let id = Uuid([7; 16]);
        let dirs = vec![(dir.path().to_owned(), Some(id))];
        let metadata_dir = std::path::PathBuf::from("/elsewhere");
        let watching = watch_log_dirs_forever(replicas.clone(), dirs, metadata_dir, offline_tx, all_failed.clone());
        let watcher = tokio::spawn(watching);
        tokio::time::timeout(Duration::from_secs(10), all_failed.notified()).await.expect("asked to stop");
        assert_eq!(*offline_rx.borrow(), [id]);
        assert!(replicas.is_offline(&tp));
        watcher.await.expect("the watcher ends once every dir failed");
    }

    /// Two log dirs, the metadata log in the first: its failure alone stops the node, as Kafka
    /// halts when the metadata log dir fails; the second dir is still online.
    #[tokio::test]
    async fn the_metadata_log_dir_failing_stops_the_node() {
        let (first, second) = (tempfile::tempdir().expect("temp dir"), tempfile::tempdir().expect("temp dir"));
        let paths = [first.path().to_owned(), second.path().to_owned()];
        // The first partition goes to the first dir (both are empty).
        let (replicas, _) = with_a_failed_sync(&paths);
        let (offline_tx, offline_rx) = watch::channel(Vec::new());
        let fatal = Arc::new(tokio::sync::Notify::new());
        let (a, b) = (Uuid([7; 16]), Uuid([8; 16]));
        let dirs = vec![(paths[0].clone(), Some(a)), (paths[1].clone(), Some(b))];
        let watching = watch_log_dirs_forever(replicas.clone(), dirs, paths[0].clone(), offline_tx, fatal.clone());
        let watcher = tokio::spawn(watching);
        tokio::time::timeout(Duration::from_secs(10), fatal.notified()).await.expect("asked to stop");
        assert_eq!(*offline_rx.borrow(), [a]);
        watcher.await.expect("the watcher ends");
    }
}
