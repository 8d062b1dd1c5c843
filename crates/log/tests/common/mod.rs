//! What several log tests share: a log in a temporary directory (on `strand_base`'s
//! [`ManualClock`]), and one-record appends.

#![allow(dead_code)]

use std::sync::Arc;

use bytes::BytesMut;
use strand_base::testkit::ManualClock;
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{Log, LogConfig};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

/// Appends one record with timestamp `timestamp_ms` and a value of `value_bytes` bytes.
pub fn append_record(log: &mut Log, timestamp_ms: i64, value_bytes: usize) {
    let value = vec![b'v'; value_bytes];
    let mut builder = RecordBatchBuilder::new();
    builder.append(&NewRecord { timestamp_ms, key: None, value: Some(&value), headers: &[] }).expect("record");
    let batch = ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid");
    log.append_as_leader(batch, 0, AppendContext::client(VerificationGuard::SENTINEL)).expect("append");
}

/// A log in a fresh directory, with small preallocated indexes.
pub fn open(config: LogConfig, clock: Arc<ManualClock>) -> (tempfile::TempDir, Log) {
    let dir = tempfile::tempdir().expect("dir");
    let config = LogConfig { segment_index_bytes: 4096, ..config };
    let log = Log::open(dir.path(), config, LogCheckpoints::default(), clock).expect("open");
    (dir, log)
}
