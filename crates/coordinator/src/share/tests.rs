//! The share-partition state machine, membership and sessions, driven by a `ManualClock`.

use std::collections::{BTreeMap, BTreeSet};

use strand_base::testkit::ManualClock;
use strand_base::{Clock, Uuid};

use super::*;

const CONFIG: SharePartitionConfig = SharePartitionConfig {
    lock_duration_ms: 1_000,
    delivery_count_limit: 3,
    max_record_locks: 10,
    dead_letter: false,
    release_backoff_ms: 0,
    release_backoff_max_ms: 0,
};

/// A group with a dead-letter topic.
const DLQ: SharePartitionConfig = SharePartitionConfig { dead_letter: true, ..CONFIG };

fn batch(base_offset: i64, last_offset: i64) -> LogBatch {
    LogBatch { base_offset, last_offset, control: false }
}

fn range(first_offset: i64, last_offset: i64, delivery_count: i16) -> AcquiredRange {
    AcquiredRange { first_offset, last_offset, delivery_count }
}

/// A fetch acquires new records once each, up to max_records strictly; a second member gets
/// only what the first did not take.
#[test]
fn members_acquire_disjoint_records() {
    let clock = ManualClock::new(0);
    let mut sp = SharePartition::new(CONFIG, 0);
    assert_eq!(sp.fetch_offset(clock.now_ms()), Some(0));
    assert_eq!(sp.acquire("a", &[batch(0, 4)], 3, clock.now_ms()), vec![range(0, 2, 1)]);
    assert_eq!(sp.fetch_offset(clock.now_ms()), Some(3));
    assert_eq!(sp.acquire("b", &[batch(0, 4)], 10, clock.now_ms()), vec![range(3, 4, 1)]);
    assert_eq!(sp.record(1), Some((RecordState::Acquired, 1)));
}

/// ACCEPT and REJECT are final and move the start offset; RELEASE makes a record available
/// again with its delivery count raised on the next acquisition.
#[test]
fn acknowledgements_move_records() {
    let clock = ManualClock::new(0);
    let mut sp = SharePartition::new(CONFIG, 5);
    sp.acquire("a", &[batch(5, 7)], 10, clock.now_ms());
    assert_eq!(sp.acknowledge("a", 5, 7, &[1, 2, 3], clock.now_ms()), Ok(()));
    assert_eq!(sp.start_offset(), 6);
    assert_eq!(sp.record(6), Some((RecordState::Available, 1)));
    assert_eq!(sp.record(7), Some((RecordState::Archived, 1)));
    assert_eq!(sp.fetch_offset(clock.now_ms()), Some(6));
    assert_eq!(sp.acquire("b", &[batch(5, 7)], 10, clock.now_ms()), vec![range(6, 6, 2)]);
    assert_eq!(sp.acknowledge("b", 6, 6, &[1], clock.now_ms()), Ok(()));
    assert_eq!((sp.start_offset(), sp.in_flight()), (8, 0));
}

/// Only the holder may acknowledge, only acquired records, all or nothing; malformed batches
/// are told apart.
#[test]
fn acknowledgements_are_checked() {
    let clock = ManualClock::new(0);
    let mut sp = SharePartition::new(CONFIG, 0);
    sp.acquire("a", &[batch(0, 1)], 10, clock.now_ms());
    type Case<'a> = (&'a str, i64, i64, &'a [i8], Result<(), AckError>);
    let cases: &[Case] = &[
        ("b", 0, 0, &[1], Err(AckError::NotAcquired)),
        ("a", 0, 2, &[1], Err(AckError::NotAcquired)),
        ("a", 1, 0, &[1], Err(AckError::Malformed)),
        ("a", 0, 1, &[1, 1, 1], Err(AckError::Malformed)),
        ("a", 0, 0, &[9], Err(AckError::Malformed)),
    ];
    for (member, first, last, types, expected) in cases {
        assert_eq!(sp.acknowledge(member, *first, *last, types, clock.now_ms()), *expected, "{member} {first}-{last}");
    }
    assert_eq!(sp.record(0), Some((RecordState::Acquired, 1)));
    assert_eq!(sp.acknowledge("a", 0, 1, &[1], clock.now_ms()), Ok(()));
    assert_eq!(sp.acknowledge("a", 0, 0, &[1], clock.now_ms()), Err(AckError::NotAcquired));
}

/// An expired lock makes the record available again; at the delivery count limit it is
/// archived instead; RENEW pushes the lock out.
#[test]
fn locks_expire_up_to_the_delivery_limit() {
    let clock = ManualClock::new(0);
    let mut sp = SharePartition::new(CONFIG, 0);
    sp.acquire("a", &[batch(0, 1)], 10, clock.now_ms());
    clock.set(500);
    assert_eq!(sp.acknowledge("a", 1, 1, &[4], clock.now_ms()), Ok(()));
    clock.set(1_000);
    assert_eq!(sp.fetch_offset(clock.now_ms()), Some(0));
    assert_eq!(sp.record(1), Some((RecordState::Acquired, 1)), "renewed until 1500");
    assert_eq!(sp.acknowledge("a", 0, 0, &[1], clock.now_ms()), Err(AckError::NotAcquired));
    for delivery in 2..=3 {
        assert_eq!(sp.acquire("b", &[batch(0, 0)], 10, clock.now_ms()), vec![range(0, 0, delivery)]);
        clock.set(clock.now_ms() + 1_000);
    }
    assert_eq!(sp.fetch_offset(clock.now_ms()), Some(1));
    assert_eq!(sp.record(0), None, "archived at the limit and passed by the start offset");
    assert_eq!(sp.start_offset(), 1);
    assert_eq!(sp.acquire("b", &[batch(0, 1)], 10, clock.now_ms()), vec![range(1, 1, 2)]);
}

/// A closed session releases its member's records at once.
#[test]
fn a_member_release_frees_its_records() {
    let mut sp = SharePartition::new(CONFIG, 0);
    sp.acquire("a", &[batch(0, 1)], 10, 0);
    sp.acquire("b", &[batch(2, 2)], 10, 0);
    sp.release_member("a");
    assert_eq!(sp.record(0), Some((RecordState::Available, 1)));
    assert_eq!(sp.record(2), Some((RecordState::Acquired, 1)));
}

/// The window between start and end offsets never exceeds max_record_locks; control batches
/// are skipped; a moved log start drops what is gone.
#[test]
fn the_window_is_bounded() {
    let mut sp = SharePartition::new(CONFIG, 0);
    let control = LogBatch { base_offset: 0, last_offset: 0, control: true };
    assert_eq!(sp.acquire("a", &[control, batch(1, 20)], 100, 0), vec![range(1, 9, 1)]);
    assert_eq!(sp.fetch_offset(0), None);
    assert_eq!(sp.acknowledge("a", 1, 3, &[1], 0), Ok(()));
    assert_eq!(sp.start_offset(), 4);
    assert_eq!(sp.fetch_offset(0), Some(10));
    sp.advance_to_log_start(6);
    assert_eq!((sp.start_offset(), sp.in_flight()), (6, 4));
}

/// What a leader persists and a new leader restores: acknowledged records stay final, a
/// released one comes back with its delivery count, and one still acquired comes back as it was
/// before its acquisition (acquisitions are not persisted, as with Kafka); the start offset holds.
#[test]
fn a_restored_partition_resumes_where_the_persisted_one_was() {
    let clock = ManualClock::new(0);
    let mut sp = SharePartition::new(CONFIG, 0);
    assert_eq!(sp.acquire("a", &[batch(0, 5)], 10, clock.now_ms()), vec![range(0, 5, 1)]);
    sp.acknowledge("a", 0, 1, &[1], clock.now_ms()).expect("held");
    sp.acknowledge("a", 3, 3, &[1], clock.now_ms()).expect("held");
    sp.acknowledge("a", 4, 4, &[2], clock.now_ms()).expect("held");
    let persisted = sp.persisted(7);
    assert_eq!(persisted.start_offset, 2);
    assert_eq!(persisted.leader_epoch, 7);
    let states: Vec<(i64, i64, i8, i16)> =
        persisted.batches.iter().map(|b| (b.first_offset, b.last_offset, b.delivery_state, b.delivery_count)).collect();
    assert_eq!(states, vec![(2, 2, 0, 0), (3, 3, 2, 1), (4, 4, 0, 1), (5, 5, 0, 0)]);
    let mut restored = SharePartition::restore(CONFIG, &persisted);
    assert_eq!((restored.start_offset(), restored.end_offset()), (2, 6));
    assert_eq!(restored.fetch_offset(clock.now_ms()), Some(2));
    assert_eq!(
        restored.acquire("b", &[batch(0, 7)], 10, clock.now_ms()),
        vec![range(2, 2, 1), range(4, 4, 2), range(5, 7, 1)]
    );
    // At the delivery limit a persisted record comes back archived.
    let mut limited = persisted.clone();
    limited.batches[0].delivery_count = CONFIG.delivery_count_limit;
    let restored = SharePartition::restore(CONFIG, &limited);
    assert_eq!(restored.record(2), None);
    assert_eq!(restored.start_offset(), 4);
}

fn partitions(topic: &str) -> Option<i32> {
    match topic {
        "one" => Some(1),
        "three" => Some(3),
        _ => None,
    }
}

fn join(member: &str, epoch: i32, topics: Option<&[&str]>) -> Heartbeat {
    Heartbeat {
        group_id: "g".into(),
        member_id: member.into(),
        member_epoch: epoch,
        subscribed_topic_names: topics.map(|t| t.iter().map(|s| s.to_string()).collect()),
        ..Heartbeat::default()
    }
}

fn assigned(pairs: &[(&str, &[i32])]) -> Option<BTreeMap<String, Vec<i32>>> {
    Some(pairs.iter().map(|(t, p)| (t.to_string(), p.to_vec())).collect())
}

/// Two members of a one-partition topic both get the partition; with three partitions they
/// split them; epochs follow the group epoch and stale ones are fenced.
#[test]
fn the_simple_assignor_shares_partitions() {
    let config = ShareGroupConfig { session_timeout_ms: 45_000, heartbeat_interval_ms: 5_000, max_size: 2 };
    let mut groups = ShareGroups::new(config);
    let a = groups.heartbeat(join("a", 0, Some(&["one", "three"])), &partitions, 0).expect("accepted");
    assert_eq!(a, HeartbeatAnswer { member_epoch: 1, assignment: assigned(&[("one", &[0]), ("three", &[0, 1, 2])]) });
    let b = groups.heartbeat(join("b", 0, Some(&["one", "three"])), &partitions, 0).expect("accepted");
    assert_eq!(b, HeartbeatAnswer { member_epoch: 2, assignment: assigned(&[("one", &[0]), ("three", &[1])]) });
    let a = groups.heartbeat(join("a", 1, None), &partitions, 0).expect("accepted");
    assert_eq!(a, HeartbeatAnswer { member_epoch: 2, assignment: assigned(&[("one", &[0]), ("three", &[0, 2])]) });
    assert_eq!(groups.heartbeat(join("a", 2, None), &partitions, 0).expect("accepted").assignment, None);
    assert_eq!(groups.heartbeat(join("a", 1, None), &partitions, 0), Err(HeartbeatError::Fenced));
    assert_eq!(groups.heartbeat(join("c", 0, Some(&["one"])), &partitions, 0), Err(HeartbeatError::Full));
    assert_eq!(groups.heartbeat(join("z", 3, None), &partitions, 0), Err(HeartbeatError::UnknownMember));
    assert!(matches!(groups.heartbeat(join("", 0, Some(&["one"])), &partitions, 0), Err(HeartbeatError::Invalid(_))));
    assert!(matches!(groups.heartbeat(join("c", 0, None), &partitions, 0), Err(HeartbeatError::Invalid(_))));
}

/// A member silent past the session timeout is removed and its partitions go to the others; a
/// member that leaves gets epoch -1.
#[test]
fn members_expire_and_leave() {
    let clock = ManualClock::new(0);
    let config = ShareGroupConfig { session_timeout_ms: 1_000, heartbeat_interval_ms: 100, max_size: 10 };
    let mut groups = ShareGroups::new(config);
    groups.heartbeat(join("a", 0, Some(&["three"])), &partitions, clock.now_ms()).expect("accepted");
    groups.heartbeat(join("b", 0, Some(&["three"])), &partitions, clock.now_ms()).expect("accepted");
    clock.set(900);
    groups.heartbeat(join("a", 1, None), &partitions, clock.now_ms()).expect("accepted");
    clock.set(1_500);
    let a = groups.heartbeat(join("a", 2, None), &partitions, clock.now_ms()).expect("accepted");
    assert_eq!(a, HeartbeatAnswer { member_epoch: 3, assignment: assigned(&[("three", &[0, 1, 2])]) });
    let left = groups.heartbeat(join("a", -1, None), &partitions, clock.now_ms()).expect("accepted");
    assert_eq!(left.member_epoch, -1);
    let group = groups.group("g", &partitions, clock.now_ms()).expect("accepted");
    assert_eq!((group.state(), group.group_epoch), ("Empty", 4));
}

/// Sessions: epochs must follow on, partitions are added and forgotten, the limit holds but for
/// sessions unused past the idle time.
#[test]
fn share_sessions_follow_epochs() {
    let topic = Uuid([7; 16]);
    let clock = ManualClock::new(0);
    let mut sessions = ShareSessions::new(1, 1_000);
    let none = BTreeSet::new();
    assert_eq!(sessions.advance("g", "a", 1, &none, &none, clock.now_ms()), Err(SessionError::NotFound));
    sessions.open("g", "a", BTreeSet::from([(topic, 0)]), clock.now_ms()).expect("opened");
    assert_eq!(sessions.open("g", "b", BTreeSet::new(), clock.now_ms()), Err(SessionError::LimitReached));
    assert_eq!(sessions.advance("g", "a", 2, &none, &none, clock.now_ms()), Err(SessionError::InvalidEpoch));
    let added = BTreeSet::from([(topic, 1)]);
    let forgotten = BTreeSet::from([(topic, 0)]);
    assert_eq!(sessions.advance("g", "a", 1, &added, &forgotten, clock.now_ms()), Ok(added.clone()));
    clock.set(900);
    assert_eq!(sessions.advance("g", "a", 2, &none, &none, clock.now_ms()), Ok(added.clone()));
    clock.set(1_800);
    assert_eq!(sessions.open("g", "b", BTreeSet::new(), clock.now_ms()), Err(SessionError::LimitReached));
    assert_eq!(sessions.close("g", "a"), Ok(added));
    assert!(sessions.is_empty());
    sessions.open("g", "a", BTreeSet::new(), clock.now_ms()).expect("opened");
    clock.set(2_801);
    sessions.open("g", "b", BTreeSet::new(), clock.now_ms()).expect("the idle session evicted");
    assert_eq!(sessions.len(), 1);
}

/// KIP-1191: with a dead-letter topic a REJECTed record is Archiving (persisted as state 3) and
/// holds the start offset until its dead-letter write is done; then it is Archived.
#[test]
fn rejected_record_waits_for_its_dead_letter_write() {
    let clock = ManualClock::new(0);
    let mut sp = SharePartition::new(DLQ, 0);
    sp.acquire("a", &[batch(0, 1)], 10, clock.now_ms());
    assert_eq!(sp.acknowledge("a", 0, 1, &[3, 1], clock.now_ms()), Ok(()));
    assert_eq!(sp.record(0), Some((RecordState::Archiving, 1)));
    assert_eq!(sp.start_offset(), 0);
    let letter = DeadLetter { offset: 0, delivery_count: 1, cause: DeadLetterCause::Rejected };
    assert_eq!(sp.dead_letters(), vec![letter]);
    assert!(sp.has_dead_letters());
    let persisted = sp.persisted(0);
    assert_eq!(persisted.batches[0].delivery_state, state::STATE_ARCHIVING);
    // A new leader resumes the write.
    let restored = SharePartition::restore(DLQ, &persisted);
    assert_eq!(restored.dead_letters(), vec![letter]);
    assert!(sp.dead_lettered(0));
    assert!(!sp.dead_lettered(0), "a second completion changes nothing");
    assert_eq!((sp.start_offset(), sp.in_flight()), (2, 0));
    assert!(sp.dead_letters().is_empty());
}

/// At the delivery limit a released or expired record is dead-lettered with the cause Kafka
/// names; without a dead-letter topic it is Archived at once, as before.
#[test]
fn delivery_limit_dead_letters_once() {
    let clock = ManualClock::new(0);
    let mut sp = SharePartition::new(DLQ, 0);
    for delivery in 1..=3 {
        assert_eq!(sp.acquire("a", &[batch(0, 0)], 10, clock.now_ms()), vec![range(0, 0, delivery)]);
        if delivery < 3 {
            assert_eq!(sp.acknowledge("a", 0, 0, &[2], clock.now_ms()), Ok(()));
        }
    }
    clock.advance(1_000);
    assert_eq!(sp.fetch_offset(clock.now_ms()), Some(1), "the lock expired at the limit");
    let letter = DeadLetter { offset: 0, delivery_count: 3, cause: DeadLetterCause::DeliveryCountExceeded };
    assert_eq!(sp.dead_letters(), vec![letter]);
    assert_eq!(letter.cause.message(), "Offset delivery count exceeded the threshold.");
    assert_eq!(SharePartition::restore(DLQ, &sp.persisted(0)).dead_letters(), vec![letter]);
    // A group whose dead-letter topic was removed archives the record on restore.
    let plain = SharePartition::restore(CONFIG, &sp.persisted(0));
    assert!(plain.dead_letters().is_empty());
    assert_eq!(plain.start_offset(), 1);

    let mut sp = SharePartition::new(CONFIG, 0);
    sp.acquire("a", &[batch(0, 0)], 10, clock.now_ms());
    assert_eq!(sp.acknowledge("a", 0, 0, &[3], clock.now_ms()), Ok(()));
    assert!(sp.dead_letters().is_empty());
    assert_eq!(sp.start_offset(), 1);
}

/// `share.release.backoff.ms`: a RELEASEd record is acquired again only once the backoff has
/// passed; records behind it are not held up, and a lock expiry has no backoff.
#[test]
fn released_record_waits_out_its_backoff() {
    let clock = ManualClock::new(0);
    let config = SharePartitionConfig { release_backoff_ms: 500, ..CONFIG };
    let mut sp = SharePartition::new(config, 0);
    sp.acquire("a", &[batch(0, 0)], 10, clock.now_ms());
    assert_eq!(sp.acknowledge("a", 0, 0, &[2], clock.now_ms()), Ok(()));
    assert_eq!(sp.fetch_offset(clock.now_ms()), Some(1), "nothing available before the backoff");
    assert_eq!(sp.acquire("a", &[batch(0, 1)], 10, clock.now_ms()), vec![range(1, 1, 1)]);
    clock.advance(499);
    assert_eq!(sp.acquire("a", &[batch(0, 0)], 10, clock.now_ms()), vec![]);
    clock.advance(1);
    assert_eq!(sp.fetch_offset(clock.now_ms()), Some(0));
    assert_eq!(sp.acquire("a", &[batch(0, 0)], 10, clock.now_ms()), vec![range(0, 0, 2)]);
    // Offset 1's lock (taken at 0) runs out at 1_000: available at once, with no backoff.
    clock.set(1_000);
    assert_eq!(sp.fetch_offset(clock.now_ms()), Some(1));
}

/// `share.release.backoff.max.ms`: the backoff doubles per delivery up to the cap.
#[test]
fn release_backoff_doubles_up_to_its_cap() {
    let config = SharePartitionConfig {
        release_backoff_ms: 100,
        release_backoff_max_ms: 350,
        delivery_count_limit: 10,
        ..CONFIG
    };
    let backoffs: Vec<i64> = (1..=5).map(|n| config.release_backoff(n)).collect();
    assert_eq!(backoffs, vec![100, 200, 350, 350, 350]);
    assert_eq!(SharePartitionConfig { release_backoff_max_ms: 0, ..config }.release_backoff(4), 100);
    assert_eq!(SharePartitionConfig { release_backoff_ms: 0, ..config }.release_backoff(4), 0);

    let clock = ManualClock::new(0);
    let mut sp = SharePartition::new(config, 0);
    let mut waited = Vec::new();
    for delivery in 1..=4 {
        assert_eq!(sp.acquire("a", &[batch(0, 0)], 10, clock.now_ms()), vec![range(0, 0, delivery)]);
        let released_at = clock.now_ms();
        assert_eq!(sp.acknowledge("a", 0, 0, &[2], clock.now_ms()), Ok(()));
        while sp.fetch_offset(clock.now_ms()) != Some(0) {
            clock.advance(10);
        }
        waited.push(clock.now_ms() - released_at);
    }
    assert_eq!(waited, vec![100, 200, 350, 350]);
}
