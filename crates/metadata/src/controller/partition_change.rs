//! One partition's next leader and ISR, as Kafka's `PartitionChangeBuilder`: every decision that
//! moves a leader or changes an ISR (fencing, unfencing, controlled shutdown, AlterPartition,
//! ElectLeaders, rebalancing) describes the target here and gets back the `PartitionChangeRecord`
//! that reaches it, or nothing when nothing changes.
//!
//! The rules, as Kafka's with eligible leader replicas (KIP-966) off and metadata.version 3.6 or
//! later:
//! - a leader is valid if it is in the target ISR and acceptable (the caller's predicate: active,
//!   and its replica's directory online); an online election keeps a valid current leader, else
//!   takes the first valid replica in replica order; a preferred election tries the first replica
//!   before the current leader; an unclean election falls back on any acceptable replica, sets the
//!   ISR to that replica alone and the leader recovery state to RECOVERING;
//! - an ISR never becomes empty: a target ISR without members leaves the ISR as it is (so the
//!   last member stays, and the partition has no leader);
//! - the leader epoch grows only when the leader changes (the `leader` field is set) or a replica
//!   leaves the replica list (the leader is set to itself), never for an ISR shrink alone; the
//!   partition epoch grows with every record (at replay);
//! - reassignment (KIP-455): a change may set the target replicas, adding and removing replicas.
//!   Every change, whatever asked for it, first checks whether the reassignment in progress can
//!   complete (Kafka's `completeReassignmentIfNeeded`): once the target ISR holds every replica
//!   that stays, the removing replicas leave the replicas and the ISR, adding and removing are
//!   cleared, and the election runs over the remaining replicas (a removed leader is replaced).
//!   New replicas get their broker's default directory.
//!
//! What it is not: no directory moves between a broker's dirs (only AssignReplicasToDirs'
//! placements), and no ELR bookkeeping beyond clearing an ELR a
//! Kafka-written log may have left.

use std::collections::BTreeMap;

use strand_base::{BrokerId, Uuid};
use strand_protocol::messages::PartitionChangeRecord;

use super::ControllerDefaults;
use crate::image::{
    DIRECTORY_LOST, DIRECTORY_MIGRATING, DIRECTORY_UNASSIGNED, LeaderRecoveryState, MetadataImage, NO_LEADER,
    NO_LEADER_CHANGE, PartitionImage,
};

/// The topic config (and its dynamic broker synonym) that allows electing a leader outside the ISR.
pub(crate) const UNCLEAN_LEADER_ELECTION_ENABLE: &str = "unclean.leader.election.enable";

/// How a new leader may be chosen (Kafka's `PartitionChangeBuilder.Election`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Election {
    /// The first replica if it is valid, else as [`Election::Online`].
    Preferred,
    /// Keep the partition led by a valid ISR member.
    Online,
    /// As [`Election::Online`], then any acceptable replica, even out of the ISR.
    Unclean,
}

impl Election {
    /// [`Election::Unclean`] if the topic allows it, else [`Election::Online`].
    pub(crate) fn for_topic(image: &MetadataImage, topic: &str, defaults: &ControllerDefaults) -> Election {
        if unclean_leader_election_enabled(image, topic, defaults) { Election::Unclean } else { Election::Online }
    }
}

/// The target state of one partition; [`PartitionChange::record`] says how to get there.
#[derive(Debug, Clone)]
pub(crate) struct PartitionChange<'a> {
    partition: &'a PartitionImage,
    topic_id: Uuid,
    partition_id: i32,
    target: Assignment,
    /// The directory of each target replica: its current one, or its broker's default for a
    /// replica new to the partition.
    directories: BTreeMap<BrokerId, Uuid>,
    target_recovery: LeaderRecoveryState,
    election: Election,
}

/// Replicas, ISR and reassignment lists: a partition's, or a change's target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Assignment {
    pub replicas: Vec<BrokerId>,
    pub isr: Vec<BrokerId>,
    pub removing: Vec<BrokerId>,
    pub adding: Vec<BrokerId>,
}

impl Assignment {
    fn of(partition: &PartitionImage) -> Assignment {
        Assignment {
            replicas: partition.replicas.clone(),
            isr: partition.isr.clone(),
            removing: partition.removing_replicas.clone(),
            adding: partition.adding_replicas.clone(),
        }
    }

    /// Kafka's `PartitionReassignmentReplicas.maybeCompleteReassignment`: the assignment once the
    /// reassignment in progress completes, if the ISR allows it. It completes when the ISR less
    /// the removing replicas is not empty and holds every replica that stays; the removing
    /// replicas then leave both lists.
    pub(crate) fn completed(&self) -> Option<Assignment> {
        if self.removing.is_empty() && self.adding.is_empty() {
            return None;
        }
        let staying = |b: &&BrokerId| !self.removing.contains(b);
        let isr: Vec<BrokerId> = self.isr.iter().filter(staying).copied().collect();
        let replicas: Vec<BrokerId> = self.replicas.iter().filter(staying).copied().collect();
        if isr.is_empty() || replicas.is_empty() || !replicas.iter().all(|b| isr.contains(b)) {
            return None;
        }
        Some(Assignment { replicas, isr, removing: Vec::new(), adding: Vec::new() })
    }
}

impl<'a> PartitionChange<'a> {
    /// No change yet: the current ISR, replicas and recovery state, an online election.
    pub(crate) fn new(partition: &'a PartitionImage, topic_id: Uuid, partition_id: i32) -> PartitionChange<'a> {
        let directories = partition.replicas.iter().copied().zip(partition.directories.iter().copied()).collect();
        PartitionChange {
            partition,
            topic_id,
            partition_id,
            target: Assignment::of(partition),
            directories,
            target_recovery: partition.leader_recovery_state,
            election: Election::Online,
        }
    }

    pub(crate) fn isr(mut self, target_isr: Vec<BrokerId>) -> Self {
        self.target.isr = target_isr;
        self
    }

    /// The target replica list; a replica new to the partition gets its broker's default
    /// directory in `image` (Kafka's `DefaultDirProvider`).
    pub(crate) fn replicas(mut self, target: Vec<BrokerId>, image: &MetadataImage) -> Self {
        for broker in &target {
            self.directories
                .entry(*broker)
                .or_insert_with(|| image.cluster().broker(*broker).map_or(DIRECTORY_UNASSIGNED, |b| b.default_dir()));
        }
        self.target.replicas = target;
        self
    }

    /// `broker`'s replica in `dir` (AssignReplicasToDirs); nothing for a broker not in the target.
    pub(crate) fn directory(mut self, broker: BrokerId, dir: Uuid) -> Self {
        if let Some(current) = self.directories.get_mut(&broker) {
            *current = dir;
        }
        self
    }

    pub(crate) fn removing(mut self, removing: Vec<BrokerId>) -> Self {
        self.target.removing = removing;
        self
    }

    pub(crate) fn adding(mut self, adding: Vec<BrokerId>) -> Self {
        self.target.adding = adding;
        self
    }

    /// The ISR less `broker`.
    pub(crate) fn isr_without(self, broker: BrokerId) -> Self {
        let isr = self.partition.isr.iter().copied().filter(|b| *b != broker).collect();
        self.isr(isr)
    }

    pub(crate) fn recovery(mut self, target: LeaderRecoveryState) -> Self {
        self.target_recovery = target;
        self
    }

    pub(crate) fn election(mut self, election: Election) -> Self {
        self.election = election;
        self
    }

    /// The record that reaches the target, electing among replicas `acceptable` accepts; `None`
    /// if nothing would change (Kafka's `PartitionChangeBuilder.build`).
    pub(crate) fn record(&self, acceptable: &dyn Fn(BrokerId) -> bool) -> Option<PartitionChangeRecord> {
        let current = self.partition;
        let target = self.target.completed().unwrap_or_else(|| self.target.clone());
        let mut record =
            PartitionChangeRecord { topic_id: self.topic_id, partition_id: self.partition_id, ..Default::default() };
        let (leader, unclean) = self.elect(&target, acceptable);
        if leader != current.leader {
            record.leader = leader;
            if unclean {
                // Data written only to the old ISR may be lost: the new leader starts a new history.
                record.isr = Some(vec![leader]);
                if current.leader_recovery_state != LeaderRecoveryState::Recovering {
                    record.leader_recovery_state = LeaderRecoveryState::Recovering.wire();
                }
            }
        }
        if record.leader == NO_LEADER_CHANGE && !current.replicas.iter().all(|b| target.replicas.contains(b)) {
            // A replica leaves: a new leader epoch fences it (Kafka's
            // `triggerLeaderEpochBumpForReplicaReassignmentIfNeeded`).
            record.leader = current.leader;
        }
        if !current.elr.is_empty() {
            record.eligible_leader_replicas = Some(Vec::new());
        }
        if record.isr.is_none() && !target.isr.is_empty() && target.isr != current.isr {
            record.isr = Some(target.isr.clone());
        }
        self.set_assignment_changes(&target, &mut record);
        if self.target_recovery != current.leader_recovery_state {
            record.leader_recovery_state = self.target_recovery.wire();
        }
        (!is_no_op(&record)).then_some(record)
    }

    /// Kafka's `setAssignmentChanges`: directories and replicas (a non-empty target only),
    /// removing and adding replicas, each where it differs from the partition's.
    fn set_assignment_changes(&self, target: &Assignment, record: &mut PartitionChangeRecord) {
        let current = self.partition;
        if !target.replicas.is_empty() {
            let directories: Vec<Uuid> = target
                .replicas
                .iter()
                .map(|b| self.directories.get(b).copied().unwrap_or(DIRECTORY_UNASSIGNED))
                .collect();
            if directories != current.directories {
                record.directories = Some(directories);
            }
            if target.replicas != current.replicas {
                record.replicas = Some(target.replicas.clone());
            }
        }
        if target.removing != current.removing_replicas {
            record.removing_replicas = Some(target.removing.clone());
        }
        if target.adding != current.adding_replicas {
            record.adding_replicas = Some(target.adding.clone());
        }
    }

    /// The leader the election picks among `target`'s replicas, and whether the pick was unclean.
    fn elect(&self, target: &Assignment, acceptable: &dyn Fn(BrokerId) -> bool) -> (BrokerId, bool) {
        let valid = |b: BrokerId| target.isr.contains(&b) && acceptable(b);
        let replicas = &target.replicas;
        let current = self.partition.leader;
        if self.election == Election::Preferred
            && let Some(first) = replicas.first().copied().filter(|b| valid(*b))
        {
            return (first, false);
        }
        if valid(current) {
            return (current, false);
        }
        if let Some(b) = replicas.iter().copied().find(|b| valid(*b)) {
            return (b, false);
        }
        if self.election == Election::Unclean
            && let Some(b) = replicas.iter().copied().find(|b| acceptable(*b))
        {
            return (b, true);
        }
        (NO_LEADER, false)
    }
}

/// Kafka's `changeRecordIsNoOp` for the fields Strand writes.
fn is_no_op(record: &PartitionChangeRecord) -> bool {
    record.isr.is_none()
        && record.eligible_leader_replicas.is_none()
        && record.last_known_elr.is_none()
        && record.leader == NO_LEADER_CHANGE
        && record.replicas.is_none()
        && record.removing_replicas.is_none()
        && record.adding_replicas.is_none()
        && record.leader_recovery_state == LeaderRecoveryState::NO_CHANGE
        && record.directories.is_none()
}

/// Kafka's `LeaderAcceptor`: `broker` may lead `partition` if `active` says so and the directory
/// holding its replica is online.
pub(crate) fn acceptable_leader(
    image: &MetadataImage,
    partition: &PartitionImage,
    broker: BrokerId,
    active: impl Fn(BrokerId) -> bool,
) -> bool {
    active(broker) && has_online_dir(image, partition, broker)
}

/// Kafka's `DirectoryId.isOnline`: an untracked or broker-chosen directory is online, a lost one
/// is not, and otherwise the broker must still report it (a broker that reported none is trusted).
fn has_online_dir(image: &MetadataImage, partition: &PartitionImage, broker: BrokerId) -> bool {
    let Some(registration) = image.cluster().broker(broker) else { return false };
    let Some(index) = partition.replicas.iter().position(|b| *b == broker) else { return true };
    let dir = partition.directories.get(index).copied().unwrap_or(DIRECTORY_MIGRATING);
    if dir == DIRECTORY_UNASSIGNED || dir == DIRECTORY_MIGRATING {
        return true;
    }
    dir != DIRECTORY_LOST && (registration.log_dirs.is_empty() || registration.log_dirs.contains(&dir))
}

/// `unclean.leader.election.enable` for `topic`, as this node resolves it (false by default).
pub(crate) fn unclean_leader_election_enabled(
    image: &MetadataImage,
    topic: &str,
    defaults: &ControllerDefaults,
) -> bool {
    defaults.topic_configs(image).topic(topic).bool(UNCLEAN_LEADER_ELECTION_ENABLE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn partition(replicas: &[i32], isr: &[i32], leader: i32) -> PartitionImage {
        PartitionImage {
            replicas: replicas.iter().copied().map(BrokerId).collect(),
            directories: vec![DIRECTORY_MIGRATING; replicas.len()],
            isr: isr.iter().copied().map(BrokerId).collect(),
            removing_replicas: Vec::new(),
            adding_replicas: Vec::new(),
            leader: BrokerId(leader),
            leader_recovery_state: LeaderRecoveryState::Recovered,
            leader_epoch: 3,
            partition_epoch: 7,
            elr: Vec::new(),
            last_known_elr: Vec::new(),
        }
    }

    fn ids(ids: &[i32]) -> Vec<BrokerId> {
        ids.iter().copied().map(BrokerId).collect()
    }

    /// (leader, isr, recovery state) after the change, or None for no record.
    fn check(
        change: &PartitionChange<'_>,
        acceptable: &[i32],
        expected: Option<(i32, Option<&[i32]>, i8)>,
    ) -> Option<PartitionChangeRecord> {
        let record = change.record(&|b: BrokerId| acceptable.contains(&b.0));
        let got = record.as_ref().map(|r| {
            (r.leader.0, r.isr.as_ref().map(|i| i.iter().map(|b| b.0).collect::<Vec<_>>()), r.leader_recovery_state)
        });
        let expected = expected.map(|(l, i, s)| (l, i.map(<[i32]>::to_vec), s));
        assert_eq!(got, expected, "{change:?}");
        record
    }

    /// Online elections keep a valid leader, else take the first valid replica, else none; the
    /// ISR never becomes empty.
    #[test]
    fn online_elections() {
        let p = partition(&[1, 2, 3], &[1, 2, 3], 1);
        let change = |isr: &[i32]| PartitionChange::new(&p, Uuid::ZERO, 0).isr(ids(isr));
        check(&change(&[1, 2, 3]), &[1, 2, 3], None);
        check(&change(&[1, 2]), &[1, 2, 3], Some((-2, Some(&[1, 2]), -1)));
        check(&change(&[2, 3]), &[2, 3], Some((2, Some(&[2, 3]), -1)));
        check(&change(&[3]), &[2, 3], Some((3, Some(&[3]), -1)));
        check(&change(&[]), &[1, 2, 3], Some((-1, None, -1)));
        check(&change(&[2, 3]), &[], Some((-1, Some(&[2, 3]), -1)));
    }

    /// A preferred election moves to the first replica only when it is valid.
    #[test]
    fn preferred_elections() {
        let p = partition(&[1, 2, 3], &[1, 2, 3], 2);
        let preferred = PartitionChange::new(&p, Uuid::ZERO, 0).election(Election::Preferred);
        check(&preferred, &[1, 2, 3], Some((1, None, -1)));
        check(&preferred, &[2, 3], None);
        check(&preferred, &[3], Some((3, None, -1)));
    }

    /// An unclean election takes any acceptable replica, alone in the ISR, as RECOVERING.
    #[test]
    fn unclean_elections() {
        let p = partition(&[1, 2, 3], &[1], 1);
        let unclean = PartitionChange::new(&p, Uuid::ZERO, 0).isr_without(BrokerId(1)).election(Election::Unclean);
        check(&unclean, &[3], Some((3, Some(&[3]), 1)));
        check(&unclean, &[], Some((-1, None, -1)));
        let online = PartitionChange::new(&p, Uuid::ZERO, 0).isr_without(BrokerId(1));
        check(&online, &[3], Some((-1, None, -1)));
    }

    /// Kafka's completion rule: every replica that stays is in the ISR less the removing
    /// replicas, which must not be empty; the removing replicas then leave both lists.
    #[test]
    fn reassignment_completion() {
        let assignment = |replicas: &[i32], isr: &[i32], removing: &[i32], adding: &[i32]| Assignment {
            replicas: ids(replicas),
            isr: ids(isr),
            removing: ids(removing),
            adding: ids(adding),
        };
        let completed = |a: Assignment| a.completed().map(|c| (c.replicas, c.isr, c.removing, c.adding));
        assert_eq!(completed(assignment(&[1, 2, 3], &[1, 2, 3], &[], &[])), None, "nothing in progress");
        assert_eq!(completed(assignment(&[2, 3, 1], &[1, 2], &[1], &[2, 3])), None, "3 not in sync");
        let done = Some((ids(&[2, 3]), ids(&[2, 3]), Vec::new(), Vec::new()));
        assert_eq!(completed(assignment(&[2, 3, 1], &[1, 2, 3], &[1], &[2, 3])), done);
        assert_eq!(completed(assignment(&[1, 2, 3], &[3], &[3], &[])), None, "no staying replica in sync");
        let grown = Some((ids(&[1, 2, 3]), ids(&[3, 1, 2]), Vec::new(), Vec::new()));
        assert_eq!(completed(assignment(&[1, 2, 3], &[3, 1, 2], &[], &[3])), grown);
    }

    /// A recovery state change alone is a record; an ELR left by Kafka is cleared.
    #[test]
    fn recovery_and_elr() {
        let mut p = partition(&[1, 2], &[1], 1);
        p.leader_recovery_state = LeaderRecoveryState::Recovering;
        let recovered = PartitionChange::new(&p, Uuid::ZERO, 0).recovery(LeaderRecoveryState::Recovered);
        check(&recovered, &[1, 2], Some((-2, None, 0)));
        p.elr = ids(&[2]);
        let record = check(&PartitionChange::new(&p, Uuid::ZERO, 0), &[1, 2], Some((-2, None, -1)));
        assert_eq!(record.and_then(|r| r.eligible_leader_replicas), Some(Vec::new()));
    }
}
