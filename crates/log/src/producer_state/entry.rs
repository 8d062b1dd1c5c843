//! One producer as the partition sees it: [`ProducerBatch`], the header fields read from one
//! batch, and [`ProducerStateEntry`], the producer's epoch, its last batches ([`BatchMetadata`])
//! and its open transaction. Only the manager changes an entry.

use std::collections::VecDeque;

use strand_base::{Offset, ProducerId};
use strand_protocol::records::{EndTxnMarker, RecordBatch, TransactionResult};

use super::append::decrement_sequence;
use super::{NO_PRODUCER_EPOCH, NO_SEQUENCE, NUM_BATCHES_TO_RETAIN, ProducerStateError};

/// What a control batch holds, for the producer state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxnMarker {
    pub result: TransactionResult,
    pub coordinator_epoch: i32,
    /// The marker record's timestamp.
    pub timestamp: i64,
}

/// The kind of batch, as the producer state sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchKind {
    Data,
    TransactionalData,
    /// A control batch: its transaction marker, or `None` if the cleaner emptied it.
    Control(Option<TxnMarker>),
}

/// The header fields of one batch that the producer state reads, with offsets already assigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerBatch {
    pub producer_id: ProducerId,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub last_sequence: i32,
    pub base_offset: Offset,
    pub last_offset: Offset,
    pub max_timestamp: i64,
    pub kind: BatchKind,
}

impl ProducerBatch {
    /// Reads a stored batch's header. A control batch's one record is decoded to read its
    /// marker: an exception to "never decode records" that Kafka makes too, for batches the
    /// transaction coordinator wrote, never for producers' data.
    pub fn from_batch(batch: &RecordBatch) -> std::result::Result<ProducerBatch, ProducerStateError> {
        let attributes = batch.attributes();
        // Delayed delivery's pending batch stands in for the producer's data batch: its
        // sequence and transaction are the producer's (`records::delayed`).
        // A cancel batch too, in place of the producer's batch of cancellations.
        let pending = strand_protocol::records::delayed::may_be_delayed(attributes)
            && matches!(
                strand_protocol::records::delayed::delayed_kind(batch),
                Some(
                    strand_protocol::records::delayed::DelayedKind::Pending
                        | strand_protocol::records::delayed::DelayedKind::Cancel
                )
            );
        let kind = if pending && attributes.is_transactional() {
            BatchKind::TransactionalData
        } else if pending {
            BatchKind::Data
        } else if attributes.is_control() && batch.producer_id().0 >= 0 {
            BatchKind::Control(read_marker(batch)?)
        } else if attributes.is_control() {
            // KRaft's own control records carry no producer id; the producer state ignores them.
            BatchKind::Control(None)
        } else if attributes.is_transactional() {
            BatchKind::TransactionalData
        } else {
            BatchKind::Data
        };
        Ok(ProducerBatch {
            producer_id: batch.producer_id(),
            producer_epoch: batch.producer_epoch(),
            base_sequence: batch.base_sequence(),
            last_sequence: batch.last_sequence(),
            base_offset: batch.base_offset(),
            last_offset: batch.last_offset(),
            max_timestamp: batch.max_timestamp(),
            kind,
        })
    }

    pub(super) fn is_transactional(&self) -> bool {
        !matches!(self.kind, BatchKind::Data)
    }
}

fn read_marker(batch: &RecordBatch) -> std::result::Result<Option<TxnMarker>, ProducerStateError> {
    let invalid = |e: strand_protocol::records::RecordsError| ProducerStateError::InvalidControlBatch(e.to_string());
    // A marker is a few dozen bytes; a control batch that inflates past this is corrupt.
    const CONTROL_RECORDS_BYTES_MAX: usize = 64 * 1024;
    let records = batch.records_with_limit(CONTROL_RECORDS_BYTES_MAX).map_err(invalid)?;
    let Some(record) = records.iter().next() else { return Ok(None) };
    let record = record.map_err(invalid)?;
    let (result, marker) = EndTxnMarker::from_record(&record).map_err(invalid)?;
    let timestamp = batch.record_timestamp(&record);
    Ok(Some(TxnMarker { result, coordinator_epoch: marker.coordinator_epoch, timestamp }))
}

/// One appended batch of a producer, as remembered for duplicate detection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchMetadata {
    pub last_seq: i32,
    pub last_offset: Offset,
    /// `last_offset - first_offset`, which is also `last_seq - first_seq` (modulo wrapping).
    pub offset_delta: i32,
    /// The batch's max timestamp.
    pub timestamp: i64,
}

impl BatchMetadata {
    pub fn first_seq(&self) -> i32 {
        decrement_sequence(self.last_seq, self.offset_delta)
    }

    pub fn first_offset(&self) -> Offset {
        self.last_offset - i64::from(self.offset_delta)
    }
}

/// One producer's state (Kafka's `ProducerStateEntry`). Changed only by the manager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProducerStateEntry {
    pub(super) producer_id: ProducerId,
    pub(super) producer_epoch: i16,
    pub(super) coordinator_epoch: i32,
    pub(super) last_timestamp: i64,
    pub(super) current_txn_first_offset: Option<Offset>,
    /// Oldest first, at most [`NUM_BATCHES_TO_RETAIN`], all of `producer_epoch`.
    pub(super) batches: VecDeque<BatchMetadata>,
}

impl ProducerStateEntry {
    /// A producer not seen before.
    pub fn empty(producer_id: ProducerId) -> Self {
        ProducerStateEntry {
            producer_id,
            producer_epoch: NO_PRODUCER_EPOCH,
            coordinator_epoch: -1,
            last_timestamp: -1,
            current_txn_first_offset: None,
            batches: VecDeque::new(),
        }
    }

    pub fn producer_id(&self) -> ProducerId {
        self.producer_id
    }

    pub fn producer_epoch(&self) -> i16 {
        self.producer_epoch
    }

    pub fn coordinator_epoch(&self) -> i32 {
        self.coordinator_epoch
    }

    /// The max timestamp of its last batch, or the timestamp of its last marker.
    pub fn last_timestamp(&self) -> i64 {
        self.last_timestamp
    }

    /// The first offset of its open transaction, if any.
    pub fn current_txn_first_offset(&self) -> Option<Offset> {
        self.current_txn_first_offset
    }

    /// Its remembered batches, oldest first.
    pub fn batches(&self) -> impl Iterator<Item = &BatchMetadata> {
        self.batches.iter()
    }

    /// The last sequence written, or [`NO_SEQUENCE`].
    pub fn last_seq(&self) -> i32 {
        self.batches.back().map_or(NO_SEQUENCE, |b| b.last_seq)
    }

    /// The last offset of its last batch, or -1.
    pub fn last_data_offset(&self) -> Offset {
        self.batches.back().map_or(-1, |b| b.last_offset)
    }

    /// The remembered batch with exactly this epoch and sequence range: a retry of it.
    pub fn find_duplicate(&self, epoch: i16, first_seq: i32, last_seq: i32) -> Option<BatchMetadata> {
        if epoch != self.producer_epoch {
            return None;
        }
        self.batches.iter().find(|b| b.first_seq() == first_seq && b.last_seq == last_seq).copied()
    }

    fn maybe_update_epoch(&mut self, epoch: i16) {
        if self.producer_epoch != epoch {
            self.batches.clear();
            self.producer_epoch = epoch;
        }
    }

    pub(super) fn add_batch(&mut self, epoch: i16, batch: BatchMetadata) {
        self.maybe_update_epoch(epoch);
        self.push_batch(batch);
        self.last_timestamp = batch.timestamp;
    }

    fn push_batch(&mut self, batch: BatchMetadata) {
        if self.batches.len() == NUM_BATCHES_TO_RETAIN {
            self.batches.pop_front();
        }
        self.batches.push_back(batch);
    }

    /// Takes over `next`, the state an append computed from this one (Kafka's `update`).
    pub(super) fn merge(&mut self, next: ProducerStateEntry) {
        self.maybe_update_epoch(next.producer_epoch);
        for batch in next.batches {
            self.push_batch(batch);
        }
        self.coordinator_epoch = next.coordinator_epoch;
        self.current_txn_first_offset = next.current_txn_first_offset;
        self.last_timestamp = next.last_timestamp;
    }

    /// The state after a transaction marker: the transaction is over.
    pub(super) fn end_txn(&mut self, epoch: i16, coordinator_epoch: i32, timestamp: i64) {
        self.maybe_update_epoch(epoch);
        self.coordinator_epoch = coordinator_epoch;
        self.current_txn_first_offset = None;
        self.last_timestamp = timestamp;
    }

    pub(super) fn is_expired(&self, now_ms: i64, producer_id_expiration_ms: i64) -> bool {
        self.current_txn_first_offset.is_none()
            && now_ms.saturating_sub(self.last_timestamp) >= producer_id_expiration_ms
    }
}
