//! Delayed delivery in the log (ARCHITECTURE.md, "Delayed delivery"): pending records are
//! delivered once due, earliest first, exactly once, across a restart (clean or not), a
//! truncation that cuts a delivery in half, an idempotent producer's retry, and retention, which
//! keeps them until they are delivered.

mod common;

use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use common::{append_record, open};
use strand_base::ProducerId;
use strand_base::testkit::ManualClock;
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{Log, LogConfig};
use strand_protocol::records::delayed::{PendingRecord, pending_batch};
use strand_protocol::records::{RecordBatch, RecordBatches, TimestampType};

fn pending(values: &[(&str, i64)], sequence: i32) -> ValidatedBatch {
    let records: Vec<PendingRecord> = values
        .iter()
        .map(|(value, due)| PendingRecord {
            due_ms: *due,
            timestamp_ms: 7,
            key: Some(Bytes::from_static(b"key")),
            value: Some(Bytes::copy_from_slice(value.as_bytes())),
            headers: vec![("h".into(), Some(Bytes::from_static(b"1")))],
        })
        .collect();
    let bytes = pending_batch((ProducerId(9), 0, sequence), false, &records).expect("builds");
    ValidatedBatch::validate(BytesMut::from(&bytes[..])).expect("valid")
}

fn client() -> AppendContext {
    AppendContext::client(VerificationGuard::SENTINEL)
}

/// The values of the data batches (what a consumer sees), in offset order.
fn visible(log: &Log) -> Vec<String> {
    let mut values = Vec::new();
    let mut offset = log.log_start_offset();
    // A read stops at its segment's end: read on from the next offset until the log end.
    while offset < log.log_end_offset() {
        let slice = log.read(offset, u64::MAX >> 1, None).expect("reads").expect("batches");
        for batch in RecordBatches::new(slice.read().expect("bytes")) {
            let batch: RecordBatch = batch.expect("whole batch");
            offset = batch.next_offset();
            if batch.attributes().is_control() {
                continue;
            }
            for record in batch.records().expect("records").iter() {
                let record = record.expect("record");
                values.push(String::from_utf8_lossy(record.value().unwrap_or_default()).into_owned());
            }
        }
    }
    values
}

fn deliver(log: &mut Log, now: i64) -> usize {
    let end = log.log_end_offset();
    log.deliver_due(now, end, 0).expect("delivers").map_or(0, |d| d.records)
}

#[test]
fn due_records_are_delivered_earliest_first_once() {
    let clock = Arc::new(ManualClock::default());
    let (_dir, mut log) = open(LogConfig::default(), clock.clone());
    let info = log.append_as_leader(pending(&[("late", 300), ("early", 100), ("tie", 200)], 0), 0, client());
    assert_eq!(info.expect("appends").first_offset, 0);
    append_record(&mut log, 5, 3);
    assert_eq!(log.delayed().pending_count(), 3);
    assert_eq!(deliver(&mut log, 99), 0, "nothing is due yet");
    assert_eq!(visible(&log).len(), 1, "only the plain record is visible");
    assert_eq!(deliver(&mut log, 200), 2);
    assert_eq!(deliver(&mut log, 200), 0, "delivered records are not delivered again");
    assert_eq!(deliver(&mut log, 1_000), 1);
    let values = visible(&log);
    assert_eq!(&values[1..], ["early", "tie", "late"]);
    assert_eq!(log.delayed().pending_count(), 0);

    // A retry of the pending batch (same producer, same sequence) is a duplicate: nothing new.
    let retry = log.append_as_leader(pending(&[("late", 300), ("early", 100), ("tie", 200)], 0), 0, client());
    assert!(retry.expect("answers").duplicate);
    assert_eq!(log.delayed().pending_count(), 0);
}

#[test]
fn a_restart_rebuilds_what_is_pending_and_forgets_what_was_delivered() {
    let clock = Arc::new(ManualClock::default());
    let (dir, mut log) = open(LogConfig::default(), clock.clone());
    log.append_as_leader(pending(&[("a", 100), ("b", 500)], 0), 0, client()).expect("appends");
    assert_eq!(deliver(&mut log, 100), 1);
    // An unclean stop: no close, no clean-shutdown marker; the files hold what was written.
    let config = log.config().clone();
    drop(log);
    let mut log = Log::open(dir.path(), config.clone(), LogCheckpoints::default(), clock.clone()).expect("reopens");
    assert_eq!(log.delayed().pending_count(), 1, "b is pending, a was delivered");
    assert_eq!(deliver(&mut log, 1_000), 1);
    assert_eq!(visible(&log), ["a", "b"]);
    log.close().expect("closes");
    drop(log);
    let log = Log::open(dir.path(), config, LogCheckpoints::default(), clock).expect("reopens");
    assert_eq!(log.delayed().pending_count(), 0);
}

#[test]
fn a_delivery_cut_in_half_is_completed_by_the_next_leader() {
    let clock = Arc::new(ManualClock::default());
    let (_dir, mut log) = open(LogConfig::default(), clock);
    log.append_as_leader(pending(&[("x", 10), ("y", 10)], 0), 0, client()).expect("appends");
    let delivery = log.deliver_due(10, 2, 0).expect("delivers").expect("delivered");
    assert_eq!(delivery.records, 2);
    // A replica that has the delivered batch but not the data batch after it (the leader died
    // between them, or the follower fetched only the first).
    log.truncate_to(delivery.first_offset).expect("truncates");
    assert!(log.delayed().unfinished().is_some());
    assert!(visible(&log).is_empty());
    // As the new leader: the data batch is appended before anything else, and only once.
    let completed = log.deliver_due(10, 0, 1).expect("delivers").expect("completed");
    assert_eq!(completed.records, 2);
    assert_eq!(deliver(&mut log, 1_000), 0);
    assert_eq!(visible(&log), ["x", "y"]);
}

#[test]
fn retention_keeps_segments_with_records_not_delivered() {
    let clock = Arc::new(ManualClock::default());
    let config = LogConfig { segment_bytes: 300, retention_ms: 1_000, ..LogConfig::default() };
    let (_dir, mut log) = open(config, clock.clone());
    log.append_as_leader(pending(&[("kept", 1_000_000)], 0), 0, client()).expect("appends");
    for ts in 0..12 {
        append_record(&mut log, ts, 60);
    }
    assert!(log.segment_count() > 3);
    clock.set(100_000);
    let end = log.log_end_offset();
    assert_eq!(log.apply_retention(end).expect("retention"), 0, "the first segment holds a pending record");
    assert_eq!(log.log_start_offset(), 0);
    clock.set(1_000_000);
    assert_eq!(deliver(&mut log, 1_000_000), 1);
    clock.set(3_000_000);
    let end = log.log_end_offset();
    assert!(log.apply_retention(end).expect("retention") > 0, "delivered: retention goes on");
    assert!(log.log_start_offset() > 0, "the pending batch's segment went");
}

/// Under `message.timestamp.type=LogAppendTime` a delivered copy carries its delivery time and
/// the LogAppendTime attribute, as a produced record carries its append time; under CreateTime
/// it keeps the producer's timestamp.
#[test]
fn copies_are_stamped_with_the_delivery_time_under_log_append_time() {
    for log_append_time in [false, true] {
        let clock = Arc::new(ManualClock::default());
        let (_dir, mut log) = open(LogConfig { log_append_time, ..LogConfig::default() }, clock);
        log.append_as_leader(pending(&[("x", 100)], 0), 0, client()).expect("appends");
        assert_eq!(deliver(&mut log, 250), 1);
        let slice = log.read(0, u64::MAX >> 1, None).expect("reads").expect("batches");
        let data: Vec<RecordBatch> = RecordBatches::new(slice.read().expect("bytes"))
            .map(|b| b.expect("whole batch"))
            .filter(|b| !b.attributes().is_control())
            .collect();
        assert_eq!(data.len(), 1, "one data batch of copies");
        let records = data[0].records().expect("records");
        let record = records.iter().next().expect("one").expect("record");
        let (kind, seen) = if log_append_time {
            (TimestampType::LogAppendTime, data[0].max_timestamp())
        } else {
            (TimestampType::CreateTime, data[0].base_timestamp() + record.timestamp_delta())
        };
        assert_eq!(data[0].attributes().timestamp_type(), kind);
        assert_eq!(seen, if log_append_time { 250 } else { 7 }, "log_append_time {log_append_time}");
    }
}
