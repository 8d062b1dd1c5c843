//! ISR changes go to the controller: the leader proposes a new ISR for one partition
//! ([`AlterPartitionItem`], conditional on its leader and partition epochs) through an
//! [`IsrChannel`] and adopts the answer ([`LeaderAndIsr`]) or waits for metadata.
//!
//! The server implements [`IsrChannel`] over AlterPartition requests to the active controller
//! (batching items as it likes; the request's `broker_id`/`broker_epoch` are the leader's own).
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
