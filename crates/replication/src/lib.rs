//! The partitions this node hosts and the rules of their offsets: appends with `acks`, reads
//! bounded by the high watermark (or the last stable offset), and the wake-ups of waiting fetches.
//!
//! Today every partition has an ISR of one (this node), so the high watermark is the log end
//! offset and `acks=all` waits only for the local `fdatasync` (design §6: the leader fsyncs before
//! it acknowledges `acks=all`, unless `log.flush.on.acks.all=false`). Followers, the ISR and the
//! purgatory's `DelayedProduce` arrive with the cluster issue; the API is shaped for them.
//!
//! What it is not: it decodes no requests and knows no metadata records; the broker tells it which
//! partitions to host and at which leader epoch.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use strand_base::{LeaderEpoch, Offset, TopicPartition, Uuid};
use strand_log::cleaner::{CleanStats, Cleaner, CleanerConfig};
use strand_log::log::{AppendInfo, ValidatedBatch};
use strand_log::manager::{SharedLog, lock};
use strand_log::producer_state::AppendContext;
use strand_log::segment::SegmentSlice;
use strand_log::{Log, LogConfig, LogError, LogManager};

/// How many replicas must have a produce before it is acknowledged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acks {
    /// `acks=0`: no response at all.
    None,
    /// `acks=1`: the leader has it (in its page cache).
    Leader,
    /// `acks=all` (-1): every ISR member has it on stable storage.
    All,
}

impl Acks {
    /// Kafka's wire values; anything else is INVALID_REQUIRED_ACKS.
    pub fn from_wire(acks: i16) -> Option<Acks> {
        match acks {
            0 => Some(Acks::None),
            1 => Some(Acks::Leader),
            -1 => Some(Acks::All),
            _ => None,
        }
    }
}

/// Whether a consumer may see uncommitted transactional records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    ReadUncommitted,
    ReadCommitted,
}

#[derive(Debug, thiserror::Error)]
pub enum ReplicaError {
    #[error("this node hosts no replica of {0}")]
    UnknownPartition(TopicPartition),
    #[error(transparent)]
    Log(#[from] LogError),
}

/// What a read returned for one partition.
#[derive(Debug, Clone)]
pub struct PartitionRead {
    /// Whole batches (the last one possibly cut by the size limit), as stored: where they lie in a
    /// segment file, for the connection to send from the file. `None`: nothing to read.
    pub records: Option<SegmentSlice>,
    pub high_watermark: Offset,
    pub last_stable_offset: Offset,
    pub log_start_offset: Offset,
    /// Aborted transactions overlapping the read (read_committed only).
    pub aborted: Vec<strand_log::index::AbortedTxn>,
}

impl PartitionRead {
    /// The bytes read.
    pub fn len(&self) -> u64 {
        self.records.as_ref().map_or(0, |slice| slice.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What one maintenance pass (retention, compaction) did.
#[derive(Debug)]
pub struct PassReport<T> {
    /// The partitions the pass changed, with what it did to each.
    pub changed: Vec<(TopicPartition, T)>,
    /// Partitions where the pass failed, and why.
    pub failed: Vec<(TopicPartition, ReplicaError)>,
    /// Why the checkpoints could not be written after the changes, if they could not.
    pub checkpoint_failed: Option<ReplicaError>,
}

/// The offsets a ListOffsets answers from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionOffsets {
    pub log_start_offset: Offset,
    pub high_watermark: Offset,
    pub last_stable_offset: Offset,
}

/// The replicas this node hosts.
#[derive(Debug)]
pub struct ReplicaManager {
    logs: Mutex<LogManager>,
    partitions: RwLock<BTreeMap<TopicPartition, SharedLog>>,
    /// Bumped after every append, so waiting fetches re-check.
    appended: tokio::sync::watch::Sender<u64>,
    flush_on_acks_all: bool,
}

impl ReplicaManager {
    pub fn new(logs: LogManager, flush_on_acks_all: bool) -> Self {
        let partitions = logs.partitions().filter_map(|tp| Some((tp.clone(), logs.get(tp)?))).collect();
        ReplicaManager {
            logs: Mutex::new(logs),
            partitions: RwLock::new(partitions),
            appended: tokio::sync::watch::Sender::new(0),
            flush_on_acks_all,
        }
    }

    /// Hosts `tp` (creating its log if needed), as metadata says this node leads it, with the
    /// topic's current log settings.
    pub fn ensure_partition(&self, tp: &TopicPartition, topic_id: Uuid, config: LogConfig) -> Result<(), ReplicaError> {
        if let Ok(log) = self.log(tp) {
            let mut log = lock(&log)?;
            if *log.config() != config {
                log.set_config(config);
            }
            return Ok(());
        }
        let log = self.with_logs(|logs| logs.get_or_create(tp, topic_id, config))?;
        self.write_partitions().insert(tp.clone(), log);
        Ok(())
    }

    /// Stops hosting `tp` and deletes its log (the topic was deleted).
    pub fn delete_partition(&self, tp: &TopicPartition) -> Result<(), ReplicaError> {
        self.write_partitions().remove(tp);
        self.with_logs(|logs| logs.delete(tp))?;
        Ok(())
    }

    /// The partitions hosted here.
    pub fn hosted(&self) -> Vec<TopicPartition> {
        self.read_partitions().keys().cloned().collect()
    }

    fn log(&self, tp: &TopicPartition) -> Result<SharedLog, ReplicaError> {
        self.read_partitions().get(tp).cloned().ok_or_else(|| ReplicaError::UnknownPartition(tp.clone()))
    }

    fn read_partitions(&self) -> std::sync::RwLockReadGuard<'_, BTreeMap<TopicPartition, SharedLog>> {
        self.partitions.read().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn write_partitions(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<TopicPartition, SharedLog>> {
        self.partitions.write().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn with_logs<T>(&self, f: impl FnOnce(&mut LogManager) -> Result<T, LogError>) -> Result<T, ReplicaError> {
        let mut logs = self.logs.lock().map_err(|_| LogError::Invalid("the log manager's lock is poisoned".into()))?;
        Ok(f(&mut logs)?)
    }

    /// Appends a validated batch as leader. With `acks=all` it returns once the batch is on stable
    /// storage (one `fdatasync` may cover other appends too: group commit).
    pub fn append(
        &self,
        tp: &TopicPartition,
        batch: ValidatedBatch,
        leader_epoch: LeaderEpoch,
        acks: Acks,
        context: AppendContext,
    ) -> Result<(AppendInfo, Offset), ReplicaError> {
        let log = self.log(tp)?;
        let (info, log_start) = {
            let mut log = lock(&log)?;
            let info = log.append_as_leader(batch, leader_epoch, context)?;
            if acks == Acks::All && self.flush_on_acks_all {
                log.flush_to(info.last_offset + 1)?;
            }
            (info, log.log_start_offset())
        };
        self.appended.send_modify(|n| *n = n.wrapping_add(1));
        Ok((info, log_start))
    }

    /// Reads from `offset`: up to `max_bytes` (the first batch whole, KIP-74), never past the high
    /// watermark, or the last stable offset under read_committed.
    pub fn read(
        &self,
        tp: &TopicPartition,
        offset: Offset,
        max_bytes: u64,
        isolation: Isolation,
    ) -> Result<PartitionRead, ReplicaError> {
        let log = self.log(tp)?;
        let log = lock(&log)?;
        let offsets = offsets_of(&log);
        let limit = match isolation {
            Isolation::ReadUncommitted => offsets.high_watermark,
            Isolation::ReadCommitted => offsets.last_stable_offset,
        };
        let records = log.read(offset, max_bytes, Some(limit))?.filter(|slice| slice.len > 0);
        let aborted = match isolation {
            Isolation::ReadCommitted if records.is_some() => log.collect_aborted_txns(offset, limit),
            _ => Vec::new(),
        };
        Ok(PartitionRead {
            records,
            high_watermark: offsets.high_watermark,
            last_stable_offset: offsets.last_stable_offset,
            log_start_offset: offsets.log_start_offset,
            aborted,
        })
    }

    pub fn offsets(&self, tp: &TopicPartition) -> Result<PartitionOffsets, ReplicaError> {
        let log = self.log(tp)?;
        let log = lock(&log)?;
        Ok(offsets_of(&log))
    }

    /// The offset after the last record of `tp`'s log, committed or not.
    pub fn log_end_offset(&self, tp: &TopicPartition) -> Result<Offset, ReplicaError> {
        let log = self.log(tp)?;
        let log = lock(&log)?;
        Ok(log.log_end_offset())
    }

    /// The first record at or after `timestamp`, or the largest timestamp (`None` timestamp).
    pub fn offset_for_timestamp(
        &self,
        tp: &TopicPartition,
        timestamp: i64,
    ) -> Result<Option<(i64, Offset)>, ReplicaError> {
        let log = self.log(tp)?;
        let log = lock(&log)?;
        Ok(log.find_offset_by_timestamp(timestamp)?)
    }

    pub fn max_timestamp(&self, tp: &TopicPartition) -> Result<Option<(i64, Offset)>, ReplicaError> {
        let log = self.log(tp)?;
        let log = lock(&log)?;
        Ok(log.max_timestamp())
    }

    /// The leader epoch and its end offset for OffsetForLeaderEpoch.
    pub fn end_offset_for_epoch(
        &self,
        tp: &TopicPartition,
        epoch: LeaderEpoch,
    ) -> Result<(LeaderEpoch, Offset), ReplicaError> {
        let log = self.log(tp)?;
        let log = lock(&log)?;
        Ok(log.epoch_cache().end_offset_for(epoch, log.log_end_offset()))
    }

    /// Applies retention to every hosted partition (each log's own `retention.*` and
    /// `cleanup.policy`), never deleting past a partition's high watermark. Reports, per partition
    /// that lost any, how many segments went.
    pub fn apply_retention(&self) -> PassReport<usize> {
        self.each_log(|log, high_watermark| Ok(Some(log.apply_retention(high_watermark)?).filter(|n| *n > 0)))
    }

    /// Compacts every hosted partition whose `cleanup.policy` includes `compact` and whose dirty
    /// share of the cleanable log is at least `min_dirty_ratio` (`min.cleanable.dirty.ratio`),
    /// never past its high watermark. The cleaner's key map is allocated only if some partition
    /// needs it and freed after the pass, so an idle node holds none of its memory.
    pub fn apply_compaction(&self, config: CleanerConfig, min_dirty_ratio: f64) -> PassReport<CleanStats> {
        let mut cleaner = None;
        self.each_log(|log, high_watermark| {
            if !Cleaner::is_due(log, high_watermark, min_dirty_ratio) {
                return Ok(None);
            }
            cleaner.get_or_insert_with(|| Cleaner::new(config)).clean(log, high_watermark)
        })
    }

    /// A maintenance pass: `step` runs on every hosted log in turn, under its lock, with its high
    /// watermark. A partition that fails is reported and the others go on; if any step changed
    /// something (`Some`), the checkpoints are written so the change survives a crash.
    fn each_log<T>(&self, mut step: impl FnMut(&mut Log, Offset) -> Result<Option<T>, LogError>) -> PassReport<T> {
        let logs: Vec<(TopicPartition, SharedLog)> =
            self.read_partitions().iter().map(|(tp, log)| (tp.clone(), log.clone())).collect();
        let mut report = PassReport { changed: Vec::new(), failed: Vec::new(), checkpoint_failed: None };
        for (tp, log) in logs {
            let result = lock(&log).and_then(|mut log| {
                let high_watermark = offsets_of(&log).high_watermark;
                step(&mut log, high_watermark)
            });
            match result {
                Ok(Some(done)) => report.changed.push((tp, done)),
                Ok(None) => {}
                Err(e) => report.failed.push((tp, e.into())),
            }
        }
        if !report.changed.is_empty()
            && let Err(e) = self.checkpoint()
        {
            report.checkpoint_failed = Some(e);
        }
        report
    }

    /// Waits until something is appended or `timeout` passes; fetches then look again.
    pub async fn wait_for_append(&self, timeout: Duration) {
        let mut appended = self.appended.subscribe();
        let _ = tokio::time::timeout(timeout, appended.changed()).await;
    }

    /// A clean shutdown: flush, checkpoints, clean-shutdown marker.
    pub fn shutdown(self, broker_epoch: i64) -> Result<(), ReplicaError> {
        let logs =
            self.logs.into_inner().map_err(|_| LogError::Invalid("the log manager's lock is poisoned".into()))?;
        drop(self.partitions);
        logs.shutdown(broker_epoch)?;
        Ok(())
    }

    /// Writes the checkpoints (periodically, so a crash recovers from a recent recovery point).
    pub fn checkpoint(&self) -> Result<(), ReplicaError> {
        self.with_logs(|logs| logs.checkpoint())
    }
}

/// With an ISR of one, the high watermark is the log end offset.
fn offsets_of(log: &strand_log::Log) -> PartitionOffsets {
    let high_watermark = log.log_end_offset();
    let last_stable_offset = log.first_unstable_offset().map_or(high_watermark, |first| first.min(high_watermark));
    PartitionOffsets { log_start_offset: log.log_start_offset(), high_watermark, last_stable_offset }
}

/// Shared between the handlers.
pub type SharedReplicaManager = Arc<ReplicaManager>;
