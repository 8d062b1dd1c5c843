//! The group coordinator's shell: [`GroupCoordinator`] owns one [`GroupShard`] per
//! `__consumer_offsets` partition this node leads and drives it on the coordinator runtime
//! ([`crate::runtime`]), under its rules: leadership is told to it, a shard loads by replaying
//! its partition (COORDINATOR_LOAD_IN_PROGRESS meanwhile, NOT_COORDINATOR for partitions not led
//! here), one operation at a time is answered only once its records are committed, and a failed
//! append reloads the shard from the log (or stops it, if leadership was lost). What the group
//! coordinator adds:
//!
//! - **Parked requests**: JoinGroup and SyncGroup wait in their shard's task until a rebalance
//!   completes them; those completions, like answers, are released only once the operation's
//!   records are committed. A failed append answers every parked request with the error, so
//!   rebalances in progress are lost, as on a coordinator change; clients rejoin.
//! - **Timers**: sessions, rebalance timeouts, the initial rebalance delay, offsets expiry.
//! - **Topic metadata** reaches every shard before its next operation
//!   ([`GroupCoordinator::on_metadata_update`]); a deleted topic's offsets are deleted with it.
//! - **Transactions**: TxnOffsetCommit's offsets are appended as the producer's transactional
//!   batch, and the transaction coordinator's markers through the shard
//!   ([`GroupCoordinator::complete_transaction`]); loading replays both.
//!
//! [`super::api`] adapts each request version to the shard and back; `super::shell` is the group
//! coordinator's part of each shard task.

use std::sync::Arc;

use strand_base::Clock;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{JoinGroupResponse, SyncGroupResponse};
use tokio::sync::{oneshot, watch};

use super::shell::GroupShell;
use crate::config::GroupConfig;
use crate::group::metadata::TopicMetadata;
use crate::group::records::CoordinatorRecord;
use crate::group::{Completion, GroupShard, Output, PendingId, Reply, hash};
use crate::member_id::MemberIdGenerator;
use crate::runtime::{CoordinatorShards, ShardRegistry};
use crate::writer::{PartitionWriter, VerificationToken};

/// The group coordinator of one node. Cheap to share behind an `Arc`; every method takes `&self`.
#[derive(Debug)]
pub struct GroupCoordinator {
    pub(super) shards: ShardRegistry<GroupShell>,
}

/// What every group shard of the node shares besides the writer and the clock.
#[derive(Debug)]
pub(crate) struct GroupShared {
    pub(crate) config: GroupConfig,
    pub(crate) member_ids: Arc<dyn MemberIdGenerator>,
    /// The latest topic metadata; every shard takes it in before its next operation.
    pub(crate) metadata: watch::Sender<Arc<TopicMetadata>>,
}

/// A command that may change a group shard.
pub(crate) enum GroupWrite {
    /// An operation; its records are appended before its answer is released.
    Op(WriteOp),
    /// Appends a transaction marker the transaction coordinator asked for.
    Marker(TxnMarker, oneshot::Sender<Result<(), ErrorCode>>),
}

/// A COMMIT or ABORT marker for one producer's transaction in a `__consumer_offsets` partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxnMarker {
    pub producer_id: strand_base::ProducerId,
    pub producer_epoch: i16,
    pub coordinator_epoch: i32,
    pub result: strand_protocol::records::TransactionResult,
}

pub(crate) type WriteOp = Box<dyn FnOnce(&mut GroupShard, i64) -> OpDone + Send>;
type Respond = Box<dyn FnOnce(Result<(), ErrorCode>) + Send>;

/// A write operation's result, for the task to carry out.
pub(crate) struct OpDone {
    pub(crate) records: Vec<CoordinatorRecord>,
    /// The operation's own request, parked under this id.
    pub(crate) park: Option<(PendingId, Parked)>,
    pub(crate) effects: GroupEffects,
}

/// What a group operation leaves besides its records, released once they are committed.
pub(crate) struct GroupEffects {
    pub(crate) completions: Vec<Completion>,
    /// Releases the operation's own answer (`Ok`) or sends the failure.
    pub(crate) respond: Option<Respond>,
    /// The records belong to this producer's transaction: appended as its transactional batch.
    pub(crate) txn: Option<TxnAppend>,
    /// A client's operation is all or nothing: a batch larger than this (`message.max.bytes`) is
    /// not appended and the operation fails (Kafka's RecordTooLarge). `None` for timer and
    /// metadata cleanups, which Kafka may split over several batches: Strand appends them whole.
    pub(crate) batch_bytes_max: Option<usize>,
}

/// The producer whose transaction an operation's records are written in (TxnOffsetCommit), and
/// the token its KIP-890 verification returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TxnAppend {
    pub(crate) producer_id: strand_base::ProducerId,
    pub(crate) producer_epoch: i16,
    pub(crate) verification: VerificationToken,
}

/// Where a parked request's answer goes.
#[derive(Debug)]
pub(crate) enum Parked {
    Join(oneshot::Sender<Result<JoinGroupResponse, ErrorCode>>),
    Sync(oneshot::Sender<Result<SyncGroupResponse, ErrorCode>>),
}

impl GroupCoordinator {
    /// A coordinator leading no partition yet. `clock` times sessions, rebalances and commits;
    /// `member_ids` draws new member ids.
    pub fn new(
        config: GroupConfig,
        writer: Arc<dyn PartitionWriter>,
        clock: Arc<dyn Clock>,
        member_ids: Arc<dyn MemberIdGenerator>,
    ) -> Self {
        let (metadata, _) = watch::channel(Arc::new(TopicMetadata::default()));
        let shared = GroupShared { config, member_ids, metadata };
        GroupCoordinator { shards: ShardRegistry::new(shared, writer, clock) }
    }

    pub fn config(&self) -> &GroupConfig {
        &self.shards.shared().config
    }

    /// A new metadata image was published: consumer groups resolve their subscriptions against
    /// `topics` from their next operation on. A changed subscribed topic (or a new topic matching a
    /// subscription regex) bumps the group's epoch at its next heartbeat, as in Kafka.
    pub fn on_metadata_update(&self, topics: TopicMetadata) {
        self.shards.shared().metadata.send_if_modified(|current| {
            let next = topics.succeeding(current);
            // Only topic changes matter: a new version alone (any other metadata) wakes no shard.
            let changed = next.topics_differ(current);
            if changed {
                *current = Arc::new(next);
            }
            changed
        });
    }

    /// The topic metadata consumer groups see now.
    pub fn topic_metadata(&self) -> Arc<TopicMetadata> {
        self.shards.shared().metadata.borrow().clone()
    }

    /// The `__consumer_offsets` partition that coordinates `group_id`.
    pub fn partition_for(&self, group_id: &str) -> i32 {
        hash::partition_for(group_id, self.config().offsets_topic_partitions)
    }

    /// This coordinator's shards on this node: their leadership, status and shutdown.
    pub fn shards(&self) -> &dyn CoordinatorShards {
        &self.shards
    }

    /// Runs a write operation on `partition`'s shard and waits for its answer, released once its
    /// records are committed.
    pub(crate) async fn write<R: Send + 'static>(
        &self,
        partition: i32,
        op: impl FnOnce(&mut GroupShard, i64) -> Output<R> + Send + 'static,
    ) -> Result<R, ErrorCode> {
        self.write_in(partition, None, op).await
    }

    /// Runs a write operation whose records go in `txn`'s transactional batch (or a plain one).
    pub(crate) async fn write_in<R: Send + 'static>(
        &self,
        partition: i32,
        txn: Option<TxnAppend>,
        op: impl FnOnce(&mut GroupShard, i64) -> Output<R> + Send + 'static,
    ) -> Result<R, ErrorCode> {
        let write = |tx| {
            GroupWrite::Op(Box::new(move |shard, now_ms| {
                let batch_bytes_max = Some(shard.config().batch_bytes_max);
                let Output { records, completions, response } = op(shard, now_ms);
                let effects = GroupEffects { completions, respond: Some(answer(tx, response)), txn, batch_bytes_max };
                OpDone { records, park: None, effects }
            }))
        };
        self.shards.write(partition, write).await
    }

    /// Runs a write operation whose answer may be parked (JoinGroup, SyncGroup) and waits for it.
    pub(crate) async fn write_parkable<R: Send + 'static>(
        &self,
        partition: i32,
        op: impl FnOnce(&mut GroupShard, i64) -> Output<Reply<R>> + Send + 'static,
        park: fn(oneshot::Sender<Result<R, ErrorCode>>) -> Parked,
    ) -> Result<R, ErrorCode> {
        let write = |tx| {
            GroupWrite::Op(Box::new(move |shard, now_ms| {
                let batch_bytes_max = Some(shard.config().batch_bytes_max);
                let Output { records, completions, response } = op(shard, now_ms);
                let (respond, park) = match response {
                    Reply::Now(response) => (Some(answer(tx, response)), None),
                    Reply::Parked(id) => (None, Some((id, park(tx)))),
                };
                let effects = GroupEffects { completions, respond, txn: None, batch_bytes_max };
                OpDone { records, park, effects }
            }))
        };
        self.shards.write(partition, write).await
    }

    /// Writes a transaction marker to `partition` (WriteTxnMarkers from a transaction
    /// coordinator), through its shard so that it lands among the shard's own appends, once they
    /// are committed; the shard replays it, committing or dropping the producer's pending
    /// transactional offsets.
    pub async fn complete_transaction(&self, partition: i32, marker: TxnMarker) -> Result<(), ErrorCode> {
        self.shards.write(partition, |tx| GroupWrite::Marker(marker, tx)).await
    }
}

/// Sends `response` through `tx` once the records are committed, or the failure.
fn answer<R: Send + 'static>(tx: oneshot::Sender<Result<R, ErrorCode>>, response: R) -> Respond {
    Box::new(move |result| {
        let _ = tx.send(result.map(|()| response));
    })
}
