//! The coordinator runtime both coordinators run on, as Kafka's `CoordinatorRuntime` runs its
//! group and transaction coordinators: `ShardRegistry` (`registry`), the shards of one
//! coordinator on this node, one per partition of its internal topic that the node leads, each
//! owned by a tokio task (`shard_task`) that loads it and then serves it. The rules are the same
//! for both coordinators:
//!
//! - **Leadership** is told to it ([`CoordinatorShards`]): `become_leader` starts a shard task for
//!   the partition, which loads the shard by reading the partition from its start through the
//!   [`crate::PartitionWriter`] (`load`) and replaying every record; `resign` stops it.
//!   Meanwhile requests for the partition get COORDINATOR_LOAD_IN_PROGRESS; requests for a
//!   partition not led here get NOT_COORDINATOR.
//! - **One operation at a time per shard**: the task takes a command, lets the shard compute its
//!   records and answer on the current state (the shard replays the records as it goes), appends
//!   the records as one batch, and releases the answer and the operation's other effects only
//!   once the batch is committed. The next operation starts after that, so every operation,
//!   reads included, sees only committed state.
//! - **A failed append** leaves the shard ahead of its log. The task then fails the operation's
//!   effects with the error Kafka gives (`WriteError::response_error`) and reloads the shard from
//!   the log (or stops, if leadership was lost): the log is the truth, and a reload is the same
//!   replay as a restart.
//! - **Timers** live in the shard as deadlines read from the [`strand_base::Clock`]; the task
//!   sleeps until the earliest and then runs the shard's `on_timer`, whose records are appended
//!   like any operation's.
//!
//! What differs between the coordinators is a `ShardKind`: the shard, its record format, its
//! write commands and their effects, and one more thing to wait for besides commands and timers.
//! The group coordinator's (`group/shell.rs`) parks JoinGroup and SyncGroup, follows the
//! topic metadata and writes transaction markers and transactional batches into
//! `__consumer_offsets`; the transaction coordinator's (`txn/shell.rs`) sends markers in
//! the background and draws producer ids between two runs of an operation.
//!
//! This module is the shell around deterministic shards: it alone (with the kinds' methods it
//! calls) awaits I/O, sleeps and spawns, so `become_leader` must be called within a tokio
//! runtime. It knows no request and no record format.

pub(crate) mod load;
mod registry;
mod shard_task;

use std::fmt::Debug;
use std::future::Future;

use bytes::Bytes;
use strand_base::{LeaderEpoch, Offset, ProducerId};
use strand_protocol::error::ErrorCode;
use strand_protocol::records::{RecordBatch, RecordsError};

use crate::writer::{BoxFuture, VerificationToken, WriteError};

pub(crate) use registry::ShardRegistry;
pub(crate) use shard_task::ShardContext;

/// One coordinator's shards on this node, whichever coordinator runs them: the leadership of its
/// internal topic's partitions (which the metadata publisher tells it), where each partition's
/// shard stands, and their shutdown. `GroupCoordinator::shards` and `TxnCoordinator::shards`
/// hand it out; the registry implements it for both.
pub trait CoordinatorShards: Send + Sync {
    /// This node now leads `partition` at `leader_epoch` (for the transaction coordinator, the
    /// coordinator epoch its markers carry): load its shard, then serve it. A repeated call for
    /// the epoch already led (or an older one) changes nothing; a newer epoch replaces the shard
    /// with a freshly loaded one. Call it within a tokio runtime.
    fn become_leader(&self, partition: i32, leader_epoch: LeaderEpoch);

    /// This node no longer leads `partition`: its shard stops (the transaction coordinator's
    /// markers in flight too: the next coordinator sends them again), and whatever waits on it
    /// gets NOT_COORDINATOR.
    fn resign(&self, partition: i32);

    /// Where `partition`'s shard stands.
    fn status(&self, partition: i32) -> ShardStatus;

    /// Resolves once `partition`'s shard is Active (true) or not led here (false).
    fn wait_active(&self, partition: i32) -> BoxFuture<'_, bool>;

    /// The partitions whose shards are on this node, in any status.
    fn partitions(&self) -> Vec<i32>;

    /// Stops every shard (marker deliveries included) and waits for their tasks to end.
    fn shutdown(&self) -> BoxFuture<'_, ()>;
}

/// Requests queued for one shard before senders wait.
pub const SHARD_COMMANDS_MAX: usize = 1024;

/// Bytes read per step while loading a shard.
pub const LOAD_READ_BYTES_MAX: usize = 1024 * 1024;

/// Where a partition's shard stands on this node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardStatus {
    /// This node does not lead the partition (or its shard failed): NOT_COORDINATOR.
    NotLed,
    /// Replaying the partition: COORDINATOR_LOAD_IN_PROGRESS.
    Loading,
    /// Serving requests.
    Active,
}

/// What one coordinator adds to the runtime. A value is one shard task's own part: the
/// deterministic shard and what the coordinator keeps beside it (parked requests, marker
/// deliveries). The task owns it and calls it one step at a time; only the futures its methods
/// return await.
pub(crate) trait ShardKind: Sized + Send + 'static {
    /// The internal topic whose partitions hold the shards.
    const TOPIC: &'static str;
    /// The coordinator as logs name it.
    const NAME: &'static str;

    /// What all shards of the node share besides the writer and the clock: configuration and
    /// the sources of ids.
    type Shared: Debug + Send + Sync + 'static;
    /// The deterministic state machine, which reads are given.
    type Shard;
    /// A command that may change the shard, with its answer's way back.
    type Write: Send + 'static;
    /// A record of the partition, decoded.
    type Record: Send;
    /// Why a record could not be decoded.
    type RecordError: std::error::Error + Send + Sync + 'static;
    /// What an operation leaves besides its records: answers and work to release once the
    /// records are committed, or to fail if they are not.
    type Effects: Send;
    /// What the task waits for besides commands, its timer and its stop.
    type Event: Send;

    /// The task's part for `context`'s partition, before its first load.
    fn new(context: &ShardContext<Self>) -> Self;

    /// Starts over from an empty shard, before each load; what was in flight is dropped.
    fn reset(&mut self, context: &ShardContext<Self>);

    fn decode(key: Bytes, value: Option<Bytes>) -> Result<Self::Record, Self::RecordError>;

    /// A record that a newer build wrote: skipped rather than failing the load.
    fn is_unknown(error: &Self::RecordError) -> bool;

    /// Replays a control batch (a transaction marker); a kind whose partitions hold none skips
    /// it unread.
    fn replay_control(&mut self, _batch: &RecordBatch) -> Result<(), RecordsError> {
        Ok(())
    }

    /// Replays one record of a data batch, the batch of `producer_id`'s transaction if it is
    /// transactional.
    fn replay(&mut self, record: &Self::Record, producer_id: Option<ProducerId>);

    /// The partition is replayed up to `next`: the shard starts its timers and resumes what the
    /// log left unfinished.
    fn on_loaded(&mut self, context: &ShardContext<Self>, now_ms: i64, next: Offset);

    fn shard(&self) -> &Self::Shard;

    /// When the shard's earliest timer fires, as the clock reads.
    fn next_deadline(&self) -> Option<i64>;

    /// Runs the timers due at `now_ms`: their records and effects, carried out like an
    /// operation's.
    fn on_timer(&mut self, now_ms: i64) -> (Vec<Self::Record>, Self::Effects);

    /// The next event; pending forever if none can come.
    fn next_event(&mut self) -> impl Future<Output = Self::Event> + Send;

    /// Handles an event. An `Err` is a failed append: the task reloads or stops.
    fn on_event(
        &mut self,
        context: &ShardContext<Self>,
        event: Self::Event,
    ) -> impl Future<Output = Result<(), WriteError>> + Send;

    /// Runs a write command, usually through [`ShardContext::carry_out`]. An `Err` is a failed
    /// append: the task reloads or stops.
    fn write(
        &mut self,
        context: &ShardContext<Self>,
        write: Self::Write,
    ) -> impl Future<Output = Result<(), WriteError>> + Send;

    /// An operation's records (never empty) as the one batch to append, at `now_ms`.
    fn encode(records: &[Self::Record], effects: &Self::Effects, now_ms: i64) -> Result<Append, WriteError>;

    /// The records are committed: release the answers, start the work.
    fn release(&mut self, effects: Self::Effects);

    /// The records were not appended: answer with `error`.
    fn fail(&mut self, effects: Self::Effects, error: ErrorCode);

    /// The task ends: drop what waits on the shard, so that its callers answer NOT_COORDINATOR.
    fn stop(&mut self);
}

/// A request for a shard task.
enum Command<K: ShardKind> {
    /// Reads the shard, given a clock reading; answers at once.
    Read(ReadOp<K::Shard>),
    /// May change the shard; answered once its records are committed.
    Write(K::Write),
}

/// A read of a shard, given a clock reading, that sends its own answer.
type ReadOp<S> = Box<dyn FnOnce(&S, i64) + Send>;

/// An operation's records as one encoded batch, and how it is appended.
#[derive(Debug)]
pub(crate) enum Append {
    /// A batch without a producer: the coordinator's own records.
    Plain(Bytes),
    /// A producer's transactional batch, presenting the token its KIP-890 verification returned.
    Transactional(Bytes, VerificationToken),
}
