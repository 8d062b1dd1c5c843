//! [`CleaningPass`]: one cleaner pass over one log, in the phases that let it run without the
//! partition's lock (listed in the [`super`] module doc), and `CleaningAbort`, the flag by which
//! the log stops a pass it changed under.
//!
//! A pass holds read-only handles on the segments it cleans (`SegmentReader`: only segments
//! below the first uncleanable offset, never the active one, so nothing appends to them) and a
//! copy of what it needs of the log's state when it was taken. It holds no lock and no reference
//! to the log: it reaches the log only in [`CleaningPass::swap`] and [`CleaningPass::finish`],
//! which the caller calls with the log locked.
//!
//! What aborts a pass: a truncation that removes records, segments deleted (retention,
//! DeleteRecords), a truncation to empty, the log closed or deleted. Each changes or removes
//! segments the pass read, or records its offset map points to; a swap after it could bring
//! deleted records back or drop the latest value of a key. Appends and rolls do not abort a
//! pass: they only add above its segments. An aborted pass swaps nothing more, deletes its
//! `.cleaned` files and records no first dirty offset; groups it swapped in before stay (each was
//! a whole, valid replacement when it went in).

use std::collections::{BTreeMap, VecDeque};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use strand_base::Offset;
use strand_protocol::records::{ControlRecordType, RecordBatch};

use super::filter::{FilterContext, Filtered, LastBatch, TxnTracker, control_type, filter_batch};
use super::offset_map::OffsetMap;
use super::swap::{CLEANED_SUFFIX, delete_cleaned};
use super::{CleanStats, CleanableRange};
use crate::config::LogConfig;
use crate::index::AbortedTxn;
use crate::segment::{Segment, SegmentReader};
use crate::{Log, LogError, Result};

/// A pass's abort flag, shared by the pass and its log (Kafka's `LogCleaningAborted` state).
///
/// Thread-safety: the log sets it (under the partition's lock), the pass reads it (without).
/// Setting it waits while the pass is creating a `.cleaned` segment's files, so once
/// [`CleaningAbort::abort`] returns the pass creates no more files in the log's directory, and
/// deleting the directory cannot race with it.
#[derive(Debug, Default)]
pub(crate) struct CleaningAbort {
    aborted: AtomicBool,
    /// Held while the pass creates files, and while the flag is set.
    files: Mutex<()>,
}

impl CleaningAbort {
    pub(crate) fn abort(&self) {
        let _files = self.files.lock().unwrap_or_else(PoisonError::into_inner);
        self.aborted.store(true, Ordering::Release);
    }

    pub(crate) fn is_aborted(&self) -> bool {
        self.aborted.load(Ordering::Acquire)
    }

    /// Runs `create` unless the pass was aborted (`None` then).
    fn unless_aborted<T>(&self, create: impl FnOnce() -> T) -> Option<T> {
        let _files = self.files.lock().unwrap_or_else(PoisonError::into_inner);
        (!self.is_aborted()).then(create)
    }
}

/// Where a pass stands.
#[derive(Debug)]
pub(super) enum Step {
    /// Taken from the log: the offset map is next.
    Prepared,
    /// Mapped up to `end` with the cleaner's map number `map_id`: the groups left to clean,
    /// oldest first, and whether the group cleaned last still waits for its swap.
    Cleaning { map_id: u64, end: Offset, groups: VecDeque<Range<usize>>, unswapped: bool },
    /// Nothing to clean after all.
    NothingToClean,
    /// The log changed under the pass, a phase failed, or a group was left unswapped: the pass
    /// swaps nothing more and records nothing.
    Abandoned,
    /// [`CleaningPass::finish`] ran.
    Finished,
}

/// One pass over one log: what [`super::Cleaner::prepare`] took from the log, and how far the
/// pass got. Owned by the cleaner's thread.
///
/// Its segment handles keep the files of the segments the log has deleted since (those the pass
/// replaced among them) open until it is dropped; the file system frees their blocks then, which
/// takes time for large segments, so drop it without the log's lock.
#[derive(Debug)]
pub struct CleaningPass {
    pub(super) range: CleanableRange,
    dir: PathBuf,
    config: LogConfig,
    now_ms: i64,
    pub(super) horizon_due: bool,
    /// Every segment below the first uncleanable offset, oldest first (never the active one).
    pub(super) segments: Vec<SegmentReader>,
    /// Where the map starts: an index into `segments` and a position in that segment's file.
    pub(super) dirty_start: (usize, u64),
    /// The aborted transactions overlapping `segments`, from the transaction indexes.
    pub(super) aborted_txns: Vec<AbortedTxn>,
    last_batches: BTreeMap<i64, LastBatch>,
    pub(super) abort: Arc<CleaningAbort>,
    pub(super) step: Step,
    stats: CleanStats,
    /// The segments below this index were replaced by swapped groups; those below
    /// `released_until` have had their handles released.
    swapped_until: usize,
    released_until: usize,
    /// A swap left its final renames for the next phase without the log to sync.
    dir_sync_pending: bool,
}

/// A group's `.cleaned` segment, complete and synced, waiting for [`CleaningPass::swap`].
#[derive(Debug)]
pub struct CleanedGroup {
    segment: Segment,
    /// The segments it replaces: indexes into the pass's `segments`.
    group: Range<usize>,
}

impl CleaningPass {
    /// Takes `range` from `log` and registers the pass with it (the first phase, with the log).
    pub(super) fn take(log: &mut Log, range: CleanableRange) -> Result<CleaningPass> {
        let now_ms = log.clock().now_ms();
        let taken: Vec<&Segment> = log.segments().range(..range.first_uncleanable_offset).map(|(_, s)| s).collect();
        let dirty_start = dirty_start(&taken, range.first_dirty_offset)?;
        let aborted_txns = match (taken.first(), taken.last()) {
            (Some(first), Some(last)) => log.collect_aborted_txns(first.base_offset(), last.next_offset()),
            _ => Vec::new(),
        };
        let segments = taken.iter().map(|s| s.reader()).collect();
        let pass = CleaningPass {
            range,
            dir: log.dir().to_owned(),
            config: log.config().clone(),
            now_ms,
            horizon_due: log.cleaner_delete_horizon_ms().is_some_and(|h| h <= now_ms),
            segments,
            dirty_start,
            aborted_txns,
            last_batches: last_batches(log),
            abort: log.begin_cleaning(),
            step: Step::Prepared,
            stats: CleanStats { first_dirty_offset: range.first_dirty_offset, ..CleanStats::default() },
            swapped_until: 0,
            released_until: 0,
            dir_sync_pending: false,
        };
        Ok(pass)
    }

    /// What the pass cleans: its dirty section and the sizes of both sections.
    pub fn range(&self) -> &CleanableRange {
        &self.range
    }

    /// The log aborted the pass: it stops here.
    pub(super) fn abandon(&mut self) -> Result<()> {
        self.step = Step::Abandoned;
        Ok(())
    }

    /// A phase without the log failed with `error`: the pass stops. If the log aborted it, the
    /// error is what the log's change did to the files the pass read, and the pass ends quietly.
    pub(super) fn fail(&mut self, error: LogError) -> Result<()> {
        self.step = Step::Abandoned;
        if self.abort.is_aborted() { Ok(()) } else { Err(error) }
    }

    /// The offset map is built, up to `end`: the groups to clean follow.
    pub(super) fn start_cleaning(&mut self, end: Offset, map_full: bool, keys_mapped: usize, map_id: u64) {
        self.stats.end_offset = end;
        self.stats.map_full = map_full;
        self.stats.keys_mapped = keys_mapped;
        let groups = group_segments(&self.segments, end, &self.config);
        self.step = Step::Cleaning { map_id, end, groups, unswapped: false };
    }

    /// Cleans the next group with `map` (see [`super::Cleaner::clean_next_group`]), once the
    /// last swap is settled.
    pub(super) fn clean_next_group(&mut self, map: &OffsetMap) -> Result<Option<CleanedGroup>> {
        self.settle_swaps()?;
        let Step::Cleaning { end, groups, unswapped, .. } = &mut self.step else { return Ok(None) };
        if *unswapped {
            return self.abandon().map(|()| None);
        }
        let Some(group) = groups.pop_front() else { return Ok(None) };
        *unswapped = true;
        let cx = FilterContext {
            map,
            map_end: *end,
            now_ms: self.now_ms,
            delete_retention_ms: self.config.delete_retention_ms,
            last_batches: &self.last_batches,
        };
        let files = GroupFiles { dir: &self.dir, config: &self.config, now_ms: self.now_ms, abort: &self.abort };
        let base = self.segments[group.start].base_offset;
        match clean_group(&self.segments[group.clone()], &self.aborted_txns, &cx, &files, &mut self.stats) {
            Ok(Some(segment)) => Ok(Some(CleanedGroup { segment, group })),
            Ok(None) => {
                delete_cleaned(&self.dir, base)?;
                self.abandon().map(|()| None)
            }
            Err(e) => {
                delete_cleaned(&self.dir, base)?;
                self.fail(e).map(|()| None)
            }
        }
    }

    /// A phase with the log (under the partition's lock, brief): swaps `cleaned` in for the
    /// segments it replaces, crash-safely (see [`super::swap`]). If the log aborted the pass, or
    /// those segments are no longer the ones the pass read, nothing is swapped: the cleaned files
    /// are deleted and the pass is abandoned. Returns whether `cleaned` went in.
    ///
    /// What is left for the next [`super::Cleaner::clean_next_group`], without the lock: syncing
    /// the directory once more, so the final names are durable (a crash before that finds the
    /// committed `.swap` files and completes the swap on open), and closing the handles on the
    /// replaced segments, whose blocks the file system frees then.
    pub fn swap(&mut self, log: &mut Log, cleaned: CleanedGroup) -> Result<bool> {
        let CleanedGroup { segment, group } = cleaned;
        let group_end = group.end;
        let replaced = &self.segments[group];
        let unchanged = replaced.iter().all(|r| {
            let segment = log.segments().get(&r.base_offset);
            segment.is_some_and(|s| s.next_offset() == r.next_offset && s.size() == r.size)
        });
        let waiting = matches!(self.step, Step::Cleaning { unswapped: true, .. });
        if !(waiting && unchanged && self.is_live(log)) {
            let base = segment.base_offset();
            drop(segment);
            delete_cleaned(&self.dir, base)?;
            return self.abandon().map(|()| false);
        }
        let bases: Vec<Offset> = replaced.iter().map(|r| r.base_offset).collect();
        log.replace_segments(segment, &bases)?;
        self.swapped_until = group_end;
        self.dir_sync_pending = true;
        if let Step::Cleaning { unswapped, .. } = &mut self.step {
            *unswapped = false;
        }
        self.stats.segments_swapped += 1;
        Ok(true)
    }

    /// The last phase, with the log (brief): if every group was swapped in and the log did not
    /// abort the pass, records its end as the log's first dirty offset, and its delete horizon.
    /// Unregisters the pass from the log either way. Returns what the pass did (`abandoned` set
    /// if it recorded nothing), or `None` if it had nothing to clean (or finished already). Drop
    /// the pass once the log's lock is released (see the type's doc).
    pub fn finish(&mut self, log: &mut Log) -> Option<CleanStats> {
        let live = self.is_live(log);
        log.end_cleaning(&self.abort);
        let stats = match &self.step {
            Step::Prepared | Step::NothingToClean | Step::Finished => None,
            Step::Cleaning { end, groups, unswapped: false, .. } if groups.is_empty() && live => {
                log.set_first_dirty_offset(*end);
                log.set_cleaner_delete_horizon_ms(self.stats.delete_horizon_ms);
                Some(self.stats.clone())
            }
            Step::Cleaning { .. } | Step::Abandoned => {
                self.stats.abandoned = true;
                Some(self.stats.clone())
            }
        };
        self.step = Step::Finished;
        stats
    }

    /// Without the log, after swaps: the directory synced for their final names (unless the log
    /// aborted the pass: it may be gone, and opening the log completes the swaps anyway), and the
    /// handles on the segments they replaced released.
    fn settle_swaps(&mut self) -> Result<()> {
        if std::mem::take(&mut self.dir_sync_pending) && !self.abort.is_aborted() {
            crate::file::sync_dir(&self.dir).map_err(|e| LogError::io(&self.dir, e))?;
        }
        for segment in &mut self.segments[self.released_until..self.swapped_until] {
            segment.release();
        }
        self.released_until = self.swapped_until;
        Ok(())
    }

    /// Whether `log` still runs this pass: it registered it and did not abort it.
    fn is_live(&self, log: &Log) -> bool {
        log.is_cleaning(&self.abort) && !self.abort.is_aborted()
    }
}

/// Where and how a group's `.cleaned` segment is made.
struct GroupFiles<'a> {
    dir: &'a Path,
    config: &'a LogConfig,
    now_ms: i64,
    abort: &'a CleaningAbort,
}

/// Rewrites `group` (adjacent segments, ascending) into one `.cleaned` segment with the first
/// one's base offset, flushed and ready to swap in. `None` if the log aborted the pass meanwhile;
/// the caller deletes whatever files were made then, or on an error.
fn clean_group(
    group: &[SegmentReader],
    aborted: &[AbortedTxn],
    cx: &FilterContext<'_>,
    files: &GroupFiles<'_>,
    stats: &mut CleanStats,
) -> Result<Option<Segment>> {
    let (Some(first), Some(last)) = (group.first(), group.last()) else {
        return Err(LogError::Invalid("an empty group of segments to clean".into()));
    };
    let mut txns = TxnTracker::new(overlapping(aborted, first.base_offset, last.next_offset));
    // Each abort marker's transaction-index entry, by the marker's offset: it follows the marker.
    let aborted_by_marker: BTreeMap<Offset, AbortedTxn> =
        group.iter().flat_map(|s| &s.aborted_txns).map(|txn| (txn.last_offset, *txn)).collect();
    let create =
        || Segment::create_with_suffix(files.dir, first.base_offset, files.config, files.now_ms, CLEANED_SUFFIX);
    let Some(cleaned) = files.abort.unless_aborted(create) else { return Ok(None) };
    let mut cleaned = cleaned?;
    for segment in group {
        stats.segments_read += 1;
        stats.bytes_read += segment.size;
        let mut position = 0;
        while let Some(batch) = segment.batch_at(position)? {
            if files.abort.is_aborted() {
                return Ok(None);
            }
            position += batch.size_in_bytes() as u64;
            let outcome = filter_batch(&batch, cx, &mut txns)?;
            stats.records_read += outcome.records_read;
            stats.records_kept += outcome.records_kept;
            let written = match outcome.filtered {
                Filtered::Dropped => continue,
                Filtered::Unchanged => batch,
                Filtered::Rebuilt(bytes) => {
                    RecordBatch::parse(bytes).map_err(|e| LogError::InvalidBatch(e.to_string()))?
                }
            };
            cleaned.append(&written)?;
            stats.bytes_written += written.size_in_bytes() as u64;
            if let Some(horizon) = written.delete_horizon_ms() {
                stats.delete_horizon_ms = Some(stats.delete_horizon_ms.map_or(horizon, |h| h.min(horizon)));
            }
            let is_abort_marker = written.attributes().is_control()
                && written.record_count() > 0
                && control_type(&written)? == Some(ControlRecordType::Abort);
            if is_abort_marker && let Some(txn) = aborted_by_marker.get(&written.last_offset()) {
                cleaned.append_aborted_txn(*txn)?;
            }
        }
    }
    cleaned.close_for_roll()?;
    stats.segments_written += 1;
    Ok(Some(cleaned))
}

/// Where the map starts in `segments`: the first batch holding an offset at or past
/// `first_dirty`, in the segment holding it (or the next one).
fn dirty_start(segments: &[&Segment], first_dirty: Offset) -> Result<(usize, u64)> {
    let i = segments.iter().rposition(|s| s.base_offset() <= first_dirty).unwrap_or(0);
    let Some(segment) = segments.get(i) else { return Ok((i, 0)) };
    Ok(match segment.translate_offset(first_dirty)? {
        Some(batch) => (i, batch.position),
        None => (i + 1, 0),
    })
}

/// The transactions of `aborted` overlapping `[from, to)`, as the transaction index's
/// `collect_aborted` bounds them.
pub(super) fn overlapping(aborted: &[AbortedTxn], from: Offset, to: Offset) -> Vec<AbortedTxn> {
    aborted.iter().filter(|txn| txn.last_offset >= from && txn.first_offset < to).copied().collect()
}

/// What each active producer last wrote, by producer id: those batches are kept.
fn last_batches(log: &Log) -> BTreeMap<i64, LastBatch> {
    log.producer_state()
        .active_producers()
        .iter()
        .map(|(id, entry)| (id.0, LastBatch { data_offset: entry.last_data_offset(), epoch: entry.producer_epoch() }))
        .collect()
}

/// The segments below `end` in groups to merge (indexes into `segments`): adjacent segments whose
/// sizes sum to at most `segment.bytes`, whose index entries fit one index, and whose offsets fit
/// one segment's 4-byte relative offsets (Kafka's `groupSegmentsBySize`).
fn group_segments(segments: &[SegmentReader], end: Offset, config: &LogConfig) -> VecDeque<Range<usize>> {
    let mut groups: VecDeque<Range<usize>> = VecDeque::new();
    let (mut bytes, mut offset_index, mut time_index) = (0u64, 0u64, 0u64);
    for (i, segment) in segments.iter().enumerate().take_while(|(_, s)| s.base_offset < end) {
        let fits = |group: &Range<usize>| {
            let span = segment.next_offset - 1 - segments[group.start].base_offset;
            bytes + segment.size <= config.segment_bytes
                && offset_index + segment.offset_index_bytes <= config.segment_index_bytes
                && time_index + segment.time_index_bytes <= config.segment_index_bytes
                && span <= i64::from(i32::MAX)
        };
        match groups.back_mut() {
            Some(group) if fits(group) => group.end = i + 1,
            _ => {
                groups.push_back(i..i + 1);
                (bytes, offset_index, time_index) = (0, 0, 0);
            }
        }
        bytes += segment.size;
        offset_index += segment.offset_index_bytes;
        time_index += segment.time_index_bytes;
    }
    groups
}
