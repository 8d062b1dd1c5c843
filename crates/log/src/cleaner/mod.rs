//! The log cleaner: compaction of one partition's log (`cleanup.policy` with `compact`), keeping
//! the latest record per key at its original offset, as Kafka's `Cleaner` does.
//!
//! A pass over a log:
//! 1. **Range.** The dirty section runs from the first dirty offset (where the last pass ended,
//!    kept by the log and in `cleaner-offset-checkpoint`) to the first uncleanable offset: the
//!    lowest of the active segment's base offset (the active segment is never cleaned), the high
//!    watermark the caller passes, the log's first unstable offset (no undecided transaction is
//!    cleaned), and the base of the first dirty segment holding a record newer than
//!    `min.compaction.lag.ms`.
//! 2. **Map.** [`OffsetMap`] records each key's latest offset over the dirty section, skipping
//!    aborted transactional data and markers. Its memory is fixed when the cleaner is made
//!    (`log.cleaner.dedupe.buffer.size`); if it fills, the pass stops where it got and the next
//!    pass continues from there.
//! 3. **Rewrite.** Every segment below the map's end, clean ones included (their old values may
//!    be superseded by new dirty ones), is rewritten by the rules of [`filter`], adjacent
//!    segments merged while the result fits `segment.bytes` and the index size, each group into
//!    one `.cleaned` segment that is swapped in crash-safely ([`swap`]), one group at a time.
//!
//! With nothing dirty, a pass still runs once the earliest delete horizon the last pass wrote
//! has passed (kept in memory by the log: after a restart, only new dirty data triggers a pass),
//! so tombstones go even from a log no longer written to.
//!
//! **Locking.** A pass never blocks appends for longer than a swap. It runs in phases (see
//! [`pass`]); only the first and the swaps need the log, and so the partition's lock, and each
//! is brief:
//! - [`Cleaner::prepare`] (with the log): picks the range and takes read-only handles on the
//!   segments below the first uncleanable offset (never the active one: segments no longer
//!   appended to), with the little the pass needs of the log's state (aborted transactions,
//!   producers' last batches, the time), and registers the pass with the log.
//! - [`Cleaner::build_offset_map`] and [`Cleaner::clean_next_group`] (without it): the map, then
//!   each group's `.cleaned` segment, read through those handles.
//! - [`CleaningPass::swap`] (with it): each cleaned group swapped in crash-safely ([`swap`]); then
//!   [`CleaningPass::finish`] records the new first dirty offset.
//!
//! Between the phases the log takes appends, rolls, and serves reads. A change that invalidates
//! the pass (a truncation, segments deleted by retention or DeleteRecords, a log deleted or
//! closed) aborts it through the log (`CleaningAbort`): the pass then swaps nothing more,
//! deletes its `.cleaned` files and records nothing, and the next pass starts over.
//! [`Cleaner::clean`] runs every phase in one go on a `&mut Log`, for callers that hold it anyway.
//!
//! What it is not: a scheduler. The caller (one cleaner per thread, reused across logs) picks
//! the logs and the moments, for example by [`CleanableRange::dirty_ratio`] against
//! `min.cleanable.dirty.ratio`.
//!
//! Compacted logs are one of design §3's documented exceptions to "the log never decodes the
//! records it stores": the cleaner reads keys and values, with bounded decompression.

mod batch_writer;
mod filter;
pub mod offset_map;
pub mod pass;
pub(crate) mod swap;

use strand_base::Offset;

use self::filter::TxnTracker;
pub use self::offset_map::OffsetMap;
pub(crate) use self::pass::CleaningAbort;
pub use self::pass::{CleanedGroup, CleaningPass};
use self::pass::{Step, overlapping};
use crate::{Log, LogError, Result};

/// The cleaner's settings (Kafka's `log.cleaner.*` broker configs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CleanerConfig {
    /// `log.cleaner.dedupe.buffer.size` divided by `log.cleaner.threads`: the memory of one
    /// cleaner's offset map (Kafka: 128 MiB for one thread). Allocated once, by [`Cleaner::new`].
    pub dedupe_buffer_bytes: usize,
    /// `log.cleaner.io.buffer.load.factor`: how full the map may get (0.9).
    pub dedupe_buffer_load_factor: f64,
}

impl Default for CleanerConfig {
    fn default() -> Self {
        CleanerConfig { dedupe_buffer_bytes: 128 * 1024 * 1024, dedupe_buffer_load_factor: 0.9 }
    }
}

/// What a log has to clean: the dirty section and the sizes of both sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CleanableRange {
    pub first_dirty_offset: Offset,
    /// Nothing at or above this is cleaned in this pass.
    pub first_uncleanable_offset: Offset,
    /// The bytes of the segments below the one holding the first dirty offset.
    pub clean_bytes: u64,
    /// The bytes of the segments from the one holding the first dirty offset up to the first
    /// uncleanable offset.
    pub dirty_bytes: u64,
}

impl CleanableRange {
    /// The dirty share of the cleanable bytes, to compare with `min.cleanable.dirty.ratio`.
    pub fn dirty_ratio(&self) -> f64 {
        let total = self.clean_bytes + self.dirty_bytes;
        if total == 0 { 0.0 } else { self.dirty_bytes as f64 / total as f64 }
    }
}

/// What one pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CleanStats {
    /// Where the pass's dirty section started.
    pub first_dirty_offset: Offset,
    /// Where it ended: the log's new first dirty offset.
    pub end_offset: Offset,
    /// The offset map filled before the first uncleanable offset.
    pub map_full: bool,
    pub keys_mapped: usize,
    pub segments_read: usize,
    pub segments_written: usize,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub records_read: u64,
    pub records_kept: u64,
    /// The earliest delete horizon of the batches written: tombstones or markers in them go in
    /// the first pass at or after it.
    pub delete_horizon_ms: Option<i64>,
    /// The log changed under the pass (see the module doc): it stopped, its first dirty offset
    /// was not recorded, and only the groups counted in `segments_swapped` were swapped in.
    pub abandoned: bool,
    /// The groups swapped in (each a `.cleaned` segment counted in `segments_written`).
    pub segments_swapped: usize,
}

/// A log cleaner: owns the offset map's memory and reuses it for every log it cleans, one pass at
/// a time.
#[derive(Debug)]
pub struct Cleaner {
    map: OffsetMap,
    /// Counts the maps built, so a pass is only ever cleaned with its own map.
    maps_built: u64,
}

impl Cleaner {
    pub fn new(config: CleanerConfig) -> Cleaner {
        let map = OffsetMap::with_memory(config.dedupe_buffer_bytes, config.dedupe_buffer_load_factor);
        Cleaner { map, maps_built: 0 }
    }

    /// Whether a pass over `log` is due: its dirty share of the cleanable log reached its
    /// `min.cleanable.dirty.ratio`, a dirty record waited longer than its `max.compaction.lag.ms`
    /// (Kafka's `LogCleanerManager.maxCompactionDelay`: the first batch of the oldest dirty
    /// segment below the active one), or a delete horizon it recorded passed (tombstones or
    /// markers may go now).
    pub fn is_due(log: &Log, high_watermark: Offset) -> bool {
        let config = log.config();
        let now_ms = log.clock().now_ms();
        let range = Self::cleanable_range(log, high_watermark);
        let dirty = range.is_some_and(|r| r.dirty_ratio() >= config.min_cleanable_dirty_ratio);
        let overdue = range.is_some_and(|r| {
            let clean_until = now_ms.saturating_sub(config.max_compaction_lag_ms.max(0));
            let active_base = log.segments().keys().next_back().copied().unwrap_or(Offset::MAX);
            let from =
                log.segments().range(..=r.first_dirty_offset).next_back().map(|(b, _)| *b).unwrap_or(Offset::MIN);
            log.segments()
                .range(from..active_base)
                .filter_map(|(_, segment)| segment.first_batch_timestamp())
                .filter(|t| *t > 0)
                .min()
                .is_some_and(|earliest| earliest < clean_until)
        });
        let horizon_passed = log.cleaner_delete_horizon_ms().is_some_and(|h| h <= now_ms);
        dirty || overdue || (horizon_passed && config.compact_enabled)
    }

    /// What `log` has to clean below `high_watermark` and its first unstable offset; `None` if
    /// the log is not compacted or nothing is cleanable. The range never reaches the active
    /// segment.
    pub fn cleanable_range(log: &Log, high_watermark: Offset) -> Option<CleanableRange> {
        let config = log.config();
        if !config.compact_enabled {
            return None;
        }
        let segments = log.segments();
        let active_base = *segments.keys().next_back()?;
        let start = log.log_start_offset();
        // A first dirty offset past the active segment's base (left by a truncation, or a log
        // start inside the active segment) would reach into it: it starts there instead.
        let first_dirty = log
            .first_dirty_offset()
            .filter(|o| (start..=log.log_end_offset()).contains(o))
            .unwrap_or(start)
            .min(active_base);
        let mut uncleanable = active_base.min(high_watermark).min(log.first_unstable_offset().unwrap_or(Offset::MAX));
        let dirty_from = segments.range(..=first_dirty).next_back().map(|(b, _)| *b).unwrap_or(Offset::MIN);
        if config.min_compaction_lag_ms > 0 {
            let now = log.clock().now_ms();
            let recent = segments
                .range(dirty_from..active_base)
                .find(|(_, s)| s.max_timestamp().timestamp > now.saturating_sub(config.min_compaction_lag_ms));
            if let Some((base, _)) = recent {
                uncleanable = uncleanable.min(*base);
            }
        }
        // With nothing dirty, a pass is still due once a tombstone's delete horizon has passed.
        let horizon_due = log.cleaner_delete_horizon_ms().is_some_and(|h| h <= log.clock().now_ms());
        if first_dirty >= uncleanable && !horizon_due {
            return None;
        }
        let uncleanable = uncleanable.max(first_dirty);
        let clean_bytes = segments.range(..dirty_from).map(|(_, s)| s.size()).sum();
        let dirty_bytes = segments.range(dirty_from..uncleanable).map(|(_, s)| s.size()).sum();
        Some(CleanableRange {
            first_dirty_offset: first_dirty,
            first_uncleanable_offset: uncleanable,
            clean_bytes,
            dirty_bytes,
        })
    }

    /// Compacts `log` below `high_watermark`, every phase in one go (see the module doc).
    /// Returns `None` when there was nothing to clean. On error, the log is as it was or has
    /// some groups cleaned, each swapped in whole; the first dirty offset is unchanged, so the
    /// next pass redoes the rest.
    pub fn clean(&mut self, log: &mut Log, high_watermark: Offset) -> Result<Option<CleanStats>> {
        let Some(mut pass) = Self::prepare(log, high_watermark)? else { return Ok(None) };
        if self.build_offset_map(&mut pass)? {
            while let Some(cleaned) = self.clean_next_group(&mut pass)? {
                pass.swap(log, cleaned)?;
            }
        }
        Ok(pass.finish(log))
    }

    /// The first phase, with the log (under the partition's lock): what [`Cleaner::clean`] would
    /// clean, taken from `log` so the next phases run without it; `None` when nothing is
    /// cleanable. It registers the pass with the log, replacing (aborting) any earlier one.
    /// Brief: no record is read, only an index lookup where the dirty section starts.
    pub fn prepare(log: &mut Log, high_watermark: Offset) -> Result<Option<CleaningPass>> {
        let Some(range) = Self::cleanable_range(log, high_watermark) else { return Ok(None) };
        CleaningPass::take(log, range).map(Some)
    }

    /// The second phase, without the log: maps every key of the pass's dirty section to its
    /// latest offset. Returns whether there is anything to clean; if not (nothing past the
    /// dirty start was mapped and no delete horizon is due, or the log aborted the pass), the
    /// pass only needs [`CleaningPass::finish`].
    pub fn build_offset_map(&mut self, pass: &mut CleaningPass) -> Result<bool> {
        if !matches!(pass.step, Step::Prepared) {
            return Ok(false);
        }
        self.map.clear();
        self.maps_built += 1;
        let (end, map_full) = match self.map_dirty_section(pass) {
            Ok(Some(mapped)) => mapped,
            Ok(None) => return pass.abandon().map(|()| false),
            Err(e) => return pass.fail(e).map(|()| false),
        };
        if end <= pass.range.first_dirty_offset && !pass.horizon_due {
            pass.step = Step::NothingToClean;
            return Ok(false);
        }
        pass.start_cleaning(end, map_full, self.map.len(), self.maps_built);
        Ok(true)
    }

    /// The third phase, without the log: rewrites the pass's next group of segments into a
    /// flushed `.cleaned` segment, for [`CleaningPass::swap`]. `None` when no group is left or
    /// the log aborted the pass (its files are then deleted). Each group must be swapped before
    /// the next one is cleaned, or the pass records nothing when it finishes.
    pub fn clean_next_group(&mut self, pass: &mut CleaningPass) -> Result<Option<CleanedGroup>> {
        let Step::Cleaning { map_id, .. } = pass.step else { return Ok(None) };
        assert_eq!(map_id, self.maps_built, "a pass is cleaned with the map built for it");
        pass.clean_next_group(&self.map)
    }

    /// Maps every key of the dirty section to its latest offset. Returns where the map ends (the
    /// first unmapped offset) and whether it filled before the range's end; `None` if the log
    /// aborted the pass meanwhile.
    fn map_dirty_section(&mut self, pass: &CleaningPass) -> Result<Option<(Offset, bool)>> {
        let (first_dirty, uncleanable) = (pass.range.first_dirty_offset, pass.range.first_uncleanable_offset);
        let mut txns = TxnTracker::new(overlapping(&pass.aborted_txns, first_dirty, uncleanable));
        for (i, segment) in pass.segments.iter().enumerate().skip(pass.dirty_start.0) {
            let mut position = if i == pass.dirty_start.0 { pass.dirty_start.1 } else { 0 };
            while let Some(batch) = segment.batch_at(position)? {
                if pass.abort.is_aborted() {
                    return Ok(None);
                }
                if batch.base_offset() >= uncleanable {
                    return Ok(Some((uncleanable, false)));
                }
                position += batch.size_in_bytes() as u64;
                if batch.attributes().is_control() {
                    txns.on_control_batch_read(&batch)?;
                    continue;
                }
                if txns.on_batch_read(&batch) {
                    continue;
                }
                let records = batch.records().map_err(|e| LogError::corrupt(&segment.path, e.to_string()))?;
                for record in records.iter() {
                    let record = record.map_err(|e| LogError::corrupt(&segment.path, e.to_string()))?;
                    let offset = batch.record_offset(&record);
                    if let Some(key) = record.key().filter(|_| offset >= first_dirty)
                        && !self.map.put(key, offset)
                    {
                        return Ok(Some((offset, true)));
                    }
                }
            }
        }
        Ok(Some((uncleanable, false)))
    }
}
