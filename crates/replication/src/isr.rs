//! ISR changes go to the controller: the leader proposes a new ISR for one partition
//! ([`AlterPartitionItem`], conditional on its leader and partition epochs) through an
//! [`IsrChannel`] and adopts the answer ([`LeaderAndIsr`]) or waits for metadata.
//!
//! The server implements [`IsrChannel`] over AlterPartition requests to the active controller,
//! one item each ([`AlterPartitionItem::request`], answered as [`LeaderAndIsr::from_response`]
//! reads it; the request's `broker_id`/`broker_epoch` are the leader's own).
//! Per partition at most one item is in flight: the partition holds it in its ISR state until the
//! answer comes (Kafka's `PendingExpandIsr`/`PendingShrinkIsr`).
//!
//! How an answer is taken (Kafka's `Partition.handleAlterPartitionError`):
//! - success at this leader epoch and a partition epoch not older than held: the new ISR and
//!   partition epoch are adopted, and the high watermark may move;
//! - OPERATION_NOT_ATTEMPTED, INELIGIBLE_REPLICA: the controller refused this change; the
//!   committed ISR stands, and a later check may propose again;
//! - INVALID_UPDATE_VERSION, FENCED_LEADER_EPOCH, NEW_LEADER_ELECTED, UNKNOWN_TOPIC_OR_PARTITION,
//!   UNKNOWN_TOPIC_ID: this leader's view is stale; the change stays pending until a newer
//!   partition state arrives from metadata (which replaces it);
//! - anything else (NOT_CONTROLLER, a lost connection, a timeout): the same item is sent again,
//!   with a growing backoff, while it is still the one in flight. It may have been committed, so
//!   forgetting it could let the high watermark pass a new member's log end.

use strand_base::{BrokerId, LeaderEpoch, TopicPartition, Uuid};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{AlterPartitionRequest, AlterPartitionResponse, alter_partition_request};

use crate::types::BoxFuture;

/// One partition's proposed ISR (an AlterPartition `PartitionData`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlterPartitionItem {
    pub topic_partition: TopicPartition,
    pub topic_id: Uuid,
    /// The proposing leader's epoch.
    pub leader_epoch: LeaderEpoch,
    /// The partition epoch the proposal is based on: the controller refuses it with
    /// INVALID_UPDATE_VERSION if the partition changed since.
    pub partition_epoch: i32,
    /// The proposed ISR, the leader included, each with the broker epoch it last fetched with
    /// (AlterPartition v3 `NewIsrWithEpochs`; -1 when unknown).
    pub new_isr: Vec<IsrMember>,
    pub leader_recovery_state: i8,
}

impl AlterPartitionItem {
    /// The proposed ISR's broker ids.
    pub fn isr(&self) -> Vec<BrokerId> {
        self.new_isr.iter().map(|m| m.broker_id).collect()
    }

    /// The AlterPartition request proposing this item alone, from leader `broker_id` at its
    /// registration's `broker_epoch`.
    pub fn request(&self, broker_id: BrokerId, broker_epoch: i64) -> AlterPartitionRequest {
        let members = self.new_isr.iter().map(|m| alter_partition_request::BrokerState {
            broker_id: m.broker_id,
            broker_epoch: m.broker_epoch,
            ..Default::default()
        });
        AlterPartitionRequest {
            broker_id,
            broker_epoch,
            topics: vec![alter_partition_request::TopicData {
                topic_id: self.topic_id,
                partitions: vec![alter_partition_request::PartitionData {
                    partition_index: self.topic_partition.partition,
                    leader_epoch: self.leader_epoch,
                    new_isr_with_epochs: members.collect(),
                    leader_recovery_state: self.leader_recovery_state,
                    partition_epoch: self.partition_epoch,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        }
    }
}

/// A member of a proposed ISR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IsrMember {
    pub broker_id: BrokerId,
    pub broker_epoch: i64,
}

/// A partition as the controller answered an AlterPartition with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaderAndIsr {
    pub leader: BrokerId,
    pub leader_epoch: LeaderEpoch,
    pub isr: Vec<BrokerId>,
    pub leader_recovery_state: i8,
    pub partition_epoch: i32,
}

impl LeaderAndIsr {
    /// The answer to a one-item AlterPartition request ([`AlterPartitionItem::request`]): its
    /// partition, or the request's error, or the partition's.
    pub fn from_response(response: &AlterPartitionResponse) -> Result<LeaderAndIsr, ErrorCode> {
        let code = |c: i16| ErrorCode::from_code(c).unwrap_or(ErrorCode::UnknownServerError);
        if response.error_code != 0 {
            return Err(code(response.error_code));
        }
        let partition =
            response.topics.first().and_then(|t| t.partitions.first()).ok_or(ErrorCode::UnknownServerError)?;
        if partition.error_code != 0 {
            return Err(code(partition.error_code));
        }
        Ok(LeaderAndIsr {
            leader: partition.leader_id,
            leader_epoch: partition.leader_epoch,
            isr: partition.isr.clone(),
            leader_recovery_state: partition.leader_recovery_state,
            partition_epoch: partition.partition_epoch,
        })
    }
}

/// Carries ISR changes to the controller. Implemented by the server (and by tests).
pub trait IsrChannel: Send + Sync + std::fmt::Debug {
    /// Proposes `item`; resolves with the partition as the controller now has it, or with the
    /// partition's (or the whole request's) error code. Transport failures should resolve as
    /// REQUEST_TIMED_OUT (they are retried). The future must not borrow `self`.
    fn submit(&self, item: AlterPartitionItem) -> BoxFuture<'static, Result<LeaderAndIsr, ErrorCode>>;
}

/// What the partition did with an AlterPartition answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AlterOutcome {
    /// The new ISR and partition epoch were adopted.
    Adopted,
    /// The controller refused: the committed ISR stands.
    Reverted,
    /// Stale view: pending until metadata.
    AwaitMetadata,
    /// Send the same item again.
    Retry,
    /// The item is no longer in flight (metadata replaced it, or leadership moved).
    Ignored,
}

/// How an error answer is taken (see the module doc).
pub(crate) fn outcome_of_error(code: ErrorCode) -> AlterOutcome {
    match code {
        ErrorCode::OperationNotAttempted | ErrorCode::IneligibleReplica => AlterOutcome::Reverted,
        ErrorCode::InvalidUpdateVersion
        | ErrorCode::FencedLeaderEpoch
        | ErrorCode::NewLeaderElected
        | ErrorCode::UnknownTopicOrPartition
        | ErrorCode::UnknownTopicId => AlterOutcome::AwaitMetadata,
        _ => AlterOutcome::Retry,
    }
}

#[cfg(test)]
mod tests {
    use strand_protocol::messages::alter_partition_response::{PartitionData, TopicData};

    use super::*;

    /// The request carries the item's partition, epochs and members with their broker epochs;
    /// the answer is the request's error first, then the partition's, then the partition.
    #[test]
    fn an_item_makes_one_request_and_its_answer_one_leader_and_isr() {
        let item = AlterPartitionItem {
            topic_partition: TopicPartition::new("t", 3),
            topic_id: Uuid([4; 16]),
            leader_epoch: 5,
            partition_epoch: 6,
            new_isr: vec![IsrMember { broker_id: BrokerId(1), broker_epoch: 7 }],
            leader_recovery_state: 0,
        };
        let request = item.request(BrokerId(1), 8);
        assert_eq!((request.broker_id, request.broker_epoch), (BrokerId(1), 8));
        let partition = &request.topics[0].partitions[0];
        assert_eq!(request.topics[0].topic_id, Uuid([4; 16]));
        assert_eq!((partition.partition_index, partition.leader_epoch, partition.partition_epoch), (3, 5, 6));
        let member = &partition.new_isr_with_epochs[0];
        assert_eq!((member.broker_id, member.broker_epoch), (BrokerId(1), 7));

        let answered = PartitionData {
            leader_id: BrokerId(1),
            leader_epoch: 5,
            isr: vec![BrokerId(1)],
            partition_epoch: 7,
            ..Default::default()
        };
        let response = |error_code, partition_error| AlterPartitionResponse {
            error_code,
            topics: vec![TopicData {
                partitions: vec![PartitionData { error_code: partition_error, ..answered.clone() }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let adopted = LeaderAndIsr::from_response(&response(0, 0)).expect("the partition");
        assert_eq!((adopted.isr, adopted.partition_epoch), (vec![BrokerId(1)], 7));
        let not_controller = ErrorCode::NotController.code();
        let stale = ErrorCode::InvalidUpdateVersion.code();
        assert_eq!(LeaderAndIsr::from_response(&response(not_controller, stale)), Err(ErrorCode::NotController));
        assert_eq!(LeaderAndIsr::from_response(&response(0, stale)), Err(ErrorCode::InvalidUpdateVersion));
        let empty = AlterPartitionResponse::default();
        assert_eq!(LeaderAndIsr::from_response(&empty), Err(ErrorCode::UnknownServerError));
    }
}
