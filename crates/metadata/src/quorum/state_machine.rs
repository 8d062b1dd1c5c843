//! openraft's state machine: nothing but the last applied entry, the membership, and the high
//! watermark it publishes.
//!
//! The metadata records themselves stay in the log; the broker's image is built by replaying
//! them ([`super::Quorum::subscribe`]), so applying an entry only moves the high watermark (the
//! offset after the last applied batch, as Kafka's) and answers the proposer with its batch's last
//! offset. On open the state machine is empty: everything is applied again once the new leader's
//! first entry commits, which is how a restart replays.
//!
//! **Snapshots are off** (`SnapshotPolicy::Never`, and nothing triggers one): openraft never
//! builds one, and since the log is never purged a leader always has the entries a lagging or
//! restarted voter needs, so it never sends one either. The snapshot calls fail if reached.
//! Kafka-format snapshots (`<offset>-<epoch>.checkpoint`) and log purging come later.
//!
//! On every voter, leader or follower, entries are applied once openraft learns they are
//! committed, so a follower's high watermark (and its subscribers' feed) trails the leader's by
//! at most a heartbeat.

use std::io::Cursor;
use std::sync::Arc;

use openraft::storage::RaftStateMachine;
use openraft::{
    EntryPayload, LogId, RaftSnapshotBuilder, Snapshot, SnapshotMeta, StorageError, StorageIOError, StoredMembership,
};
use tokio::sync::watch;

use super::QuorumError;
use super::entry::{AppliedOffsets, TypeConfig, VoterNode};
use super::log_store::{SharedLog, lock};

pub(crate) struct StateMachine {
    log: SharedLog,
    /// The high watermark: subscribers read up to it.
    high_watermark: Arc<watch::Sender<i64>>,
    last_applied: Option<LogId<u64>>,
    membership: StoredMembership<u64, VoterNode>,
}

impl StateMachine {
    pub(crate) fn new(log: SharedLog, high_watermark: Arc<watch::Sender<i64>>) -> StateMachine {
        StateMachine { log, high_watermark, last_applied: None, membership: StoredMembership::default() }
    }
}

fn unsupported_snapshot() -> StorageError<u64> {
    let e = QuorumError::Unsupported("metadata snapshots come with the multi-voter quorum".into());
    StorageIOError::write_snapshot(None, openraft::AnyError::new(&e)).into()
}

/// Builds no snapshot: see the module doc.
pub(crate) struct SnapshotBuilder;

impl RaftSnapshotBuilder<TypeConfig> for SnapshotBuilder {
    async fn build_snapshot(&mut self) -> Result<Snapshot<TypeConfig>, StorageError<u64>> {
        Err(unsupported_snapshot())
    }
}

impl RaftStateMachine<TypeConfig> for StateMachine {
    type SnapshotBuilder = SnapshotBuilder;

    async fn applied_state(
        &mut self,
    ) -> Result<(Option<LogId<u64>>, StoredMembership<u64, VoterNode>), StorageError<u64>> {
        Ok((self.last_applied, self.membership.clone()))
    }

    async fn apply<I>(&mut self, entries: I) -> Result<Vec<AppliedOffsets>, StorageError<u64>>
    where
        I: IntoIterator<Item = openraft::Entry<TypeConfig>> + Send,
        I::IntoIter: Send,
    {
        let mut applied = Vec::new();
        for entry in entries {
            let stored = lock(&self.log).stored_batch(entry.log_id.index);
            let Some(stored) = stored else {
                let e = QuorumError::CorruptLog(format!("applying {}: no such batch", entry.log_id));
                return Err(StorageIOError::apply(entry.log_id, openraft::AnyError::new(&e)).into());
            };
            if let EntryPayload::Membership(membership) = entry.payload {
                self.membership = StoredMembership::new(Some(entry.log_id), membership);
            }
            self.last_applied = Some(entry.log_id);
            applied.push(AppliedOffsets { last_offset: stored.last_offset });
        }
        if let Some(last) = applied.last() {
            let high_watermark = last.last_offset + 1;
            self.high_watermark.send_if_modified(|current| {
                assert!(high_watermark >= *current, "the high watermark never goes back");
                let moved = high_watermark > *current;
                *current = high_watermark;
                moved
            });
        }
        Ok(applied)
    }

    async fn get_snapshot_builder(&mut self) -> SnapshotBuilder {
        SnapshotBuilder
    }

    async fn begin_receiving_snapshot(&mut self) -> Result<Box<Cursor<Vec<u8>>>, StorageError<u64>> {
        Err(unsupported_snapshot())
    }

    async fn install_snapshot(
        &mut self,
        _meta: &SnapshotMeta<u64, VoterNode>,
        _snapshot: Box<Cursor<Vec<u8>>>,
    ) -> Result<(), StorageError<u64>> {
        Err(unsupported_snapshot())
    }

    async fn get_current_snapshot(&mut self) -> Result<Option<Snapshot<TypeConfig>>, StorageError<u64>> {
        Ok(None)
    }
}
