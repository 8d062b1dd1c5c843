//! Bad and extreme client input at the group coordinator's boundary, driven on a hand-moved
//! clock: timeouts at the ends of their types, pending members (KIP-394) against
//! `group.max.size`, and records too large for `__consumer_offsets`. Each answer is the one
//! Kafka 4.4 gives; nothing panics or overflows.

mod common;

use bytes::Bytes;
use common::*;
use strand_base::{ProducerId, Uuid};
use strand_coordinator::GroupConfig;
use strand_coordinator::group::Reply;
use strand_coordinator::group::records::{CoordinatorRecord, OffsetAndMetadata, RecordView, batch_fits, build_batch};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::txn_offset_commit_request::{
    TxnOffsetCommitRequestPartition, TxnOffsetCommitRequestTopic,
};
use strand_protocol::messages::{JoinGroupResponse, TxnOffsetCommitRequest};

const G: &str = "group";

/// JoinGroup v3 (no MEMBER_ID_REQUIRED round trip) with the given rebalance timeout.
fn join_v3(h: &mut Harness, client: &str, rebalance_timeout_ms: i32) -> Reply<JoinGroupResponse> {
    let request = strand_protocol::messages::JoinGroupRequest { rebalance_timeout_ms, ..join_request(G, "", None) };
    h.join(client, &request, 3)
}

/// Kafka takes any rebalance timeout a client sends (no setting bounds it; a Java consumer's is
/// its `max.poll.interval.ms`, which may be `Integer.MAX_VALUE`). The initial rebalance delay is
/// extended by at most what is left of it: with `i32::MIN` nothing is left (no overflow: Kafka's
/// `int` arithmetic would wrap to ~24.8 days of extensions), with `i32::MAX` the join still
/// completes after one extension, as in Kafka.
#[test]
fn extreme_rebalance_timeouts_neither_overflow_nor_stall_the_initial_rebalance() {
    for rebalance_timeout_ms in [i32::MIN, -1, 0, i32::MAX] {
        let mut h = Harness::with_defaults();
        let first = join_v3(&mut h, "a", rebalance_timeout_ms);
        // A second member joins during the delay: the delay is extended only if time is left.
        let second = join_v3(&mut h, "b", rebalance_timeout_ms);
        h.advance(100);
        if rebalance_timeout_ms > 100 {
            assert_eq!(h.group_state(G), Some("PreparingRebalance"), "timeout {rebalance_timeout_ms}: extended once");
            h.advance(100);
        }
        let a = h.join_answer(&first).unwrap_or_else(|| panic!("timeout {rebalance_timeout_ms}: a answered"));
        let b = h.join_answer(&second).unwrap_or_else(|| panic!("timeout {rebalance_timeout_ms}: b answered"));
        assert_eq!((a.error_code, b.error_code, a.generation_id), (0, 0, 1), "timeout {rebalance_timeout_ms}");
    }
}

/// The wait for SyncGroups and a later rebalance's join phase last the largest rebalance timeout:
/// negative ones expire at once (Kafka's timer takes a negative delay as already expired: the
/// members are answered, then dropped for not syncing), `i32::MAX` (~24.8 days) is a deadline
/// that does not overflow; a member that stops heartbeating is still dropped at its session
/// timeout, which ends the join phase.
#[test]
fn rebalance_deadlines_follow_extreme_rebalance_timeouts() {
    for rebalance_timeout_ms in [i32::MIN, -5] {
        let mut h = Harness::with_defaults();
        let first = join_v3(&mut h, "a", rebalance_timeout_ms);
        h.advance(100);
        let a = h.join_answer(&first).expect("a answered");
        assert_eq!((a.error_code, a.generation_id), (0, 1));
        assert_eq!(h.group_state(G), Some("Empty"), "timeout {rebalance_timeout_ms}: the sync wait expired at once");
    }

    let mut h = Harness::with_defaults();
    let first = join_v3(&mut h, "a", i32::MAX);
    h.advance(100);
    let a = h.join_answer(&first).expect("a answered").member_id;
    let leader_sync = h.sync(&sync_request(G, &a, 1, &[(&a, b"x")]));
    assert_eq!(h.sync_answer(&leader_sync).expect("sync answered").error_code, 0);
    assert_eq!(h.group_state(G), Some("Stable"));
    // B joins: a rebalance that waits up to ~24.8 days for A, which neither rejoins nor heartbeats.
    let second = join_v3(&mut h, "b", 30_000);
    assert_eq!(h.group_state(G), Some("PreparingRebalance"));
    h.advance(i64::from(SESSION_MS));
    let b = h.join_answer(&second).expect("the join phase ended when A's session expired");
    assert_eq!((b.error_code, b.generation_id, b.members.len()), (0, 2, 1));
}

/// OffsetCommit v2-v4's retention time is an `i64` the client picks: `now + retention` must not
/// overflow (Kafka's `long` arithmetic wraps; the offset then counts as expired at once). Strand
/// saturates: the offset is kept as if forever.
#[test]
fn an_offset_commit_retention_time_at_the_end_of_its_type_does_not_overflow() {
    let mut h = Harness::with_defaults();
    for (i, retention_time_ms) in [i64::MAX, i64::MAX - 1, i64::MIN, -2].into_iter().enumerate() {
        let partition = i32::try_from(i).expect("small");
        let mut request = commit_request(G, -1, "", None, &[("orders", partition, 7)]);
        request.retention_time_ms = retention_time_ms;
        let response = h.commit(&request, 2);
        assert_eq!(commit_errors(&response), vec![0], "retention {retention_time_ms}");
    }
    let fetched = h.fetch(G, Some(&[("orders", &[0, 1, 2, 3])]));
    let offsets: Vec<i64> = fetched.topics[0].partitions.iter().map(|p| p.committed_offset).collect();
    assert_eq!(offsets, vec![7, 7, 7, 7]);
}

/// KIP-394 pending members as Kafka 4.4 counts them (`GroupMetadataManager.acceptJoiningMember`):
/// not when they are handed MEMBER_ID_REQUIRED, but when they come back. A pending member that
/// comes back to a full group gets GROUP_MAX_SIZE_REACHED and its id is forgotten; one that
/// never comes back is forgotten at its session timeout. So a client sending JoinGroups without
/// member ids holds at most (its rate x its session timeout, at most `group.max.session.timeout.ms`)
/// pending ids, all gone when it stops.
#[test]
fn pending_members_count_when_they_rejoin_and_expire_after_their_session() {
    let mut h = Harness::new(GroupConfig { initial_rebalance_delay_ms: 100, max_size: 2, ..GroupConfig::default() });
    let (a, ra) = h.join_new_member(G, "a");
    let (b, rb) = h.join_new_member(G, "b");
    h.advance(200);
    let generation = h.join_answer(&ra).expect("a").generation_id;
    assert!(h.join_answer(&rb).is_some());
    let leader_sync = h.sync(&sync_request(G, &a, generation, &[]));
    let follower_sync = h.sync(&sync_request(G, &b, generation, &[]));
    assert_eq!(h.sync_answer(&leader_sync).map(|s| s.error_code), Some(0));
    assert_eq!(h.sync_answer(&follower_sync).map(|s| s.error_code), Some(0));
    assert_eq!(h.group_state(G), Some("Stable"));

    // Full: a new member is refused before it gets an id, as in Kafka.
    let refused = h.join("c", &join_request(G, "", None), 5);
    assert_eq!(h.join_answer(&refused).expect("now").error_code, ErrorCode::GroupMaxSizeReached.code());
    assert_eq!(h.shard.classic_group(G).expect("classic").pending_member_count(), 0);

    // One member leaves: the group has room, and many clients get ids at once (Kafka counts
    // none of them yet).
    let left = h.leave(G, &[(&b, None)]);
    assert_eq!(left.members[0].error_code, 0);
    h.advance(200);
    let pending: Vec<String> = (0..1_000)
        .map(|i| {
            let reply = h.join(&format!("p{i}"), &join_request(G, "", None), 5);
            let response = h.join_answer(&reply).expect("now");
            assert_eq!(response.error_code, ErrorCode::MemberIdRequired.code());
            response.member_id
        })
        .collect();
    assert_eq!(h.shard.classic_group(G).expect("classic").pending_member_count(), 1_000);

    // While the group rebalances Kafka counts members back in the join phase: the first two to
    // come back are taken (the old member, not back yet, would be the one refused), the third is
    // refused and its id dropped.
    for (i, id) in pending.iter().take(2).enumerate() {
        let reply = h.join(&format!("p{i}"), &join_request(G, id, None), 5);
        assert!(matches!(reply, Reply::Parked(_)), "p{i} is taken");
    }
    let third = h.join("p2", &join_request(G, &pending[2], None), 5);
    assert_eq!(h.join_answer(&third).expect("now").error_code, ErrorCode::GroupMaxSizeReached.code());
    let group = h.shard.classic_group(G).expect("classic");
    assert!(!group.is_pending_member(&pending[2]), "a refused pending member is forgotten");
    assert_eq!(group.pending_member_count(), 997);

    // The others never come back: gone at their session timeout, with their timers.
    h.advance(i64::from(SESSION_MS) + 1);
    let group = h.shard.classic_group(G).expect("classic");
    assert_eq!(group.pending_member_count(), 0, "every pending member expired");
    let mut members: Vec<&str> = group.members().map(|m| m.member_id.as_str()).collect();
    members.sort_unstable();
    assert_eq!(members, vec![pending[0].as_str(), pending[1].as_str()]);
}

/// `group.consumer.max.size` as Kafka 4.4 enforces it (`throwIfConsumerGroupIsFull`), for
/// ConsumerGroupHeartbeat and for a classic member joining a consumer group alike: a full group
/// refuses a new member, but a static member coming back under its instance id replaces itself.
#[test]
fn a_full_consumer_group_still_takes_back_its_static_members() {
    let mut h = Harness::new(GroupConfig { consumer_max_size: 2, ..GroupConfig::default() });
    h.shard.set_metadata(topics(1, &[("orders", 4)]));
    assert_eq!(h.cg_heartbeat(&cg_join(G, "m1", &["orders"])).error_code, 0);
    // A static classic member fills the group.
    let static_join = join_request(G, "", Some("instance-1"));
    let joined = h.join("classic", &static_join, 9);
    let joined = h.join_answer(&joined).expect("now");
    assert_eq!(joined.error_code, 0);

    // Full: a new consumer-protocol member and a new classic member are refused.
    let refused = h.cg_heartbeat(&cg_join(G, "m2", &["orders"]));
    assert_eq!(refused.error_code, ErrorCode::GroupMaxSizeReached.code());
    let refused = h.join("other", &join_request(G, "", Some("instance-2")), 9);
    assert_eq!(h.join_answer(&refused).expect("now").error_code, ErrorCode::GroupMaxSizeReached.code());

    // The static classic member restarts: it comes back without its member id and replaces itself.
    let rejoined = h.join("classic", &static_join, 9);
    let rejoined = h.join_answer(&rejoined).expect("now");
    assert_eq!(rejoined.error_code, 0, "a static member replacing itself does not need room");
    assert_ne!(rejoined.member_id, joined.member_id);
}

/// The size check is exact: a batch of exactly `max` bytes fits, one byte less does not (offsets,
/// a tombstone, a group with members and a large assignment).
#[test]
fn batch_fits_is_exactly_the_built_batchs_size() {
    let offset = OffsetAndMetadata {
        committed_offset: 42,
        leader_epoch: 3,
        metadata: "m".repeat(300),
        commit_timestamp_ms: T0,
        expire_timestamp_ms: None,
        topic_id: Uuid::ZERO,
    };
    let mut records: Vec<CoordinatorRecord> =
        (0..200).map(|p| CoordinatorRecord::offset_commit(G, "orders", p, &offset)).collect();
    records.push(CoordinatorRecord::offset_commit_tombstone(G, "orders", 7));
    let mut h = Harness::with_defaults();
    let (members, _) = form_group_with_metadata(&mut h, 3, 40_000);
    assert_eq!(members.len(), 3);
    records.extend(h.log.iter().filter(|r| matches!(r.view(), RecordView::GroupMetadata { .. })).cloned());
    for n in [1, 2, 130, records.len()] {
        let some = &records[..n];
        let size = build_batch(some, T0).expect("builds").len();
        assert!(batch_fits(some, size), "{n} records fit in {size} bytes");
        assert!(!batch_fits(some, size - 1), "{n} records do not fit in {} bytes", size - 1);
    }
}

/// `count` new members join with `metadata_bytes` of protocol metadata each, and the leader
/// syncs. Returns the members and the leader's SyncGroup answer's error.
fn form_group_with_metadata(h: &mut Harness, count: usize, metadata_bytes: usize) -> (Vec<String>, i16) {
    let mut replies = Vec::new();
    for i in 0..count {
        let mut request = join_request(G, "", None);
        request.protocols[0].metadata = Bytes::from(vec![7; metadata_bytes]);
        let client = format!("c{i}");
        let first = h.join(&client, &request, 5);
        request.member_id = h.join_answer(&first).expect("member id").member_id;
        replies.push(h.join(&client, &request, 5));
    }
    h.advance(1_000);
    let answers: Vec<_> = replies.iter().map(|r| h.join_answer(r).expect("join answered")).collect();
    let members: Vec<String> = answers.iter().map(|a| a.member_id.clone()).collect();
    let leader = answers[0].leader.clone();
    let generation = answers[0].generation_id;
    let syncs: Vec<_> =
        members.iter().filter(|m| **m != leader).map(|m| h.sync(&sync_request(G, m, generation, &[]))).collect();
    let assignments: Vec<(&str, &[u8])> = members.iter().map(|m| (m.as_str(), &b"assigned"[..])).collect();
    let leader_sync = h.sync(&sync_request(G, &leader, generation, &assignments));
    let leader_error = h.sync_answer(&leader_sync).expect("leader answered").error_code;
    for sync in &syncs {
        assert_eq!(h.sync_answer(sync).expect("follower answered").error_code, leader_error);
    }
    (members, leader_error)
}

/// Members may join with any metadata (Kafka checks nothing at JoinGroup), but the group's
/// record must fit `message.max.bytes`: when the leader's SyncGroup would store a larger one,
/// Kafka's log refuses it and every member's SyncGroup gets UNKNOWN_SERVER_ERROR, the group
/// rebalances, and nothing is written (so nothing too large is ever loaded back).
#[test]
fn a_group_record_larger_than_message_max_bytes_fails_the_sync_and_writes_nothing() {
    let config = GroupConfig { initial_rebalance_delay_ms: 100, batch_bytes_max: 50_000, ..GroupConfig::default() };
    // Three members of 20 kB each: 60 kB of metadata in one record.
    let mut h = Harness::new(config.clone());
    let (_, error) = form_group_with_metadata(&mut h, 3, 20_000);
    assert_eq!(error, ErrorCode::UnknownServerError.code());
    assert_eq!(h.group_state(G), Some("PreparingRebalance"), "the group rebalances, as in Kafka");
    let stored = h
        .log
        .iter()
        .any(|r| matches!(r.view(), RecordView::GroupMetadata { value: Some(v), .. } if !v.members.is_empty()));
    assert!(!stored, "no record with the members is written");

    // Two members fit: stored as usual.
    let mut h = Harness::new(config);
    let (members, error) = form_group_with_metadata(&mut h, 2, 20_000);
    assert_eq!(error, 0);
    assert_eq!(h.group_state(G), Some("Stable"));
    let RecordView::GroupMetadata { value: Some(value), .. } = h.log.last().expect("a record").view() else {
        panic!("the group's record is last")
    };
    assert_eq!(value.members.len(), members.len());
}

/// An OffsetCommit (or TxnOffsetCommit) whose records make a batch over `message.max.bytes` is
/// refused whole, UNKNOWN_SERVER_ERROR for every partition, as Kafka's log refuses the batch;
/// nothing is committed.
#[test]
fn an_offset_commit_larger_than_message_max_bytes_is_refused_whole() {
    let mut h = Harness::new(GroupConfig { batch_bytes_max: 10_000, ..GroupConfig::default() });
    let small: Vec<(&str, i32, i64)> = (0..10).map(|p| ("orders", p, 5)).collect();
    assert_eq!(commit_errors(&h.commit(&commit_request(G, -1, "", None, &small), 8)), vec![0; 10]);
    let large: Vec<(&str, i32, i64)> = (0..500).map(|p| ("orders", p, 9)).collect();
    let records_before = h.log.len();
    let response = h.commit(&commit_request(G, -1, "", None, &large), 8);
    assert_eq!(commit_errors(&response), vec![ErrorCode::UnknownServerError.code(); 500]);
    assert_eq!(h.log.len(), records_before, "nothing written");
    let fetched = h.fetch(G, Some(&[("orders", &[0, 400])]));
    let offsets: Vec<i64> = fetched.topics[0].partitions.iter().map(|p| p.committed_offset).collect();
    assert_eq!(offsets, vec![5, -1], "nothing committed");

    let mut txn = TxnOffsetCommitRequest {
        transactional_id: "tx".to_owned(),
        group_id: G.to_owned(),
        producer_id: ProducerId(7),
        generation_id_or_member_epoch: -1,
        ..TxnOffsetCommitRequest::default()
    };
    txn.topics.push(TxnOffsetCommitRequestTopic {
        name: "orders".to_owned(),
        partitions: (0..500)
            .map(|p| TxnOffsetCommitRequestPartition { partition_index: p, committed_offset: 9, ..Default::default() })
            .collect(),
        ..TxnOffsetCommitRequestTopic::default()
    });
    let response = h.txn_commit(&txn);
    let errors: Vec<i16> = response.topics.iter().flat_map(|t| t.partitions.iter().map(|p| p.error_code)).collect();
    assert_eq!(errors, vec![ErrorCode::UnknownServerError.code(); 500]);
    assert!(!h.shard.pending_offsets().has_group(G), "nothing pending");
}
