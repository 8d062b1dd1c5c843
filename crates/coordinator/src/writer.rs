//! [`PartitionWriter`]: how the coordinator runtime reaches the log of an internal partition
//! (`__consumer_offsets`), as Kafka's coordinator runtime reaches its `PartitionWriter`. The
//! server implements it over the replica manager; `memory::MemoryPartitionWriter` (feature
//! `testing`) implements it in memory for tests.
//!
//! The coordinator appends one batch per operation and answers only once the batch is committed
//! (below the high watermark), so a coordinator change never forgets an acknowledged commit. It
//! reads a partition from its start when it becomes its leader. Leadership itself is told to the
//! runtime ([`crate::CoordinatorShards::become_leader`] / `resign`), not asked of the writer.
//!
//! Transactional offset commits (TxnOffsetCommit) are appended as transactional batches carrying
//! the producer's id and epoch, so the log's producer state tracks the transaction and its marker
//! decides it. Like a producer's first write to a partition, such a batch must pass KIP-890's
//! check: [`PartitionWriter::verify_transaction`] asks the transaction coordinator whether the
//! partition is in the producer's transaction (adding it for transactions V2, whose clients send
//! no AddOffsetsToTxn) and returns the log's guard, which [`PartitionWriter::append_transactional`]
//! presents, as Kafka's `CoordinatorPartitionWriter` does.

use std::future::Future;
use std::pin::Pin;

use bytes::Bytes;
use strand_base::{LeaderEpoch, Offset, ProducerId, TopicPartition};
use strand_protocol::error::ErrorCode;

/// A boxed future, as trait objects need.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What one read returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadResult {
    /// Whole magic-2 batches from the requested offset (the first one possibly starting before
    /// it), none past the high watermark; empty when there is nothing more to read.
    pub records: Bytes,
    /// The partition's high watermark when read.
    pub high_watermark: Offset,
}

/// Why an append or a read failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// This node no longer leads the partition (or leads it at another epoch).
    #[error("not the leader of the partition")]
    NotLeader,
    /// This node hosts no replica of the partition.
    #[error("unknown partition")]
    UnknownPartition,
    /// Too few in-sync replicas to commit the batch.
    #[error("not enough in-sync replicas")]
    NotEnoughReplicas,
    /// The batch was not committed in time; it may still be.
    #[error("timed out waiting for the batch to commit")]
    Timeout,
    /// The batch is larger than the partition accepts.
    #[error("the batch is too large")]
    RecordTooLarge,
    /// The log's storage failed.
    #[error("storage error: {0}")]
    Storage(String),
    /// The log refused a transactional batch under its producer rules (an older producer epoch,
    /// a transaction not verified): the error the producer is given.
    #[error("the log refused the producer's batch: {0:?}")]
    Producer(ErrorCode),
    #[error("{0}")]
    Other(String),
}

impl WriteError {
    /// The error a client is given when its operation's records could not be written (Kafka's
    /// `appendGroupMetadataErrorToResponseError`): errors that mean "find the coordinator again"
    /// or "retry later", never the log's own.
    pub fn response_error(&self) -> ErrorCode {
        match self {
            WriteError::UnknownPartition | WriteError::NotEnoughReplicas | WriteError::Timeout => {
                ErrorCode::CoordinatorNotAvailable
            }
            WriteError::NotLeader | WriteError::Storage(_) => ErrorCode::NotCoordinator,
            WriteError::RecordTooLarge | WriteError::Other(_) => ErrorCode::UnknownServerError,
            WriteError::Producer(code) => *code,
        }
    }

    /// Whether the failure means this node no longer leads the partition, so the shard should be
    /// dropped rather than reloaded.
    pub fn lost_leadership(&self) -> bool {
        matches!(self, WriteError::NotLeader | WriteError::UnknownPartition)
    }
}

/// A KIP-890 check before a transactional append to an internal partition (TxnOffsetCommit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnVerification {
    pub transactional_id: String,
    pub producer_id: ProducerId,
    pub producer_epoch: i16,
    /// Transactions V2 (TxnOffsetCommit v5 and later): add the partition to the transaction
    /// rather than only check that the producer added it.
    pub add: bool,
}

/// What a verification hands the append it allows: the log's verification guard, carried as a
/// number by this crate, which does not know the log. [`VerificationToken::NONE`] when the
/// transaction is already open in the partition and needs no verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VerificationToken(pub u64);

impl VerificationToken {
    pub const NONE: VerificationToken = VerificationToken(0);
}

/// Appends to and reads from the internal partitions this node leads.
pub trait PartitionWriter: Send + Sync + std::fmt::Debug {
    /// Appends `batch` (one magic-2 batch, offsets from 0, as
    /// `strand_protocol::records::RecordBatchBuilder` builds it) as leader at `leader_epoch`, and
    /// resolves once it is committed, with the offset after its last record. Fails with
    /// [`WriteError::NotLeader`] if this node does not lead `tp` at `leader_epoch`.
    fn append(
        &self,
        tp: &TopicPartition,
        leader_epoch: LeaderEpoch,
        batch: Bytes,
    ) -> BoxFuture<'_, Result<Offset, WriteError>>;

    /// Starts KIP-890's check that `tp` is in the producer's transaction (Kafka's
    /// `maybeStartTransactionVerification`): the token to present to
    /// [`PartitionWriter::append_transactional`], or the error the transaction coordinator (or
    /// the log, for an older producer epoch) gave.
    fn verify_transaction(
        &self,
        tp: &TopicPartition,
        verification: TxnVerification,
    ) -> BoxFuture<'_, Result<VerificationToken, ErrorCode>>;

    /// Appends a transactional `batch` (producer id and epoch set, transactional attribute) as
    /// [`PartitionWriter::append`] does, presenting the token its verification returned.
    fn append_transactional(
        &self,
        tp: &TopicPartition,
        leader_epoch: LeaderEpoch,
        batch: Bytes,
        verification: VerificationToken,
    ) -> BoxFuture<'_, Result<Offset, WriteError>>;

    /// Reads committed batches from `from` (up to about `max_bytes`, at least one whole batch).
    fn read(
        &self,
        tp: &TopicPartition,
        from: Offset,
        max_bytes: usize,
    ) -> BoxFuture<'_, Result<ReadResult, WriteError>>;

    /// The offset after the last record of `tp`'s log, committed or not.
    fn log_end_offset(&self, tp: &TopicPartition) -> Result<Offset, WriteError>;

    /// Resolves once `tp`'s high watermark reaches `offset`: a new leader waits for what earlier
    /// leaders wrote to commit before loading it.
    fn wait_for_high_watermark(&self, tp: &TopicPartition, offset: Offset) -> BoxFuture<'_, Result<(), WriteError>>;
}

#[cfg(any(test, feature = "testing"))]
pub mod memory;
