//! Transaction markers: once a transaction's PrepareCommit or PrepareAbort is committed, a
//! COMMIT or ABORT control record must land in every partition of the transaction before the
//! coordinator writes CompleteCommit or CompleteAbort. The state machine returns
//! [`TxnMarkerRequest`]s as effects; the shell hands each to a [`TxnMarkerSender`] (which the
//! server implements with WriteTxnMarkers to the partitions' leaders, as Kafka's
//! `TransactionMarkerChannelManager` does), resends what failed until every partition is written
//! or gone, and then asks the shard to complete the transaction.

use std::fmt;

use strand_base::TopicPartition;
use strand_protocol::error::ErrorCode;

use crate::writer::BoxFuture;

/// The markers of one transaction, for every partition it touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnMarkerRequest {
    pub transactional_id: String,
    pub producer_id: i64,
    /// The epoch of the PrepareCommit/PrepareAbort record (bumped under transactions V2).
    pub producer_epoch: i16,
    pub result: TxnResult,
    /// The leader epoch of the `__transaction_state` partition that decided: a leader that has
    /// seen a newer coordinator epoch refuses the markers (TRANSACTION_COORDINATOR_FENCED).
    pub coordinator_epoch: i32,
    /// The client's `transaction.version` (WriteTxnMarkers v2's `TransactionVersion`).
    pub transaction_version: i16,
    /// Sorted, no duplicates.
    pub partitions: Vec<TopicPartition>,
}

/// How a transaction ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TxnResult {
    Commit,
    Abort,
}

impl TxnResult {
    /// WriteTxnMarkers' `TransactionResult`.
    pub fn is_commit(self) -> bool {
        self == TxnResult::Commit
    }
}

impl fmt::Display for TxnResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TxnResult::Commit => "COMMIT",
            TxnResult::Abort => "ABORT",
        })
    }
}

/// What became of one partition's marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerOutcome {
    /// The leader appended the marker.
    Written,
    /// The partition no longer exists (its topic was deleted): nothing to mark.
    PartitionGone,
    /// Not written; the error the leader (or the way to it) gave.
    Failed(ErrorCode),
}

/// What the shell does after an outcome (Kafka's `TransactionMarkerRequestCompletionHandler`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerStep {
    /// The partition is done.
    Done,
    /// Send this partition's marker again after a pause.
    Retry,
    /// Stop sending this transaction's markers and leave it prepared: a newer coordinator (or a
    /// newer producer epoch) exists, and it will finish the transaction.
    GiveUp,
}

impl MarkerOutcome {
    pub fn step(self) -> MarkerStep {
        match self {
            MarkerOutcome::Written | MarkerOutcome::PartitionGone => MarkerStep::Done,
            // The partition's log predates markers: nothing can be written there, as in Kafka.
            MarkerOutcome::Failed(ErrorCode::UnsupportedForMessageFormat) => MarkerStep::Done,
            MarkerOutcome::Failed(ErrorCode::TransactionCoordinatorFenced | ErrorCode::InvalidProducerEpoch) => {
                MarkerStep::GiveUp
            }
            MarkerOutcome::Failed(_) => MarkerStep::Retry,
        }
    }
}

/// Delivers transaction markers to partition leaders. The server implements it (WriteTxnMarkers
/// to each leader over the inter-broker listener, or an append when the leader is this node);
/// tests implement it in memory.
pub trait TxnMarkerSender: Send + Sync + fmt::Debug {
    /// Writes `request`'s markers and answers one outcome per partition of `request.partitions`
    /// (a partition left out counts as failed and is sent again). A partition whose topic no
    /// longer exists in the metadata is [`MarkerOutcome::PartitionGone`]; a leader that cannot be
    /// reached is a failure (`NOT_LEADER_OR_FOLLOWER`, `REQUEST_TIMED_OUT`, ...), retried.
    fn send(&self, request: TxnMarkerRequest) -> BoxFuture<'_, Vec<(TopicPartition, MarkerOutcome)>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's handling of WriteTxnMarkers answers: done, retried, or given up.
    #[test]
    fn outcomes_map_to_steps_as_in_kafka() {
        let cases = [
            (MarkerOutcome::Written, MarkerStep::Done),
            (MarkerOutcome::PartitionGone, MarkerStep::Done),
            (MarkerOutcome::Failed(ErrorCode::UnsupportedForMessageFormat), MarkerStep::Done),
            (MarkerOutcome::Failed(ErrorCode::NotLeaderOrFollower), MarkerStep::Retry),
            (MarkerOutcome::Failed(ErrorCode::UnknownTopicOrPartition), MarkerStep::Retry),
            (MarkerOutcome::Failed(ErrorCode::NotEnoughReplicas), MarkerStep::Retry),
            (MarkerOutcome::Failed(ErrorCode::RequestTimedOut), MarkerStep::Retry),
            (MarkerOutcome::Failed(ErrorCode::TransactionCoordinatorFenced), MarkerStep::GiveUp),
            (MarkerOutcome::Failed(ErrorCode::InvalidProducerEpoch), MarkerStep::GiveUp),
        ];
        for (outcome, step) in cases {
            assert_eq!(outcome.step(), step, "{outcome:?}");
        }
    }
}
