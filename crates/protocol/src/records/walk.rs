//! The produce path's look at a batch's records: every record's structure checked and the few
//! facts the broker needs gathered, without building a record or keeping any of its bytes.
//!
//! [`summarize`] reads each record's length prefix, attributes, timestamp and offset deltas and
//! the key, value and header lengths, skips the bytes those lengths cover, and checks that the
//! fields fill the record's length exactly and that the batch holds exactly its declared count
//! of records with nothing after them (Kafka's `DefaultRecordBatch` iterator rules; header keys
//! are not checked as UTF-8, as Java does not check them either). An uncompressed region is
//! walked in place; a compressed one is decompressed as a stream through a window of
//! [`WALK_WINDOW_BYTES`] (plus the codec's own state: a gzip window, an LZ4 block, a zstd window,
//! a snappy block), never materialized: the whole region passes through once, at most
//! `limit_bytes` of it. Run a compressed walk off the async workers: it costs CPU in proportion
//! to the decompressed size.

use std::io::Read;

use super::batch::RecordBatch;
use super::compression::{Compression, decoder};
use super::{RecordsError, TimestampType};
use crate::codec::DecodeError;

/// How many decompressed bytes a walk holds at a time.
pub const WALK_WINDOW_BYTES: usize = 16 * 1024;

/// The smallest record body: attributes, timestamp delta, offset delta, a null key, a null value,
/// no headers.
const RECORD_BODY_BYTES_MIN: i64 = 6;

/// What the produce path learns from a batch's records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordsSummary {
    /// How many records the batch holds (equal to its declared count).
    pub count: i32,
    /// The largest record timestamp as Kafka reads it (the batch's max timestamp for every
    /// record of a LogAppendTime batch, else base timestamp plus delta), ignoring records without
    /// one (-1); -1 if none has one.
    pub max_timestamp: i64,
    /// The smallest such timestamp; `i64::MAX` if none has one.
    pub min_timestamp: i64,
    /// Some record has a null key.
    pub keyless: bool,
    /// Record `i` has offset delta `i`, for every `i` (Kafka requires it of compressed batches).
    pub offsets_in_order: bool,
    /// Some record carries a delayed-delivery header ([`super::delayed::DELIVER_AT_HEADER`],
    /// [`super::delayed::DELAY_MS_HEADER`] or [`super::delayed::CANCEL_HEADER`]).
    pub delay_headers: bool,
}

/// Walks `batch`'s records (decompressing within `limit_bytes`) and sums them up; any record that
/// does not parse, a count that disagrees with the records, bytes after the last record, or data
/// that does not decompress is an error.
pub fn summarize(batch: &RecordBatch, limit_bytes: usize) -> Result<RecordsSummary, RecordsError> {
    let declared = batch.record_count();
    if declared < 0 {
        return Err(RecordsError::NegativeRecordCount(declared));
    }
    let region = batch.records_region();
    let mut walk = Walk::new(batch);
    match batch.attributes().compression()? {
        Compression::None => walk.run(&mut SliceSource { rest: &region }, declared)?,
        codec => {
            let reader = decoder(codec, &region, limit_bytes)?;
            let mut source = ReadSource::new(reader, codec, limit_bytes);
            walk.run(&mut source, declared)?;
        }
    }
    Ok(walk.summary)
}

/// A stream of record bytes.
trait Source {
    /// The next byte; `None` at the end of the stream.
    fn next_byte(&mut self) -> Result<Option<u8>, RecordsError>;
    /// Skips `count` bytes; the stream ending first is an error.
    fn skip(&mut self, count: usize) -> Result<(), RecordsError>;
    /// The next `count` bytes as one slice, taken, if the source holds them contiguously (most
    /// records lie whole inside the window and are then read as a slice).
    fn take_contiguous(&mut self, count: usize) -> Option<&[u8]>;
}

/// An uncompressed region, walked in place.
struct SliceSource<'a> {
    rest: &'a [u8],
}

impl Source for SliceSource<'_> {
    fn next_byte(&mut self) -> Result<Option<u8>, RecordsError> {
        let Some((&first, rest)) = self.rest.split_first() else { return Ok(None) };
        self.rest = rest;
        Ok(Some(first))
    }

    fn skip(&mut self, count: usize) -> Result<(), RecordsError> {
        if count > self.rest.len() {
            return Err(truncated(count, self.rest.len()));
        }
        self.rest = &self.rest[count..];
        Ok(())
    }

    fn take_contiguous(&mut self, count: usize) -> Option<&[u8]> {
        let (taken, rest) = self.rest.split_at_checked(count)?;
        self.rest = rest;
        Some(taken)
    }
}

/// A decompressing reader seen through a fixed window, counting what it has produced.
struct ReadSource<'a> {
    reader: Box<dyn Read + 'a>,
    codec: Compression,
    window: Box<[u8]>,
    position: usize,
    end: usize,
    produced: usize,
    limit_bytes: usize,
}

impl<'a> ReadSource<'a> {
    fn new(reader: Box<dyn Read + 'a>, codec: Compression, limit_bytes: usize) -> Self {
        let window = vec![0u8; WALK_WINDOW_BYTES].into_boxed_slice();
        ReadSource { reader, codec, window, position: 0, end: 0, produced: 0, limit_bytes }
    }

    /// Refills the window; `false` at the end of the stream.
    fn fill(&mut self) -> Result<bool, RecordsError> {
        let read = loop {
            match self.reader.read(&mut self.window) {
                Ok(read) => break read,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(RecordsError::Decompress { codec: self.codec, reason: e.to_string() }),
            }
        };
        self.produced = self.produced.saturating_add(read);
        if self.produced > self.limit_bytes {
            return Err(RecordsError::DecompressedTooLarge { codec: self.codec, limit_bytes: self.limit_bytes });
        }
        self.position = 0;
        self.end = read;
        Ok(read > 0)
    }
}

impl Source for ReadSource<'_> {
    fn next_byte(&mut self) -> Result<Option<u8>, RecordsError> {
        if self.position == self.end && !self.fill()? {
            return Ok(None);
        }
        let byte = self.window[self.position];
        self.position += 1;
        Ok(Some(byte))
    }

    fn skip(&mut self, mut count: usize) -> Result<(), RecordsError> {
        let wanted = count;
        loop {
            let here = (self.end - self.position).min(count);
            self.position += here;
            count -= here;
            if count == 0 {
                return Ok(());
            }
            if !self.fill()? {
                return Err(truncated(wanted, wanted - count));
            }
        }
    }

    fn take_contiguous(&mut self, count: usize) -> Option<&[u8]> {
        let start = self.position;
        let end = start.checked_add(count).filter(|&end| end <= self.end)?;
        self.position = end;
        Some(&self.window[start..end])
    }
}

fn truncated(needed: usize, remaining: usize) -> RecordsError {
    RecordsError::Malformed(DecodeError::Truncated { needed, remaining })
}

/// The walk over one batch's records and what it has found so far.
struct Walk {
    base_timestamp: i64,
    /// Every record's timestamp, for a LogAppendTime batch.
    log_append_time: Option<i64>,
    summary: RecordsSummary,
}

impl Walk {
    fn new(batch: &RecordBatch) -> Self {
        let log_append_time =
            (batch.attributes().timestamp_type() == TimestampType::LogAppendTime).then(|| batch.max_timestamp());
        let summary = RecordsSummary {
            count: 0,
            max_timestamp: -1,
            min_timestamp: i64::MAX,
            keyless: false,
            offsets_in_order: true,
            delay_headers: false,
        };
        Walk { base_timestamp: batch.base_timestamp(), log_append_time, summary }
    }

    fn run(&mut self, source: &mut impl Source, declared: i32) -> Result<(), RecordsError> {
        for index in 0..declared {
            let length = match read_varint(source, VARINT_BYTES_MAX)? {
                None => return Err(RecordsError::RecordCountMismatch { declared, found: index }),
                Some(length) => length,
            };
            if !(RECORD_BODY_BYTES_MIN..=i64::from(i32::MAX)).contains(&length) {
                return Err(RecordsError::RecordLengthInvalid { length: length as i32, remaining: 0 });
            }
            let length = length as usize;
            let fields = match source.take_contiguous(length) {
                Some(bytes) => Body { source: &mut SliceSource { rest: bytes }, left: length, length }.record()?,
                None => Body { source: &mut *source, left: length, length }.record()?,
            };
            self.add(index, fields);
        }
        let mut trailing = 0usize;
        while source.next_byte()?.is_some() {
            trailing += 1;
        }
        match trailing {
            0 => Ok(()),
            left => Err(RecordsError::TrailingRecordBytes(left)),
        }
    }

    fn add(&mut self, index: i32, fields: RecordFields) {
        let timestamp =
            self.log_append_time.unwrap_or_else(|| self.base_timestamp.wrapping_add(fields.timestamp_delta));
        let summary = &mut self.summary;
        summary.count = index + 1;
        if timestamp != -1 {
            summary.max_timestamp = summary.max_timestamp.max(timestamp);
            summary.min_timestamp = summary.min_timestamp.min(timestamp);
        }
        summary.keyless |= !fields.has_key;
        summary.offsets_in_order &= fields.offset_delta == index;
        summary.delay_headers |= fields.delay_header;
    }
}

/// The fields of one record the walk keeps.
struct RecordFields {
    timestamp_delta: i64,
    offset_delta: i32,
    has_key: bool,
    delay_header: bool,
}

/// One record's body: exactly `length` bytes of the source.
struct Body<'s, S: Source> {
    source: &'s mut S,
    length: usize,
    left: usize,
}

/// Kafka's varints: at most 5 bytes for an int, 10 for a long.
const VARINT_BYTES_MAX: usize = 5;
const VARLONG_BYTES_MAX: usize = 10;

impl<S: Source> Body<'_, S> {
    fn record(&mut self) -> Result<RecordFields, RecordsError> {
        self.byte()?; // attributes: no bits defined
        let timestamp_delta = self.varint(VARLONG_BYTES_MAX)?;
        let offset_delta = self.varint(VARINT_BYTES_MAX)? as i32;
        let has_key = self.nullable_bytes("key")?;
        self.nullable_bytes("value")?;
        let headers = self.varint(VARINT_BYTES_MAX)?;
        if headers < 0 {
            return Err(RecordsError::FieldLengthInvalid { field: "header count", length: headers as i32 });
        }
        let mut delay_header = false;
        for _ in 0..headers {
            delay_header |= self.header_key()?;
            self.nullable_bytes("header value")?;
        }
        if self.left != 0 {
            return Err(RecordsError::RecordSizeMismatch { length: self.length, read: self.length - self.left });
        }
        Ok(RecordFields { timestamp_delta, offset_delta, has_key, delay_header })
    }

    fn byte(&mut self) -> Result<u8, RecordsError> {
        if self.left == 0 {
            return Err(RecordsError::RecordSizeMismatch { length: self.length, read: self.length + 1 });
        }
        self.left -= 1;
        self.source.next_byte()?.ok_or_else(|| truncated(1, 0))
    }

    /// A zigzag varint of at most `bytes_max` bytes, inside the body.
    fn varint(&mut self, bytes_max: usize) -> Result<i64, RecordsError> {
        let mut raw = 0u64;
        for i in 0..bytes_max {
            let byte = self.byte()?;
            raw |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                return Ok(zigzag(raw, bytes_max));
            }
        }
        Err(RecordsError::Malformed(DecodeError::VarintTooLong))
    }

    /// A header key (never null), skipped unless it has a delay header's length; whether it is
    /// one of delayed delivery's headers.
    fn header_key(&mut self) -> Result<bool, RecordsError> {
        const NAMES: [&str; 3] =
            [super::delayed::DELIVER_AT_HEADER, super::delayed::DELAY_MS_HEADER, super::delayed::CANCEL_HEADER];
        let length = self.varint(VARINT_BYTES_MAX)?;
        let candidate = NAMES.iter().find(|name| i64::try_from(name.len()) == Ok(length));
        match (usize::try_from(length), candidate) {
            (Ok(len), Some(name)) if len <= self.left => {
                let mut matches = true;
                for expected in name.bytes() {
                    matches &= self.byte()? == expected;
                }
                Ok(matches)
            }
            (Ok(len), _) if len <= self.left => {
                self.left -= len;
                self.source.skip(len)?;
                Ok(false)
            }
            _ => Err(RecordsError::FieldLengthInvalid { field: "header key", length: length as i32 }),
        }
    }

    /// A varint length (-1 for null) and that many bytes skipped; whether it was not null.
    fn nullable_bytes(&mut self, field: &'static str) -> Result<bool, RecordsError> {
        let length = self.varint(VARINT_BYTES_MAX)?;
        if length == -1 {
            return Ok(false);
        }
        match usize::try_from(length) {
            Ok(len) if len <= self.left => {
                self.left -= len;
                self.source.skip(len)?;
                Ok(true)
            }
            _ => Err(RecordsError::FieldLengthInvalid { field, length: length as i32 }),
        }
    }
}

/// A record's length prefix, outside any body; `None` if the stream has ended.
fn read_varint(source: &mut impl Source, bytes_max: usize) -> Result<Option<i64>, RecordsError> {
    let mut raw = 0u64;
    for i in 0..bytes_max {
        let Some(byte) = source.next_byte()? else {
            return if i == 0 { Ok(None) } else { Err(truncated(1, 0)) };
        };
        raw |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok(Some(zigzag(raw, bytes_max)));
        }
    }
    Err(RecordsError::Malformed(DecodeError::VarintTooLong))
}

/// Zigzag-decodes `raw`, truncated to 32 bits for an int as Java's `readVarint` does.
fn zigzag(raw: u64, bytes_max: usize) -> i64 {
    if bytes_max == VARINT_BYTES_MAX {
        let raw = raw as u32;
        i64::from(((raw >> 1) as i32) ^ -((raw & 1) as i32))
    } else {
        ((raw >> 1) as i64) ^ -((raw & 1) as i64)
    }
}
