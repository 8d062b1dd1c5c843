//! [`Partition`]: one hosted partition: its log, its replica state (role, epochs, ISR, the
//! followers' progress, the high watermark) and the [`Progress`] watch that parked `acks=all`
//! produces wait on.
//!
//! Locking: the replica state's mutex, then the log's (the partition's append lock), always in
//! that order and never across an `.await`. Holding the state lock through an append means a
//! leadership change never lands in the middle of one (Kafka's `leaderIsrUpdateLock`).
//!
//! The leader's rules live here, one file per seam:
//! - `mod.rs`: the partition, its locks, the [`Progress`] it publishes, its offsets and status.
//! - `role.rs`: becoming leader or follower from a metadata state.
//! - `serve.rs`: the data path: appending as leader (`min.insync.replicas` checked first for
//!   `acks=all`), consumer reads, DeleteRecords, and serving a follower's fetch (leader epoch
//!   and broker epoch checks, diverging epoch, progress, high watermark).
//! - `isr_changes.rs`: proposing ISR expansions and shrinks, adopting AlterPartition answers.
//!
//! The follower's side of a fetch is in `follower.rs`.
//!
//! What it is not: it sends nothing and spawns nothing; it returns the AlterPartition item to
//! send, and the manager sends it.

mod isr_changes;
mod role;
mod serve;
#[cfg(test)]
mod tests;

use std::sync::{Arc, Mutex, MutexGuard};

use strand_base::{BrokerId, Offset, TopicPartition, Uuid};
use strand_log::log::AppendInfo;
use strand_log::manager::{SharedLog, lock};
use strand_log::{Log, LogError};
use tokio::sync::watch;

use crate::delayed_produce::{DelayedProduce, Progress};
use crate::error::ReplicaError;
use crate::replica::{ReplicaState, Role, high_watermark_candidate};
use crate::state::{FollowerStatus, PartitionStatus};
use crate::types::PartitionOffsets;

/// What an append as leader returned.
#[derive(Debug)]
pub struct Appended {
    pub info: AppendInfo,
    pub log_start_offset: Offset,
    /// For `acks=all`: the wait for the in-sync replicas (and the leader's own sync).
    pub delayed: Option<DelayedProduce>,
}

/// `min.insync.replicas` capped at the replica count (Kafka's `effectiveMinIsr`; a standalone
/// replica, with no replica list, counts as one).
pub(crate) fn effective_min_isr(min_insync_replicas: i32, replicas: usize) -> i32 {
    min_insync_replicas.min(i32::try_from(replicas.max(1)).unwrap_or(i32::MAX))
}

/// Whether an ISR of `isr` members is below the effective `min.insync.replicas`.
fn is_under_min_isr(isr: usize, min_insync_replicas: i32, replicas: usize) -> bool {
    i32::try_from(isr).unwrap_or(i32::MAX) < effective_min_isr(min_insync_replicas, replicas)
}

#[derive(Debug)]
pub(crate) struct Partition {
    pub tp: TopicPartition,
    pub log: SharedLog,
    /// This node; `BrokerId::NONE` for a standalone replica manager.
    local: BrokerId,
    /// A standalone replica manager leads its unassigned partitions alone.
    standalone: bool,
    state: Mutex<ReplicaState>,
    progress: watch::Sender<Progress>,
    /// This partition's change counter, bumped on appends and progress changes and on removal:
    /// the fetches parked on it look again (a [`crate::FetchWatch`]).
    own_changes: watch::Sender<u64>,
    /// The manager's "something changed" counter, bumped with every partition's, for waiters on
    /// any change (status waits, the coordinators' high-watermark waits).
    changed: Arc<watch::Sender<u64>>,
    /// Its log directory failed (Kafka's `HostedPartition.Offline`): it takes no more partition
    /// states and proposes no ISR change until a restart re-reads the directory.
    offline: std::sync::atomic::AtomicBool,
    /// The leader epoch in which this follower last logged serving a consumer (-1: never).
    follower_read_logged_epoch: std::sync::atomic::AtomicI32,
}

impl Partition {
    pub fn new(
        tp: TopicPartition,
        log: SharedLog,
        state: ReplicaState,
        local: BrokerId,
        standalone: bool,
        changed: Arc<watch::Sender<u64>>,
    ) -> Self {
        let initial = Progress {
            leader_epoch: state.leader_epoch,
            leads: standalone,
            high_watermark: state.high_watermark,
            isr_len: usize::from(standalone),
            min_insync_replicas: effective_min_isr(state.min_insync_replicas, state.replicas.len()),
        };
        Partition {
            tp,
            log,
            local,
            standalone,
            state: Mutex::new(state),
            progress: watch::Sender::new(initial),
            own_changes: watch::Sender::new(0),
            changed,
            offline: std::sync::atomic::AtomicBool::new(false),
            follower_read_logged_epoch: std::sync::atomic::AtomicI32::new(-1),
        }
    }

    pub fn lock_state(&self) -> Result<MutexGuard<'_, ReplicaState>, ReplicaError> {
        self.state
            .lock()
            .map_err(|_| LogError::Invalid(format!("the replica state lock of {} is poisoned", self.tp)).into())
    }

    pub fn topic_id(&self) -> Result<Uuid, ReplicaError> {
        Ok(self.lock_state()?.topic_id)
    }

    pub fn set_topic_id(&self, topic_id: Uuid) -> Result<(), ReplicaError> {
        self.lock_state()?.topic_id = topic_id;
        Ok(())
    }

    /// Whether this node leads the partition with `replica` in its committed ISR (Kafka's
    /// `inSyncReplicaIds`): the leader's replication throttle never holds such a follower back.
    pub fn has_in_sync(&self, replica: BrokerId) -> bool {
        self.lock_state().is_ok_and(|s| s.leader().is_some_and(|l| l.isr.isr().contains(&replica)))
    }

    /// Whether this node takes produces and consumer reads for the partition now.
    pub fn is_leader(&self) -> bool {
        self.lock_state().is_ok_and(|s| self.leads(&s))
    }

    /// Whether this node takes produces and consumer reads for the partition.
    fn leads(&self, s: &ReplicaState) -> bool {
        matches!(s.role, Role::Leader(_)) || (self.standalone && s.role == Role::Unassigned)
    }

    /// The high watermark: the log end offset for a standalone partition (an ISR of one).
    fn high_watermark_of(&self, s: &ReplicaState, log: &Log) -> Offset {
        if self.standalone && s.role == Role::Unassigned {
            log.log_end_offset()
        } else {
            s.high_watermark.min(log.log_end_offset())
        }
    }

    fn isr_len(&self, s: &ReplicaState) -> usize {
        match &s.role {
            Role::Leader(leader) => leader.isr.isr().len(),
            Role::Unassigned if self.standalone => 1,
            _ => 0,
        }
    }

    /// Publishes the progress parked produces watch, and wakes waiting fetches.
    fn publish(&self, s: &ReplicaState, log: &Log) {
        let progress = Progress {
            leader_epoch: s.leader_epoch,
            leads: self.leads(s),
            high_watermark: self.high_watermark_of(s, log),
            isr_len: self.isr_len(s),
            min_insync_replicas: effective_min_isr(s.min_insync_replicas, s.replicas.len()),
        };
        if self.progress.send_if_modified(|p| std::mem::replace(p, progress) != progress) {
            self.notify();
        }
    }

    /// Wakes the fetches waiting on this partition (after an append, or a progress change).
    pub fn notify(&self) {
        self.own_changes.send_modify(|n| *n = n.wrapping_add(1));
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// A receiver of this partition's changes (see [`Partition::notify`]).
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.own_changes.subscribe()
    }

    /// The partition left this node: parked produces fail.
    pub fn mark_removed(&self) {
        self.progress.send_modify(|p| p.leads = false);
        self.notify();
    }

    /// Its log directory failed (Kafka's `markPartitionOffline`): from now on this node neither
    /// leads nor follows it whatever metadata says, and parked produces fail. Returns whether it
    /// was online until now.
    pub fn mark_offline(&self) -> bool {
        let newly = !self.offline.swap(true, std::sync::atomic::Ordering::SeqCst);
        if newly {
            self.mark_removed();
        }
        newly
    }

    pub fn is_offline(&self) -> bool {
        self.offline.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// The log directory's error once the partition is offline.
    fn check_online(&self) -> Result<(), ReplicaError> {
        if self.is_offline() {
            lock(&self.log)?.check_online()?;
        }
        Ok(())
    }

    /// Raises the leader's high watermark to the lowest log end offset over the maximal ISR, if
    /// that is higher. Returns whether it moved.
    ///
    /// Strict min ISR (KIP-966, Kafka 4's `Partition.maybeIncrementLeaderHW`): never while the
    /// committed ISR is smaller than the effective `min.insync.replicas` (at most the replica
    /// count), so no record becomes visible, `acks=1` included, that fewer replicas hold. That is
    /// what lets the controller elect a replica that left the ISR below that size (its ELR)
    /// without losing a committed record.
    fn maybe_increment_high_watermark(&self, s: &mut ReplicaState, log: &mut Log) -> bool {
        let Some(leader) = s.leader() else { return false };
        if is_under_min_isr(leader.isr.isr().len(), s.min_insync_replicas, s.replicas.len()) {
            return false;
        }
        let candidate =
            high_watermark_candidate(log.log_end_offset(), &leader.isr.maximal_isr(), self.local, &leader.followers);
        if candidate <= s.high_watermark {
            return false;
        }
        s.high_watermark = candidate;
        log.producer_state_mut().on_high_watermark_updated(candidate);
        true
    }

    pub fn offsets(&self) -> Result<PartitionOffsets, ReplicaError> {
        let s = self.lock_state()?;
        let log = lock(&self.log)?;
        Ok(self.offsets_of(&s, &log))
    }

    fn offsets_of(&self, s: &ReplicaState, log: &Log) -> PartitionOffsets {
        let high_watermark = self.high_watermark_of(s, log);
        let last_stable_offset = log.first_unstable_offset().map_or(high_watermark, |first| first.min(high_watermark));
        PartitionOffsets { log_start_offset: log.log_start_offset(), high_watermark, last_stable_offset }
    }

    pub fn status(&self) -> Result<PartitionStatus, ReplicaError> {
        let s = self.lock_state()?;
        let log = lock(&self.log)?;
        let leader = s.leader();
        Ok(PartitionStatus {
            role: s.role.public(),
            leader_epoch: s.leader_epoch,
            partition_epoch: s.partition_epoch,
            replicas: s.replicas.clone(),
            isr: leader.map(|l| l.isr.isr().to_vec()).unwrap_or_default(),
            maximal_isr: leader.map(|l| l.isr.maximal_isr()).unwrap_or_default(),
            isr_change_in_flight: leader.is_some_and(|l| l.isr.in_flight().is_some()),
            high_watermark: self.high_watermark_of(&s, &log),
            log_start_offset: log.log_start_offset(),
            log_end_offset: log.log_end_offset(),
            leader_epoch_start_offset: leader.map(|l| l.epoch_start_offset),
            followers: leader
                .map(|l| {
                    l.followers
                        .iter()
                        .map(|(id, f)| FollowerStatus {
                            broker_id: *id,
                            log_end_offset: f.log_end_offset,
                            log_start_offset: f.log_start_offset,
                            last_caught_up_time_ms: f.last_caught_up_time_ms,
                        })
                        .collect()
                })
                .unwrap_or_default(),
            min_insync_replicas: s.min_insync_replicas,
        })
    }

    /// This partition's high watermark, for checkpoints and maintenance passes.
    pub fn high_watermark(&self) -> Result<Offset, ReplicaError> {
        let s = self.lock_state()?;
        let log = lock(&self.log)?;
        Ok(self.high_watermark_of(&s, &log))
    }

    /// Runs `step` on the log under both locks, with the high watermark (maintenance passes).
    pub fn with_log<T>(&self, step: impl FnOnce(&mut Log, Offset) -> Result<T, LogError>) -> Result<T, ReplicaError> {
        let s = self.lock_state()?;
        let mut log = lock(&self.log)?;
        let high_watermark = self.high_watermark_of(&s, &log);
        Ok(step(&mut log, high_watermark)?)
    }

    /// The follower side: state and log locked together, for `follower.rs`.
    pub(crate) fn lock_both(&self) -> Result<(MutexGuard<'_, ReplicaState>, MutexGuard<'_, Log>), ReplicaError> {
        let s = self.lock_state()?;
        let log = lock(&self.log)?;
        Ok((s, log))
    }

    pub(crate) fn publish_locked(&self, s: &ReplicaState, log: &Log) {
        self.publish(s, log);
    }
}
