//! The logs of every partition in a node's log directories (`log.dirs`), and the per-directory
//! files Kafka keeps beside them: `meta.properties`, `recovery-point-offset-checkpoint`,
//! `log-start-offset-checkpoint`, `cleaner-offset-checkpoint`, `replication-offset-checkpoint`
//! and the `.kafka_cleanshutdown` marker.
//!
//! `replication-offset-checkpoint` holds offsets the replication layer computes (each partition's
//! high watermark): the manager only stores them in the directory of each partition's log and
//! reads them back, knowing nothing of what they mean.
//!
//! Startup: each directory is checked against the node's identity (a directory formatted for
//! another cluster or node is refused), the clean-shutdown marker is read and removed (so a crash
//! from here on is seen as unclean), and every `<topic>-<partition>` directory is opened as a
//! [`Log`] with its checkpointed recovery point and log start offset. A directory that cannot be
//! read or loaded (a failed disk, a file where the directory should be, a partition it cannot
//! open) is offline from the start, as Kafka's `LogManager` marks it, and the others load: the
//! caller decides whether the node can run without it. Shutdown: every log of the online
//! directories closed, their checkpoints written, then their markers; an offline directory gets
//! nothing written (its next start recovers it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use strand_base::topic::CLUSTER_METADATA_TOPIC;
use strand_base::{Clock, Offset, TopicPartition, Uuid};

use crate::checkpoint::{
    CLEANER_OFFSET_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE, OffsetCheckpointFile,
    RECOVERY_POINT_CHECKPOINT_FILE, REPLICATION_OFFSET_CHECKPOINT_FILE,
};
use crate::dir::{self, MetaProperties};
use crate::file::{FileSystemSpace, file_system_space};
use crate::log::{Log, LogCheckpoints};
use crate::{LogConfig, LogError, Result};

/// Who this node is: every log directory must belong to this cluster and node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeIdentity {
    pub cluster_id: String,
    pub node_id: i32,
}

#[derive(Debug)]
pub(crate) struct LogDir {
    pub(crate) path: PathBuf,
    /// Whether the directory held the clean-shutdown marker at startup.
    was_clean: bool,
    /// Shared with every log in it: one failed sync takes them all offline.
    pub(crate) health: Arc<crate::file::DirHealth>,
}

/// One log directory and the partition logs in it, each with its size in bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogDirContents {
    pub path: PathBuf,
    pub partitions: Vec<(TopicPartition, u64)>,
    /// The future logs in the directory (replicas moving here, AlterReplicaLogDirs): each with
    /// its size in bytes and how far its end is behind the current log's.
    pub futures: Vec<(TopicPartition, u64, i64)>,
    /// The space of the file system holding the directory, or why it could not be read.
    pub space: std::result::Result<FileSystemSpace, String>,
}

/// A partition's log, shared between the request handlers that append to and read from it;
/// the mutex is the partition's append lock.
pub type SharedLog = Arc<Mutex<Log>>;

/// Every partition log of the node, by topic-partition.
#[derive(Debug)]
pub struct LogManager {
    pub(crate) dirs: Vec<LogDir>,
    pub(crate) logs: BTreeMap<TopicPartition, (usize, SharedLog)>,
    /// The future log of each partition moving to another directory (`crate::future_log`), by
    /// the index of the directory it is in.
    pub(crate) futures: BTreeMap<TopicPartition, (usize, SharedLog)>,
    /// Where to create the log of a partition not hosted yet that AlterReplicaLogDirs named
    /// (Kafka's `preferredLogDirs`), at most `crate::future_log::PREFERRED_DIRS_MAX`.
    pub(crate) preferred_dirs: BTreeMap<TopicPartition, usize>,
    pub(crate) default_config: LogConfig,
    pub(crate) clock: Arc<dyn Clock>,
}

impl LogManager {
    /// Opens (formatting where empty) every directory of `log_dirs` and the logs inside them.
    pub fn open(
        log_dirs: &[PathBuf],
        identity: &NodeIdentity,
        default_config: LogConfig,
        clock: Arc<dyn Clock>,
    ) -> Result<LogManager> {
        crate::future_log::finish_interrupted_swaps(log_dirs);
        let mut manager = LogManager {
            dirs: Vec::new(),
            logs: BTreeMap::new(),
            futures: BTreeMap::new(),
            preferred_dirs: BTreeMap::new(),
            default_config,
            clock,
        };
        for path in log_dirs {
            let index = manager.dirs.len();
            manager.dirs.push(LogDir { path: path.clone(), was_clean: false, health: Arc::default() });
            let loaded = match prepare_dir(path, identity) {
                // Another cluster's or node's directory is an operator's mistake, not a disk's.
                Err(e @ LogError::Invalid(_)) => return Err(e),
                Err(e) => Err(e),
                Ok(was_clean) => {
                    manager.dirs[index].was_clean = was_clean;
                    manager.load_dir(index)
                }
            };
            if let Err(e) = loaded {
                manager.logs.retain(|_, (i, _)| *i != index);
                manager.futures.retain(|_, (i, _)| *i != index);
                manager.dirs[index].health.fail(&format!("cannot load log dir {}: {e}", path.display()));
            }
        }
        Ok(manager)
    }

    fn load_dir(&mut self, index: usize) -> Result<()> {
        let dir = &self.dirs[index];
        let recovery_points = OffsetCheckpointFile::new(dir.path.join(RECOVERY_POINT_CHECKPOINT_FILE)).read()?;
        let start_offsets = OffsetCheckpointFile::new(dir.path.join(LOG_START_OFFSET_CHECKPOINT_FILE)).read()?;
        let dirty_offsets = OffsetCheckpointFile::new(dir.path.join(CLEANER_OFFSET_CHECKPOINT_FILE)).read()?;
        let entries = std::fs::read_dir(&dir.path).map_err(|e| LogError::io(&dir.path, e))?;
        let mut found = Vec::new();
        for entry in entries {
            let path = entry.map_err(|e| LogError::io(&dir.path, e))?.path();
            if !path.is_dir() {
                continue;
            }
            if let Some(tp) = parse_partition_dir(&path) {
                // The metadata log belongs to the controller quorum, which opens it itself.
                if tp.topic != CLUSTER_METADATA_TOPIC {
                    found.push((tp, path, false));
                }
            } else if let Some(tp) = crate::future_log::parse_future_dir(&path) {
                found.push((tp, path, true));
            }
        }
        for (tp, path, future) in found {
            let checkpoints = LogCheckpoints {
                recovery_point: recovery_points.get(&tp).copied().unwrap_or(0),
                log_start_offset: start_offsets.get(&tp).copied().unwrap_or(0),
                clean_shutdown: self.dirs[index].was_clean,
            };
            let mut log = Log::open(&path, self.default_config.clone(), checkpoints, self.clock.clone())?;
            log.set_dir_health(Arc::clone(&self.dirs[index].health));
            if let Some(offset) = dirty_offsets.get(&tp).filter(|_| !future) {
                log.set_first_dirty_offset(*offset);
            }
            let logs = if future { &mut self.futures } else { &mut self.logs };
            if let Some((other, _)) = logs.insert(tp.clone(), (index, Arc::new(Mutex::new(log)))) {
                return Err(LogError::Invalid(format!(
                    "{tp} has a {}log in both {} and {}: delete one of them",
                    if future { "future " } else { "" },
                    self.dirs[other].path.display(),
                    self.dirs[index].path.display()
                )));
            }
        }
        Ok(())
    }

    /// The log directories a failed sync took offline (KIP-858 reports them to the controller).
    pub fn offline_dirs(&self) -> Vec<PathBuf> {
        self.dirs.iter().filter(|d| d.health.is_offline()).map(|d| d.path.clone()).collect()
    }

    /// Each log dir with its health, which its owner can read without this manager (and its
    /// lock, held while partitions are created) from then on.
    pub fn dir_healths(&self) -> Vec<(PathBuf, Arc<crate::file::DirHealth>)> {
        self.dirs.iter().map(|d| (d.path.clone(), Arc::clone(&d.health))).collect()
    }

    /// The log of `tp`, if this node has one.
    pub fn get(&self, tp: &TopicPartition) -> Option<SharedLog> {
        self.logs.get(tp).map(|(_, log)| Arc::clone(log))
    }

    /// The directory holding each partition's (current) log, without locking the logs.
    pub fn log_dir_paths(&self) -> BTreeMap<TopicPartition, PathBuf> {
        self.logs.iter().map(|(tp, (index, _))| (tp.clone(), self.dirs[*index].path.clone())).collect()
    }

    /// The partitions with a log here.
    pub fn partitions(&self) -> impl Iterator<Item = &TopicPartition> {
        self.logs.keys()
    }

    /// Each log directory, in `log.dirs` order, with the partitions whose logs it holds, each
    /// log's size in bytes, and its file system's space (what DescribeLogDirs reports).
    pub fn dir_contents(&self) -> Result<Vec<LogDirContents>> {
        let mut dirs: Vec<LogDirContents> = self
            .dirs
            .iter()
            .map(|d| LogDirContents {
                path: d.path.clone(),
                partitions: Vec::new(),
                futures: Vec::new(),
                space: file_system_space(&d.path).map_err(|e| format!("{}: {e}", d.path.display())),
            })
            .collect();
        for (tp, (index, log)) in &self.logs {
            let size = lock(log)?.size();
            if let Some(dir) = dirs.get_mut(*index) {
                dir.partitions.push((tp.clone(), size));
            }
        }
        for (tp, (index, future)) in &self.futures {
            let (size, end) = {
                let future = lock(future)?;
                (future.size(), future.log_end_offset())
            };
            let current_end = self.get(tp).map(|log| lock(&log).map(|l| l.log_end_offset())).transpose()?;
            if let Some(dir) = dirs.get_mut(*index) {
                dir.futures.push((tp.clone(), size, current_end.map_or(0, |c| (c - end).max(0))));
            }
        }
        Ok(dirs)
    }

    /// Creates (or returns) the log of `tp`, in the directory AlterReplicaLogDirs asked for if it
    /// is online, else the one holding the fewest logs, with its `partition.metadata` naming the
    /// topic id.
    pub fn get_or_create(&mut self, tp: &TopicPartition, topic_id: Uuid, config: LogConfig) -> Result<SharedLog> {
        if let Some(log) = self.get(tp) {
            return Ok(log);
        }
        let preferred = self.preferred_dirs.remove(tp).filter(|&i| !self.is_dir_offline(i));
        let index = preferred.unwrap_or_else(|| self.least_loaded_dir());
        let path = self.dirs[index].path.join(tp.to_string());
        let checkpoints = LogCheckpoints { clean_shutdown: true, ..Default::default() };
        self.dirs[index].health.check(&self.dirs[index].path)?;
        let mut log = Log::open(&path, config, checkpoints, self.clock.clone())?;
        log.set_dir_health(Arc::clone(&self.dirs[index].health));
        log.defer_partition_metadata(topic_id);
        let log = Arc::new(Mutex::new(log));
        self.logs.insert(tp.clone(), (index, Arc::clone(&log)));
        Ok(log)
    }

    /// Removes the log of `tp` and deletes its directory (DeleteTopics).
    pub fn delete(&mut self, tp: &TopicPartition) -> Result<()> {
        self.remove_future(tp)?;
        let Some((_, log)) = self.logs.remove(tp) else { return Ok(()) };
        let dir = {
            let mut log = lock(&log)?;
            // A cleaner pass over it makes no file in the directory from here on.
            log.abort_cleaning();
            log.dir().to_owned()
        };
        std::fs::remove_dir_all(&dir).map_err(|e| LogError::io(&dir, e))
    }

    fn least_loaded_dir(&self) -> usize {
        let mut counts = vec![0usize; self.dirs.len()];
        for (index, _) in self.logs.values() {
            counts[*index] += 1;
        }
        // An offline directory takes no new partitions (while one is online).
        let online = |i: &usize| !self.dirs[*i].health.is_offline();
        let candidates = (0..counts.len()).filter(online);
        candidates.min_by_key(|&i| counts[i]).unwrap_or(0)
    }

    /// The online directories with their index.
    fn online_dirs(&self) -> impl Iterator<Item = (usize, &LogDir)> {
        self.dirs.iter().enumerate().filter(|(_, d)| !d.health.is_offline())
    }

    /// Writes every online directory's recovery-point, log-start-offset and cleaner-offset
    /// checkpoints (the last for the logs the cleaner has passed over).
    pub fn checkpoint(&self) -> Result<()> {
        for (index, dir) in self.online_dirs() {
            let mut recovery_points = BTreeMap::new();
            let mut start_offsets = BTreeMap::new();
            let mut dirty_offsets = BTreeMap::new();
            // A future log is never in its current log's directory: the keys do not collide.
            let in_dir = self.logs.iter().chain(&self.futures).filter(|(_, (i, _))| *i == index);
            for (tp, (_, log)) in in_dir {
                let log = lock(log)?;
                recovery_points.insert(tp.clone(), log.recovery_point());
                start_offsets.insert(tp.clone(), log.log_start_offset());
                if let Some(offset) = log.first_dirty_offset() {
                    dirty_offsets.insert(tp.clone(), offset);
                }
            }
            OffsetCheckpointFile::new(dir.path.join(RECOVERY_POINT_CHECKPOINT_FILE)).write(&recovery_points)?;
            OffsetCheckpointFile::new(dir.path.join(LOG_START_OFFSET_CHECKPOINT_FILE)).write(&start_offsets)?;
            OffsetCheckpointFile::new(dir.path.join(CLEANER_OFFSET_CHECKPOINT_FILE)).write(&dirty_offsets)?;
        }
        Ok(())
    }

    /// The offsets in every directory's `replication-offset-checkpoint` (the high watermarks the
    /// replication layer last wrote), for the partitions with a log here. A missing file reads as
    /// no entries.
    pub fn read_high_watermarks(&self) -> Result<BTreeMap<TopicPartition, Offset>> {
        let mut offsets = BTreeMap::new();
        for (index, dir) in self.online_dirs() {
            let file = OffsetCheckpointFile::new(dir.path.join(REPLICATION_OFFSET_CHECKPOINT_FILE));
            for (tp, offset) in file.read()? {
                if self.logs.get(&tp).is_some_and(|(i, _)| *i == index) {
                    offsets.insert(tp, offset);
                }
            }
        }
        Ok(offsets)
    }

    /// Rewrites every directory's `replication-offset-checkpoint` with the entries of `offsets`
    /// whose log is in that directory (entries for partitions without a log here are dropped).
    pub fn write_high_watermarks(&self, offsets: &BTreeMap<TopicPartition, Offset>) -> Result<()> {
        for (index, dir) in self.online_dirs() {
            let in_dir: BTreeMap<TopicPartition, Offset> = offsets
                .iter()
                .filter(|(tp, _)| self.logs.get(*tp).is_some_and(|(i, _)| *i == index))
                .map(|(tp, offset)| (tp.clone(), *offset))
                .collect();
            OffsetCheckpointFile::new(dir.path.join(REPLICATION_OFFSET_CHECKPOINT_FILE)).write(&in_dir)?;
        }
        Ok(())
    }

    /// The clock the logs read time from.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// A clean shutdown: every log flushed and closed, the checkpoints written, then the
    /// clean-shutdown marker, so the next start trusts the indexes and skips recovery. An offline
    /// directory gets none of it: what a failed sync left there is recovered at the next start.
    pub fn shutdown(self, broker_epoch: i64) -> Result<()> {
        let online = |index: usize| !self.dirs[index].health.is_offline();
        for (_, log) in self.logs.values().chain(self.futures.values()).filter(|(index, _)| online(*index)) {
            lock(log)?.close()?;
        }
        self.checkpoint()?;
        for (_, dir) in self.online_dirs() {
            dir::write_clean_shutdown(&dir.path, broker_epoch)?;
        }
        Ok(())
    }

    /// The recovery point of each log, for tests and metrics.
    pub fn recovery_points(&self) -> Result<BTreeMap<TopicPartition, Offset>> {
        self.logs.iter().map(|(tp, (_, log))| Ok((tp.clone(), lock(log)?.recovery_point()))).collect()
    }
}

/// Locks a partition's log. A poisoned lock means a handler panicked mid-append: the log's
/// in-memory state can no longer be trusted, so it is an error, not a panic here too.
pub fn lock(log: &SharedLog) -> Result<MutexGuard<'_, Log>> {
    log.lock().map_err(|_| LogError::Invalid("a partition's log lock is poisoned".into()))
}

/// Makes everything below `offset` durable, like [`Log::flush_to`], without holding the log's
/// lock while the files sync: appends go on meanwhile. Flushes of one log take turns, and one
/// that finds `offset` covered by the flush before it returns without syncing, so waiters that
/// pile up during a sync share the next one (group commit). Blocks: call it on a blocking thread.
pub fn flush_unlocked(log: &SharedLog, offset: Offset) -> Result<()> {
    let turn = {
        let log = lock(log)?;
        log.check_online()?;
        log.flush_turn()
    };
    let _turn = turn.lock().map_err(|_| LogError::Invalid("a partition's flush lock is poisoned".into()))?;
    let Some(flush) = lock(log)?.begin_flush(offset) else { return Ok(()) };
    let synced = flush.sync()?;
    lock(log)?.complete_flush(synced);
    Ok(())
}

/// Creates `path` if needed, checks or writes its `meta.properties`, and consumes the
/// clean-shutdown marker. Returns whether the last shutdown was clean.
fn prepare_dir(path: &Path, identity: &NodeIdentity) -> Result<bool> {
    std::fs::create_dir_all(path).map_err(|e| LogError::io(path, e))?;
    match MetaProperties::read(path)? {
        Some(meta) if meta.cluster_id.as_deref() != Some(identity.cluster_id.as_str()) => {
            return Err(LogError::Invalid(format!(
                "{} belongs to cluster {}, not {}: it was formatted for another cluster",
                path.display(),
                meta.cluster_id.as_deref().unwrap_or("(none)"),
                identity.cluster_id
            )));
        }
        Some(meta) if meta.node_id != Some(identity.node_id) => {
            return Err(LogError::Invalid(format!(
                "{} belongs to node {}, not {}",
                path.display(),
                meta.node_id.map_or("(none)".to_owned(), |n| n.to_string()),
                identity.node_id
            )));
        }
        Some(_) => {}
        None => {
            let directory_id = directory_id(path, identity);
            MetaProperties::v1(identity.cluster_id.clone(), identity.node_id, directory_id).write(path)?;
        }
    }
    let was_clean = dir::clean_shutdown_exists(path);
    if was_clean {
        dir::remove_clean_shutdown(path)?;
    }
    Ok(was_clean)
}

/// A directory id for a newly formatted directory. Kafka draws a random one; the log crate takes
/// no randomness, so it is derived from the path and identity here (unique per directory of a
/// node, which is what the id is for). The process shell may write `meta.properties` itself with
/// a random id before opening the manager.
fn directory_id(path: &Path, identity: &NodeIdentity) -> Uuid {
    let text = format!("{}|{}|{}", identity.cluster_id, identity.node_id, path.display());
    let a = crc32c::crc32c(text.as_bytes());
    let b = crc32c::crc32c_append(a, b"strand-directory-id");
    let c = crc32c::crc32c_append(b, text.as_bytes());
    let d = crc32c::crc32c_append(c, b"meta.properties");
    let mut id = [0u8; 16];
    for (chunk, word) in id.chunks_mut(4).zip([a, b, c, d]) {
        chunk.copy_from_slice(&word.to_be_bytes());
    }
    Uuid(id)
}

/// `orders-3` → (orders, 3). Topic names may contain `-`; the partition is after the last one.
pub(crate) fn parse_partition_dir(path: &Path) -> Option<TopicPartition> {
    let name = path.file_name()?.to_str()?;
    let (topic, partition) = name.rsplit_once('-')?;
    let partition = partition.parse::<i32>().ok().filter(|p| *p >= 0)?;
    (!topic.is_empty()).then(|| TopicPartition::new(topic, partition))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Directory names split at the last dash, as Kafka's `Log.parseTopicPartitionName` does.
    #[test]
    fn partition_dirs_parse() {
        let parse = |name: &str| parse_partition_dir(Path::new(name));
        assert_eq!(parse("orders-3"), Some(TopicPartition::new("orders", 3)));
        assert_eq!(parse("my-topic-12"), Some(TopicPartition::new("my-topic", 12)));
        assert_eq!(parse("__consumer_offsets-49"), Some(TopicPartition::new("__consumer_offsets", 49)));
        assert_eq!(parse("orders"), None);
        assert_eq!(parse("-3"), None);
        assert_eq!(parse("orders-x"), None);
    }
}
