//! [`recompress`]: a batch's records written again with another codec, as Kafka's
//! `LogValidator.buildRecordsAndAssignOffsets` does when a topic's `compression.type` is not the
//! producer's codec.
//!
//! What Kafka's rebuild keeps and changes, and so this one:
//! - kept: the producer id, epoch and base sequence, the transactional flag, the partition
//!   leader epoch, every record's timestamp, key, value and headers, their order;
//! - changed: the codec; offset deltas become 0, 1, 2, ...; the base timestamp becomes the first
//!   record's timestamp and the max timestamp the largest (or the broker's time under
//!   LogAppendTime, when the records keep theirs); record attributes are written as 0; the
//!   control flag is never set (clients may not write control batches; Kafka stores a broker's
//!   uncompressed control batch as it is); the CRC is computed anew.
//!
//! A record of a LogAppendTime batch has the batch's max timestamp, as Kafka reads it.
//!
//! Streaming, in bounded memory: the source is decompressed through a window of
//! [`WALK_WINDOW_BYTES`], each record's length prefix, timestamp and offset delta rewritten and
//! the rest of its bytes (key, value and header fields, whose encoding does not change) copied
//! into the target codec's [`Encoder`] as they come; no record is held whole. The output, the one
//! buffer that grows, is refused as soon as it would pass `batch_bytes_max`. Call it on a batch
//! [`super::summarize`] accepted: a record it cannot read is still an error, never a panic.
//! CPU in proportion to the decompressed size: run it off the async workers.

use std::io::{BufRead, BufReader, Read, Write};

use bytes::{BufMut, Bytes};

use super::RecordsError;
use super::batch::{
    ATTRIBUTES, Attributes, CRC, LOG_OVERHEAD, MAGIC, RECORD_BATCH_OVERHEAD, RecordBatch, TimestampType,
};
use super::compression::{Compression, Encoder, TargetCompression, decoder};
use super::walk::WALK_WINDOW_BYTES;
use crate::codec::varint::{VARINT_BYTES_MAX, VARLONG_BYTES_MAX, put_varint, put_varlong, varint_len, varlong_len};

/// How a batch is written again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recompression {
    pub target: TargetCompression,
    /// LogAppendTime: the broker's time as the new batch's max timestamp.
    pub log_append_time_ms: Option<i64>,
    /// The most the source may decompress to.
    pub decompressed_bytes_max: usize,
    /// The largest batch the result may be (the topic's `max.message.bytes`):
    /// [`RecordsError::RecompressedTooLarge`] past it.
    pub batch_bytes_max: usize,
}

/// `batch`'s records in a new batch written with `how.target`; base offset 0, as produced.
pub fn recompress(batch: &RecordBatch, how: &Recompression) -> Result<Bytes, RecordsError> {
    let source_codec = batch.attributes().compression()?;
    let region = batch.records_region();
    let limit = how.decompressed_bytes_max;
    let reader = decoder(source_codec, &region, limit)?;
    let bounded = BoundedSource { reader, left: limit, codec: source_codec, limit_bytes: limit };
    let mut source = BufReader::with_capacity(WALK_WINDOW_BYTES, bounded);
    let sink = BoundedSink::new(how.batch_bytes_max);
    let codec = how.target.codec;
    let io_error = |error: std::io::Error| match error.downcast::<RecordsError>() {
        Ok(error) => error,
        Err(error) => RecordsError::Compress { codec, reason: error.to_string() },
    };
    let mut encoder = Encoder::new(how.target, sink).map_err(io_error)?;
    let times = copy_records(batch, &mut source, &mut encoder).map_err(|e| match e {
        CopyError::Read(e) => e,
        CopyError::Write(e) => io_error(e),
    })?;
    let trailing = source.fill_buf().map_err(|e| read_error(source_codec, e))?.len();
    if trailing > 0 {
        return Err(RecordsError::TrailingRecordBytes(trailing));
    }
    let mut out = encoder.finish().map_err(io_error)?.out;
    write_header(&mut out, batch, how, times)?;
    Ok(Bytes::from(out))
}

/// The first and largest record timestamps.
#[derive(Debug, Clone, Copy)]
struct Times {
    base: i64,
    max: i64,
}

enum CopyError {
    Read(RecordsError),
    Write(std::io::Error),
}

/// Rewrites each record's prefix and copies the rest of it.
fn copy_records(batch: &RecordBatch, source: &mut impl BufRead, out: &mut impl Write) -> Result<Times, CopyError> {
    let codec = batch.attributes().compression().map_err(CopyError::Read)?;
    let read = |e| CopyError::Read(read_error(codec, e));
    let log_append_time = batch.attributes().timestamp_type() == TimestampType::LogAppendTime;
    let mut times = Times { base: -1, max: -1 };
    let mut prefix = Vec::with_capacity(1 + VARINT_BYTES_MAX * 2 + VARLONG_BYTES_MAX);
    for offset_delta in 0..batch.record_count() {
        let length = zigzag(read_unsigned(source, VARINT_BYTES_MAX).map_err(read)?.0) as i32;
        let mut attributes = [0u8; 1];
        source.read_exact(&mut attributes).map_err(read)?;
        let (timestamp_delta, timestamp_len) = read_unsigned(source, VARLONG_BYTES_MAX).map_err(read)?;
        let (_, offset_len) = read_unsigned(source, VARINT_BYTES_MAX).map_err(read)?;
        let rest = i64::from(length) - 1 - timestamp_len as i64 - offset_len as i64;
        if rest < 0 {
            return Err(CopyError::Read(RecordsError::RecordLengthInvalid { length, remaining: 0 }));
        }
        let timestamp = if log_append_time {
            batch.max_timestamp()
        } else {
            batch.base_timestamp().wrapping_add(zigzag(timestamp_delta))
        };
        if offset_delta == 0 {
            times.base = timestamp;
        }
        times.max = times.max.max(timestamp);
        let new_delta = timestamp.wrapping_sub(times.base);
        let body = 1 + varlong_len(new_delta) + varint_len(offset_delta) + rest as usize;
        let body =
            i32::try_from(body).map_err(|_| CopyError::Read(RecordsError::TooLarge { what: "record", size: body }))?;
        prefix.clear();
        put_varint(&mut prefix, body);
        prefix.push(0);
        put_varlong(&mut prefix, new_delta);
        put_varint(&mut prefix, offset_delta);
        out.write_all(&prefix).map_err(CopyError::Write)?;
        let copied = std::io::copy(&mut source.by_ref().take(rest as u64), out).map_err(|e| {
            if e.get_ref().is_some_and(|inner| inner.is::<RecordsError>()) { CopyError::Write(e) } else { read(e) }
        })?;
        if copied != rest as u64 {
            return Err(CopyError::Read(RecordsError::RecordLengthInvalid { length, remaining: copied as usize }));
        }
    }
    Ok(times)
}

/// Fills in the 61-byte header left at the start of `out`, then the CRC.
fn write_header(out: &mut [u8], batch: &RecordBatch, how: &Recompression, times: Times) -> Result<(), RecordsError> {
    let size = out.len();
    let batch_length =
        i32::try_from(size - LOG_OVERHEAD).map_err(|_| RecordsError::TooLarge { what: "batch length", size })?;
    let (timestamp_type, max_timestamp) = match how.log_append_time_ms {
        Some(now) => (TimestampType::LogAppendTime, now),
        None => (TimestampType::CreateTime, times.max),
    };
    let mut attributes = Attributes::default().with_compression(how.target.codec).with_timestamp_type(timestamp_type);
    if batch.attributes().is_transactional() {
        attributes = attributes.with_transactional();
    }
    let count = batch.record_count();
    let mut header = &mut out[..RECORD_BATCH_OVERHEAD];
    header.put_i64(0);
    header.put_i32(batch_length);
    header.put_i32(batch.partition_leader_epoch());
    header.put_i8(MAGIC);
    header.put_u32(0);
    header.put_i16(attributes.0);
    header.put_i32(count - 1);
    header.put_i64(times.base);
    header.put_i64(max_timestamp);
    header.put_i64(batch.producer_id().0);
    header.put_i16(batch.producer_epoch());
    header.put_i32(batch.base_sequence());
    header.put_i32(count);
    let crc = crc32c::crc32c(&out[ATTRIBUTES..]);
    out[CRC..CRC + 4].copy_from_slice(&crc.to_be_bytes());
    Ok(())
}

/// The decompressed source, failing once it has produced more than `limit_bytes`.
struct BoundedSource<R> {
    reader: R,
    left: usize,
    codec: Compression,
    limit_bytes: usize,
}

impl<R: Read> Read for BoundedSource<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let read = self.reader.read(buf)?;
        self.left = self.left.checked_sub(read).ok_or_else(|| {
            std::io::Error::other(RecordsError::DecompressedTooLarge {
                codec: self.codec,
                limit_bytes: self.limit_bytes,
            })
        })?;
        Ok(read)
    }
}

/// The output: a header's room, then the encoder's bytes, never past `max` in all.
struct BoundedSink {
    out: Vec<u8>,
    max: usize,
}

impl BoundedSink {
    fn new(max: usize) -> Self {
        BoundedSink { out: vec![0; RECORD_BATCH_OVERHEAD], max }
    }
}

impl Write for BoundedSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let needed = self.out.len().saturating_add(buf.len());
        if needed > self.max {
            return Err(std::io::Error::other(RecordsError::RecompressedTooLarge { limit_bytes: self.max }));
        }
        if needed > self.out.capacity() {
            // Geometric growth, but never a capacity past the bound.
            let target = needed.max(self.out.capacity().saturating_mul(2).min(self.max));
            self.out.reserve_exact(target - self.out.len());
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An unsigned varint of at most `bytes_max` bytes, and how many it took.
fn read_unsigned(source: &mut impl Read, bytes_max: usize) -> std::io::Result<(u64, usize)> {
    let mut value = 0u64;
    for i in 0..bytes_max {
        let mut byte = [0u8; 1];
        source.read_exact(&mut byte)?;
        value |= u64::from(byte[0] & 0x7f) << (7 * i);
        if byte[0] & 0x80 == 0 {
            return Ok((value, i + 1));
        }
    }
    Err(std::io::Error::other("varint too long"))
}

fn zigzag(raw: u64) -> i64 {
    ((raw >> 1) as i64) ^ -((raw & 1) as i64)
}

fn read_error(codec: Compression, error: std::io::Error) -> RecordsError {
    match error.downcast::<RecordsError>() {
        Ok(error) => error,
        Err(error) => RecordsError::Decompress { codec, reason: error.to_string() },
    }
}

#[cfg(test)]
#[path = "recompress_tests.rs"]
mod tests;
