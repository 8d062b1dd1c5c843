//! `flush.messages` and `flush.ms` are honoured: the recovery point (what is on stable storage)
//! advances by itself once that many records are unflushed or the oldest is that old, and not
//! before; `flush_to` advances it on demand, once for everything appended.

mod common;

use std::sync::Arc;

use common::{TestClock, open};
use strand_log::{Log, LogConfig};

fn append(log: &mut Log) {
    common::append_record(log, 1, 1);
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
    clock.set(99);
    append(&mut log);
    assert_eq!(log.recovery_point(), 0);
    clock.set(100);
    append(&mut log);
    assert_eq!(log.recovery_point(), 3);
    append(&mut log);
    clock.set(250);
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
