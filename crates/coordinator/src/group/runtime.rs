//! The group coordinator runtime: [`GroupCoordinator`] owns one [`GroupShard`] per
//! `__consumer_offsets` partition this node leads and drives it, as Kafka's `CoordinatorRuntime`
//! drives its shards.
//!
//! - **Leadership** is told to it: [`GroupCoordinator::become_leader`] starts a shard task for the
//!   partition, which loads the shard by reading the partition from its start through the
//!   [`PartitionWriter`] and replaying every record; [`GroupCoordinator::resign`] stops it.
//!   Meanwhile requests for the partition's groups get COORDINATOR_LOAD_IN_PROGRESS; requests for
//!   a partition not led here get NOT_COORDINATOR.
//! - **One operation at a time per shard**: the task takes a request, computes its records and
//!   answer on the current state (the shard replays the records as it goes), appends the records
//!   as one batch, and releases the answer, and any parked JoinGroup/SyncGroup the operation
//!   completed, only once the batch is committed. The next operation starts after that, so every
//!   operation, reads included, sees only committed state.
//! - **A failed append** leaves the shard ahead of its log. The task then answers the operation
//!   and every parked request with the error Kafka gives (`WriteError::response_error`) and
//!   reloads the shard from the log (or stops, if leadership was lost): the log is the truth, and
//!   a reload is the same replay as a restart. Rebalances in progress are lost, as on a
//!   coordinator change; clients rejoin.
//! - **Timers** (sessions, rebalance timeouts, the initial rebalance delay, offsets expiry) live
//!   in the shard as deadlines read from the [`Clock`]; the task sleeps until the earliest and
//!   then runs the shard's `on_timer`, whose records are appended like any operation's.
//!
//! This module is the shell around the deterministic shard: it alone awaits I/O, sleeps and spawns
//! (one tokio task per led partition, so `become_leader` must be called within a tokio runtime).
//! [`super::api`] adapts each request version to the shard and back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use strand_base::{Clock, LeaderEpoch};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{JoinGroupResponse, SyncGroupResponse};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use crate::config::GroupConfig;
use crate::group::metadata::TopicMetadata;
use crate::group::{GroupShard, Output, PendingId, Reply, hash};
use crate::member_id::MemberIdGenerator;
use crate::runtime::{SHARD_COMMANDS_MAX, ShardStatus};
use crate::writer::{PartitionWriter, VerificationToken};

/// The internal topic whose partitions hold the groups.
pub const OFFSETS_TOPIC: &str = "__consumer_offsets";

/// The group coordinator of one node. Cheap to share behind an `Arc`; every method takes `&self`.
#[derive(Debug)]
pub struct GroupCoordinator {
    pub(super) shared: Arc<Shared>,
}

#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) config: GroupConfig,
    pub(crate) writer: Arc<dyn PartitionWriter>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) member_ids: Arc<dyn MemberIdGenerator>,
    /// The latest topic metadata; every shard takes it in before its next operation.
    pub(crate) metadata: watch::Sender<Arc<TopicMetadata>>,
    shards: Mutex<HashMap<i32, ShardHandle>>,
}

/// The runtime's side of a shard task.
#[derive(Debug)]
struct ShardHandle {
    leader_epoch: LeaderEpoch,
    commands: mpsc::Sender<Command>,
    status: watch::Receiver<ShardStatus>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

/// A request for a shard task.
pub(crate) enum Command {
    /// May change the shard; its records are appended before its answer is released.
    Write(WriteOp),
    /// Reads the shard; answers at once.
    Read(ReadOp),
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

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Command::Write(_) => "Command::Write",
            Command::Read(_) => "Command::Read",
            Command::Marker(..) => "Command::Marker",
        })
    }
}

pub(crate) type WriteOp = Box<dyn FnOnce(&mut GroupShard, i64) -> OpDone + Send>;
pub(crate) type ReadOp = Box<dyn FnOnce(&GroupShard) + Send>;
type Respond = Box<dyn FnOnce(Result<(), ErrorCode>) + Send>;

/// A write operation's result, for the task to carry out.
pub(crate) struct OpDone {
    pub(crate) records: Vec<crate::group::records::CoordinatorRecord>,
    pub(crate) completions: Vec<crate::group::Completion>,
    /// The operation's own request, parked under this id.
    pub(crate) park: Option<(PendingId, Parked)>,
    /// Releases the operation's own answer (`Ok`) or sends the failure.
    pub(crate) respond: Option<Respond>,
    /// The records belong to this producer's transaction: appended as its transactional batch.
    pub(crate) txn: Option<TxnAppend>,
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
        let shared = Shared { config, writer, clock, member_ids, metadata, shards: Mutex::new(HashMap::new()) };
        GroupCoordinator { shared: Arc::new(shared) }
    }

    pub fn config(&self) -> &GroupConfig {
        &self.shared.config
    }

    /// A new metadata image was published: consumer groups resolve their subscriptions against
    /// `topics` from their next operation on. A changed subscribed topic (or a new topic matching a
    /// subscription regex) bumps the group's epoch at its next heartbeat, as in Kafka.
    pub fn on_metadata_update(&self, topics: TopicMetadata) {
        self.shared.metadata.send_if_modified(|current| {
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
        self.shared.metadata.borrow().clone()
    }

    /// The `__consumer_offsets` partition that coordinates `group_id`.
    pub fn partition_for(&self, group_id: &str) -> i32 {
        hash::partition_for(group_id, self.shared.config.offsets_topic_partitions)
    }

    /// This node now leads `partition` at `leader_epoch`: load its shard and serve its groups. A
    /// repeated call for the epoch already led (or an older one) changes nothing; a newer epoch
    /// replaces the shard with a freshly loaded one.
    pub fn become_leader(&self, partition: i32, leader_epoch: LeaderEpoch) {
        let mut shards = self.shared.lock_shards();
        if let Some(existing) = shards.get_mut(&partition) {
            if existing.leader_epoch >= leader_epoch && *existing.status.borrow() != ShardStatus::NotLed {
                return;
            }
            existing.stop();
        }
        let (commands_tx, commands_rx) = mpsc::channel(SHARD_COMMANDS_MAX);
        let (status_tx, status_rx) = watch::channel(ShardStatus::Loading);
        let (stop_tx, stop_rx) = oneshot::channel();
        let task = super::task::ShardTask::new(Arc::clone(&self.shared), partition, leader_epoch, status_tx);
        let join = tokio::spawn(task.run(commands_rx, stop_rx));
        let handle = ShardHandle {
            leader_epoch,
            commands: commands_tx,
            status: status_rx,
            stop: Some(stop_tx),
            task: Some(join),
        };
        shards.insert(partition, handle);
        tracing::debug!(partition, leader_epoch, "loading group coordinator shard");
    }

    /// This node no longer leads `partition`: its shard stops, queued and parked requests get
    /// NOT_COORDINATOR.
    pub fn resign(&self, partition: i32) {
        let removed = self.shared.lock_shards().remove(&partition);
        if let Some(mut handle) = removed {
            handle.stop();
            tracing::debug!(partition, "unloading group coordinator shard");
        }
    }

    /// Where `partition`'s shard stands.
    pub fn status(&self, partition: i32) -> ShardStatus {
        self.shared.lock_shards().get(&partition).map_or(ShardStatus::NotLed, |h| *h.status.borrow())
    }

    /// Resolves once `partition`'s shard is Active (true) or not led here (false).
    pub async fn wait_active(&self, partition: i32) -> bool {
        let status = self.shared.lock_shards().get(&partition).map(|h| h.status.clone());
        let Some(mut status) = status else {
            return false;
        };
        match status.wait_for(|s| *s != ShardStatus::Loading).await {
            Ok(s) => *s == ShardStatus::Active,
            Err(_) => false,
        }
    }

    /// The partitions whose shards are on this node, in any status.
    pub fn partitions(&self) -> Vec<i32> {
        let mut partitions: Vec<i32> = self.shared.lock_shards().keys().copied().collect();
        partitions.sort_unstable();
        partitions
    }

    /// Stops every shard and waits for their tasks to end.
    pub async fn shutdown(&self) {
        let handles: Vec<ShardHandle> = self.shared.lock_shards().drain().map(|(_, h)| h).collect();
        for mut handle in handles {
            handle.stop();
            if let Some(task) = handle.task.take() {
                let _ = task.await;
            }
        }
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
        let (tx, rx) = oneshot::channel();
        let command = Command::Write(Box::new(move |shard, now_ms| {
            let Output { records, completions, response } = op(shard, now_ms);
            let respond: Respond = Box::new(move |result| {
                let _ = tx.send(result.map(|()| response));
            });
            OpDone { records, completions, park: None, respond: Some(respond), txn }
        }));
        self.send(partition, command).await?;
        rx.await.unwrap_or(Err(ErrorCode::NotCoordinator))
    }

    /// Runs a write operation whose answer may be parked (JoinGroup, SyncGroup) and waits for it.
    pub(crate) async fn write_parkable<R: Send + 'static>(
        &self,
        partition: i32,
        op: impl FnOnce(&mut GroupShard, i64) -> Output<Reply<R>> + Send + 'static,
        park: fn(oneshot::Sender<Result<R, ErrorCode>>) -> Parked,
    ) -> Result<R, ErrorCode> {
        let (tx, rx) = oneshot::channel();
        let command = Command::Write(Box::new(move |shard, now_ms| {
            let Output { records, completions, response } = op(shard, now_ms);
            match response {
                Reply::Now(response) => {
                    let respond: Respond = Box::new(move |result| {
                        let _ = tx.send(result.map(|()| response));
                    });
                    OpDone { records, completions, park: None, respond: Some(respond), txn: None }
                }
                Reply::Parked(id) => {
                    OpDone { records, completions, park: Some((id, park(tx))), respond: None, txn: None }
                }
            }
        }));
        self.send(partition, command).await?;
        rx.await.unwrap_or(Err(ErrorCode::NotCoordinator))
    }

    /// Writes a transaction marker to `partition` (WriteTxnMarkers from a transaction
    /// coordinator), through its shard so that it lands among the shard's own appends, once they
    /// are committed; the shard replays it, committing or dropping the producer's pending
    /// transactional offsets.
    pub async fn complete_transaction(&self, partition: i32, marker: TxnMarker) -> Result<(), ErrorCode> {
        let (tx, rx) = oneshot::channel();
        self.send(partition, Command::Marker(marker, tx)).await?;
        rx.await.unwrap_or(Err(ErrorCode::NotCoordinator))
    }

    /// Reads `partition`'s shard.
    pub(crate) async fn read<R: Send + 'static>(
        &self,
        partition: i32,
        op: impl FnOnce(&GroupShard) -> R + Send + 'static,
    ) -> Result<R, ErrorCode> {
        let (tx, rx) = oneshot::channel();
        let command = Command::Read(Box::new(move |shard| {
            let _ = tx.send(op(shard));
        }));
        self.send(partition, command).await?;
        rx.await.map_err(|_| ErrorCode::NotCoordinator)
    }

    /// Queues `command` for `partition`'s shard, if it is here and loaded.
    async fn send(&self, partition: i32, command: Command) -> Result<(), ErrorCode> {
        let commands = {
            let shards = self.shared.lock_shards();
            let handle = shards.get(&partition).ok_or(ErrorCode::NotCoordinator)?;
            match *handle.status.borrow() {
                ShardStatus::Active => {}
                ShardStatus::Loading => return Err(ErrorCode::CoordinatorLoadInProgress),
                ShardStatus::NotLed => return Err(ErrorCode::NotCoordinator),
            }
            handle.commands.clone()
        };
        commands.send(command).await.map_err(|_| ErrorCode::NotCoordinator)
    }
}

impl Drop for GroupCoordinator {
    fn drop(&mut self) {
        for (_, mut handle) in self.shared.lock_shards().drain() {
            handle.stop();
        }
    }
}

impl Shared {
    fn lock_shards(&self) -> MutexGuard<'_, HashMap<i32, ShardHandle>> {
        self.shards.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Called by a shard task that ends on its own (lost leadership, failed load): forgets its
    /// handle unless a newer one replaced it.
    pub(crate) fn forget(&self, partition: i32, leader_epoch: LeaderEpoch) {
        let mut shards = self.lock_shards();
        if shards.get(&partition).is_some_and(|h| h.leader_epoch == leader_epoch) {
            shards.remove(&partition);
        }
    }
}

impl ShardHandle {
    fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
