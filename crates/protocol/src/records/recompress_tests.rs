use strand_base::ProducerId;

use super::*;
use crate::records::{Header, NewRecord, RecordBatchBuilder};

const LIMIT: usize = 64 * 1024 * 1024;

/// What a reader sees of a record: timestamp, offset, key, value, headers.
type Seen = (i64, i64, Option<Vec<u8>>, Option<Vec<u8>>, Vec<(String, Option<Vec<u8>>)>);

fn seen(batch: &RecordBatch) -> Vec<Seen> {
    let records = batch.records_with_limit(LIMIT).expect("decompresses");
    records
        .iter()
        .map(|record| {
            let record = record.expect("valid record");
            let headers = record.headers().map(|h| (h.key.to_owned(), h.value.map(<[u8]>::to_vec))).collect();
            (
                batch.record_timestamp(&record),
                batch.record_offset(&record),
                record.key().map(<[u8]>::to_vec),
                record.value().map(<[u8]>::to_vec),
                headers,
            )
        })
        .collect()
}

/// A transactional producer's batch of `count` records: timestamps going back and forth, a null
/// key, a null value, headers, a value large enough for several codec blocks.
fn source(codec: Compression, count: usize) -> RecordBatch {
    let headers = [Header { key: "h", value: Some(b"1") }, Header { key: "h", value: None }];
    let big = vec![b'x'; 70_000];
    let mut builder = RecordBatchBuilder::new()
        .compression(codec)
        .producer(ProducerId(42), 3, 17)
        .transactional()
        .partition_leader_epoch(5);
    for i in 0..count {
        let value: Option<&[u8]> = match i % 3 {
            0 => None,
            1 => Some(&big),
            _ => Some(b"value"),
        };
        let key: Option<&[u8]> = if i % 2 == 0 { Some(b"key") } else { None };
        let timestamp_ms = 1_000 + (i as i64 % 4) * 100 - 150;
        builder.append(&NewRecord { timestamp_ms, key, value, headers: &headers }).expect("record");
    }
    RecordBatch::parse(builder.build().expect("batch")).expect("parses")
}

fn how(codec: Compression) -> Recompression {
    Recompression {
        target: TargetCompression { codec, level: None },
        log_append_time_ms: None,
        decompressed_bytes_max: LIMIT,
        batch_bytes_max: LIMIT,
    }
}

/// From every codec to every other, the records read back the same, and the header keeps the
/// producer's id, epoch, sequence, transactional flag and leader epoch, with the new codec,
/// Kafka's base and max timestamps and a valid CRC.
#[test]
fn every_codec_to_every_codec_keeps_records_and_producer_state() {
    for from in Compression::ALL {
        let batch = source(from, 7);
        let expected = seen(&batch);
        for to in Compression::ALL {
            let out = RecordBatch::parse(recompress(&batch, &how(to)).expect("recompresses")).expect("parses");
            assert_eq!(out.attributes().compression(), Ok(to), "{from} -> {to}");
            assert!(out.crc_is_valid(), "{from} -> {to}");
            assert!(out.attributes().is_transactional() && !out.attributes().is_control());
            assert_eq!(out.attributes().timestamp_type(), TimestampType::CreateTime);
            assert_eq!((out.producer_id(), out.producer_epoch(), out.base_sequence()), (ProducerId(42), 3, 17));
            assert_eq!((out.partition_leader_epoch(), out.base_offset()), (5, 0));
            assert_eq!((out.record_count(), out.last_offset_delta()), (7, 6));
            assert_eq!((out.base_timestamp(), out.max_timestamp()), (850, 1_150));
            assert_eq!(seen(&out), expected, "{from} -> {to}");
            let summary = crate::records::summarize(&out, LIMIT).expect("the produce path reads it");
            assert!(summary.offsets_in_order);
        }
    }
}

/// Under LogAppendTime the new batch carries the broker's time and the records keep theirs
/// underneath (readers see the batch's time), as Kafka's `MemoryRecordsBuilder` writes it.
#[test]
fn log_append_time_stamps_the_batch() {
    let batch = source(Compression::None, 3);
    let how = Recompression { log_append_time_ms: Some(99_000), ..how(Compression::Zstd) };
    let out = RecordBatch::parse(recompress(&batch, &how).expect("recompresses")).expect("parses");
    assert_eq!(out.attributes().timestamp_type(), TimestampType::LogAppendTime);
    assert_eq!((out.base_timestamp(), out.max_timestamp()), (850, 99_000));
    assert!(seen(&out).iter().all(|record| record.0 == 99_000));
}

/// A result past `batch_bytes_max` and a source past the decompression limit are refused with
/// their own errors; the output buffer never grew past the bound.
#[test]
fn limits_are_enforced() {
    let batch = source(Compression::Zstd, 4);
    let small = Recompression { batch_bytes_max: 10_000, ..how(Compression::None) };
    assert_eq!(recompress(&batch, &small), Err(RecordsError::RecompressedTooLarge { limit_bytes: 10_000 }));
    let small = Recompression { batch_bytes_max: 100, ..how(Compression::Gzip) };
    assert_eq!(recompress(&batch, &small), Err(RecordsError::RecompressedTooLarge { limit_bytes: 100 }));
    let tight = Recompression { decompressed_bytes_max: 1_000, ..how(Compression::Lz4) };
    assert!(matches!(recompress(&batch, &tight), Err(RecordsError::DecompressedTooLarge { .. })));
}

/// Levels reach the codec: gzip 1 and 9, zstd 1 and 19 write different bytes, each readable.
#[test]
fn levels_reach_the_codec() {
    let batch = source(Compression::None, 30);
    for (codec, low, high) in [(Compression::Gzip, 1, 9), (Compression::Zstd, -5, 19), (Compression::Zstd, 3, 22)] {
        let at = |level| {
            let how = Recompression { target: TargetCompression { codec, level: Some(level) }, ..how(codec) };
            recompress(&batch, &how).expect("recompresses")
        };
        let (fast, small) = (at(low), at(high));
        assert_ne!(fast, small, "{codec} {low} vs {high}");
        for bytes in [fast, small] {
            assert_eq!(seen(&RecordBatch::parse(bytes).expect("parses")), seen(&batch));
        }
    }
}

/// A corrupt source is an error, never a panic.
#[test]
fn corrupt_sources_are_errors() {
    let batch = source(Compression::Gzip, 2);
    let mut bytes = batch.as_bytes().to_vec();
    let at = bytes.len() - 20;
    bytes[at] ^= 0xff;
    let corrupt = RecordBatch::parse(Bytes::from(bytes)).expect("header parses");
    assert!(recompress(&corrupt, &how(Compression::Snappy)).is_err());
}
