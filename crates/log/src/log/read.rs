//! Reads: the bytes of a fetch, ListOffsets by timestamp and the largest timestamp, the aborted
//! transactions a `read_committed` fetch returns, and the first unstable offset.

use strand_base::Offset;

use super::Log;
use crate::index::AbortedTxn;
use crate::segment::{Segment, SegmentSlice};
use crate::{LogError, Result};

impl Log {
    /// The bytes of a fetch from `offset`: up to `max_bytes` of whole batches from one segment (the
    /// first batch whole even if larger), never past `max_offset` (the high watermark or last
    /// stable offset for consumers; `None` reads to the log end, for followers).
    pub fn read(&self, offset: Offset, max_bytes: u64, max_offset: Option<Offset>) -> Result<Option<SegmentSlice>> {
        self.check_online()?;
        let end = self.log_end_offset();
        if offset < self.log_start_offset || offset > end {
            return Err(LogError::OffsetOutOfRange { offset, start: self.log_start_offset, end });
        }
        let limit = max_offset.unwrap_or(end).min(end);
        if offset >= limit {
            return Ok(None);
        }
        // A compacted segment may hold nothing at or after `offset` (its last records were
        // cleaned away): the read continues in the next segment, as Kafka's does.
        let from = self.segments.range(..=offset).next_back().map(|(b, _)| *b).unwrap_or(Offset::MIN);
        for segment in self.segments.range(from..).map(|(_, s)| s) {
            if segment.base_offset() >= limit {
                break;
            }
            let max_position = self.position_of(segment, limit)?;
            if let Some(slice) = segment.read(offset, max_bytes, max_position)? {
                return Ok(Some(slice));
            }
        }
        Ok(None)
    }

    /// The position in `segment` where the batch holding `offset` starts, if it is in that
    /// segment: reads from the segment stop there.
    fn position_of(&self, segment: &Segment, offset: Offset) -> Result<Option<u64>> {
        if offset >= segment.next_offset() {
            return Ok(None);
        }
        Ok(segment.translate_offset(offset)?.map(|b| b.position))
    }

    /// ListOffsets by timestamp: the first record whose timestamp is at or after `timestamp`.
    /// A caller that holds a lock on the log takes [`Log::timestamp_lookup`] instead, and runs it
    /// after letting go (`time_lookup.rs`).
    pub fn find_offset_by_timestamp(&self, timestamp: i64) -> Result<Option<(i64, Offset)>> {
        self.timestamp_lookup(timestamp).run()
    }

    /// The largest timestamp in the log and its offset (ListOffsets `MAX_TIMESTAMP`).
    pub fn max_timestamp(&self) -> Option<(i64, Offset)> {
        let best = self.segments.values().map(Segment::max_timestamp).max_by_key(|t| t.timestamp)?;
        (best.timestamp >= 0).then_some((best.timestamp, best.offset))
    }

    /// The offset below which every transaction is decided (bounded by the high watermark by the
    /// caller): the last stable offset for `read_committed`.
    pub fn first_unstable_offset(&self) -> Option<Offset> {
        self.producer_state.first_unstable_offset()
    }

    /// Aborted transactions overlapping `[fetch_offset, upper_bound)`, for `read_committed`
    /// fetches, from every segment that may hold their markers.
    pub fn collect_aborted_txns(&self, fetch_offset: Offset, upper_bound: Offset) -> Vec<AbortedTxn> {
        let mut aborted = Vec::new();
        let from = self.segments.range(..=fetch_offset).next_back().map(|(b, _)| *b).unwrap_or(Offset::MIN);
        for segment in self.segments.range(from..).map(|(_, s)| s) {
            let found = segment.txn_index().collect_aborted(fetch_offset, upper_bound);
            aborted.extend(found.aborted_txns);
            if found.is_complete {
                break;
            }
        }
        aborted
    }
}
