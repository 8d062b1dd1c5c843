//! What the cleaner keeps of one batch (Kafka's `Cleaner.cleanInto` retention rules and
//! `CleanedTransactionMetadata`).
//!
//! - A data record is kept if it is the latest for its key in the offset map (or its key is not
//!   in the map, or it lies past the map's end); a record without a key is kept (Kafka rejects
//!   them on produce to compacted topics, and drops any it finds; here they stay).
//! - A tombstone (null value) that is the latest for its key is kept, and its batch gets a delete
//!   horizon of now + `delete.retention.ms` the first time; once a cleaning runs at or after the
//!   horizon, it is removed (KIP-534).
//! - Data of aborted transactions is removed. A COMMIT marker is kept while this pass still saw
//!   data of its transaction, an ABORT marker while it saw any batch of it; once removable, a
//!   marker gets a delete horizon and goes after it, as tombstones do.
//! - The last batch of each active producer is kept, emptied if nothing in it is kept, so the
//!   producer state rebuilt from the log still detects that producer's retries.

use std::collections::{BTreeMap, HashSet, VecDeque};

use bytes::Bytes;
use strand_base::Offset;
use strand_protocol::records::{ControlRecordType, Record, RecordBatch};

use super::batch_writer::{empty_batch, rebuild_batch};
use super::offset_map::OffsetMap;
use crate::index::AbortedTxn;
use crate::{LogError, Result};

/// What one active producer last wrote: the last offset of its last data batch (-1 if it only
/// wrote markers) and its epoch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LastBatch {
    pub data_offset: Offset,
    pub epoch: i16,
}

/// What a cleaning pass knows while it filters batches.
#[derive(Debug)]
pub(crate) struct FilterContext<'a> {
    pub map: &'a OffsetMap,
    /// Records at or past this offset were not mapped: they are kept as they are.
    pub map_end: Offset,
    pub now_ms: i64,
    pub delete_retention_ms: i64,
    pub last_batches: &'a BTreeMap<i64, LastBatch>,
}

/// What becomes of one batch.
#[derive(Debug)]
pub(crate) enum Filtered {
    /// Written as it was.
    Unchanged,
    /// Written as these bytes instead (fewer records, a delete horizon, or empty).
    Rebuilt(Bytes),
    /// Not written.
    Dropped,
}

/// The filtering of one batch, with what was counted.
#[derive(Debug)]
pub(crate) struct Outcome {
    pub filtered: Filtered,
    pub records_read: u64,
    pub records_kept: u64,
}

/// Filters one batch of a segment being cleaned. Decodes the batch's records: compacted logs are
/// one of design §3's documented exceptions to "the log never decodes records" (with bounded
/// decompression, `DECOMPRESSED_BATCH_BYTES_MAX`).
pub(crate) fn filter_batch(batch: &RecordBatch, cx: &FilterContext<'_>, txns: &mut TxnTracker) -> Result<Outcome> {
    let unchanged = Outcome { filtered: Filtered::Unchanged, records_read: 0, records_kept: 0 };
    if batch.base_offset() >= cx.map_end {
        return Ok(unchanged);
    }
    let control = batch.attributes().is_control();
    let horizon = batch.delete_horizon_ms();
    let (discard_records, removable_marker) = if control {
        let can_discard = txns.on_control_batch_read(batch)?;
        (can_discard && horizon.is_some_and(|h| h <= cx.now_ms), can_discard)
    } else {
        (txns.on_batch_read(batch), false)
    };
    let retain_empty = batch.producer_id().0 >= 0 && is_last_batch_of_producer(batch, cx.last_batches);
    let empty_or_dropped = || -> Result<Filtered> {
        Ok(match (retain_empty, batch.record_count()) {
            (true, 0) => Filtered::Unchanged,
            (true, _) => Filtered::Rebuilt(empty_batch(batch)?),
            (false, _) => Filtered::Dropped,
        })
    };
    if discard_records {
        return Ok(Outcome { filtered: empty_or_dropped()?, records_read: 0, records_kept: 0 });
    }
    let records = batch.records().map_err(|e| LogError::InvalidBatch(e.to_string()))?;
    let mut kept: Vec<Record<'_>> = Vec::new();
    let mut tombstones = false;
    let mut read = 0u64;
    for record in records.iter() {
        let record = record.map_err(|e| LogError::InvalidBatch(e.to_string()))?;
        read += 1;
        if control || retain_record(batch, &record, horizon, cx) {
            tombstones |= !control && record.value().is_none();
            kept.push(record);
        }
    }
    let records_kept = kept.len() as u64;
    if kept.is_empty() {
        return Ok(Outcome { filtered: empty_or_dropped()?, records_read: read, records_kept });
    }
    let needs_horizon = (tombstones || removable_marker) && horizon.is_none();
    let filtered = if records_kept == read && !needs_horizon {
        Filtered::Unchanged
    } else {
        let horizon = horizon.or(needs_horizon.then(|| cx.now_ms.saturating_add(cx.delete_retention_ms)));
        Filtered::Rebuilt(rebuild_batch(batch, &kept, horizon)?)
    };
    Ok(Outcome { filtered, records_read: read, records_kept })
}

/// Kafka's `shouldRetainRecord` for a data record (keyless records kept, see the module doc).
fn retain_record(batch: &RecordBatch, record: &Record<'_>, horizon: Option<i64>, cx: &FilterContext<'_>) -> bool {
    let offset = batch.record_offset(record);
    if offset >= cx.map_end {
        return true;
    }
    let Some(key) = record.key() else { return true };
    let latest = cx.map.get(key).is_none_or(|latest| offset >= latest);
    latest && (record.value().is_some() || horizon.is_none_or(|h| cx.now_ms < h))
}

/// Whether `batch` holds its producer's last sequence (or, for a producer that only wrote
/// markers, is its last marker): such a batch is kept, if only as an empty header.
fn is_last_batch_of_producer(batch: &RecordBatch, last_batches: &BTreeMap<i64, LastBatch>) -> bool {
    last_batches.get(&batch.producer_id().0).is_some_and(|last| {
        if last.data_offset >= 0 {
            batch.last_offset() == last.data_offset
        } else {
            batch.attributes().is_control() && batch.producer_epoch() == last.epoch
        }
    })
}

/// The transactions a pass walks through (Kafka's `CleanedTransactionMetadata`): which batches
/// are aborted data, and which markers still mark something.
#[derive(Debug, Default)]
pub(crate) struct TxnTracker {
    /// Aborted transactions not yet reached, by first offset.
    pending: VecDeque<AbortedTxn>,
    /// Aborted transactions under way, by producer id, and whether this pass saw a batch of one.
    ongoing_aborted: BTreeMap<i64, bool>,
    /// Producers whose transaction under way is not aborted and had data in this pass.
    ongoing_committed: HashSet<i64>,
}

impl TxnTracker {
    /// A tracker over the aborted transactions (from the transaction indexes) of the range.
    pub(crate) fn new(mut aborted: Vec<AbortedTxn>) -> TxnTracker {
        aborted.sort_by_key(|txn| (txn.first_offset, txn.producer_id));
        aborted.dedup();
        TxnTracker { pending: aborted.into(), ..TxnTracker::default() }
    }

    fn consume_up_to(&mut self, offset: Offset) {
        while self.pending.front().is_some_and(|txn| txn.first_offset <= offset) {
            if let Some(txn) = self.pending.pop_front() {
                self.ongoing_aborted.entry(txn.producer_id).or_insert(false);
            }
        }
    }

    /// A data batch: whether it belongs to an aborted transaction.
    pub(crate) fn on_batch_read(&mut self, batch: &RecordBatch) -> bool {
        self.consume_up_to(batch.last_offset());
        if !batch.attributes().is_transactional() {
            return false;
        }
        let producer_id = batch.producer_id().0;
        match self.ongoing_aborted.get_mut(&producer_id) {
            Some(seen) => {
                *seen = true;
                true
            }
            None => {
                self.ongoing_committed.insert(producer_id);
                false
            }
        }
    }

    /// A control batch: whether its marker no longer marks anything this pass kept (it may then
    /// go once its delete horizon passes). An already emptied control batch may go.
    pub(crate) fn on_control_batch_read(&mut self, batch: &RecordBatch) -> Result<bool> {
        self.consume_up_to(batch.last_offset());
        let Some(marker) = control_type(batch)? else { return Ok(true) };
        let producer_id = batch.producer_id().0;
        Ok(match marker {
            ControlRecordType::Abort => !self.ongoing_aborted.remove(&producer_id).unwrap_or(false),
            ControlRecordType::Commit => !self.ongoing_committed.remove(&producer_id),
            _ => false,
        })
    }
}

/// The type of a control batch's (first) record; `None` for an empty batch.
pub(crate) fn control_type(batch: &RecordBatch) -> Result<Option<ControlRecordType>> {
    let invalid = |e: strand_protocol::records::RecordsError| LogError::InvalidBatch(e.to_string());
    // A marker is a few bytes; a control batch that inflates past this is corrupt.
    const CONTROL_RECORDS_BYTES_MAX: usize = 64 * 1024;
    let records = batch.records_with_limit(CONTROL_RECORDS_BYTES_MAX).map_err(invalid)?;
    let Some(record) = records.iter().next() else { return Ok(None) };
    let record = record.map_err(invalid)?;
    let key = record.key().unwrap_or_default();
    Ok(Some(ControlRecordType::decode_key(key).map_err(invalid)?))
}
