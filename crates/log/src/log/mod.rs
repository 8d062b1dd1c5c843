//! One partition's log: an ordered set of segments, the last one active.
//!
//! Offsets: the **log start offset** (the first offset still readable), the **log end offset**
//! (the next offset to assign), and the **recovery point** (everything below it is on stable
//! storage). Appends assign offsets in place in the producer's bytes and write them unchanged;
//! reads return ranges of segment files.
//!
//! Flushing is grouped: appends never sync on their own (unless `flush.messages`/`flush.ms` say
//! so); [`Log::flush_to`] syncs once for everything appended so far and advances the recovery
//! point, so every waiter whose offset is now below it returns without another sync. The caller
//! decides when to call it (on `acks=all`, by the durability promise). A flush can also be taken
//! apart so the log's lock is not held while the files sync ([`Log::begin_flush`],
//! [`LogFlush::sync`], [`Log::complete_flush`]; `manager::flush_unlocked` runs the three): appends
//! go on meanwhile, and the next flush covers them all at once.
//!
//! The `impl Log` is spread over one file per concern:
//! - `mod.rs`: the [`Log`] itself, opening and recovery, closing, accessors, the segment files
//!   found on open.
//! - `batch.rs`: [`ValidatedBatch`] (what a leader append takes), [`BatchProducer`],
//!   [`AppendInfo`].
//! - `append.rs`: appends as leader and follower, the transactions an append ends (the
//!   transaction index), the producer state's reload and replay, rolling.
//! - `flush.rs`: [`LogFlush`], [`SyncedFlush`] and flushing (group commit, after a roll, by time).
//! - `read.rs`: reads, timestamp lookups, aborted transactions, the first unstable offset.
//! - `truncate.rs`: truncation, the log start offset, epoch start offsets, retention.
//! - `delayed.rs`: delayed delivery: the index kept as batches are appended, its rebuild, and
//!   the leader's delivery of due records.
//! - `cleaning.rs`: the log cleaner's hooks (its pass registration, first dirty offset, the
//!   crash-safe segment swap).

mod append;
mod batch;
mod cleaning;
mod delayed;
mod flush;
mod read;
mod truncate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strand_base::{Clock, Offset, Uuid};

use self::append::replay_batch;
use crate::cleaner::CleaningAbort;
use crate::config::LogConfig;
use crate::dir::PartitionMetadata;
use crate::epoch_cache::LeaderEpochCache;
use crate::file::DirHealth;
use crate::producer_state::ProducerStateManager;
use crate::segment::Segment;
use crate::{LogError, Result};

pub use batch::{AppendInfo, BatchProducer, ValidatedBatch};
pub use delayed::{DELIVERY_BYTES_MAX, DELIVERY_RECORDS_MAX, Delivery};
pub use flush::{LogFlush, SyncedFlush};

/// Where the log stood when it was last closed, from the directory's checkpoint files.
#[derive(Debug, Clone, Copy, Default)]
pub struct LogCheckpoints {
    pub recovery_point: Offset,
    pub log_start_offset: Offset,
    /// Whether the directory holds Kafka's clean-shutdown marker.
    pub clean_shutdown: bool,
}

#[derive(Debug)]
pub struct Log {
    dir: PathBuf,
    config: LogConfig,
    clock: Arc<dyn Clock>,
    segments: BTreeMap<Offset, Segment>,
    epoch_cache: LeaderEpochCache,
    producer_state: ProducerStateManager,
    log_start_offset: Offset,
    recovery_point: Offset,
    unflushed_records: i64,
    first_unflushed_ms: Option<i64>,
    /// Counts truncations and segment replacements: a [`LogFlush`] begun before one does not
    /// advance the recovery point (the offsets it covered may hold other bytes now).
    rewrites: u64,
    /// Flushes through `manager::flush_unlocked` take turns on it, so a waiter that comes second
    /// finds its offset covered by the first one's sync instead of syncing again.
    flush_turn: Arc<std::sync::Mutex<()>>,
    /// Where the log cleaner's next pass starts (Kafka's `cleaner-offset-checkpoint` entry);
    /// `None` until a first pass or a checkpoint sets it.
    first_dirty_offset: Option<Offset>,
    /// The earliest delete horizon the cleaner's last pass wrote (in memory only).
    cleaner_delete_horizon_ms: Option<i64>,
    /// The cleaner's pass under way over this log, if any (it runs without the log's lock): the
    /// log aborts it when it truncates, deletes segments, or is closed or deleted.
    cleaning: Option<Arc<CleaningAbort>>,
    /// A roll's new base offset, once a roll closed a segment it did not sync: the owner syncs
    /// up to it away from the lock ([`Log::take_roll_flush`]).
    roll_flush: Option<Offset>,
    /// Counts changes to the partition directory's entries (segments created): a flush syncs the
    /// directory too while `dir_synced` is behind it, so an acknowledged batch in a new segment
    /// cannot vanish with the segment's directory entry at a power cut (Kafka's `LocalLog.flush`
    /// syncs the directory after a roll the same way).
    dir_generation: u64,
    dir_synced: u64,
    /// The epoch cache's unsynced writes a flush has synced the directory after
    /// ([`LeaderEpochCache::unsynced_writes`]).
    epoch_writes_synced: u64,
    /// Whether the log dir's entry for this partition directory, created by [`Log::open`], is not
    /// yet known durable: the first flush syncs the log dir too, so many partitions created at
    /// once cost no log-dir sync each, and none acknowledges a batch before its directory is
    /// durable.
    parent_entry_unsynced: bool,
    /// The topic id for `partition.metadata`, while the file is not written: it is written with
    /// the first batch ([`Log::defer_partition_metadata`]).
    partition_metadata: Option<Uuid>,
    /// The log directory's health, shared with the other logs in it ([`Log::set_dir_health`]).
    health: Arc<DirHealth>,
    /// Delayed delivery's records not delivered yet ([`crate::delayed`]).
    delayed: crate::delayed::DelayedIndex,
}

impl Log {
    /// Opens the log in `dir` (created if missing). After an unclean shutdown, every segment from
    /// the one holding the recovery point on is scanned, CRC-checked and truncated at the first
    /// invalid batch, and later segments are removed; after a clean one the indexes are trusted.
    ///
    /// A directory it creates holds nothing to load, so it reads nothing there (no listing, no
    /// checkpoint), and neither it nor the log dir holding it is synced now: the first flush
    /// syncs both (design §6: the directory is durable before anything in it is acknowledged).
    /// Creating thousands of partitions at once then costs a `mkdir` and each new file's
    /// `openat` per partition, not a sync of the log dir each.
    pub fn open(dir: &Path, config: LogConfig, checkpoints: LogCheckpoints, clock: Arc<dyn Clock>) -> Result<Log> {
        let created = create_partition_dir(dir)?;
        let now = clock.now_ms();
        let mut segments = BTreeMap::new();
        if !created {
            crate::cleaner::swap::complete_interrupted_swaps(dir)?;
            for base in segment_base_offsets(dir)? {
                segments.insert(base, Segment::open(dir, base, &config, now)?);
            }
        }
        let producer_config = config.producer_state;
        let (epoch_cache, producer_state, delayed) = if created {
            (LeaderEpochCache::empty(dir), ProducerStateManager::empty(dir, producer_config), Default::default())
        } else {
            (
                LeaderEpochCache::open(dir)?,
                ProducerStateManager::open(dir, producer_config)?,
                crate::delayed::DelayedIndex::open(dir)?,
            )
        };
        let mut log = Log {
            dir: dir.to_owned(),
            config,
            clock,
            segments,
            epoch_cache,
            producer_state,
            log_start_offset: checkpoints.log_start_offset,
            recovery_point: checkpoints.recovery_point,
            unflushed_records: 0,
            first_unflushed_ms: None,
            rewrites: 0,
            flush_turn: Arc::default(),
            first_dirty_offset: None,
            cleaner_delete_horizon_ms: None,
            cleaning: None,
            roll_flush: None,
            dir_generation: 0,
            dir_synced: 0,
            epoch_writes_synced: 0,
            parent_entry_unsynced: created,
            partition_metadata: None,
            health: Arc::default(),
            delayed,
        };
        // The latest snapshot found, before recovery's reloads delete any.
        let latest_snapshot = log.producer_state.latest_snapshot_offset();
        if !checkpoints.clean_shutdown && !created {
            log.recover_from(checkpoints.recovery_point)?;
        }
        if !checkpoints.clean_shutdown
            && !created
            && let Some(gap) = log.first_gap()
        {
            // A segment's tail lost while a later segment was kept: the producer snapshots past
            // the gap may hold the lost batches' producers. Their deletion (by recovery's
            // reloads, or here) is made durable at once, as a truncation is: a start after a
            // clean shutdown looks for no gap, and would load one that came back.
            log.producer_state.delete_snapshots_after(gap)?;
            if latest_snapshot.is_some_and(|offset| offset > gap) {
                let dir = log.dir.clone();
                log.sync_truncation(|_| crate::file::sync_dir(&dir).map_err(|e| LogError::io(&dir, e)))?;
            }
        }
        if !log.segments.is_empty() && log.log_end_offset() < checkpoints.log_start_offset {
            // A power cut took records up to and past the log start offset (none acknowledged,
            // all deleted): start over there, as Kafka's `LogLoader` does, rather than reuse
            // offsets below it, which the checkpointed log start offset would hide again.
            log.truncate_fully_and_start_at(checkpoints.log_start_offset)?;
        }
        if log.segments.is_empty() {
            let base = log.log_start_offset;
            let segment = if created {
                Segment::create_in_new_dir(dir, base, &log.config, now)?
            } else {
                Segment::create(dir, base, &log.config, now)?
            };
            log.segments.insert(base, segment);
            log.dir_generation += 1;
        }
        let first = log.segments.keys().next().copied().unwrap_or_default();
        log.log_start_offset = log.log_start_offset.max(first).min(log.log_end_offset());
        log.recovery_point = log.recovery_point.min(log.log_end_offset());
        let end = log.log_end_offset();
        if log.epoch_cache.truncate_from_end(end) {
            log.epoch_cache.flush()?;
        }
        log.reload_producer_state(end)?;
        log.rebuild_delayed()?;
        Ok(log)
    }

    /// Scans the segments from the one holding the recovery point, rebuilding their indexes,
    /// the leader epochs and the producer state (and with it the transaction index) from the
    /// batches themselves.
    fn recover_from(&mut self, recovery_point: Offset) -> Result<()> {
        let from = self.segments.range(..=recovery_point).next_back().map(|(b, _)| *b).unwrap_or(Offset::MIN);
        let bases: Vec<Offset> = self.segments.range(from..).map(|(b, _)| *b).collect();
        for (i, base) in bases.iter().enumerate() {
            self.reload_producer_state(*base)?;
            let Some(segment) = self.segments.get_mut(base) else { continue };
            let (epochs, producers) = (&mut self.epoch_cache, &mut self.producer_state);
            let cut = segment.recover(|batch| {
                // The producer state first: it refuses a batch before changing anything.
                let aborted = replay_batch(producers, batch)?;
                if batch.partition_leader_epoch() >= 0 {
                    epochs.assign(batch.partition_leader_epoch(), batch.base_offset())?;
                }
                Ok(aborted)
            })?;
            if cut > 0 {
                // Everything after a torn batch is unreachable: drop the later segments, and make
                // the cut durable at once, as a truncation does.
                for later in &bases[i + 1..] {
                    if let Some(segment) = self.segments.remove(later) {
                        segment.delete()?;
                    }
                }
                let base = *base;
                self.sync_truncation(|log| log.segments.get(&base).map_or(Ok(()), Segment::flush))?;
                let dir = self.dir.clone();
                self.sync_truncation(|_| crate::file::sync_dir(&dir).map_err(|e| LogError::io(&dir, e)))?;
                break;
            }
        }
        Ok(())
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the first segment that ends before the next one begins ends, if any (a power cut
    /// took its tail, or the cleaner its last records).
    fn first_gap(&self) -> Option<Offset> {
        let mut segments = self.segments.values().peekable();
        while let Some(segment) = segments.next() {
            if let Some(next) = segments.peek()
                && segment.next_offset() < next.base_offset()
            {
                return Some(segment.next_offset());
            }
        }
        None
    }

    /// Shares the health of the log directory this log lives in, so one failed sync takes every
    /// log of the directory offline.
    pub fn set_dir_health(&mut self, health: Arc<DirHealth>) {
        self.health = health;
    }

    /// Has `partition.metadata` name `topic_id`, written before the first batch is appended
    /// (its directory synced by the flush that acknowledges it), not now: hosting thousands of
    /// new partitions writes none, as Kafka writes it from a scheduled task. Nor does a close
    /// (thousands of synced writes held a clean stop past 30 s): a log loaded without the file
    /// is given its topic id again when hosted ([`Log::defer_partition_metadata_if_missing`]).
    pub fn defer_partition_metadata(&mut self, topic_id: Uuid) {
        self.partition_metadata = Some(topic_id);
    }

    /// [`Log::defer_partition_metadata`] for a log loaded from disk without the file (closed
    /// before its first batch).
    pub fn defer_partition_metadata_if_missing(&mut self, topic_id: Uuid) {
        if self.partition_metadata.is_none() && !PartitionMetadata::path(&self.dir).exists() {
            self.partition_metadata = Some(topic_id);
        }
    }

    /// The topic id `partition.metadata` is to name, while it is not written yet.
    pub fn pending_partition_metadata(&self) -> Option<Uuid> {
        self.partition_metadata
    }

    /// Writes the deferred `partition.metadata`, if any; the next flush syncs the directory.
    fn write_partition_metadata(&mut self) -> Result<()> {
        if let Some(topic_id) = self.partition_metadata.take() {
            PartitionMetadata::new(topic_id).write_replacing(&self.dir)?;
            self.dir_generation += 1;
        }
        Ok(())
    }

    /// An error if the log's directory is offline.
    pub fn check_online(&self) -> Result<()> {
        self.health.check(&self.dir)
    }

    pub fn config(&self) -> &LogConfig {
        &self.config
    }

    /// Applies changed topic configs (AlterConfigs): they govern the next roll and flush.
    pub fn set_config(&mut self, config: LogConfig) {
        self.producer_state.set_config(config.producer_state);
        self.config = config;
    }

    /// Forgets the producers idle for `producer.id.expiration.ms` without an open transaction
    /// (Kafka's periodic `removeExpiredProducers`); the next snapshot leaves them out too.
    pub fn remove_expired_producers(&mut self) {
        let now = self.clock.now_ms();
        self.producer_state.remove_expired_producers(now);
    }

    /// The next offset to be assigned.
    pub fn log_end_offset(&self) -> Offset {
        self.active().map(Segment::next_offset).unwrap_or(self.log_start_offset)
    }

    pub fn log_start_offset(&self) -> Offset {
        self.log_start_offset
    }

    /// Everything below this offset is on stable storage.
    pub fn recovery_point(&self) -> Offset {
        self.recovery_point
    }

    pub fn segment_count(&self) -> usize {
        self.segments.len()
    }

    /// The bytes of every segment's `.log` (Kafka's `Log.size`): what `retention.bytes` limits.
    pub fn size(&self) -> u64 {
        self.segments.values().map(Segment::size).sum()
    }

    /// The segments' base offsets, oldest first.
    pub fn segment_base_offsets(&self) -> Vec<Offset> {
        self.segments.keys().copied().collect()
    }

    fn active(&self) -> Option<&Segment> {
        self.segments.values().next_back()
    }

    /// Every segment by base offset, the active one last (for the log cleaner).
    pub(crate) fn segments(&self) -> &BTreeMap<Offset, Segment> {
        &self.segments
    }

    pub(crate) fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// The producer state, for the broker's transaction verification and DescribeProducers.
    pub fn producer_state(&self) -> &ProducerStateManager {
        &self.producer_state
    }

    pub fn producer_state_mut(&mut self) -> &mut ProducerStateManager {
        &mut self.producer_state
    }

    /// The leader epochs and where each began.
    pub fn epoch_cache(&self) -> &LeaderEpochCache {
        &self.epoch_cache
    }

    /// A clean close: everything synced, indexes trimmed, a cleaner pass under way aborted. The
    /// caller then writes the checkpoints and the clean-shutdown marker.
    pub fn close(&mut self) -> Result<()> {
        self.abort_cleaning();
        self.flush_to(self.log_end_offset())?;
        if let Some(active) = self.segments.values_mut().next_back() {
            active.close()?;
        }
        self.producer_state.take_snapshot()?;
        // An empty log's entry left unwritten stays so: becoming leader again assigns it.
        if self.log_end_offset() == self.log_start_offset { Ok(()) } else { self.epoch_cache.flush() }
    }
}

/// Creates the partition directory `dir` (and its parents, in tests that name a fresh path)
/// unless it exists; whether it did. One `mkdir` in the common cases.
fn create_partition_dir(dir: &Path) -> Result<bool> {
    match std::fs::create_dir(dir) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(dir).map_err(|e| LogError::io(dir, e))?;
            Ok(true)
        }
        Err(e) => Err(LogError::io(dir, e)),
    }
}

/// The base offsets of the `.log` files in `dir`, ascending. Leftovers of interrupted deletions
/// (`.deleted` files, and indexes whose `.log` is gone) and of atomic writes (`.tmp`) are removed.
fn segment_base_offsets(dir: &Path) -> Result<Vec<Offset>> {
    let mut bases = Vec::new();
    let mut indexes = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| LogError::io(dir, e))? {
        let path = entry.map_err(|e| LogError::io(dir, e))?.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
        if name.ends_with(".deleted") || name.ends_with(".tmp") {
            std::fs::remove_file(&path).map_err(|e| LogError::io(&path, e))?;
        } else if let Some(base) = name.strip_suffix(".log").and_then(|b| b.parse::<Offset>().ok()) {
            bases.push(base);
        } else if let Some((base, _)) = name.split_once('.').filter(|(_, ext)| INDEX_EXTENSIONS.contains(ext))
            && let Ok(base) = base.parse::<Offset>()
        {
            indexes.push((base, path));
        }
    }
    bases.sort_unstable();
    for (base, path) in indexes {
        if bases.binary_search(&base).is_err() {
            std::fs::remove_file(&path).map_err(|e| LogError::io(&path, e))?;
        }
    }
    Ok(bases)
}

/// The files a segment has beside its `.log`.
const INDEX_EXTENSIONS: [&str; 3] = ["index", "timeindex", "txnindex"];
