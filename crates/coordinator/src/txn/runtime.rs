//! [`TxnCoordinator`]: the transaction coordinator of one node, owning a [`TxnShard`] per
//! `__transaction_state` partition this node leads, as the group [`crate::GroupCoordinator`]
//! owns its shards, and with the same rules:
//!
//! - **Leadership** is told to it ([`TxnCoordinator::become_leader`] / `resign`); a shard loads
//!   by replaying its partition through the [`PartitionWriter`] (COORDINATOR_LOAD_IN_PROGRESS
//!   meanwhile, NOT_COORDINATOR for partitions not led here), then writes again the markers of
//!   every transaction it finds prepared and completes them.
//! - **One operation at a time per shard**, answered only once its records are committed; a
//!   failed append reloads the shard from the log (or stops it, if leadership was lost).
//! - **Markers** are sent by tasks of the shard, concurrently with its operations, through the
//!   [`TxnMarkerSender`], partitions that failed resent every [`MARKER_RETRY_BACKOFF`] until each
//!   is written or gone; then the shard writes CompleteCommit/CompleteAbort.
//! - **Sweeps** (timed-out transactions, expired ids) are the shard's deadlines, read from the
//!   [`Clock`].
//! - **Producer ids** come from the [`ProducerIdSource`] when an operation asks for one.
//!
//! Why a shell of its own rather than the group runtime made generic: the group shell's
//! operations park requests (JoinGroup, SyncGroup) and follow topic metadata, this one's send
//! markers in the background and draw producer ids asynchronously, so the two loops share their
//! leadership bookkeeping in spirit and their partition loading (`runtime::load`) and
//! [`ShardStatus`] in code.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use strand_base::{Clock, LeaderEpoch};
use strand_protocol::error::ErrorCode;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::config::TxnConfig;
use super::markers::{TxnMarkerRequest, TxnMarkerSender};
use super::producer_id::{NeedProducerId, ProducerIdSource};
use super::records::TxnRecord;
use super::shard::{TxnOutput, TxnShard};
use super::task::TxnShardTask;
use crate::runtime::{SHARD_COMMANDS_MAX, ShardStatus};
use crate::writer::PartitionWriter;

/// The internal topic whose partitions hold the transactional ids.
pub const TRANSACTION_STATE_TOPIC: &str = "__transaction_state";

/// How long a shard waits before resending the markers that failed.
pub const MARKER_RETRY_BACKOFF: Duration = Duration::from_millis(100);

/// Finished marker deliveries queued for a shard before the deliveries wait.
pub const MARKER_REPORTS_MAX: usize = 256;

/// The transaction coordinator of one node. Cheap to share behind an `Arc`; every method takes
/// `&self`.
#[derive(Debug)]
pub struct TxnCoordinator {
    shared: Arc<TxnShared>,
}

#[derive(Debug)]
pub(crate) struct TxnShared {
    pub(crate) config: TxnConfig,
    pub(crate) writer: Arc<dyn PartitionWriter>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) producer_ids: Arc<dyn ProducerIdSource>,
    pub(crate) markers: Arc<dyn TxnMarkerSender>,
    shards: Mutex<HashMap<i32, ShardHandle>>,
}

/// The coordinator's side of a shard task.
#[derive(Debug)]
struct ShardHandle {
    leader_epoch: LeaderEpoch,
    commands: mpsc::Sender<TxnCommand>,
    status: watch::Receiver<ShardStatus>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

/// A request for a shard task.
pub(crate) enum TxnCommand {
    /// May change the shard; answered once its records are committed.
    Write(Box<dyn WriteCommand>),
    /// Reads the shard (with a clock reading); answers at once.
    Read(ReadOp),
}

/// A read of the shard, given a clock reading.
pub(crate) type ReadOp = Box<dyn FnOnce(&TxnShard, i64) + Send>;

impl std::fmt::Debug for TxnCommand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TxnCommand::Write(_) => "TxnCommand::Write",
            TxnCommand::Read(_) => "TxnCommand::Read",
        })
    }
}

/// A write operation with its answer's way back, its type erased.
pub(crate) trait WriteCommand: Send {
    /// Runs the operation on the shard (which replays its records), keeping the answer.
    /// `spare_id` is the producer id the shell drew, if any.
    fn run(
        &mut self,
        shard: &mut TxnShard,
        now_ms: i64,
        spare_id: &mut Option<i64>,
    ) -> Result<(Vec<TxnRecord>, Vec<TxnMarkerRequest>), NeedProducerId>;

    /// Sends the kept answer (`Ok`) or the failure.
    fn respond(self: Box<Self>, result: Result<(), ErrorCode>);
}

struct Write<R, F> {
    op: F,
    response: Option<R>,
    tx: oneshot::Sender<Result<R, ErrorCode>>,
}

impl<R, F> WriteCommand for Write<R, F>
where
    R: Send,
    F: FnMut(&mut TxnShard, i64, &mut Option<i64>) -> Result<TxnOutput<R>, NeedProducerId> + Send,
{
    fn run(
        &mut self,
        shard: &mut TxnShard,
        now_ms: i64,
        spare_id: &mut Option<i64>,
    ) -> Result<(Vec<TxnRecord>, Vec<TxnMarkerRequest>), NeedProducerId> {
        let TxnOutput { records, markers, response } = (self.op)(shard, now_ms, spare_id)?;
        self.response = Some(response);
        Ok((records, markers))
    }

    fn respond(self: Box<Self>, result: Result<(), ErrorCode>) {
        let Write { response, tx, .. } = *self;
        let answer = result.and_then(|()| response.ok_or(ErrorCode::UnknownServerError));
        let _ = tx.send(answer);
    }
}

impl TxnCoordinator {
    /// A coordinator leading no partition yet. `clock` times transactions and sweeps;
    /// `producer_ids` hands out new producer ids; `markers` writes transaction markers.
    pub fn new(
        config: TxnConfig,
        writer: Arc<dyn PartitionWriter>,
        clock: Arc<dyn Clock>,
        producer_ids: Arc<dyn ProducerIdSource>,
        markers: Arc<dyn TxnMarkerSender>,
    ) -> Self {
        let shared = TxnShared { config, writer, clock, producer_ids, markers, shards: Mutex::new(HashMap::new()) };
        TxnCoordinator { shared: Arc::new(shared) }
    }

    pub fn config(&self) -> &TxnConfig {
        &self.shared.config
    }

    pub(crate) fn producer_ids(&self) -> &dyn ProducerIdSource {
        &*self.shared.producer_ids
    }

    /// The `__transaction_state` partition that coordinates `transactional_id`.
    pub fn partition_for(&self, transactional_id: &str) -> i32 {
        super::partition_for(transactional_id, self.shared.config.transaction_state_log_partitions)
    }

    /// This node now leads `partition` at `leader_epoch` (the coordinator epoch its markers
    /// carry): load its shard. A repeated call for the epoch already led (or an older one)
    /// changes nothing; a newer epoch replaces the shard with a freshly loaded one.
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
        let task = TxnShardTask::new(Arc::clone(&self.shared), partition, leader_epoch, status_tx);
        let join = tokio::spawn(task.run(commands_rx, stop_rx));
        let handle = ShardHandle {
            leader_epoch,
            commands: commands_tx,
            status: status_rx,
            stop: Some(stop_tx),
            task: Some(join),
        };
        shards.insert(partition, handle);
        tracing::debug!(partition, leader_epoch, "loading transaction coordinator shard");
    }

    /// This node no longer leads `partition`: its shard stops (markers in flight too; the next
    /// coordinator sends them again), queued requests get NOT_COORDINATOR.
    pub fn resign(&self, partition: i32) {
        let removed = self.shared.lock_shards().remove(&partition);
        if let Some(mut handle) = removed {
            handle.stop();
            tracing::debug!(partition, "unloading transaction coordinator shard");
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

    /// Runs a write operation on `partition`'s shard and waits for its answer, released once
    /// its records are committed. `op` may run twice: again after a [`NeedProducerId`].
    pub(crate) async fn write<R: Send + 'static>(
        &self,
        partition: i32,
        op: impl FnMut(&mut TxnShard, i64, &mut Option<i64>) -> Result<TxnOutput<R>, NeedProducerId> + Send + 'static,
    ) -> Result<R, ErrorCode> {
        let (tx, rx) = oneshot::channel();
        let command = TxnCommand::Write(Box::new(Write { op, response: None, tx }));
        self.send(partition, command).await?;
        rx.await.unwrap_or(Err(ErrorCode::NotCoordinator))
    }

    /// Reads `partition`'s shard.
    pub(crate) async fn read<R: Send + 'static>(
        &self,
        partition: i32,
        op: impl FnOnce(&TxnShard, i64) -> R + Send + 'static,
    ) -> Result<R, ErrorCode> {
        let (tx, rx) = oneshot::channel();
        let command = TxnCommand::Read(Box::new(move |shard, now_ms| {
            let _ = tx.send(op(shard, now_ms));
        }));
        self.send(partition, command).await?;
        rx.await.map_err(|_| ErrorCode::NotCoordinator)
    }

    /// Queues `command` for `partition`'s shard, if it is here and loaded.
    async fn send(&self, partition: i32, command: TxnCommand) -> Result<(), ErrorCode> {
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

impl Drop for TxnCoordinator {
    fn drop(&mut self) {
        for (_, mut handle) in self.shared.lock_shards().drain() {
            handle.stop();
        }
    }
}

impl TxnShared {
    fn lock_shards(&self) -> MutexGuard<'_, HashMap<i32, ShardHandle>> {
        self.shards.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Called by a shard task that ends on its own: forgets its handle unless a newer one
    /// replaced it.
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
