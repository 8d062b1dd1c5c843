//! The group coordinator's [`PartitionWriter`] over this node's replicas: coordinator batches are
//! appended to `__consumer_offsets` as leader with `acks=all` (committed, on stable storage on
//! every in-sync replica, before the coordinator answers), and read back from the log when a
//! partition's groups are loaded.
//!
//! Leadership is checked against the metadata image: an append for a partition this node does not
//! lead at the coordinator's epoch fails with NOT_LEADER, so a deposed coordinator never writes.
//!
//! Transactional offset commits are verified as a producer's first transactional write is
//! (KIP-890): the log's producer state hands out a guard, the transaction coordinator confirms
//! (or, for transactions V2, adds) the partition in the producer's transaction through the
//! broker's [`TxnVerifier`], and the append presents the guard with the coordinator origin, so a
//! marker landing in between fails it. The coordinator origin skips sequence checks (the group
//! coordinator writes no sequences) but keeps the epoch and transaction checks.

use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use strand_base::{BrokerId, Clock, LeaderEpoch, Offset, TopicPartition};
use strand_broker::{NoTxnCoordinator, TxnVerifier};
use strand_coordinator::{BoxFuture, PartitionWriter, ReadResult, TxnVerification, VerificationToken, WriteError};
use strand_log::LogError;
use strand_log::log::ValidatedBatch;
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_metadata::image::MetadataImage;
use strand_protocol::error::ErrorCode;
use strand_replication::{Acks, Isolation, ReplicaError, ReplicaManager};
use tokio::sync::watch;

/// How long a coordinator append may wait for the in-sync replicas (Kafka's
/// `offsets.commit.timeout.ms` default).
const COMMIT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long one wait for the high watermark sleeps before looking again (appends wake it sooner).
const HIGH_WATERMARK_POLL: Duration = Duration::from_millis(500);

/// Kafka's `RecordBatch.NO_SEQUENCE`: coordinators' transactional batches carry none.
const NO_SEQUENCE: i32 = -1;

#[derive(Debug)]
pub struct ReplicaPartitionWriter {
    replicas: Arc<ReplicaManager>,
    image: watch::Receiver<Arc<MetadataImage>>,
    node: BrokerId,
    /// Reaches transaction coordinators for KIP-890's checks; none by default.
    txn_verifier: Arc<dyn TxnVerifier>,
    /// Stamps verifications (they expire with `producer.id.expiration.ms`).
    clock: Option<Arc<dyn Clock>>,
}

impl ReplicaPartitionWriter {
    pub fn new(replicas: Arc<ReplicaManager>, image: watch::Receiver<Arc<MetadataImage>>, node: BrokerId) -> Self {
        ReplicaPartitionWriter { replicas, image, node, txn_verifier: Arc::new(NoTxnCoordinator), clock: None }
    }

    /// Verifies transactional appends (the group coordinator's TxnOffsetCommit) through
    /// `verifier`, stamped by `clock`.
    pub fn with_txn_verifier(mut self, verifier: Arc<dyn TxnVerifier>, clock: Arc<dyn Clock>) -> Self {
        self.txn_verifier = verifier;
        self.clock = Some(clock);
        self
    }

    /// Whether the current image has this node leading `tp` at `epoch`.
    fn leads(&self, tp: &TopicPartition, epoch: LeaderEpoch) -> bool {
        let image = self.image.borrow();
        let partition = image.topics().by_name(&tp.topic).and_then(|t| t.partitions.get(&tp.partition));
        partition.is_some_and(|p| p.leader == self.node && p.leader_epoch == epoch)
    }
}

fn write_error(error: ReplicaError) -> WriteError {
    match error {
        ReplicaError::UnknownPartition(_) => WriteError::UnknownPartition,
        ReplicaError::NotLeaderOrFollower(_)
        | ReplicaError::FencedLeaderEpoch { .. }
        | ReplicaError::UnknownLeaderEpoch { .. } => WriteError::NotLeader,
        ReplicaError::NotEnoughReplicas { .. } | ReplicaError::NotEnoughReplicasAfterAppend { .. } => {
            WriteError::NotEnoughReplicas
        }
        ReplicaError::Timeout => WriteError::Timeout,
        ReplicaError::Log(error @ LogError::ProducerState(_)) => WriteError::Producer(ReplicaError::Log(error).code()),
        ReplicaError::Log(error @ LogError::InvalidBatch(_)) => WriteError::Other(error.to_string()),
        ReplicaError::Log(other) => WriteError::Storage(other.to_string()),
        other => WriteError::Other(other.to_string()),
    }
}

impl PartitionWriter for ReplicaPartitionWriter {
    fn append(
        &self,
        tp: &TopicPartition,
        leader_epoch: LeaderEpoch,
        batch: Bytes,
    ) -> BoxFuture<'_, Result<Offset, WriteError>> {
        self.append_with(tp, leader_epoch, batch, AppendContext::coordinator(0))
    }

    fn verify_transaction(
        &self,
        tp: &TopicPartition,
        verification: TxnVerification,
    ) -> BoxFuture<'_, Result<VerificationToken, ErrorCode>> {
        let tp = tp.clone();
        Box::pin(async move {
            let now_ms = self.clock.as_ref().map_or(0, |clock| clock.now_ms());
            let producer = (verification.producer_id, verification.producer_epoch);
            let guard = self
                .replicas
                .maybe_start_txn_verification(&tp, producer, NO_SEQUENCE, verification.add, now_ms)
                .map_err(|e| e.code())?;
            if guard == VerificationGuard::SENTINEL {
                // The transaction is already open in this partition.
                return Ok(VerificationToken::NONE);
            }
            let check = strand_broker::TxnVerification {
                transactional_id: verification.transactional_id,
                producer_id: verification.producer_id,
                producer_epoch: verification.producer_epoch,
                partitions: vec![tp.clone()],
                add: verification.add,
            };
            match self.txn_verifier.verify(check).await.into_iter().find(|(refused, _)| *refused == tp) {
                Some((_, error)) => Err(error),
                None => Ok(VerificationToken(guard.to_raw())),
            }
        })
    }

    fn append_transactional(
        &self,
        tp: &TopicPartition,
        leader_epoch: LeaderEpoch,
        batch: Bytes,
        verification: VerificationToken,
    ) -> BoxFuture<'_, Result<Offset, WriteError>> {
        let context = AppendContext {
            verification_guard: VerificationGuard::from_raw(verification.0),
            ..AppendContext::coordinator(0)
        };
        self.append_with(tp, leader_epoch, batch, context)
    }

    fn read(
        &self,
        tp: &TopicPartition,
        from: Offset,
        max_bytes: usize,
    ) -> BoxFuture<'_, Result<ReadResult, WriteError>> {
        let tp = tp.clone();
        Box::pin(async move {
            let read =
                self.replicas.read(&tp, from, max_bytes as u64, Isolation::ReadUncommitted).map_err(write_error)?;
            let records = match &read.records {
                Some(slice) => slice.read().map_err(|e| WriteError::Storage(e.to_string()))?,
                None => Bytes::new(),
            };
            Ok(ReadResult { records, high_watermark: read.high_watermark })
        })
    }

    fn log_end_offset(&self, tp: &TopicPartition) -> Result<Offset, WriteError> {
        self.replicas.log_end_offset(tp).map_err(write_error)
    }

    fn wait_for_high_watermark(&self, tp: &TopicPartition, offset: Offset) -> BoxFuture<'_, Result<(), WriteError>> {
        let tp = tp.clone();
        Box::pin(async move {
            loop {
                if self.replicas.offsets(&tp).map_err(write_error)?.high_watermark >= offset {
                    return Ok(());
                }
                self.replicas.wait_for_append(HIGH_WATERMARK_POLL).await;
            }
        })
    }
}

impl ReplicaPartitionWriter {
    /// Appends as leader at `leader_epoch` with `acks=all` and waits for the commit.
    fn append_with(
        &self,
        tp: &TopicPartition,
        leader_epoch: LeaderEpoch,
        batch: Bytes,
        context: AppendContext,
    ) -> BoxFuture<'_, Result<Offset, WriteError>> {
        let tp = tp.clone();
        Box::pin(async move {
            if !self.leads(&tp, leader_epoch) {
                return Err(WriteError::NotLeader);
            }
            let batch = ValidatedBatch::validate(BytesMut::from(&batch[..]))
                .map_err(|e| WriteError::Other(format!("the coordinator built an invalid batch: {e}")))?;
            let appended =
                self.replicas.append_as_leader(&tp, batch, leader_epoch, Acks::All, context).map_err(write_error)?;
            // Committed once every in-sync replica has it on stable storage (the leader's sync
            // runs inside the wait, off the async threads).
            if let Some(delayed) = appended.delayed {
                delayed.wait(COMMIT_TIMEOUT).await.map_err(write_error)?;
            }
            Ok(appended.info.last_offset + 1)
        })
    }
}
