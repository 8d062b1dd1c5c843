//! [`GroupShell`]: the group coordinator's part of a shard task ([`crate::runtime`] runs the
//! task): the [`GroupShard`], the JoinGroup and SyncGroup requests parked in it, and the topic
//! metadata it follows. It replays transactional batches and markers, appends the markers the
//! transaction coordinator asks for, and appends TxnOffsetCommit's offsets as the producer's
//! transactional batch.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use strand_base::topic::OFFSETS_TOPIC;
use strand_base::{Offset, ProducerId};
use strand_protocol::error::ErrorCode;
use strand_protocol::records::{ControlRecordType, EndTxnMarker, RecordBatch, RecordsError, end_txn_marker_batch};
use tokio::sync::watch;

use super::coordinator::{GroupEffects, GroupShared, GroupWrite, OpDone, Parked, TxnMarker};
use crate::group::metadata::TopicMetadata;
use crate::group::records::{CoordinatorRecord, RecordDecodeError, build_batch, build_transactional_batch};
use crate::group::{Completion, GroupShard, PendingId};
use crate::runtime::{Append, ShardContext, ShardKind};
use crate::writer::WriteError;

/// One group shard task's own part.
pub(crate) struct GroupShell {
    shard: GroupShard,
    /// Parked JoinGroup and SyncGroup requests, by the shard's ids.
    pending: HashMap<PendingId, Parked>,
    metadata: watch::Receiver<Arc<TopicMetadata>>,
}

impl ShardKind for GroupShell {
    const TOPIC: &'static str = OFFSETS_TOPIC;
    const NAME: &'static str = "group coordinator";

    type Shared = GroupShared;
    type Shard = GroupShard;
    type Write = GroupWrite;
    type Record = CoordinatorRecord;
    type RecordError = RecordDecodeError;
    type Effects = GroupEffects;
    /// A new topic metadata snapshot was published (`Err`: the coordinator is gone).
    type Event = Result<(), watch::error::RecvError>;

    fn new(context: &ShardContext<Self>) -> Self {
        let shared = context.shared();
        GroupShell {
            shard: GroupShard::new(shared.config.clone()),
            pending: HashMap::new(),
            metadata: shared.metadata.subscribe(),
        }
    }

    fn reset(&mut self, context: &ShardContext<Self>) {
        self.shard = GroupShard::new(context.shared().config.clone());
        self.shard.set_metadata(self.metadata.borrow_and_update().clone());
        self.pending.clear();
    }

    fn decode(key: Bytes, value: Option<Bytes>) -> Result<CoordinatorRecord, RecordDecodeError> {
        CoordinatorRecord::decode(key, value)
    }

    fn is_unknown(error: &RecordDecodeError) -> bool {
        matches!(error, RecordDecodeError::UnknownRecordType(_) | RecordDecodeError::UnknownValueVersion { .. })
    }

    /// A transaction marker ends its producer's pending offsets.
    fn replay_control(&mut self, batch: &RecordBatch) -> Result<(), RecordsError> {
        for record in batch.records()?.iter() {
            let record = record?;
            let Some(key) = record.key() else { continue };
            if let Some(result) = ControlRecordType::decode_key(key)?.transaction_result() {
                self.shard.replay_end_txn(batch.producer_id(), result);
            }
        }
        Ok(())
    }

    /// A transactional batch's offsets wait for its marker; a plain batch applies at once.
    fn replay(&mut self, record: &CoordinatorRecord, producer_id: Option<ProducerId>) {
        match producer_id {
            Some(producer_id) => self.shard.replay_transactional(producer_id, record),
            None => self.shard.replay(record),
        }
    }

    fn on_loaded(&mut self, context: &ShardContext<Self>, now_ms: i64, next: Offset) {
        let output = self.shard.on_loaded(now_ms);
        // 50 partitions load at once on first use: only those with groups are worth an info line.
        let groups = self.shard.groups().count();
        if groups > 0 {
            tracing::info!(partition = %context.tp, groups, next, "loaded group coordinator shard");
        } else {
            tracing::debug!(partition = %context.tp, next, "loaded empty group coordinator shard");
        }
        // Loading itself writes nothing: a rebalance it starts parks nobody yet.
        debug_assert!(output.records.is_empty() && output.completions.is_empty());
    }

    fn shard(&self) -> &GroupShard {
        &self.shard
    }

    fn next_deadline(&self) -> Option<i64> {
        self.shard.next_deadline()
    }

    fn on_timer(&mut self, now_ms: i64) -> (Vec<CoordinatorRecord>, GroupEffects) {
        let output = self.shard.on_timer(now_ms);
        (
            output.records,
            GroupEffects { completions: output.completions, respond: None, txn: None, batch_bytes_max: None },
        )
    }

    async fn next_event(&mut self) -> Self::Event {
        self.metadata.changed().await
    }

    /// Takes in the new metadata; deleted topics take their committed offsets with them.
    async fn on_event(&mut self, context: &ShardContext<Self>, changed: Self::Event) -> Result<(), WriteError> {
        if changed.is_err() {
            return Ok(());
        }
        let next = self.metadata.borrow_and_update().clone();
        let deleted = next.deleted_since(self.shard.metadata());
        self.shard.set_metadata(next);
        if deleted.is_empty() {
            return Ok(());
        }
        let now_ms = context.now_ms();
        let output = self.shard.delete_offsets_of_topics(&deleted);
        let effects = GroupEffects { completions: output.completions, respond: None, txn: None, batch_bytes_max: None };
        context.carry_out(self, output.records, effects, now_ms).await
    }

    async fn write(&mut self, context: &ShardContext<Self>, write: GroupWrite) -> Result<(), WriteError> {
        match write {
            GroupWrite::Op(op) => {
                let now_ms = context.now_ms();
                let OpDone { records, park, effects } = op(&mut self.shard, now_ms);
                if let Some((id, parked)) = park {
                    self.pending.insert(id, parked);
                }
                context.carry_out(self, records, effects, now_ms).await
            }
            GroupWrite::Marker(marker, respond) => {
                // Replayed first, like an operation's records: a failed append reloads the shard
                // from the log.
                self.shard.replay_end_txn(marker.producer_id, marker.result);
                let written = append_marker(context, marker).await;
                let answer = written.as_ref().map(|_| ()).map_err(marker_error);
                let _ = respond.send(answer);
                written
            }
        }
    }

    /// A plain batch, or the transactional batch of the producer the effects name; an
    /// operation's batch over `message.max.bytes` is RecordTooLarge, as Kafka's log refuses it
    /// (the shard, already ahead of the log, is then reloaded). The operations a client can make
    /// large (SyncGroup, OffsetCommit, TxnOffsetCommit) check their records before changing
    /// anything; this catches the rest.
    fn encode(records: &[CoordinatorRecord], effects: &GroupEffects, now_ms: i64) -> Result<Append, WriteError> {
        let batch = match effects.txn {
            None => build_batch(records, now_ms),
            Some(txn) => build_transactional_batch(records, txn.producer_id, txn.producer_epoch, now_ms),
        };
        let batch = batch.map_err(|e| WriteError::Other(e.to_string()))?;
        if effects.batch_bytes_max.is_some_and(|max| batch.len() > max) {
            return Err(WriteError::RecordTooLarge);
        }
        Ok(match effects.txn {
            None => Append::Plain(batch),
            Some(txn) => Append::Transactional(batch, txn.verification),
        })
    }

    fn release(&mut self, effects: GroupEffects) {
        for completion in effects.completions {
            self.complete(completion);
        }
        if let Some(respond) = effects.respond {
            respond(Ok(()));
        }
    }

    /// Answers the operation and every parked request with `error`.
    fn fail(&mut self, effects: GroupEffects, error: ErrorCode) {
        if let Some(respond) = effects.respond {
            respond(Err(error));
        }
        for (_, parked) in self.pending.drain() {
            match parked {
                Parked::Join(tx) => {
                    let _ = tx.send(Err(error));
                }
                Parked::Sync(tx) => {
                    let _ = tx.send(Err(error));
                }
            }
        }
    }

    fn stop(&mut self) {
        self.pending.clear();
    }
}

impl GroupShell {
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
}

async fn append_marker(context: &ShardContext<GroupShell>, marker: TxnMarker) -> Result<(), WriteError> {
    let now_ms = context.now_ms();
    let end = EndTxnMarker { coordinator_epoch: marker.coordinator_epoch };
    let batch = end_txn_marker_batch(marker.producer_id, marker.producer_epoch, marker.result, end, now_ms)
        .and_then(|builder| builder.build())
        .map_err(|e| WriteError::Other(e.to_string()))?;
    context.append(Append::Plain(batch)).await
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
