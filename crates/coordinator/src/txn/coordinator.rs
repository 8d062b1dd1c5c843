//! [`TxnCoordinator`]: the transaction coordinator of one node, owning a [`TxnShard`] per
//! `__transaction_state` partition this node leads and driving it on the coordinator runtime
//! ([`crate::runtime`]), as the group [`crate::GroupCoordinator`] drives its shards and under the
//! same rules: leadership is told to it, a shard loads by replaying its partition
//! (COORDINATOR_LOAD_IN_PROGRESS meanwhile, NOT_COORDINATOR for partitions not led here), one
//! operation at a time is answered only once its records are committed, and a failed append
//! reloads the shard from the log (or stops it, if leadership was lost). What the transaction
//! coordinator adds:
//!
//! - **Markers** are sent by tasks of the shard, concurrently with its operations, through the
//!   [`TxnMarkerSender`], partitions that failed resent every [`MARKER_RETRY_BACKOFF`] until each
//!   is written or gone; then the shard writes CompleteCommit/CompleteAbort. A loaded shard
//!   sends again the markers of every transaction it finds prepared.
//! - **Sweeps** (timed-out transactions, expired ids) are the shard's timers.
//! - **Producer ids** come from the [`ProducerIdSource`] when an operation asks for one; the
//!   operation then runs again with it.
//!
//! `super::shell` is the transaction coordinator's part of each shard task; [`super::api`] takes
//! the generated requests at their versions.

use std::sync::Arc;
use std::time::Duration;

use strand_base::Clock;
use strand_protocol::error::ErrorCode;
use tokio::sync::oneshot;

use super::config::TxnConfig;
use super::markers::{TxnMarkerRequest, TxnMarkerSender};
use super::producer_id::{NeedProducerId, ProducerIdSource};
use super::records::TxnRecord;
use super::shard::{TxnOutput, TxnShard};
use super::shell::TxnShell;
use crate::runtime::{CoordinatorShards, ShardRegistry};
use crate::writer::PartitionWriter;

/// How long a shard waits before resending the markers that failed.
pub const MARKER_RETRY_BACKOFF: Duration = Duration::from_millis(100);

/// Finished marker deliveries queued for a shard before the deliveries wait.
pub const MARKER_REPORTS_MAX: usize = 256;

/// The transaction coordinator of one node. Cheap to share behind an `Arc`; every method takes
/// `&self`.
#[derive(Debug)]
pub struct TxnCoordinator {
    pub(super) shards: ShardRegistry<TxnShell>,
}

/// What every transaction shard of the node shares besides the writer and the clock.
#[derive(Debug)]
pub(crate) struct TxnShared {
    pub(crate) config: TxnConfig,
    pub(crate) producer_ids: Arc<dyn ProducerIdSource>,
    pub(crate) markers: Arc<dyn TxnMarkerSender>,
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
        let shared = TxnShared { config, producer_ids, markers };
        TxnCoordinator { shards: ShardRegistry::new(shared, writer, clock) }
    }

    pub fn config(&self) -> &TxnConfig {
        &self.shards.shared().config
    }

    pub(crate) fn producer_ids(&self) -> &dyn ProducerIdSource {
        &*self.shards.shared().producer_ids
    }

    /// The `__transaction_state` partition that coordinates `transactional_id`.
    pub fn partition_for(&self, transactional_id: &str) -> i32 {
        super::partition_for(transactional_id, self.config().transaction_state_log_partitions)
    }

    /// This coordinator's shards on this node: their leadership, status and shutdown.
    pub fn shards(&self) -> &dyn CoordinatorShards {
        &self.shards
    }

    /// Runs a write operation on `partition`'s shard and waits for its answer, released once
    /// its records are committed. `op` may run twice: again after a [`NeedProducerId`].
    pub(crate) async fn write<R: Send + 'static>(
        &self,
        partition: i32,
        op: impl FnMut(&mut TxnShard, i64, &mut Option<i64>) -> Result<TxnOutput<R>, NeedProducerId> + Send + 'static,
    ) -> Result<R, ErrorCode> {
        let write = |tx| -> Box<dyn WriteCommand> { Box::new(Write { op, response: None, tx }) };
        self.shards.write(partition, write).await
    }
}
