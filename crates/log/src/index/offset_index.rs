//! The offset index (`<base offset>.index`): from an offset to where its batch starts in the
//! segment's `.log` file, in Kafka's layout, so that Kafka's `DumpLogSegments` reads it.
//!
//! - [`OffsetIndex`]: the sparse index of one segment; [`OffsetPosition`] is one of its entries.
//! - `IndexFile` (crate-private, also used by [`super::TimeIndex`]): Kafka's `AbstractIndex`
//!   without the memory map. A file of fixed-size entries, preallocated, written through with
//!   positioned writes, its entries kept in memory for binary search, and the rule that loads it
//!   back after a crash left it untrimmed.
//!
//! What it is not: it decides nothing about *when* an entry is written (the segment does, every
//! `index.interval.bytes`) and it never reads the `.log` file.

use std::path::Path;

use bytes::{Buf, BufMut};
use strand_base::Offset;

use crate::file::{SegmentFile, SyncTarget};
use crate::{LogError, Result};

/// An offset-index entry: the batch holding `offset` (and, for an entry read from the index, ending
/// with it) starts at byte `position` of the `.log` file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OffsetPosition {
    /// Absolute offset.
    pub offset: Offset,
    /// Byte position of the batch's start in the `.log` file.
    pub position: u32,
}

/// One segment's offset index, Kafka's `OffsetIndex`.
///
/// Format: a file of 8-byte big-endian entries, `int32` relative offset (offset − the segment's
/// base offset), `int32` position of the batch's **start** in the `.log` file. The segment writes
/// one entry per `index.interval.bytes` appended, for the **last** offset of a batch, so entries
/// strictly increase in both offset and position. The index is sparse: a lookup lands on the
/// batch at or before the target and the reader scans forward from there.
///
/// The file is preallocated to `segment.index.bytes` rounded down to whole entries (Kafka's
/// `maxIndexSize`); the tail beyond the entries reads as zeros. It is trimmed to `entries × 8`
/// bytes when the segment rolls and on clean shutdown. Nothing is checksummed: after an unclean
/// shutdown the log's recovery rebuilds the index, and [`OffsetIndex::open`] only has to load an
/// untrimmed file conservatively (see `IndexFile`'s load rule).
///
/// Ownership: the segment owns its index. All entries are kept in memory (8 bytes each) for lookups
/// and written through to the file with positioned writes; no memory map, and no descriptor held:
/// the file is opened for each write, trim or sync and closed after (Kafka closes an index's file
/// once it is mapped), so an idle partition's indexes cost no open file. Not internally
/// synchronised: `&mut self` to change it, `&self` to look up.
#[derive(Debug)]
pub struct OffsetIndex {
    base_offset: Offset,
    index: IndexFile<OffsetSlot>,
}

impl OffsetIndex {
    /// Bytes per entry on disk.
    pub const ENTRY_SIZE: usize = 8;

    /// Opens the index at `path` for the segment starting at `base_offset`, loading the entries
    /// already in the file, or creates it preallocated to `max_index_size_bytes` (Kafka's
    /// `segment.index.bytes`, rounded down to a multiple of 8).
    ///
    /// A file that is still preallocated (an unclean shutdown) is cut back to the entries loaded
    /// and preallocated again; what the load rule had to skip is reported by
    /// [`OffsetIndex::sanity_check`]. Fails with [`LogError::Invalid`] if `max_index_size_bytes`
    /// cannot hold a single entry.
    pub fn open(path: &Path, base_offset: Offset, max_index_size_bytes: u64) -> Result<OffsetIndex> {
        Ok(OffsetIndex { base_offset, index: IndexFile::open(path, max_index_size_bytes)? })
    }

    /// A new, empty index at `path` (emptied if it exists), preallocated as [`OffsetIndex::open`]
    /// creates one, in one `openat` and one `ftruncate`.
    pub fn create(path: &Path, base_offset: Offset, max_index_size_bytes: u64) -> Result<OffsetIndex> {
        Ok(OffsetIndex { base_offset, index: IndexFile::create(path, max_index_size_bytes)? })
    }

    /// The entry with the largest offset at or below `target_offset`, or (base offset, 0) if there
    /// is none: where a scan for `target_offset` starts.
    pub fn lookup(&self, target_offset: Offset) -> OffsetPosition {
        let entries = self.index.entries();
        let below = entries.partition_point(|slot| self.absolute(slot.relative_offset) <= target_offset);
        match below.checked_sub(1) {
            Some(n) => self.entry(n),
            None => OffsetPosition { offset: self.base_offset, position: 0 },
        }
    }

    /// The `n`th entry, `n < entries()`.
    pub fn entry(&self, n: usize) -> OffsetPosition {
        let slot = self.index.entries()[n];
        OffsetPosition { offset: self.absolute(slot.relative_offset), position: slot.position }
    }

    /// The last entry's offset, or the base offset when there is none (Kafka's `lastOffset`).
    pub fn last_offset(&self) -> Offset {
        self.index.entries().last().map_or(self.base_offset, |slot| self.absolute(slot.relative_offset))
    }

    /// Appends an entry: the batch ending at `offset` starts at `position`.
    ///
    /// The caller (the segment) guarantees, and this asserts, the index's invariants: not full,
    /// `offset` above the last entry's and within `[base, base + i32::MAX]`, `position` above the
    /// last entry's and at most `i32::MAX` (Kafka stores it as an `int32`). Errors only on I/O.
    pub fn append(&mut self, offset: Offset, position: u32) -> Result<()> {
        assert!(
            !self.is_full(),
            "{}: append to a full offset index ({} entries)",
            self.path().display(),
            self.entries()
        );
        assert!(self.can_append_offset(offset), "{}: offset {offset} outside the segment", self.path().display());
        assert!(position <= i32::MAX as u32, "{}: position {position} does not fit an int32", self.path().display());
        if let Some(last) = self.index.entries().last() {
            let last_offset = self.absolute(last.relative_offset);
            assert!(offset > last_offset, "{}: offset {offset} appended after {last_offset}", self.path().display());
            assert!(
                position > last.position,
                "{}: position {position} appended after {}",
                self.path().display(),
                last.position
            );
        }
        let relative_offset = (offset - self.base_offset) as i32;
        self.index.append(OffsetSlot { relative_offset, position })
    }

    /// Removes the entries with an offset at or above `offset`.
    pub fn truncate_to(&mut self, offset: Offset) -> Result<()> {
        let keep = self.index.entries().partition_point(|slot| self.absolute(slot.relative_offset) < offset);
        self.index.truncate_to_entries(keep)
    }

    /// Whether `offset` can be stored as a 4-byte offset relative to the base offset; a segment
    /// rolls before an offset that cannot.
    pub fn can_append_offset(&self, offset: Offset) -> bool {
        offset.checked_sub(self.base_offset).is_some_and(|relative| (0..=i64::from(i32::MAX)).contains(&relative))
    }

    /// Whether every slot is used; the segment rolls.
    pub fn is_full(&self) -> bool {
        self.entries() >= self.max_entries()
    }

    /// The number of entries.
    pub fn entries(&self) -> usize {
        self.index.entries().len()
    }

    /// The number of entries `segment.index.bytes` holds.
    pub fn max_entries(&self) -> usize {
        self.index.max_entries()
    }

    pub fn base_offset(&self) -> Offset {
        self.base_offset
    }

    pub fn path(&self) -> &Path {
        self.index.path()
    }

    /// [`LogError::Corrupt`] if opening found the file damaged: a length that is not a multiple of
    /// 8, or bytes after the entries that are neither entries in order nor preallocated zeros.
    /// The segment then rebuilds the index from its log.
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

    /// Preallocates the file to `segment.index.bytes` again, as for a segment that becomes active
    /// again (Kafka's `resize(maxIndexSize)`). Appends work without it; it only saves extending the
    /// file entry by entry.
    pub fn preallocate(&mut self) -> Result<()> {
        self.index.preallocate()
    }

    /// `fdatasync`: the entries written survive a power cut once this returns.
    pub fn sync(&self) -> Result<()> {
        self.index.sync()
    }

    /// What [`OffsetIndex::sync`] syncs, to sync without the segment's owner.
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

    fn absolute(&self, relative_offset: i32) -> Offset {
        self.base_offset + i64::from(relative_offset)
    }
}

/// An offset-index entry as stored: relative offset, position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OffsetSlot {
    relative_offset: i32,
    position: u32,
}

impl Slot for OffsetSlot {
    const SIZE: usize = OffsetIndex::ENTRY_SIZE;

    fn read(mut bytes: &[u8]) -> OffsetSlot {
        OffsetSlot { relative_offset: bytes.get_i32(), position: bytes.get_u32() }
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.put_i32(self.relative_offset);
        out.put_u32(self.position);
    }

    fn follows(&self, previous: Option<&OffsetSlot>) -> bool {
        let in_range = self.relative_offset >= 0 && self.position <= i32::MAX as u32;
        in_range
            && previous.is_none_or(|previous| {
                self.relative_offset > previous.relative_offset && self.position > previous.position
            })
    }

    fn is_zero(&self) -> bool {
        self.relative_offset == 0 && self.position == 0
    }
}

/// One entry of a sparse index (offset or time index) in its on-disk form.
pub(crate) trait Slot: Copy + std::fmt::Debug {
    /// Bytes per entry on disk.
    const SIZE: usize;

    /// Decodes an entry from exactly [`Slot::SIZE`] bytes.
    fn read(bytes: &[u8]) -> Self;

    /// Encodes the entry, [`Slot::SIZE`] bytes big-endian.
    fn write(&self, out: &mut Vec<u8>);

    /// Whether this entry, read from disk, may follow `previous` (`None`: it is the first).
    fn follows(&self, previous: Option<&Self>) -> bool;

    /// Whether this entry reads as an unwritten, preallocated slot (all zeros).
    fn is_zero(&self) -> bool;
}

/// How many bytes loading reads at a time, so that opening a preallocated index does not
/// allocate its whole size at once.
const LOAD_CHUNK_BYTES: usize = 64 * 1024;

/// The file beneath a sparse index: Kafka's `AbstractIndex` with positioned writes instead of a
/// memory map. Holds every entry in memory and no open descriptor (each write opens the file); `file`'s written length is always exactly
/// `entries × SIZE`, and while `preallocated` the file on disk is longer, its tail all zeros
/// (every truncation cuts the file and extends it again, so stale entries never linger there).
///
/// Load rule, for a file a crash left untrimmed: slots are read in order and loading stops at the
/// first slot that does not [`Slot::follows`] the previous one, i.e. is not strictly increasing.
/// A preallocated zero slot never follows an entry, because every entry is at or above zero. The
/// one ambiguous slot is an all-zero *first* slot: nothing, or a real entry for relative offset 0
/// at position 0 (timestamp 0 for the time index), and a one-slot preallocated file looks exactly
/// like a trimmed one-entry index. It is loaded only if an entry follows it. Never inventing an
/// entry matters more than keeping this one: dropping it loses nothing but a scan's starting point
/// that the base offset gives as well (the same offset and position), and Kafka never writes it
/// anyway, because the first batch of a segment never has `index.interval.bytes` before it.
/// Whatever is after the entries and is not all zeros (garbage, or an entry out of order) is
/// remembered and makes `sanity_check` fail, as does a length that is not a multiple of the entry
/// size.
#[derive(Debug)]
pub(crate) struct IndexFile<E> {
    file: SegmentFile,
    entries: Vec<E>,
    /// Kafka's `maxIndexSize`: `segment.index.bytes` rounded down to whole entries.
    max_index_size_bytes: u64,
    /// Whether the file on disk is longer than its entries; [`IndexFile::trim`] clears it.
    preallocated: bool,
    /// What opening found wrong with the file, for `sanity_check`.
    load_problem: Option<String>,
}

impl<E: Slot> IndexFile<E> {
    /// Opens and loads `path`, or creates it preallocated. See [`OffsetIndex::open`].
    pub(crate) fn open(path: &Path, max_index_size_bytes: u64) -> Result<IndexFile<E>> {
        let max_index_size_bytes = Self::whole_entries(path, max_index_size_bytes)?;
        let (mut file, created) = match SegmentFile::open_index(path, false) {
            Ok(file) => (file, false),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                (SegmentFile::open_index(path, true).map_err(|e| LogError::io(path, e))?, true)
            }
            Err(e) => return Err(LogError::io(path, e)),
        };
        let (entries, load_problem) = if created { (Vec::new(), None) } else { load(&file)?.into() };
        let written = entries.len() as u64 * E::SIZE as u64;
        let preallocated = created || file.len() > written;
        if file.len() != written {
            file.truncate(written).map_err(|e| LogError::io(path, e))?;
        }
        let mut index = IndexFile { file, entries, max_index_size_bytes, preallocated, load_problem };
        if preallocated {
            index.preallocate()?;
        }
        Ok(index)
    }

    /// A new, empty file at `path`, preallocated. See [`OffsetIndex::create`].
    pub(crate) fn create(path: &Path, max_index_size_bytes: u64) -> Result<IndexFile<E>> {
        let max_index_size_bytes = Self::whole_entries(path, max_index_size_bytes)?;
        let file = SegmentFile::create_index(path, max_index_size_bytes).map_err(|e| LogError::io(path, e))?;
        Ok(IndexFile { file, entries: Vec::new(), max_index_size_bytes, preallocated: true, load_problem: None })
    }

    /// `max_index_size_bytes` rounded down to whole entries; an error if not even one fits.
    fn whole_entries(path: &Path, max_index_size_bytes: u64) -> Result<u64> {
        let size = E::SIZE as u64;
        if max_index_size_bytes < size {
            let reason = format!("index size {max_index_size_bytes} cannot hold one {size}-byte entry");
            return Err(LogError::Invalid(format!("{}: {reason}", path.display())));
        }
        Ok(max_index_size_bytes / size * size)
    }

    pub(crate) fn entries(&self) -> &[E] {
        &self.entries
    }

    pub(crate) fn max_entries(&self) -> usize {
        (self.max_index_size_bytes / E::SIZE as u64) as usize
    }

    pub(crate) fn path(&self) -> &Path {
        self.file.path()
    }

    /// Writes `entry` after the last one; the caller has checked the order.
    pub(crate) fn append(&mut self, entry: E) -> Result<()> {
        let mut bytes = Vec::with_capacity(E::SIZE);
        entry.write(&mut bytes);
        assert_eq!(bytes.len(), E::SIZE, "an index entry encodes to its size");
        self.file.append(&bytes).map_err(|e| LogError::io(self.file.path(), e))?;
        self.entries.push(entry);
        Ok(())
    }

    /// Keeps the first `keep` entries; the file's tail becomes zeros again if preallocated.
    pub(crate) fn truncate_to_entries(&mut self, keep: usize) -> Result<()> {
        if keep >= self.entries.len() {
            return Ok(());
        }
        self.file.truncate(keep as u64 * E::SIZE as u64).map_err(|e| LogError::io(self.file.path(), e))?;
        self.entries.truncate(keep);
        if self.preallocated { self.preallocate() } else { Ok(()) }
    }

    pub(crate) fn reset(&mut self) -> Result<()> {
        self.file.truncate(0).map_err(|e| LogError::io(self.file.path(), e))?;
        self.entries.clear();
        self.load_problem = None;
        self.preallocate()
    }

    pub(crate) fn preallocate(&mut self) -> Result<()> {
        self.file.preallocate(self.max_index_size_bytes).map_err(|e| LogError::io(self.file.path(), e))?;
        self.preallocated = true;
        Ok(())
    }

    pub(crate) fn trim(&mut self) -> Result<()> {
        self.file.trim().map_err(|e| LogError::io(self.file.path(), e))?;
        self.preallocated = false;
        Ok(())
    }

    pub(crate) fn sync(&self) -> Result<()> {
        self.file.sync_data().map_err(|e| LogError::io(self.file.path(), e))
    }

    pub(crate) fn sync_target(&self) -> SyncTarget {
        self.file.sync_target()
    }

    pub(crate) fn sanity_check(&self) -> Result<()> {
        match &self.load_problem {
            Some(reason) => Err(LogError::corrupt(self.file.path(), reason.clone())),
            None => Ok(()),
        }
    }

    pub(crate) fn rename(&mut self, to: &Path) -> Result<()> {
        self.file.rename(to).map_err(|e| LogError::io(self.file.path(), e))
    }

    pub(crate) fn delete(self) -> Result<()> {
        match std::fs::remove_file(self.file.path()) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(LogError::io(self.file.path(), e)),
            _ => Ok(()),
        }
    }
}

/// What [`load`] found: the entries, why the file is damaged if it is, and how many bytes it read.
struct Loaded<E> {
    entries: Vec<E>,
    problem: Option<String>,
    #[cfg_attr(not(test), expect(dead_code, reason = "the tests check what loading read"))]
    bytes_read: u64,
}

impl<E> From<Loaded<E>> for (Vec<E>, Option<String>) {
    fn from(loaded: Loaded<E>) -> Self {
        (loaded.entries, loaded.problem)
    }
}

/// Reads the entries of an existing file by the load rule of [`IndexFile`]. Past the entries it
/// reads only what the file system holds as data: the holes a preallocation left (the whole tail
/// of an index whose broker was killed: `segment.index.bytes`, 10 MiB by default, per index) read
/// as zeros, so skipping them keeps a restart after a crash from reading every partition's full
/// preallocation, while garbage written further on is still found.
fn load<E: Slot>(file: &SegmentFile) -> Result<Loaded<E>> {
    let size = E::SIZE as u64;
    let slots = file.len() / size;
    let chunk_slots = (LOAD_CHUNK_BYTES / E::SIZE) as u64;
    let mut entries: Vec<E> = Vec::new();
    let mut stopped = false;
    let mut problem = None;
    let mut slot = 0;
    let mut bytes_read = 0;
    'chunks: while slot < slots {
        if stopped {
            match file.next_data(slot * size).map_err(|e| LogError::io(file.path(), e))? {
                Some(data) => slot = slot.max(data / size),
                None => break,
            }
            if slot >= slots {
                break;
            }
        }
        let count = (slots - slot).min(chunk_slots);
        let bytes = file.read_at(slot * size, (count * size) as usize).map_err(|e| LogError::io(file.path(), e))?;
        bytes_read += bytes.len() as u64;
        for raw in bytes.chunks_exact(E::SIZE) {
            let entry = E::read(raw);
            if !stopped && entry.follows(entries.last()) {
                entries.push(entry);
            } else if raw.iter().any(|&byte| byte != 0) {
                problem = Some(format!("entry {slot} is out of order: {entry:?}"));
                break 'chunks;
            } else {
                stopped = true;
            }
            slot += 1;
        }
    }
    if let [first] = entries.as_slice()
        && first.is_zero()
    {
        entries.clear();
    }
    if problem.is_none() && !file.len().is_multiple_of(size) {
        problem = Some(format!("length {} is not a multiple of {size}", file.len()));
    }
    Ok(Loaded { entries, problem, bytes_read })
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: Offset = 100;
    /// Room for 4 entries, plus 5 bytes that round away.
    const MAX_BYTES: u64 = 4 * 8 + 5;

    fn open(path: &Path) -> OffsetIndex {
        OffsetIndex::open(path, BASE, MAX_BYTES).expect("open")
    }

    fn entries(index: &OffsetIndex) -> Vec<(Offset, u32)> {
        (0..index.entries()).map(|n| index.entry(n)).map(|e| (e.offset, e.position)).collect()
    }

    /// A lookup answers with the entry at or below the target, or (base, 0) before the first.
    fn check_lookups(index: &OffsetIndex, cases: &[(Offset, (Offset, u32))]) {
        for &(target, (offset, position)) in cases {
            assert_eq!(index.lookup(target), OffsetPosition { offset, position }, "lookup({target})");
        }
    }

    /// Lookups at, between, before and after the entries, and on an empty index.
    #[test]
    fn lookups_find_the_entry_at_or_below() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut index = open(&dir.path().join("00000000000000000100.index"));
        check_lookups(&index, &[(0, (BASE, 0)), (BASE, (BASE, 0)), (i64::MAX, (BASE, 0))]);
        index.append(104, 4096)?;
        index.append(110, 8200)?;
        index.append(111, 9000)?;
        check_lookups(
            &index,
            &[
                (i64::MIN, (BASE, 0)),
                (BASE, (BASE, 0)),
                (103, (BASE, 0)),
                (104, (104, 4096)),
                (105, (104, 4096)),
                (109, (104, 4096)),
                (110, (110, 8200)),
                (111, (111, 9000)),
                (i64::MAX, (111, 9000)),
            ],
        );
        assert_eq!(index.last_offset(), 111);
        Ok(())
    }

    /// The file holds Kafka's bytes: big-endian relative offset, then position, 8 bytes an entry.
    #[test]
    fn byte_layout_is_kafkas() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("00000000000000000100.index");
        let mut index = open(&path);
        index.append(101, 0x0102_0304)?;
        index.append(BASE + 0x0A0B_0C0D, 0x7fff_fffe)?;
        index.trim()?;
        let expected = [0, 0, 0, 1, 1, 2, 3, 4, 0x0A, 0x0B, 0x0C, 0x0D, 0x7f, 0xff, 0xff, 0xfe];
        assert_eq!(std::fs::read(&path).expect("read"), expected);
        Ok(())
    }

    /// A new index is preallocated to the size rounded down to whole entries; full at that many.
    #[test]
    fn preallocated_and_full_at_max_entries() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("i.index");
        let mut index = open(&path);
        assert_eq!((std::fs::metadata(&path).expect("stat").len(), index.max_entries()), (32, 4));
        for n in 1..=4 {
            assert!(!index.is_full());
            index.append(BASE + n, n as u32 * 100)?;
        }
        assert!(index.is_full());
        index.trim()?;
        assert_eq!(std::fs::metadata(&path).expect("stat").len(), 32);
        Ok(())
    }

    /// A crashed segment's index: three entries, then the rest of its preallocation as it left it
    /// (a hole), and maybe garbage at the far end. Loading reads the entries and what is written
    /// after the hole, not the hole: a restart after `kill -9` does not read every index's
    /// `segment.index.bytes` (it read all 64 MiB here before).
    #[test]
    fn load_skips_the_hole_a_crash_leaves() -> Result<()> {
        const PREALLOCATED: u64 = 64 << 20;
        let dir = tempfile::tempdir().expect("tempdir");
        for garbage in [false, true] {
            let path = dir.path().join(format!("crashed-{garbage}.index"));
            let mut written = Vec::new();
            for (relative_offset, position) in [(1, 10), (2, 20), (4, 30)] {
                OffsetSlot { relative_offset, position }.write(&mut written);
            }
            std::fs::write(&path, &written).expect("write");
            let file = std::fs::OpenOptions::new().write(true).open(&path).expect("open");
            file.set_len(PREALLOCATED).expect("preallocate");
            if garbage {
                std::os::unix::fs::FileExt::write_all_at(&file, &[0, 0, 0, 9, 0, 0, 0, 99], PREALLOCATED - 8)
                    .expect("garbage");
            }
            drop(file);
            let loaded = load::<OffsetSlot>(&SegmentFile::open_index(&path, false).expect("open"))?;
            assert_eq!(loaded.entries.len(), 3, "garbage: {garbage}");
            assert_eq!(loaded.problem.is_some(), garbage, "{:?}", loaded.problem);
            assert!(loaded.bytes_read <= 4 * LOAD_CHUNK_BYTES as u64, "read {} bytes", loaded.bytes_read);
        }
        Ok(())
    }

    /// Appending to a full index is a bug in the caller, which must roll first.
    #[test]
    #[should_panic(expected = "full offset index")]
    fn append_to_full_index_panics() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut index = OffsetIndex::open(&dir.path().join("i.index"), BASE, 8).expect("open");
        index.append(101, 10).expect("append");
        let _ = index.append(102, 20);
    }

    /// An offset not above the last entry's is a bug in the caller.
    #[test]
    #[should_panic(expected = "appended after")]
    fn append_out_of_order_panics() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut index = open(&dir.path().join("i.index"));
        index.append(105, 10).expect("append");
        let _ = index.append(105, 20);
    }

    /// Truncation drops the entries at or above the offset, and the freed slots can be reused.
    #[test]
    fn truncate_drops_entries_at_or_above() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut index = open(&dir.path().join("i.index"));
        for (offset, position) in [(102, 10), (104, 20), (106, 30)] {
            index.append(offset, position)?;
        }
        index.truncate_to(107)?;
        assert_eq!(entries(&index), [(102, 10), (104, 20), (106, 30)]);
        index.truncate_to(105)?;
        assert_eq!(entries(&index), [(102, 10), (104, 20)]);
        index.truncate_to(104)?;
        assert_eq!(entries(&index), [(102, 10)]);
        index.append(103, 15)?;
        index.truncate_to(0)?;
        assert_eq!(entries(&index), []);
        assert_eq!(index.lookup(200), OffsetPosition { offset: BASE, position: 0 });
        Ok(())
    }

    /// A trimmed index reopens with the same entries and is not preallocated again.
    #[test]
    fn reopen_after_trim_gives_same_entries() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("i.index");
        let mut index = open(&path);
        index.append(BASE, 0)?;
        index.append(107, 70)?;
        index.trim()?;
        drop(index);
        let index = open(&path);
        assert_eq!(entries(&index), [(BASE, 0), (107, 70)]);
        index.sanity_check()?;
        assert_eq!(std::fs::metadata(&path).expect("stat").len(), 16);
        Ok(())
    }

    /// An untrimmed (crashed) index loads its entries up to the zeros, a leading (0, 0) entry
    /// included when one follows it, is preallocated again, and passes the sanity check.
    #[test]
    fn reopen_untrimmed_loads_up_to_the_zeros() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("i.index");
        let mut index = open(&path);
        index.append(BASE, 0)?;
        index.append(103, 30)?;
        drop(index);
        let mut index = open(&path);
        assert_eq!(entries(&index), [(BASE, 0), (103, 30)]);
        index.sanity_check()?;
        assert_eq!(std::fs::metadata(&path).expect("stat").len(), 32);
        index.truncate_to(103)?;
        drop(index);
        let index = open(&path);
        assert_eq!(entries(&index), []);
        index.sanity_check()?;
        Ok(())
    }

    /// A lone all-zero first slot is never loaded as an entry, trimmed or not, so a one-slot
    /// preallocated file of zeros does not invent one.
    #[test]
    fn lone_zero_slot_is_not_an_entry() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("i.index");
        let mut index = open(&path);
        index.append(BASE, 0)?;
        index.trim()?;
        drop(index);
        assert_eq!(entries(&open(&path)), []);
        let one_slot = dir.path().join("one.index");
        drop(OffsetIndex::open(&one_slot, BASE, 8)?);
        let index = OffsetIndex::open(&one_slot, BASE, 8)?;
        assert_eq!((index.entries(), index.is_full()), (0, false));
        index.sanity_check()
    }

    /// Bytes after the entries that are neither entries in order nor zeros fail the sanity
    /// check, and so does a length that is not a multiple of 8; the entries before still load.
    #[test]
    fn garbage_fails_the_sanity_check() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("i.index");
        std::fs::write(&path, [0, 0, 0, 5, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1]).expect("write");
        let index = open(&path);
        assert_eq!(entries(&index), [(105, 9)]);
        assert!(matches!(index.sanity_check(), Err(LogError::Corrupt { .. })));
        std::fs::write(&path, [0, 0, 0, 5, 0, 0, 0, 9, 0, 0]).expect("write");
        let index = open(&path);
        assert_eq!(entries(&index), [(105, 9)]);
        assert!(matches!(index.sanity_check(), Err(LogError::Corrupt { .. })));
        Ok(())
    }

    /// Reset empties and preallocates; rename moves the file; delete removes it.
    #[test]
    fn reset_rename_delete() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("i.index");
        let mut index = open(&path);
        index.append(101, 10)?;
        index.trim()?;
        index.reset()?;
        assert_eq!((index.entries(), std::fs::metadata(&path).expect("stat").len()), (0, 32));
        let moved = dir.path().join("i.index.deleted");
        index.rename(&moved)?;
        assert_eq!(index.path(), moved);
        index.append(101, 10)?;
        index.sync()?;
        index.delete()?;
        assert!(!moved.exists() && !path.exists());
        Ok(())
    }

    /// A size that cannot hold one entry is a configuration error, not a panic.
    #[test]
    fn too_small_a_size_is_invalid() {
        let dir = tempfile::tempdir().expect("tempdir");
        let opened = OffsetIndex::open(&dir.path().join("i.index"), BASE, 7);
        assert!(matches!(opened, Err(LogError::Invalid(_))));
    }
}
