//! `flush.messages` and `flush.ms` are honoured: the recovery point (what is on stable storage)
//! advances by itself once that many records are unflushed or the oldest is that old, and not
//! before; `flush_to` advances it on demand, once for everything appended.

mod common;

use std::sync::Arc;

use common::open;
use strand_base::testkit::ManualClock;
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
    let clock = Arc::new(ManualClock::default());
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

/// A flush taken apart (begin under the lock, sync without it, complete under it again) covers
/// what was appended when it began, not the appends made while its files synced; those wait for
/// the next flush. A waiter already covered gets no flush at all.
#[test]
fn a_flush_without_the_lock_covers_what_it_began_with() {
    let (_dir, mut log) = open(LogConfig::default(), Arc::default());
    for _ in 0..3 {
        append(&mut log);
    }
    let flush = log.begin_flush(3).expect("something to flush");
    append(&mut log);
    append(&mut log);
    log.complete_flush(flush.sync().expect("sync"));
    assert_eq!(log.recovery_point(), 3, "the appends made during the sync are not covered");
    assert!(log.begin_flush(2).is_none(), "offset 2 is durable already");
    let next = log.begin_flush(5).expect("the later appends need a flush");
    log.complete_flush(next.sync().expect("sync"));
    assert_eq!(log.recovery_point(), 5);
}

/// A truncation while a flush syncs voids it: the offsets it covered may hold other bytes when it
/// completes, so the recovery point does not move. A flush that completes after a later one got
/// further does not move it back.
#[test]
fn a_flush_overtaken_by_a_truncation_or_a_later_flush_changes_nothing() {
    let (_dir, mut log) = open(LogConfig::default(), Arc::default());
    for _ in 0..4 {
        append(&mut log);
    }
    let stale = log.begin_flush(4).expect("something to flush");
    log.truncate_to(2).expect("truncate");
    append(&mut log);
    append(&mut log);
    log.complete_flush(stale.sync().expect("sync"));
    assert_eq!(log.recovery_point(), 0, "begun before the truncation: the bytes at 2..4 are new");

    let early = log.begin_flush(4).expect("something to flush");
    append(&mut log);
    log.flush_to(5).expect("flush");
    log.complete_flush(early.sync().expect("sync"));
    assert_eq!(log.recovery_point(), 5, "a slower flush does not take the recovery point back");
}

/// `flush_unlocked` makes the shared log durable to its end like `flush_to`, and a second call
/// for an offset already covered returns without a flush.
#[test]
fn flush_unlocked_advances_the_recovery_point() {
    let (_dir, log) = open(LogConfig::default(), Arc::default());
    let log: strand_log::manager::SharedLog = Arc::new(std::sync::Mutex::new(log));
    for _ in 0..3 {
        append(&mut strand_log::manager::lock(&log).expect("lock"));
    }
    strand_log::manager::flush_unlocked(&log, 1).expect("flush");
    assert_eq!(strand_log::manager::lock(&log).expect("lock").recovery_point(), 3);
    strand_log::manager::flush_unlocked(&log, 3).expect("covered");
    assert_eq!(strand_log::manager::lock(&log).expect("lock").recovery_point(), 3);
}

/// A roll does not sync the segment it closes under the log's lock: it hands the new base offset
/// to its owner once ([`Log::take_roll_flush`]), whose flush then moves the recovery point past
/// the rolled segments, as Kafka's flush after a roll does. A roll a flush already covers hands
/// nothing over.
#[test]
fn a_roll_leaves_its_sync_to_the_owner() {
    // Each one-record batch fills a segment: every append after the first rolls.
    let (_dir, log) = open(LogConfig { segment_bytes: 100, ..LogConfig::default() }, Arc::default());
    let log: strand_log::manager::SharedLog = Arc::new(std::sync::Mutex::new(log));
    let locked = || strand_log::manager::lock(&log).expect("lock");
    append(&mut locked());
    assert_eq!(locked().take_roll_flush(), None, "nothing rolled yet");
    append(&mut locked());
    append(&mut locked());
    assert_eq!(locked().segment_count(), 3);
    assert_eq!(locked().recovery_point(), 0, "the roll synced nothing itself");
    let rolled = locked().take_roll_flush().expect("two rolls to sync");
    assert_eq!(rolled, 2, "up to the newest roll's base");
    assert_eq!(locked().take_roll_flush(), None, "handed over once");
    strand_log::manager::flush_unlocked(&log, rolled).expect("sync");
    assert!(locked().recovery_point() >= 2, "past the rolled segments");

    append(&mut locked());
    locked().flush_to(4).expect("flush");
    assert_eq!(locked().take_roll_flush(), None, "the flush covered the roll");
}
