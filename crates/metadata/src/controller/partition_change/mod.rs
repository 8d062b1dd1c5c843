//! One partition's next leader and ISR, as Kafka's `PartitionChangeBuilder`: every decision that
//! moves a leader or changes an ISR (fencing, unfencing, controlled shutdown, AlterPartition,
//! ElectLeaders, rebalancing) describes the target here and gets back the `PartitionChangeRecord`
//! that reaches it, or nothing when nothing changes.
//!
//! The rules, as Kafka 4.4's with metadata.version 3.6 or later:
//! - a leader is valid if it is in the target ISR (or, with an empty ISR and eligible leader
//!   replicas on, in the ELR) and acceptable (the caller's predicate: active, and its replica's
//!   directory online); an online election keeps a valid current leader, else takes the first
//!   valid replica in replica order; a preferred election tries the first replica before the
//!   current leader; an unclean election falls back on any acceptable replica, sets the ISR to
//!   that replica alone and the leader recovery state to RECOVERING;
//! - with eligible leader replicas off (`eligible.leader.replicas.version` 0), an ISR never
//!   becomes empty: a target ISR without members leaves the ISR as it is (so the last member
//!   stays, and the partition has no leader), and an ELR a change finds is cleared; with them on,
//!   the ISR may empty and the ELR and last known leader are kept as `elr.rs` describes;
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
//! placements), and none of KIP-966 part 2 (no `unclean.recovery.strategy`: the last known ELR
//! holds the last leader only, as Kafka 4.4 keeps it).

mod elr;

use std::collections::BTreeMap;

use strand_base::{BrokerId, Uuid};
use strand_protocol::messages::PartitionChangeRecord;

pub(crate) use elr::{ElrRules, elr_enabled};

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
    elr: ElrRules,
    /// Replicas that registered again after an unclean shutdown: never derived into the ELR
    /// (Kafka's `uncleanShutdownReplicas`).
    unclean_shutdown: Vec<BrokerId>,
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
    /// No change yet: the current ISR, replicas and recovery state, an online election, under
    /// the topic's `elr` rules.
    pub(crate) fn new(
        partition: &'a PartitionImage,
        topic_id: Uuid,
        partition_id: i32,
        elr: ElrRules,
    ) -> PartitionChange<'a> {
        let directories = partition.replicas.iter().copied().zip(partition.directories.iter().copied()).collect();
        PartitionChange {
            partition,
            topic_id,
            partition_id,
            target: Assignment::of(partition),
            directories,
            target_recovery: partition.leader_recovery_state,
            election: Election::Online,
            elr,
            unclean_shutdown: Vec::new(),
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

    /// `broker` registered again after an unclean shutdown: it leaves the ELR too.
    pub(crate) fn unclean_shutdown(mut self, broker: BrokerId) -> Self {
        self.unclean_shutdown = vec![broker];
        self
    }

    /// The record that reaches the target, electing among replicas `acceptable` accepts; `None`
    /// if nothing would change (Kafka's `PartitionChangeBuilder.build`).
    pub(crate) fn record(&self, acceptable: &dyn Fn(BrokerId) -> bool) -> Option<PartitionChangeRecord> {
        let current = self.partition;
        let mut target = self.target.completed().unwrap_or_else(|| self.target.clone());
        let mut record =
            PartitionChangeRecord { topic_id: self.topic_id, partition_id: self.partition_id, ..Default::default() };
        let mut target_elr = elr::target_elr(
            self.elr,
            &current.isr,
            &current.elr,
            (&target.replicas, &target.isr),
            &self.unclean_shutdown,
        );
        let (leader, unclean) = self.elect(&target, &target_elr, acceptable);
        if leader != current.leader {
            if target_elr.contains(&leader) {
                // A clean election from the ELR: the new leader is the whole ISR.
                target.isr = vec![leader];
                target_elr.retain(|b| *b != leader);
            }
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
        if record.isr.is_some() || !self.elr.enabled {
            // An unclean election starts a new history; without ELR there is none to keep.
            target_elr.clear();
        }
        if target_elr != current.elr {
            record.eligible_leader_replicas = Some(target_elr);
        }
        let may_empty = !target.isr.is_empty() || self.elr.enabled;
        if record.isr.is_none() && may_empty && target.isr != current.isr {
            record.isr = Some(target.isr.clone());
        }
        record.last_known_elr = elr::last_known_leader(
            self.elr,
            current.leader,
            &current.last_known_elr,
            record.isr.as_deref(),
            record.leader,
        );
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

    /// The leader the election picks among `target`'s replicas, and whether the pick was unclean
    /// (Kafka's `electPreferredLeader` and `electAnyLeader`).
    fn elect(
        &self,
        target: &Assignment,
        target_elr: &[BrokerId],
        acceptable: &dyn Fn(BrokerId) -> bool,
    ) -> (BrokerId, bool) {
        let in_elr = |b: BrokerId| self.elr.enabled && target.isr.is_empty() && target_elr.contains(&b);
        let valid = |b: BrokerId| (target.isr.contains(&b) || in_elr(b)) && acceptable(b);
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
        if let Some(b) = self.last_known_leader(target, target_elr, acceptable) {
            return (b, true);
        }
        if self.election == Election::Unclean
            && let Some(b) = replicas.iter().copied().find(|b| acceptable(*b))
        {
            return (b, true);
        }
        (NO_LEADER, false)
    }

    /// Kafka's `canElectLastKnownLeader`: with ELR on and both the ISR and the ELR empty, the
    /// last known leader, if it is the last known ELR's only member, still a replica (a
    /// reassignment may have moved the partition off it while it was leaderless) and acceptable.
    fn last_known_leader(
        &self,
        target: &Assignment,
        target_elr: &[BrokerId],
        acceptable: &dyn Fn(BrokerId) -> bool,
    ) -> Option<BrokerId> {
        if !self.elr.enabled || !target_elr.is_empty() || !target.isr.is_empty() {
            return None;
        }
        match self.partition.last_known_elr.as_slice() {
            [only] if target.replicas.contains(only) && acceptable(*only) => Some(*only),
            _ => None,
        }
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
mod tests;
