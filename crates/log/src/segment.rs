//! One segment of a partition's log: `<base offset>.log` holding magic-2 record batches exactly as
//! appended, with its offset, time and transaction indexes beside it.
//!
//! Index entries follow Kafka's rules, so Kafka's DumpLogSegments verifies them: once more than
//! `index.interval.bytes` were appended since the last entry, the next batch gets an offset-index
//! entry (its **last** offset, its **start** position) and the time index gets (the largest
//! timestamp so far, the last offset of the batch that holds it) if that timestamp is new. A
//! segment is only ever appended to while it is the active one; rolling closes it (a final time
//! index entry, indexes trimmed to their real size).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use strand_base::Offset;
use strand_protocol::records::{LOG_OVERHEAD, RECORD_BATCH_OVERHEAD, RecordBatch};

use crate::config::LogConfig;
use crate::file::{SegmentFile, SyncTarget};
use crate::index::{AbortedTxn, OffsetIndex, TimeIndex, TimestampOffset, TxnIndex};
use crate::{LogError, Result};

/// Kafka's "no timestamp".
pub const NO_TIMESTAMP: i64 = -1;

/// The file name of a segment's file: the base offset in 20 digits, then the suffix.
pub fn file_name(base_offset: Offset, suffix: &str) -> String {
    format!("{base_offset:020}{suffix}")
}

/// A range of a segment's `.log` file holding whole batches (the last may be cut by `max_bytes`),
/// to be sent as-is, with `sendfile` on plaintext connections.
#[derive(Debug, Clone)]
pub struct SegmentSlice {
    pub file: Arc<std::fs::File>,
    pub position: u64,
    pub len: u64,
    /// The base offset of the first batch in the slice.
    pub first_batch_offset: Offset,
}

impl SegmentSlice {
    /// Copies the slice's bytes (for TLS connections and tests).
    pub fn read(&self) -> std::io::Result<Bytes> {
        crate::file::read_range(&self.file, self.position, self.len)
    }
}

/// Where a batch starts in the `.log` file, found by index lookup and a short scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchPosition {
    pub base_offset: Offset,
    pub last_offset: Offset,
    pub max_timestamp: i64,
    pub position: u64,
    pub size: u64,
}

#[derive(Debug)]
pub struct Segment {
    base_offset: Offset,
    log: SegmentFile,
    offset_index: OffsetIndex,
    time_index: TimeIndex,
    txn_index: TxnIndex,
    index_interval_bytes: u64,
    bytes_since_last_index_entry: u64,
    /// The largest batch max timestamp seen and the last offset of its batch.
    max_timestamp_so_far: TimestampOffset,
    /// The next offset after this segment's last batch (the base offset when empty).
    next_offset: Offset,
    /// The first batch's max timestamp, which `segment.ms` counts from (Kafka's rolling timestamp).
    rolling_timestamp: Option<i64>,
    created_ms: i64,
}

impl Segment {
    /// Creates the files of a new, empty segment.
    pub fn create(dir: &Path, base_offset: Offset, config: &LogConfig, now_ms: i64) -> Result<Segment> {
        Self::create_with_suffix(dir, base_offset, config, now_ms, "")
    }

    /// Creates a new, empty segment whose every file name ends with `suffix` after the usual one
    /// (`.cleaned` for the log cleaner's output, Kafka's `CleanedFileSuffix`). With a suffix, any
    /// leftover files of that name are replaced.
    pub fn create_with_suffix(
        dir: &Path,
        base_offset: Offset,
        config: &LogConfig,
        now_ms: i64,
        suffix: &str,
    ) -> Result<Segment> {
        // Leftovers of an interrupted pass (a plain `create` keeps its old behaviour).
        for extension in [".log", ".index", ".timeindex", ".txnindex"].iter().filter(|_| !suffix.is_empty()) {
            let path = dir.join(format!("{}{suffix}", file_name(base_offset, extension)));
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(LogError::io(&path, e)),
                _ => {}
            }
        }
        let path = dir.join(format!("{}{suffix}", file_name(base_offset, ".log")));
        let log = SegmentFile::open_log(&path, true).map_err(|e| LogError::io(&path, e))?;
        Self::with_log(dir, base_offset, log, config, now_ms, suffix)
    }

    /// Creates the first segment of a partition directory just created: nothing there to probe
    /// or replace, so each index file costs one `openat` (and one `ftruncate` to preallocate it)
    /// and the transaction index none until its first entry.
    pub fn create_in_new_dir(dir: &Path, base: Offset, config: &LogConfig, now_ms: i64) -> Result<Segment> {
        let path = |extension: &str| dir.join(file_name(base, extension));
        let log_path = path(".log");
        let log = SegmentFile::open_log(&log_path, true).map_err(|e| LogError::io(&log_path, e))?;
        let offset_index = OffsetIndex::create(&path(".index"), base, config.segment_index_bytes)?;
        let time_index = TimeIndex::create(&path(".timeindex"), base, config.segment_index_bytes)?;
        let txn_index = TxnIndex::absent(&path(".txnindex"), base);
        Ok(Self::assemble(base, log, (offset_index, time_index, txn_index), config, now_ms))
    }

    /// Renames every file of the segment from `<name><from>` to `<name><to>`: the indexes first,
    /// the `.log` last, so that a `.log` bearing the new suffix means every index bears it too
    /// (the log cleaner's `.cleaned` → `.swap` → final renames). The caller syncs the directory.
    pub fn change_suffix(&mut self, from: &str, to: &str) -> Result<()> {
        let renamed = |path: &Path| -> PathBuf {
            let name = path.to_string_lossy();
            PathBuf::from(format!("{}{to}", name.strip_suffix(from).unwrap_or(&name)))
        };
        let to_path = renamed(self.offset_index.path());
        self.offset_index.rename(&to_path)?;
        let to_path = renamed(self.time_index.path());
        self.time_index.rename(&to_path)?;
        let to_path = renamed(self.txn_index.path());
        self.txn_index.rename(&to_path)?;
        let from_path = self.log.path().to_owned();
        self.log.rename(&renamed(&from_path)).map_err(|e| LogError::io(&from_path, e))
    }

    /// The bytes the offset and time indexes hold (what a merged segment's indexes must fit in).
    pub fn index_bytes(&self) -> (u64, u64) {
        let offsets = self.offset_index.entries() as u64 * 8;
        let times = self.time_index.entries() as u64 * 12;
        (offsets, times)
    }

    /// Opens an existing segment, trusting its indexes (a clean shutdown). Use
    /// [`Segment::recover`] after an unclean one.
    pub fn open(dir: &Path, base_offset: Offset, config: &LogConfig, now_ms: i64) -> Result<Segment> {
        let path = dir.join(file_name(base_offset, ".log"));
        let log = SegmentFile::open_log(&path, false).map_err(|e| LogError::io(&path, e))?;
        let indexes_exist = [".index", ".timeindex"].iter().all(|s| dir.join(file_name(base_offset, s)).exists());
        let mut segment = Self::with_log(dir, base_offset, log, config, now_ms, "")?;
        let sane = indexes_exist
            && segment.offset_index.sanity_check().is_ok()
            && segment.time_index.sanity_check().is_ok()
            && segment.txn_index.sanity_check().is_ok();
        if !sane {
            segment.rebuild_indexes()?;
        } else if let Err(e) = segment.load_tail() {
            match e {
                // The offset index's last entry is not at a batch: a power cut kept an index older
                // than the log (a truncation's cut of the `.log` synced, the index's not, the log
                // appended to since). Rebuilt from the log, as an index that fails its sanity check
                // is (Kafka recovers a segment on a `CorruptIndexException` when loading).
                LogError::Corrupt { .. } => segment.rebuild_indexes()?,
                e => return Err(e),
            }
        }
        Ok(segment)
    }

    fn with_log(
        dir: &Path,
        base: Offset,
        log: SegmentFile,
        config: &LogConfig,
        now_ms: i64,
        suffix: &str,
    ) -> Result<Segment> {
        let path = |extension: &str| dir.join(format!("{}{suffix}", file_name(base, extension)));
        let offset_index = OffsetIndex::open(&path(".index"), base, config.segment_index_bytes)?;
        let time_index = TimeIndex::open(&path(".timeindex"), base, config.segment_index_bytes)?;
        let txn_index = TxnIndex::open(&path(".txnindex"), base)?;
        Ok(Self::assemble(base, log, (offset_index, time_index, txn_index), config, now_ms))
    }

    fn assemble(
        base: Offset,
        log: SegmentFile,
        (offset_index, time_index, txn_index): (OffsetIndex, TimeIndex, TxnIndex),
        config: &LogConfig,
        now_ms: i64,
    ) -> Segment {
        Segment {
            base_offset: base,
            log,
            offset_index,
            time_index,
            txn_index,
            index_interval_bytes: config.index_interval_bytes,
            bytes_since_last_index_entry: 0,
            max_timestamp_so_far: TimestampOffset { timestamp: NO_TIMESTAMP, offset: base },
            next_offset: base,
            rolling_timestamp: None,
            created_ms: now_ms,
        }
    }

    pub fn base_offset(&self) -> Offset {
        self.base_offset
    }

    /// The offset after this segment's last batch.
    pub fn next_offset(&self) -> Offset {
        self.next_offset
    }

    pub fn size(&self) -> u64 {
        self.log.len()
    }

    pub fn is_empty(&self) -> bool {
        self.log.is_empty()
    }

    pub fn path(&self) -> &Path {
        self.log.path()
    }

    /// The largest timestamp of any batch in the segment, and the last offset of its batch.
    /// The first batch's max timestamp (what `segment.ms` and `max.compaction.lag.ms` count
    /// from); `None` while the segment is empty.
    pub fn first_batch_timestamp(&self) -> Option<i64> {
        self.rolling_timestamp
    }

    pub fn max_timestamp(&self) -> TimestampOffset {
        self.max_timestamp_so_far
    }

    pub(crate) fn log_file(&self) -> &SegmentFile {
        &self.log
    }

    pub(crate) fn offset_index(&self) -> &OffsetIndex {
        &self.offset_index
    }

    pub(crate) fn time_index(&self) -> &TimeIndex {
        &self.time_index
    }

    /// Appends a batch whose offsets are already assigned. The caller keeps offsets increasing.
    pub fn append(&mut self, batch: &RecordBatch) -> Result<()> {
        assert!(
            batch.base_offset() >= self.next_offset,
            "segment {}: batch at {} appended after {}",
            self.base_offset,
            batch.base_offset(),
            self.next_offset
        );
        let path = self.log.path().to_owned();
        let position = self.log.append(batch.as_bytes()).map_err(|e| LogError::io(&path, e))?;
        self.index_batch(batch, position)
    }

    /// Updates the in-memory state and the indexes for a batch stored at `position`: the one rule
    /// shared by append and recovery.
    fn index_batch(&mut self, batch: &RecordBatch, position: u64) -> Result<()> {
        if batch.max_timestamp() > self.max_timestamp_so_far.timestamp {
            self.max_timestamp_so_far =
                TimestampOffset { timestamp: batch.max_timestamp(), offset: batch.last_offset() };
        }
        if self.rolling_timestamp.is_none() {
            self.rolling_timestamp = Some(batch.max_timestamp());
        }
        // A full index (recovering a segment with a smaller `segment.index.bytes` than it was
        // written with) takes no more entries: lookups scan on from its last one.
        if self.bytes_since_last_index_entry > self.index_interval_bytes
            && !self.offset_index.is_full()
            && !self.time_index.is_full()
        {
            self.offset_index.append(batch.last_offset(), position as u32)?;
            let max = self.max_timestamp_so_far;
            self.time_index.maybe_append(max.timestamp, max.offset, false)?;
            self.bytes_since_last_index_entry = 0;
        }
        self.bytes_since_last_index_entry += batch.size_in_bytes() as u64;
        self.next_offset = batch.next_offset();
        Ok(())
    }

    /// Records an aborted transaction whose abort marker is in this segment.
    pub fn append_aborted_txn(&mut self, txn: AbortedTxn) -> Result<()> {
        self.txn_index.append(txn)
    }

    pub fn txn_index(&self) -> &TxnIndex {
        &self.txn_index
    }

    /// Whether appending `size` bytes with these offsets and timestamp must go to a new segment.
    pub fn should_roll(
        &self,
        config: &LogConfig,
        size: u64,
        max_timestamp: i64,
        last_offset: Offset,
        now_ms: i64,
    ) -> bool {
        let jitter = self.roll_jitter_ms(config);
        let waited = match self.rolling_timestamp {
            Some(first) if first > 0 && max_timestamp > 0 => max_timestamp - first,
            _ => now_ms - self.created_ms,
        };
        let offset_fits = last_offset - self.base_offset <= i64::from(i32::MAX);
        !self.is_empty()
            && (self.size() > config.segment_bytes.saturating_sub(size)
                || waited > config.segment_ms - jitter
                || self.offset_index.is_full()
                || self.time_index.is_full()
                || !offset_fits)
    }

    /// This segment's share of `segment.jitter.ms`: Kafka draws it at random per segment so that
    /// partitions created together do not all roll at once; here it is derived from the base
    /// offset, which spreads it as well and keeps the log deterministic.
    fn roll_jitter_ms(&self, config: &LogConfig) -> i64 {
        let jitter_max = config.segment_jitter_ms.min(config.segment_ms).max(0);
        if jitter_max == 0 {
            return 0;
        }
        i64::from(crc32c::crc32c(&self.base_offset.to_be_bytes())) % (jitter_max + 1)
    }

    /// Finishes the segment when a new one takes over: the final time index entry, indexes and the
    /// file trimmed to their real size. Nothing is synced: a log's roll leaves that to a flush
    /// away from its lock (see `Log::take_roll_flush`).
    pub fn finish_for_roll(&mut self) -> Result<()> {
        let max = self.max_timestamp_so_far;
        if max.timestamp != NO_TIMESTAMP {
            self.time_index.maybe_append(max.timestamp, max.offset, true)?;
        }
        self.offset_index.trim()?;
        self.time_index.trim()?;
        // No longer appended to: its `.log` is read through the cold-file cache from now on.
        self.log.release();
        Ok(())
    }

    /// [`Segment::finish_for_roll`], then everything synced.
    pub fn close_for_roll(&mut self) -> Result<()> {
        self.finish_for_roll()?;
        self.flush()
    }

    /// The files [`Segment::flush`] syncs, to sync them without the log's lock.
    pub fn sync_targets(&self) -> impl Iterator<Item = SyncTarget> {
        let indexes = [self.offset_index.sync_target(), self.time_index.sync_target()];
        std::iter::once(self.log.sync_target()).chain(indexes).chain(self.txn_index.sync_target())
    }

    /// `fdatasync` of the log file and the indexes.
    pub fn flush(&self) -> Result<()> {
        self.sync_targets().try_for_each(|target| target.sync())
    }

    /// A clean shutdown: the final time index entry and trimmed indexes, as when rolling; the
    /// segment stays appendable (indexes are preallocated again on the next append that needs it).
    pub fn close(&mut self) -> Result<()> {
        self.close_for_roll()
    }

    /// Reads a batch header at `position`; `None` at the end of the written bytes or where too
    /// few bytes remain for a whole header.
    fn header_at(&self, position: u64) -> Result<Option<BatchPosition>> {
        header_at(&self.log, position)
    }

    /// The first batch whose last offset is at least `offset`, searching from the index entry at
    /// or below it.
    pub fn translate_offset(&self, offset: Offset) -> Result<Option<BatchPosition>> {
        let mut position = u64::from(self.offset_index.lookup(offset).position);
        while let Some(batch) = self.header_at(position)? {
            if batch.last_offset >= offset {
                return Ok(Some(batch));
            }
            position += batch.size;
        }
        Ok(None)
    }

    /// The bytes to return for a fetch from `offset`: whole batches from the one holding `offset`,
    /// up to `max_bytes` (but the first batch whole even if larger, KIP-74), never past
    /// `max_position`.
    pub fn read(&self, offset: Offset, max_bytes: u64, max_position: Option<u64>) -> Result<Option<SegmentSlice>> {
        let Some(first) = self.translate_offset(offset)? else { return Ok(None) };
        let end = max_position.unwrap_or(self.log.len()).min(self.log.len());
        if first.position >= end {
            return Ok(None);
        }
        let len = (end - first.position).min(max_bytes.max(first.size));
        let file = self.log.shared().map_err(|e| LogError::io(self.log.path(), e))?;
        Ok(Some(SegmentSlice { file, position: first.position, len, first_batch_offset: first.base_offset }))
    }

    /// Reads the whole batch at `position`; `None` where no whole batch starts there. The batch is
    /// parsed (header and length checked) but its CRC is not verified.
    pub fn batch_at(&self, position: u64) -> Result<Option<RecordBatch>> {
        batch_at(&self.log, position)
    }

    /// A read-only handle on this segment for the log cleaner, which reads it without the log's
    /// lock. Only for a segment that is no longer appended to (not the active one).
    pub(crate) fn reader(&self) -> SegmentReader {
        let (offset_index_bytes, time_index_bytes) = self.index_bytes();
        let log = self.log.reader();
        SegmentReader {
            base_offset: self.base_offset,
            next_offset: self.next_offset,
            size: self.log.len(),
            offset_index_bytes,
            time_index_bytes,
            aborted_txns: self.txn_index.entries().to_vec(),
            path: self.log.path().to_owned(),
            log: Some(log),
        }
    }

    /// Removes every batch from the one holding `offset` onwards; returns the bytes removed.
    pub fn truncate_to(&mut self, offset: Offset) -> Result<u64> {
        let Some(cut) = self.translate_offset(offset)? else { return Ok(0) };
        let removed = self.log.len() - cut.position;
        self.offset_index.truncate_to(cut.base_offset)?;
        self.time_index.truncate_to(cut.base_offset)?;
        self.txn_index.truncate_to(cut.base_offset)?;
        let path = self.log.path().to_owned();
        self.log.truncate(cut.position).map_err(|e| LogError::io(&path, e))?;
        self.rebuild_tail_state()?;
        Ok(removed)
    }

    /// Scans every batch, checking each CRC; truncates at the first torn or invalid batch and
    /// rebuilds the indexes. Calls `each` with every valid batch (for producer state and epochs);
    /// the aborted transactions it returns go to the rebuilt transaction index. Returns the bytes
    /// cut off.
    pub fn recover(&mut self, mut each: impl FnMut(&RecordBatch) -> Result<Vec<AbortedTxn>>) -> Result<u64> {
        self.offset_index.reset()?;
        self.time_index.reset()?;
        self.txn_index.reset()?;
        self.bytes_since_last_index_entry = 0;
        self.max_timestamp_so_far = TimestampOffset { timestamp: NO_TIMESTAMP, offset: self.base_offset };
        self.rolling_timestamp = None;
        self.next_offset = self.base_offset;
        let mut valid_bytes = 0u64;
        let mut corrupt = None;
        while let Ok(Some(batch)) = self.batch_at(valid_bytes) {
            if let Some(reason) = self.unrecoverable(&batch, valid_bytes) {
                corrupt = Some(reason);
                break;
            }
            // Replayed first: a batch the producer state refuses is cut before it is indexed.
            let aborted = match each(&batch) {
                Ok(aborted) => aborted,
                Err(e @ LogError::Io { .. }) => return Err(e),
                Err(e) => {
                    corrupt = Some(e.to_string());
                    break;
                }
            };
            self.index_batch(&batch, valid_bytes)?;
            for aborted in aborted {
                self.txn_index.append(aborted)?;
            }
            valid_bytes += batch.size_in_bytes() as u64;
        }
        let cut = self.log.len() - valid_bytes;
        if cut > 0 {
            let path = self.log.path().to_owned();
            let reason = corrupt.unwrap_or_else(|| "a torn or invalid batch".into());
            tracing::warn!(
                "{}: recovery found {reason} at byte {valid_bytes}; truncating {cut} bytes after it",
                path.display()
            );
            self.log.truncate(valid_bytes).map_err(|e| LogError::io(&path, e))?;
        }
        Ok(cut)
    }

    /// Why a batch that parsed and starts at `position` cannot be kept by recovery, if it cannot:
    /// a bad CRC, offsets that go backwards or do not fit this segment's relative offsets, or a
    /// position past what an index entry can hold. Recovery cuts the log there; nothing it keeps
    /// can trip an index's assertions.
    fn unrecoverable(&self, batch: &RecordBatch, position: u64) -> Option<String> {
        if !batch.crc_is_valid() {
            return Some("a batch with a bad CRC".into());
        }
        if batch.base_offset() < self.next_offset || batch.last_offset_delta() < 0 {
            return Some(format!(
                "offsets [{}, {}] after offset {}",
                batch.base_offset(),
                batch.last_offset(),
                self.next_offset - 1
            ));
        }
        if !self.offset_index.can_append_offset(batch.last_offset()) {
            return Some(format!("offset {} outside the segment", batch.last_offset()));
        }
        if position > i32::MAX as u64 {
            return Some(format!("a batch at position {position}, past what an index can address"));
        }
        None
    }

    /// Rebuilds the indexes from the log without checking anything else (an index was missing or
    /// failed its sanity check after a clean shutdown).
    fn rebuild_indexes(&mut self) -> Result<()> {
        self.recover(|_| Ok(Vec::new()))?;
        Ok(())
    }

    /// After opening with trusted indexes: scan from the last offset-index entry to learn the next
    /// offset and the max timestamp; read the first batch for the rolling timestamp.
    fn load_tail(&mut self) -> Result<()> {
        self.rebuild_tail_state()?;
        self.rolling_timestamp = self.header_at(0)?.map(|first| first.max_timestamp);
        Ok(())
    }

    /// Recomputes the next offset and max timestamp from the indexes' last entries and the batch
    /// headers after them. The indexing interval restarts, as Kafka's does after a reload.
    fn rebuild_tail_state(&mut self) -> Result<()> {
        let mut position = u64::from(self.offset_index.lookup(i64::MAX).position);
        self.next_offset = self.base_offset;
        self.bytes_since_last_index_entry = 0;
        self.max_timestamp_so_far = self.time_index.last_entry();
        while let Some(batch) = self.header_at(position)? {
            self.next_offset = batch.last_offset + 1;
            if batch.max_timestamp > self.max_timestamp_so_far.timestamp {
                self.max_timestamp_so_far =
                    TimestampOffset { timestamp: batch.max_timestamp, offset: batch.last_offset };
            }
            position += batch.size;
        }
        if self.next_offset == self.base_offset {
            self.rolling_timestamp = None;
        }
        Ok(())
    }

    /// Deletes the segment's files.
    pub fn delete(self) -> Result<()> {
        // The `.log` is renamed first, atomically: from then on the segment is gone for recovery,
        // which also removes the `.deleted` file and indexes left without a `.log` by a crash.
        let path: PathBuf = self.log.path().to_owned();
        let mut deleted = path.clone().into_os_string();
        deleted.push(".deleted");
        std::fs::rename(&path, &deleted).map_err(|e| LogError::io(&path, e))?;
        self.offset_index.delete()?;
        self.time_index.delete()?;
        self.txn_index.delete()?;
        std::fs::remove_file(&deleted).map_err(|e| LogError::io(&path, e))
    }
}

/// A read-only handle on a segment that is no longer appended to (never the active one), for a
/// reader that does not hold the log's lock: the log cleaner. It reads the segment's `.log` through
/// the cold-file cache (holding no descriptor of its own) and only the bytes written when it was
/// taken. What the cleaner needs of the indexes is copied when it is taken: their sizes and the
/// transaction index's entries.
///
/// What it is not: a guarantee that the bytes stay as they were. Only a truncation or a deletion
/// changes a segment that is no longer appended to, and the log aborts the cleaner's pass when it
/// does either (see `cleaner::CleaningAbort`); a reader of an aborted pass may fail or read
/// anything, and its result is thrown away.
#[derive(Debug)]
pub(crate) struct SegmentReader {
    pub base_offset: Offset,
    /// The offset after the segment's last batch.
    pub next_offset: Offset,
    /// The bytes of the `.log` file when the handle was taken.
    pub size: u64,
    /// The bytes of the offset and time indexes' entries.
    pub offset_index_bytes: u64,
    pub time_index_bytes: u64,
    /// The transaction index's entries: the aborted transactions whose markers are here.
    pub aborted_txns: Vec<AbortedTxn>,
    /// The `.log` file's path when the handle was taken (for errors).
    pub path: PathBuf,
    /// `None` once released.
    log: Option<SegmentFile>,
}

impl SegmentReader {
    /// The whole batch at `position`, as [`Segment::batch_at`]. Fails once released.
    pub fn batch_at(&self, position: u64) -> Result<Option<RecordBatch>> {
        let Some(log) = &self.log else {
            return Err(LogError::Invalid(format!("{}: read after its handle was released", self.path.display())));
        };
        batch_at(log, position)
    }

    /// Lets go of the handle's file; what was read of the segment stays.
    pub fn release(&mut self) {
        self.log = None;
    }
}

/// Reads a batch header at `position` of `log`; `None` at the end of the written bytes or where
/// too few bytes remain for a whole header.
pub(crate) fn header_at(log: &SegmentFile, position: u64) -> Result<Option<BatchPosition>> {
    if position + RECORD_BATCH_OVERHEAD as u64 > log.len() {
        return Ok(None);
    }
    let mut header = [0u8; 43];
    log.read_exact_at(&mut header, position).map_err(|e| LogError::io(log.path(), e))?;
    let field = |at: usize| -> [u8; 8] { header[at..at + 8].try_into().unwrap_or_default() };
    let base_offset = i64::from_be_bytes(field(0));
    let length = i32::from_be_bytes(header[8..12].try_into().unwrap_or_default());
    let delta = i32::from_be_bytes(header[23..27].try_into().unwrap_or_default());
    let max_timestamp = i64::from_be_bytes(field(35));
    if length < (RECORD_BATCH_OVERHEAD - LOG_OVERHEAD) as i32 {
        return Err(LogError::corrupt(log.path(), format!("batch length {length} at {position}")));
    }
    let size = LOG_OVERHEAD as u64 + length as u64;
    if position + size > log.len() {
        return Ok(None);
    }
    let last_offset = base_offset + i64::from(delta);
    Ok(Some(BatchPosition { base_offset, last_offset, max_timestamp, position, size }))
}

/// Reads the whole batch at `position` of `log` (header and length checked, CRC not verified).
pub(crate) fn batch_at(log: &SegmentFile, position: u64) -> Result<Option<RecordBatch>> {
    let Some(header) = header_at(log, position)? else { return Ok(None) };
    let bytes = log.read_at(position, header.size as usize).map_err(|e| LogError::io(log.path(), e))?;
    let batch = RecordBatch::parse(Bytes::from(bytes)).map_err(|e| LogError::corrupt(log.path(), e.to_string()))?;
    Ok(Some(batch))
}
