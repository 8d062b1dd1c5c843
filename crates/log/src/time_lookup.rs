//! ListOffsets by timestamp, read and decompressed without the log's lock.
//!
//! Finding the first record at or after a timestamp may read and decompress many batches. The
//! caller's lock on the log is held only to take a [`TimestampLookup`] ([`Log::timestamp_lookup`]):
//! for each segment that may hold the answer, a read-only handle on its `.log` that sees the bytes
//! written so far, and where its indexes say to start, all taken from memory without I/O.
//! [`TimestampLookup::run`] then reads and decompresses with no lock held, so appends, fetches and
//! flushes of the partition go on meanwhile; what is appended after the lookup was taken is not
//! seen, as for a lookup that came a moment earlier.
//!
//! What it is not: a copy of the bytes. A segment truncated or deleted while a lookup reads it
//! may make a read fail or find a record that is gone by the time it is answered (an error the
//! client retries, or an answer as stale as one given a moment earlier); the handles are those
//! the log cleaner reads with ([`SegmentFile::reader`]).

use strand_base::Offset;

use crate::Result;
use crate::file::SegmentFile;
use crate::log::Log;
use crate::segment::{Segment, batch_at, header_at};

/// Where to look for a timestamp, taken under the log's lock; run it without.
#[derive(Debug)]
pub struct TimestampLookup {
    timestamp: i64,
    /// The log start offset when the lookup was taken: records below it are not answered.
    start_offset: Offset,
    /// The segments whose largest timestamp reaches the target, in offset order.
    segments: Vec<SegmentScan>,
}

/// One segment to scan: its `.log` as written when the lookup was taken, the first offset worth
/// reading (the time index's, never below the log start) and the position of the offset index's
/// entry at or below it.
#[derive(Debug)]
struct SegmentScan {
    log: SegmentFile,
    from: Offset,
    position: u64,
}

impl Log {
    /// Where the first record at or after `timestamp` may be, from memory only: run the lookup
    /// ([`TimestampLookup::run`]) after letting go of the log's lock.
    pub fn timestamp_lookup(&self, timestamp: i64) -> TimestampLookup {
        let start_offset = self.log_start_offset();
        let segments = self.segments().values().filter(|segment| segment.max_timestamp().timestamp >= timestamp);
        let segments = segments.map(|segment| SegmentScan::new(segment, timestamp, start_offset)).collect();
        TimestampLookup { timestamp, start_offset, segments }
    }
}

impl SegmentScan {
    fn new(segment: &Segment, timestamp: i64, start_offset: Offset) -> SegmentScan {
        // An entry (T, O) says every record up to O has a timestamp at most T. Looking up below the
        // target makes every record before the entry's offset strictly older than the target, so
        // an equal timestamp earlier in the segment is never skipped.
        let from = segment.time_index().lookup(timestamp.saturating_sub(1)).offset.max(start_offset);
        let position = u64::from(segment.offset_index().lookup(from).position);
        SegmentScan { log: segment.log_file().reader(), from, position }
    }
}

impl TimestampLookup {
    /// The earliest record with a timestamp at or after the target: its timestamp and offset.
    /// Reads and decompresses batches; hold no lock while it runs.
    pub fn run(&self) -> Result<Option<(i64, Offset)>> {
        for segment in &self.segments {
            if let Some(found) = self.scan(segment)? {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    fn scan(&self, segment: &SegmentScan) -> Result<Option<(i64, Offset)>> {
        let log = &segment.log;
        let corrupt = |e: &dyn std::fmt::Display| crate::LogError::corrupt(log.path(), e.to_string());
        let mut position = segment.position;
        while let Some(header) = header_at(log, position)? {
            position += header.size;
            if header.last_offset < segment.from || header.max_timestamp < self.timestamp {
                continue;
            }
            let Some(batch) = batch_at(log, header.position)? else { break };
            // Tests pause a lookup here, where it decompresses, to show that the log is not held.
            fail::fail_point!("log::timestamp_scan");
            let records = batch.records().map_err(|e| corrupt(&e))?;
            for record in records.iter() {
                let record = record.map_err(|e| corrupt(&e))?;
                let offset = batch.record_offset(&record);
                if batch.record_timestamp(&record) >= self.timestamp && offset >= self.start_offset {
                    return Ok(Some((batch.record_timestamp(&record), offset)));
                }
            }
        }
        Ok(None)
    }
}
