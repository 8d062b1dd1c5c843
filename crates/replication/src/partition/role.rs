//! Becoming leader or follower from a metadata state (Kafka's `makeLeader`/`makeFollower`), and
//! the leader this node knows.

use strand_base::{BrokerId, LeaderEpoch, Uuid};
use strand_log::Log;
use strand_log::manager::lock;

use super::Partition;
use crate::error::ReplicaError;
use crate::replica::{FollowerProgress, IsrState, LeaderState, ReplicaState, Role, Update, classify};
use crate::state::{PartitionState, RoleChange};

impl Partition {
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
            // A leader elected uncleanly (RECOVERING, KIP-704) has nothing more to recover than
            // its own log, opened already: as Kafka's `makeLeader`, it counts itself RECOVERED,
            // which its next AlterPartition reports (the controller lets it grow the ISR then).
            s.leader_recovery_state = if leads { 0 } else { incoming.leader_recovery_state };
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
        // A delivered batch at the log end without its data batch (the last leader stopped
        // between the two, or a follower fetched only the first): its records are appended
        // now, before any produce, so the pair stays adjacent (ARCHITECTURE.md, "Delayed
        // delivery").
        if log.delayed().unfinished().is_some() {
            log.deliver_due(now_ms, 0, incoming.leader_epoch)?;
        }
        Ok(())
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
}

/// A newer partition epoch in the same leader epoch: the committed ISR is replaced (any pending
/// change ends) and followers are added or dropped with the replica set.
fn replace_assignment(leader: &mut LeaderState, incoming: &PartitionState, local: BrokerId, now_ms: i64) {
    // This leader's own ISR change, committed and seen here before the controller's answer
    // (which will then be ignored): counted now.
    if let Some(sent) = leader.isr.in_flight() {
        let mut proposed: Vec<BrokerId> = sent.new_isr.iter().map(|m| m.broker_id).collect();
        let mut committed = incoming.isr.clone();
        proposed.sort_unstable();
        committed.sort_unstable();
        if proposed == committed {
            super::isr_changes::count_isr_change(leader.isr.isr().len(), committed.len());
        }
    }
    leader.isr = IsrState::Committed { isr: incoming.isr.clone() };
    leader.followers.retain(|id, _| incoming.replicas.contains(id));
    for id in incoming.replicas.iter().filter(|id| **id != local) {
        leader.followers.entry(*id).or_insert_with(|| FollowerProgress::new(incoming.isr.contains(id), now_ms));
    }
}
