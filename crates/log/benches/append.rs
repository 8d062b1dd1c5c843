//! Log append throughput, with and without a group-commit `fdatasync`, and index lookup time.
//!
//! Compare the fsync figures with `dd if=/dev/zero of=FILE bs=16k count=2000 oflag=dsync` on the
//! same disk: one synchronous write per batch is the floor group commit is meant to beat.

use std::hint::black_box;
use std::sync::Arc;

use bytes::BytesMut;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use strand_base::SystemClock;
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{Log, LogConfig};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

/// A 16 KiB batch of 16 one-KiB records, as a producer with `batch.size=16384` would send.
fn batch_bytes() -> BytesMut {
    let value = vec![0x42u8; 1000];
    let mut builder = RecordBatchBuilder::new();
    for i in 0..16 {
        builder
            .append(&NewRecord { timestamp_ms: 1_700_000_000_000 + i, key: None, value: Some(&value), headers: &[] })
            .expect("record");
    }
    BytesMut::from(&builder.build().expect("batch")[..])
}

fn open_log(dir: &std::path::Path) -> Log {
    Log::open(dir, LogConfig::default(), LogCheckpoints::default(), Arc::new(SystemClock)).expect("log")
}

fn append(c: &mut Criterion) {
    let bytes = batch_bytes();
    let mut group = c.benchmark_group("append_16k_batch");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    let dir = tempfile::tempdir().expect("dir");
    let mut log = open_log(dir.path());
    group.bench_function("no_fsync", |b| {
        b.iter_batched(
            || ValidatedBatch::validate(bytes.clone()).expect("valid"),
            |batch| log.append_as_leader(batch, 0, AppendContext::client(VerificationGuard::SENTINEL)).expect("append"),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("fsync_each", |b| {
        b.iter_batched(
            || ValidatedBatch::validate(bytes.clone()).expect("valid"),
            |batch| {
                let info =
                    log.append_as_leader(batch, 0, AppendContext::client(VerificationGuard::SENTINEL)).expect("append");
                log.flush_to(info.last_offset + 1).expect("flush");
            },
            BatchSize::SmallInput,
        )
    });
    // Group commit: 16 appends share one fdatasync, as concurrent acks=all producers would.
    group.throughput(Throughput::Bytes(16 * bytes.len() as u64));
    group.bench_function("fsync_per_16_batches", |b| {
        b.iter_batched(
            || (0..16).map(|_| ValidatedBatch::validate(bytes.clone()).expect("valid")).collect::<Vec<_>>(),
            |batches| {
                for batch in batches {
                    log.append_as_leader(batch, 0, AppendContext::client(VerificationGuard::SENTINEL)).expect("append");
                }
                let end = log.log_end_offset();
                log.flush_to(end).expect("flush");
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn lookup(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("dir");
    let mut log = open_log(dir.path());
    for _ in 0..4000 {
        log.append_as_leader(
            ValidatedBatch::validate(batch_bytes()).expect("valid"),
            0,
            AppendContext::client(VerificationGuard::SENTINEL),
        )
        .expect("append");
    }
    let end = log.log_end_offset();
    let mut offset = 0i64;
    c.bench_function("read_offset_in_64mib_segment", |b| {
        b.iter(|| {
            offset = (offset + 7919) % end;
            black_box(log.read(offset, 1024 * 1024, None).expect("read"))
        })
    });
}

criterion_group!(benches, append, lookup);
criterion_main!(benches);
