//! Partition reassignment (KIP-455): AlterPartitionReassignments and ListPartitionReassignments,
//! as Kafka's `ReplicationControlManager.alterPartitionReassignments` and
//! `listPartitionReassignments`.
//!
//! A reassignment moves a partition from its replicas to a target list in stages, each a
//! `PartitionChangeRecord`:
//! 1. the start: the replicas become the target followed by the current replicas that are not in
//!    it (`removing`, ascending), and the target's replicas that are new are `adding`
//!    (ascending); the ISR and leader stay;
//! 2. the new replicas fetch from the leader and join the ISR (AlterPartition);
//! 3. the completion, in whichever change first finds every replica that stays in the ISR
//!    (`partition_change`): the removing replicas leave the replicas and the ISR, a removed
//!    leader is replaced by an election among the target, and adding and removing are cleared.
//!    A reassignment that only reorders or drops replicas completes in its first record.
//!
//! Cancelling (null replicas) reverts: the adding replicas leave the replicas and the ISR; if
//! that would empty the ISR, the first original replica becomes the ISR, which is an unclean
//! election and allowed only where `unclean.leader.election.enable` is.
//!
//! What it is not: no throttles (`leader.replication.throttled.replicas` is the tool's business,
//! and Strand does not throttle), nor moves between a broker's log dirs (AlterReplicaLogDirs, on
//! the broker itself, which then tells the controller with AssignReplicasToDirs).

use std::collections::BTreeMap;

use strand_base::{BrokerId, Uuid};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_partition_reassignments_request::ReassignablePartition;
use strand_protocol::messages::alter_partition_reassignments_response::{
    ReassignablePartitionResponse, ReassignableTopicResponse,
};
use strand_protocol::messages::list_partition_reassignments_response::{
    OngoingPartitionReassignment, OngoingTopicReassignment,
};
use strand_protocol::messages::{
    AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, ListPartitionReassignmentsRequest,
    ListPartitionReassignmentsResponse, PartitionChangeRecord,
};

use super::broker_lifecycle::partition_record;
use super::partition_change::{
    Election, ElrRules, PartitionChange, acceptable_leader, unclean_leader_election_enabled,
};
use super::placement::validate_manual_assignment;
use super::{ApiError, ApiMessageAndVersion, ControllerDefaults, ControllerResult};
use crate::image::{MetadataImage, PartitionImage, TopicImage};

/// Starts, changes or cancels the reassignment of each listed partition, each on its own: a
/// `PartitionChangeRecord` per partition that changes, and per partition NONE or
/// UNKNOWN_TOPIC_OR_PARTITION (no such topic or partition), NO_REASSIGNMENT_IN_PROGRESS (a
/// cancellation with nothing to cancel), INVALID_REPLICA_ASSIGNMENT (an empty target, an
/// unregistered broker, a broker twice, or a cancellation that needs an unclean election the
/// topic does not allow), INVALID_REPLICATION_FACTOR (from version 1, with
/// `allow_replication_factor_change` false, a target of another size than the partition's
/// replication factor, which is the size of the ongoing reassignment's target while one runs).
///
/// A partition listed twice is judged the second time on its state after the first. `defaults`
/// supplies the static `unclean.leader.election.enable`.
pub fn alter_partition_reassignments(
    image: &MetadataImage,
    request: &AlterPartitionReassignmentsRequest,
    version: i16,
    defaults: &ControllerDefaults,
) -> ControllerResult<AlterPartitionReassignmentsResponse> {
    let allow_replication_factor_change = version < 1 || request.allow_replication_factor_change;
    let mut alteration =
        Alteration { image, defaults, allow_replication_factor_change, records: Vec::new(), changed: BTreeMap::new() };
    let responses = request
        .topics
        .iter()
        .map(|topic| ReassignableTopicResponse {
            name: topic.name.clone(),
            partitions: topic
                .partitions
                .iter()
                .map(|p| {
                    let error = alteration.partition(&topic.name, p).err().unwrap_or(ApiError::bare(ErrorCode::None));
                    ReassignablePartitionResponse {
                        partition_index: p.partition_index,
                        error_code: error.code.code(),
                        error_message: error.message,
                        ..Default::default()
                    }
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    let response = AlterPartitionReassignmentsResponse {
        allow_replication_factor_change,
        error_message: None,
        responses,
        ..Default::default()
    };
    ControllerResult { records: alteration.records, response }
}

/// The reassignments in progress: of every partition when `request.topics` is null, else of the
/// listed partitions that have one (unknown topics and partitions are left out, as Kafka does).
/// Topics by name, partitions by index.
pub fn list_partition_reassignments(
    image: &MetadataImage,
    request: &ListPartitionReassignmentsRequest,
) -> ControllerResult<ListPartitionReassignmentsResponse> {
    let topics = match &request.topics {
        None => {
            image.topics().iter().filter_map(|topic| ongoing_topic(topic, topic.partitions.keys().copied())).collect()
        }
        Some(listed) => listed
            .iter()
            .filter_map(|t| {
                let topic = image.topics().by_name(&t.name)?;
                ongoing_topic(topic, t.partition_indexes.iter().copied())
            })
            .collect(),
    };
    let response = ListPartitionReassignmentsResponse { error_message: None, topics, ..Default::default() };
    ControllerResult { records: Vec::new(), response }
}

/// The ongoing reassignments among `indexes` of `topic`, or `None` if there are none.
fn ongoing_topic(topic: &TopicImage, indexes: impl Iterator<Item = i32>) -> Option<OngoingTopicReassignment> {
    let partitions: Vec<OngoingPartitionReassignment> = indexes
        .filter_map(|index| {
            let p = topic.partitions.get(&index).filter(|p| p.is_reassigning())?;
            Some(OngoingPartitionReassignment {
                partition_index: index,
                replicas: p.replicas.clone(),
                adding_replicas: p.adding_replicas.clone(),
                removing_replicas: p.removing_replicas.clone(),
                ..Default::default()
            })
        })
        .collect();
    (!partitions.is_empty()).then(|| OngoingTopicReassignment {
        name: topic.name.clone(),
        partitions,
        ..Default::default()
    })
}

/// One request's progress: its records, and the partitions they changed.
struct Alteration<'a> {
    image: &'a MetadataImage,
    defaults: &'a ControllerDefaults,
    allow_replication_factor_change: bool,
    records: Vec<ApiMessageAndVersion>,
    changed: BTreeMap<(Uuid, i32), PartitionImage>,
}

impl Alteration<'_> {
    /// Kafka's `alterPartitionReassignment` for one partition.
    fn partition(&mut self, name: &str, target: &ReassignablePartition) -> Result<(), ApiError> {
        let unknown = |message: String| ApiError::new(ErrorCode::UnknownTopicOrPartition, message);
        let image = self.image;
        let topic =
            image.topics().by_name(name).ok_or_else(|| unknown(format!("Unable to find a topic named {name}.")))?;
        let index = target.partition_index;
        let current = self
            .changed
            .get(&(topic.id, index))
            .or_else(|| topic.partitions.get(&index))
            .cloned()
            .ok_or_else(|| unknown(format!("Unable to find partition {name}:{index}.")))?;
        let record = match &target.replicas {
            None => self.cancel(topic, index, &current)?,
            Some(replicas) => self.change(topic, index, &current, replicas)?,
        };
        if let Some(record) = record {
            let next =
                current.merge(&record).map_err(|e| ApiError::new(ErrorCode::UnknownServerError, e.to_string()))?;
            self.changed.insert((topic.id, index), next);
            self.records.push(partition_record(record));
        }
        Ok(())
    }

    /// Kafka's `cancelPartitionReassignment`: back to the replicas before the reassignment.
    fn cancel(
        &self,
        topic: &TopicImage,
        index: i32,
        current: &PartitionImage,
    ) -> Result<Option<PartitionChangeRecord>, ApiError> {
        if !current.is_reassigning() {
            return Err(ApiError::with_default_message(ErrorCode::NoReassignmentInProgress));
        }
        let revert = Revert::of(current).ok_or_else(|| {
            ApiError::new(
                ErrorCode::InvalidReplicaAssignment,
                "Invalid replica assignment: addingReplicas contains all replicas.",
            )
        })?;
        let unclean_allowed = unclean_leader_election_enabled(self.image, &topic.name, self.defaults);
        if revert.unclean && !unclean_allowed {
            return Err(ApiError::new(
                ErrorCode::InvalidReplicaAssignment,
                format!(
                    "Unable to revert partition assignment for {}:{index} because it would require an unclean \
                     leader election.",
                    topic.name
                ),
            ));
        }
        let election = if unclean_allowed { Election::Unclean } else { Election::Online };
        let rules = ElrRules::for_topic(self.image, topic, self.defaults);
        let change = PartitionChange::new(current, topic.id, index, rules)
            .isr(revert.isr)
            .replicas(revert.replicas, self.image)
            .removing(Vec::new())
            .adding(Vec::new())
            .election(election);
        Ok(self.record(&change, current))
    }

    /// Kafka's `changePartitionReassignment`: starts (or completes at once) a move to `target`.
    fn change(
        &self,
        topic: &TopicImage,
        index: i32,
        current: &PartitionImage,
        target: &[BrokerId],
    ) -> Result<Option<PartitionChangeRecord>, ApiError> {
        validate_manual_assignment(self.image, target, None)?;
        if !self.allow_replication_factor_change {
            let factor = replication_factor(current);
            if factor != target.len() {
                return Err(ApiError::new(
                    ErrorCode::InvalidReplicationFactor,
                    format!("The replication factor is changed from {factor} to {}", target.len()),
                ));
            }
        }
        let plan = Plan::new(&current.replicas, target);
        let rules = ElrRules::for_topic(self.image, topic, self.defaults);
        let mut change = PartitionChange::new(current, topic.id, index, rules);
        if plan.replicas != current.replicas {
            change = change.replicas(plan.replicas, self.image);
        }
        if !plan.removing.is_empty() {
            change = change.removing(plan.removing);
        }
        if !plan.adding.is_empty() {
            change = change.adding(plan.adding);
        }
        Ok(self.record(&change, current))
    }

    fn record(&self, change: &PartitionChange<'_>, current: &PartitionImage) -> Option<PartitionChangeRecord> {
        let image = self.image;
        change.record(&|b| acceptable_leader(image, current, b, |b| image.cluster().is_active(b)))
    }
}

/// A partition's replication factor for `allow_replication_factor_change` (KIP-860): while a
/// reassignment runs, the size of its target (the replicas less those being removed).
fn replication_factor(partition: &PartitionImage) -> usize {
    partition.replicas.iter().filter(|b| !partition.removing_replicas.contains(b)).count()
}

/// The lists a reassignment from `current` to `target` starts with (Kafka's
/// `PartitionReassignmentReplicas`): the target then the removed replicas, and the removed and
/// added replicas, each ascending.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Plan {
    replicas: Vec<BrokerId>,
    removing: Vec<BrokerId>,
    adding: Vec<BrokerId>,
}

impl Plan {
    fn new(current: &[BrokerId], target: &[BrokerId]) -> Plan {
        let difference = |a: &[BrokerId], b: &[BrokerId]| {
            let mut out: Vec<BrokerId> = a.iter().filter(|x| !b.contains(x)).copied().collect();
            out.sort();
            out.dedup();
            out
        };
        let removing = difference(current, target);
        let adding = difference(target, current);
        let replicas = target.iter().chain(&removing).copied().collect();
        Plan { replicas, removing, adding }
    }
}

/// The replicas and ISR after cancelling a reassignment (Kafka's `PartitionReassignmentRevert`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Revert {
    replicas: Vec<BrokerId>,
    isr: Vec<BrokerId>,
    /// The ISR held only adding replicas: the first original replica is made the ISR alone.
    unclean: bool,
}

impl Revert {
    /// `None` if every replica is being added (a partition cannot have started that way).
    fn of(partition: &PartitionImage) -> Option<Revert> {
        let not_adding = |b: &&BrokerId| !partition.adding_replicas.contains(b);
        let replicas: Vec<BrokerId> = partition.replicas.iter().filter(not_adding).copied().collect();
        let isr: Vec<BrokerId> = partition.isr.iter().filter(not_adding).copied().collect();
        if !isr.is_empty() {
            return Some(Revert { replicas, isr, unclean: false });
        }
        let first = *replicas.first()?;
        Some(Revert { replicas, isr: vec![first], unclean: true })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(ids: &[i32]) -> Vec<BrokerId> {
        ids.iter().copied().map(BrokerId).collect()
    }

    /// Kafka's ordering: the target first, then the removed replicas ascending; adding and
    /// removing ascending whatever the order of the lists.
    #[test]
    fn plans() {
        let check = |current: &[i32], target: &[i32], expected: (&[i32], &[i32], &[i32])| {
            let plan = Plan::new(&ids(current), &ids(target));
            assert_eq!(
                (plan.replicas, plan.removing, plan.adding),
                (ids(expected.0), ids(expected.1), ids(expected.2)),
                "{current:?} -> {target:?}"
            );
        };
        check(&[1], &[2, 3], (&[2, 3, 1], &[1], &[2, 3]));
        check(&[3, 1, 2], &[5, 4, 1], (&[5, 4, 1, 2, 3], &[2, 3], &[4, 5]));
        check(&[1, 2, 3], &[3, 2, 1], (&[3, 2, 1], &[], &[]));
        check(&[1, 2, 3], &[1, 2], (&[1, 2, 3], &[3], &[]));
        check(&[1, 2], &[1, 2, 3], (&[1, 2, 3], &[], &[3]));
    }

    /// Reverting drops the adding replicas from both lists; an ISR of adding replicas only falls
    /// back on the first original replica, uncleanly.
    #[test]
    fn reverts() {
        let partition = |replicas: &[i32], isr: &[i32], adding: &[i32]| PartitionImage {
            replicas: ids(replicas),
            directories: vec![Uuid::ZERO; replicas.len()],
            isr: ids(isr),
            removing_replicas: Vec::new(),
            adding_replicas: ids(adding),
            leader: BrokerId(isr[0]),
            leader_recovery_state: crate::image::LeaderRecoveryState::Recovered,
            leader_epoch: 0,
            partition_epoch: 0,
            elr: Vec::new(),
            last_known_elr: Vec::new(),
        };
        let revert = |p: PartitionImage| Revert::of(&p).map(|r| (r.replicas, r.isr, r.unclean));
        assert_eq!(revert(partition(&[2, 3, 1], &[1, 2], &[2, 3])), Some((ids(&[1]), ids(&[1]), false)));
        assert_eq!(revert(partition(&[2, 3, 1], &[2, 3], &[2, 3])), Some((ids(&[1]), ids(&[1]), true)));
        assert_eq!(revert(partition(&[2, 3], &[2], &[2, 3])), None);
    }
}
