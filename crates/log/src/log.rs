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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::BytesMut;
use strand_base::{Clock, LeaderEpoch, Offset};
use strand_protocol::records::{RecordBatch, RecordBatchMut, TimestampType};

use crate::cleaner::CleaningAbort;
use crate::config::LogConfig;
use crate::epoch_cache::LeaderEpochCache;
use crate::file::{DirHealth, SyncTarget};
use crate::index::AbortedTxn;
use crate::producer_state::{AppendContext, AppendOutcome, ProducerBatch, ProducerStateManager};
use crate::segment::{Segment, SegmentSlice};
use crate::{LogError, Result};

/// A batch that passed the checks every leader append needs (header, length, magic, CRC, a
/// record count of at least one that `lastOffsetDelta` agrees with, and, uncompressed, records'
/// length prefixes that add up to it): the only thing [`Log::append_as_leader`] accepts. What a
/// client's batch must pass beyond that (Kafka's `LogValidator`) is the broker's produce path's.
#[derive(Debug)]
pub struct ValidatedBatch {
    bytes: BytesMut,
    record_count: i32,
    producer: BatchProducer,
}

/// The producer fields of a batch's header, read when it is validated (for the broker's
/// transaction checks before it appends).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchProducer {
    /// -1 for a batch of no idempotent producer.
    pub producer_id: strand_base::ProducerId,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    /// The transactional attribute (data or a marker).
    pub transactional: bool,
    /// The control attribute: a transaction marker or another control record.
    pub control: bool,
}

impl ValidatedBatch {
    /// Checks one batch without decoding its records (their length prefixes only, when it is
    /// uncompressed).
    pub fn validate(bytes: BytesMut) -> Result<ValidatedBatch> {
        // The view shares the buffer; once it is dropped the buffer is unique again and turns back
        // into a mutable one without a copy (the produce path copies a batch once, not twice).
        let frozen = bytes.freeze();
        let batch = RecordBatch::parse(frozen.clone()).map_err(|e| LogError::InvalidBatch(e.to_string()))?;
        if !batch.crc_is_valid() {
            return Err(LogError::InvalidBatch("CRC mismatch".into()));
        }
        let compressed = batch.attributes().compression().map_err(|e| LogError::InvalidBatch(e.to_string()))?;
        if compressed == strand_protocol::records::Compression::None {
            batch.validate_uncompressed_record_count().map_err(|e| LogError::InvalidBatch(e.to_string()))?;
        }
        let record_count = batch.record_count();
        if record_count <= 0 {
            return Err(LogError::InvalidBatch("a batch must hold at least one record".into()));
        }
        // Offsets are assigned from the header: a last offset delta that disagrees with the count
        // would make offsets go backwards or leave gaps.
        if i64::from(batch.last_offset_delta()) != i64::from(record_count) - 1 {
            return Err(LogError::InvalidBatch(format!(
                "lastOffsetDelta {} does not match the record count {record_count}",
                batch.last_offset_delta()
            )));
        }
        let producer = BatchProducer {
            producer_id: batch.producer_id(),
            producer_epoch: batch.producer_epoch(),
            base_sequence: batch.base_sequence(),
            transactional: batch.attributes().is_transactional(),
            control: batch.attributes().is_control(),
        };
        drop(batch);
        let bytes = frozen.try_into_mut().unwrap_or_else(|shared| BytesMut::from(&shared[..]));
        Ok(ValidatedBatch { bytes, record_count, producer })
    }

    pub fn record_count(&self) -> i32 {
        self.record_count
    }

    /// The batch's bytes as they will be appended (before offsets are assigned).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Sets the timestamp type and the max timestamp, recomputing the CRC if either changes (the
    /// produce path's one rewrite: LogAppendTime, or a max timestamp that is not the records'
    /// largest). The batch stays valid: nothing else changes.
    pub fn set_max_timestamp(&mut self, timestamp_type: TimestampType, max_timestamp: i64) -> Result<()> {
        let mut view = RecordBatchMut::new(&mut self.bytes).map_err(|e| LogError::InvalidBatch(e.to_string()))?;
        view.set_max_timestamp_and_type(timestamp_type, max_timestamp);
        Ok(())
    }

    /// The batch's producer fields.
    pub fn producer(&self) -> BatchProducer {
        self.producer
    }
}

/// What an append did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppendInfo {
    pub first_offset: Offset,
    pub last_offset: Offset,
    pub max_timestamp: i64,
    /// The batch was a producer's retry of one already in the log: nothing was appended and the
    /// offsets are the original batch's (Kafka answers success with them).
    pub duplicate: bool,
}

/// Where the log stood when it was last closed, from the directory's checkpoint files.
#[derive(Debug, Clone, Copy, Default)]
pub struct LogCheckpoints {
    pub recovery_point: Offset,
    pub log_start_offset: Offset,
    /// Whether the directory holds Kafka's clean-shutdown marker.
    pub clean_shutdown: bool,
}

/// A flush begun under the log's lock ([`Log::begin_flush`]), to be synced without it.
#[derive(Debug)]
pub struct LogFlush {
    end: Offset,
    rewrites: u64,
    files: Vec<SyncTarget>,
    /// The directory generation its files include a sync of, if they include the directory.
    dir_generation: Option<u64>,
    /// Taken offline if a sync fails.
    health: Arc<DirHealth>,
}

impl LogFlush {
    /// `fdatasync` of every file; needs no lock (appends may go on meanwhile: what they add after
    /// `end` is simply not covered).
    pub fn sync(self) -> Result<SyncedFlush> {
        self.health.check(self.files.first().map_or(Path::new(""), |f| f.path()))?;
        for file in &self.files {
            if let Err(e) = file.sync() {
                self.health.fail(&e.to_string());
                return Err(e);
            }
        }
        Ok(SyncedFlush { end: self.end, rewrites: self.rewrites, dir_generation: self.dir_generation })
    }

    /// What it syncs, in order (the directory last, once the files in it are written).
    pub fn targets(&self) -> impl Iterator<Item = &Path> {
        self.files.iter().map(SyncTarget::path)
    }
}

/// A [`LogFlush`] whose files are synced: what [`Log::complete_flush`] takes.
#[derive(Debug)]
pub struct SyncedFlush {
    end: Offset,
    rewrites: u64,
    dir_generation: Option<u64>,
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
    /// The log directory's health, shared with the other logs in it ([`Log::set_dir_health`]).
    health: Arc<DirHealth>,
}

impl Log {
    /// Opens the log in `dir` (created if missing). After an unclean shutdown, every segment from
    /// the one holding the recovery point on is scanned, CRC-checked and truncated at the first
    /// invalid batch, and later segments are removed; after a clean one the indexes are trusted.
    pub fn open(dir: &Path, config: LogConfig, checkpoints: LogCheckpoints, clock: Arc<dyn Clock>) -> Result<Log> {
        if !dir.exists() {
            std::fs::create_dir_all(dir).map_err(|e| LogError::io(dir, e))?;
            // The new directory's own entry, in its parent (the log dir), is made durable now; the
            // files created in it are covered by the first flush.
            let parent = dir.parent().unwrap_or(Path::new("."));
            crate::file::sync_dir(parent).map_err(|e| LogError::io(parent, e))?;
        }
        crate::cleaner::swap::complete_interrupted_swaps(dir)?;
        let now = clock.now_ms();
        let mut segments = BTreeMap::new();
        for base in segment_base_offsets(dir)? {
            segments.insert(base, Segment::open(dir, base, &config, now)?);
        }
        let producer_config = config.producer_state;
        let mut log = Log {
            dir: dir.to_owned(),
            config,
            clock,
            segments,
            epoch_cache: LeaderEpochCache::open(dir)?,
            producer_state: ProducerStateManager::open(dir, producer_config)?,
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
            health: Arc::default(),
        };
        if !checkpoints.clean_shutdown {
            log.recover_from(checkpoints.recovery_point)?;
        }
        if log.segments.is_empty() {
            let base = log.log_start_offset;
            log.segments.insert(base, Segment::create(dir, base, &log.config, now)?);
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
                // Everything after a torn batch is unreachable: drop the later segments.
                for later in &bases[i + 1..] {
                    if let Some(segment) = self.segments.remove(later) {
                        segment.delete()?;
                    }
                }
                break;
            }
        }
        Ok(())
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Shares the health of the log directory this log lives in, so one failed sync takes every
    /// log of the directory offline.
    pub fn set_dir_health(&mut self, health: Arc<DirHealth>) {
        self.health = health;
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

    /// Where the log cleaner's next pass starts: everything below was compacted (Kafka's
    /// `cleaner-offset-checkpoint` entry). `None` until a pass or a checkpoint set it.
    pub fn first_dirty_offset(&self) -> Option<Offset> {
        self.first_dirty_offset
    }

    /// Restores the first dirty offset from the directory's `cleaner-offset-checkpoint` (the log
    /// manager does, on open), or records a pass's end (the cleaner does).
    pub fn set_first_dirty_offset(&mut self, offset: Offset) {
        self.first_dirty_offset = Some(offset);
    }

    pub(crate) fn cleaner_delete_horizon_ms(&self) -> Option<i64> {
        self.cleaner_delete_horizon_ms
    }

    pub(crate) fn set_cleaner_delete_horizon_ms(&mut self, horizon_ms: Option<i64>) {
        self.cleaner_delete_horizon_ms = horizon_ms;
    }

    /// Registers a cleaner pass over this log (aborting any earlier one) and returns its abort
    /// flag.
    pub(crate) fn begin_cleaning(&mut self) -> Arc<CleaningAbort> {
        self.abort_cleaning();
        let pass = Arc::new(CleaningAbort::default());
        self.cleaning = Some(Arc::clone(&pass));
        pass
    }

    /// Whether `pass` is the cleaner pass registered with this log.
    pub(crate) fn is_cleaning(&self, pass: &Arc<CleaningAbort>) -> bool {
        self.cleaning.as_ref().is_some_and(|current| Arc::ptr_eq(current, pass))
    }

    /// Unregisters `pass` once it is over.
    pub(crate) fn end_cleaning(&mut self, pass: &Arc<CleaningAbort>) {
        if self.is_cleaning(pass) {
            self.cleaning = None;
        }
    }

    /// Aborts the cleaner pass under way, if any: the log is about to change in a way that makes
    /// it wrong (see `cleaner::pass`). Once this returns, the pass creates no more files.
    pub(crate) fn abort_cleaning(&mut self) {
        if let Some(pass) = self.cleaning.take() {
            pass.abort();
        }
    }

    /// Swaps `cleaned` (a flushed segment whose files end in `.cleaned`) in for the segments at
    /// `replaced` (ascending; the first has `cleaned`'s base offset), crash-safely as Kafka's
    /// `replaceSegments` does: the cleaned files are renamed `.swap` and the directory synced (the
    /// commit point: from then on [`Log::open`] completes the swap), the replaced segments are
    /// deleted, and the `.swap` suffix is dropped. The caller syncs the directory again, for the
    /// final names, once it no longer holds the partition's lock (a crash before that completes
    /// the swap on open).
    pub(crate) fn replace_segments(&mut self, mut cleaned: Segment, replaced: &[Offset]) -> Result<()> {
        use crate::cleaner::swap::{CLEANED_SUFFIX, SWAP_SUFFIX};
        let sync_dir = |dir: &Path| crate::file::sync_dir(dir).map_err(|e| LogError::io(dir, e));
        assert_eq!(replaced.first(), Some(&cleaned.base_offset()), "a cleaned segment replaces its own base");
        cleaned.change_suffix(CLEANED_SUFFIX, SWAP_SUFFIX)?;
        sync_dir(&self.dir)?;
        for base in replaced {
            if let Some(segment) = self.segments.remove(base) {
                segment.delete()?;
            }
        }
        cleaned.change_suffix(SWAP_SUFFIX, "")?;
        self.segments.insert(cleaned.base_offset(), cleaned);
        self.rewrites += 1;
        Ok(())
    }

    /// Appends a batch as the partition's leader: assigns offsets from the log end offset and
    /// stamps the leader epoch, in place, then writes the bytes unchanged otherwise. A producer's
    /// retry of a batch already in the log appends nothing and reports the original offsets.
    pub fn append_as_leader(
        &mut self,
        batch: ValidatedBatch,
        leader_epoch: LeaderEpoch,
        context: AppendContext,
    ) -> Result<AppendInfo> {
        self.check_online()?;
        let ValidatedBatch { mut bytes, record_count, .. } = batch;
        let base_offset = self.log_end_offset();
        {
            let mut view = RecordBatchMut::new(&mut bytes).map_err(|e| LogError::InvalidBatch(e.to_string()))?;
            view.set_base_offset(base_offset);
            view.set_partition_leader_epoch(leader_epoch);
        }
        let batch = RecordBatch::parse(bytes.freeze()).map_err(|e| LogError::InvalidBatch(e.to_string()))?;
        let producer_batch = ProducerBatch::from_batch(&batch)?;
        let append = match self.producer_state.check_and_prepare(&[producer_batch], context)? {
            AppendOutcome::Duplicate(original) => {
                return Ok(AppendInfo {
                    first_offset: original.first_offset(),
                    last_offset: original.last_offset,
                    max_timestamp: original.timestamp,
                    duplicate: true,
                });
            }
            AppendOutcome::Append(append) => append,
        };
        if self.epoch_cache.latest_epoch().is_none_or(|latest| leader_epoch > latest) {
            self.epoch_cache.assign(leader_epoch, base_offset)?;
        }
        let info = self.append_batch(&batch, i64::from(record_count))?;
        let completed = self.producer_state.update(append);
        self.complete_txns(&completed)?;
        Ok(info)
    }

    /// Appends a batch whose offsets were assigned by a leader (replication); its base offset
    /// must be the log end offset or later.
    pub fn append_as_follower(&mut self, batch: &RecordBatch) -> Result<AppendInfo> {
        self.check_online()?;
        // What recovery would cut is never written (Kafka checks a follower's batches too).
        if !batch.crc_is_valid() || batch.last_offset_delta() < 0 {
            return Err(LogError::InvalidBatch(format!(
                "batch at {} has a bad CRC or lastOffsetDelta {}",
                batch.base_offset(),
                batch.last_offset_delta()
            )));
        }
        if batch.base_offset() < self.log_end_offset() {
            return Err(LogError::Invalid(format!(
                "batch at {} is below the log end offset {}",
                batch.base_offset(),
                self.log_end_offset()
            )));
        }
        let epoch = batch.partition_leader_epoch();
        if epoch >= 0 && self.epoch_cache.latest_epoch().is_none_or(|latest| epoch > latest) {
            self.epoch_cache.assign(epoch, batch.base_offset())?;
        }
        let info = self.append_batch(batch, i64::from(batch.record_count()))?;
        let aborted = replay_batch(&mut self.producer_state, batch)?;
        self.append_aborted(aborted)?;
        Ok(info)
    }

    fn append_batch(&mut self, batch: &RecordBatch, records: i64) -> Result<AppendInfo> {
        let now = self.clock.now_ms();
        self.maybe_roll(batch, now)?;
        let Some(active) = self.segments.values_mut().next_back() else {
            return Err(LogError::Invalid("log has no segment".into()));
        };
        active.append(batch)?;
        self.producer_state.update_map_end_offset(batch.next_offset());
        self.unflushed_records += records;
        self.first_unflushed_ms.get_or_insert(now);
        let info = AppendInfo {
            first_offset: batch.base_offset(),
            last_offset: batch.last_offset(),
            max_timestamp: batch.max_timestamp(),
            duplicate: false,
        };
        if self.unflushed_records >= self.config.flush_interval_messages
            || self.first_unflushed_ms.is_some_and(|first| now - first >= self.config.flush_interval_ms)
        {
            self.flush_to(self.log_end_offset())?;
        }
        Ok(info)
    }

    /// Records the transactions a marker ended: aborted ones in the active segment's transaction
    /// index, with the last stable offset at that point.
    fn complete_txns(&mut self, completed: &[crate::producer_state::CompletedTxn]) -> Result<()> {
        let mut aborted = Vec::new();
        for txn in completed {
            if txn.is_aborted {
                let last_stable_offset = self.producer_state.last_stable_offset(txn);
                aborted.push(AbortedTxn {
                    producer_id: txn.producer_id.0,
                    first_offset: txn.first_offset,
                    last_offset: txn.last_offset,
                    last_stable_offset,
                });
            }
            self.producer_state.complete_txn(txn);
        }
        self.append_aborted(aborted)
    }

    fn append_aborted(&mut self, aborted: Vec<AbortedTxn>) -> Result<()> {
        if let Some(active) = self.segments.values_mut().next_back() {
            for txn in aborted {
                active.append_aborted_txn(txn)?;
            }
        }
        Ok(())
    }

    /// The offset below which every transaction is decided (bounded by the high watermark by the
    /// caller): the last stable offset for `read_committed`.
    pub fn first_unstable_offset(&self) -> Option<Offset> {
        self.producer_state.first_unstable_offset()
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

    /// Aborted transactions overlapping `[fetch_offset, upper_bound)`, for `read_committed`
    /// fetches, from every segment that may hold their markers.
    pub fn collect_aborted_txns(&self, fetch_offset: Offset, upper_bound: Offset) -> Vec<AbortedTxn> {
        let mut aborted = Vec::new();
        let from = self.segments.range(..=fetch_offset).next_back().map(|(b, _)| *b).unwrap_or(Offset::MIN);
        for segment in self.segments.range(from..).map(|(_, s)| s) {
            let found = segment.txn_index().collect_aborted(fetch_offset, upper_bound);
            aborted.extend(found.aborted_txns);
            if found.is_complete {
                break;
            }
        }
        aborted
    }

    /// Reloads the producer state as of `offset`: from the latest snapshot at or below it, then
    /// replaying the batches between.
    fn reload_producer_state(&mut self, offset: Offset) -> Result<()> {
        let now = self.clock.now_ms();
        self.producer_state.truncate_and_reload(self.log_start_offset, offset, now)?;
        let from = self.producer_state.map_end_offset().max(self.log_start_offset);
        if from >= offset {
            self.producer_state.update_map_end_offset(offset);
            return Ok(());
        }
        let first = self.segments.range(..=from).next_back().map(|(b, _)| *b).unwrap_or(Offset::MIN);
        for segment in self.segments.range(first..offset).map(|(_, s)| s) {
            let Some(start) = segment.translate_offset(from)? else { continue };
            let mut position = start.position;
            while let Some(batch) = segment.batch_at(position)? {
                if batch.base_offset() >= offset {
                    break;
                }
                position += batch.size_in_bytes() as u64;
                replay_batch(&mut self.producer_state, &batch)?;
            }
        }
        self.producer_state.update_map_end_offset(offset);
        Ok(())
    }

    fn maybe_roll(&mut self, batch: &RecordBatch, now: i64) -> Result<()> {
        let size = batch.size_in_bytes() as u64;
        let roll = match self.active() {
            None => true,
            Some(active) => active.should_roll(&self.config, size, batch.max_timestamp(), batch.last_offset(), now),
        };
        if roll {
            self.roll(batch.base_offset(), now)?;
        }
        Ok(())
    }

    /// Closes the active segment and starts a new one at `base_offset`.
    fn roll(&mut self, base_offset: Offset, now: i64) -> Result<()> {
        if let Some(active) = self.segments.values_mut().next_back() {
            if active.base_offset() == base_offset && active.is_empty() {
                return Ok(());
            }
            // Not synced here, under the lock: Kafka syncs a rolled segment in the background too
            // (its `flush-log` task). Recovery after a crash starts at the recovery point anyway.
            active.finish_for_roll()?;
            self.roll_flush = Some(self.roll_flush.map_or(base_offset, |pending| pending.max(base_offset)));
        }
        let segment = Segment::create(&self.dir, base_offset, &self.config, now)?;
        self.segments.insert(base_offset, segment);
        self.dir_generation += 1;
        // Recovery of the new segment starts from this snapshot instead of the log's beginning.
        self.producer_state.update_map_end_offset(base_offset);
        self.producer_state.take_snapshot()?;
        Ok(())
    }

    /// The offset a roll closed segments below without syncing them, once: the caller syncs up
    /// to it without the lock (`manager::flush_unlocked`, on another thread), which also moves
    /// the recovery point past them, as Kafka's flush after a roll does. `None` when nothing was
    /// rolled since the last call, or a flush already covers the rolled segments.
    pub fn take_roll_flush(&mut self) -> Option<Offset> {
        self.roll_flush.take().filter(|&offset| offset > self.recovery_point)
    }

    /// Makes everything below `offset` durable with one `fdatasync` per segment written since the
    /// recovery point, and advances the recovery point. Returns at once if it already covers
    /// `offset`: this is what lets one sync serve every waiting append (group commit).
    pub fn flush_to(&mut self, offset: Offset) -> Result<()> {
        self.check_online()?;
        if let Some(flush) = self.begin_flush(offset) {
            let synced = flush.sync()?;
            self.complete_flush(synced);
        }
        Ok(())
    }

    /// The first step of a flush that does not hold the log's lock while the files sync: the
    /// files of every segment written since the recovery point, and the log end offset they will
    /// make durable. `None` if the recovery point already covers `offset`.
    pub fn begin_flush(&self, offset: Offset) -> Option<LogFlush> {
        let end = self.log_end_offset();
        if offset.min(end) <= self.recovery_point {
            return None;
        }
        let from = self.segments.range(..=self.recovery_point).next_back().map(|(b, _)| *b).unwrap_or(Offset::MIN);
        let mut files: Vec<SyncTarget> = self.segments.range(from..).flat_map(|(_, s)| s.sync_targets()).collect();
        let mut dir_generation = None;
        if self.dir_synced != self.dir_generation {
            files.push(SyncTarget::directory(&self.dir));
            dir_generation = Some(self.dir_generation);
        }
        Some(LogFlush { end, rewrites: self.rewrites, files, dir_generation, health: Arc::clone(&self.health) })
    }

    /// The last step: advances the recovery point to what `synced` covered, unless the log was
    /// truncated or had segments replaced since the flush began, or a later flush got further.
    pub fn complete_flush(&mut self, synced: SyncedFlush) {
        let SyncedFlush { end, rewrites, dir_generation } = synced;
        if let Some(generation) = dir_generation {
            self.dir_synced = self.dir_synced.max(generation);
        }
        if rewrites != self.rewrites || end <= self.recovery_point {
            return;
        }
        self.recovery_point = end;
        if end == self.log_end_offset() {
            self.unflushed_records = 0;
            self.first_unflushed_ms = None;
        }
    }

    /// What flushes through `manager::flush_unlocked` take turns on.
    pub(crate) fn flush_turn(&self) -> Arc<std::sync::Mutex<()>> {
        Arc::clone(&self.flush_turn)
    }

    /// Honours `flush.ms` when nothing is appended: the caller's timer calls this.
    pub fn maybe_flush_by_time(&mut self) -> Result<()> {
        let now = self.clock.now_ms();
        if self.first_unflushed_ms.is_some_and(|first| now - first >= self.config.flush_interval_ms) {
            self.flush_to(self.log_end_offset())?;
        }
        Ok(())
    }

    /// The bytes of a fetch from `offset`: up to `max_bytes` of whole batches from one segment (the
    /// first batch whole even if larger), never past `max_offset` (the high watermark or last
    /// stable offset for consumers; `None` reads to the log end, for followers).
    pub fn read(&self, offset: Offset, max_bytes: u64, max_offset: Option<Offset>) -> Result<Option<SegmentSlice>> {
        self.check_online()?;
        let end = self.log_end_offset();
        if offset < self.log_start_offset || offset > end {
            return Err(LogError::OffsetOutOfRange { offset, start: self.log_start_offset, end });
        }
        let limit = max_offset.unwrap_or(end).min(end);
        if offset >= limit {
            return Ok(None);
        }
        // A compacted segment may hold nothing at or after `offset` (its last records were
        // cleaned away): the read continues in the next segment, as Kafka's does.
        let from = self.segments.range(..=offset).next_back().map(|(b, _)| *b).unwrap_or(Offset::MIN);
        for segment in self.segments.range(from..).map(|(_, s)| s) {
            if segment.base_offset() >= limit {
                break;
            }
            let max_position = self.position_of(segment, limit)?;
            if let Some(slice) = segment.read(offset, max_bytes, max_position)? {
                return Ok(Some(slice));
            }
        }
        Ok(None)
    }

    /// The position in `segment` where the batch holding `offset` starts, if it is in that
    /// segment: reads from the segment stop there.
    fn position_of(&self, segment: &Segment, offset: Offset) -> Result<Option<u64>> {
        if offset >= segment.next_offset() {
            return Ok(None);
        }
        Ok(segment.translate_offset(offset)?.map(|b| b.position))
    }

    /// ListOffsets by timestamp: the first record whose timestamp is at or after `timestamp`.
    /// A caller that holds a lock on the log takes [`Log::timestamp_lookup`] instead, and runs it
    /// after letting go (`time_lookup.rs`).
    pub fn find_offset_by_timestamp(&self, timestamp: i64) -> Result<Option<(i64, Offset)>> {
        self.timestamp_lookup(timestamp).run()
    }

    /// The largest timestamp in the log and its offset (ListOffsets `MAX_TIMESTAMP`).
    pub fn max_timestamp(&self) -> Option<(i64, Offset)> {
        let best = self.segments.values().map(Segment::max_timestamp).max_by_key(|t| t.timestamp)?;
        (best.timestamp >= 0).then_some((best.timestamp, best.offset))
    }

    /// Removes every batch from the one holding `offset` on (replication's truncation). Segments
    /// wholly above it are deleted. At or past the log end nothing is removed but epoch entries
    /// starting at the log end (a leader's epoch recorded before it wrote anything) still go, as
    /// Kafka's `truncateTo` does, so the log's latest epoch is that of its last batch. A cleaner
    /// pass under way is aborted if anything is removed.
    pub fn truncate_to(&mut self, offset: Offset) -> Result<()> {
        if offset >= self.log_end_offset() {
            if self.epoch_cache.truncate_from_end(self.log_end_offset()) {
                self.epoch_cache.flush()?;
            }
            return Ok(());
        }
        self.abort_cleaning();
        self.rewrites += 1;
        let above: Vec<Offset> = self.segments.range(offset..).map(|(b, _)| *b).filter(|&b| b > offset).collect();
        for base in above {
            if let Some(segment) = self.segments.remove(&base) {
                segment.delete()?;
            }
        }
        if let Some((_, segment)) = self.segments.range_mut(..=offset).next_back() {
            segment.truncate_to(offset)?;
        }
        if self.segments.is_empty() {
            let now = self.clock.now_ms();
            self.segments.insert(offset, Segment::create(&self.dir, offset, &self.config, now)?);
            self.dir_generation += 1;
            self.dir_generation += 1;
        }
        let end = self.log_end_offset();
        self.recovery_point = self.recovery_point.min(end);
        self.log_start_offset = self.log_start_offset.min(end);
        if self.epoch_cache.truncate_from_end(end) {
            self.epoch_cache.flush()?;
        }
        self.reload_producer_state(end)
    }

    /// Empties the log and starts it over at `offset`: every segment deleted, a new empty one at
    /// `offset`, the epoch cache and producer state cleared (Kafka's `truncateFullyAndStartAt`). A
    /// replica uses it when the offsets it holds are all gone from its source's log.
    pub fn truncate_fully_and_start_at(&mut self, offset: Offset) -> Result<()> {
        assert!(offset >= 0, "a log cannot start at {offset}");
        self.abort_cleaning();
        self.rewrites += 1;
        for (_, segment) in std::mem::take(&mut self.segments) {
            segment.delete()?;
        }
        let now = self.clock.now_ms();
        self.segments.insert(offset, Segment::create(&self.dir, offset, &self.config, now)?);
        self.dir_generation += 1;
        self.log_start_offset = offset;
        self.recovery_point = offset;
        self.unflushed_records = 0;
        self.first_unflushed_ms = None;
        self.first_dirty_offset = None;
        self.epoch_cache.clear();
        self.epoch_cache.flush()?;
        self.producer_state.truncate_fully_and_start_at(offset)?;
        crate::file::sync_dir(&self.dir).map_err(|e| LogError::io(&self.dir, e))
    }

    /// Records that leader epoch `epoch` starts at `start_offset` unless the cache already has
    /// that epoch or a later one (Kafka's `maybeAssignEpochStartOffset`): a new leader records its
    /// epoch at its log end offset before it writes anything, so a replica that asks where the
    /// epoch before it ended gets an answer even while the new epoch holds no batch.
    pub fn maybe_assign_epoch_start_offset(&mut self, epoch: LeaderEpoch, start_offset: Offset) -> Result<()> {
        if self.epoch_cache.latest_epoch().is_none_or(|latest| epoch > latest) {
            self.epoch_cache.assign(epoch, start_offset)?;
        }
        Ok(())
    }

    /// Raises the log start offset (DeleteRecords, retention) and deletes the segments wholly
    /// below it. The active segment is never deleted. A cleaner pass under way is aborted if a
    /// segment goes.
    pub fn advance_log_start_offset(&mut self, offset: Offset) -> Result<()> {
        let offset = offset.min(self.log_end_offset());
        if offset <= self.log_start_offset {
            return Ok(());
        }
        self.log_start_offset = offset;
        if self.epoch_cache.truncate_from_start(offset) {
            self.epoch_cache.flush()?;
        }
        self.producer_state.on_log_start_offset_incremented(offset);
        let bases = self.segment_base_offsets();
        for pair in bases.windows(2) {
            let (base, next_base) = (pair[0], pair[1]);
            if next_base <= offset
                && let Some(segment) = self.segments.remove(&base)
            {
                self.abort_cleaning();
                segment.delete()?;
            }
        }
        let first = self.segments.keys().next().copied().unwrap_or(offset);
        self.producer_state.delete_snapshots_before(first)
    }

    /// Deletes the oldest segments that retention no longer keeps (Kafka's `deleteOldSegments`):
    /// with `cleanup.policy` including `delete`, those whose newest record is older than
    /// `retention.ms`, then as many as leave the partition within `retention.bytes`. Only a
    /// prefix of segments goes, and only segments wholly below `high_watermark`, so nothing a
    /// follower may still need is lost. If every segment goes, the active one is rolled first, as
    /// Kafka does, so the log keeps an (empty) active segment at its end offset. The log start
    /// offset moves to the first remaining segment. Returns how many segments were deleted.
    pub fn apply_retention(&mut self, high_watermark: Offset) -> Result<usize> {
        if !self.config.delete_enabled {
            return Ok(0);
        }
        let now = self.clock.now_ms();
        let (retention_ms, retention_bytes) = (self.config.retention_ms, self.config.retention_bytes);
        let mut excess = if retention_bytes < 0 {
            0
        } else {
            self.size().saturating_sub(u64::try_from(retention_bytes).unwrap_or(0))
        };
        let end = self.log_end_offset();
        let bases = self.segment_base_offsets();
        let mut deletable = 0;
        for (i, base) in bases.iter().enumerate() {
            let Some(segment) = self.segments.get(base) else { break };
            let upper_bound = bases.get(i + 1).copied().unwrap_or(end);
            if segment.is_empty() || high_watermark < upper_bound {
                break;
            }
            let newest = segment.max_timestamp().timestamp;
            let expired = retention_ms >= 0 && newest >= 0 && now - newest > retention_ms;
            let oversized = excess >= segment.size() && excess > 0;
            if !expired && !oversized {
                break;
            }
            excess = excess.saturating_sub(segment.size());
            deletable += 1;
        }
        if deletable == 0 {
            return Ok(0);
        }
        let new_start = match bases.get(deletable) {
            Some(next) => *next,
            None => {
                self.roll(end, now)?;
                end
            }
        };
        let before = self.segments.len();
        self.advance_log_start_offset(new_start)?;
        Ok(before.saturating_sub(self.segments.len()))
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
        self.epoch_cache.flush()
    }
}

/// Feeds one stored batch to the producer state as replication does (no client checks); returns
/// the transactions it aborted, for the transaction index.
fn replay_batch(producers: &mut ProducerStateManager, batch: &RecordBatch) -> Result<Vec<AbortedTxn>> {
    let producer_batch = ProducerBatch::from_batch(batch)?;
    let mut aborted = Vec::new();
    if let AppendOutcome::Append(append) =
        producers.check_and_prepare(&[producer_batch], AppendContext::replication())?
    {
        for txn in producers.update(append) {
            if txn.is_aborted {
                let last_stable_offset = producers.last_stable_offset(&txn);
                aborted.push(AbortedTxn {
                    producer_id: txn.producer_id.0,
                    first_offset: txn.first_offset,
                    last_offset: txn.last_offset,
                    last_stable_offset,
                });
            }
            producers.complete_txn(&txn);
        }
    }
    producers.update_map_end_offset(batch.next_offset());
    Ok(aborted)
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
