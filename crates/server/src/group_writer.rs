//! The group coordinator's [`PartitionWriter`] over this node's replicas: coordinator batches are
//! appended to `__consumer_offsets` as leader with `acks=all` (committed, on stable storage on
//! every in-sync replica, before the coordinator answers), and read back from the log when a
//! partition's groups are loaded.
//!
//! Leadership is checked against the metadata image: an append for a partition this node does not
//! lead at the coordinator's epoch fails with NOT_LEADER, so a deposed coordinator never writes.

use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use strand_base::{BrokerId, LeaderEpoch, Offset, TopicPartition};
use strand_coordinator::{BoxFuture, PartitionWriter, ReadResult, WriteError};
use strand_log::LogError;
use strand_log::log::ValidatedBatch;
use strand_log::producer_state::AppendContext;
use strand_metadata::image::MetadataImage;
use strand_replication::{Acks, Isolation, ReplicaError, ReplicaManager};
use tokio::sync::watch;

/// How long a coordinator append may wait for the in-sync replicas (Kafka's
/// `offsets.commit.timeout.ms` default).
const COMMIT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long one wait for the high watermark sleeps before looking again (appends wake it sooner).
const HIGH_WATERMARK_POLL: Duration = Duration::from_millis(500);

#[derive(Debug)]
pub struct ReplicaPartitionWriter {
    replicas: Arc<ReplicaManager>,
    image: watch::Receiver<Arc<MetadataImage>>,
    node: BrokerId,
}

impl ReplicaPartitionWriter {
    pub fn new(replicas: Arc<ReplicaManager>, image: watch::Receiver<Arc<MetadataImage>>, node: BrokerId) -> Self {
        ReplicaPartitionWriter { replicas, image, node }
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
        ReplicaError::Log(error @ (LogError::InvalidBatch(_) | LogError::ProducerState(_))) => {
            WriteError::Other(error.to_string())
        }
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
        let tp = tp.clone();
        Box::pin(async move {
            if !self.leads(&tp, leader_epoch) {
                return Err(WriteError::NotLeader);
            }
            let batch = ValidatedBatch::validate(BytesMut::from(&batch[..]))
                .map_err(|e| WriteError::Other(format!("the coordinator built an invalid batch: {e}")))?;
            let context = AppendContext::coordinator(0);
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
