//! Producer state does not grow without bound while a node runs: producers idle for
//! `producer.id.expiration.ms` without an open transaction are forgotten by the periodic pass
//! (and left out of the next snapshot), and a partition keeps state for at most
//! `PRODUCERS_PER_PARTITION_MAX` producers, forgetting the one idle the longest first.

use std::sync::Arc;

use bytes::BytesMut;
use strand_base::ProducerId;
use strand_base::testkit::ManualClock;
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, PRODUCERS_PER_PARTITION_MAX, ProducerStateConfig, VerificationGuard};
use strand_log::{Log, LogConfig};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

/// A batch of producer `id` (epoch 0, sequence 0) stamped `timestamp_ms`; transactional if asked.
fn batch(id: i64, timestamp_ms: i64, transactional: bool) -> ValidatedBatch {
    let mut builder = RecordBatchBuilder::new().producer(ProducerId(id), 0, 0);
    if transactional {
        builder = builder.transactional();
    }
    builder.append(&NewRecord { timestamp_ms, key: None, value: Some(b"v"), headers: &[] }).expect("record");
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

fn open(clock: Arc<ManualClock>, expiration_ms: i64) -> (tempfile::TempDir, Log) {
    let dir = tempfile::tempdir().expect("dir");
    let producer_state = ProducerStateConfig {
        producer_id_expiration_ms: expiration_ms,
        transaction_verification_enabled: false,
        ..ProducerStateConfig::default()
    };
    let config = LogConfig { producer_state, ..LogConfig::default() };
    let log = Log::open(dir.path(), config, LogCheckpoints::default(), clock).expect("open");
    (dir, log)
}

fn append(log: &mut Log, batch: ValidatedBatch) {
    let context = AppendContext::client(VerificationGuard::SENTINEL);
    log.append_as_leader(batch, 0, context).expect("append");
}

/// The periodic pass forgets exactly the producers idle for the expiration without an open
/// transaction; one that wrote since, or has a transaction open, stays.
#[test]
fn idle_producers_expire_on_the_periodic_pass() {
    let clock = Arc::new(ManualClock::default());
    let (_dir, mut log) = open(clock.clone(), 1_000);
    append(&mut log, batch(1, 0, false));
    append(&mut log, batch(2, 0, true));
    append(&mut log, batch(3, 900, false));
    clock.set(1_500);
    log.remove_expired_producers();
    let left: Vec<i64> =
        [1, 2, 3].into_iter().filter(|id| log.producer_state().last_entry(ProducerId(*id)).is_some()).collect();
    assert_eq!(left, [2, 3], "producer 1 was idle for 1.5 s, 2 is in a transaction, 3 wrote 0.6 s ago");
    clock.set(2_000);
    log.remove_expired_producers();
    assert!(log.producer_state().last_entry(ProducerId(3)).is_none());
    assert_eq!(log.producer_state().producer_count(), 1);
}

/// Past `PRODUCERS_PER_PARTITION_MAX` producers, the one idle the longest without an open
/// transaction goes first; the count never passes the bound.
#[test]
fn a_partition_keeps_a_bounded_number_of_producers() {
    let clock = Arc::new(ManualClock::default());
    let (_dir, mut log) = open(clock, i64::MAX);
    append(&mut log, batch(0, 0, true));
    for id in 1..=PRODUCERS_PER_PARTITION_MAX as i64 + 4 {
        append(&mut log, batch(id, id, false));
    }
    let state = log.producer_state();
    assert_eq!(state.producer_count(), PRODUCERS_PER_PARTITION_MAX);
    assert!(state.last_entry(ProducerId(0)).is_some(), "a producer in a transaction is kept");
    assert!((1..=5).all(|id| state.last_entry(ProducerId(id)).is_none()), "the five idle the longest went");
    assert!(state.last_entry(ProducerId(6)).is_some());
}
