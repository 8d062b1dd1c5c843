//! What several log tests share: a clock the test sets, a log in a temporary directory, and
//! one-record appends.

#![allow(dead_code)]

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use bytes::BytesMut;
use strand_base::Clock;
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{Log, LogConfig};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

/// Wall-clock milliseconds as the test sets them.
#[derive(Debug, Default)]
pub struct TestClock(AtomicI64);

impl TestClock {
    pub fn set(&self, now_ms: i64) {
        self.0.store(now_ms, Ordering::SeqCst);
    }
}

impl Clock for TestClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
    fn monotonic_ns(&self) -> u64 {
        0
    }
}

/// Appends one record with timestamp `timestamp_ms` and a value of `value_bytes` bytes.
pub fn append_record(log: &mut Log, timestamp_ms: i64, value_bytes: usize) {
    let value = vec![b'v'; value_bytes];
    let mut builder = RecordBatchBuilder::new();
    builder.append(&NewRecord { timestamp_ms, key: None, value: Some(&value), headers: &[] }).expect("record");
    let batch = ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid");
    log.append_as_leader(batch, 0, AppendContext::client(VerificationGuard::SENTINEL)).expect("append");
}

/// A log in a fresh directory, with small preallocated indexes.
pub fn open(config: LogConfig, clock: Arc<TestClock>) -> (tempfile::TempDir, Log) {
    let dir = tempfile::tempdir().expect("dir");
    let config = LogConfig { segment_index_bytes: 4096, ..config };
    let log = Log::open(dir.path(), config, LogCheckpoints::default(), clock).expect("open");
    (dir, log)
}
