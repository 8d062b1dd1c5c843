//! The time index (`<base offset>.timeindex`): from a timestamp to the offset from which to scan
//! the segment for it, in Kafka's layout, so that Kafka's `DumpLogSegments` reads it.
//!
//! - [`TimeIndex`]: the sparse index of one segment; [`TimestampOffset`] is one of its entries.
//!
//! What it is not: it decides nothing about *when* an entry is written (the segment does, with
//! each offset-index entry and once more on roll) and it never reads the `.log` file. The file,
//! its preallocation and its load rule are shared with the offset index (`IndexFile`).

use std::path::Path;

use bytes::{Buf, BufMut};
use strand_base::Offset;

use super::offset_index::{IndexFile, Slot};
use crate::Result;
use crate::file::SyncTarget;

/// Kafka's `RecordBatch.NO_TIMESTAMP`.
const NO_TIMESTAMP: i64 = -1;

/// A time-index entry: every record with a timestamp above `timestamp` is at an offset above
/// `offset`. For an entry read from the index, `timestamp` is the largest timestamp in the
/// segment up to the batch ending at `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimestampOffset {
    /// Milliseconds since the epoch, or `-1` (`NO_TIMESTAMP`) in "nothing found" answers.
    pub timestamp: i64,
    /// Absolute offset.
    pub offset: Offset,
}

/// One segment's time index, Kafka's `TimeIndex`.
///
/// Format: a file of 12-byte big-endian entries, `int64` timestamp, `int32` relative offset
/// (offset − the segment's base offset). An entry is (the largest timestamp so far, the last offset
/// of the batch that holds it); timestamps strictly increase from entry to entry, offsets never
/// decrease.
///
/// The file is preallocated to `segment.index.bytes` rounded down to whole entries and trimmed to
/// `entries × 12` bytes on roll and clean shutdown. One slot is kept for the entry the segment
/// writes when it rolls, so the index counts as full one entry early (as Kafka's does). Nothing is
/// checksummed; after an unclean shutdown the log's recovery rebuilds the index, and
/// [`TimeIndex::open`] loads an untrimmed file conservatively (strictly increasing timestamps, see
/// the offset index's `IndexFile`).
///
/// Ownership: the segment owns its index. All entries are kept in memory for lookups and written
/// through with positioned writes; no memory map. Not internally synchronised.
#[derive(Debug)]
pub struct TimeIndex {
    base_offset: Offset,
    index: IndexFile<TimeSlot>,
}

impl TimeIndex {
    /// Bytes per entry on disk.
    pub const ENTRY_SIZE: usize = 12;

    /// Opens the index at `path` for the segment starting at `base_offset`, loading the entries
    /// already in the file, or creates it preallocated to `max_index_size_bytes` rounded down to a
    /// multiple of 12. As [`super::OffsetIndex::open`] otherwise.
    pub fn open(path: &Path, base_offset: Offset, max_index_size_bytes: u64) -> Result<TimeIndex> {
        Ok(TimeIndex { base_offset, index: IndexFile::open(path, max_index_size_bytes)? })
    }

    /// A new, empty index at `path` (emptied if it exists), preallocated, in one `openat` and one
    /// `ftruncate`.
    pub fn create(path: &Path, base_offset: Offset, max_index_size_bytes: u64) -> Result<TimeIndex> {
        Ok(TimeIndex { base_offset, index: IndexFile::create(path, max_index_size_bytes)? })
    }

    /// The entry with the largest timestamp at or below `target_timestamp`, or
    /// (`NO_TIMESTAMP`, base offset) if there is none: the offset from which to scan for the first
    /// record at or after `target_timestamp`.
    pub fn lookup(&self, target_timestamp: i64) -> TimestampOffset {
        let below = self.index.entries().partition_point(|slot| slot.timestamp <= target_timestamp);
        match below.checked_sub(1) {
            Some(n) => self.entry(n),
            None => self.none(),
        }
    }

    /// The last entry, or (`NO_TIMESTAMP`, base offset) when there is none.
    pub fn last_entry(&self) -> TimestampOffset {
        match self.entries().checked_sub(1) {
            Some(n) => self.entry(n),
            None => self.none(),
        }
    }

    /// The `n`th entry, `n < entries()`.
    pub fn entry(&self, n: usize) -> TimestampOffset {
        let slot = self.index.entries()[n];
        TimestampOffset { timestamp: slot.timestamp, offset: self.base_offset + i64::from(slot.relative_offset) }
    }

    /// Appends (`timestamp`, `offset`) if `timestamp` is above the last entry's (above
    /// `NO_TIMESTAMP` for an empty index); otherwise does nothing, which is how the same entry
    /// offered twice (on roll after the last append) is absorbed.
    ///
    /// `skip_full_check` is for the segment's final entry on roll, which uses the slot
    /// [`TimeIndex::is_full`] keeps back. The caller guarantees, and this asserts: the index is
    /// not full unless `skip_full_check`, `offset` is not below the last entry's and lies within
    /// `[base, base + i32::MAX]`. Errors only on I/O.
    pub fn maybe_append(&mut self, timestamp: i64, offset: Offset, skip_full_check: bool) -> Result<()> {
        assert!(
            skip_full_check || !self.is_full(),
            "{}: append to a full time index ({} entries)",
            self.path().display(),
            self.entries()
        );
        let last = self.last_entry();
        assert!(
            self.entries() == 0 || offset >= last.offset,
            "{}: offset {offset} appended after {}",
            self.path().display(),
            last.offset
        );
        let relative_offset = offset.checked_sub(self.base_offset).and_then(|relative| i32::try_from(relative).ok());
        let relative_offset = match relative_offset {
            Some(relative_offset) if relative_offset >= 0 => relative_offset,
            _ => panic!("{}: offset {offset} outside the segment", self.path().display()),
        };
        if timestamp > last.timestamp {
            self.index.append(TimeSlot { timestamp, relative_offset })?;
        }
        Ok(())
    }

    /// Removes the entries with an offset at or above `offset`.
    pub fn truncate_to(&mut self, offset: Offset) -> Result<()> {
        let base_offset = self.base_offset;
        let keep = self.index.entries().partition_point(|slot| base_offset + i64::from(slot.relative_offset) < offset);
        self.index.truncate_to_entries(keep)
    }

    /// Whether the segment must roll: all slots but the one kept for the roll entry are used
    /// (Kafka's `entries >= maxEntries - 1`).
    pub fn is_full(&self) -> bool {
        self.entries() >= self.max_entries().saturating_sub(1)
    }

    /// The number of entries.
    pub fn entries(&self) -> usize {
        self.index.entries().len()
    }

    /// The number of entries `segment.index.bytes` holds, the roll slot included.
    pub fn max_entries(&self) -> usize {
        self.index.max_entries()
    }

    pub fn base_offset(&self) -> Offset {
        self.base_offset
    }

    pub fn path(&self) -> &Path {
        self.index.path()
    }

    /// [`crate::LogError::Corrupt`] if opening found the file damaged: a length that is not a
    /// multiple of 12, or bytes after the entries that are neither entries in order nor
    /// preallocated zeros. The segment then rebuilds the index from its log.
    pub fn sanity_check(&self) -> Result<()> {
        self.index.sanity_check()
    }

    /// Removes every entry and preallocates the file again (before a rebuild).
    pub fn reset(&mut self) -> Result<()> {
        self.index.reset()
    }

    /// Shrinks the file to its entries (on roll and clean shutdown).
    pub fn trim(&mut self) -> Result<()> {
        self.index.trim()
    }

    /// Preallocates the file to `segment.index.bytes` again (a segment active again).
    pub fn preallocate(&mut self) -> Result<()> {
        self.index.preallocate()
    }

    /// `fdatasync`: the entries written survive a power cut once this returns.
    pub fn sync(&self) -> Result<()> {
        self.index.sync()
    }

    /// What [`TimeIndex::sync`] syncs, to sync without the segment's owner.
    pub fn sync_target(&self) -> SyncTarget {
        self.index.sync_target()
    }

    /// Renames the file (segment deletion renames to `.deleted` first).
    pub fn rename(&mut self, to: &Path) -> Result<()> {
        self.index.rename(to)
    }

    /// Removes the file; a file already gone is not an error.
    pub fn delete(self) -> Result<()> {
        self.index.delete()
    }

    fn none(&self) -> TimestampOffset {
        TimestampOffset { timestamp: NO_TIMESTAMP, offset: self.base_offset }
    }
}

/// A time-index entry as stored: timestamp, relative offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TimeSlot {
    timestamp: i64,
    relative_offset: i32,
}

impl Slot for TimeSlot {
    const SIZE: usize = TimeIndex::ENTRY_SIZE;

    fn read(mut bytes: &[u8]) -> TimeSlot {
        TimeSlot { timestamp: bytes.get_i64(), relative_offset: bytes.get_i32() }
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.put_i64(self.timestamp);
        out.put_i32(self.relative_offset);
    }

    /// Timestamps strictly increase (the first is above `NO_TIMESTAMP`); offsets never decrease.
    fn follows(&self, previous: Option<&TimeSlot>) -> bool {
        match previous {
            None => self.timestamp > NO_TIMESTAMP && self.relative_offset >= 0,
            Some(previous) => self.timestamp > previous.timestamp && self.relative_offset >= previous.relative_offset,
        }
    }

    fn is_zero(&self) -> bool {
        self.timestamp == 0 && self.relative_offset == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LogError;

    const BASE: Offset = 1000;
    /// Room for 4 entries (3 plus the roll slot), plus 11 bytes that round away.
    const MAX_BYTES: u64 = 4 * 12 + 11;

    fn open(path: &Path) -> TimeIndex {
        TimeIndex::open(path, BASE, MAX_BYTES).expect("open")
    }

    fn entries(index: &TimeIndex) -> Vec<(i64, Offset)> {
        (0..index.entries()).map(|n| index.entry(n)).map(|e| (e.timestamp, e.offset)).collect()
    }

    /// A lookup answers with the entry at or below the target timestamp, or (-1, base).
    fn check_lookups(index: &TimeIndex, cases: &[(i64, (i64, Offset))]) {
        for &(target, (timestamp, offset)) in cases {
            assert_eq!(index.lookup(target), TimestampOffset { timestamp, offset }, "lookup({target})");
        }
    }

    /// Lookups at, between, before and after the entries, and on an empty index.
    #[test]
    fn lookups_find_the_entry_at_or_below() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut index = open(&dir.path().join("t.timeindex"));
        check_lookups(&index, &[(i64::MIN, (-1, BASE)), (0, (-1, BASE)), (i64::MAX, (-1, BASE))]);
        assert_eq!(index.last_entry(), TimestampOffset { timestamp: -1, offset: BASE });
        index.maybe_append(500, 1003, false)?;
        index.maybe_append(700, 1003, false)?;
        index.maybe_append(900, 1010, false)?;
        check_lookups(
            &index,
            &[
                (-1, (-1, BASE)),
                (499, (-1, BASE)),
                (500, (500, 1003)),
                (600, (500, 1003)),
                (700, (700, 1003)),
                (899, (700, 1003)),
                (900, (900, 1010)),
                (i64::MAX, (900, 1010)),
            ],
        );
        assert_eq!(index.last_entry(), TimestampOffset { timestamp: 900, offset: 1010 });
        Ok(())
    }

    /// Only a timestamp above the last entry's is appended; equal or lower ones are ignored.
    #[test]
    fn only_increasing_timestamps_are_appended() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut index = open(&dir.path().join("t.timeindex"));
        index.maybe_append(-1, 1001, false)?;
        index.maybe_append(10, 1002, false)?;
        index.maybe_append(10, 1004, false)?;
        index.maybe_append(5, 1005, false)?;
        index.maybe_append(11, 1005, false)?;
        assert_eq!(entries(&index), [(10, 1002), (11, 1005)]);
        Ok(())
    }

    /// An offset below the last entry's is a bug in the caller.
    #[test]
    #[should_panic(expected = "appended after")]
    fn offset_going_back_panics() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut index = open(&dir.path().join("t.timeindex"));
        index.maybe_append(10, 1005, false).expect("append");
        let _ = index.maybe_append(20, 1004, false);
    }

    /// The file holds Kafka's bytes: big-endian timestamp, then relative offset, 12 bytes each.
    #[test]
    fn byte_layout_is_kafkas() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t.timeindex");
        let mut index = open(&path);
        index.maybe_append(0x0102_0304_0506_0708, 1001, false)?;
        index.maybe_append(0x0102_0304_0506_0709, BASE + 0x0A0B_0C0D, false)?;
        index.trim()?;
        let expected = [
            1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 1, //
            1, 2, 3, 4, 5, 6, 7, 9, 0x0A, 0x0B, 0x0C, 0x0D,
        ];
        assert_eq!(std::fs::read(&path).expect("read"), expected);
        Ok(())
    }

    /// Full one entry early; the kept slot takes the roll entry; rounded-down preallocation.
    #[test]
    fn full_keeps_the_roll_slot() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t.timeindex");
        let mut index = open(&path);
        assert_eq!((std::fs::metadata(&path).expect("stat").len(), index.max_entries()), (48, 4));
        for n in 1..=3 {
            assert!(!index.is_full());
            index.maybe_append(n * 10, BASE + n, false)?;
        }
        assert!(index.is_full());
        index.maybe_append(40, 1004, true)?;
        index.maybe_append(40, 1004, true)?;
        assert_eq!(index.entries(), 4);
        Ok(())
    }

    /// Appending to a full index without the roll exemption is a bug in the caller.
    #[test]
    #[should_panic(expected = "full time index")]
    fn append_to_full_index_panics() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut index = TimeIndex::open(&dir.path().join("t.timeindex"), BASE, 24).expect("open");
        index.maybe_append(10, 1001, false).expect("append");
        let _ = index.maybe_append(20, 1002, false);
    }

    /// Truncation drops entries at or above the offset, including several sharing one offset.
    #[test]
    fn truncate_drops_entries_at_or_above() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut index = open(&dir.path().join("t.timeindex"));
        index.maybe_append(10, 1002, false)?;
        index.maybe_append(20, 1005, false)?;
        index.maybe_append(30, 1005, false)?;
        index.truncate_to(1006)?;
        assert_eq!(index.entries(), 3);
        index.truncate_to(1005)?;
        assert_eq!(entries(&index), [(10, 1002)]);
        index.maybe_append(15, 1003, false)?;
        assert_eq!(entries(&index), [(10, 1002), (15, 1003)]);
        index.truncate_to(BASE)?;
        assert_eq!(index.last_entry(), TimestampOffset { timestamp: -1, offset: BASE });
        Ok(())
    }

    /// Trimmed or not, a reopened index has the same entries; garbage after them is reported.
    #[test]
    fn reopen_trimmed_untrimmed_and_damaged() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t.timeindex");
        let mut index = open(&path);
        index.maybe_append(0, BASE, false)?;
        index.maybe_append(20, 1002, false)?;
        drop(index);
        let mut index = open(&path);
        assert_eq!(entries(&index), [(0, BASE), (20, 1002)]);
        index.sanity_check()?;
        index.trim()?;
        drop(index);
        let index = open(&path);
        assert_eq!(entries(&index), [(0, BASE), (20, 1002)]);
        index.sanity_check()?;
        drop(index);
        let mut bytes = std::fs::read(&path).expect("read");
        bytes.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 9]);
        std::fs::write(&path, bytes).expect("write");
        let index = open(&path);
        assert_eq!(entries(&index), [(0, BASE), (20, 1002)]);
        assert!(matches!(index.sanity_check(), Err(LogError::Corrupt { .. })));
        Ok(())
    }
}
