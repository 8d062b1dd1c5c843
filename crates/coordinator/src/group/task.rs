//! One shard's task: load the partition, then serve requests and timers one at a time, appending
//! each operation's records and releasing its answers once they are committed.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use strand_base::{LeaderEpoch, TopicPartition};
use strand_protocol::error::ErrorCode;
use strand_protocol::records::{ControlRecordType, EndTxnMarker, RecordBatch, RecordsError, end_txn_marker_batch};
use tokio::sync::{mpsc, oneshot, watch};

use super::runtime::{Command, OFFSETS_TOPIC, OpDone, Parked, Shared, TxnAppend, TxnMarker};
use crate::group::records::{CoordinatorRecord, RecordDecodeError, build_batch, build_transactional_batch};
use crate::group::{Completion, GroupShard, PendingId};
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
    Record(#[from] RecordDecodeError),
}

/// How the serving loop ended.
enum Next {
    /// The shard is ahead of its log after a failed append: load it again.
    Reload,
    /// Resigned, lost leadership, or the coordinator is gone.
    Stop,
}

/// The task owning one shard.
pub(crate) struct ShardTask {
    shared: Arc<Shared>,
    tp: TopicPartition,
    leader_epoch: LeaderEpoch,
    shard: GroupShard,
    /// Parked JoinGroup and SyncGroup requests, by the shard's ids.
    pending: HashMap<PendingId, Parked>,
    status: watch::Sender<ShardStatus>,
    metadata: watch::Receiver<Arc<crate::group::metadata::TopicMetadata>>,
}

impl ShardTask {
    pub(crate) fn new(
        shared: Arc<Shared>,
        partition: i32,
        leader_epoch: LeaderEpoch,
        status: watch::Sender<ShardStatus>,
    ) -> Self {
        let shard = GroupShard::new(shared.config.clone());
        let metadata = shared.metadata.subscribe();
        ShardTask {
            metadata,
            shared,
            tp: TopicPartition::new(OFFSETS_TOPIC, partition),
            leader_epoch,
            shard,
            pending: HashMap::new(),
            status,
        }
    }

    pub(crate) async fn run(mut self, mut commands: mpsc::Receiver<Command>, mut stop: oneshot::Receiver<()>) {
        loop {
            self.status.send_replace(ShardStatus::Loading);
            let loaded = tokio::select! {
                biased;
                _ = &mut stop => break,
                loaded = self.load() => loaded,
            };
            if let Err(error) = loaded {
                tracing::error!(partition = %self.tp, %error, "could not load the group coordinator shard");
                break;
            }
            self.status.send_replace(ShardStatus::Active);
            match self.serve(&mut commands, &mut stop).await {
                Next::Reload => continue,
                Next::Stop => break,
            }
        }
        self.status.send_replace(ShardStatus::NotLed);
        // Parked and queued requests are dropped: their callers answer NOT_COORDINATOR.
        self.pending.clear();
        commands.close();
        self.shared.forget(self.tp.partition, self.leader_epoch);
    }

    /// Replays the partition from its start into a fresh shard: everything earlier leaders wrote
    /// is waited for (until committed) and read.
    async fn load(&mut self) -> Result<(), LoadError> {
        self.shard = GroupShard::new(self.shared.config.clone());
        self.shard.set_metadata(self.metadata.borrow_and_update().clone());
        self.pending.clear();
        let writer = Arc::clone(&self.shared.writer);
        let tp = self.tp.clone();
        let next = read_partition(&*writer, &tp, |batch| self.replay_batch(batch)).await?;
        let now_ms = self.shared.clock.now_ms();
        let output = self.shard.on_loaded(now_ms);
        // 50 partitions load at once on first use: only those with groups are worth an info line.
        let groups = self.shard.groups().count();
        if groups > 0 {
            tracing::info!(partition = %self.tp, groups, next, "loaded group coordinator shard");
        } else {
            tracing::debug!(partition = %self.tp, next, "loaded empty group coordinator shard");
        }
        // Loading itself writes nothing: a rebalance it starts parks nobody yet.
        debug_assert!(output.records.is_empty() && output.completions.is_empty());
        Ok(())
    }

    /// Replays one batch: a transaction marker ends its producer's pending offsets, a
    /// transactional batch's offsets wait for that marker, a plain batch applies at once.
    fn replay_batch(&mut self, batch: &RecordBatch) -> Result<(), LoadError> {
        let records = batch.records()?;
        if batch.attributes().is_control() {
            for record in records.iter() {
                let record = record?;
                let Some(key) = record.key() else { continue };
                if let Some(result) = ControlRecordType::decode_key(key)?.transaction_result() {
                    self.shard.replay_end_txn(batch.producer_id(), result);
                }
            }
            return Ok(());
        }
        let producer_id = batch.attributes().is_transactional().then(|| batch.producer_id());
        for record in records.iter() {
            let record = record?;
            let Some(key) = record.key() else {
                tracing::warn!(partition = %self.tp, "skipping a record without a key");
                continue;
            };
            let key = Bytes::copy_from_slice(key);
            let value = record.value().map(Bytes::copy_from_slice);
            match CoordinatorRecord::decode(key, value) {
                Ok(record) => match producer_id {
                    Some(producer_id) => self.shard.replay_transactional(producer_id, &record),
                    None => self.shard.replay(&record),
                },
                Err(
                    error @ (RecordDecodeError::UnknownRecordType(_) | RecordDecodeError::UnknownValueVersion { .. }),
                ) => {
                    tracing::warn!(partition = %self.tp, %error, "skipping a record this build does not know");
                }
                Err(error) => return Err(error.into()),
            }
        }
        Ok(())
    }

    /// Serves commands and timers until the shard must be reloaded or stopped.
    async fn serve(&mut self, commands: &mut mpsc::Receiver<Command>, stop: &mut oneshot::Receiver<()>) -> Next {
        loop {
            let sleep = self.time_to_next_deadline();
            let step = tokio::select! {
                biased;
                _ = &mut *stop => return Next::Stop,
                changed = self.metadata.changed() => {
                    if changed.is_err() {
                        Ok(())
                    } else {
                        let next = self.metadata.borrow_and_update().clone();
                        let deleted = next.deleted_since(self.shard.metadata());
                        self.shard.set_metadata(next);
                        if deleted.is_empty() {
                            Ok(())
                        } else {
                            // Deleted topics take their committed offsets with them.
                            let now_ms = self.shared.clock.now_ms();
                            let output = self.shard.delete_offsets_of_topics(&deleted);
                            let done = OpDone { records: output.records, completions: output.completions, park: None, respond: None, txn: None };
                            self.carry_out(done, now_ms).await
                        }
                    }
                }
                _ = sleep_for(sleep) => {
                    let now_ms = self.shared.clock.now_ms();
                    let output = self.shard.on_timer(now_ms);
                    let done = OpDone { records: output.records, completions: output.completions, park: None, respond: None, txn: None };
                    self.carry_out(done, now_ms).await
                }
                command = commands.recv() => match command {
                    None => return Next::Stop,
                    Some(Command::Read(op)) => {
                        op(&self.shard);
                        Ok(())
                    }
                    Some(Command::Write(op)) => {
                        let now_ms = self.shared.clock.now_ms();
                        let done = op(&mut self.shard, now_ms);
                        self.carry_out(done, now_ms).await
                    }
                    Some(Command::Marker(marker, respond)) => {
                        // Replayed first, like an operation's records: a failed append reloads
                        // the shard from the log.
                        self.shard.replay_end_txn(marker.producer_id, marker.result);
                        let written = self.append_marker(marker).await;
                        let answer = written.as_ref().map(|_| ()).map_err(marker_error);
                        let _ = respond.send(answer);
                        written
                    }
                },
            };
            if let Err(error) = step {
                if error.lost_leadership() {
                    return Next::Stop;
                }
                return Next::Reload;
            }
        }
    }

    fn time_to_next_deadline(&self) -> Option<Duration> {
        let deadline = self.shard.next_deadline()?;
        let wait_ms = deadline.saturating_sub(self.shared.clock.now_ms()).max(0);
        Some(Duration::from_millis(u64::try_from(wait_ms).unwrap_or(0)))
    }

    /// Appends an operation's records and then releases its answers; on failure answers it and
    /// every parked request with the failure.
    async fn carry_out(&mut self, done: OpDone, now_ms: i64) -> Result<(), WriteError> {
        let OpDone { records, completions, park, respond, txn } = done;
        if let Some((id, parked)) = park {
            self.pending.insert(id, parked);
        }
        let appended = if records.is_empty() { Ok(()) } else { self.append(&records, txn, now_ms).await };
        match appended {
            Ok(()) => {
                for completion in completions {
                    self.complete(completion);
                }
                if let Some(respond) = respond {
                    respond(Ok(()));
                }
                Ok(())
            }
            Err(error) => {
                tracing::warn!(partition = %self.tp, %error, "could not append group coordinator records; reloading");
                let code = error.response_error();
                if let Some(respond) = respond {
                    respond(Err(code));
                }
                self.fail_pending(code);
                Err(error)
            }
        }
    }

    /// Appends the records as one batch: `txn`'s transactional batch, or a plain one.
    async fn append(
        &self,
        records: &[CoordinatorRecord],
        txn: Option<TxnAppend>,
        now_ms: i64,
    ) -> Result<(), WriteError> {
        let writer = &self.shared.writer;
        let appended = match txn {
            None => {
                let batch = build_batch(records, now_ms).map_err(|e| WriteError::Other(e.to_string()))?;
                writer.append(&self.tp, self.leader_epoch, batch).await
            }
            Some(txn) => {
                let batch = build_transactional_batch(records, txn.producer_id, txn.producer_epoch, now_ms)
                    .map_err(|e| WriteError::Other(e.to_string()))?;
                writer.append_transactional(&self.tp, self.leader_epoch, batch, txn.verification).await
            }
        };
        appended.map(|_| ())
    }

    async fn append_marker(&self, marker: TxnMarker) -> Result<(), WriteError> {
        let now_ms = self.shared.clock.now_ms();
        let end = EndTxnMarker { coordinator_epoch: marker.coordinator_epoch };
        let batch = end_txn_marker_batch(marker.producer_id, marker.producer_epoch, marker.result, end, now_ms)
            .and_then(|builder| builder.build())
            .map_err(|e| WriteError::Other(e.to_string()))?;
        self.shared.writer.append(&self.tp, self.leader_epoch, batch).await.map(|_| ())
    }

    fn complete(&mut self, completion: Completion) {
        match (self.pending.remove(&completion.id()), completion) {
            (Some(Parked::Join(tx)), Completion::Join(_, response)) => {
                let _ = tx.send(Ok(response));
            }
            (Some(Parked::Sync(tx)), Completion::Sync(_, response)) => {
                let _ = tx.send(Ok(response));
            }
            (parked, completion) => {
                tracing::error!(?completion, found = parked.is_some(), "a completion matches no parked request");
            }
        }
    }

    fn fail_pending(&mut self, code: ErrorCode) {
        for (_, parked) in self.pending.drain() {
            match parked {
                Parked::Join(tx) => {
                    let _ = tx.send(Err(code));
                }
                Parked::Sync(tx) => {
                    let _ = tx.send(Err(code));
                }
            }
        }
    }
}

/// WriteTxnMarkers' error for a marker the partition did not take.
fn marker_error(error: &WriteError) -> ErrorCode {
    match error {
        WriteError::NotLeader | WriteError::UnknownPartition => ErrorCode::NotLeaderOrFollower,
        WriteError::NotEnoughReplicas => ErrorCode::NotEnoughReplicas,
        WriteError::Timeout => ErrorCode::RequestTimedOut,
        WriteError::Storage(_) => ErrorCode::KafkaStorageError,
        WriteError::RecordTooLarge | WriteError::Other(_) => ErrorCode::UnknownServerError,
        WriteError::Producer(code) => *code,
    }
}
