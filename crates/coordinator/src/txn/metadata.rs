//! [`TxnMetadata`]: what the coordinator knows of one transactional id, and the transitions
//! Kafka's `TransactionMetadata` prepares (`prepareIncrementProducerEpoch`,
//! `prepareAddPartitions`, `prepareAbortOrCommit`, `prepareComplete`, ...), each a pure function
//! from the current metadata to the metadata a record will carry. Nothing here changes a shard:
//! the shard writes the returned metadata as a record and replays it.

use std::collections::BTreeSet;

use strand_base::TopicPartition;
use strand_protocol::codec::RawTaggedField;

use super::state::TxnState;

/// No producer id (the wire's -1).
pub const NO_PRODUCER_ID: i64 = -1;
/// No producer epoch (the wire's -1).
pub const NO_PRODUCER_EPOCH: i16 = -1;

/// The first `transaction.version` (and `ClientTransactionVersion`) with a new producer epoch
/// per transaction (KIP-890 part 2).
pub const TRANSACTION_VERSION_2: i16 = 2;

/// Whether a producer id's epochs are used up: Kafka keeps `i16::MAX` back so that the
/// coordinator can always fence a producer with one more bump.
pub fn is_epoch_exhausted(epoch: i16) -> bool {
    epoch >= i16::MAX - 1
}

/// One transactional id's state, as the latest record of `__transaction_state` for it says.
///
/// Every field but `last_producer_epoch` is in the record (`TransactionLogValue`);
/// `last_producer_epoch` is not in Kafka's format either: it lives in memory only, set by the
/// record an operation wrote (and carried in the in-memory [`super::records::TxnRecord`]), and
/// is `-1` after a load, as in Kafka. It only lets a producer's retried InitProducerId (KIP-360)
/// be recognised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnMetadata {
    pub producer_id: i64,
    /// The producer id before the last InitProducerId or (transactions V2) the last completed
    /// transaction; recognises a retried request after the id rotated.
    pub previous_producer_id: i64,
    /// Transactions V2: the id the producer moves to when this transaction completes, because its
    /// epochs are exhausted; -1 otherwise.
    pub next_producer_id: i64,
    pub producer_epoch: i16,
    /// In memory only (see above).
    pub last_producer_epoch: i16,
    pub timeout_ms: i32,
    pub state: TxnState,
    /// The partitions of the ongoing transaction; empty once it completed.
    pub partitions: BTreeSet<TopicPartition>,
    /// When the first partition was added, -1 when no transaction ever started.
    pub start_timestamp_ms: i64,
    pub last_update_timestamp_ms: i64,
    /// The `transaction.version` the client used for the last transition (0, 1 or 2).
    pub client_transaction_version: i16,
    /// `NextProducerEpoch` (tag 3, Kafka's two-phase commit), kept as read; Strand writes -1.
    pub next_producer_epoch: i16,
    /// Tagged fields this build does not know, kept through replay and written back unchanged.
    pub unknown_tagged_fields: Vec<RawTaggedField>,
}

impl TxnMetadata {
    /// A transactional id seen for the first time: `producer_id` fresh, no epoch yet.
    pub fn new(producer_id: i64, timeout_ms: i32, now_ms: i64) -> Self {
        TxnMetadata {
            producer_id,
            previous_producer_id: NO_PRODUCER_ID,
            next_producer_id: NO_PRODUCER_ID,
            producer_epoch: NO_PRODUCER_EPOCH,
            last_producer_epoch: NO_PRODUCER_EPOCH,
            timeout_ms,
            state: TxnState::Empty,
            partitions: BTreeSet::new(),
            start_timestamp_ms: -1,
            last_update_timestamp_ms: now_ms,
            client_transaction_version: 0,
            next_producer_epoch: NO_PRODUCER_EPOCH,
            unknown_tagged_fields: Vec::new(),
        }
    }

    pub fn is_epoch_exhausted(&self) -> bool {
        is_epoch_exhausted(self.producer_epoch)
    }

    /// The same metadata in state `to`: panics on a transition Kafka's table forbids (a bug in
    /// the operation asking for it, never the client's doing).
    fn transit(&self, to: TxnState) -> TxnMetadata {
        assert!(to.can_follow(self.state), "illegal transaction state transition {} -> {to}", self.state);
        TxnMetadata { state: to, ..self.clone() }
    }

    /// InitProducerId's epoch bump (Kafka's `prepareIncrementProducerEpoch`): `epoch` and
    /// `last_epoch` as decided from the request, a new timeout, no transaction.
    pub fn prepare_init(&self, epoch: i16, last_epoch: i16, timeout_ms: i32, now_ms: i64) -> TxnMetadata {
        TxnMetadata {
            previous_producer_id: self.producer_id,
            producer_epoch: epoch,
            last_producer_epoch: last_epoch,
            timeout_ms,
            partitions: BTreeSet::new(),
            start_timestamp_ms: -1,
            last_update_timestamp_ms: now_ms,
            ..self.transit(TxnState::Empty)
        }
    }

    /// InitProducerId with the epochs exhausted: a new producer id at epoch 0.
    pub fn prepare_rotation(&self, producer_id: i64, last_epoch: i16, timeout_ms: i32, now_ms: i64) -> TxnMetadata {
        TxnMetadata { producer_id, ..self.prepare_init(0, last_epoch, timeout_ms, now_ms) }
    }

    /// AddPartitionsToTxn and AddOffsetsToTxn: the transaction starts (or goes on) with `added`.
    pub fn prepare_add_partitions(
        &self,
        added: &BTreeSet<TopicPartition>,
        client_transaction_version: i16,
        now_ms: i64,
    ) -> TxnMetadata {
        let start_timestamp_ms = match self.state {
            TxnState::Empty | TxnState::CompleteCommit | TxnState::CompleteAbort => now_ms,
            _ => self.start_timestamp_ms,
        };
        let mut partitions = self.partitions.clone();
        partitions.extend(added.iter().cloned());
        TxnMetadata {
            partitions,
            start_timestamp_ms,
            last_update_timestamp_ms: now_ms,
            client_transaction_version,
            ..self.transit(TxnState::Ongoing)
        }
    }

    /// EndTxn's decision (Kafka's `prepareAbortOrCommit`): under transactions V2 the epoch is
    /// bumped (the new one fences the finished transaction's late writes), and `next_producer_id`
    /// is where the producer goes if that used the last epoch. An abort with no partition added
    /// (V2 only) starts its "transaction" now.
    pub fn prepare_end(
        &self,
        to: TxnState,
        client_transaction_version: i16,
        next_producer_id: i64,
        no_partition_added: bool,
        now_ms: i64,
    ) -> TxnMetadata {
        debug_assert!(to.is_prepare());
        let (producer_epoch, last_producer_epoch) = if client_transaction_version >= TRANSACTION_VERSION_2 {
            (self.producer_epoch.saturating_add(1), self.producer_epoch)
        } else {
            (self.producer_epoch, self.last_producer_epoch)
        };
        let start_timestamp_ms = if no_partition_added { now_ms } else { self.start_timestamp_ms };
        TxnMetadata {
            producer_epoch,
            last_producer_epoch,
            next_producer_id,
            start_timestamp_ms,
            last_update_timestamp_ms: now_ms,
            client_transaction_version,
            ..self.transit(to)
        }
    }

    /// The coordinator aborts an ongoing transaction (InitProducerId from a new producer
    /// instance, or a timeout), fencing the transaction's producer with a new epoch.
    ///
    /// With `transaction_version` 2 the abort's own bump is the fence, as in Kafka 4.4 (whose
    /// `PrepareEpochFence` stays a pending state that is never completed): the epoch goes up by
    /// one, the fenced epoch is kept as the last one, so that the fenced producer's KIP-360
    /// InitProducerId retry (or its EndTxn abort, a retry of this one) is recognised instead of
    /// fenced, and `next_producer_id` is where the producer goes if the epochs are exhausted.
    /// Before, the fence bumps the epoch (`prepareFenceProducerEpoch`), forgets the last one, and
    /// the abort keeps it; the id never rotates there.
    pub fn prepare_fence_and_abort(&self, transaction_version: i16, next_producer_id: i64, now_ms: i64) -> TxnMetadata {
        if transaction_version >= TRANSACTION_VERSION_2 {
            return self.prepare_end(TxnState::PrepareAbort, transaction_version, next_producer_id, false, now_ms);
        }
        let fenced = self.transit(TxnState::PrepareEpochFence);
        let fenced = TxnMetadata {
            producer_epoch: self.producer_epoch.saturating_add(1),
            last_producer_epoch: NO_PRODUCER_EPOCH,
            ..fenced
        };
        fenced.prepare_end(TxnState::PrepareAbort, transaction_version, NO_PRODUCER_ID, false, now_ms)
    }

    /// Every marker is written (Kafka's `prepareComplete`): the transaction is over, and under
    /// V2 the producer moves to `next_producer_id` at epoch 0 if it had one.
    pub fn prepare_complete(&self, now_ms: i64) -> TxnMetadata {
        let to = if self.state == TxnState::PrepareCommit { TxnState::CompleteCommit } else { TxnState::CompleteAbort };
        let v2 = self.client_transaction_version >= TRANSACTION_VERSION_2;
        let (producer_id, producer_epoch) = if v2 && self.next_producer_id != NO_PRODUCER_ID {
            (self.next_producer_id, 0)
        } else {
            (self.producer_id, self.producer_epoch)
        };
        let previous_producer_id = if v2 { self.producer_id } else { self.previous_producer_id };
        TxnMetadata {
            producer_id,
            producer_epoch,
            previous_producer_id,
            next_producer_id: NO_PRODUCER_ID,
            partitions: BTreeSet::new(),
            last_update_timestamp_ms: now_ms,
            ..self.transit(to)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tp(topic: &str, partition: i32) -> TopicPartition {
        TopicPartition::new(topic, partition)
    }

    fn ongoing(epoch: i16) -> TxnMetadata {
        let txn = TxnMetadata::new(7, 60_000, 0).prepare_init(epoch, NO_PRODUCER_EPOCH, 60_000, 1);
        txn.prepare_add_partitions(&BTreeSet::from([tp("t", 0)]), 0, 2)
    }

    /// A transaction's start time is set by its first partition only.
    #[test]
    fn start_time_is_the_first_add() {
        let txn = ongoing(0);
        assert_eq!((txn.state, txn.start_timestamp_ms), (TxnState::Ongoing, 2));
        let more = txn.prepare_add_partitions(&BTreeSet::from([tp("t", 1)]), 0, 5);
        assert_eq!(more.start_timestamp_ms, 2);
        assert_eq!(more.partitions.len(), 2);
    }

    /// V1 ends keep the epoch; V2 ends bump it and remember the old one.
    #[test]
    fn only_v2_ends_bump_the_epoch() {
        let txn = ongoing(4);
        let v1 = txn.prepare_end(TxnState::PrepareCommit, 0, NO_PRODUCER_ID, false, 9);
        assert_eq!((v1.producer_epoch, v1.last_producer_epoch), (4, NO_PRODUCER_EPOCH));
        let v2 = txn.prepare_end(TxnState::PrepareCommit, 2, NO_PRODUCER_ID, false, 9);
        assert_eq!((v2.producer_epoch, v2.last_producer_epoch), (5, 4));
        let done = v2.prepare_complete(10);
        assert_eq!((done.state, done.producer_id, done.producer_epoch), (TxnState::CompleteCommit, 7, 5));
        assert!(done.partitions.is_empty());
    }

    /// A V2 end at the last epoch completes on the next producer id, at epoch 0.
    #[test]
    fn v2_overflow_moves_to_the_next_producer_id() {
        let txn = ongoing(i16::MAX - 1);
        let prepared = txn.prepare_end(TxnState::PrepareAbort, 2, 99, false, 9);
        assert_eq!((prepared.producer_epoch, prepared.next_producer_id), (i16::MAX, 99));
        let done = prepared.prepare_complete(10);
        assert_eq!((done.producer_id, done.producer_epoch, done.previous_producer_id), (99, 0, 7));
        assert_eq!(done.last_producer_epoch, i16::MAX - 1);
    }

    /// Fencing bumps the epoch once: under V1 the last epoch is forgotten, under V2 it is the
    /// fenced one (so that the fenced producer's retry is recognised), never past `i16::MAX`.
    #[test]
    fn fencing_bumps_once_and_aborts() {
        let v1 = ongoing(3).prepare_fence_and_abort(1, NO_PRODUCER_ID, 9);
        assert_eq!(
            (v1.state, v1.producer_epoch, v1.last_producer_epoch),
            (TxnState::PrepareAbort, 4, NO_PRODUCER_EPOCH)
        );
        let v2 = ongoing(3).prepare_fence_and_abort(2, NO_PRODUCER_ID, 9);
        assert_eq!((v2.state, v2.producer_epoch, v2.last_producer_epoch), (TxnState::PrepareAbort, 4, 3));
        assert_eq!(v2.client_transaction_version, 2);
        let done = v2.prepare_complete(10);
        assert_eq!((done.producer_id, done.producer_epoch, done.last_producer_epoch), (7, 4, 3));
        let edge = ongoing(i16::MAX - 1).prepare_fence_and_abort(1, NO_PRODUCER_ID, 9);
        assert_eq!(edge.producer_epoch, i16::MAX);
        let rotated = ongoing(i16::MAX - 1).prepare_fence_and_abort(2, 99, 9).prepare_complete(10);
        assert_eq!((rotated.producer_id, rotated.producer_epoch, rotated.last_producer_epoch), (99, 0, i16::MAX - 1));
    }

    /// Asking for a transition Kafka forbids is a bug, caught at once.
    #[test]
    #[should_panic(expected = "illegal transaction state transition")]
    fn an_illegal_transition_panics() {
        let _ = TxnMetadata::new(1, 1, 0).prepare_complete(1);
    }
}
