//! [`ReplicaError`]: why a replication operation failed, and the Kafka error code a client gets
//! for it ([`ReplicaError::code`]).

use strand_base::{BrokerId, LeaderEpoch, TopicPartition};
use strand_log::LogError;
use strand_log::producer_state::ProducerStateError;
use strand_protocol::error::ErrorCode;

#[derive(Debug, thiserror::Error)]
pub enum ReplicaError {
    #[error("this node hosts no replica of {0}")]
    UnknownPartition(TopicPartition),
    /// A replica this node was given but could not host: its log could not be opened or created
    /// (Kafka's `HostedPartition.Offline`, answered KAFKA_STORAGE_ERROR).
    #[error("{tp} is offline on this node: {reason}")]
    Offline { tp: TopicPartition, reason: String },
    /// Not the leader (a produce, a consumer read, a follower's fetch), or the caller's leader
    /// epoch is not this leader's.
    #[error("this node is not the leader of {0} (at that epoch)")]
    NotLeaderOrFollower(TopicPartition),
    #[error("leader epoch {requested} of {tp} is older than the current {current}")]
    FencedLeaderEpoch { tp: TopicPartition, requested: LeaderEpoch, current: LeaderEpoch },
    #[error("leader epoch {requested} of {tp} is newer than the current {current}")]
    UnknownLeaderEpoch { tp: TopicPartition, requested: LeaderEpoch, current: LeaderEpoch },
    #[error("broker {replica} is not a replica of {tp}")]
    NotReplica { tp: TopicPartition, replica: BrokerId },
    #[error("broker {replica} fetched with broker epoch {fetched}, older than its registration's {registered}")]
    StaleBrokerEpoch { replica: BrokerId, fetched: i64, registered: i64 },
    #[error("{tp} has {isr} in-sync replicas, fewer than min.insync.replicas={min}")]
    NotEnoughReplicas { tp: TopicPartition, isr: usize, min: i32 },
    #[error("{tp} was appended to, but its ISR shrank to {isr}, fewer than min.insync.replicas={min}")]
    NotEnoughReplicasAfterAppend { tp: TopicPartition, isr: usize, min: i32 },
    #[error("timed out waiting for the in-sync replicas")]
    Timeout,
    /// DeleteRecords on a topic whose `cleanup.policy` is `compact` only (Kafka refuses it).
    #[error("records of {0} cannot be deleted: its cleanup.policy is compact")]
    DeleteRecordsPolicy(TopicPartition),
    /// The replica manager cannot do this as configured (no broker id, no runtime, no links).
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Log(#[from] LogError),
}

impl ReplicaError {
    /// The error code Kafka answers with.
    pub fn code(&self) -> ErrorCode {
        match self {
            ReplicaError::UnknownPartition(_) => ErrorCode::NotLeaderOrFollower,
            ReplicaError::Offline { .. } => ErrorCode::KafkaStorageError,
            ReplicaError::NotLeaderOrFollower(_)
            | ReplicaError::NotReplica { .. }
            | ReplicaError::StaleBrokerEpoch { .. } => ErrorCode::NotLeaderOrFollower,
            ReplicaError::FencedLeaderEpoch { .. } => ErrorCode::FencedLeaderEpoch,
            ReplicaError::UnknownLeaderEpoch { .. } => ErrorCode::UnknownLeaderEpoch,
            ReplicaError::NotEnoughReplicas { .. } => ErrorCode::NotEnoughReplicas,
            ReplicaError::NotEnoughReplicasAfterAppend { .. } => ErrorCode::NotEnoughReplicasAfterAppend,
            ReplicaError::Timeout => ErrorCode::RequestTimedOut,
            ReplicaError::DeleteRecordsPolicy(_) => ErrorCode::PolicyViolation,
            ReplicaError::Config(_) => ErrorCode::UnknownServerError,
            ReplicaError::Log(e) => log_code(e),
        }
    }
}

fn log_code(error: &LogError) -> ErrorCode {
    match error {
        LogError::OffsetOutOfRange { .. } => ErrorCode::OffsetOutOfRange,
        LogError::InvalidBatch(_) => ErrorCode::CorruptMessage,
        LogError::ProducerState(e) => match e {
            ProducerStateError::InvalidProducerEpoch { .. } => ErrorCode::InvalidProducerEpoch,
            ProducerStateError::OutOfOrderSequence { .. } => ErrorCode::OutOfOrderSequenceNumber,
            ProducerStateError::InvalidTxnState { .. } => ErrorCode::InvalidTxnState,
            ProducerStateError::TransactionCoordinatorFenced { .. } => ErrorCode::TransactionCoordinatorFenced,
            ProducerStateError::InvalidControlBatch(_) => ErrorCode::CorruptMessage,
        },
        _ => ErrorCode::KafkaStorageError,
    }
}
