//! The log cleaner: compaction of one partition's log (`cleanup.policy` with `compact`), keeping
//! the latest record per key at its original offset, as Kafka's `Cleaner` does.
//!
//! A pass ([`Cleaner::clean`]) over a log:
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
//!    one `.cleaned` segment that is swapped in crash-safely ([`swap`]).
//!
//! With nothing dirty, a pass still runs once the earliest delete horizon the last pass wrote
//! has passed (kept in memory by the log: after a restart, only new dirty data triggers a pass),
//! so tombstones go even from a log no longer written to.
//!
//! What it is not: a scheduler. The caller (one cleaner per thread, reused across logs) picks
//! the logs and the moments, for example by [`CleanableRange::dirty_ratio`] against
//! `min.cleanable.dirty.ratio`. A pass holds `&mut Log` throughout, so appends to that partition
//! wait for it.
//!
//! Compacted logs are one of design §3's documented exceptions to "the log never decodes the
//! records it stores": the cleaner reads keys and values, with bounded decompression.

mod batch_writer;
mod filter;
pub mod offset_map;
pub(crate) mod swap;

use std::collections::BTreeMap;

use strand_base::Offset;

use self::filter::{FilterContext, Filtered, LastBatch, TxnTracker, control_type, filter_batch};
pub use self::offset_map::OffsetMap;
use self::swap::CLEANED_SUFFIX;
use crate::index::AbortedTxn;
use crate::segment::Segment;
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
}

/// A log cleaner: owns the offset map's memory and reuses it for every log it cleans.
#[derive(Debug)]
pub struct Cleaner {
    map: OffsetMap,
}

impl Cleaner {
    pub fn new(config: CleanerConfig) -> Cleaner {
        Cleaner { map: OffsetMap::with_memory(config.dedupe_buffer_bytes, config.dedupe_buffer_load_factor) }
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
    /// the log is not compacted or nothing is cleanable.
    pub fn cleanable_range(log: &Log, high_watermark: Offset) -> Option<CleanableRange> {
        let config = log.config();
        if !config.compact_enabled {
            return None;
        }
        let segments = log.segments();
        let active_base = *segments.keys().next_back()?;
        let start = log.log_start_offset();
        let first_dirty =
            log.first_dirty_offset().filter(|o| (start..=log.log_end_offset()).contains(o)).unwrap_or(start);
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

    /// Compacts `log` below `high_watermark` (see the module doc). Returns `None` when there was
    /// nothing to clean. On error, the log is as it was or has some groups cleaned, each swapped
    /// in whole; the first dirty offset is unchanged, so the next pass redoes the rest.
    pub fn clean(&mut self, log: &mut Log, high_watermark: Offset) -> Result<Option<CleanStats>> {
        let Some(range) = Self::cleanable_range(log, high_watermark) else { return Ok(None) };
        self.map.clear();
        let (end, map_full) = self.build_offset_map(log, &range)?;
        let horizon_due = log.cleaner_delete_horizon_ms().is_some_and(|h| h <= log.clock().now_ms());
        if end <= range.first_dirty_offset && !horizon_due {
            return Ok(None);
        }
        let mut stats = CleanStats {
            first_dirty_offset: range.first_dirty_offset,
            end_offset: end,
            map_full,
            keys_mapped: self.map.len(),
            ..CleanStats::default()
        };
        let last_batches: BTreeMap<i64, LastBatch> = log
            .producer_state()
            .active_producers()
            .iter()
            .map(|(id, entry)| {
                (id.0, LastBatch { data_offset: entry.last_data_offset(), epoch: entry.producer_epoch() })
            })
            .collect();
        let now_ms = log.clock().now_ms();
        let delete_retention_ms = log.config().delete_retention_ms;
        for group in group_segments(log, end) {
            let cx = FilterContext {
                map: &self.map,
                map_end: end,
                now_ms,
                delete_retention_ms,
                last_batches: &last_batches,
            };
            let cleaned = clean_group(log, &group, &cx, &mut stats)?;
            log.replace_segments(cleaned, &group)?;
        }
        log.set_first_dirty_offset(end);
        log.set_cleaner_delete_horizon_ms(stats.delete_horizon_ms);
        Ok(Some(stats))
    }

    /// Maps every key of the dirty section to its latest offset. Returns where the map ends (the
    /// first unmapped offset) and whether it filled before the range's end.
    fn build_offset_map(&mut self, log: &Log, range: &CleanableRange) -> Result<(Offset, bool)> {
        let (first_dirty, uncleanable) = (range.first_dirty_offset, range.first_uncleanable_offset);
        let mut txns = TxnTracker::new(log.collect_aborted_txns(first_dirty, uncleanable));
        let from = log.segments().range(..=first_dirty).next_back().map(|(b, _)| *b).unwrap_or(Offset::MIN);
        for segment in log.segments().range(from..uncleanable).map(|(_, s)| s) {
            let Some(start) = segment.translate_offset(first_dirty)? else { continue };
            let mut position = start.position;
            while let Some(batch) = segment.batch_at(position)? {
                if batch.base_offset() >= uncleanable {
                    return Ok((uncleanable, false));
                }
                position += batch.size_in_bytes() as u64;
                if batch.attributes().is_control() {
                    txns.on_control_batch_read(&batch)?;
                    continue;
                }
                if txns.on_batch_read(&batch) {
                    continue;
                }
                let records = batch.records().map_err(|e| LogError::corrupt(segment.path(), e.to_string()))?;
                for record in records.iter() {
                    let record = record.map_err(|e| LogError::corrupt(segment.path(), e.to_string()))?;
                    let offset = batch.record_offset(&record);
                    if let Some(key) = record.key().filter(|_| offset >= first_dirty)
                        && !self.map.put(key, offset)
                    {
                        return Ok((offset, true));
                    }
                }
            }
        }
        Ok((uncleanable, false))
    }
}

/// Rewrites the segments at `group` (ascending, adjacent) into one `.cleaned` segment with the
/// first one's base offset, flushed and ready to swap in.
fn clean_group(log: &Log, group: &[Offset], cx: &FilterContext<'_>, stats: &mut CleanStats) -> Result<Segment> {
    let segments = log.segments();
    let (Some(&first), Some(last)) = (group.first(), group.last().and_then(|b| segments.get(b))) else {
        return Err(LogError::Invalid("an empty group of segments to clean".into()));
    };
    let mut txns = TxnTracker::new(log.collect_aborted_txns(first, last.next_offset()));
    // Each abort marker's transaction-index entry, by the marker's offset: it follows the marker.
    let mut aborted_by_marker: BTreeMap<Offset, AbortedTxn> = BTreeMap::new();
    for segment in group.iter().filter_map(|b| segments.get(b)) {
        aborted_by_marker.extend(segment.txn_index().entries().iter().map(|txn| (txn.last_offset, *txn)));
    }
    let now = log.clock().now_ms();
    let mut cleaned = Segment::create_with_suffix(log.dir(), first, log.config(), now, CLEANED_SUFFIX)?;
    for segment in group.iter().filter_map(|b| segments.get(b)) {
        stats.segments_read += 1;
        stats.bytes_read += segment.size();
        let mut position = 0;
        while let Some(batch) = segment.batch_at(position)? {
            position += batch.size_in_bytes() as u64;
            let outcome = filter_batch(&batch, cx, &mut txns)?;
            stats.records_read += outcome.records_read;
            stats.records_kept += outcome.records_kept;
            let written = match outcome.filtered {
                Filtered::Dropped => continue,
                Filtered::Unchanged => batch,
                Filtered::Rebuilt(bytes) => strand_protocol::records::RecordBatch::parse(bytes)
                    .map_err(|e| LogError::InvalidBatch(e.to_string()))?,
            };
            cleaned.append(&written)?;
            stats.bytes_written += written.size_in_bytes() as u64;
            if let Some(horizon) = written.delete_horizon_ms() {
                stats.delete_horizon_ms = Some(stats.delete_horizon_ms.map_or(horizon, |h| h.min(horizon)));
            }
            let is_abort_marker = written.attributes().is_control()
                && written.record_count() > 0
                && control_type(&written)? == Some(strand_protocol::records::ControlRecordType::Abort);
            if is_abort_marker && let Some(txn) = aborted_by_marker.get(&written.last_offset()) {
                cleaned.append_aborted_txn(*txn)?;
            }
        }
    }
    cleaned.close_for_roll()?;
    stats.segments_written += 1;
    Ok(cleaned)
}

/// The segments below `end` in groups to merge: adjacent segments whose sizes sum to at most
/// `segment.bytes`, whose index entries fit one index, and whose offsets fit one segment's
/// 4-byte relative offsets (Kafka's `groupSegmentsBySize`).
fn group_segments(log: &Log, end: Offset) -> Vec<Vec<Offset>> {
    let config = log.config();
    let mut groups: Vec<Vec<Offset>> = Vec::new();
    let (mut bytes, mut offset_index, mut time_index) = (0u64, 0u64, 0u64);
    for (base, segment) in log.segments().range(..end) {
        let (offsets, times) = segment.index_bytes();
        let fits = |group: &Vec<Offset>| {
            let span = segment.next_offset() - 1 - group.first().copied().unwrap_or(*base);
            bytes + segment.size() <= config.segment_bytes
                && offset_index + offsets <= config.segment_index_bytes
                && time_index + times <= config.segment_index_bytes
                && span <= i64::from(i32::MAX)
        };
        match groups.last_mut() {
            Some(group) if fits(group) => group.push(*base),
            _ => {
                groups.push(vec![*base]);
                (bytes, offset_index, time_index) = (0, 0, 0);
            }
        }
        bytes += segment.size();
        offset_index += offsets;
        time_index += times;
    }
    groups
}
