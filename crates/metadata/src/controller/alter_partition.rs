//! AlterPartition (versions 2 and 3, topics by id), as Kafka's
//! `ReplicationControlManager.alterPartition`: a partition's leader proposes a new ISR (and leader
//! recovery state); the controller checks it against the partition and the brokers (KIP-841: only
//! active brokers of the right epoch may join) and writes the `PartitionChangeRecord`.
//!
//! An ISR that takes in the last replica a reassignment adds completes the reassignment
//! (`partition_change`): the removing replicas leave, and if the sender was one of them another
//! replica leads and the sender gets NEW_LEADER_ELECTED.
//!
//! What it is not: the leader's side (when to shrink or expand the ISR is the replication layer's
//! call, `replica.lag.time.max.ms`).

use std::collections::BTreeMap;

use strand_base::{BrokerId, Uuid};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{
    AlterPartitionRequest, AlterPartitionResponse, alter_partition_request, alter_partition_response,
};

use super::broker_lifecycle::partition_record;
use super::cluster::check_broker_epoch;
use super::partition_change::{Election, ElrRules, PartitionChange, acceptable_leader};
use super::{ApiMessageAndVersion, ControllerDefaults, ControllerResult};
use crate::image::{LeaderRecoveryState, MetadataImage, NO_LEADER_CHANGE, PartitionImage, TopicImage};

/// A broker epoch in a v3 ISR entry that skips the epoch check.
const BROKER_EPOCH_UNKNOWN: i64 = -1;

/// Applies the ISR changes the partition leaders `request.broker_id` proposes, each partition on
/// its own: a `PartitionChangeRecord` for each accepted change (none if it changes nothing), and
/// per partition either the new state (leader, ISR, recovery state, leader epoch and partition
/// epoch as they are once the record is replayed) or an error.
///
/// `version` is the request's: 3 reads `new_isr_with_epochs` (KIP-841), 2 `new_isr`. The whole
/// request fails with STALE_BROKER_EPOCH if the sender is not registered at `broker_epoch`.
/// Partition errors, in Kafka's order: UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_OR_PARTITION;
/// NOT_CONTROLLER for a leader or partition epoch ahead of the controller's; FENCED_LEADER_EPOCH
/// for an older leader epoch; INVALID_REQUEST if the sender is not the leader; INVALID_UPDATE_VERSION
/// for an older partition epoch; INVALID_REQUEST for an ISR with a non-replica, a repeat, or
/// without the leader, for more than one member while RECOVERING, or for going back to
/// RECOVERING; INELIGIBLE_REPLICA for a member that is unregistered, shutting down, fenced, or of
/// another epoch. NEW_LEADER_ELECTED if the change moved the leadership (its record is kept).
pub fn alter_partition(
    image: &MetadataImage,
    request: &AlterPartitionRequest,
    version: i16,
    defaults: &ControllerDefaults,
) -> ControllerResult<AlterPartitionResponse> {
    if let Err(error) = check_broker_epoch(image, request.broker_id, request.broker_epoch) {
        let response = AlterPartitionResponse { error_code: error.code.code(), ..AlterPartitionResponse::default() };
        return ControllerResult { records: Vec::new(), response };
    }
    let mut alteration = Alteration {
        image,
        broker: request.broker_id,
        version,
        defaults,
        records: Vec::new(),
        changed: BTreeMap::new(),
    };
    let topics = request.topics.iter().map(|t| alteration.topic(t)).collect();
    let response =
        AlterPartitionResponse { error_code: ErrorCode::None.code(), topics, ..AlterPartitionResponse::default() };
    ControllerResult { records: alteration.records, response }
}

/// One request's progress: its records, and the partitions they changed (a later entry for the
/// same partition is checked against the changed state).
struct Alteration<'a> {
    image: &'a MetadataImage,
    broker: BrokerId,
    version: i16,
    defaults: &'a ControllerDefaults,
    records: Vec<ApiMessageAndVersion>,
    changed: BTreeMap<(Uuid, i32), PartitionImage>,
}

impl Alteration<'_> {
    fn topic(&mut self, data: &alter_partition_request::TopicData) -> alter_partition_response::TopicData {
        let topic = Some(data.topic_id).filter(|id| *id != Uuid::ZERO).and_then(|id| self.image.topics().by_id(id));
        let partitions = data
            .partitions
            .iter()
            .map(|p| match topic {
                Some(topic) => self.partition(topic, p),
                None => error_result(p.partition_index, ErrorCode::UnknownTopicId),
            })
            .collect();
        alter_partition_response::TopicData { topic_id: data.topic_id, partitions, ..Default::default() }
    }

    fn partition(
        &mut self,
        topic: &TopicImage,
        data: &alter_partition_request::PartitionData,
    ) -> alter_partition_response::PartitionData {
        let index = data.partition_index;
        let current = match self.changed.get(&(topic.id, index)).or_else(|| topic.partitions.get(&index)) {
            Some(partition) => partition.clone(),
            None => return error_result(index, ErrorCode::UnknownTopicOrPartition),
        };
        let isr = proposed_isr(data, self.version);
        let recovery = match self.validate(&current, data, &isr) {
            Ok(recovery) => recovery,
            Err(code) => return error_result(index, code),
        };
        let election = Election::for_topic(self.image, &topic.name, self.defaults);
        let rules = ElrRules::for_topic(self.image, topic, self.defaults);
        let change = PartitionChange::new(&current, topic.id, index, rules)
            .isr(isr.iter().map(|(id, _)| *id).collect())
            .recovery(recovery)
            .election(election);
        let image = self.image;
        let Some(record) = change.record(&|b| acceptable_leader(image, &current, b, |b| image.cluster().is_active(b)))
        else {
            return success_result(index, &current);
        };
        let Ok(next) = current.merge(&record) else { return error_result(index, ErrorCode::UnknownServerError) };
        let leader_moved = record.leader != NO_LEADER_CHANGE && record.leader != self.broker;
        self.records.push(partition_record(record));
        self.changed.insert((topic.id, index), next.clone());
        if leader_moved {
            return error_result(index, ErrorCode::NewLeaderElected);
        }
        success_result(index, &next)
    }

    /// Kafka's `validateAlterPartitionData`, in its order; the requested recovery state if valid.
    fn validate(
        &self,
        current: &PartitionImage,
        data: &alter_partition_request::PartitionData,
        isr: &[(BrokerId, i64)],
    ) -> Result<LeaderRecoveryState, ErrorCode> {
        if data.leader_epoch > current.leader_epoch || data.partition_epoch > current.partition_epoch {
            // The leader knows a newer state than this controller: it should find the new one.
            return Err(ErrorCode::NotController);
        }
        if data.leader_epoch < current.leader_epoch {
            return Err(ErrorCode::FencedLeaderEpoch);
        }
        if self.broker != current.leader {
            return Err(ErrorCode::InvalidRequest);
        }
        if data.partition_epoch < current.partition_epoch {
            return Err(ErrorCode::InvalidUpdateVersion);
        }
        let ids: Vec<BrokerId> = isr.iter().map(|(id, _)| *id).collect();
        if !is_valid_isr(&current.replicas, &ids) || !ids.contains(&current.leader) {
            return Err(ErrorCode::InvalidRequest);
        }
        let recovery = LeaderRecoveryState::from_wire(data.leader_recovery_state).ok_or(ErrorCode::InvalidRequest)?;
        if recovery == LeaderRecoveryState::Recovering
            && (ids.len() > 1 || current.leader_recovery_state == LeaderRecoveryState::Recovered)
        {
            return Err(ErrorCode::InvalidRequest);
        }
        if isr.iter().any(|(id, epoch)| !self.is_eligible(*id, *epoch)) {
            return Err(if self.version > 1 { ErrorCode::IneligibleReplica } else { ErrorCode::OperationNotAttempted });
        }
        Ok(recovery)
    }

    /// KIP-841: an ISR member must be registered, unfenced, not shutting down, and (when the
    /// request names its epoch) of its registered epoch.
    fn is_eligible(&self, broker: BrokerId, epoch: i64) -> bool {
        self.image.cluster().broker(broker).is_some_and(|registration| {
            registration.is_active() && (epoch == BROKER_EPOCH_UNKNOWN || epoch == registration.epoch)
        })
    }
}

/// The proposed ISR with each member's broker epoch (unknown before version 3).
fn proposed_isr(data: &alter_partition_request::PartitionData, version: i16) -> Vec<(BrokerId, i64)> {
    if version >= 3 {
        data.new_isr_with_epochs.iter().map(|s| (s.broker_id, s.broker_epoch)).collect()
    } else {
        data.new_isr.iter().map(|id| (*id, BROKER_EPOCH_UNKNOWN)).collect()
    }
}

/// Kafka's `Replicas.validateIsr`: no negative ids, no repeats, every member a replica. A set of
/// the ids seen: the proposed list is as long as the request makes it.
fn is_valid_isr(replicas: &[BrokerId], isr: &[BrokerId]) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    isr.iter().all(|id| id.0 >= 0 && seen.insert(*id) && replicas.contains(id))
}

fn success_result(index: i32, partition: &PartitionImage) -> alter_partition_response::PartitionData {
    alter_partition_response::PartitionData {
        partition_index: index,
        error_code: ErrorCode::None.code(),
        leader_id: partition.leader,
        leader_epoch: partition.leader_epoch,
        isr: partition.isr.clone(),
        leader_recovery_state: partition.leader_recovery_state.wire(),
        partition_epoch: partition.partition_epoch,
        ..Default::default()
    }
}

fn error_result(index: i32, code: ErrorCode) -> alter_partition_response::PartitionData {
    alter_partition_response::PartitionData { partition_index: index, error_code: code.code(), ..Default::default() }
}
