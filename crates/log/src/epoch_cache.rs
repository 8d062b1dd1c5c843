//! The leader epoch cache: for each leader epoch of a partition, the first offset written in it.
//!
//! Followers use it to find where their log diverges from a new leader's (OffsetForLeaderEpoch,
//! and the `DivergingEpoch` of Fetch), and consumers to validate their position after a leader
//! change (KIP-320). It is persisted in the partition's `leader-epoch-checkpoint`
//! ([`crate::checkpoint::LeaderEpochCheckpointFile`]).
//!
//! - [`LeaderEpochCache`]: the entries and their file. [`LeaderEpochCache::assign`] writes the
//!   file at once when it changes an entry, as Kafka does, so the file never lacks an epoch the
//!   log holds; truncations change memory only and are written by [`LeaderEpochCache::flush`]
//!   (Kafka flushes them asynchronously): a stale file after a crash holds extra entries, which
//!   the log's recovery truncates again.
//!
//! Invariant: entries are strictly increasing in both epoch and start offset. Every change is a
//! small pure function over the entry list; the file is written only in [`LeaderEpochCache::assign`]
//! and [`LeaderEpochCache::flush`].
//!
//! Checked against Apache Kafka's `storage/.../epoch/LeaderEpochFileCache.java`.

use std::path::Path;

use strand_base::{LeaderEpoch, Offset};

pub use crate::checkpoint::EpochEntry;
use crate::checkpoint::LeaderEpochCheckpointFile;
use crate::{LogError, Result};

/// The epoch OffsetForLeaderEpoch answers when it knows none (`UNDEFINED_EPOCH`).
pub const UNDEFINED_EPOCH: LeaderEpoch = -1;
/// The end offset OffsetForLeaderEpoch answers when it knows none (`UNDEFINED_EPOCH_OFFSET`).
pub const UNDEFINED_EPOCH_OFFSET: Offset = -1;

/// One partition's leader epochs and their start offsets, ordered, with the file that persists
/// them. Owned by the partition's log; not shared between threads.
#[derive(Debug)]
pub struct LeaderEpochCache {
    checkpoint: LeaderEpochCheckpointFile,
    entries: Vec<EpochEntry>,
    /// Changes not yet written to the checkpoint.
    dirty: bool,
    /// How many times [`LeaderEpochCache::assign`] replaced the file without syncing its
    /// directory: the owning log's next flush syncs the partition directory while this is ahead
    /// of what it synced.
    unsynced_writes: u64,
}

impl LeaderEpochCache {
    /// The empty cache of a partition directory just created: there is no file to read.
    pub(crate) fn empty(partition_dir: &Path) -> LeaderEpochCache {
        let checkpoint = LeaderEpochCheckpointFile::in_dir(partition_dir);
        LeaderEpochCache { checkpoint, entries: Vec::new(), dirty: false, unsynced_writes: 0 }
    }

    /// Loads the cache of the partition directory `partition_dir`. A missing file is an empty
    /// cache. Entries are replayed through [`LeaderEpochCache::assign`]'s rule, as Kafka's
    /// constructor does, so a file with non-monotonic entries loads as the entries that rule
    /// keeps; a negative epoch or start offset makes the file corrupt.
    pub fn open(partition_dir: &Path) -> Result<LeaderEpochCache> {
        let checkpoint = LeaderEpochCheckpointFile::in_dir(partition_dir);
        let mut entries = Vec::new();
        for entry in checkpoint.read()? {
            if entry.epoch < 0 || entry.start_offset < 0 {
                return Err(LogError::corrupt(checkpoint.path(), format!("negative entry {entry:?}")));
            }
            assign_entry(&mut entries, entry);
        }
        Ok(LeaderEpochCache { checkpoint, entries, dirty: false, unsynced_writes: 0 })
    }

    /// Records that `epoch` starts at `start_offset`, and writes the file if that changed
    /// anything (without syncing the partition directory: [`LeaderEpochCache::unsynced_writes`]
    /// tells the log's next flush to, as Kafka since KAFKA-15046 leaves an assignment's
    /// checkpoint to the log's flush: until then recovery rebuilds the entries from the batches
    /// above the recovery point, which only a flush moves). Returns whether it changed anything.
    ///
    /// The rule (Kafka's `assign`): nothing changes when `epoch` is the latest epoch and
    /// `start_offset` is not below its start offset. Otherwise every entry at the end whose epoch
    /// is `>= epoch` or whose start offset is `>= start_offset` is removed, and the new entry is
    /// appended. So a lower epoch or start offset than the latest entry's removes the conflicting
    /// entries after it (a leader that wrote nothing in them), and re-assigning the latest epoch a
    /// lower start offset moves its start down.
    ///
    /// Panics on a negative epoch or start offset: callers assign only the epochs of stored
    /// batches, which are never negative.
    pub fn assign(&mut self, epoch: LeaderEpoch, start_offset: Offset) -> Result<bool> {
        let changed = self.assign_unwritten(epoch, start_offset);
        self.write_pending()?;
        Ok(changed)
    }

    /// Writes an entry [`LeaderEpochCache::assign_unwritten`] left in memory, if any, as
    /// [`LeaderEpochCache::assign`] writes (the directory's sync left to the log's flush).
    pub fn write_pending(&mut self) -> Result<()> {
        if self.dirty {
            self.checkpoint.write_replacing(&self.entries)?;
            self.dirty = false;
            self.unsynced_writes += 1;
        }
        Ok(())
    }

    /// [`LeaderEpochCache::assign`]'s change in memory only, written by the next append
    /// ([`Self::write_pending`]), `assign` or [`Self::flush`] (not by an empty log's close): a new
    /// leader's epoch on an empty log, which no batch depends on yet, so that hosting a new
    /// partition writes no checkpoint. A crash before then loses an entry that no batch has, and
    /// becoming leader again assigns it again. Returns whether it changed anything.
    pub fn assign_unwritten(&mut self, epoch: LeaderEpoch, start_offset: Offset) -> bool {
        assert!(epoch >= 0 && start_offset >= 0, "invalid leader epoch entry ({epoch}, {start_offset})");
        let changed = assign_entry(&mut self.entries, EpochEntry::new(epoch, start_offset));
        self.dirty |= changed;
        changed
    }

    /// How many assignments replaced the file without a directory sync so far.
    pub(crate) fn unsynced_writes(&self) -> u64 {
        self.unsynced_writes
    }

    /// The entries, in epoch (and start offset) order.
    pub fn entries(&self) -> &[EpochEntry] {
        &self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The latest epoch that has an entry: the epoch of the last batch appended.
    pub fn latest_epoch(&self) -> Option<LeaderEpoch> {
        self.latest_entry().map(|entry| entry.epoch)
    }

    pub fn latest_entry(&self) -> Option<EpochEntry> {
        self.entries.last().copied()
    }

    pub fn earliest_entry(&self) -> Option<EpochEntry> {
        self.entries.first().copied()
    }

    /// The entry of exactly `epoch`, if the log holds batches of it.
    pub fn epoch_entry(&self, epoch: LeaderEpoch) -> Option<EpochEntry> {
        self.entries.iter().find(|entry| entry.epoch == epoch).copied()
    }

    /// OffsetForLeaderEpoch: the largest epoch `<= requested_epoch` and the end offset of
    /// `requested_epoch` (exclusive), as Kafka's `endOffsetFor`:
    ///
    /// - `requested_epoch` is [`UNDEFINED_EPOCH`], or above every epoch: `(-1, -1)`.
    /// - `requested_epoch` is the latest epoch: `(requested_epoch, log_end_offset)`.
    /// - `requested_epoch` is below the first epoch: `(requested_epoch, first entry's start)`; the
    ///   data of older epochs is gone, and the follower should replicate from the leader's start.
    /// - otherwise: the largest epoch `<= requested_epoch`, and the start offset of the first
    ///   epoch above `requested_epoch`.
    pub fn end_offset_for(&self, requested_epoch: LeaderEpoch, log_end_offset: Offset) -> (LeaderEpoch, Offset) {
        end_offset_for(&self.entries, requested_epoch, log_end_offset)
    }

    /// The epoch of the batch holding `offset`: that of the last entry starting at or before it,
    /// or `None` if `offset` is before the first entry.
    pub fn epoch_for_offset(&self, offset: Offset) -> Option<LeaderEpoch> {
        epoch_for_offset(&self.entries, offset)
    }

    /// Removes the entries starting at or after `end_offset`, after the log was truncated to end
    /// there. Memory only; see [`LeaderEpochCache::flush`]. Returns whether anything changed.
    pub fn truncate_from_end(&mut self, end_offset: Offset) -> bool {
        let changed = truncate_from_end(&mut self.entries, end_offset);
        self.dirty |= changed;
        changed
    }

    /// Forgets the offsets before `start_offset`, after the log start offset moved there: the
    /// entries starting at or before it are removed, except that the last of them is kept with
    /// its start moved up to `start_offset` (it still holds the batches from there). Memory
    /// only; see [`LeaderEpochCache::flush`]. Returns whether anything changed.
    pub fn truncate_from_start(&mut self, start_offset: Offset) -> bool {
        let changed = truncate_from_start(&mut self.entries, start_offset);
        self.dirty |= changed;
        changed
    }

    /// The entries as they cover offsets `[start_offset, end_offset)`: a copy truncated from the
    /// start (when `start_offset >= 0`) and from the end (Kafka's `epochEntriesInRange`).
    pub fn entries_in_range(&self, start_offset: Offset, end_offset: Offset) -> Vec<EpochEntry> {
        let mut entries = self.entries.clone();
        if start_offset >= 0 {
            truncate_from_start(&mut entries, start_offset);
        }
        truncate_from_end(&mut entries, end_offset);
        entries
    }

    /// Removes every entry (the log was truncated fully). Memory only.
    pub fn clear(&mut self) {
        self.dirty |= !self.entries.is_empty();
        self.entries.clear();
    }

    /// Writes the entries to `leader-epoch-checkpoint` if they changed since the last write.
    pub fn flush(&mut self) -> Result<()> {
        if self.dirty {
            self.checkpoint.write(&self.entries)?;
            self.dirty = false;
        }
        Ok(())
    }
}

/// Kafka's `assign` rule (see [`LeaderEpochCache::assign`]); returns whether `entries` changed.
fn assign_entry(entries: &mut Vec<EpochEntry>, new: EpochEntry) -> bool {
    let update_needed =
        entries.last().is_none_or(|latest| new.epoch != latest.epoch || new.start_offset < latest.start_offset);
    if !update_needed {
        return false;
    }
    let kept =
        entries.iter().rposition(|e| e.epoch < new.epoch && e.start_offset < new.start_offset).map_or(0, |i| i + 1);
    // Entries are monotonic in both fields, so everything after the last survivor conflicts.
    entries.truncate(kept);
    entries.push(new);
    assert_monotonic(entries);
    true
}

fn end_offset_for(
    entries: &[EpochEntry],
    requested_epoch: LeaderEpoch,
    log_end_offset: Offset,
) -> (LeaderEpoch, Offset) {
    const UNDEFINED: (LeaderEpoch, Offset) = (UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET);
    if requested_epoch == UNDEFINED_EPOCH {
        return UNDEFINED;
    }
    if entries.last().is_some_and(|latest| latest.epoch == requested_epoch) {
        return (requested_epoch, log_end_offset);
    }
    let Some(higher) = entries.iter().find(|e| e.epoch > requested_epoch) else { return UNDEFINED };
    match entries.iter().rev().find(|e| e.epoch <= requested_epoch) {
        None => (requested_epoch, higher.start_offset),
        Some(floor) => (floor.epoch, higher.start_offset),
    }
}

fn epoch_for_offset(entries: &[EpochEntry], offset: Offset) -> Option<LeaderEpoch> {
    entries.iter().take_while(|e| e.start_offset <= offset).last().map(|e| e.epoch)
}

fn truncate_from_end(entries: &mut Vec<EpochEntry>, end_offset: Offset) -> bool {
    if end_offset < 0 {
        return false;
    }
    let kept = entries.iter().take_while(|e| e.start_offset < end_offset).count();
    let changed = kept < entries.len();
    entries.truncate(kept);
    changed
}

fn truncate_from_start(entries: &mut Vec<EpochEntry>, start_offset: Offset) -> bool {
    let covered = entries.iter().take_while(|e| e.start_offset <= start_offset).count();
    if covered == 0 {
        return false;
    }
    entries.drain(..covered - 1);
    entries[0].start_offset = start_offset;
    assert_monotonic(entries);
    true
}

fn assert_monotonic(entries: &[EpochEntry]) {
    assert!(
        entries.windows(2).all(|w| w[0].epoch < w[1].epoch && w[0].start_offset < w[1].start_offset),
        "leader epoch entries not strictly increasing: {entries:?}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

    fn entries(pairs: &[(LeaderEpoch, Offset)]) -> Vec<EpochEntry> {
        pairs.iter().map(|&(epoch, start)| EpochEntry::new(epoch, start)).collect()
    }

    fn after_assigns(pairs: &[(LeaderEpoch, Offset)]) -> Vec<EpochEntry> {
        let mut list = Vec::new();
        for &(epoch, start) in pairs {
            assign_entry(&mut list, EpochEntry::new(epoch, start));
        }
        list
    }

    /// Assign follows Kafka's rule: same epoch at a higher offset is ignored, lower epochs or
    /// offsets remove the conflicting tail.
    #[test]
    fn assign_follows_kafka_rule() {
        assert_eq!(after_assigns(&[(1, 0), (1, 5), (2, 10)]), entries(&[(1, 0), (2, 10)]));
        assert_eq!(after_assigns(&[(1, 0), (2, 10), (2, 7)]), entries(&[(1, 0), (2, 7)]));
        assert_eq!(after_assigns(&[(1, 0), (2, 10), (3, 20), (2, 15)]), entries(&[(1, 0), (2, 15)]));
        assert_eq!(after_assigns(&[(1, 0), (2, 10), (3, 20), (4, 10)]), entries(&[(1, 0), (4, 10)]));
        assert_eq!(after_assigns(&[(1, 5), (0, 0)]), entries(&[(0, 0)]));
    }

    /// endOffsetFor answers as Kafka's does in each of its cases.
    #[test]
    fn end_offset_for_matches_kafka_cases() {
        let list = entries(&[(2, 10), (4, 30), (6, 50)]);
        let check = |epoch, expected| assert_eq!(end_offset_for(&list, epoch, 80), expected, "epoch {epoch}");
        check(UNDEFINED_EPOCH, (-1, -1));
        check(6, (6, 80));
        check(7, (-1, -1));
        check(1, (1, 10));
        check(2, (2, 30));
        check(3, (2, 30));
        check(5, (4, 50));
        assert_eq!(end_offset_for(&[], 3, 80), (-1, -1));
    }

    /// epochForOffset finds the epoch of the last entry starting at or before the offset.
    #[test]
    fn epoch_for_offset_finds_covering_entry() {
        let list = entries(&[(2, 10), (4, 30)]);
        let found: Vec<_> = [9, 10, 29, 30, 1000].iter().map(|&o| epoch_for_offset(&list, o)).collect();
        assert_eq!(found, vec![None, Some(2), Some(2), Some(4), Some(4)]);
    }

    /// truncateFromEnd drops entries at or after the end; truncateFromStart keeps the last covered
    /// entry with its start moved up.
    #[test]
    fn truncations_match_kafka() {
        let mut list = entries(&[(2, 10), (4, 30), (6, 50)]);
        assert!(!truncate_from_end(&mut list, 51));
        assert!(truncate_from_end(&mut list, 50));
        assert_eq!(list, entries(&[(2, 10), (4, 30)]));
        assert!(!truncate_from_end(&mut list, -1));

        let mut list = entries(&[(2, 10), (4, 30), (6, 50)]);
        assert!(!truncate_from_start(&mut list, 9));
        assert!(truncate_from_start(&mut list, 35));
        assert_eq!(list, entries(&[(4, 35), (6, 50)]));
        assert!(truncate_from_start(&mut list, 50));
        assert_eq!(list, entries(&[(6, 50)]));
    }

    /// Assign writes the file at once; truncations reach it only on flush; reopening reads it.
    #[test]
    fn file_follows_assign_and_flush() -> TestResult {
        let dir = tempfile::tempdir()?;
        let mut cache = LeaderEpochCache::open(dir.path())?;
        assert!(cache.assign(0, 0)?);
        assert!(cache.assign(1, 100)?);
        assert!(!cache.assign(1, 150)?);
        let path = dir.path().join("leader-epoch-checkpoint");
        assert_eq!(std::fs::read_to_string(&path)?, "0\n2\n0 0\n1 100\n");
        assert!(cache.truncate_from_end(100));
        assert_eq!(LeaderEpochCache::open(dir.path())?.entries(), entries(&[(0, 0), (1, 100)]));
        cache.flush()?;
        assert_eq!(LeaderEpochCache::open(dir.path())?.entries(), entries(&[(0, 0)]));
        Ok(())
    }

    /// Loading replays Kafka's assign rule over the file, and rejects negative entries as corrupt.
    #[test]
    fn load_replays_assign_and_rejects_negatives() -> TestResult {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("leader-epoch-checkpoint");
        std::fs::write(&path, "0\n3\n1 0\n3 50\n2 40\n")?;
        assert_eq!(LeaderEpochCache::open(dir.path())?.entries(), entries(&[(1, 0), (2, 40)]));
        std::fs::write(&path, "0\n1\n-1 0\n")?;
        assert!(matches!(LeaderEpochCache::open(dir.path()), Err(LogError::Corrupt { .. })));
        std::fs::write(&path, "0\n2\n1 0\n")?;
        assert!(matches!(LeaderEpochCache::open(dir.path()), Err(LogError::Corrupt { .. })));
        Ok(())
    }
}
