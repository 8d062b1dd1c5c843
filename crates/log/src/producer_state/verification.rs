//! KIP-890's transaction verification on the partition: the [`VerificationGuard`] a producer's
//! first transactional write must present, handed out while the broker asks the coordinator
//! whether the partition is in the transaction, and the lowest sequence seen meanwhile.

use std::collections::btree_map::Entry;

use strand_base::ProducerId;

use super::entry::{BatchKind, ProducerBatch};
use super::{ProducerStateError, ProducerStateManager};

/// The token of a KIP-890 transaction verification: handed out when the broker asks the
/// coordinator whether a partition is in the producer's transaction, and required by the first
/// transactional append, so a marker written in between (which drops the token) fails the append.
/// [`VerificationGuard::SENTINEL`] verifies nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VerificationGuard(u64);

impl VerificationGuard {
    pub const SENTINEL: VerificationGuard = VerificationGuard(0);

    /// Whether `request` is this very guard (and not the sentinel).
    pub fn verify(self, request: VerificationGuard) -> bool {
        request != Self::SENTINEL && request == self
    }

    /// The guard as a number, for layers that carry it without knowing the log (the group
    /// coordinator's `PartitionWriter` hands it from its verification to its append); 0 is the
    /// sentinel.
    pub fn to_raw(self) -> u64 {
        self.0
    }

    /// A guard carried as [`VerificationGuard::to_raw`] gave it. A number no verification handed
    /// out verifies nothing: guards are compared, never trusted.
    pub fn from_raw(raw: u64) -> Self {
        VerificationGuard(raw)
    }
}

/// A verification in progress: its guard and the lowest sequence seen while verifying, which
/// later batches of the same epoch may not skip ahead of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct VerificationStateEntry {
    pub(super) timestamp_ms: i64,
    pub(super) guard: VerificationGuard,
    pub(super) lowest_sequence: i32,
    pub(super) epoch: i16,
    /// The producer uses transactions V2 (a new epoch per transaction).
    pub(super) supports_epoch_bump: bool,
}

impl ProducerStateManager {
    /// Starts (or continues) verifying that the partition is in the producer's transaction and
    /// returns the guard the append must present; [`VerificationGuard::SENTINEL`] when the
    /// transaction is already open here and needs no verification. An epoch older than the
    /// producer's is fenced at once. `supports_epoch_bump`: the producer uses transactions V2.
    pub fn maybe_start_txn_verification(
        &mut self,
        producer_id: ProducerId,
        sequence: i32,
        epoch: i16,
        supports_epoch_bump: bool,
        now_ms: i64,
    ) -> std::result::Result<VerificationGuard, ProducerStateError> {
        if let Some(current) = self.producers.get(&producer_id)
            && epoch < current.producer_epoch
        {
            return Err(ProducerStateError::InvalidProducerEpoch {
                producer_id,
                offset: -1,
                epoch,
                current_epoch: current.producer_epoch,
            });
        }
        if self.has_ongoing_transaction(producer_id, epoch) {
            return Ok(VerificationGuard::SENTINEL);
        }
        let entry = match self.verifications.entry(producer_id) {
            Entry::Occupied(existing) => existing.into_mut(),
            Entry::Vacant(vacant) => {
                self.last_guard += 1;
                let guard = VerificationGuard(self.last_guard);
                let lowest_sequence = sequence;
                vacant.insert(VerificationStateEntry {
                    timestamp_ms: now_ms,
                    guard,
                    lowest_sequence,
                    epoch,
                    supports_epoch_bump,
                })
            }
        };
        *entry = lower_verified_sequence(*entry, sequence, epoch);
        Ok(entry.guard)
    }

    /// The guard of the producer's verification in progress, or the sentinel.
    pub fn verification_guard(&self, producer_id: ProducerId) -> VerificationGuard {
        self.verifications.get(&producer_id).map_or(VerificationGuard::SENTINEL, |v| v.guard)
    }

    /// A transactional batch of a producer with no transaction open here in its epoch must be
    /// part of a verified transaction; a stale epoch is fenced first.
    pub(super) fn check_txn_verified(
        &self,
        batch: &ProducerBatch,
        request_guard: VerificationGuard,
    ) -> std::result::Result<(), ProducerStateError> {
        let producer_id = batch.producer_id;
        if !batch.is_transactional() || self.has_ongoing_transaction(producer_id, batch.producer_epoch) {
            return Ok(());
        }
        if let Some(current) = self.producers.get(&producer_id)
            && batch.producer_epoch < current.producer_epoch
        {
            return Err(ProducerStateError::InvalidProducerEpoch {
                producer_id,
                offset: batch.base_offset,
                epoch: batch.producer_epoch,
                current_epoch: current.producer_epoch,
            });
        }
        let needs_guard = self.config.transaction_verification_enabled && batch.kind == BatchKind::TransactionalData;
        if needs_guard && !self.verification_guard(producer_id).verify(request_guard) {
            let reason = "transactional write without an ongoing or verified transaction";
            return Err(ProducerStateError::InvalidTxnState { producer_id, offset: batch.base_offset, reason });
        }
        Ok(())
    }

    /// Whether `batch` is a transactions-V2 marker of the epoch being verified: the producer's
    /// next transaction is already being verified, so its verification must survive the marker.
    pub(super) fn next_v2_txn_started(&self, batch: &ProducerBatch) -> bool {
        let verification = self.verifications.get(&batch.producer_id);
        matches!(batch.kind, BatchKind::Control(_))
            && verification.is_some_and(|v| v.supports_epoch_bump && v.epoch == batch.producer_epoch)
    }
}

/// Kafka's `VerificationStateEntry.maybeUpdateLowestSequenceAndEpoch`: a lower sequence of the
/// same epoch lowers the bar; a higher epoch resets it.
fn lower_verified_sequence(mut entry: VerificationStateEntry, sequence: i32, epoch: i16) -> VerificationStateEntry {
    if epoch == entry.epoch && sequence < entry.lowest_sequence {
        entry.lowest_sequence = sequence;
    }
    if epoch > entry.epoch {
        entry.epoch = epoch;
        entry.lowest_sequence = sequence;
    }
    entry
}
