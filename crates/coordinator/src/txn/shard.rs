//! [`TxnShard`]: the transactional ids of one `__transaction_state` partition, as the replay of
//! its records built them, plus the two sweeps' next times (soft state, set on load).
//!
//! Operations (in `init.rs`, `add.rs`, `end.rs`, `admin.rs`, `expire.rs`) compute an id's next
//! metadata from its current one, a clock reading and the request, turn it into a record, and
//! replay that record before returning it: the shard's state is always the replay of the records
//! it returned, and the shell appends them and releases the answer once they are committed (a
//! failed append makes the shell load the shard again from the log).

use std::collections::BTreeMap;

use super::config::TxnConfig;
use super::markers::{TxnMarkerRequest, TxnResult};
use super::metadata::TxnMetadata;
use super::records::TxnRecord;
use super::state::TxnState;

/// Records (and markers) a sweep writes at most in one batch; the rest wait for the next sweep,
/// which then comes at once.
pub const SWEEP_RECORDS_MAX: usize = 500;

/// What an operation produced. `records` are already replayed into the shard; `response` must
/// not reach a client, nor `markers` a partition, before `records` are committed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnOutput<R> {
    pub records: Vec<TxnRecord>,
    /// Transactions whose PrepareCommit/PrepareAbort is among `records`: their markers are to be
    /// written once the records are committed.
    pub markers: Vec<TxnMarkerRequest>,
    pub response: R,
}

impl<R> TxnOutput<R> {
    /// An answer that writes nothing.
    pub fn answer(response: R) -> Self {
        TxnOutput { records: Vec::new(), markers: Vec::new(), response }
    }
}

/// One `__transaction_state` partition's transactional ids.
#[derive(Debug, Clone)]
pub struct TxnShard {
    pub(crate) config: TxnConfig,
    coordinator_epoch: i32,
    pub(crate) txns: BTreeMap<String, TxnMetadata>,
    /// When timed-out transactions are next looked for; `None` until loaded.
    pub(crate) abort_check_at_ms: Option<i64>,
    /// When expired transactional ids are next looked for; `None` until loaded.
    pub(crate) expire_check_at_ms: Option<i64>,
}

impl TxnShard {
    /// An empty shard for a partition led at `coordinator_epoch` (its leader epoch).
    pub fn new(config: TxnConfig, coordinator_epoch: i32) -> Self {
        TxnShard { config, coordinator_epoch, txns: BTreeMap::new(), abort_check_at_ms: None, expire_check_at_ms: None }
    }

    pub fn config(&self) -> &TxnConfig {
        &self.config
    }

    pub fn coordinator_epoch(&self) -> i32 {
        self.coordinator_epoch
    }

    /// The metadata of `transactional_id`, if the id is known.
    pub fn transaction(&self, transactional_id: &str) -> Option<&TxnMetadata> {
        self.txns.get(transactional_id)
    }

    /// Every known id and its metadata, by id.
    pub fn transactions(&self) -> impl Iterator<Item = (&str, &TxnMetadata)> {
        self.txns.iter().map(|(id, txn)| (id.as_str(), txn))
    }

    /// Applies one record: the id takes the record's state; a tombstone (or a Dead value, which
    /// Kafka never writes but would mean the same) removes it. Loading is this, record by record.
    pub fn replay(&mut self, record: &TxnRecord) {
        match &record.value {
            Some((_, metadata)) if metadata.state != TxnState::Dead => {
                self.txns.insert(record.transactional_id.clone(), metadata.clone());
            }
            _ => {
                self.txns.remove(&record.transactional_id);
            }
        }
    }

    /// The partition is loaded: the sweeps are scheduled, and the markers of every transaction
    /// left prepared by an earlier coordinator are returned, to be written again.
    pub fn on_loaded(&mut self, now_ms: i64) -> Vec<TxnMarkerRequest> {
        self.abort_check_at_ms = Some(now_ms + self.config.abort_timed_out_transactions_interval_ms);
        self.expire_check_at_ms = Some(now_ms + self.config.remove_expired_transactional_ids_interval_ms);
        self.pending_markers()
    }

    /// The markers of every transaction in PrepareCommit or PrepareAbort.
    pub fn pending_markers(&self) -> Vec<TxnMarkerRequest> {
        self.txns.iter().filter(|(_, txn)| txn.state.is_prepare()).map(|(id, txn)| self.markers_for(id, txn)).collect()
    }

    /// When the shard next needs [`TxnShard::on_timer`].
    pub fn next_deadline(&self) -> Option<i64> {
        match (self.abort_check_at_ms, self.expire_check_at_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Every marker of the prepared transaction `transactional_id` (producer id and epoch as
    /// prepared) is written: its CompleteCommit or CompleteAbort. Nothing if the transaction is
    /// no longer the one prepared (a reload may have finished it already).
    pub fn complete_transaction(
        &mut self,
        now_ms: i64,
        transactional_id: &str,
        producer_id: i64,
        producer_epoch: i16,
        result: TxnResult,
    ) -> TxnOutput<()> {
        let Some(txn) = self.txns.get(transactional_id) else {
            return TxnOutput::answer(());
        };
        let prepared = match result {
            TxnResult::Commit => TxnState::PrepareCommit,
            TxnResult::Abort => TxnState::PrepareAbort,
        };
        if txn.state != prepared || txn.producer_id != producer_id || txn.producer_epoch != producer_epoch {
            tracing::debug!(transactional_id, state = %txn.state, "markers written for a transaction no longer prepared");
            return TxnOutput::answer(());
        }
        let record = self.record(transactional_id, txn.prepare_complete(now_ms));
        self.write(vec![record], Vec::new(), ())
    }

    /// A record of `transactional_id`'s new state, at the configured value version.
    pub(crate) fn record(&self, transactional_id: &str, metadata: TxnMetadata) -> TxnRecord {
        TxnRecord::value(transactional_id, self.config.log_value_version(), metadata)
    }

    /// The markers of a transaction just prepared (`txn` is its Prepare* metadata).
    pub(crate) fn markers_for(&self, transactional_id: &str, txn: &TxnMetadata) -> TxnMarkerRequest {
        let result = if txn.state == TxnState::PrepareCommit { TxnResult::Commit } else { TxnResult::Abort };
        TxnMarkerRequest {
            transactional_id: transactional_id.to_owned(),
            producer_id: txn.producer_id,
            producer_epoch: txn.producer_epoch,
            result,
            coordinator_epoch: self.coordinator_epoch,
            transaction_version: txn.client_transaction_version,
            partitions: txn.partitions.iter().cloned().collect(),
        }
    }

    /// Replays `records` and returns them with the answer.
    pub(crate) fn write<R>(
        &mut self,
        records: Vec<TxnRecord>,
        markers: Vec<TxnMarkerRequest>,
        response: R,
    ) -> TxnOutput<R> {
        for record in &records {
            self.replay(record);
        }
        TxnOutput { records, markers, response }
    }
}
