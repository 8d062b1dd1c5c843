//! Removing from either end: truncation (replication's, and starting over at an offset), the log
//! start offset (DeleteRecords, retention) and retention itself, and where a leader epoch starts.

use strand_base::{LeaderEpoch, Offset};

use super::Log;
use crate::segment::Segment;
use crate::{LogError, Result};

impl Log {
    /// Removes every batch from the one holding `offset` on (replication's truncation). Segments
    /// wholly above it are deleted. At or past the log end nothing is removed but epoch entries
    /// starting at the log end (a leader's epoch recorded before it wrote anything) still go, as
    /// Kafka's `truncateTo` does, so the log's latest epoch is that of its last batch. A cleaner
    /// pass under way is aborted if anything is removed.
    pub fn truncate_to(&mut self, offset: Offset) -> Result<()> {
        if offset >= self.log_end_offset() {
            if self.epoch_cache.truncate_from_end(self.log_end_offset()) {
                self.epoch_cache.flush()?;
            }
            return Ok(());
        }
        self.abort_cleaning();
        self.rewrites += 1;
        let above: Vec<Offset> = self.segments.range(offset..).map(|(b, _)| *b).filter(|&b| b > offset).collect();
        for base in above {
            if let Some(segment) = self.segments.remove(&base) {
                segment.delete()?;
            }
        }
        if let Some((_, segment)) = self.segments.range_mut(..=offset).next_back()
            && segment.truncate_to(offset)? > 0
        {
            self.sync_truncation(|log| log.segments.range(..=offset).next_back().map_or(Ok(()), |(_, s)| s.flush()))?;
        }
        if self.segments.is_empty() {
            let now = self.clock.now_ms();
            self.segments.insert(offset, Segment::create(&self.dir, offset, &self.config, now)?);
            self.dir_generation += 1;
        }
        let end = self.log_end_offset();
        self.recovery_point = self.recovery_point.min(end);
        self.log_start_offset = self.log_start_offset.min(end);
        if self.epoch_cache.truncate_from_end(end) {
            self.epoch_cache.flush()?;
        }
        self.reload_producer_state(end)?;
        self.rebuild_delayed()?;
        let dir = self.dir.clone();
        self.sync_truncation(|_| crate::file::sync_dir(&dir).map_err(|e| LogError::io(&dir, e)))
    }

    /// A truncation is made durable at once, the segment cut short synced, then the directory
    /// (the segments and producer snapshots it deleted): until then a power cut may bring back
    /// an old tail or a deleted segment, overlapping the records appended from here on, even
    /// those a later flush acknowledges (it syncs only what was written since the recovery
    /// point, and any directory sync may make a new segment durable first). Truncations are rare
    /// (a follower's after a leader change, a recovery's torn tail), two syncs are cheap there.
    /// A failed sync takes the directory offline, as a flush's does.
    pub(super) fn sync_truncation(&self, sync: impl FnOnce(&Log) -> Result<()>) -> Result<()> {
        sync(self).inspect_err(|e| self.health.fail(&e.to_string()))
    }

    /// Empties the log and starts it over at `offset`: every segment deleted, a new empty one at
    /// `offset`, the epoch cache and producer state cleared (Kafka's `truncateFullyAndStartAt`). A
    /// replica uses it when the offsets it holds are all gone from its source's log.
    pub fn truncate_fully_and_start_at(&mut self, offset: Offset) -> Result<()> {
        assert!(offset >= 0, "a log cannot start at {offset}");
        self.abort_cleaning();
        self.rewrites += 1;
        for (_, segment) in std::mem::take(&mut self.segments) {
            segment.delete()?;
        }
        let now = self.clock.now_ms();
        self.segments.insert(offset, Segment::create(&self.dir, offset, &self.config, now)?);
        self.dir_generation += 1;
        self.log_start_offset = offset;
        self.recovery_point = offset;
        self.unflushed_records = 0;
        self.first_unflushed_ms = None;
        self.first_dirty_offset = None;
        self.epoch_cache.clear();
        self.epoch_cache.flush()?;
        self.producer_state.truncate_fully_and_start_at(offset)?;
        self.delayed.clear();
        crate::file::sync_dir(&self.dir).map_err(|e| LogError::io(&self.dir, e))
    }

    /// Records that leader epoch `epoch` starts at `start_offset` unless the cache already has
    /// that epoch or a later one (Kafka's `maybeAssignEpochStartOffset`): a new leader records its
    /// epoch at its log end offset before it writes anything, so a replica that asks where the
    /// epoch before it ended gets an answer even while the new epoch holds no batch.
    ///
    /// On an empty log the entry is written with the first batch (or a flush, or the close)
    /// rather than now ([`crate::epoch_cache::LeaderEpochCache::assign_unwritten`]): a partition
    /// hosted for the first time writes no checkpoint.
    pub fn maybe_assign_epoch_start_offset(&mut self, epoch: LeaderEpoch, start_offset: Offset) -> Result<()> {
        if self.epoch_cache.latest_epoch().is_none_or(|latest| epoch > latest) {
            if self.log_end_offset() == self.log_start_offset {
                self.epoch_cache.assign_unwritten(epoch, start_offset);
            } else {
                self.epoch_cache.assign(epoch, start_offset)?;
            }
        }
        Ok(())
    }

    /// Raises the log start offset (DeleteRecords, retention) and deletes the segments wholly
    /// below it. The active segment is never deleted. A cleaner pass under way is aborted if a
    /// segment goes.
    pub fn advance_log_start_offset(&mut self, offset: Offset) -> Result<()> {
        let offset = offset.min(self.log_end_offset());
        if offset <= self.log_start_offset {
            return Ok(());
        }
        self.log_start_offset = offset;
        if self.epoch_cache.truncate_from_start(offset) {
            self.epoch_cache.flush()?;
        }
        self.producer_state.on_log_start_offset_incremented(offset);
        self.delayed.drop_below(offset);
        let bases = self.segment_base_offsets();
        for pair in bases.windows(2) {
            let (base, next_base) = (pair[0], pair[1]);
            if next_base <= offset
                && let Some(segment) = self.segments.remove(&base)
            {
                self.abort_cleaning();
                segment.delete()?;
            }
        }
        let first = self.segments.keys().next().copied().unwrap_or(offset);
        self.producer_state.delete_snapshots_before(first)
    }

    /// Deletes the oldest segments that retention no longer keeps (Kafka's `deleteOldSegments`):
    /// with `cleanup.policy` including `delete`, those whose newest record is older than
    /// `retention.ms`, then as many as leave the partition within `retention.bytes`. Only a
    /// prefix of segments goes, and only segments wholly below `high_watermark`, so nothing a
    /// follower may still need is lost. If every segment goes, the active one is rolled first, as
    /// Kafka does, so the log keeps an (empty) active segment at its end offset. The log start
    /// offset moves to the first remaining segment. Returns how many segments were deleted.
    pub fn apply_retention(&mut self, high_watermark: Offset) -> Result<usize> {
        if !self.config.delete_enabled {
            return Ok(0);
        }
        let now = self.clock.now_ms();
        let (retention_ms, retention_bytes) = (self.config.retention_ms, self.config.retention_bytes);
        let mut excess = if retention_bytes < 0 {
            0
        } else {
            self.size().saturating_sub(u64::try_from(retention_bytes).unwrap_or(0))
        };
        let end = self.log_end_offset();
        let bases = self.segment_base_offsets();
        let mut deletable = 0;
        for (i, base) in bases.iter().enumerate() {
            let Some(segment) = self.segments.get(base) else { break };
            let upper_bound = bases.get(i + 1).copied().unwrap_or(end);
            // Nor a segment holding a delayed record not delivered yet: it is not in the topic
            // until it is due (ARCHITECTURE.md, "Delayed delivery").
            if segment.is_empty()
                || high_watermark < upper_bound
                || self.delayed.floor().is_some_and(|f| f < upper_bound)
            {
                break;
            }
            let newest = segment.max_timestamp().timestamp;
            let expired = retention_ms >= 0 && newest >= 0 && now - newest > retention_ms;
            let oversized = excess >= segment.size() && excess > 0;
            if !expired && !oversized {
                break;
            }
            excess = excess.saturating_sub(segment.size());
            deletable += 1;
        }
        if deletable == 0 {
            return Ok(0);
        }
        let new_start = match bases.get(deletable) {
            Some(next) => *next,
            None => {
                self.roll(end, now)?;
                end
            }
        };
        let before = self.segments.len();
        self.advance_log_start_offset(new_start)?;
        Ok(before.saturating_sub(self.segments.len()))
    }
}
