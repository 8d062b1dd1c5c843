//! Appends: as the leader (offsets and leader epoch assigned in place) and as a follower
//! (offsets as the leader assigned them), the transactions an append ends (aborted ones into the
//! active segment's transaction index), the producer state's reload and replay from the
//! segments, and rolling to a new segment.

use strand_base::{LeaderEpoch, Offset};
use strand_protocol::records::{RecordBatch, RecordBatchMut};

use super::{AppendInfo, Log, ValidatedBatch};
use crate::index::AbortedTxn;
use crate::producer_state::{AppendContext, AppendOutcome, ProducerBatch, ProducerStateManager};
use crate::segment::Segment;
use crate::{LogError, Result};

impl Log {
    /// Appends a batch as the partition's leader: assigns offsets from the log end offset and
    /// stamps the leader epoch, in place, then writes the bytes unchanged otherwise. A producer's
    /// retry of a batch already in the log appends nothing and reports the original offsets.
    pub fn append_as_leader(
        &mut self,
        batch: ValidatedBatch,
        leader_epoch: LeaderEpoch,
        context: AppendContext,
    ) -> Result<AppendInfo> {
        self.check_online()?;
        let ValidatedBatch { mut bytes, record_count, .. } = batch;
        let base_offset = self.log_end_offset();
        {
            let mut view = RecordBatchMut::new(&mut bytes).map_err(|e| LogError::InvalidBatch(e.to_string()))?;
            view.set_base_offset(base_offset);
            view.set_partition_leader_epoch(leader_epoch);
        }
        let batch = RecordBatch::parse(bytes.freeze()).map_err(|e| LogError::InvalidBatch(e.to_string()))?;
        let producer_batch = ProducerBatch::from_batch(&batch)?;
        let append = match self.producer_state.check_and_prepare(&[producer_batch], context)? {
            AppendOutcome::Duplicate(original) => {
                return Ok(AppendInfo {
                    first_offset: original.first_offset(),
                    last_offset: original.last_offset,
                    max_timestamp: original.timestamp,
                    duplicate: true,
                });
            }
            AppendOutcome::Append(append) => append,
        };
        if self.epoch_cache.latest_epoch().is_none_or(|latest| leader_epoch > latest) {
            self.epoch_cache.assign(leader_epoch, base_offset)?;
        }
        let info = self.append_batch(&batch, i64::from(record_count))?;
        let completed = self.producer_state.update(append);
        self.complete_txns(&completed)?;
        Ok(info)
    }

    /// Appends a batch whose offsets were assigned by a leader (replication); its base offset
    /// must be the log end offset or later.
    pub fn append_as_follower(&mut self, batch: &RecordBatch) -> Result<AppendInfo> {
        self.check_online()?;
        // What recovery would cut is never written (Kafka checks a follower's batches too).
        if !batch.crc_is_valid() || batch.last_offset_delta() < 0 {
            return Err(LogError::InvalidBatch(format!(
                "batch at {} has a bad CRC or lastOffsetDelta {}",
                batch.base_offset(),
                batch.last_offset_delta()
            )));
        }
        if batch.base_offset() < self.log_end_offset() {
            return Err(LogError::Invalid(format!(
                "batch at {} is below the log end offset {}",
                batch.base_offset(),
                self.log_end_offset()
            )));
        }
        let epoch = batch.partition_leader_epoch();
        if epoch >= 0 && self.epoch_cache.latest_epoch().is_none_or(|latest| epoch > latest) {
            self.epoch_cache.assign(epoch, batch.base_offset())?;
        }
        let info = self.append_batch(batch, i64::from(batch.record_count()))?;
        let aborted = replay_batch(&mut self.producer_state, batch)?;
        self.append_aborted(aborted)?;
        Ok(info)
    }

    pub(super) fn append_batch(&mut self, batch: &RecordBatch, records: i64) -> Result<AppendInfo> {
        // What hosting a new partition left unwritten, before its first batch.
        self.epoch_cache.write_pending()?;
        self.write_partition_metadata()?;
        let now = self.clock.now_ms();
        self.maybe_roll(batch, now)?;
        self.prepare_delayed(batch)?;
        let Some(active) = self.segments.values_mut().next_back() else {
            return Err(LogError::Invalid("log has no segment".into()));
        };
        active.append(batch)?;
        self.observe_delayed(batch);
        self.producer_state.update_map_end_offset(batch.next_offset());
        self.unflushed_records += records;
        self.first_unflushed_ms.get_or_insert(now);
        let info = AppendInfo {
            first_offset: batch.base_offset(),
            last_offset: batch.last_offset(),
            max_timestamp: batch.max_timestamp(),
            duplicate: false,
        };
        if self.unflushed_records >= self.config.flush_interval_messages
            || self.first_unflushed_ms.is_some_and(|first| now - first >= self.config.flush_interval_ms)
        {
            self.flush_to(self.log_end_offset())?;
        }
        Ok(info)
    }

    /// Records the transactions a marker ended: aborted ones in the active segment's transaction
    /// index, with the last stable offset at that point.
    fn complete_txns(&mut self, completed: &[crate::producer_state::CompletedTxn]) -> Result<()> {
        let mut aborted = Vec::new();
        for txn in completed {
            if txn.is_aborted {
                let last_stable_offset = self.producer_state.last_stable_offset(txn);
                aborted.push(AbortedTxn {
                    producer_id: txn.producer_id.0,
                    first_offset: txn.first_offset,
                    last_offset: txn.last_offset,
                    last_stable_offset,
                });
            }
            self.producer_state.complete_txn(txn);
        }
        self.append_aborted(aborted)
    }

    pub(super) fn append_aborted(&mut self, aborted: Vec<AbortedTxn>) -> Result<()> {
        if let Some(active) = self.segments.values_mut().next_back() {
            for txn in aborted {
                active.append_aborted_txn(txn)?;
            }
        }
        Ok(())
    }

    /// Reloads the producer state as of `offset`: from the latest snapshot at or below it, then
    /// replaying the batches between.
    pub(super) fn reload_producer_state(&mut self, offset: Offset) -> Result<()> {
        let now = self.clock.now_ms();
        self.producer_state.truncate_and_reload(self.log_start_offset, offset, now)?;
        let from = self.producer_state.map_end_offset().max(self.log_start_offset);
        if from >= offset {
            self.producer_state.update_map_end_offset(offset);
            return Ok(());
        }
        let first = self.segments.range(..=from).next_back().map(|(b, _)| *b).unwrap_or(Offset::MIN);
        for segment in self.segments.range(first..offset).map(|(_, s)| s) {
            let Some(start) = segment.translate_offset(from)? else { continue };
            let mut position = start.position;
            while let Some(batch) = segment.batch_at(position)? {
                if batch.base_offset() >= offset {
                    break;
                }
                position += batch.size_in_bytes() as u64;
                replay_batch(&mut self.producer_state, &batch)?;
            }
        }
        self.producer_state.update_map_end_offset(offset);
        Ok(())
    }

    fn maybe_roll(&mut self, batch: &RecordBatch, now: i64) -> Result<()> {
        let size = batch.size_in_bytes() as u64;
        let roll = match self.active() {
            None => true,
            Some(active) => active.should_roll(&self.config, size, batch.max_timestamp(), batch.last_offset(), now),
        };
        if roll {
            self.roll(batch.base_offset(), now)?;
        }
        Ok(())
    }

    /// Closes the active segment and starts a new one at `base_offset`.
    pub(super) fn roll(&mut self, base_offset: Offset, now: i64) -> Result<()> {
        if let Some(active) = self.segments.values_mut().next_back() {
            if active.base_offset() == base_offset && active.is_empty() {
                return Ok(());
            }
            // Not synced here, under the lock: Kafka syncs a rolled segment in the background too
            // (its `flush-log` task). Recovery after a crash starts at the recovery point anyway.
            active.finish_for_roll()?;
            self.roll_flush = Some(self.roll_flush.map_or(base_offset, |pending| pending.max(base_offset)));
        }
        let segment = Segment::create(&self.dir, base_offset, &self.config, now)?;
        self.segments.insert(base_offset, segment);
        self.dir_generation += 1;
        self.advance_delayed_checkpoint()?;
        // Recovery of the new segment starts from this snapshot instead of the log's beginning.
        // It is durable once the next flush synced the segments below it, then the directory
        // (the new segment's entry is owed the same sync).
        self.producer_state.update_map_end_offset(base_offset);
        self.producer_state.take_snapshot()?;
        Ok(())
    }
}

/// Feeds one stored batch to the producer state as replication does (no client checks); returns
/// the transactions it aborted, for the transaction index.
pub(super) fn replay_batch(producers: &mut ProducerStateManager, batch: &RecordBatch) -> Result<Vec<AbortedTxn>> {
    let producer_batch = ProducerBatch::from_batch(batch)?;
    let mut aborted = Vec::new();
    if let AppendOutcome::Append(append) =
        producers.check_and_prepare(&[producer_batch], AppendContext::replication())?
    {
        for txn in producers.update(append) {
            if txn.is_aborted {
                let last_stable_offset = producers.last_stable_offset(&txn);
                aborted.push(AbortedTxn {
                    producer_id: txn.producer_id.0,
                    first_offset: txn.first_offset,
                    last_offset: txn.last_offset,
                    last_stable_offset,
                });
            }
            producers.complete_txn(&txn);
        }
    }
    producers.update_map_end_offset(batch.next_offset());
    Ok(aborted)
}
