//! [`TxnShell`]: the transaction coordinator's part of a shard task ([`crate::runtime`] runs the
//! task): the [`TxnShard`] and its marker deliveries, which run as child tasks of the shard's,
//! concurrently with its operations, and report back when every partition is done. Operations
//! that need a new producer id get one here, between two runs.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use strand_base::topic::TRANSACTION_STATE_TOPIC;
use strand_base::{Offset, ProducerId};
use strand_protocol::error::ErrorCode;
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};

use super::coordinator::{MARKER_REPORTS_MAX, MARKER_RETRY_BACKOFF, TxnShared, WriteCommand};
use super::markers::{MarkerStep, TxnMarkerRequest, TxnMarkerSender};
use super::records::{TxnRecord, TxnRecordError, build_batch};
use super::shard::TxnShard;
use crate::runtime::{Append, ShardContext, ShardKind};
use crate::writer::WriteError;

/// One transaction shard task's own part.
pub(crate) struct TxnShell {
    shard: TxnShard,
    markers: Arc<dyn TxnMarkerSender>,
    /// Marker deliveries in flight, by transactional id; aborted on reload and stop.
    deliveries: JoinSet<()>,
    in_flight: HashMap<String, AbortHandle>,
    /// Deliveries report here once every partition is done.
    delivered_tx: mpsc::Sender<TxnMarkerRequest>,
    delivered_rx: mpsc::Receiver<TxnMarkerRequest>,
}

/// What a transaction shard task waits for besides commands and sweeps.
pub(crate) enum TxnEvent {
    /// Every partition of the transaction has its marker.
    Delivered(TxnMarkerRequest),
    /// A delivery task ended (delivered, given up or aborted).
    Ended,
}

/// What a transaction operation leaves besides its records, released once they are committed.
pub(crate) struct TxnEffects {
    /// Transactions whose markers are to be sent.
    markers: Vec<TxnMarkerRequest>,
    /// The client's operation, holding its answer.
    respond: Option<Box<dyn WriteCommand>>,
}

impl ShardKind for TxnShell {
    const TOPIC: &'static str = TRANSACTION_STATE_TOPIC;
    const NAME: &'static str = "transaction coordinator";

    type Shared = TxnShared;
    type Shard = TxnShard;
    type Write = Box<dyn WriteCommand>;
    type Record = TxnRecord;
    type RecordError = TxnRecordError;
    type Effects = TxnEffects;
    type Event = TxnEvent;

    fn new(context: &ShardContext<Self>) -> Self {
        let shared = context.shared();
        // One report per delivery at most, and a delivery waits rather than drops its report.
        let (delivered_tx, delivered_rx) = mpsc::channel(MARKER_REPORTS_MAX);
        TxnShell {
            shard: TxnShard::new(shared.config.clone(), context.leader_epoch),
            markers: Arc::clone(&shared.markers),
            deliveries: JoinSet::new(),
            in_flight: HashMap::new(),
            delivered_tx,
            delivered_rx,
        }
    }

    fn reset(&mut self, context: &ShardContext<Self>) {
        self.stop_deliveries();
        self.shard = TxnShard::new(context.shared().config.clone(), context.leader_epoch);
    }

    fn decode(key: Bytes, value: Option<Bytes>) -> Result<TxnRecord, TxnRecordError> {
        TxnRecord::decode(key, value)
    }

    fn is_unknown(error: &TxnRecordError) -> bool {
        error.is_unknown_version()
    }

    /// Every batch of `__transaction_state` is the coordinator's own: none is transactional.
    fn replay(&mut self, record: &TxnRecord, _producer_id: Option<ProducerId>) {
        self.shard.replay(record);
    }

    /// Sends again the markers of every transaction left prepared.
    fn on_loaded(&mut self, context: &ShardContext<Self>, now_ms: i64, next: Offset) {
        let pending = self.shard.on_loaded(now_ms);
        let ids = self.shard.transactions().count();
        if ids > 0 {
            tracing::info!(partition = %context.tp, ids, prepared = pending.len(), next, "loaded transaction coordinator shard");
        } else {
            tracing::debug!(partition = %context.tp, next, "loaded empty transaction coordinator shard");
        }
        for request in pending {
            self.deliver(request);
        }
    }

    fn shard(&self) -> &TxnShard {
        &self.shard
    }

    fn next_deadline(&self) -> Option<i64> {
        self.shard.next_deadline()
    }

    fn on_timer(&mut self, now_ms: i64) -> (Vec<TxnRecord>, TxnEffects) {
        let output = self.shard.on_timer(now_ms);
        (output.records, TxnEffects { markers: output.markers, respond: None })
    }

    async fn next_event(&mut self) -> TxnEvent {
        tokio::select! {
            biased;
            Some(delivered) = self.delivered_rx.recv() => TxnEvent::Delivered(delivered),
            Some(()) = join_next(&mut self.deliveries) => TxnEvent::Ended,
            else => std::future::pending().await,
        }
    }

    /// A delivered transaction is completed: CompleteCommit/CompleteAbort.
    async fn on_event(&mut self, context: &ShardContext<Self>, event: TxnEvent) -> Result<(), WriteError> {
        let TxnEvent::Delivered(delivered) = event else {
            return Ok(());
        };
        self.in_flight.remove(&delivered.transactional_id);
        let now_ms = context.now_ms();
        let TxnMarkerRequest { transactional_id, producer_id, producer_epoch, result, .. } = delivered;
        let output = self.shard.complete_transaction(now_ms, &transactional_id, producer_id, producer_epoch, result);
        context.carry_out(self, output.records, TxnEffects { markers: output.markers, respond: None }, now_ms).await
    }

    /// Runs a client's operation, drawing a producer id first if it needs one.
    async fn write(&mut self, context: &ShardContext<Self>, mut op: Box<dyn WriteCommand>) -> Result<(), WriteError> {
        let mut spare_id = None;
        let mut now_ms = context.now_ms();
        let (records, markers) = loop {
            match op.run(&mut self.shard, now_ms, &mut spare_id) {
                Ok(done) => break done,
                Err(_need) => match context.shared().producer_ids.next_producer_id().await {
                    Ok(id) => {
                        spare_id = Some(id);
                        now_ms = context.now_ms();
                    }
                    Err(error) => {
                        op.respond(Err(error));
                        return Ok(());
                    }
                },
            }
        };
        context.carry_out(self, records, TxnEffects { markers, respond: Some(op) }, now_ms).await
    }

    fn encode(records: &[TxnRecord], _effects: &TxnEffects, now_ms: i64) -> Result<Append, WriteError> {
        build_batch(records, now_ms).map(Append::Plain).map_err(|e| WriteError::Other(e.to_string()))
    }

    /// Answers, then starts the markers.
    fn release(&mut self, effects: TxnEffects) {
        if let Some(respond) = effects.respond {
            respond.respond(Ok(()));
        }
        for request in effects.markers {
            self.deliver(request);
        }
    }

    fn fail(&mut self, effects: TxnEffects, error: ErrorCode) {
        if let Some(respond) = effects.respond {
            respond.respond(Err(error));
        }
    }

    fn stop(&mut self) {
        self.stop_deliveries();
    }
}

impl TxnShell {
    /// Starts delivering a prepared transaction's markers (replacing an older delivery for the
    /// same id, which a newer decision supersedes).
    fn deliver(&mut self, request: TxnMarkerRequest) {
        if let Some(previous) = self.in_flight.remove(&request.transactional_id) {
            previous.abort();
        }
        let id = request.transactional_id.clone();
        let sender = Arc::clone(&self.markers);
        let report = self.delivered_tx.clone();
        let handle = self.deliveries.spawn(deliver_markers(sender, request, report));
        self.in_flight.insert(id, handle);
    }

    fn stop_deliveries(&mut self) {
        self.deliveries.abort_all();
        self.in_flight.clear();
        while self.delivered_rx.try_recv().is_ok() {}
    }
}

/// The next finished delivery, or never while none runs.
async fn join_next(deliveries: &mut JoinSet<()>) -> Option<()> {
    if deliveries.is_empty() {
        return std::future::pending().await;
    }
    deliveries.join_next().await.map(|_| ())
}

/// Sends `request`'s markers until every partition is written or gone, then reports the
/// request; gives up without reporting if the coordinator or the producer epoch was fenced.
async fn deliver_markers(
    sender: Arc<dyn TxnMarkerSender>,
    request: TxnMarkerRequest,
    report: mpsc::Sender<TxnMarkerRequest>,
) {
    let mut remaining = request.partitions.clone();
    while !remaining.is_empty() {
        let attempt = TxnMarkerRequest { partitions: remaining.clone(), ..request.clone() };
        let outcomes = sender.send(attempt).await;
        let mut retry = Vec::new();
        for tp in remaining {
            let outcome = outcomes.iter().find(|(p, _)| *p == tp).map(|(_, o)| *o);
            match outcome.map_or(MarkerStep::Retry, |o| o.step()) {
                MarkerStep::Done => {}
                MarkerStep::Retry => retry.push(tp),
                MarkerStep::GiveUp => {
                    tracing::warn!(
                        transactional_id = %request.transactional_id, partition = %tp, ?outcome,
                        "a newer coordinator or producer epoch exists; leaving the transaction's markers to it"
                    );
                    return;
                }
            }
        }
        remaining = retry;
        if !remaining.is_empty() {
            tracing::debug!(transactional_id = %request.transactional_id, partitions = remaining.len(), "resending markers");
            tokio::time::sleep(MARKER_RETRY_BACKOFF).await;
        }
    }
    let _ = report.send(request).await;
}
