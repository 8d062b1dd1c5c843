//! The partition's transactions as the transaction index and the last stable offset need them:
//! open ones by first offset, and completed ones until the high watermark passes their marker.
//! The log writes the index; this keeps the bookkeeping it reads.

use strand_base::{Offset, ProducerId};

use super::{LATE_TRANSACTION_BUFFER_MS, ProducerStateManager};

/// A transaction ended by a marker (Kafka's `CompletedTxn`): the log writes it to the
/// transaction index (if aborted) and then passes it to [`ProducerStateManager::complete_txn`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompletedTxn {
    pub producer_id: ProducerId,
    pub first_offset: Offset,
    /// The offset of the marker.
    pub last_offset: Offset,
    pub is_aborted: bool,
}

/// An open or recently completed transaction, by the offset it began at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TxnMetadata {
    pub(super) producer_id: ProducerId,
    pub(super) first_offset: Offset,
    /// The marker's offset, once completed.
    pub(super) last_offset: Option<Offset>,
}

impl ProducerStateManager {
    /// The last stable offset to record with `txn` in the transaction index: the first offset of
    /// the earliest other open transaction, or the offset after the marker.
    pub fn last_stable_offset(&self, txn: &CompletedTxn) -> Offset {
        let next_open = self.ongoing_txns.values().find(|open| open.producer_id != txn.producer_id);
        next_open.map_or(txn.last_offset + 1, |open| open.first_offset)
    }

    /// Marks `txn` complete. It still bounds the first unstable offset until the high watermark
    /// passes its marker. Panics if `txn` was not open: completed transactions only come from
    /// [`ProducerStateManager::update`].
    pub fn complete_txn(&mut self, txn: &CompletedTxn) {
        let open = self.ongoing_txns.remove(&txn.first_offset);
        let Some(mut open) = open else { panic!("completing transaction {txn:?}, which was not open") };
        open.last_offset = Some(txn.last_offset);
        self.unreplicated_txns.insert(txn.first_offset, open);
    }

    /// Forgets completed transactions whose markers are now below the high watermark, so the
    /// first unstable offset can advance past them.
    pub fn on_high_watermark_updated(&mut self, high_watermark: Offset) {
        self.unreplicated_txns.retain(|_, txn| txn.last_offset.is_none_or(|last| last >= high_watermark));
    }

    /// The first offset that is not stable: the start of the earliest transaction that is open,
    /// or completed with its marker not yet replicated. The log's last stable offset is the
    /// smaller of this and the high watermark.
    pub fn first_unstable_offset(&self) -> Option<Offset> {
        let unreplicated = self.unreplicated_txns.keys().next();
        let undecided = self.ongoing_txns.keys().next();
        unreplicated.into_iter().chain(undecided).min().copied()
    }

    /// The start of the earliest open transaction, whatever the replication state.
    pub fn first_undecided_offset(&self) -> Option<Offset> {
        self.ongoing_txns.keys().next().copied()
    }

    /// Whether the producer has a transaction open here in `epoch` (with a newer epoch, the
    /// open one may have ended already).
    pub fn has_ongoing_transaction(&self, producer_id: ProducerId, epoch: i16) -> bool {
        self.producers
            .get(&producer_id)
            .is_some_and(|e| e.current_txn_first_offset.is_some() && e.producer_epoch == epoch)
    }

    /// Whether the earliest open transaction's producer has been silent for longer than any
    /// transaction may last: a hanging transaction.
    pub fn has_late_transaction(&self, now_ms: i64) -> bool {
        let oldest = self.ongoing_txns.values().next().and_then(|txn| self.producers.get(&txn.producer_id));
        let last_timestamp = oldest.map_or(-1, |e| e.last_timestamp);
        last_timestamp > 0
            && now_ms.saturating_sub(last_timestamp)
                > self.config.max_transaction_timeout_ms + LATE_TRANSACTION_BUFFER_MS
    }
}
