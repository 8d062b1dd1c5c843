//! openraft's log storage over Strand's own [`Log`]: the `__cluster_metadata-0` partition.
//!
//! **Index ↔ offset.** Kafka numbers records, openraft numbers entries, and one entry is one
//! batch of one or more records, so the two cannot be equal. The Raft index of a batch is its
//! position among the log's batches: the first batch (offset 0) is index 0, which is where
//! openraft 0.9 puts its first entry (the initial membership), and each later batch is the next
//! index; its base offset is the log end offset when it was appended. [`MetadataLog`] keeps the
//! table index → (base offset, last offset, term) in memory, rebuilt by scanning the batches when
//! the log opens. The term is the batch's partition leader epoch.
//!
//! **Durability.** [`LogStore::append`] writes the batches, then `flush_to` (one `fdatasync`
//! for all of them), and only then tells openraft they are durable: nothing openraft counts
//! towards a commit can be lost in a crash. The write and the sync run on openraft's task, and
//! openraft 0.9 appends one proposal at a time, so each proposal costs one sync. (Group commit,
//! a flusher syncing once for every append queued behind it, can come when metadata write rates
//! need it.)
//!
//! **Recovery.** The log is opened as after an unclean shutdown (recovery point 0): every batch
//! is CRC-checked and a torn tail is cut.
//!
//! **Snapshots and purging.** Once a snapshot (`snapshot`) holds the entries up to some index,
//! openraft purges them: the log start offset moves to the offset after them, and segments
//! wholly below it are deleted (with Kafka's 1 GiB segments, that happens as segments roll).
//! The purged entries' numbering is kept in [`MetadataLog::first_index`]. When the log opens, the
//! newest snapshot on disk is where it starts: everything it holds counts as purged (the Raft
//! index after its last entry is the first index), older snapshots are deleted, and a log that
//! ends before the snapshot (a voter that installed one from its leader, then crashed before
//! purging) starts over empty at the snapshot's end offset.
//!
//! **Truncation** happens on followers only, when a new leader's log disagrees with entries this
//! voter appended but that never committed. The cut is not synced by itself: the next append's
//! `fdatasync` makes it durable with the entries that replace it. A crash in between can bring
//! the cut entries back, which is harmless: this voter held them before, they are not
//! committed, and the leader cuts them again.
//!
//! **Leader changes on followers.** A blank entry's `LeaderChangeMessage` names the leader of its
//! epoch from this voter's vote; a voter catching up on an older epoch's blank entry no longer
//! knows it and writes leader -1 (and its own clock as the control batch's timestamp). Data
//! batches are the same bytes on every voter.
//!
//! **Failures.** Any error handed to openraft stops its core for good, so the first one is kept
//! ([`MetadataLog::failure`]) for the quorum to report and the node to stop on (Kafka halts when
//! its metadata log fails). A failed sync also takes the log's [`DirHealth`] offline: nothing
//! is synced or acknowledged after it, and a restart recovers the log from what is on disk.
//!
//! The log, the index table and the vote sit behind one mutex shared by the log store, its
//! readers, the state machine and the subscribers; it is never held across an `.await`.

use std::fmt::Debug;
use std::ops::{Bound, RangeBounds};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use openraft::storage::{LogFlushed, RaftLogStorage};
use openraft::{
    CommittedLeaderId, Entry, EntryPayload, LogId, LogState, Membership, RaftLogReader, StorageError, StorageIOError,
    StoredMembership, Vote,
};
use strand_base::Clock;
use strand_log::file::DirHealth;
use strand_log::log::LogCheckpoints;
use strand_log::{Log, LogConfig};
use strand_protocol::records::{RecordBatch, RecordBatches};

use super::QuorumError;
use super::entry::{LeaderChange, TypeConfig, VoterNode, batch_entry, batch_membership, entry_batch, kraft_version};
use super::quorum_state::{QuorumStateFile, state_vote, vote_state};
use super::snapshot::{MetadataSnapshot, SnapshotId, delete_before, snapshot_ids};

/// How many bytes one read of the log asks for (the first batch is whole even if larger).
pub(crate) const READ_BYTES_MAX: u64 = 1024 * 1024;

/// Where one entry's batch is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StoredBatch {
    pub base_offset: i64,
    pub last_offset: i64,
    pub term: u64,
}

/// The newest snapshot on disk, without its records.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SnapshotInfo {
    pub id: SnapshotId,
    /// The Raft log id of the last entry in it.
    pub last_log_id: LogId<u64>,
    pub membership: StoredMembership<u64, VoterNode>,
}

impl SnapshotInfo {
    pub(crate) fn of(snapshot: &MetadataSnapshot) -> SnapshotInfo {
        SnapshotInfo { id: snapshot.id, last_log_id: snapshot.last_log_id, membership: snapshot.membership.clone() }
    }
}

/// The metadata partition's log with its Raft index table and the vote.
#[derive(Debug)]
pub(crate) struct MetadataLog {
    log: Log,
    clock: Arc<dyn Clock>,
    /// The Raft index of `batches[0]`: the first entry not purged.
    first_index: u64,
    /// The stored batches from `first_index` on.
    batches: Vec<StoredBatch>,
    /// The last entry purged (after a snapshot), if any.
    last_purged: Option<LogId<u64>>,
    /// The newest snapshot on disk.
    snapshot: Option<SnapshotInfo>,
    /// Every membership batch, oldest first (a handful).
    memberships: Vec<LoggedMembership>,
    vote_file: QuorumStateFile,
    vote: Option<Vote<u64>>,
    /// The first error handed to openraft (which stops on it), if any.
    failure: Option<String>,
}

pub(crate) type SharedLog = Arc<Mutex<MetadataLog>>;

/// What the log keeps of one membership batch: its Raft index, voters and `kraft.version`.
#[derive(Debug, Clone)]
struct LoggedMembership {
    index: u64,
    voters: Vec<u64>,
    kraft_version: i16,
}

impl LoggedMembership {
    fn of(index: u64, membership: &Membership<u64, VoterNode>) -> LoggedMembership {
        LoggedMembership { index, voters: membership.voter_ids().collect(), kraft_version: kraft_version(membership) }
    }
}

/// Locks the shared log. A panic while it was held (a broken invariant) leaves the log as the
/// last completed call left it, so the lock is taken over rather than poisoned for good.
pub(crate) fn lock(log: &SharedLog) -> MutexGuard<'_, MetadataLog> {
    log.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl MetadataLog {
    /// Opens (or creates) the log in `dir`, recovers it, starts it at its newest snapshot (see
    /// the module doc), and rebuilds the index table.
    pub(crate) fn open(dir: &Path, clock: Arc<dyn Clock>) -> Result<MetadataLog, QuorumError> {
        let checkpoints = LogCheckpoints { recovery_point: 0, log_start_offset: 0, clean_shutdown: false };
        let mut log = Log::open(dir, LogConfig::default(), checkpoints, Arc::clone(&clock))?;
        // The quorum reports a failure itself, as the node's reason to stop.
        log.set_dir_health(Arc::new(DirHealth::reported_by_owner()));
        let vote_file = QuorumStateFile::new(dir);
        let vote = vote_file.read()?.as_ref().and_then(state_vote);
        let mut metadata_log = MetadataLog {
            log,
            clock,
            first_index: 0,
            batches: Vec::new(),
            last_purged: None,
            snapshot: None,
            memberships: Vec::new(),
            vote_file,
            vote,
            failure: None,
        };
        match snapshot_ids(dir)?.last() {
            Some(&id) => metadata_log.start_at_snapshot(&MetadataSnapshot::read(dir, id)?)?,
            None if metadata_log.log.log_start_offset() != 0 => {
                return Err(QuorumError::CorruptLog(format!(
                    "the log starts at offset {} but no snapshot holds what comes before",
                    metadata_log.log.log_start_offset()
                )));
            }
            None => {}
        }
        metadata_log.scan()?;
        Ok(metadata_log)
    }

    /// Starts the log where `snapshot` ends: everything before counts as purged.
    fn start_at_snapshot(&mut self, snapshot: &MetadataSnapshot) -> Result<(), QuorumError> {
        let start = snapshot.id.end_offset;
        let end = self.log.log_end_offset();
        let continues = end == start
            || (end > start && self.read_batches(start, None)?.first().is_some_and(|b| b.base_offset() == start));
        if continues {
            self.log.advance_log_start_offset(start)?;
        } else {
            self.log.truncate_fully_and_start_at(start)?;
        }
        self.first_index = snapshot.last_log_id.index + 1;
        self.last_purged = Some(snapshot.last_log_id);
        let index = snapshot.membership.log_id().map_or(0, |id| id.index);
        self.memberships.push(LoggedMembership::of(index, snapshot.membership.membership()));
        self.snapshot = Some(SnapshotInfo::of(snapshot));
        delete_before(self.log.dir(), snapshot.id)
    }

    /// Rebuilds the index table and the memberships from the batches.
    fn scan(&mut self) -> Result<(), QuorumError> {
        let mut offset = self.log.log_start_offset();
        while offset < self.log.log_end_offset() {
            let batches = self.read_batches(offset, None)?;
            if batches.is_empty() {
                return Err(QuorumError::CorruptLog(format!("no batch at offset {offset}")));
            }
            for batch in batches {
                let term = u64::try_from(batch.partition_leader_epoch())
                    .map_err(|_| QuorumError::CorruptLog(format!("batch at {offset}: negative epoch")))?;
                if let Some(membership) = batch_membership(&batch)? {
                    self.memberships.push(LoggedMembership::of(self.next_index(), &membership));
                }
                self.batches.push(StoredBatch {
                    base_offset: batch.base_offset(),
                    last_offset: batch.last_offset(),
                    term,
                });
                offset = batch.next_offset();
            }
        }
        Ok(())
    }

    /// Whole batches from the one holding `offset`, about [`READ_BYTES_MAX`] of them, never at
    /// or past `max_offset` (to the log end if `None`).
    pub(crate) fn read_batches(&self, offset: i64, max_offset: Option<i64>) -> Result<Vec<RecordBatch>, QuorumError> {
        let Some(slice) = self.log.read(offset, READ_BYTES_MAX, max_offset)? else { return Ok(Vec::new()) };
        let bytes = slice.read().map_err(|e| QuorumError::io(self.log.dir(), e))?;
        RecordBatches::new(bytes)
            .map(|batch| batch.map_err(|e| QuorumError::CorruptLog(format!("batch after offset {offset}: {e}"))))
            .collect()
    }

    /// The voters of the latest membership entry, if any.
    pub(crate) fn voters(&self) -> Option<Vec<u64>> {
        self.memberships.last().map(|m| m.voters.clone())
    }

    /// The `kraft.version` of the latest membership entry (0 without one).
    pub(crate) fn kraft_version(&self) -> i16 {
        self.memberships.last().map_or(0, |m| m.kraft_version)
    }

    /// The term of the saved vote, if any.
    pub(crate) fn vote_term(&self) -> Option<u64> {
        self.vote.map(|vote| vote.leader_id.term)
    }

    /// The next Raft index.
    fn next_index(&self) -> u64 {
        self.first_index + self.batches.len() as u64
    }

    /// Where the batch of Raft index `index` is (`None` if purged or not yet appended).
    pub(crate) fn stored_batch(&self, index: u64) -> Option<StoredBatch> {
        let position = index.checked_sub(self.first_index)?;
        usize::try_from(position).ok().and_then(|i| self.batches.get(i)).copied()
    }

    pub(crate) fn last_log_id(&self) -> Option<LogId<u64>> {
        let Some(last) = self.batches.last() else { return self.last_purged };
        Some(LogId::new(CommittedLeaderId::new(last.term, 0), self.next_index() - 1))
    }

    /// The first offset still in the log: below it, only the snapshot has the records.
    pub(crate) fn log_start_offset(&self) -> i64 {
        self.log.log_start_offset()
    }

    /// The offset after the last batch.
    pub(crate) fn log_end_offset(&self) -> i64 {
        self.log.log_end_offset()
    }

    pub(crate) fn dir(&self) -> &Path {
        self.log.dir()
    }

    /// The newest snapshot on disk.
    pub(crate) fn snapshot(&self) -> Option<&SnapshotInfo> {
        self.snapshot.as_ref()
    }

    /// Records a snapshot just written to disk as the newest, and deletes older ones. If the log
    /// was purged past its end for this snapshot (a follower installing its leader's), the log
    /// now starts over at the snapshot's end offset.
    pub(crate) fn set_snapshot(&mut self, snapshot: SnapshotInfo) -> Result<(), QuorumError> {
        if self.snapshot.as_ref().is_some_and(|current| current.id > snapshot.id) {
            return Ok(());
        }
        let (id, last_index) = (snapshot.id, snapshot.last_log_id.index);
        self.snapshot = Some(snapshot);
        if self.batches.is_empty() && self.first_index == last_index + 1 && self.log.log_end_offset() != id.end_offset {
            self.log.truncate_fully_and_start_at(id.end_offset)?;
        }
        delete_before(self.log.dir(), id)
    }

    /// Removes the entries up to `upto` (inclusive), which a snapshot holds: the log start offset
    /// moves past them. When they include entries this log never had (a follower installing its
    /// leader's snapshot: openraft may purge before the state machine has written the snapshot),
    /// the index table empties now and the log starts over at the snapshot's end offset once the
    /// snapshot is recorded ([`MetadataLog::set_snapshot`]), before anything is appended.
    fn purge(&mut self, upto: LogId<u64>) -> Result<(), QuorumError> {
        if self.last_purged.is_some_and(|purged| purged.index >= upto.index) {
            return Ok(());
        }
        let next = upto.index + 1;
        let start = match (self.stored_batch(next), &self.snapshot) {
            (Some(batch), _) => Some(batch.base_offset),
            (None, _) if next == self.next_index() => Some(self.log.log_end_offset()),
            (None, Some(snapshot)) if snapshot.last_log_id.index == upto.index => Some(snapshot.id.end_offset),
            (None, _) => None,
        };
        match start {
            Some(start) if start > self.log.log_end_offset() => self.log.truncate_fully_and_start_at(start)?,
            Some(start) => self.log.advance_log_start_offset(start)?,
            None => {}
        }
        let purged = usize::try_from(next.saturating_sub(self.first_index)).unwrap_or(usize::MAX);
        self.batches.drain(..purged.min(self.batches.len()));
        self.first_index = next;
        self.last_purged = Some(upto);
        Ok(())
    }

    /// Appends entries, in order from the next index, then syncs them all.
    fn append(&mut self, entries: impl IntoIterator<Item = Entry<TypeConfig>>) -> Result<(), QuorumError> {
        for entry in entries {
            let index = entry.log_id.index;
            assert_eq!(index, self.next_index(), "openraft appends consecutive entries");
            let leader_change = self.leader_change(entry.log_id.leader_id.term);
            let base_offset = self.log.log_end_offset();
            let batch = entry_batch(&entry, base_offset, self.clock.now_ms(), &leader_change, self.kraft_version())?;
            self.log.append_as_follower(&batch)?;
            if let EntryPayload::Membership(membership) = &entry.payload {
                self.memberships.push(LoggedMembership::of(index, membership));
            }
            let term = entry.log_id.leader_id.term;
            self.batches.push(StoredBatch { base_offset, last_offset: batch.last_offset(), term });
        }
        self.log.flush_to(self.log.log_end_offset())?;
        Ok(())
    }

    /// What a blank entry of `term` states: its leader (from the vote of that term) and the
    /// voters of the latest membership.
    fn leader_change(&self, term: u64) -> LeaderChange {
        let leader_id = self.vote.filter(|vote| vote.leader_id.term == term).and_then(|vote| vote.leader_id.voted_for);
        let voters = self.voters().unwrap_or_default();
        LeaderChange { leader_id, voters }
    }

    /// Removes the entries from `index` on.
    fn truncate(&mut self, index: u64) -> Result<(), QuorumError> {
        if index < self.first_index {
            return Err(QuorumError::CorruptLog(format!(
                "truncating at {index}, below the purged {}",
                self.first_index
            )));
        }
        let Some(stored) = self.stored_batch(index) else { return Ok(()) };
        self.log.truncate_to(stored.base_offset)?;
        self.batches.truncate((index - self.first_index) as usize);
        self.memberships.retain(|m| m.index < index);
        Ok(())
    }

    /// The entries of the Raft indexes in `[start, end)` that are in the log.
    fn entries(&self, start: u64, end: u64) -> Result<Vec<Entry<TypeConfig>>, QuorumError> {
        let end = end.min(self.next_index());
        if start < self.first_index && start < end {
            return Err(QuorumError::CorruptLog(format!(
                "entries from {start} asked, {} is the first",
                self.first_index
            )));
        }
        let mut entries = Vec::new();
        let mut index = start;
        while index < end {
            let Some(stored) = self.stored_batch(index) else { break };
            let batches = self.read_batches(stored.base_offset, None)?;
            if batches.is_empty() {
                return Err(QuorumError::CorruptLog(format!("no batch at offset {}", stored.base_offset)));
            }
            for batch in batches.iter().take((end - index) as usize) {
                let expected = self.stored_batch(index).map(|s| s.base_offset);
                if expected != Some(batch.base_offset()) {
                    let found = batch.base_offset();
                    return Err(QuorumError::CorruptLog(format!("index {index}: batch at {found}, not {expected:?}")));
                }
                entries.push(batch_entry(batch, index)?);
                index += 1;
            }
        }
        Ok(entries)
    }

    fn save_vote(&mut self, vote: &Vote<u64>) -> Result<(), QuorumError> {
        self.vote_file.write(&vote_state(vote)?)?;
        self.vote = Some(*vote);
        Ok(())
    }

    /// The first error handed to openraft, which stopped on it.
    pub(crate) fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }

    /// Flushes everything and trims the indexes, for a clean shutdown.
    pub(crate) fn close(&mut self) -> Result<(), QuorumError> {
        Ok(self.log.close()?)
    }
}

/// openraft's handle on the log: appends, truncation, the vote.
pub(crate) struct LogStore {
    log: SharedLog,
}

impl LogStore {
    pub(crate) fn new(log: SharedLog) -> LogStore {
        LogStore { log }
    }
}

/// A reader of entries, for openraft's apply and (later) replication tasks.
pub(crate) struct LogReader {
    log: SharedLog,
}

/// Keeps `e` as the log's failure if it is the first: openraft stops on every error it is given.
/// (Call it without the log's lock held.)
pub(crate) fn failed(log: &SharedLog, e: QuorumError) -> QuorumError {
    let mut log = lock(log);
    if log.failure.is_none() {
        log.failure = Some(e.to_string());
    }
    e
}

fn read_error(e: QuorumError) -> StorageError<u64> {
    StorageIOError::read_logs(openraft::AnyError::new(&e)).into()
}

fn write_error(log: &SharedLog, e: QuorumError) -> StorageError<u64> {
    StorageIOError::write_logs(openraft::AnyError::new(&failed(log, e))).into()
}

/// The `[start, end)` indexes of a range.
fn index_range(range: &impl RangeBounds<u64>) -> (u64, u64) {
    let start = match range.start_bound() {
        Bound::Included(i) => *i,
        Bound::Excluded(i) => i.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(i) => i.saturating_add(1),
        Bound::Excluded(i) => *i,
        Bound::Unbounded => u64::MAX,
    };
    (start, end)
}

fn read_entries(log: &SharedLog, range: &impl RangeBounds<u64>) -> Result<Vec<Entry<TypeConfig>>, QuorumError> {
    let (start, end) = index_range(range);
    let read = lock(log).entries(start, end);
    read.map_err(|e| failed(log, e))
}

impl RaftLogReader<TypeConfig> for LogReader {
    async fn try_get_log_entries<RB: RangeBounds<u64> + Clone + Debug + Send>(
        &mut self,
        range: RB,
    ) -> Result<Vec<Entry<TypeConfig>>, StorageError<u64>> {
        read_entries(&self.log, &range).map_err(read_error)
    }
}

impl RaftLogReader<TypeConfig> for LogStore {
    async fn try_get_log_entries<RB: RangeBounds<u64> + Clone + Debug + Send>(
        &mut self,
        range: RB,
    ) -> Result<Vec<Entry<TypeConfig>>, StorageError<u64>> {
        read_entries(&self.log, &range).map_err(read_error)
    }
}

impl RaftLogStorage<TypeConfig> for LogStore {
    type LogReader = LogReader;

    async fn get_log_state(&mut self) -> Result<LogState<TypeConfig>, StorageError<u64>> {
        let log = lock(&self.log);
        Ok(LogState { last_purged_log_id: log.last_purged, last_log_id: log.last_log_id() })
    }

    async fn get_log_reader(&mut self) -> LogReader {
        LogReader { log: Arc::clone(&self.log) }
    }

    async fn save_vote(&mut self, vote: &Vote<u64>) -> Result<(), StorageError<u64>> {
        let saved = lock(&self.log).save_vote(vote);
        saved.map_err(|e| StorageIOError::write_vote(openraft::AnyError::new(&failed(&self.log, e))).into())
    }

    /// The saved vote, but never a committed one: a restarted voter does not resume leading. As
    /// Kafka's resigned leader does, it starts a new election (a new term, a new leader epoch),
    /// whose leader-change entry commits everything before it. A vote for itself still keeps it
    /// from voting for anyone else in the old term.
    async fn read_vote(&mut self) -> Result<Option<Vote<u64>>, StorageError<u64>> {
        Ok(lock(&self.log).vote.map(|vote| Vote { committed: false, ..vote }))
    }

    async fn append<I>(&mut self, entries: I, callback: LogFlushed<TypeConfig>) -> Result<(), StorageError<u64>>
    where
        I: IntoIterator<Item = Entry<TypeConfig>> + Send,
        I::IntoIter: Send,
    {
        let appended = lock(&self.log).append(entries);
        appended.map_err(|e| write_error(&self.log, e))?;
        // Only now, with the batches synced, may openraft count them.
        callback.log_io_completed(Ok(()));
        Ok(())
    }

    async fn truncate(&mut self, log_id: LogId<u64>) -> Result<(), StorageError<u64>> {
        let truncated = lock(&self.log).truncate(log_id.index);
        truncated.map_err(|e| write_error(&self.log, e))
    }

    /// Entries a snapshot holds go (see [`MetadataLog::purge`]). Not synced by itself: a crash
    /// brings purged entries back, which is harmless, and reopening starts at the snapshot.
    async fn purge(&mut self, log_id: LogId<u64>) -> Result<(), StorageError<u64>> {
        let purged = lock(&self.log).purge(log_id);
        purged.map_err(|e| write_error(&self.log, e))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use openraft::storage::RaftLogStorageExt;
    use openraft::{Membership, RaftLogReader};
    use strand_base::SystemClock;

    use super::*;
    use crate::quorum::entry::{MetadataFrames, VoterNode};

    fn entry(term: u64, index: u64, payload: EntryPayload<TypeConfig>) -> Entry<TypeConfig> {
        Entry { log_id: LogId::new(CommittedLeaderId::new(term, 0), index), payload }
    }

    fn normal(frames: Vec<Vec<u8>>) -> EntryPayload<TypeConfig> {
        EntryPayload::Normal(MetadataFrames { append_time_ms: 1_000, frames })
    }

    fn entries() -> Vec<Entry<TypeConfig>> {
        let membership = Membership::new(vec![BTreeSet::from([1])], BTreeMap::from([(1, VoterNode::default())]));
        vec![
            entry(0, 0, EntryPayload::Membership(membership)),
            entry(1, 1, EntryPayload::Blank),
            entry(1, 2, normal(vec![vec![1, 2, 0, 0, 0], vec![1, 2, 0, 1, 0]])),
            entry(1, 3, normal(vec![vec![1, 2, 0, 2, 0]])),
        ]
    }

    fn open(dir: &Path) -> SharedLog {
        Arc::new(Mutex::new(MetadataLog::open(dir, Arc::new(SystemClock)).expect("opens")))
    }

    /// Appended entries are synced before openraft hears of them, read back unchanged, map to
    /// offsets by batch (a two-record entry takes two offsets), and survive a reopen.
    #[tokio::test]
    async fn appends_are_synced_and_read_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let log = open(dir.path());
        let mut store = LogStore::new(Arc::clone(&log));
        store.blocking_append(entries()).await.expect("appends");
        {
            let metadata_log = lock(&log);
            assert_eq!(metadata_log.log.recovery_point(), metadata_log.log.log_end_offset());
            let offsets: Vec<(i64, i64)> =
                metadata_log.batches.iter().map(|b| (b.base_offset, b.last_offset)).collect();
            assert_eq!(offsets, [(0, 1), (2, 2), (3, 4), (5, 5)]);
        }
        assert_eq!(store.try_get_log_entries(0..).await.expect("reads"), entries());
        assert_eq!(store.try_get_log_entries(1..=2).await.expect("reads"), entries()[1..3]);
        drop((store, log));
        let mut store = LogStore::new(open(dir.path()));
        let state = store.get_log_state().await.expect("state");
        assert_eq!(state.last_log_id, Some(entries()[3].log_id));
        assert_eq!(store.try_get_log_entries(0..10).await.expect("reads"), entries());
    }

    /// Truncation removes the entries from an index on, and the next append reuses it.
    #[tokio::test]
    async fn truncation_cuts_at_an_index() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = LogStore::new(open(dir.path()));
        store.blocking_append(entries()).await.expect("appends");
        store.truncate(entries()[2].log_id).await.expect("truncates");
        assert_eq!(store.try_get_log_entries(0..).await.expect("reads"), entries()[..2]);
        let replacement = entry(2, 2, EntryPayload::Blank);
        store.blocking_append([replacement.clone()]).await.expect("appends");
        assert_eq!(store.try_get_log_entries(2..).await.expect("reads"), [replacement]);
    }

    /// A saved vote is read back after a reopen, but never as committed: a restarted voter
    /// stands for election again.
    #[tokio::test]
    async fn votes_are_read_back_uncommitted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = LogStore::new(open(dir.path()));
        assert_eq!(store.read_vote().await.expect("reads"), None);
        store.save_vote(&Vote::new_committed(4, 1)).await.expect("saves");
        let mut store = LogStore::new(open(dir.path()));
        assert_eq!(store.read_vote().await.expect("reads"), Some(Vote::new(4, 1)));
    }
}
