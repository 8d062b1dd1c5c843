//! [`RecordBatchBuilder`]: writes one magic-2 batch from records, as Kafka's
//! `MemoryRecordsBuilder` does. For tests, the client and the CLI; the broker's produce path
//! never rebuilds a batch it can store as it came.
//!
//! Records get consecutive offset deltas from 0; the base timestamp is the first record's, the
//! max timestamp the largest (or the append time under LogAppendTime); the CRC is computed last.
//! Records are encoded as they are appended, so the builder holds one uncompressed records
//! region, compressed once in [`RecordBatchBuilder::build`].

use bytes::{BufMut, Bytes, BytesMut};
use strand_base::{LeaderEpoch, Offset, ProducerId};

use super::RecordsError;
use super::batch::{ATTRIBUTES, Attributes, CRC, LOG_OVERHEAD, MAGIC, RECORD_BATCH_OVERHEAD, TimestampType};
use super::compression::{Compression, compress};
use super::record::Header;
use crate::codec::varint::{put_varint, put_varlong, varint_len, varlong_len};

/// One record to append: an absolute timestamp, nullable key and value, and headers in order
/// (duplicate keys allowed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NewRecord<'a> {
    pub timestamp_ms: i64,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    pub headers: &'a [Header<'a>],
}

/// Builds one batch. Defaults: base offset 0, partition leader epoch -1, no producer id (-1,
/// epoch -1, sequence -1), no compression, CreateTime, neither transactional nor control.
#[derive(Debug, Clone)]
pub struct RecordBatchBuilder {
    base_offset: Offset,
    partition_leader_epoch: LeaderEpoch,
    producer_id: ProducerId,
    producer_epoch: i16,
    base_sequence: i32,
    attributes: Attributes,
    compression: Compression,
    log_append_time_ms: Option<i64>,
    base_timestamp: Option<i64>,
    max_timestamp: i64,
    record_count: i32,
    records: Vec<u8>,
}

impl Default for RecordBatchBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl RecordBatchBuilder {
    pub fn new() -> Self {
        RecordBatchBuilder {
            base_offset: 0,
            partition_leader_epoch: -1,
            producer_id: ProducerId::NONE,
            producer_epoch: -1,
            base_sequence: -1,
            attributes: Attributes::default(),
            compression: Compression::None,
            log_append_time_ms: None,
            base_timestamp: None,
            max_timestamp: -1,
            record_count: 0,
            records: Vec::new(),
        }
    }

    pub fn base_offset(mut self, base_offset: Offset) -> Self {
        self.base_offset = base_offset;
        self
    }

    pub fn partition_leader_epoch(mut self, epoch: LeaderEpoch) -> Self {
        self.partition_leader_epoch = epoch;
        self
    }

    /// An idempotent or transactional producer's id, epoch and first sequence number.
    pub fn producer(mut self, producer_id: ProducerId, epoch: i16, base_sequence: i32) -> Self {
        self.producer_id = producer_id;
        self.producer_epoch = epoch;
        self.base_sequence = base_sequence;
        self
    }

    pub fn transactional(mut self) -> Self {
        self.attributes = self.attributes.with_transactional();
        self
    }

    /// Marks a control batch (transaction markers); see [`super::control`].
    pub fn control(mut self) -> Self {
        self.attributes = self.attributes.with_control();
        self
    }

    pub fn compression(mut self, codec: Compression) -> Self {
        self.compression = codec;
        self
    }

    /// LogAppendTime: the max timestamp becomes `append_time_ms`, which readers report for every
    /// record. The records keep the timestamps they were appended with.
    pub fn log_append_time(mut self, append_time_ms: i64) -> Self {
        self.log_append_time_ms = Some(append_time_ms);
        self
    }

    /// The number of records appended so far.
    pub fn record_count(&self) -> i32 {
        self.record_count
    }

    /// Appends `record` with the next offset delta.
    pub fn append(&mut self, record: &NewRecord<'_>) -> Result<(), RecordsError> {
        let offset_delta = self.record_count;
        let count = offset_delta
            .checked_add(1)
            .ok_or(RecordsError::TooLarge { what: "record count", size: offset_delta as usize + 1 })?;
        let base_timestamp = self.base_timestamp.unwrap_or(record.timestamp_ms);
        let timestamp_delta = record.timestamp_ms.wrapping_sub(base_timestamp);
        encode_record(&mut self.records, record, timestamp_delta, offset_delta)?;
        self.base_timestamp = Some(base_timestamp);
        self.max_timestamp = self.max_timestamp.max(record.timestamp_ms);
        self.record_count = count;
        Ok(())
    }

    /// Writes the batch: header, (compressed) records, CRC. A builder with no records is an
    /// error: Kafka writes no batch for no records.
    pub fn build(&self) -> Result<Bytes, RecordsError> {
        if self.record_count == 0 {
            return Err(RecordsError::EmptyBatch);
        }
        let compressed;
        let region = match self.compression {
            Compression::None => &self.records[..],
            codec => {
                compressed = compress(codec, &self.records)?;
                &compressed[..]
            }
        };
        let size = RECORD_BATCH_OVERHEAD + region.len();
        let batch_length =
            i32::try_from(size - LOG_OVERHEAD).map_err(|_| RecordsError::TooLarge { what: "batch length", size })?;
        let mut out = BytesMut::with_capacity(size);
        self.put_header(&mut out, batch_length);
        out.put_slice(region);
        let crc = crc32c::crc32c(&out[ATTRIBUTES..]);
        out[CRC..CRC + 4].copy_from_slice(&crc.to_be_bytes());
        Ok(out.freeze())
    }

    /// The 61-byte header with a zero CRC, to be filled in once the records follow it.
    fn put_header(&self, out: &mut BytesMut, batch_length: i32) {
        let (timestamp_type, max_timestamp) = match self.log_append_time_ms {
            Some(append_time) => (TimestampType::LogAppendTime, append_time),
            None => (TimestampType::CreateTime, self.max_timestamp),
        };
        let attributes = self.attributes.with_compression(self.compression).with_timestamp_type(timestamp_type);
        out.put_i64(self.base_offset);
        out.put_i32(batch_length);
        out.put_i32(self.partition_leader_epoch);
        out.put_i8(MAGIC);
        out.put_u32(0);
        out.put_i16(attributes.0);
        out.put_i32(self.record_count - 1);
        out.put_i64(self.base_timestamp.unwrap_or(-1));
        out.put_i64(max_timestamp);
        out.put_i64(self.producer_id.0);
        out.put_i16(self.producer_epoch);
        out.put_i32(self.base_sequence);
        out.put_i32(self.record_count);
    }
}

/// Appends one record: its length prefix, then its fields.
fn encode_record(
    out: &mut Vec<u8>,
    record: &NewRecord<'_>,
    timestamp_delta: i64,
    offset_delta: i32,
) -> Result<(), RecordsError> {
    let header_count = wire_len(record.headers.len(), "header count")?;
    let mut body_len = 1
        + varlong_len(timestamp_delta)
        + varint_len(offset_delta)
        + nullable_size(record.key, "key")?
        + nullable_size(record.value, "value")?
        + varint_len(header_count);
    for header in record.headers {
        body_len += nullable_size(Some(header.key_bytes()), "header key")?;
        body_len += nullable_size(header.value, "header value")?;
    }
    put_varint(out, wire_len(body_len, "record")?);
    out.push(0);
    put_varlong(out, timestamp_delta);
    put_varint(out, offset_delta);
    put_nullable(out, record.key, "key")?;
    put_nullable(out, record.value, "value")?;
    put_varint(out, header_count);
    for header in record.headers {
        put_nullable(out, Some(header.key_bytes()), "header key")?;
        put_nullable(out, header.value, "header value")?;
    }
    Ok(())
}

/// A length as the wire's `i32`, or an error naming what was too long.
fn wire_len(len: usize, what: &'static str) -> Result<i32, RecordsError> {
    i32::try_from(len).map_err(|_| RecordsError::TooLarge { what, size: len })
}

/// The wire length of nullable bytes: -1 for null.
fn nullable_len(bytes: Option<&[u8]>, what: &'static str) -> Result<i32, RecordsError> {
    bytes.map_or(Ok(-1), |bytes| wire_len(bytes.len(), what))
}

/// The encoded size of nullable bytes: length prefix plus the bytes.
fn nullable_size(bytes: Option<&[u8]>, what: &'static str) -> Result<usize, RecordsError> {
    let len = nullable_len(bytes, what)?;
    Ok(varint_len(len) + bytes.map_or(0, <[u8]>::len))
}

fn put_nullable(out: &mut Vec<u8>, bytes: Option<&[u8]>, what: &'static str) -> Result<(), RecordsError> {
    put_varint(out, nullable_len(bytes, what)?);
    if let Some(bytes) = bytes {
        out.extend_from_slice(bytes);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::batch::RecordBatch;

    /// A record with every field present round-trips through the builder and the reader, with
    /// negative timestamp deltas when timestamps go backwards.
    #[test]
    fn records_round_trip() {
        let headers = [Header { key: "a", value: Some(b"1") }, Header { key: "a", value: None }];
        let mut builder = RecordBatchBuilder::new().base_offset(10);
        for (timestamp_ms, key) in [(500, Some(&b"k1"[..])), (400, None)] {
            let record = NewRecord { timestamp_ms, key, value: Some(b"value"), headers: &headers };
            builder.append(&record).expect("appends");
        }
        let batch = RecordBatch::parse(builder.build().expect("builds")).expect("parses");
        assert_eq!((batch.base_timestamp(), batch.max_timestamp()), (500, 500));
        assert_eq!(batch.validate_uncompressed_record_count(), Ok(()));
        let records = batch.records().expect("records");
        let read: Vec<_> = records.iter().collect::<Result<_, _>>().expect("valid records");
        assert_eq!(read.len(), 2);
        assert_eq!(read[1].timestamp_delta(), -100);
        assert_eq!(batch.record_timestamp(&read[1]), 400);
        assert_eq!(batch.record_offset(&read[1]), 11);
        assert_eq!(read[0].key(), Some(&b"k1"[..]));
        assert_eq!(read[1].key(), None);
        assert_eq!(read[1].headers().collect::<Vec<_>>(), headers);
    }

    /// Flags, compression and LogAppendTime land in the attributes and header fields.
    #[test]
    fn options_set_the_header() {
        let mut builder = RecordBatchBuilder::new()
            .transactional()
            .compression(Compression::Gzip)
            .log_append_time(9_999)
            .producer(ProducerId(7), 2, 30);
        builder.append(&NewRecord { timestamp_ms: 5, ..NewRecord::default() }).expect("appends");
        let batch = RecordBatch::parse(builder.build().expect("builds")).expect("parses");
        let attributes = batch.attributes();
        assert_eq!(attributes.compression(), Ok(Compression::Gzip));
        assert_eq!(attributes.timestamp_type(), TimestampType::LogAppendTime);
        assert!(attributes.is_transactional() && !attributes.is_control());
        assert_eq!((batch.base_timestamp(), batch.max_timestamp()), (5, 9_999));
        assert_eq!((batch.producer_id(), batch.producer_epoch(), batch.base_sequence()), (ProducerId(7), 2, 30));
        assert!(batch.crc_is_valid());
    }

    /// A builder with no records writes no batch.
    #[test]
    fn empty_builder_is_an_error() {
        assert_eq!(RecordBatchBuilder::new().build(), Err(RecordsError::EmptyBatch));
    }
}
