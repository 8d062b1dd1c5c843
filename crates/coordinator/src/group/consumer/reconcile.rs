//! Reconciliation: the next state of a member moving from its current assignment toward its target
//! (Kafka's `CurrentAssignmentBuilder`), one heartbeat at a time.
//!
//! ```text
//! Stable ──new target epoch──▶ revoke what is no longer its target ──▶ UnrevokedPartitions
//!   ▲                                       │ nothing to revoke            │ the member stopped reporting
//!   │                                       ▼                              ▼ the revoked partitions
//!   └──── all target partitions free ◀── assign what is free (epoch = target) ──▶ UnreleasedPartitions
//!                                                                               (some are still owned)
//! ```
//!
//! A member keeps its epoch while it has partitions to revoke; it moves to the target epoch once it
//! has none, taking every target partition no other member holds. Partitions of topics it no
//! longer subscribes to are revoked at once when its subscription changes.

use std::collections::BTreeSet;

use strand_base::Uuid;
use strand_protocol::messages::consumer_group_heartbeat_request::TopicPartitions as OwnedPartitions;

use super::{Assignment, ConsumerMember, EpochAssignment, MemberState};

/// What reconciliation needs besides the member.
pub struct Reconcile<'a> {
    pub target_epoch: i32,
    pub target: &'a Assignment,
    /// The ids of the topics the member subscribes to (names and regex).
    pub subscribed_topic_ids: &'a BTreeSet<Uuid>,
    /// The member changed its subscription in this heartbeat.
    pub subscription_changed: bool,
    /// The epoch of the member holding a partition, if any holds it.
    pub partition_epoch: &'a dyn Fn(Uuid, i32) -> Option<i32>,
    /// The partitions the member reported owning; `None` if the heartbeat did not say.
    pub owned: Option<&'a [OwnedPartitions]>,
}

impl std::fmt::Debug for Reconcile<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reconcile")
            .field("target_epoch", &self.target_epoch)
            .field("target", &self.target)
            .field("subscribed_topic_ids", &self.subscribed_topic_ids)
            .field("subscription_changed", &self.subscription_changed)
            .field("owned", &self.owned)
            .finish_non_exhaustive()
    }
}

/// Why a member cannot be reconciled: it must rejoin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MustRejoin;

/// The member's next state (the same member if nothing can change yet).
pub fn next(member: &ConsumerMember, r: &Reconcile<'_>) -> Result<ConsumerMember, MustRejoin> {
    Ok(match member.state {
        MemberState::Stable if member.member_epoch != r.target_epoch => compute_next(member, r, member.member_epoch),
        MemberState::Stable if r.subscription_changed => drop_unsubscribed(member, r),
        MemberState::Stable => member.clone(),
        MemberState::UnrevokedPartitions => {
            if owns_any(r.owned, &member.pending_revocation) {
                if r.subscription_changed { drop_unsubscribed(member, r) } else { member.clone() }
            } else {
                // While revoking for a subscription change the target may not be there yet: the
                // epoch never passes the target's.
                compute_next(member, r, (member.member_epoch + 1).min(r.target_epoch))
            }
        }
        MemberState::UnreleasedPartitions => compute_next(member, r, member.member_epoch),
        MemberState::Unknown => {
            if r.owned.is_none_or(|owned| !owned.is_empty()) {
                return Err(MustRejoin);
            }
            compute_next(member, r, r.target_epoch)
        }
    })
}

/// Whether the member still reports owning any of `revoking`. A heartbeat that does not say
/// counts as still owning them.
fn owns_any(owned: Option<&[OwnedPartitions]>, revoking: &EpochAssignment) -> bool {
    let Some(owned) = owned else { return true };
    owned.iter().any(|topic| {
        revoking
            .get(&topic.topic_id)
            .is_some_and(|partitions| topic.partitions.iter().any(|p| partitions.contains_key(p)))
    })
}

/// A subscription change: partitions of topics no longer subscribed go to revocation at once.
fn drop_unsubscribed(member: &ConsumerMember, r: &Reconcile<'_>) -> ConsumerMember {
    let mut assigned = member.assigned.clone();
    let mut revoking = member.pending_revocation.clone();
    let mut changed = false;
    for (topic, partitions) in &member.assigned {
        if !r.subscribed_topic_ids.contains(topic) {
            assigned.remove(topic);
            revoking.entry(*topic).or_default().extend(partitions.iter().map(|(p, e)| (*p, *e)));
            changed = true;
        }
    }
    if !changed {
        return member.clone();
    }
    let mut next = member.clone();
    next.assigned = assigned;
    if owns_any(r.owned, &revoking) {
        next.state = MemberState::UnrevokedPartitions;
        next.pending_revocation = revoking;
    }
    next
}

/// Moves the member toward the target from `member_epoch`: revoke first, else assign what is free.
fn compute_next(member: &ConsumerMember, r: &Reconcile<'_>, member_epoch: i32) -> ConsumerMember {
    let empty = BTreeSet::new();
    let mut assigned = EpochAssignment::new();
    let mut revoking = EpochAssignment::new();
    let mut to_assign: Vec<(Uuid, i32)> = Vec::new();
    let mut unreleased = false;
    let topics: BTreeSet<Uuid> = r.target.keys().chain(member.assigned.keys()).copied().collect();
    for topic in topics {
        let target =
            if r.subscribed_topic_ids.contains(&topic) { r.target.get(&topic).unwrap_or(&empty) } else { &empty };
        let current = member.assigned.get(&topic);
        for (partition, epoch) in current.into_iter().flatten() {
            if target.contains(partition) {
                assigned.entry(topic).or_default().insert(*partition, *epoch);
            } else {
                revoking.entry(topic).or_default().insert(*partition, *epoch);
            }
        }
        for partition in target {
            if current.is_some_and(|c| c.contains_key(partition)) {
                continue;
            }
            let own_revocation = member.pending_revocation.get(&topic).is_some_and(|p| p.contains_key(partition));
            if (r.partition_epoch)(topic, *partition).is_some() && !own_revocation {
                unreleased = true;
            } else {
                to_assign.push((topic, *partition));
            }
        }
    }
    let mut next = member.clone();
    if !revoking.is_empty() && owns_any(r.owned, &revoking) {
        next.state = MemberState::UnrevokedPartitions;
        set_epoch(&mut next, member_epoch);
        next.assigned = assigned;
        next.pending_revocation = revoking;
        return next;
    }
    for (topic, partition) in to_assign {
        assigned.entry(topic).or_default().insert(partition, r.target_epoch);
    }
    next.state = if unreleased { MemberState::UnreleasedPartitions } else { MemberState::Stable };
    set_epoch(&mut next, r.target_epoch);
    next.assigned = assigned;
    next.pending_revocation = EpochAssignment::new();
    next
}

/// Kafka's `updateMemberEpoch`: the previous epoch becomes the one the member had.
fn set_epoch(member: &mut ConsumerMember, epoch: i32) {
    member.previous_member_epoch = member.member_epoch;
    member.member_epoch = epoch;
}
