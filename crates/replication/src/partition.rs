//! [`Partition`]: one hosted partition: its log, its replica state (role, epochs, ISR, the
//! followers' progress, the high watermark) and the [`Progress`] watch that parked `acks=all`
//! produces wait on.
//!
//! Locking: the replica state's mutex, then the log's (the partition's append lock), always in
//! that order and never across an `.await`. Holding the state lock through an append means a
//! leadership change never lands in the middle of one (Kafka's `leaderIsrUpdateLock`).
//!
//! The leader's rules live here: becoming leader or follower from a metadata state, appending as
//! leader (`min.insync.replicas` checked first for `acks=all`), serving a follower's fetch
//! (leader epoch and broker epoch checks, diverging epoch, progress, ISR expansion, high
//! watermark), shrinking the ISR, adopting AlterPartition answers. The follower's side of a
//! fetch is in `follower.rs`.
//!
//! What it is not: it sends nothing and spawns nothing; it returns the AlterPartition item to
//! send, and the manager sends it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use strand_base::{BrokerId, LeaderEpoch, Offset, TopicPartition, Uuid};
use strand_log::log::{AppendInfo, ValidatedBatch};
use strand_log::manager::{SharedLog, flush_unlocked, lock};
use strand_log::producer_state::AppendContext;
use strand_log::{Log, LogError};
use tokio::sync::watch;

use crate::delayed_produce::DelayedProduce;
use crate::isr::{AlterOutcome, AlterPartitionItem, IsrMember, LeaderAndIsr, outcome_of_error};
use crate::leader::{FollowerFetch, FollowerRead};
use crate::replica::{
    FollowerProgress, IsrState, LeaderState, ReplicaState, Role, Update, classify, diverging_epoch,
    high_watermark_candidate, may_join_isr, out_of_sync,
};
use crate::state::{BrokerStatus, FollowerStatus, PartitionState, PartitionStatus, RoleChange};
use crate::{Acks, FirstBatch, Isolation, PartitionOffsets, PartitionRead, ReplicaError};

/// The brokers' standing as the server last reported it; `None` until it does (every broker is
/// then taken as eligible).
pub(crate) type BrokerStatuses = Option<BTreeMap<BrokerId, BrokerStatus>>;

/// What parked produces and the high-watermark waiters watch: changes on every leadership
/// change, high watermark move and ISR change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Progress {
    pub leader_epoch: LeaderEpoch,
    /// Whether this node takes produces for the partition.
    pub leads: bool,
    pub high_watermark: Offset,
    /// The committed ISR's size.
    pub isr_len: usize,
    pub min_insync_replicas: i32,
}

/// What an append as leader returned.
#[derive(Debug)]
pub struct Appended {
    pub info: AppendInfo,
    pub log_start_offset: Offset,
    /// For `acks=all`: the wait for the in-sync replicas (and the leader's own sync).
    pub delayed: Option<DelayedProduce>,
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
            min_insync_replicas: state.min_insync_replicas,
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
            min_insync_replicas: s.min_insync_replicas,
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
    fn maybe_increment_high_watermark(&self, s: &mut ReplicaState, log: &mut Log) -> bool {
        let Some(leader) = s.leader() else { return false };
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
                            last_caught_up_time_ms: f.last_caught_up_time_ms,
                        })
                        .collect()
                })
                .unwrap_or_default(),
            min_insync_replicas: s.min_insync_replicas,
        })
    }

    /// Applies a partition state from metadata (Kafka's `makeLeader`/`makeFollower`): a newer
    /// leader epoch makes this node leader (its epoch recorded at the log end offset, every
    /// follower's progress reset) or follower; a newer partition epoch in the same leader epoch
    /// replaces the ISR (ending any pending change) and replicas; anything older is ignored.
    /// `min.insync.replicas` is taken in every case.
    pub fn apply(&self, incoming: &PartitionState, topic_id: Uuid, now_ms: i64) -> Result<RoleChange, ReplicaError> {
        if !incoming.replicas.contains(&self.local) {
            return Err(ReplicaError::NotReplica { tp: self.tp.clone(), replica: self.local });
        }
        if self.is_offline() {
            // Kafka skips offline partitions in `applyDelta`; the controller moves them away.
            return Ok(RoleChange::Unchanged);
        }
        let mut s = self.lock_state()?;
        let mut log = lock(&self.log)?;
        s.topic_id = topic_id;
        s.min_insync_replicas = incoming.min_insync_replicas.max(1);
        let leads = incoming.leader == self.local;
        let (is_leader, is_follower) = (s.leader().is_some(), matches!(s.role, Role::Follower { .. }));
        let change = match classify(&s, incoming) {
            Update::Stale => RoleChange::Stale,
            Update::Same => RoleChange::Unchanged,
            Update::NewPartitionEpoch if leads && is_leader => {
                if let Some(leader) = s.leader_mut() {
                    replace_assignment(leader, incoming, self.local, now_ms);
                }
                RoleChange::Updated
            }
            Update::NewPartitionEpoch if !leads && is_follower => {
                s.role = Role::Follower { leader: incoming.leader };
                RoleChange::Updated
            }
            _ if leads => {
                self.become_leader(&mut s, &mut log, incoming, now_ms)?;
                RoleChange::BecameLeader
            }
            _ => {
                s.role = Role::Follower { leader: incoming.leader };
                RoleChange::BecameFollower
            }
        };
        if !matches!(change, RoleChange::Stale | RoleChange::Unchanged) {
            s.leader_epoch = incoming.leader_epoch;
            s.partition_epoch = incoming.partition_epoch;
            s.replicas = incoming.replicas.clone();
            s.leader_recovery_state = incoming.leader_recovery_state;
            self.maybe_increment_high_watermark(&mut s, &mut log);
        }
        self.publish(&s, &log);
        Ok(change)
    }

    fn become_leader(
        &self,
        s: &mut ReplicaState,
        log: &mut Log,
        incoming: &PartitionState,
        now_ms: i64,
    ) -> Result<(), ReplicaError> {
        let end = log.log_end_offset();
        log.maybe_assign_epoch_start_offset(incoming.leader_epoch, end)?;
        let followers = incoming
            .replicas
            .iter()
            .filter(|id| **id != self.local)
            .map(|id| (*id, FollowerProgress::new(incoming.isr.contains(id), now_ms)))
            .collect();
        s.role = Role::Leader(LeaderState {
            isr: IsrState::Committed { isr: incoming.isr.clone() },
            epoch_start_offset: end,
            followers,
        });
        s.high_watermark = s.high_watermark.min(end);
        Ok(())
    }

    /// Appends a batch as leader at `leader_epoch`, which must be this leader's epoch (a
    /// standalone partition takes the caller's). With `acks=all` the committed ISR must hold at
    /// least `min.insync.replicas` first (NOT_ENOUGH_REPLICAS, nothing appended), and the result
    /// carries the [`DelayedProduce`] to wait on.
    pub fn append_as_leader(
        &self,
        batch: ValidatedBatch,
        leader_epoch: LeaderEpoch,
        acks: Acks,
        context: AppendContext,
        flush_on_acks_all: bool,
    ) -> Result<Appended, ReplicaError> {
        let mut s = self.lock_state()?;
        let epoch = match &s.role {
            Role::Leader(_) if leader_epoch == s.leader_epoch => leader_epoch,
            Role::Unassigned if self.standalone => leader_epoch,
            _ => return Err(ReplicaError::NotLeaderOrFollower(self.tp.clone())),
        };
        let isr = self.isr_len(&s);
        if acks == Acks::All && i32::try_from(isr).unwrap_or(i32::MAX) < s.min_insync_replicas {
            return Err(ReplicaError::NotEnoughReplicas { tp: self.tp.clone(), isr, min: s.min_insync_replicas });
        }
        let mut log = lock(&self.log)?;
        let info = log.append_as_leader(batch, epoch, context)?;
        if self.standalone && s.role == Role::Unassigned {
            let end = log.log_end_offset();
            log.producer_state_mut().on_high_watermark_updated(end);
        } else {
            self.maybe_increment_high_watermark(&mut s, &mut log);
        }
        let log_start_offset = log.log_start_offset();
        self.publish(&s, &log);
        self.sync_rolled_segments(&mut log);
        self.notify();
        let delayed = (acks == Acks::All).then(|| {
            let progress = self.progress.subscribe();
            let epoch = progress.borrow().leader_epoch;
            DelayedProduce::new(
                self.tp.clone(),
                self.log.clone(),
                progress,
                info.last_offset + 1,
                epoch,
                flush_on_acks_all,
            )
        });
        Ok(Appended { info, log_start_offset, delayed })
    }

    /// Syncs the segments the last appends rolled away from, on another thread once the
    /// partition's locks are released (Kafka's `flush-log` task after a roll), so an append that
    /// rolls does not wait for their `fdatasync`s. The sync also moves the recovery point past
    /// them. A failure is logged; the data stays in the log and the next flush tries again.
    pub(crate) fn sync_rolled_segments(&self, log: &mut Log) {
        let Some(offset) = log.take_roll_flush() else { return };
        let (tp, shared) = (self.tp.clone(), self.log.clone());
        let sync = move || {
            if let Err(e) = flush_unlocked(&shared, offset) {
                tracing::error!("could not sync the segments of {tp} below {offset} after a roll: {e}");
            }
        };
        // Without a runtime (tests that drive a partition directly) a thread does it.
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(sync)),
            Err(_) => drop(std::thread::spawn(sync)),
        }
    }

    /// A consumer's read: this node must lead; never past the high watermark (or the last stable
    /// offset under read_committed).
    pub fn read(
        &self,
        offset: Offset,
        max_bytes: u64,
        isolation: Isolation,
        first_batch: FirstBatch,
    ) -> Result<PartitionRead, ReplicaError> {
        let s = self.lock_state()?;
        if !self.leads(&s) {
            return Err(ReplicaError::NotLeaderOrFollower(self.tp.clone()));
        }
        let log = lock(&self.log)?;
        let offsets = self.offsets_of(&s, &log);
        drop(s);
        let limit = match isolation {
            Isolation::ReadUncommitted => offsets.high_watermark,
            Isolation::ReadCommitted => offsets.last_stable_offset,
        };
        let records = first_batch.apply(log.read(offset, max_bytes, Some(limit))?, max_bytes);
        let aborted = match isolation {
            Isolation::ReadCommitted if records.is_some() => log.collect_aborted_txns(offset, limit),
            _ => Vec::new(),
        };
        Ok(PartitionRead {
            records,
            high_watermark: offsets.high_watermark,
            last_stable_offset: offsets.last_stable_offset,
            log_start_offset: offsets.log_start_offset,
            aborted,
        })
    }

    /// The current leader and epoch as this node knows them, for errors that name the leader.
    pub fn leader_and_epoch(&self) -> Option<(BrokerId, LeaderEpoch)> {
        let s = self.lock_state().ok()?;
        match &s.role {
            Role::Leader(_) => Some((self.local, s.leader_epoch)),
            Role::Follower { leader } => Some((*leader, s.leader_epoch)),
            Role::Unassigned => None,
        }
    }

    fn check_leader_epoch(&self, s: &ReplicaState, requested: LeaderEpoch) -> Result<(), ReplicaError> {
        let (tp, current) = (self.tp.clone(), s.leader_epoch);
        match requested {
            r if r < 0 || r == current => Ok(()),
            r if r < current => Err(ReplicaError::FencedLeaderEpoch { tp, requested: r, current }),
            r => Err(ReplicaError::UnknownLeaderEpoch { tp, requested: r, current }),
        }
    }

    /// Serves a follower's fetch: checks the leader epoch it names, that it is a replica and
    /// fetches with its current broker epoch; answers a diverging epoch when its last fetched
    /// epoch ends earlier here (and then records nothing); otherwise reads from `fetch_offset` to
    /// the log end and, with `update`, records its progress, proposes it for the ISR if it
    /// qualifies, and moves the high watermark. Returns the read and the AlterPartition item to
    /// send, if any.
    pub fn fetch_for_follower(
        &self,
        fetch: &FollowerFetch,
        now_ms: i64,
        update: bool,
        brokers: &BrokerStatuses,
    ) -> Result<(FollowerRead, Option<AlterPartitionItem>), ReplicaError> {
        // KAFKA_STORAGE_ERROR, and no ISR expansion proposed for it.
        self.check_online()?;
        let mut s = self.lock_state()?;
        self.check_leader_epoch(&s, fetch.current_leader_epoch)?;
        if s.leader().is_none() {
            return Err(ReplicaError::NotLeaderOrFollower(self.tp.clone()));
        }
        let replica = fetch.replica_id;
        if replica == self.local || !s.replicas.contains(&replica) {
            return Err(ReplicaError::NotReplica { tp: self.tp.clone(), replica });
        }
        if let Some(status) = brokers.as_ref().and_then(|b| b.get(&replica))
            && fetch.broker_epoch != -1
            && status.broker_epoch > fetch.broker_epoch
        {
            return Err(ReplicaError::StaleBrokerEpoch {
                replica,
                fetched: fetch.broker_epoch,
                registered: status.broker_epoch,
            });
        }
        let mut log = lock(&self.log)?;
        let (start, end) = (log.log_start_offset(), log.log_end_offset());
        let out_of_range = LogError::OffsetOutOfRange { offset: fetch.fetch_offset, start, end };
        if fetch.last_fetched_epoch >= 0 {
            if fetch.fetch_offset < start {
                return Err(out_of_range.into());
            }
            let leader_end = log.epoch_cache().end_offset_for(fetch.last_fetched_epoch, end);
            match diverging_epoch(leader_end, fetch.last_fetched_epoch, fetch.fetch_offset) {
                Err(()) => return Err(out_of_range.into()),
                Ok(Some(diverging)) => {
                    let read = FollowerRead::new(None, Some(diverging), self.offsets_of(&s, &log), end);
                    return Ok((read, None));
                }
                Ok(None) => {}
            }
        }
        let records = match fetch.max_bytes {
            0 if fetch.fetch_offset < start || fetch.fetch_offset > end => return Err(out_of_range.into()),
            0 => None,
            max_bytes => log.read(fetch.fetch_offset, max_bytes, None)?.filter(|slice| slice.len > 0),
        };
        let mut item = None;
        if update {
            let progress = s
                .leader_mut()
                .map(|l| l.followers.entry(replica).or_insert_with(|| FollowerProgress::new(false, now_ms)));
            let mut moved = false;
            if let Some(progress) = progress {
                moved = progress.log_end_offset != fetch.fetch_offset;
                progress.on_fetch(fetch.fetch_offset, fetch.log_start_offset, now_ms, end, fetch.broker_epoch);
            }
            item = self.maybe_expand_isr(&mut s, replica, fetch.broker_epoch, brokers);
            self.maybe_increment_high_watermark(&mut s, &mut log);
            self.publish(&s, &log);
            if moved {
                // Whoever watches replication (a status waiter, an idle fetch) looks again.
                self.notify();
            }
        }
        Ok((FollowerRead::new(records, None, self.offsets_of(&s, &log), end), item))
    }

    /// Proposes adding `replica` to the ISR when no change is in flight, it is not a member, it
    /// has reached the high watermark and this epoch's start, and its broker is eligible.
    fn maybe_expand_isr(
        &self,
        s: &mut ReplicaState,
        replica: BrokerId,
        fetched_epoch: i64,
        brokers: &BrokerStatuses,
    ) -> Option<AlterPartitionItem> {
        let high_watermark = s.high_watermark;
        let leader = s.leader()?;
        if leader.isr.in_flight().is_some() || leader.isr.isr().contains(&replica) {
            return None;
        }
        let eligible =
            brokers.as_ref().is_none_or(|b| b.get(&replica).is_some_and(|st| st.isr_eligible(fetched_epoch)));
        if !eligible || !may_join_isr(leader, replica, high_watermark) {
            return None;
        }
        let isr = leader.isr.isr().to_vec();
        let mut proposed = isr.clone();
        proposed.push(replica);
        let item = self.item(s, proposed, brokers);
        let leader = s.leader_mut()?;
        leader.isr = IsrState::PendingExpand { isr, adding: replica, sent: item.clone() };
        Some(item)
    }

    /// Proposes removing the ISR members that have not been caught up for `lag_max_ms`
    /// (`replica.lag.time.max.ms`), when no change is in flight.
    pub fn maybe_shrink_isr(
        &self,
        now_ms: i64,
        lag_max_ms: i64,
        brokers: &BrokerStatuses,
    ) -> Result<Option<AlterPartitionItem>, ReplicaError> {
        if self.is_offline() {
            return Ok(None);
        }
        let mut s = self.lock_state()?;
        let Some(leader) = s.leader() else { return Ok(None) };
        if leader.isr.in_flight().is_some() {
            return Ok(None);
        }
        let end = lock(&self.log)?.log_end_offset();
        let removing = out_of_sync(leader, self.local, end, now_ms, lag_max_ms);
        if removing.is_empty() {
            return Ok(None);
        }
        let isr = leader.isr.isr().to_vec();
        let proposed: Vec<BrokerId> = isr.iter().copied().filter(|id| !removing.contains(id)).collect();
        let item = self.item(&s, proposed, brokers);
        if let Some(leader) = s.leader_mut() {
            leader.isr = IsrState::PendingShrink { isr, removing, sent: item.clone() };
        }
        Ok(Some(item))
    }

    /// An AlterPartition item proposing `isr`, each member with the broker epoch it last fetched
    /// with (this node's own from the broker statuses).
    fn item(&self, s: &ReplicaState, isr: Vec<BrokerId>, brokers: &BrokerStatuses) -> AlterPartitionItem {
        let followers = s.leader().map(|l| &l.followers);
        let epoch_of = |id: BrokerId| {
            if id == self.local {
                brokers.as_ref().and_then(|b| b.get(&id)).map_or(-1, |st| st.broker_epoch)
            } else {
                followers.and_then(|f| f.get(&id)).map_or(-1, |f| f.broker_epoch)
            }
        };
        AlterPartitionItem {
            topic_partition: self.tp.clone(),
            topic_id: s.topic_id,
            leader_epoch: s.leader_epoch,
            partition_epoch: s.partition_epoch,
            new_isr: isr
                .into_iter()
                .map(|broker_id| IsrMember { broker_id, broker_epoch: epoch_of(broker_id) })
                .collect(),
            leader_recovery_state: s.leader_recovery_state,
        }
    }

    /// Takes the controller's answer to `sent` (see `isr.rs` for the rules). Answers to an item
    /// no longer in flight are ignored.
    pub fn on_alter_partition(
        &self,
        sent: &AlterPartitionItem,
        answer: Result<LeaderAndIsr, strand_protocol::error::ErrorCode>,
    ) -> Result<AlterOutcome, ReplicaError> {
        let mut s = self.lock_state()?;
        let (leader_epoch, partition_epoch) = (s.leader_epoch, s.partition_epoch);
        let Some(leader) = s.leader_mut() else { return Ok(AlterOutcome::Ignored) };
        if leader.isr.in_flight() != Some(sent) {
            return Ok(AlterOutcome::Ignored);
        }
        let outcome = match answer {
            Ok(new) if new.leader_epoch != leader_epoch || new.partition_epoch < partition_epoch => {
                AlterOutcome::AwaitMetadata
            }
            Ok(new) => {
                leader.isr = IsrState::Committed { isr: new.isr };
                s.partition_epoch = new.partition_epoch;
                s.leader_recovery_state = new.leader_recovery_state;
                AlterOutcome::Adopted
            }
            Err(code) => {
                let outcome = outcome_of_error(code);
                if outcome == AlterOutcome::Reverted {
                    leader.isr = IsrState::Committed { isr: leader.isr.isr().to_vec() };
                }
                outcome
            }
        };
        if matches!(outcome, AlterOutcome::Adopted | AlterOutcome::Reverted) {
            let mut log = lock(&self.log)?;
            self.maybe_increment_high_watermark(&mut s, &mut log);
            self.publish(&s, &log);
        }
        Ok(outcome)
    }

    /// Whether `sent` is still this partition's AlterPartition in flight.
    pub fn is_in_flight(&self, sent: &AlterPartitionItem) -> bool {
        self.lock_state().is_ok_and(|s| s.leader().and_then(|l| l.isr.in_flight()) == Some(sent))
    }

    /// Kafka's DeleteRecords on the leader: the log start offset moves up to `offset` (`-1`: the
    /// high watermark), never past the high watermark (OFFSET_OUT_OF_RANGE), and never on a topic
    /// that is only compacted (POLICY_VIOLATION). Followers move theirs when their next fetch
    /// reports it. The log start offset afterwards.
    pub fn delete_records(&self, offset: Offset) -> Result<Offset, ReplicaError> {
        let s = self.lock_state()?;
        if !self.leads(&s) {
            return Err(ReplicaError::NotLeaderOrFollower(self.tp.clone()));
        }
        let mut log = lock(&self.log)?;
        if log.config().compact_enabled && !log.config().delete_enabled {
            return Err(ReplicaError::DeleteRecordsPolicy(self.tp.clone()));
        }
        let high_watermark = self.high_watermark_of(&s, &log);
        let target = if offset == -1 { high_watermark } else { offset };
        if target < 0 || target > high_watermark {
            let (start, end) = (log.log_start_offset(), high_watermark);
            return Err(ReplicaError::Log(LogError::OffsetOutOfRange { offset: target, start, end }));
        }
        if target > log.log_start_offset() {
            log.advance_log_start_offset(target)?;
            self.publish(&s, &log);
        }
        Ok(log.log_start_offset())
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

/// A newer partition epoch in the same leader epoch: the committed ISR is replaced (any pending
/// change ends) and followers are added or dropped with the replica set.
fn replace_assignment(leader: &mut LeaderState, incoming: &PartitionState, local: BrokerId, now_ms: i64) {
    leader.isr = IsrState::Committed { isr: incoming.isr.clone() };
    leader.followers.retain(|id, _| incoming.replicas.contains(id));
    for id in incoming.replicas.iter().filter(|id| **id != local) {
        leader.followers.entry(*id).or_insert_with(|| FollowerProgress::new(incoming.isr.contains(id), now_ms));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use strand_base::SystemClock;
    use strand_log::log::LogCheckpoints;
    use strand_log::{Log, LogConfig};

    use super::*;

    fn partition(dir: &std::path::Path) -> Partition {
        let config = LogConfig { segment_index_bytes: 4096, ..LogConfig::default() };
        let log = Log::open(dir, config, LogCheckpoints::default(), Arc::new(SystemClock)).expect("log");
        let changed = Arc::new(watch::Sender::new(0));
        let state = ReplicaState::new(Uuid::ZERO, 0);
        Partition::new(TopicPartition::new("t", 0), Arc::new(Mutex::new(log)), state, BrokerId(1), false, changed)
    }

    fn state(leader: i32, leader_epoch: LeaderEpoch, partition_epoch: i32, isr: &[i32]) -> PartitionState {
        PartitionState {
            leader: BrokerId(leader),
            leader_epoch,
            partition_epoch,
            replicas: vec![BrokerId(1), BrokerId(2), BrokerId(3)],
            isr: isr.iter().copied().map(BrokerId).collect(),
            min_insync_replicas: 1,
            leader_recovery_state: 0,
        }
    }

    /// Every role transition a partition state can cause, in order, with what it leaves.
    #[test]
    fn role_transitions() {
        let dir = tempfile::tempdir().expect("dir");
        let p = partition(dir.path());
        let check = |incoming: PartitionState, expected: RoleChange, role: crate::ReplicaRole, isr: &[i32]| {
            assert_eq!(p.apply(&incoming, Uuid::ZERO, 0).expect("apply"), expected, "{incoming:?}");
            let status = p.status().expect("status");
            assert_eq!(status.role, role, "{incoming:?}");
            assert_eq!(status.isr, isr.iter().copied().map(BrokerId).collect::<Vec<_>>());
        };
        use crate::ReplicaRole::{Follower, Leader};
        let follower_of = |id| Follower { leader: BrokerId(id) };
        // Unassigned → Leader; same epochs → unchanged; older → stale.
        check(state(1, 3, 5, &[1, 2, 3]), RoleChange::BecameLeader, Leader, &[1, 2, 3]);
        check(state(1, 3, 5, &[1, 2, 3]), RoleChange::Unchanged, Leader, &[1, 2, 3]);
        check(state(1, 3, 4, &[1]), RoleChange::Stale, Leader, &[1, 2, 3]);
        check(state(2, 2, 9, &[2]), RoleChange::Stale, Leader, &[1, 2, 3]);
        // Leader → Leader: a newer partition epoch replaces the ISR; a newer leader epoch resets.
        check(state(1, 3, 6, &[1, 2]), RoleChange::Updated, Leader, &[1, 2]);
        check(state(1, 4, 7, &[1, 2]), RoleChange::BecameLeader, Leader, &[1, 2]);
        // Leader → Follower → Follower (ISR change, then a new epoch of the same leader).
        check(state(2, 5, 8, &[1, 2]), RoleChange::BecameFollower, follower_of(2), &[]);
        check(state(2, 5, 9, &[2]), RoleChange::Updated, follower_of(2), &[]);
        check(state(2, 6, 10, &[2]), RoleChange::BecameFollower, follower_of(2), &[]);
        // Follower of no leader, then Leader again.
        check(state(-1, 7, 11, &[2]), RoleChange::BecameFollower, follower_of(-1), &[]);
        check(state(1, 8, 12, &[1]), RoleChange::BecameLeader, Leader, &[1]);
        assert_eq!(p.status().expect("status").leader_epoch_start_offset, Some(0));
        // Not a replica any more: refused.
        let gone = PartitionState { replicas: vec![BrokerId(2)], ..state(2, 9, 13, &[2]) };
        assert!(p.apply(&gone, Uuid::ZERO, 0).is_err());
    }

    /// How the leader takes each kind of AlterPartition answer: refused (the committed ISR
    /// stands), stale (pending until metadata), retriable, or accepted (adopted with its
    /// partition epoch); answers to an item no longer in flight are ignored.
    #[test]
    fn alter_partition_answers() {
        use strand_protocol::error::ErrorCode;
        let dir = tempfile::tempdir().expect("dir");
        let p = partition(dir.path());
        p.apply(&state(1, 0, 0, &[1, 2, 3]), Uuid::ZERO, 0).expect("lead");
        let shrink = |now| p.maybe_shrink_isr(now, 30_000, &None).expect("check");
        assert_eq!(shrink(30_000), None, "within the lag time");
        let item = shrink(30_001).expect("both followers lag");
        assert_eq!(item.isr(), vec![BrokerId(1)]);
        assert_eq!((item.leader_epoch, item.partition_epoch), (0, 0));
        assert_eq!(shrink(40_000), None, "one change in flight");
        let answer = |result| p.on_alter_partition(&item, result).expect("answer");
        assert_eq!(answer(Err(ErrorCode::InvalidUpdateVersion)), AlterOutcome::AwaitMetadata);
        assert_eq!(answer(Err(ErrorCode::RequestTimedOut)), AlterOutcome::Retry);
        let stale = LeaderAndIsr {
            leader: BrokerId(1),
            leader_epoch: 1,
            isr: vec![BrokerId(1)],
            leader_recovery_state: 0,
            partition_epoch: 1,
        };
        assert_eq!(answer(Ok(stale)), AlterOutcome::AwaitMetadata);
        assert!(p.is_in_flight(&item));
        assert_eq!(answer(Err(ErrorCode::IneligibleReplica)), AlterOutcome::Reverted);
        assert_eq!(p.status().expect("status").isr, vec![BrokerId(1), BrokerId(2), BrokerId(3)]);
        assert_eq!(answer(Err(ErrorCode::IneligibleReplica)), AlterOutcome::Ignored);
        let item = shrink(40_000).expect("proposed again");
        let accepted = LeaderAndIsr {
            leader: BrokerId(1),
            leader_epoch: 0,
            isr: vec![BrokerId(1)],
            leader_recovery_state: 0,
            partition_epoch: 1,
        };
        assert_eq!(p.on_alter_partition(&item, Ok(accepted)).expect("answer"), AlterOutcome::Adopted);
        let status = p.status().expect("status");
        assert_eq!((status.isr, status.partition_epoch, status.isr_change_in_flight), (vec![BrokerId(1)], 1, false));
    }
}
