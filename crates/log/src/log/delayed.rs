//! Delayed delivery on the log ([`crate::delayed`]): keeping the index as batches are appended,
//! rebuilding it, and the leader's delivery of due records: a delivered batch naming them and a
//! data batch holding copies of them, appended one after the other.

use std::collections::HashMap;

use bytes::{Bytes, BytesMut};
use strand_base::{LeaderEpoch, Offset};
use strand_protocol::records::delayed::{
    DelayedKind, PendingRecord, delayed_kind, delivered_batch, delivery_batch, read_pending,
};
use strand_protocol::records::{RecordBatch, RecordBatchMut};

use super::Log;
use super::append::replay_batch;
use crate::{LogError, Result};

/// At most this many records go in one delivery (one data batch).
pub const DELIVERY_RECORDS_MAX: usize = 1_000;
/// A delivery's data batch stops growing past this many bytes of keys, values and headers (one
/// record larger than this still goes, alone).
pub const DELIVERY_BYTES_MAX: usize = 1 << 20;

/// What one delivery appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivery {
    /// How many due records the data batch holds.
    pub records: usize,
    /// The data batch's first offset.
    pub first_offset: Offset,
}

impl Log {
    /// Before `batch` is written: a partition's first pending batch makes its delayed-delivery
    /// checkpoint durable first, so a restart knows to read the log for it.
    pub(super) fn prepare_delayed(&mut self, batch: &RecordBatch) -> Result<()> {
        if !self.delayed.in_use() && delayed_kind(batch) == Some(DelayedKind::Pending) {
            let dir = self.dir.clone();
            self.delayed.write_checkpoint(&dir, batch.base_offset())?;
        }
        Ok(())
    }

    /// After `batch` was written: the index takes it in. A pending or delivered batch this build
    /// cannot read (only a corrupt log could hold one) is logged and left out.
    pub(super) fn observe_delayed(&mut self, batch: &RecordBatch) {
        if let Err(e) = self.delayed.observe(batch) {
            unreadable(&self.dir, batch, &e);
        }
    }

    /// Rebuilds the index from the log, from its checkpoint (or the log start offset, if later).
    pub(super) fn rebuild_delayed(&mut self) -> Result<()> {
        let Some(checkpoint) = self.delayed.checkpoint() else { return Ok(()) };
        self.delayed.clear();
        let from = checkpoint.max(self.log_start_offset);
        let first = self.segments.range(..=from).next_back().map(|(b, _)| *b).unwrap_or(Offset::MIN);
        let mut index = std::mem::take(&mut self.delayed);
        let scanned = (|| -> Result<()> {
            for segment in self.segments.range(first..).map(|(_, s)| s) {
                let Some(start) = segment.translate_offset(from)? else { continue };
                let mut position = start.position;
                while let Some(batch) = segment.batch_at(position)? {
                    position += batch.size_in_bytes() as u64;
                    if let Err(e) = index.observe(&batch) {
                        unreadable(&self.dir, &batch, &e);
                    }
                }
            }
            Ok(())
        })();
        self.delayed = index;
        scanned?;
        self.delayed.drop_below(self.log_start_offset);
        Ok(())
    }

    /// Moves the checkpoint up to the first record not delivered (or the log end), at a roll.
    pub(super) fn advance_delayed_checkpoint(&mut self) -> Result<()> {
        if self.delayed.in_use() {
            let floor = self.delayed.floor().unwrap_or_else(|| self.log_end_offset());
            let dir = self.dir.clone();
            self.delayed.write_checkpoint(&dir, floor)?;
        }
        Ok(())
    }

    /// The index of the records not delivered yet.
    pub fn delayed(&self) -> &crate::delayed::DelayedIndex {
        &self.delayed
    }

    /// As the leader at `leader_epoch`: first completes a delivery a crash or a leader change
    /// left without its data batch; otherwise delivers the records due at `now` below
    /// `committed` (the high watermark), earliest first: a delivered batch naming them, then a
    /// data batch of copies of them (timestamps kept, or `now` under the config's
    /// `log_append_time`). `None` if nothing was due.
    pub fn deliver_due(&mut self, now: i64, committed: Offset, leader_epoch: LeaderEpoch) -> Result<Option<Delivery>> {
        self.check_online()?;
        let append_time = self.config.log_append_time.then_some(now);
        if let Some(unfinished) = self.delayed.unfinished().map(<[_]>::to_vec) {
            let records = self.read_pending_records(&unfinished)?;
            let data = delivery_batch(&records, append_time).map_err(|e| LogError::InvalidBatch(e.to_string()))?;
            let first_offset = self.append_internal(data, leader_epoch)?;
            return Ok(Some(Delivery { records: records.len(), first_offset }));
        }
        let mut due = self.delayed.due(now, committed, DELIVERY_RECORDS_MAX);
        if due.is_empty() {
            return Ok(None);
        }
        let mut records = self.read_pending_records(&due)?;
        let mut bytes = 0usize;
        let keep = records
            .iter()
            .take_while(|r| {
                let size = r.key.as_ref().map_or(0, Bytes::len)
                    + r.value.as_ref().map_or(0, Bytes::len)
                    + r.headers.iter().map(|(k, v)| k.len() + v.as_ref().map_or(0, Bytes::len)).sum::<usize>();
                let first = bytes == 0;
                bytes = bytes.saturating_add(size.max(1));
                first || bytes <= DELIVERY_BYTES_MAX
            })
            .count();
        due.truncate(keep);
        records.truncate(keep);
        let marker = delivered_batch(&due, now).map_err(|e| LogError::InvalidBatch(e.to_string()))?;
        let data = delivery_batch(&records, append_time).map_err(|e| LogError::InvalidBatch(e.to_string()))?;
        self.append_internal(marker, leader_epoch)?;
        let first_offset = self.append_internal(data, leader_epoch)?;
        Ok(Some(Delivery { records: records.len(), first_offset }))
    }

    /// The pending records at `offsets`, in that order, read from the log.
    fn read_pending_records(&self, offsets: &[(Offset, i64)]) -> Result<Vec<PendingRecord>> {
        let mut found: HashMap<Offset, PendingRecord> = HashMap::with_capacity(offsets.len());
        let mut wanted: Vec<Offset> = offsets.iter().map(|(o, _)| *o).collect();
        wanted.sort_unstable();
        for offset in wanted {
            if found.contains_key(&offset) {
                continue;
            }
            let missing = || LogError::Invalid(format!("pending record {offset} is not in the log"));
            let (_, segment) = self.segments.range(..=offset).next_back().ok_or_else(missing)?;
            let position = segment.translate_offset(offset)?.ok_or_else(missing)?;
            let batch = segment.batch_at(position.position)?.ok_or_else(missing)?;
            if delayed_kind(&batch) != Some(DelayedKind::Pending) {
                return Err(missing());
            }
            let records = read_pending(&batch).map_err(|e| LogError::InvalidBatch(e.to_string()))?;
            found.extend(records);
        }
        offsets
            .iter()
            .map(|(offset, _)| {
                found
                    .remove(offset)
                    .ok_or_else(|| LogError::Invalid(format!("pending record {offset} is not in its batch")))
            })
            .collect()
    }

    /// Appends a batch the broker built itself (no producer) at the log end, in `leader_epoch`;
    /// its first offset.
    fn append_internal(&mut self, bytes: Bytes, leader_epoch: LeaderEpoch) -> Result<Offset> {
        let base_offset = self.log_end_offset();
        let mut bytes = BytesMut::from(&bytes[..]);
        {
            let mut view = RecordBatchMut::new(&mut bytes).map_err(|e| LogError::InvalidBatch(e.to_string()))?;
            view.set_base_offset(base_offset);
            view.set_partition_leader_epoch(leader_epoch);
        }
        let batch = RecordBatch::parse(bytes.freeze()).map_err(|e| LogError::InvalidBatch(e.to_string()))?;
        if self.epoch_cache.latest_epoch().is_none_or(|latest| leader_epoch > latest) {
            self.epoch_cache.assign(leader_epoch, base_offset)?;
        }
        self.append_batch(&batch, i64::from(batch.record_count()))?;
        let aborted = replay_batch(&mut self.producer_state, &batch)?;
        self.append_aborted(aborted)?;
        Ok(base_offset)
    }
}

fn unreadable(dir: &std::path::Path, batch: &RecordBatch, error: &str) {
    tracing::warn!(
        "{}: the delayed-delivery batch at {} is unreadable, skipped: {error}",
        dir.display(),
        batch.base_offset()
    );
}
