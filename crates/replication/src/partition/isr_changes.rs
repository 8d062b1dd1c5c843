//! The leader's ISR changes: proposing expansions and shrinks (one AlterPartition in flight at
//! a time) and taking the controller's answers.

use strand_base::BrokerId;
use strand_base::metric_names::{ISR_EXPANDS, ISR_SHRINKS};
use strand_log::manager::lock;

use super::Partition;
use crate::error::ReplicaError;
use crate::isr::{AlterOutcome, AlterPartitionItem, IsrMember, LeaderAndIsr, outcome_of_error};
use crate::replica::{IsrState, ReplicaState, may_join_isr, out_of_sync};
use crate::state::BrokerStatuses;

impl Partition {
    /// Proposes adding `replica` to the ISR when no change is in flight, it is not a member, it
    /// has reached the high watermark and this epoch's start, and its broker is eligible.
    pub(super) fn maybe_expand_isr(
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
                count_isr_change(leader.isr.isr().len(), new.isr.len());
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
}

/// Kafka's IsrShrinksPerSec and IsrExpandsPerSec: a committed change of this leader's ISR from
/// `from` members to `to`.
pub(crate) fn count_isr_change(from: usize, to: usize) {
    match to.cmp(&from) {
        std::cmp::Ordering::Less => metrics::counter!(ISR_SHRINKS).increment(1),
        std::cmp::Ordering::Greater => metrics::counter!(ISR_EXPANDS).increment(1),
        std::cmp::Ordering::Equal => {}
    }
}
