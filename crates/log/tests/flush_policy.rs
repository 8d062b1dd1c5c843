//! `flush.messages` and `flush.ms` are honoured: the recovery point (what is on stable storage)
//! advances by itself once that many records are unflushed or the oldest is that old, and not
//! before; `flush_to` advances it on demand, once for everything appended.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use bytes::BytesMut;
use strand_base::Clock;
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{Log, LogConfig};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

#[derive(Debug, Default)]
struct TestClock(AtomicI64);

impl Clock for TestClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
    fn monotonic_ns(&self) -> u64 {
        0
    }
}

fn append(log: &mut Log) {
    let mut builder = RecordBatchBuilder::new();
    builder.append(&NewRecord { timestamp_ms: 1, key: None, value: Some(b"v"), headers: &[] }).expect("record");
    let batch = ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid");
    log.append_as_leader(batch, 0, AppendContext::client(VerificationGuard::SENTINEL)).expect("append");
}

fn open(config: LogConfig, clock: Arc<TestClock>) -> (tempfile::TempDir, Log) {
    let dir = tempfile::tempdir().expect("dir");
    let config = LogConfig { segment_index_bytes: 4096, ..config };
    let log = Log::open(dir.path(), config, LogCheckpoints::default(), clock).expect("open");
    (dir, log)
}

/// Every third record triggers a flush with `flush.messages=3`.
#[test]
fn flush_messages_advances_the_recovery_point() {
    let (_dir, mut log) = open(LogConfig { flush_interval_messages: 3, ..LogConfig::default() }, Arc::default());
    append(&mut log);
    append(&mut log);
    assert_eq!(log.recovery_point(), 0);
    append(&mut log);
    assert_eq!(log.recovery_point(), 3);
    append(&mut log);
    assert_eq!(log.recovery_point(), 3);
}

/// With `flush.ms=100`, an append 100 ms after the oldest unflushed one flushes, and so does the
/// timer's call when no append comes.
#[test]
fn flush_ms_advances_the_recovery_point() {
    let clock = Arc::new(TestClock::default());
    let (_dir, mut log) = open(LogConfig { flush_interval_ms: 100, ..LogConfig::default() }, clock.clone());
    append(&mut log);
    clock.0.store(99, Ordering::SeqCst);
    append(&mut log);
    assert_eq!(log.recovery_point(), 0);
    clock.0.store(100, Ordering::SeqCst);
    append(&mut log);
    assert_eq!(log.recovery_point(), 3);
    append(&mut log);
    clock.0.store(250, Ordering::SeqCst);
    log.maybe_flush_by_time().expect("timer flush");
    assert_eq!(log.recovery_point(), 4);
}

/// By default nothing flushes on its own; `flush_to` covers everything appended at once, and a
/// second waiter below the recovery point needs no sync.
#[test]
fn flush_to_is_grouped() {
    let (_dir, mut log) = open(LogConfig::default(), Arc::default());
    for _ in 0..5 {
        append(&mut log);
    }
    assert_eq!(log.recovery_point(), 0);
    log.flush_to(2).expect("flush");
    assert_eq!(log.recovery_point(), 5, "one sync covers every append so far");
    log.flush_to(4).expect("already durable");
    assert_eq!(log.recovery_point(), 5);
}
