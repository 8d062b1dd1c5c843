//! Writes the batches the cleaner keeps: a batch with some of its records, or an empty batch that
//! only carries its producer's sequence information.
//!
//! A rebuilt batch keeps the original's base offset, last offset delta, partition leader epoch,
//! producer id, epoch and base sequence, codec, timestamp type and transactional and control
//! flags; each kept record keeps its offset delta (so offsets are preserved, with holes) and its
//! timestamp. Only the records, the count, the max timestamp, the CRC and, when the cleaner sets
//! one, the delete horizon (attribute bit 6, stored as the base timestamp, KIP-534) change.
//!
//! Where this differs from Kafka: Kafka's rebuilt batch ends at its last kept record; here the
//! original last offset delta is kept, so a batch's offset range and its producer's sequence
//! range stay what the producer wrote (Kafka's own empty batches do the same).

use bytes::{BufMut, Bytes, BytesMut};
use strand_protocol::codec::varint::{put_varint, put_varlong, varint_len, varlong_len};
use strand_protocol::records::{Attributes, Compression, Record, RecordBatch, TimestampType, compress};

use crate::{LogError, Result};

/// Attribute bit 6: the base timestamp is the delete horizon.
const DELETE_HORIZON_FLAG: i16 = 0x40;
/// Where the CRC-covered bytes start, and where the CRC is.
const ATTRIBUTES_POSITION: usize = 21;
const CRC_POSITION: usize = 17;
const RECORD_BATCH_OVERHEAD: usize = 61;
const LOG_OVERHEAD: usize = 12;

/// `original` with only `records` (a subset of its own, in order), and `delete_horizon_ms` set if
/// given.
pub(crate) fn rebuild_batch(
    original: &RecordBatch,
    records: &[Record<'_>],
    delete_horizon_ms: Option<i64>,
) -> Result<Bytes> {
    let invalid = |e: strand_protocol::records::RecordsError| LogError::InvalidBatch(e.to_string());
    let original_base = original.base_timestamp();
    let base_timestamp = delete_horizon_ms.unwrap_or(original_base);
    let mut region = Vec::new();
    let mut max_timestamp = -1i64;
    for record in records {
        let timestamp = original_base.wrapping_add(record.timestamp_delta());
        max_timestamp = max_timestamp.max(timestamp);
        encode_record(&mut region, record, timestamp.wrapping_sub(base_timestamp))?;
    }
    let attributes = original.attributes();
    if attributes.timestamp_type() == TimestampType::LogAppendTime {
        max_timestamp = original.max_timestamp();
    }
    let codec = attributes.compression().map_err(invalid)?;
    let region = match codec {
        Compression::None => region,
        codec => compress(codec, &region).map_err(invalid)?,
    };
    let attributes = match delete_horizon_ms {
        Some(_) => Attributes(attributes.0 | DELETE_HORIZON_FLAG),
        None => attributes,
    };
    let header = Header { attributes, base_timestamp, max_timestamp, record_count: records.len() as i32 };
    write_batch(original, header, &region)
}

/// An empty batch standing for `original`: no records, no compression, the same offsets, producer
/// fields and flags (Kafka's `writeEmptyHeader`), so the producer state rebuilt from the log still
/// knows the producer's last sequence.
pub(crate) fn empty_batch(original: &RecordBatch) -> Result<Bytes> {
    let attributes = original.attributes();
    let mut bits = Attributes(0).with_timestamp_type(attributes.timestamp_type());
    if attributes.is_transactional() {
        bits = bits.with_transactional();
    }
    if attributes.is_control() {
        bits = bits.with_control();
    }
    let header = Header {
        attributes: bits,
        base_timestamp: original.base_timestamp(),
        max_timestamp: original.max_timestamp(),
        record_count: 0,
    };
    write_batch(original, header, &[])
}

/// The header fields a rewrite changes.
struct Header {
    attributes: Attributes,
    base_timestamp: i64,
    max_timestamp: i64,
    record_count: i32,
}

fn write_batch(original: &RecordBatch, header: Header, region: &[u8]) -> Result<Bytes> {
    let size = RECORD_BATCH_OVERHEAD + region.len();
    let batch_length = i32::try_from(size - LOG_OVERHEAD)
        .map_err(|_| LogError::InvalidBatch(format!("a rebuilt batch of {size} bytes")))?;
    let mut out = BytesMut::with_capacity(size);
    out.put_i64(original.base_offset());
    out.put_i32(batch_length);
    out.put_i32(original.partition_leader_epoch());
    out.put_i8(original.magic());
    out.put_u32(0);
    out.put_i16(header.attributes.0);
    out.put_i32(original.last_offset_delta());
    out.put_i64(header.base_timestamp);
    out.put_i64(header.max_timestamp);
    out.put_i64(original.producer_id().0);
    out.put_i16(original.producer_epoch());
    out.put_i32(original.base_sequence());
    out.put_i32(header.record_count);
    out.put_slice(region);
    let crc = crc32c::crc32c(&out[ATTRIBUTES_POSITION..]);
    out[CRC_POSITION..CRC_POSITION + 4].copy_from_slice(&crc.to_be_bytes());
    Ok(out.freeze())
}

/// One record in the wire layout, with its offset delta and a new timestamp delta.
fn encode_record(out: &mut Vec<u8>, record: &Record<'_>, timestamp_delta: i64) -> Result<()> {
    let len = |bytes: Option<&[u8]>| -> Result<i32> {
        bytes.map_or(Ok(-1), |b| i32::try_from(b.len()).map_err(|_| LogError::InvalidBatch("field too long".into())))
    };
    let nullable_size =
        |bytes: Option<&[u8]>| -> Result<usize> { Ok(varint_len(len(bytes)?) + bytes.map_or(0, <[u8]>::len)) };
    let header_count = record.header_count() as i32;
    let mut body = 1
        + varlong_len(timestamp_delta)
        + varint_len(record.offset_delta())
        + nullable_size(record.key())?
        + nullable_size(record.value())?
        + varint_len(header_count);
    for header in record.headers() {
        body += nullable_size(Some(header.key_bytes()))? + nullable_size(header.value)?;
    }
    let body = i32::try_from(body).map_err(|_| LogError::InvalidBatch("record too long".into()))?;
    put_varint(out, body);
    out.put_i8(record.attributes());
    put_varlong(out, timestamp_delta);
    put_varint(out, record.offset_delta());
    for field in [record.key(), record.value()] {
        put_varint(out, len(field)?);
        out.put_slice(field.unwrap_or_default());
    }
    put_varint(out, header_count);
    for header in record.headers() {
        for field in [Some(header.key_bytes()), header.value] {
            put_varint(out, len(field)?);
            out.put_slice(field.unwrap_or_default());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use strand_base::ProducerId;
    use strand_protocol::records::{Header, NewRecord, RecordBatchBuilder};

    use super::*;

    fn batch(codec: Compression) -> RecordBatch {
        let headers = [Header { key: "h", value: Some(b"1") }];
        let mut builder = RecordBatchBuilder::new().base_offset(100).producer(ProducerId(7), 1, 50).compression(codec);
        for (i, key) in ["a", "b", "c"].iter().enumerate() {
            let value = (i != 1).then_some(&b"value"[..]);
            let record =
                NewRecord { timestamp_ms: 1000 + i as i64, key: Some(key.as_bytes()), value, headers: &headers };
            builder.append(&record).expect("append");
        }
        RecordBatch::parse(builder.build().expect("build")).expect("parse")
    }

    /// A rebuilt batch keeps offsets, timestamps, headers and producer fields of the records it
    /// keeps, in every codec, with a valid CRC; the horizon moves the base timestamp only.
    #[test]
    fn rebuilt_batches_keep_what_they_keep() {
        for codec in Compression::ALL {
            let original = batch(codec);
            let records = original.records().expect("records");
            let all: Vec<Record<'_>> = records.iter().collect::<std::result::Result<_, _>>().expect("valid");
            let kept = [all[1], all[2]];
            for horizon in [None, Some(5000)] {
                let rebuilt =
                    RecordBatch::parse(rebuild_batch(&original, &kept, horizon).expect("rebuild")).expect("parse");
                assert!(rebuilt.crc_is_valid());
                assert_eq!((rebuilt.base_offset(), rebuilt.last_offset(), rebuilt.record_count()), (100, 102, 2));
                assert_eq!(
                    (rebuilt.producer_id(), rebuilt.base_sequence(), rebuilt.last_sequence()),
                    (ProducerId(7), 50, 52)
                );
                assert_eq!(rebuilt.delete_horizon_ms(), horizon);
                assert_eq!(rebuilt.max_timestamp(), 1002);
                let records = rebuilt.records().expect("records");
                let read: Vec<(i64, i64, Option<&[u8]>, usize)> = records
                    .iter()
                    .map(|r| r.expect("record"))
                    .map(|r| {
                        (
                            rebuilt.record_offset(&r),
                            r.timestamp_delta() + rebuilt.base_timestamp(),
                            r.value(),
                            r.header_count(),
                        )
                    })
                    .collect();
                assert_eq!(read, [(101, 1001, None, 1), (102, 1002, Some(&b"value"[..]), 1)]);
            }
        }
    }

    /// An empty batch keeps the offsets and the producer's sequence range.
    #[test]
    fn empty_batches_keep_the_sequence_range() {
        let empty = RecordBatch::parse(empty_batch(&batch(Compression::Gzip)).expect("empty")).expect("parse");
        assert!(empty.crc_is_valid());
        assert_eq!((empty.base_offset(), empty.last_offset(), empty.record_count()), (100, 102, 0));
        assert_eq!((empty.base_sequence(), empty.last_sequence()), (50, 52));
        assert_eq!(empty.attributes().compression(), Ok(Compression::None));
    }
}
