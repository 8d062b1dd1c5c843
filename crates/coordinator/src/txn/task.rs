//! One transaction shard's task: load the partition, then serve requests, sweeps and finished
//! markers one at a time, appending each operation's records and releasing its answer and
//! markers once they are committed. Marker deliveries run as child tasks of this one.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use strand_base::{LeaderEpoch, TopicPartition};
use strand_protocol::records::{RecordBatch, RecordsError};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::{AbortHandle, JoinSet};

use super::markers::{MarkerStep, TxnMarkerRequest, TxnMarkerSender};
use super::records::{TxnRecord, TxnRecordError, build_batch};
use super::runtime::{MARKER_RETRY_BACKOFF, TRANSACTION_STATE_TOPIC, TxnCommand, TxnShared, WriteCommand};
use super::shard::TxnShard;
use crate::runtime::load::read_partition;
use crate::runtime::{ShardStatus, sleep_for};
use crate::writer::WriteError;

/// Why loading a shard failed.
#[derive(Debug, thiserror::Error)]
enum LoadError {
    #[error("reading the partition: {0}")]
    Write(#[from] WriteError),
    #[error("a batch of the partition is unreadable: {0}")]
    Records(#[from] RecordsError),
    #[error("a record of the partition is unreadable: {0}")]
    Record(#[from] TxnRecordError),
}

/// How the serving loop ended.
enum Next {
    Reload,
    Stop,
}

/// The task owning one transaction shard.
pub(crate) struct TxnShardTask {
    shared: Arc<TxnShared>,
    tp: TopicPartition,
    leader_epoch: LeaderEpoch,
    shard: TxnShard,
    status: watch::Sender<ShardStatus>,
    /// Marker deliveries in flight, by transactional id; aborted on reload and stop.
    deliveries: JoinSet<()>,
    in_flight: HashMap<String, AbortHandle>,
    /// Deliveries report here once every partition is done.
    delivered_tx: mpsc::Sender<TxnMarkerRequest>,
    delivered_rx: mpsc::Receiver<TxnMarkerRequest>,
}

impl TxnShardTask {
    pub(crate) fn new(
        shared: Arc<TxnShared>,
        partition: i32,
        leader_epoch: LeaderEpoch,
        status: watch::Sender<ShardStatus>,
    ) -> Self {
        let shard = TxnShard::new(shared.config.clone(), leader_epoch);
        // One report per delivery at most, and a delivery waits rather than drops its report.
        let (delivered_tx, delivered_rx) = mpsc::channel(super::runtime::MARKER_REPORTS_MAX);
        TxnShardTask {
            shared,
            tp: TopicPartition::new(TRANSACTION_STATE_TOPIC, partition),
            leader_epoch,
            shard,
            status,
            deliveries: JoinSet::new(),
            in_flight: HashMap::new(),
            delivered_tx,
            delivered_rx,
        }
    }

    pub(crate) async fn run(mut self, mut commands: mpsc::Receiver<TxnCommand>, mut stop: oneshot::Receiver<()>) {
        loop {
            self.status.send_replace(ShardStatus::Loading);
            let loaded = tokio::select! {
                biased;
                _ = &mut stop => break,
                loaded = self.load() => loaded,
            };
            if let Err(error) = loaded {
                tracing::error!(partition = %self.tp, %error, "could not load the transaction coordinator shard");
                break;
            }
            self.status.send_replace(ShardStatus::Active);
            match self.serve(&mut commands, &mut stop).await {
                Next::Reload => continue,
                Next::Stop => break,
            }
        }
        self.status.send_replace(ShardStatus::NotLed);
        self.stop_deliveries();
        commands.close();
        self.shared.forget(self.tp.partition, self.leader_epoch);
    }

    /// Replays the partition into a fresh shard, then resends the markers of every transaction
    /// left prepared.
    async fn load(&mut self) -> Result<(), LoadError> {
        self.stop_deliveries();
        self.shard = TxnShard::new(self.shared.config.clone(), self.leader_epoch);
        let writer = Arc::clone(&self.shared.writer);
        let tp = self.tp.clone();
        let next = read_partition(&*writer, &tp, |batch| self.replay_batch(batch)).await?;
        let now_ms = self.shared.clock.now_ms();
        let pending = self.shard.on_loaded(now_ms);
        let ids = self.shard.transactions().count();
        if ids > 0 {
            tracing::info!(partition = %self.tp, ids, prepared = pending.len(), next, "loaded transaction coordinator shard");
        } else {
            tracing::debug!(partition = %self.tp, next, "loaded empty transaction coordinator shard");
        }
        for request in pending {
            self.deliver(request);
        }
        Ok(())
    }

    fn replay_batch(&mut self, batch: &RecordBatch) -> Result<(), LoadError> {
        if batch.attributes().is_control() {
            return Ok(());
        }
        for record in batch.records()?.iter() {
            let record = record?;
            let Some(key) = record.key() else {
                tracing::warn!(partition = %self.tp, "skipping a record without a key");
                continue;
            };
            let key = Bytes::copy_from_slice(key);
            let value = record.value().map(Bytes::copy_from_slice);
            match TxnRecord::decode(key, value) {
                Ok(record) => self.shard.replay(&record),
                Err(error) if error.is_unknown_version() => {
                    tracing::warn!(partition = %self.tp, %error, "skipping a record this build does not know");
                }
                Err(error) => return Err(error.into()),
            }
        }
        Ok(())
    }

    async fn serve(&mut self, commands: &mut mpsc::Receiver<TxnCommand>, stop: &mut oneshot::Receiver<()>) -> Next {
        loop {
            let sleep = self.time_to_next_deadline();
            let step = tokio::select! {
                biased;
                _ = &mut *stop => return Next::Stop,
                Some(delivered) = self.delivered_rx.recv() => {
                    self.in_flight.remove(&delivered.transactional_id);
                    let now_ms = self.shared.clock.now_ms();
                    let TxnMarkerRequest { transactional_id, producer_id, producer_epoch, result, .. } = delivered;
                    let output = self.shard.complete_transaction(now_ms, &transactional_id, producer_id, producer_epoch, result);
                    self.carry_out(output.records, output.markers, None, now_ms).await
                }
                Some(()) = join_next(&mut self.deliveries) => Ok(()),
                _ = sleep_for(sleep) => {
                    let now_ms = self.shared.clock.now_ms();
                    let output = self.shard.on_timer(now_ms);
                    self.carry_out(output.records, output.markers, None, now_ms).await
                }
                command = commands.recv() => match command {
                    None => return Next::Stop,
                    Some(TxnCommand::Read(op)) => {
                        op(&self.shard, self.shared.clock.now_ms());
                        Ok(())
                    }
                    Some(TxnCommand::Write(op)) => self.write(op).await,
                },
            };
            if let Err(error) = step {
                return if error.lost_leadership() { Next::Stop } else { Next::Reload };
            }
        }
    }

    /// Runs a client's operation, drawing a producer id first if it needs one.
    async fn write(&mut self, mut op: Box<dyn WriteCommand>) -> Result<(), WriteError> {
        let mut spare_id = None;
        let mut now_ms = self.shared.clock.now_ms();
        let (records, markers) = loop {
            match op.run(&mut self.shard, now_ms, &mut spare_id) {
                Ok(done) => break done,
                Err(_need) => match self.shared.producer_ids.next_producer_id().await {
                    Ok(id) => {
                        spare_id = Some(id);
                        now_ms = self.shared.clock.now_ms();
                    }
                    Err(error) => {
                        op.respond(Err(error));
                        return Ok(());
                    }
                },
            }
        };
        self.carry_out(records, markers, Some(op), now_ms).await
    }

    fn time_to_next_deadline(&self) -> Option<Duration> {
        let deadline = self.shard.next_deadline()?;
        let wait_ms = deadline.saturating_sub(self.shared.clock.now_ms()).max(0);
        Some(Duration::from_millis(u64::try_from(wait_ms).unwrap_or(0)))
    }

    /// Appends records, then releases the answer and starts the markers; on failure answers
    /// with the error Kafka gives and leaves the shard to be reloaded.
    async fn carry_out(
        &mut self,
        records: Vec<TxnRecord>,
        markers: Vec<TxnMarkerRequest>,
        respond: Option<Box<dyn WriteCommand>>,
        now_ms: i64,
    ) -> Result<(), WriteError> {
        let appended = if records.is_empty() { Ok(()) } else { self.append(&records, now_ms).await };
        match appended {
            Ok(()) => {
                if let Some(respond) = respond {
                    respond.respond(Ok(()));
                }
                for request in markers {
                    self.deliver(request);
                }
                Ok(())
            }
            Err(error) => {
                tracing::warn!(partition = %self.tp, %error, "could not append transaction coordinator records; reloading");
                if let Some(respond) = respond {
                    respond.respond(Err(error.response_error()));
                }
                Err(error)
            }
        }
    }

    async fn append(&self, records: &[TxnRecord], now_ms: i64) -> Result<(), WriteError> {
        let batch = build_batch(records, now_ms).map_err(|e| WriteError::Other(e.to_string()))?;
        self.shared.writer.append(&self.tp, self.leader_epoch, batch).await.map(|_| ())
    }

    /// Starts delivering a prepared transaction's markers (replacing an older delivery for the
    /// same id, which a newer decision supersedes).
    fn deliver(&mut self, request: TxnMarkerRequest) {
        if let Some(previous) = self.in_flight.remove(&request.transactional_id) {
            previous.abort();
        }
        let id = request.transactional_id.clone();
        let sender = Arc::clone(&self.shared.markers);
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
