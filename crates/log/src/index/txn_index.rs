//! The transaction index (`<base offset>.txnindex`): the aborted transactions whose abort markers
//! are in a segment, so that a `read_committed` fetch can tell the consumer which records to drop.
//!
//! - [`TxnIndex`]: one segment's index; [`AbortedTxn`] is one entry; [`TxnIndexSearchResult`] is
//!   what a fetch's search returns.
//!
//! What it is not: it does not track open transactions (the producer state does) and it never reads
//! the `.log` file. Unlike the offset and time indexes it is not sparse and not preallocated.

use std::path::{Path, PathBuf};

use bytes::{Buf, BufMut};
use strand_base::Offset;

use crate::file::{SegmentFile, SyncTarget};
use crate::{LogError, Result};

/// An aborted transaction, Kafka's `AbortedTxn`: a producer's records from `first_offset` to the
/// abort marker at `last_offset` are to be dropped by `read_committed` consumers.
/// `last_stable_offset` is the partition's last stable offset when the marker was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbortedTxn {
    pub producer_id: i64,
    pub first_offset: Offset,
    pub last_offset: Offset,
    pub last_stable_offset: Offset,
}

/// The aborted transactions overlapping a fetch range, and whether the search may stop here
/// (Kafka's `TxnIndexSearchResult`). Incomplete means a transaction aborted in a later segment may
/// still overlap the range, so the search goes on into the next segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnIndexSearchResult {
    pub aborted_txns: Vec<AbortedTxn>,
    pub is_complete: bool,
}

/// One segment's transaction index, Kafka's `TransactionIndex`.
///
/// Format: a file of 34-byte big-endian entries, `int16` version (0), `int64` producer id,
/// `int64` first offset, `int64` last offset, `int64` last stable offset, in the order the abort
/// markers were appended, so last offsets strictly increase. Offsets are absolute; a transaction
/// may start in an earlier segment.
///
/// As in Kafka, the file exists only once an entry was appended, and it is neither preallocated
/// nor checksummed: the log's recovery rebuilds it after an unclean shutdown. [`TxnIndex::open`]
/// loads whole entries in order and cuts the file after them; what it had to cut (a torn entry, an
/// unknown version, an entry out of order) is reported by [`TxnIndex::sanity_check`].
///
/// Ownership: the segment owns its index. Entries are kept in memory (aborts are rare) and
/// appended to the file with positioned writes, through a descriptor opened for each write. Not internally synchronised.
#[derive(Debug)]
pub struct TxnIndex {
    base_offset: Offset,
    path: PathBuf,
    /// `None` until the first entry is appended, if the file did not exist.
    file: Option<SegmentFile>,
    entries: Vec<AbortedTxn>,
    /// What opening found wrong with the file, for `sanity_check`.
    load_problem: Option<String>,
}

impl TxnIndex {
    /// Bytes per entry on disk.
    pub const ENTRY_SIZE: usize = 34;
    /// The entry version this code writes and reads.
    pub const VERSION: i16 = 0;

    /// The empty index of a segment in a directory just created: no file to look for (it is
    /// created on the first append).
    pub fn absent(path: &Path, base_offset: Offset) -> TxnIndex {
        TxnIndex { base_offset, path: path.to_owned(), file: None, entries: Vec::new(), load_problem: None }
    }

    /// Opens the index at `path` for the segment starting at `base_offset`, loading its entries;
    /// a missing file is an empty index, created on the first append.
    pub fn open(path: &Path, base_offset: Offset) -> Result<TxnIndex> {
        let mut index =
            TxnIndex { base_offset, path: path.to_owned(), file: None, entries: Vec::new(), load_problem: None };
        let mut file = match SegmentFile::open_index(path, false) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(index),
            Err(e) => return Err(LogError::io(path, e)),
        };
        let bytes = file.read_at(0, file.len() as usize).map_err(|e| LogError::io(path, e))?;
        (index.entries, index.load_problem) = load(&bytes);
        let written = (index.entries.len() * Self::ENTRY_SIZE) as u64;
        if file.len() != written {
            file.truncate(written).map_err(|e| LogError::io(path, e))?;
        }
        index.file = Some(file);
        Ok(index)
    }

    /// Appends an aborted transaction, creating the file if needed. The caller guarantees, and
    /// this asserts, that its last offset is above the previous entry's (each abort marker has its
    /// own offset) and not below its first offset. Errors only on I/O.
    pub fn append(&mut self, txn: AbortedTxn) -> Result<()> {
        assert!(txn.first_offset <= txn.last_offset, "{}: {txn:?} ends before it starts", self.path.display());
        if let Some(last) = self.entries.last() {
            assert!(
                txn.last_offset > last.last_offset,
                "{}: {txn:?} appended after last offset {}",
                self.path.display(),
                last.last_offset
            );
        }
        let file = match &mut self.file {
            Some(file) => file,
            None => {
                self.file.insert(SegmentFile::open_index(&self.path, true).map_err(|e| LogError::io(&self.path, e))?)
            }
        };
        let mut bytes = Vec::with_capacity(Self::ENTRY_SIZE);
        bytes.put_i16(Self::VERSION);
        bytes.put_i64(txn.producer_id);
        bytes.put_i64(txn.first_offset);
        bytes.put_i64(txn.last_offset);
        bytes.put_i64(txn.last_stable_offset);
        file.append(&bytes).map_err(|e| LogError::io(&self.path, e))?;
        self.entries.push(txn);
        Ok(())
    }

    /// The aborted transactions overlapping the fetch range [`fetch_offset`, `upper_bound_offset`):
    /// those with `last_offset >= fetch_offset` and `first_offset < upper_bound_offset`. The search
    /// is complete, and stops, at the first entry whose last stable offset is at or above
    /// `upper_bound_offset`: no transaction aborted later can overlap the range.
    pub fn collect_aborted(&self, fetch_offset: Offset, upper_bound_offset: Offset) -> TxnIndexSearchResult {
        let mut aborted_txns = Vec::new();
        for txn in &self.entries {
            if txn.last_offset >= fetch_offset && txn.first_offset < upper_bound_offset {
                aborted_txns.push(*txn);
            }
            if txn.last_stable_offset >= upper_bound_offset {
                return TxnIndexSearchResult { aborted_txns, is_complete: true };
            }
        }
        TxnIndexSearchResult { aborted_txns, is_complete: false }
    }

    /// Every entry, in the order appended (Kafka's `allAbortedTxns`).
    pub fn entries(&self) -> &[AbortedTxn] {
        &self.entries
    }

    /// Removes the entries whose last offset (abort marker) is at or above `offset`.
    pub fn truncate_to(&mut self, offset: Offset) -> Result<()> {
        let keep = self.entries.partition_point(|txn| txn.last_offset < offset);
        self.truncate_to_entries(keep)
    }

    /// Removes every entry (before a rebuild); the file, if any, stays, empty.
    pub fn reset(&mut self) -> Result<()> {
        self.truncate_to_entries(0)?;
        self.load_problem = None;
        Ok(())
    }

    /// [`LogError::Corrupt`] if opening had to cut the file (a torn entry, an unknown version, an
    /// entry out of order) or an entry's last offset is below the base offset (Kafka's check).
    /// The segment then rebuilds the index.
    pub fn sanity_check(&self) -> Result<()> {
        if let Some(reason) = &self.load_problem {
            return Err(LogError::corrupt(&self.path, reason.clone()));
        }
        match self.entries.iter().find(|txn| txn.last_offset < self.base_offset) {
            Some(txn) => {
                Err(LogError::corrupt(&self.path, format!("{txn:?} ends below base offset {}", self.base_offset)))
            }
            None => Ok(()),
        }
    }

    pub fn base_offset(&self) -> Offset {
        self.base_offset
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `fdatasync`: the entries written survive a power cut once this returns. Nothing to do
    /// while no file exists.
    pub fn sync(&self) -> Result<()> {
        match &self.file {
            Some(file) => file.sync_data().map_err(|e| LogError::io(&self.path, e)),
            None => Ok(()),
        }
    }

    /// What [`TxnIndex::sync`] syncs (nothing while no file exists), to sync without the
    /// segment's owner.
    pub fn sync_target(&self) -> Option<SyncTarget> {
        self.file.as_ref().map(SegmentFile::sync_target)
    }

    /// Renames the file if it exists; later appends go to the new name either way.
    pub fn rename(&mut self, to: &Path) -> Result<()> {
        if let Some(file) = &mut self.file {
            file.rename(to).map_err(|e| LogError::io(&self.path, e))?;
        }
        self.path = to.to_owned();
        Ok(())
    }

    /// Removes the file; a file that never existed or is already gone is not an error.
    pub fn delete(self) -> Result<()> {
        match std::fs::remove_file(&self.path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(LogError::io(&self.path, e)),
            _ => Ok(()),
        }
    }

    fn truncate_to_entries(&mut self, keep: usize) -> Result<()> {
        if let Some(file) = &mut self.file {
            let len = (keep * Self::ENTRY_SIZE) as u64;
            if file.len() != len {
                file.truncate(len).map_err(|e| LogError::io(&self.path, e))?;
            }
        }
        self.entries.truncate(keep);
        Ok(())
    }
}

/// Decodes whole entries in order, stopping at the first that is of an unknown version or does not
/// end after the previous one; returns them and, if bytes had to be left behind, why.
fn load(mut bytes: &[u8]) -> (Vec<AbortedTxn>, Option<String>) {
    let mut entries: Vec<AbortedTxn> = Vec::with_capacity(bytes.len() / TxnIndex::ENTRY_SIZE);
    while bytes.len() >= TxnIndex::ENTRY_SIZE {
        let version = bytes.get_i16();
        if version != TxnIndex::VERSION {
            let problem = format!("entry {} has unknown version {version}", entries.len());
            return (entries, Some(problem));
        }
        let txn = AbortedTxn {
            producer_id: bytes.get_i64(),
            first_offset: bytes.get_i64(),
            last_offset: bytes.get_i64(),
            last_stable_offset: bytes.get_i64(),
        };
        if entries.last().is_some_and(|last| txn.last_offset <= last.last_offset) {
            let problem = format!("entry {} is out of order: {txn:?}", entries.len());
            return (entries, Some(problem));
        }
        entries.push(txn);
    }
    let problem = (!bytes.is_empty()).then(|| format!("{} bytes of a torn entry at the end", bytes.len()));
    (entries, problem)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: Offset = 50;

    fn txn(producer_id: i64, first_offset: Offset, last_offset: Offset, last_stable_offset: Offset) -> AbortedTxn {
        AbortedTxn { producer_id, first_offset, last_offset, last_stable_offset }
    }

    /// The file appears with the first entry and holds Kafka's 34-byte big-endian layout.
    #[test]
    fn byte_layout_is_kafkas() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("00000000000000000050.txnindex");
        let mut index = TxnIndex::open(&path, BASE)?;
        index.sync()?;
        assert!(!path.exists());
        index.append(txn(0x0102, 40, 0x0A0B, -1))?;
        let mut expected = vec![0, 0];
        expected.extend_from_slice(&[0, 0, 0, 0, 0, 0, 1, 2]);
        expected.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 40]);
        expected.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0x0A, 0x0B]);
        expected.extend_from_slice(&[0xff; 8]);
        assert_eq!(std::fs::read(&path).expect("read"), expected);
        Ok(())
    }

    /// A search collects the overlapping transactions and completes at a last stable offset
    /// reaching the upper bound.
    #[test]
    fn collect_aborted_overlapping_and_complete() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut index = TxnIndex::open(&dir.path().join("t.txnindex"), BASE)?;
        let entries = [txn(1, 40, 55, 40), txn(2, 52, 60, 53), txn(3, 61, 70, 75), txn(4, 71, 80, 90)];
        for entry in entries {
            index.append(entry)?;
        }
        let check = |fetch: Offset, upper: Offset, expected: &[AbortedTxn], is_complete: bool| {
            let result = index.collect_aborted(fetch, upper);
            assert_eq!(
                result,
                TxnIndexSearchResult { aborted_txns: expected.to_vec(), is_complete },
                "[{fetch}, {upper})"
            );
        };
        check(50, 53, &entries[..2], true);
        check(56, 60, &entries[1..2], true);
        check(56, 75, &entries[1..3], true);
        check(50, 100, &entries, false);
        check(81, 95, &[], false);
        check(0, 40, &[], true);
        Ok(())
    }

    /// Truncation drops the entries whose abort marker is at or above the offset, on disk too.
    #[test]
    fn truncate_and_reopen() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t.txnindex");
        let mut index = TxnIndex::open(&path, BASE)?;
        index.append(txn(1, 40, 55, 40))?;
        index.append(txn(2, 52, 60, 53))?;
        index.append(txn(3, 61, 70, 75))?;
        index.truncate_to(60)?;
        assert_eq!(index.entries(), [txn(1, 40, 55, 40)]);
        index.append(txn(4, 58, 59, 58))?;
        drop(index);
        let mut index = TxnIndex::open(&path, BASE)?;
        assert_eq!(index.entries(), [txn(1, 40, 55, 40), txn(4, 58, 59, 58)]);
        index.sanity_check()?;
        index.reset()?;
        assert_eq!((index.entries().len(), std::fs::metadata(&path).expect("stat").len()), (0, 0));
        Ok(())
    }

    /// A torn last entry, an unknown version or an entry ending below the base fail the check;
    /// the whole entries before a torn or unknown one are kept.
    #[test]
    fn damaged_files_fail_the_sanity_check() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("t.txnindex");
        let mut index = TxnIndex::open(&path, BASE)?;
        index.append(txn(1, 40, 55, 40))?;
        drop(index);
        let mut bytes = std::fs::read(&path).expect("read");
        bytes.extend_from_slice(&[0, 0, 1, 2, 3]);
        std::fs::write(&path, &bytes).expect("write");
        let index = TxnIndex::open(&path, BASE)?;
        assert_eq!(index.entries(), [txn(1, 40, 55, 40)]);
        assert!(matches!(index.sanity_check(), Err(LogError::Corrupt { .. })));
        bytes.truncate(34);
        bytes.extend_from_slice(&[0, 1]);
        bytes.extend_from_slice(&[0; 32]);
        std::fs::write(&path, &bytes).expect("write");
        let index = TxnIndex::open(&path, BASE)?;
        assert_eq!(index.entries().len(), 1);
        assert!(matches!(index.sanity_check(), Err(LogError::Corrupt { .. })));
        let index = TxnIndex::open(&path, 60)?;
        assert!(matches!(index.sanity_check(), Err(LogError::Corrupt { .. })));
        Ok(())
    }

    /// An abort marker not after the previous one is a bug in the caller.
    #[test]
    #[should_panic(expected = "appended after")]
    fn append_out_of_order_panics() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut index = TxnIndex::open(&dir.path().join("t.txnindex"), BASE).expect("open");
        index.append(txn(1, 40, 55, 40)).expect("append");
        let _ = index.append(txn(2, 41, 55, 40));
    }

    /// Rename before the file exists redirects the first append; delete of a missing file is fine.
    #[test]
    fn rename_and_delete_without_a_file() -> Result<()> {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut index = TxnIndex::open(&dir.path().join("t.txnindex"), BASE)?;
        let moved = dir.path().join("t.txnindex.deleted");
        index.rename(&moved)?;
        index.append(txn(1, 40, 55, 40))?;
        assert!(moved.exists());
        index.delete()?;
        assert!(!moved.exists());
        TxnIndex::open(&dir.path().join("none.txnindex"), BASE)?.delete()
    }
}
