//! Record batch benchmarks: the per-batch costs of the produce path (header view, CRC-32C,
//! record-count check, the records walk of `summarize` for every codec, against a full
//! decompression) and of reading records, on a ~1 MiB and a 1 KiB batch.
//!
//! Throughput is reported in bytes of batch per second, so the header view (constant work) shows
//! how little it costs relative to the batch it describes.

use std::hint::black_box;

use bytes::Bytes;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use strand_protocol::records::{Compression, NewRecord, RecordBatch, RecordBatchBuilder, decompress, summarize};

/// The value size of the benchmark records: a small event, as most Kafka records are.
const VALUE_BYTES: usize = 100;

/// An uncompressed batch of about `size_bytes`, of records with a 16-byte key and a
/// [`VALUE_BYTES`] value.
fn batch_of(size_bytes: usize) -> Bytes {
    batch_with(size_bytes, Compression::None)
}

/// [`batch_of`]'s records (`size_bytes` before compression) compressed with `codec`; values
/// repeat a little, as real events do, so every codec has something to do.
fn batch_with(size_bytes: usize, codec: Compression) -> Bytes {
    let value: Vec<u8> = (0..VALUE_BYTES).map(|i| (i % 7) as u8 + b'a').collect();
    let mut builder = RecordBatchBuilder::new().compression(codec);
    let record_count = (size_bytes.saturating_sub(61) / (VALUE_BYTES + 24)).max(1);
    for i in 0..record_count {
        let key = format!("key-{i:012}");
        let record = NewRecord {
            timestamp_ms: 1_700_000_000_000 + i as i64,
            key: Some(key.as_bytes()),
            value: Some(&value),
            headers: &[],
        };
        builder.append(&record).expect("benchmark record fits");
    }
    builder.build().expect("benchmark batch builds")
}

fn sizes() -> [(&'static str, Bytes); 2] {
    [("1MiB", batch_of(1 << 20)), ("1KiB", batch_of(1 << 10))]
}

fn header_parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("records/header_parse");
    for (name, bytes) in sizes() {
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &bytes, |b, bytes| {
            b.iter(|| {
                let batch = RecordBatch::parse(black_box(bytes.clone())).expect("valid batch");
                (batch.base_offset(), batch.last_offset(), batch.record_count(), batch.attributes())
            })
        });
    }
    group.finish();
}

fn crc_verify(c: &mut Criterion) {
    let mut group = c.benchmark_group("records/crc_verify");
    for (name, bytes) in sizes() {
        let batch = RecordBatch::parse(bytes).expect("valid batch");
        group.throughput(Throughput::Bytes(batch.size_in_bytes() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &batch, |b, batch| {
            b.iter(|| assert!(black_box(batch).crc_is_valid()))
        });
    }
    group.finish();
}

fn record_count_check(c: &mut Criterion) {
    let mut group = c.benchmark_group("records/validate_uncompressed_record_count");
    for (name, bytes) in sizes() {
        let batch = RecordBatch::parse(bytes).expect("valid batch");
        group.throughput(Throughput::Bytes(batch.size_in_bytes() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &batch, |b, batch| {
            b.iter(|| black_box(batch).validate_uncompressed_record_count())
        });
    }
    group.finish();
}

fn record_iteration(c: &mut Criterion) {
    let mut group = c.benchmark_group("records/iterate");
    let batch = RecordBatch::parse(batch_of(1 << 20)).expect("valid batch");
    group.throughput(Throughput::Bytes(batch.size_in_bytes() as u64));
    group.bench_function("1MiB", |b| {
        b.iter(|| {
            let records = black_box(&batch).records().expect("uncompressed");
            let mut value_bytes = 0;
            for record in records.iter() {
                let record = record.expect("valid record");
                value_bytes += record.value().map_or(0, <[u8]>::len);
                value_bytes += record.headers().count();
            }
            value_bytes
        })
    });
    group.finish();
}

/// The produce path's walk of a batch's records, per codec, in bytes of records (uncompressed)
/// per second; beside it, decompressing the same batch whole, which the walk replaces.
fn records_walk(c: &mut Criterion) {
    let mut group = c.benchmark_group("records/summarize");
    for codec in Compression::ALL {
        for (size, bytes) in [("1MiB", 1usize << 20), ("1KiB", 1 << 10)] {
            let batch = RecordBatch::parse(batch_with(bytes, codec)).expect("valid batch");
            group.throughput(Throughput::Bytes(bytes as u64));
            group.bench_with_input(BenchmarkId::new(codec.name(), size), &batch, |b, batch| {
                b.iter(|| summarize(black_box(batch), 64 << 20).expect("valid records"))
            });
        }
    }
    group.finish();
    let mut group = c.benchmark_group("records/decompress_whole");
    for codec in Compression::ALL.into_iter().skip(1) {
        let batch = RecordBatch::parse(batch_with(1 << 20, codec)).expect("valid batch");
        let region = batch.records_region();
        group.throughput(Throughput::Bytes(1 << 20));
        group.bench_with_input(BenchmarkId::new(codec.name(), "1MiB"), &region, |b, region| {
            b.iter(|| decompress(codec, black_box(region), 64 << 20).expect("decompresses").len())
        });
    }
    group.finish();
}

criterion_group!(benches, header_parse, crc_verify, record_count_check, record_iteration, records_walk);
criterion_main!(benches);
