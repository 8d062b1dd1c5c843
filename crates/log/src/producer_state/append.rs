//! The rules of an append (Kafka's `ProducerAppendInfo` and
//! `UnifiedLog.analyzeAndValidateProducerState`): how each batch of a producer is checked
//! against its state (epoch fencing, sequence order, transaction state, duplicates), and the
//! [`ProducerAppend`] that records the result for [`ProducerStateManager::update`] to apply once
//! the batches are in the log. Nothing here changes the state before then.

use std::collections::{BTreeMap, BTreeSet};

use strand_base::{Offset, ProducerId};
use strand_protocol::records::TransactionResult;

use super::entry::{BatchKind, BatchMetadata, ProducerBatch, ProducerStateEntry, TxnMarker};
use super::transactions::{CompletedTxn, TxnMetadata};
use super::verification::{VerificationGuard, VerificationStateEntry};
use super::{NO_PRODUCER_EPOCH, NO_SEQUENCE, ProducerStateError, ProducerStateManager, TV_UNKNOWN};

/// How much of an append is validated, after Kafka's `AppendOrigin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppendOrigin {
    /// Written by a producer: epoch, sequence and transaction state are all checked, and
    /// retried batches are recognized as duplicates.
    Client,
    /// Written by a coordinator (offset commits, markers): no sequences, so only epochs and
    /// transaction state are checked.
    Coordinator,
    /// Copied from another log (a leader's, or this log's own segments on recovery), already
    /// validated there: older producer and coordinator epochs are accepted.
    Replication,
}

/// How one append is to be validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppendContext {
    pub origin: AppendOrigin,
    /// The guard the request's transaction verification obtained, or
    /// [`VerificationGuard::SENTINEL`].
    pub verification_guard: VerificationGuard,
    /// For transaction markers written by the coordinator, the transaction version of the
    /// WriteTxnMarkers entry (KIP-1228: from version 2 a marker must carry a bumped epoch);
    /// [`TV_UNKNOWN`] otherwise. Not stored in the batch, so replicated markers are checked as
    /// version 0, which is more lenient.
    pub transaction_version: i16,
}

impl AppendContext {
    /// A producer's append, with the guard its verification obtained (or the sentinel).
    pub fn client(verification_guard: VerificationGuard) -> Self {
        AppendContext { origin: AppendOrigin::Client, verification_guard, transaction_version: TV_UNKNOWN }
    }

    /// A coordinator's append; `transaction_version` matters for markers.
    pub fn coordinator(transaction_version: i16) -> Self {
        AppendContext {
            origin: AppendOrigin::Coordinator,
            verification_guard: VerificationGuard::SENTINEL,
            transaction_version,
        }
    }

    /// Batches copied from a leader, or replayed from this log's segments on recovery.
    pub fn replication() -> Self {
        AppendContext {
            origin: AppendOrigin::Replication,
            verification_guard: VerificationGuard::SENTINEL,
            transaction_version: TV_UNKNOWN,
        }
    }
}

/// What [`ProducerStateManager::check_and_prepare`] decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppendOutcome {
    /// The batches are new: append them, then pass this to [`ProducerStateManager::update`].
    Append(ProducerAppend),
    /// A batch repeats one of its producer's remembered batches (a retry): append nothing and
    /// answer success with this original batch's offsets and timestamp.
    Duplicate(BatchMetadata),
}

/// The producer-state effects of one validated append, to apply after it is in the log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProducerAppend {
    entries: BTreeMap<ProducerId, ProducerStateEntry>,
    started_txns: Vec<TxnMetadata>,
    completed_txns: Vec<CompletedTxn>,
    /// Producers whose verification this append ends.
    verified_producers: BTreeSet<ProducerId>,
}

impl ProducerAppend {
    /// The transactions this append's markers end, in batch order.
    pub fn completed_txns(&self) -> &[CompletedTxn] {
        &self.completed_txns
    }
}

impl ProducerStateManager {
    /// Validates the batches of one append (offsets assigned, not yet written) against the
    /// state, as Kafka's `analyzeAndValidateProducerState` and `ProducerAppendInfo` do, without
    /// changing it. Batches without a producer id are ignored.
    pub fn check_and_prepare(
        &self,
        batches: &[ProducerBatch],
        context: AppendContext,
    ) -> std::result::Result<AppendOutcome, ProducerStateError> {
        let mut infos: BTreeMap<ProducerId, AppendInfo<'_>> = BTreeMap::new();
        let mut append = ProducerAppend::default();
        for batch in batches.iter().filter(|b| b.producer_id.0 >= 0) {
            let producer_id = batch.producer_id;
            if context.origin == AppendOrigin::Client {
                let current = self.producers.get(&producer_id);
                let duplicate = current
                    .and_then(|e| e.find_duplicate(batch.producer_epoch, batch.base_sequence, batch.last_sequence));
                if let Some(original) = duplicate {
                    return Ok(AppendOutcome::Duplicate(original));
                }
            }
            if context.origin != AppendOrigin::Replication {
                self.check_txn_verified(batch, context.verification_guard)?;
            }
            let info = infos.entry(producer_id).or_insert_with(|| self.prepare_update(producer_id, context));
            if let Some(completed) = info.append(batch, &mut append.started_txns)? {
                append.completed_txns.push(completed);
            }
            if batch.is_transactional() && !self.next_v2_txn_started(batch) {
                append.verified_producers.insert(producer_id);
            }
        }
        append.entries = infos.into_iter().map(|(id, info)| (id, info.updated)).collect();
        Ok(AppendOutcome::Append(append))
    }

    /// Applies a validated append once its batches are in the log. Returns the transactions its
    /// markers ended: for each, the log computes [`ProducerStateManager::last_stable_offset`],
    /// writes the transaction index, then calls [`ProducerStateManager::complete_txn`]. The log
    /// also calls [`ProducerStateManager::update_map_end_offset`] after every append.
    pub fn update(&mut self, append: ProducerAppend) -> Vec<CompletedTxn> {
        for (producer_id, next) in append.entries {
            match self.producers.get_mut(&producer_id) {
                Some(current) => current.merge(next),
                None => {
                    self.producers.insert(producer_id, next);
                    self.evict_beyond_limit(producer_id);
                }
            }
        }
        for txn in append.started_txns {
            self.ongoing_txns.insert(txn.first_offset, txn);
        }
        // The transaction has begun (or ended): the verification has served its purpose.
        for producer_id in append.verified_producers {
            self.verifications.remove(&producer_id);
        }
        append.completed_txns
    }

    fn prepare_update(&self, producer_id: ProducerId, context: AppendContext) -> AppendInfo<'_> {
        let current = self.producers.get(&producer_id);
        let mut updated = current.cloned().unwrap_or_else(|| ProducerStateEntry::empty(producer_id));
        updated.batches.clear();
        let verification = self.verifications.get(&producer_id).copied();
        AppendInfo { producer_id, context, current, verification, updated }
    }
}

/// One producer's validation across the batches of one append (Kafka's `ProducerAppendInfo`):
/// each batch is checked against `updated`, the state after the batches before it.
#[derive(Debug)]
struct AppendInfo<'a> {
    producer_id: ProducerId,
    context: AppendContext,
    /// The state before this append, if the producer is known.
    current: Option<&'a ProducerStateEntry>,
    verification: Option<VerificationStateEntry>,
    /// The current state without its batches, plus this append's batches.
    updated: ProducerStateEntry,
}

impl AppendInfo<'_> {
    fn append(
        &mut self,
        batch: &ProducerBatch,
        started: &mut Vec<TxnMetadata>,
    ) -> std::result::Result<Option<CompletedTxn>, ProducerStateError> {
        match batch.kind {
            BatchKind::Control(None) => Ok(None),
            BatchKind::Control(Some(marker)) => self.append_marker(marker, batch.producer_epoch, batch.base_offset),
            BatchKind::Data | BatchKind::TransactionalData => self.append_data(batch, started).map(|()| None),
        }
    }

    fn append_data(
        &mut self,
        batch: &ProducerBatch,
        started: &mut Vec<TxnMetadata>,
    ) -> std::result::Result<(), ProducerStateError> {
        let first_offset = batch.base_offset;
        self.check_epoch(batch.producer_epoch, first_offset, TV_UNKNOWN)?;
        if self.context.origin == AppendOrigin::Client {
            self.check_sequence(batch.producer_epoch, batch.base_sequence, first_offset)?;
        }
        // Java's `(int)` of the offset span, which the batch's i32 last offset delta bounds.
        let offset_delta = (batch.last_offset - first_offset) as i32;
        let metadata = BatchMetadata {
            last_seq: batch.last_sequence,
            last_offset: batch.last_offset,
            offset_delta,
            timestamp: batch.max_timestamp,
        };
        self.updated.add_batch(batch.producer_epoch, metadata);
        let transactional = batch.kind == BatchKind::TransactionalData;
        match (self.updated.current_txn_first_offset, transactional) {
            (Some(_), false) => Err(ProducerStateError::InvalidTxnState {
                producer_id: self.producer_id,
                offset: first_offset,
                reason: "non-transactional write while a transaction is open",
            }),
            (None, true) => {
                self.updated.current_txn_first_offset = Some(first_offset);
                started.push(TxnMetadata { producer_id: self.producer_id, first_offset, last_offset: None });
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn append_marker(
        &mut self,
        marker: TxnMarker,
        epoch: i16,
        offset: Offset,
    ) -> std::result::Result<Option<CompletedTxn>, ProducerStateError> {
        let transaction_version = match (self.context.transaction_version, self.context.origin) {
            (TV_UNKNOWN, AppendOrigin::Replication) => 0,
            (TV_UNKNOWN, AppendOrigin::Client) => {
                return Err(ProducerStateError::InvalidControlBatch(
                    "clients may not write transaction markers".into(),
                ));
            }
            (TV_UNKNOWN, AppendOrigin::Coordinator) => panic!("a coordinator's marker needs its transaction version"),
            (version, _) => version,
        };
        self.check_epoch(epoch, offset, transaction_version)?;
        let current = self.updated.coordinator_epoch;
        if current > marker.coordinator_epoch && self.context.origin != AppendOrigin::Replication {
            return Err(ProducerStateError::TransactionCoordinatorFenced {
                producer_id: self.producer_id,
                offset,
                coordinator_epoch: marker.coordinator_epoch,
                current,
            });
        }
        // A marker of a transaction that wrote nothing here changes no stable offset.
        let completed = self.updated.current_txn_first_offset.map(|first_offset| CompletedTxn {
            producer_id: self.producer_id,
            first_offset,
            last_offset: offset,
            is_aborted: marker.result == TransactionResult::Abort,
        });
        self.updated.end_txn(epoch, marker.coordinator_epoch, marker.timestamp);
        Ok(completed)
    }

    /// Kafka's `checkProducerEpoch`: an older epoch is fenced (accepted from replication). From
    /// transactions V2 a marker must carry a newer epoch than the producer's, except a retried
    /// marker of a transaction already ended (same epoch, none open, or the epoch is exhausted).
    fn check_epoch(
        &self,
        epoch: i16,
        offset: Offset,
        transaction_version: i16,
    ) -> std::result::Result<(), ProducerStateError> {
        let current_epoch = self.updated.producer_epoch;
        let v2 = transaction_version >= 2;
        let fenced = if v2 { epoch <= current_epoch } else { epoch < current_epoch };
        if !fenced || self.context.origin == AppendOrigin::Replication {
            return Ok(());
        }
        let marker_retry =
            v2 && epoch == current_epoch && (self.updated.current_txn_first_offset.is_none() || epoch == i16::MAX);
        if marker_retry {
            return Ok(());
        }
        Err(ProducerStateError::InvalidProducerEpoch { producer_id: self.producer_id, offset, epoch, current_epoch })
    }

    /// Kafka's `checkSequence`: a new epoch starts at sequence 0 (unless the producer was
    /// unknown); within an epoch each batch continues the last (wrapping at `i32::MAX`); a
    /// producer whose state was lost (no epoch) may continue anywhere, except a transactions-V2
    /// producer being verified, which must start at 0; and while a transaction is being
    /// verified, no batch may skip ahead of the lowest sequence seen.
    fn check_sequence(
        &self,
        epoch: i16,
        first_seq: i32,
        offset: Offset,
    ) -> std::result::Result<(), ProducerStateError> {
        let out_of_order = |reason: String| ProducerStateError::OutOfOrderSequence {
            producer_id: self.producer_id,
            offset,
            sequence: first_seq,
            reason,
        };
        let no_batches = self.current.is_none_or(|c| c.batches.is_empty());
        if let Some(verification) = self.verification
            && verification.supports_epoch_bump
            && first_seq != 0
            && no_batches
        {
            return Err(out_of_order("a transactions V2 producer with no state must start at sequence 0".to_owned()));
        }
        if let Some(verification) = self.verification
            && first_seq > verification.lowest_sequence
        {
            return Err(out_of_order(format!(
                "earliest sequence seen while verifying is {}",
                verification.lowest_sequence
            )));
        }
        let current_epoch = self.current.map_or(NO_PRODUCER_EPOCH, |c| c.producer_epoch);
        if epoch != self.updated.producer_epoch {
            if first_seq != 0 && self.updated.producer_epoch != NO_PRODUCER_EPOCH {
                return Err(out_of_order(format!("new epoch {epoch} must start at sequence 0")));
            }
            return Ok(());
        }
        let last_seq = if !self.updated.batches.is_empty() {
            self.updated.last_seq()
        } else if epoch == current_epoch {
            self.current.map_or(NO_SEQUENCE, |c| c.last_seq())
        } else {
            NO_SEQUENCE
        };
        if current_epoch != NO_PRODUCER_EPOCH && !in_sequence(last_seq, first_seq) {
            return Err(out_of_order(format!("expected the sequence after {last_seq}")));
        }
        Ok(())
    }
}

fn in_sequence(last_seq: i32, next_seq: i32) -> bool {
    i64::from(next_seq) == i64::from(last_seq) + 1 || (next_seq == 0 && last_seq == i32::MAX)
}

/// Kafka's `DefaultRecordBatch.decrementSequence`: sequences wrap from 0 back to `i32::MAX`.
pub(super) fn decrement_sequence(sequence: i32, decrement: i32) -> i32 {
    let previous = i64::from(sequence) - i64::from(decrement);
    // Wrapping keeps a corrupt (negative) delta from overflowing, as Java's int arithmetic does.
    if previous < 0 { (previous + i64::from(i32::MAX) + 1) as i32 } else { previous as i32 }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::ProducerStateConfig;
    use super::*;
    use crate::LogError;

    const PID: ProducerId = ProducerId(7);

    fn data(epoch: i16, base_seq: i32, count: i32, base_offset: Offset) -> ProducerBatch {
        ProducerBatch {
            producer_id: PID,
            producer_epoch: epoch,
            base_sequence: base_seq,
            last_sequence: base_seq + count - 1,
            base_offset,
            last_offset: base_offset + i64::from(count) - 1,
            max_timestamp: 1_000 + base_offset,
            kind: BatchKind::Data,
        }
    }

    fn apply(
        manager: &mut ProducerStateManager,
        batch: ProducerBatch,
    ) -> std::result::Result<AppendOutcome, ProducerStateError> {
        let outcome = manager.check_and_prepare(&[batch], AppendContext::client(VerificationGuard::SENTINEL))?;
        if let AppendOutcome::Append(append) = &outcome {
            for txn in manager.update(append.clone()) {
                manager.complete_txn(&txn);
            }
            manager.update_map_end_offset(batch.last_offset + 1);
        }
        Ok(outcome)
    }

    fn manager() -> std::result::Result<ProducerStateManager, LogError> {
        ProducerStateManager::open(Path::new("/nonexistent-strand-test-dir"), ProducerStateConfig::default())
    }

    type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

    /// Sequences wrap between `i32::MAX` and 0 in both directions, as Kafka's helpers do.
    #[test]
    fn sequences_wrap_at_i32_max() {
        assert_eq!(decrement_sequence(2, 5), i32::MAX - 2);
        assert_eq!(decrement_sequence(9, 5), 4);
        assert!(in_sequence(i32::MAX, 0));
        assert!(!in_sequence(i32::MAX, i32::MIN));
        let wrapped = BatchMetadata { last_seq: 1, last_offset: 100, offset_delta: 3, timestamp: 0 };
        assert_eq!((wrapped.first_seq(), wrapped.first_offset()), (i32::MAX - 1, 97));
    }

    /// A known producer must continue its sequence; a gap or a replay of an unremembered batch is
    /// out of order, and the state is unchanged by a failed check.
    #[test]
    fn gaps_are_out_of_order() -> TestResult {
        let mut m = manager()?;
        apply(&mut m, data(0, 0, 3, 0))?;
        let gap = apply(&mut m, data(0, 4, 1, 3));
        assert!(matches!(gap, Err(ProducerStateError::OutOfOrderSequence { sequence: 4, .. })));
        assert_eq!(m.last_entry(PID).map(|e| e.last_seq()), Some(2));
        assert!(matches!(apply(&mut m, data(0, 3, 1, 3))?, AppendOutcome::Append(_)));
        Ok(())
    }

    /// A retry of any of the last five batches is a duplicate answered with its original offsets;
    /// the sixth-oldest is forgotten.
    #[test]
    fn last_five_batches_are_duplicates() -> TestResult {
        let mut m = manager()?;
        for i in 0..6 {
            apply(&mut m, data(0, i * 2, 2, i64::from(i) * 10))?;
        }
        let retry = data(0, 2, 2, 999);
        let expected = BatchMetadata { last_seq: 3, last_offset: 11, offset_delta: 1, timestamp: 1_010 };
        assert_eq!(apply(&mut m, retry)?, AppendOutcome::Duplicate(expected));
        assert!(matches!(apply(&mut m, data(0, 0, 2, 999)), Err(ProducerStateError::OutOfOrderSequence { .. })));
        Ok(())
    }

    /// Epoch fencing: an older epoch is rejected for clients and accepted from replication; a
    /// new epoch must start at 0.
    #[test]
    fn epochs_fence_and_reset_sequences() -> TestResult {
        let mut m = manager()?;
        apply(&mut m, data(3, 0, 1, 0))?;
        assert!(matches!(apply(&mut m, data(2, 1, 1, 1)), Err(ProducerStateError::InvalidProducerEpoch { .. })));
        let old = m.check_and_prepare(&[data(2, 1, 1, 1)], AppendContext::replication());
        assert!(matches!(old, Ok(AppendOutcome::Append(_))));
        assert!(matches!(apply(&mut m, data(4, 5, 1, 1)), Err(ProducerStateError::OutOfOrderSequence { .. })));
        apply(&mut m, data(4, 0, 1, 1))?;
        assert_eq!(m.last_entry(PID).map(|e| (e.producer_epoch(), e.batches().count())), Some((4, 1)));
        Ok(())
    }

    /// An unknown producer may start at any sequence (its state may have been expired or
    /// truncated away), as Kafka accepts since KIP-360.
    #[test]
    fn unknown_producer_starts_anywhere() -> TestResult {
        let mut m = manager()?;
        assert!(matches!(apply(&mut m, data(0, 42, 1, 0))?, AppendOutcome::Append(_)));
        Ok(())
    }

    /// Verification guards: a first transactional write needs the current guard; a marker in
    /// between drops it, so a stale guard fails.
    #[test]
    fn transactional_writes_need_verification() -> TestResult {
        let mut m = manager()?;
        let txn_batch = ProducerBatch { kind: BatchKind::TransactionalData, ..data(0, 0, 1, 0) };
        let unverified = m.check_and_prepare(&[txn_batch], AppendContext::client(VerificationGuard::SENTINEL));
        assert!(matches!(unverified, Err(ProducerStateError::InvalidTxnState { .. })));
        let guard = m.maybe_start_txn_verification(PID, 0, 0, false, 0)?;
        assert_ne!(guard, VerificationGuard::SENTINEL);
        assert_eq!(m.maybe_start_txn_verification(PID, 0, 0, false, 0)?, guard);
        let AppendOutcome::Append(append) = m.check_and_prepare(&[txn_batch], AppendContext::client(guard))? else {
            return Err("expected an append".into());
        };
        m.update(append);
        assert_eq!(m.verification_guard(PID), VerificationGuard::SENTINEL);
        assert!(m.has_ongoing_transaction(PID, 0));
        assert_eq!(m.maybe_start_txn_verification(PID, 1, 0, false, 0)?, VerificationGuard::SENTINEL);
        Ok(())
    }
}
