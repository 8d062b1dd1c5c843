//! [`ShareCoordinator`]: the share coordinator of one node (KIP-932), owning a
//! [`ShareStateShard`] per `__share_group_state` partition this node leads and driving it on the
//! coordinator runtime ([`crate::runtime`]) under the group and transaction coordinators' rules:
//! leadership is told to it, a shard loads by replaying its partition
//! (COORDINATOR_LOAD_IN_PROGRESS meanwhile, NOT_COORDINATOR for partitions not led here), and a
//! write is answered only once its records are committed. No timers and no background work.

use std::sync::Arc;

use bytes::Bytes;
use strand_base::topic::SHARE_GROUP_STATE_TOPIC;
use strand_base::{Clock, Offset, ProducerId};
use strand_protocol::error::ErrorCode;
use tokio::sync::oneshot;

use super::PersistedState;
use super::records::{ShareKey, ShareRecord, ShareRecordError, build_batch};
use super::shard::ShareStateShard;
use crate::runtime::{Append, CoordinatorShards, ShardContext, ShardKind, ShardRegistry};
use crate::writer::{PartitionWriter, WriteError};

/// The share coordinator of one node. Cheap to share behind an `Arc`; every method takes
/// `&self`.
#[derive(Debug)]
pub struct ShareCoordinator {
    shards: ShardRegistry<ShareShell>,
}

/// A write operation with its answer's way back, its type erased.
pub(crate) trait ShareCommand: Send {
    /// Runs the operation on the shard (which replays its records), keeping the answer.
    fn run(&mut self, shard: &mut ShareStateShard, now_ms: i64) -> Vec<ShareRecord>;

    /// Sends the kept answer (`Ok`) or the failure.
    fn respond(self: Box<Self>, result: Result<(), ErrorCode>);
}

type ShareOp<R> = Box<dyn FnOnce(&mut ShareStateShard, i64) -> Result<(Vec<ShareRecord>, R), ErrorCode> + Send>;

struct Command<R> {
    op: Option<ShareOp<R>>,
    answer: Option<Result<R, ErrorCode>>,
    tx: oneshot::Sender<Result<R, ErrorCode>>,
}

impl<R: Send> ShareCommand for Command<R> {
    fn run(&mut self, shard: &mut ShareStateShard, now_ms: i64) -> Vec<ShareRecord> {
        let Some(op) = self.op.take() else { return Vec::new() };
        match op(shard, now_ms) {
            Ok((records, answer)) => {
                self.answer = Some(Ok(answer));
                records
            }
            Err(code) => {
                self.answer = Some(Err(code));
                Vec::new()
            }
        }
    }

    fn respond(self: Box<Self>, result: Result<(), ErrorCode>) {
        let Command { answer, tx, .. } = *self;
        let _ = tx.send(result.and_then(|()| answer.unwrap_or(Err(ErrorCode::UnknownServerError))));
    }
}

impl ShareCoordinator {
    /// A coordinator leading no partition yet, appending through `writer`.
    pub fn new(writer: Arc<dyn PartitionWriter>, clock: Arc<dyn Clock>) -> ShareCoordinator {
        ShareCoordinator { shards: ShardRegistry::new((), writer, clock) }
    }

    /// This coordinator's shards on this node: their leadership, status and shutdown.
    pub fn shards(&self) -> &dyn CoordinatorShards {
        &self.shards
    }

    async fn run<R: Send + 'static>(
        &self,
        partition: i32,
        op: impl FnOnce(&mut ShareStateShard, i64) -> Result<(Vec<ShareRecord>, R), ErrorCode> + Send + 'static,
    ) -> Result<R, ErrorCode> {
        let command = |tx| -> Box<dyn ShareCommand> { Box::new(Command { op: Some(Box::new(op)), answer: None, tx }) };
        self.shards.write(partition, command).await
    }

    /// InitializeShareGroupState on `partition`'s shard.
    pub async fn initialize(
        &self,
        partition: i32,
        key: ShareKey,
        state_epoch: i32,
        start_offset: i64,
    ) -> Result<(), ErrorCode> {
        self.run(partition, move |shard, now_ms| Ok((shard.initialize(&key, state_epoch, start_offset, now_ms)?, ())))
            .await
    }

    /// WriteShareGroupState on `partition`'s shard.
    pub async fn write(&self, partition: i32, key: ShareKey, state: PersistedState) -> Result<(), ErrorCode> {
        self.run(partition, move |shard, now_ms| Ok((shard.write(&key, &state, now_ms)?, ()))).await
    }

    /// ReadShareGroupState on `partition`'s shard: `None` if never initialized.
    pub async fn read(
        &self,
        partition: i32,
        key: ShareKey,
        leader_epoch: i32,
    ) -> Result<Option<PersistedState>, ErrorCode> {
        self.run(partition, move |shard, now_ms| {
            let (state, records) = shard.read(&key, leader_epoch, now_ms)?;
            Ok((records, state))
        })
        .await
    }

    /// ReadShareGroupStateSummary: the stored state, changing nothing.
    pub async fn summary(&self, partition: i32, key: ShareKey) -> Result<Option<PersistedState>, ErrorCode> {
        self.shards.read(partition, move |shard, _| shard.state(&key).cloned()).await
    }

    /// DeleteShareGroupState on `partition`'s shard.
    pub async fn delete(&self, partition: i32, key: ShareKey) -> Result<(), ErrorCode> {
        self.run(partition, move |shard, _| Ok((shard.delete(&key), ()))).await
    }
}

/// One share coordinator shard task's own part.
pub(crate) struct ShareShell {
    shard: ShareStateShard,
}

impl ShardKind for ShareShell {
    const TOPIC: &'static str = SHARE_GROUP_STATE_TOPIC;
    const NAME: &'static str = "share coordinator";

    type Shared = ();
    type Shard = ShareStateShard;
    type Write = Box<dyn ShareCommand>;
    type Record = ShareRecord;
    type RecordError = ShareRecordError;
    type Effects = Option<Box<dyn ShareCommand>>;
    type Event = std::convert::Infallible;

    fn new(_context: &ShardContext<Self>) -> Self {
        ShareShell { shard: ShareStateShard::new() }
    }

    fn reset(&mut self, _context: &ShardContext<Self>) {
        self.shard = ShareStateShard::new();
    }

    fn decode(key: Bytes, value: Option<Bytes>) -> Result<ShareRecord, ShareRecordError> {
        ShareRecord::decode(key, value)
    }

    fn is_unknown(error: &ShareRecordError) -> bool {
        error.is_unknown_version()
    }

    fn replay(&mut self, record: &ShareRecord, _producer_id: Option<ProducerId>) {
        self.shard.replay(record);
    }

    fn on_loaded(&mut self, context: &ShardContext<Self>, _now_ms: i64, next: Offset) {
        tracing::debug!(partition = %context.tp, states = self.shard.len(), next, "loaded share coordinator shard");
    }

    fn shard(&self) -> &ShareStateShard {
        &self.shard
    }

    fn next_deadline(&self) -> Option<i64> {
        None
    }

    fn on_timer(&mut self, _now_ms: i64) -> (Vec<ShareRecord>, Self::Effects) {
        (Vec::new(), None)
    }

    async fn next_event(&mut self) -> std::convert::Infallible {
        std::future::pending().await
    }

    async fn on_event(
        &mut self,
        _context: &ShardContext<Self>,
        event: std::convert::Infallible,
    ) -> Result<(), WriteError> {
        match event {}
    }

    async fn write(&mut self, context: &ShardContext<Self>, mut op: Box<dyn ShareCommand>) -> Result<(), WriteError> {
        let now_ms = context.now_ms();
        let records = op.run(&mut self.shard, now_ms);
        context.carry_out(self, records, Some(op), now_ms).await
    }

    fn encode(records: &[ShareRecord], _effects: &Self::Effects, now_ms: i64) -> Result<Append, WriteError> {
        build_batch(records, now_ms).map(Append::Plain).map_err(|e| WriteError::Other(e.to_string()))
    }

    fn release(&mut self, effects: Self::Effects) {
        if let Some(op) = effects {
            op.respond(Ok(()));
        }
    }

    fn fail(&mut self, effects: Self::Effects, error: ErrorCode) {
        if let Some(op) = effects {
            op.respond(Err(error));
        }
    }

    fn stop(&mut self) {}
}
