//! [`ShardRegistry`]: the shards of one coordinator on this node, by partition, and the
//! leadership bookkeeping around their tasks (start, stop, status: [`CoordinatorShards`]; requests
//! queued to them). What
//! a shard does is its task's ([`super::shard_task`]) and its kind's; this file only keeps the
//! handles.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use strand_base::{Clock, LeaderEpoch};
use strand_protocol::error::ErrorCode;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::shard_task::ShardTask;
use super::{Command, CoordinatorShards, SHARD_COMMANDS_MAX, ShardKind, ShardStatus};
use crate::writer::{BoxFuture, PartitionWriter};

/// The shards of one coordinator. Owned by the coordinator; dropping it stops every shard. Every
/// method takes `&self`.
pub(crate) struct ShardRegistry<K: ShardKind> {
    runtime: Arc<Runtime<K>>,
}

/// What a coordinator's shard tasks share with it: handles to each other's tasks are kept here,
/// so that a task ending on its own can forget its handle.
pub(super) struct Runtime<K: ShardKind> {
    pub(super) shared: K::Shared,
    pub(super) writer: Arc<dyn PartitionWriter>,
    pub(super) clock: Arc<dyn Clock>,
    handles: Mutex<HashMap<i32, ShardHandle<K>>>,
}

/// The runtime's side of a shard task.
struct ShardHandle<K: ShardKind> {
    leader_epoch: LeaderEpoch,
    commands: mpsc::Sender<Command<K>>,
    status: watch::Receiver<ShardStatus>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl<K: ShardKind> ShardRegistry<K> {
    /// No shard yet. `clock` times the shards' operations and timers.
    pub(crate) fn new(shared: K::Shared, writer: Arc<dyn PartitionWriter>, clock: Arc<dyn Clock>) -> Self {
        let runtime = Runtime { shared, writer, clock, handles: Mutex::new(HashMap::new()) };
        ShardRegistry { runtime: Arc::new(runtime) }
    }

    pub(crate) fn shared(&self) -> &K::Shared {
        &self.runtime.shared
    }

    pub(crate) fn writer(&self) -> &dyn PartitionWriter {
        &*self.runtime.writer
    }

    /// Reads `partition`'s shard, given a clock reading.
    pub(crate) async fn read<R: Send + 'static>(
        &self,
        partition: i32,
        op: impl FnOnce(&K::Shard, i64) -> R + Send + 'static,
    ) -> Result<R, ErrorCode> {
        let read = |tx: oneshot::Sender<Result<R, ErrorCode>>| {
            Command::Read(Box::new(move |shard, now_ms| {
                let _ = tx.send(Ok(op(shard, now_ms)));
            }))
        };
        self.ask(partition, read).await
    }

    /// Queues the write `command` builds around its answer's way back, and waits for the answer;
    /// NOT_COORDINATOR if the shard stops before answering.
    pub(crate) async fn write<R>(
        &self,
        partition: i32,
        command: impl FnOnce(oneshot::Sender<Result<R, ErrorCode>>) -> K::Write,
    ) -> Result<R, ErrorCode> {
        self.ask(partition, |tx| Command::Write(command(tx))).await
    }

    async fn ask<R>(
        &self,
        partition: i32,
        command: impl FnOnce(oneshot::Sender<Result<R, ErrorCode>>) -> Command<K>,
    ) -> Result<R, ErrorCode> {
        let (tx, rx) = oneshot::channel();
        self.send(partition, command(tx)).await?;
        rx.await.unwrap_or(Err(ErrorCode::NotCoordinator))
    }

    /// Queues `command` for `partition`'s shard, if it is here and loaded.
    async fn send(&self, partition: i32, command: Command<K>) -> Result<(), ErrorCode> {
        let commands = {
            let handles = self.runtime.lock_handles();
            let handle = handles.get(&partition).ok_or(ErrorCode::NotCoordinator)?;
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

impl<K: ShardKind> CoordinatorShards for ShardRegistry<K> {
    /// Starts a task that loads the shard (replacing one of an older epoch, or one that ended).
    fn become_leader(&self, partition: i32, leader_epoch: LeaderEpoch) {
        let mut handles = self.runtime.lock_handles();
        if let Some(existing) = handles.get_mut(&partition) {
            if existing.leader_epoch >= leader_epoch && *existing.status.borrow() != ShardStatus::NotLed {
                return;
            }
            existing.stop();
        }
        let (commands_tx, commands_rx) = mpsc::channel(SHARD_COMMANDS_MAX);
        let (status_tx, status_rx) = watch::channel(ShardStatus::Loading);
        let (stop_tx, stop_rx) = oneshot::channel();
        let task = ShardTask::new(Arc::clone(&self.runtime), partition, leader_epoch, status_tx);
        let join = tokio::spawn(task.run(commands_rx, stop_rx));
        let handle = ShardHandle {
            leader_epoch,
            commands: commands_tx,
            status: status_rx,
            stop: Some(stop_tx),
            task: Some(join),
        };
        handles.insert(partition, handle);
        tracing::debug!(partition, leader_epoch, "loading {} shard", K::NAME);
    }

    fn resign(&self, partition: i32) {
        let removed = self.runtime.lock_handles().remove(&partition);
        if let Some(mut handle) = removed {
            handle.stop();
            tracing::debug!(partition, "unloading {} shard", K::NAME);
        }
    }

    fn status(&self, partition: i32) -> ShardStatus {
        self.runtime.lock_handles().get(&partition).map_or(ShardStatus::NotLed, |h| *h.status.borrow())
    }

    fn wait_active(&self, partition: i32) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            let status = self.runtime.lock_handles().get(&partition).map(|h| h.status.clone());
            let Some(mut status) = status else {
                return false;
            };
            match status.wait_for(|s| *s != ShardStatus::Loading).await {
                Ok(s) => *s == ShardStatus::Active,
                Err(_) => false,
            }
        })
    }

    fn partitions(&self) -> Vec<i32> {
        let mut partitions: Vec<i32> = self.runtime.lock_handles().keys().copied().collect();
        partitions.sort_unstable();
        partitions
    }

    fn shutdown(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let handles: Vec<ShardHandle<K>> = self.runtime.lock_handles().drain().map(|(_, h)| h).collect();
            for mut handle in handles {
                handle.stop();
                if let Some(task) = handle.task.take() {
                    let _ = task.await;
                }
            }
        })
    }
}

impl<K: ShardKind> Drop for ShardRegistry<K> {
    fn drop(&mut self) {
        for (_, mut handle) in self.runtime.lock_handles().drain() {
            handle.stop();
        }
    }
}

impl<K: ShardKind> std::fmt::Debug for ShardRegistry<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardRegistry")
            .field("shared", &self.runtime.shared)
            .field("writer", &self.runtime.writer)
            .finish_non_exhaustive()
    }
}

impl<K: ShardKind> Runtime<K> {
    fn lock_handles(&self) -> MutexGuard<'_, HashMap<i32, ShardHandle<K>>> {
        self.handles.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Called by a shard task that ends on its own (lost leadership, failed load): forgets its
    /// handle unless a newer one replaced it.
    pub(super) fn forget(&self, partition: i32, leader_epoch: LeaderEpoch) {
        let mut handles = self.lock_handles();
        if handles.get(&partition).is_some_and(|h| h.leader_epoch == leader_epoch) {
            handles.remove(&partition);
        }
    }
}

impl<K: ShardKind> ShardHandle<K> {
    fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
