//! The classic group protocol on one shard, driven with a hand-moved clock: joins, syncs,
//! heartbeats, leaves, static membership, the initial rebalance delay, session and rebalance
//! timeouts, and the records each step writes.

mod common;

use bytes::Bytes;
use common::*;
use strand_coordinator::GroupConfig;
use strand_coordinator::group::Reply;
use strand_coordinator::group::records::RecordView;
use strand_protocol::error::ErrorCode;

const G: &str = "group";

fn code(error: ErrorCode) -> i16 {
    error.code()
}

/// Joins `clients` as new dynamic members and completes the rebalance (initial delay included).
/// Returns the member ids in join order and the generation.
fn form_group(h: &mut Harness, clients: &[&str]) -> (Vec<String>, i32) {
    let mut members = Vec::new();
    let mut replies = Vec::new();
    for client in clients {
        let (id, reply) = h.join_new_member(G, client);
        members.push(id);
        replies.push(reply);
    }
    h.advance(200);
    let answers: Vec<_> = replies.iter().map(|r| h.join_answer(r).expect("join answered")).collect();
    let generation = answers[0].generation_id;
    let leader = answers[0].leader.clone();
    let syncs: Vec<_> = members
        .iter()
        .map(|m| {
            let assignments: Vec<(&str, &[u8])> =
                if *m == leader { members.iter().map(|id| (id.as_str(), id.as_bytes())).collect() } else { Vec::new() };
            h.sync(&sync_request(G, m, generation, &assignments))
        })
        .collect();
    for (member, sync) in members.iter().zip(&syncs) {
        let answer = h.sync_answer(sync).expect("sync answered");
        assert_eq!(answer.error_code, 0);
        assert_eq!(answer.assignment, Bytes::copy_from_slice(member.as_bytes()));
    }
    assert_eq!(h.group_state(G), Some("Stable"));
    (members, generation)
}

/// Three members join: after the initial delay (extended once, as members kept coming) the leader
/// gets every member's metadata and the followers none; at SyncGroup each gets what the leader
/// assigned it, and the assignment is written as a GroupMetadata record.
#[test]
fn three_members_join_and_sync() {
    let mut h = Harness::with_defaults();
    let (a, ra) = h.join_new_member(G, "client-a");
    assert_eq!(a, "client-a-uuid1");
    let (b, rb) = h.join_new_member(G, "client-b");
    let (c, rc) = h.join_new_member(G, "client-c");
    assert_eq!(h.group_state(G), Some("PreparingRebalance"));

    // The initial delay (100 ms) is extended once because B and C joined during it.
    h.advance(100);
    assert!(h.join_answer(&ra).is_none(), "still waiting: members joined during the delay");
    h.advance(100);
    let (ja, jb, jc) = (h.join_answer(&ra).expect("a"), h.join_answer(&rb).expect("b"), h.join_answer(&rc).expect("c"));
    assert_eq!(h.group_state(G), Some("CompletingRebalance"));
    for answer in [&ja, &jb, &jc] {
        assert_eq!(answer.error_code, 0);
        assert_eq!(answer.generation_id, 1);
        assert_eq!(answer.leader, a);
        assert_eq!(answer.protocol_name.as_deref(), Some("range"));
        assert_eq!(answer.protocol_type.as_deref(), Some("consumer"));
    }
    assert_eq!((ja.member_id.as_str(), jb.member_id.as_str(), jc.member_id.as_str()), (&*a, &*b, &*c));
    let mut listed: Vec<_> = ja.members.iter().map(|m| (m.member_id.clone(), m.metadata.clone())).collect();
    listed.sort();
    let expected: Vec<_> = [&a, &b, &c].iter().map(|id| ((*id).clone(), subscription(&["orders"]))).collect();
    assert_eq!(listed, expected, "the leader gets every member's metadata");
    assert!(jb.members.is_empty() && jc.members.is_empty(), "followers get no member list");

    // Followers sync first and wait; the leader's sync (C left out) answers everyone.
    let sb = h.sync(&sync_request(G, &b, 1, &[]));
    let sc = h.sync(&sync_request(G, &c, 1, &[]));
    assert!(matches!(sb, Reply::Parked(_)) && h.sync_answer(&sb).is_none());
    let records_before = h.log.len();
    let sa = h.sync(&sync_request(G, &a, 1, &[(&a, b"for-a"), (&b, b"for-b")]));
    assert_eq!(h.sync_answer(&sa).expect("a").assignment, Bytes::from_static(b"for-a"));
    assert_eq!(h.sync_answer(&sb).expect("b").assignment, Bytes::from_static(b"for-b"));
    let answer_c = h.sync_answer(&sc).expect("c");
    assert_eq!((answer_c.error_code, answer_c.assignment.len()), (0, 0), "a member left out gets an empty assignment");
    assert_eq!(h.group_state(G), Some("Stable"));

    let written = &h.log[records_before..];
    assert_eq!(written.len(), 1, "one GroupMetadata record for the new generation");
    let RecordView::GroupMetadata { group, value: Some(value) } = written[0].view() else {
        panic!("expected group metadata, got {:?}", written[0])
    };
    assert_eq!((group, value.generation, value.leader.as_deref()), (G, 1, Some(a.as_str())));
    assert_eq!(value.protocol.as_deref(), Some("range"));
    let mut stored: Vec<_> = value.members.iter().map(|m| (m.member_id.clone(), m.assignment.clone())).collect();
    stored.sort();
    assert_eq!(
        stored,
        vec![(a.clone(), Bytes::from_static(b"for-a")), (b, Bytes::from_static(b"for-b")), (c, Bytes::new())]
    );
}

/// JoinGroup v4+ without a member id is told MEMBER_ID_REQUIRED with `client_id-uuid`, and joins
/// with it; v3 joins at once; a pending member that never comes back is dropped at its session
/// timeout.
#[test]
fn member_id_required_then_join() {
    let mut h = Harness::with_defaults();
    let first = h.join("consumer-1", &join_request(G, "", None), 4);
    let response = h.join_answer(&first).expect("answered at once");
    assert_eq!(response.error_code, code(ErrorCode::MemberIdRequired));
    assert_eq!(response.member_id, "consumer-1-uuid1");
    assert_eq!(h.group_state(G), Some("Empty"), "a pending member does not start a rebalance");
    assert_eq!(h.log.len(), 1, "the new group is written at once (generation 0)");

    let parked = h.join("consumer-1", &join_request(G, "consumer-1-uuid1", None), 4);
    assert!(matches!(parked, Reply::Parked(_)));
    assert_eq!(h.group_state(G), Some("PreparingRebalance"));

    // JoinGroup v3 never asks for a member id.
    let old = h.join("old-client", &join_request(G, "", None), 3);
    assert!(matches!(old, Reply::Parked(_)), "a v3 member joins directly");

    // A v5 member told its id who never returns: dropped after its session timeout.
    let other = h.join("ghost", &join_request(G, "", None), 5);
    let ghost_id = h.join_answer(&other).expect("answered").member_id;
    h.advance(i64::from(SESSION_MS) + 1);
    let first_answer = h.join_answer(&parked).expect("the join completed once the ghost was dropped");
    assert_eq!(first_answer.generation_id, 1);
    assert!(!first_answer.members.iter().any(|m| m.member_id == ghost_id));
    assert_eq!(first_answer.members.len(), 2);
}

/// A member whose session expires is removed and the group rebalances; the others are told
/// REBALANCE_IN_PROGRESS on heartbeat and form the next generation when they rejoin.
#[test]
fn session_expiry_removes_member_and_rebalances() {
    let mut h = Harness::with_defaults();
    let (members, generation) = form_group(&mut h, &["a", "b"]);
    let (a, b) = (&members[0], &members[1]);

    h.advance(6_000);
    assert_eq!(h.heartbeat(G, a, generation, None), 0);
    assert_eq!(h.group_state(G), Some("Stable"));
    h.advance(4_001);
    assert_eq!(h.group_state(G), Some("PreparingRebalance"), "b's session expired");
    assert!(h.shard.classic_group(G).expect("group").member(b).is_none());
    assert_eq!(h.heartbeat(G, a, generation, None), code(ErrorCode::RebalanceInProgress));
    assert_eq!(h.heartbeat(G, b, generation, None), code(ErrorCode::UnknownMemberId));

    let rejoin = h.join("a", &join_request(G, a, None), 5);
    let answer = h.join_answer(&rejoin).expect("all remaining members joined: completes at once");
    assert_eq!((answer.generation_id, answer.leader.as_str()), (generation + 1, a.as_str()));
    assert_eq!(answer.members.len(), 1);
}

/// A static member (KIP-345) that restarts and rejoins with its instance id and unchanged
/// metadata gets a new member id without a rebalance; its old id is fenced.
#[test]
fn static_member_rejoins_without_rebalance() {
    let mut h = Harness::with_defaults();
    let ra = h.join("a", &join_request(G, "", Some("instance-a")), 5);
    let rb = h.join("b", &join_request(G, "", Some("instance-b")), 5);
    h.advance(200);
    let (ja, jb) = (h.join_answer(&ra).expect("a"), h.join_answer(&rb).expect("b"));
    assert_eq!(ja.member_id, "instance-a-uuid1", "a static member's id starts with its instance id");
    let (a, b) = (ja.member_id.clone(), jb.member_id.clone());
    let sb = h.sync(&sync_request(G, &b, 1, &[]));
    let sa = h.sync(&sync_request(G, &a, 1, &[(&a, b"A"), (&b, b"B")]));
    assert_eq!(h.sync_answer(&sa).expect("a").assignment, Bytes::from_static(b"A"));
    assert_eq!(h.sync_answer(&sb).expect("b").assignment, Bytes::from_static(b"B"));

    // b restarts: no member id, same instance id and metadata.
    let records_before = h.log.len();
    let rejoin = h.join("b", &join_request(G, "", Some("instance-b")), 5);
    let answer = h.join_answer(&rejoin).expect("answered without a rebalance");
    let new_b = answer.member_id.clone();
    assert_ne!(new_b, b);
    assert_eq!((answer.error_code, answer.generation_id, answer.leader.as_str()), (0, 1, a.as_str()));
    assert_eq!(h.group_state(G), Some("Stable"));
    assert_eq!(h.log.len(), records_before + 1, "the new member id is written");
    let RecordView::GroupMetadata { value: Some(value), .. } = h.log[records_before].view() else {
        panic!("expected group metadata")
    };
    assert!(value.members.iter().any(|m| m.member_id == new_b && m.assignment == Bytes::from_static(b"B")));

    assert_eq!(h.heartbeat(G, &b, 1, Some("instance-b")), code(ErrorCode::FencedInstanceId));
    assert_eq!(h.heartbeat(G, &new_b, 1, Some("instance-b")), 0);
    let resync = h.sync(&sync_request(G, &new_b, 1, &[]));
    assert_eq!(h.sync_answer(&resync).expect("stable").assignment, Bytes::from_static(b"B"));

    // The static leader rejoining with JoinGroup v9 keeps the generation and is told to skip the
    // assignment, with the member list.
    let rejoin_leader = h.join("a", &join_request(G, "", Some("instance-a")), 9);
    let leader_answer = h.join_answer(&rejoin_leader).expect("answered");
    assert!(leader_answer.skip_assignment);
    assert_eq!(leader_answer.leader, leader_answer.member_id);
    assert_eq!(leader_answer.members.len(), 2);
    assert_eq!(h.group_state(G), Some("Stable"));
}

/// A new group's first rebalance waits `group.initial.rebalance.delay.ms`, extended by the delay
/// while members keep joining, never beyond the rebalance timeout.
#[test]
fn initial_rebalance_delay_is_extended_up_to_the_rebalance_timeout() {
    let config = GroupConfig { initial_rebalance_delay_ms: 3_000, ..GroupConfig::default() };
    let timeout = 10_000;
    let request = |member: &str| {
        let mut r = join_request(G, member, None);
        r.rebalance_timeout_ms = timeout;
        r
    };

    // One extension: A at 0, B at 1000; the delay ends at 3000, is extended to 6000.
    let mut h = Harness::new(config.clone());
    let ra = h.join("a", &request(""), 3);
    h.advance(1_000);
    h.join("b", &request(""), 3);
    h.advance(4_999);
    assert!(h.join_answer(&ra).is_none(), "5999 ms: still delayed");
    h.advance(1);
    assert_eq!(h.join_answer(&ra).expect("6000 ms: completes").generation_id, 1);

    // Members keep coming: the delay is extended until the rebalance timeout (10000) and no more.
    let mut h = Harness::new(config);
    let ra = h.join("a", &request(""), 3);
    for (at, client) in [(1_000, "b"), (5_000, "c"), (8_000, "d"), (9_500, "e")] {
        let elapsed = h.now - T0;
        h.advance(at - elapsed);
        h.join(client, &request(""), 3);
    }
    h.advance(10_000 - (h.now - T0) - 1);
    assert!(h.join_answer(&ra).is_none(), "9999 ms: still delayed");
    h.advance(1);
    let answer = h.join_answer(&ra).expect("10000 ms: the rebalance timeout caps the delay");
    assert_eq!(answer.members.len(), 5);
}

/// Heartbeat answers: unknown group or member, wrong generation, a rebalance in progress, and
/// fine while waiting for SyncGroup.
#[test]
fn heartbeat_errors() {
    let mut h = Harness::with_defaults();
    assert_eq!(h.heartbeat("nope", "m", 1, None), code(ErrorCode::UnknownMemberId));
    let (a, ra) = h.join_new_member(G, "a");
    h.advance(100);
    let generation = h.join_answer(&ra).expect("a").generation_id;
    assert_eq!(h.group_state(G), Some("CompletingRebalance"));
    assert_eq!(h.heartbeat(G, &a, generation, None), 0, "heartbeats are fine before SyncGroup");
    assert_eq!(h.heartbeat(G, &a, generation + 1, None), code(ErrorCode::IllegalGeneration));
    assert_eq!(h.heartbeat(G, "stranger", generation, None), code(ErrorCode::UnknownMemberId));
    assert_eq!(h.heartbeat(G, &a, generation, Some("no-such-instance")), code(ErrorCode::UnknownMemberId));
}

/// SyncGroup answers: wrong generation, unknown member or group, inconsistent protocol, and a
/// rebalance in progress.
#[test]
fn sync_errors() {
    let mut h = Harness::with_defaults();
    let stranger = h.sync(&sync_request("nope", "m", 1, &[]));
    assert_eq!(h.sync_answer(&stranger).expect("now").error_code, code(ErrorCode::UnknownMemberId));
    let (members, generation) = form_group(&mut h, &["a", "b"]);
    let (a, b) = (&members[0], &members[1]);
    let wrong = h.sync(&sync_request(G, a, generation + 1, &[]));
    assert_eq!(h.sync_answer(&wrong).expect("now").error_code, code(ErrorCode::IllegalGeneration));
    let mut mismatched = sync_request(G, a, generation, &[]);
    mismatched.protocol_name = Some("roundrobin".to_owned());
    let mismatched = h.sync(&mismatched);
    assert_eq!(h.sync_answer(&mismatched).expect("now").error_code, code(ErrorCode::InconsistentGroupProtocol));

    // b rejoins with new metadata: a rebalance starts, and a's sync is told so.
    let mut changed = join_request(G, b, None);
    changed.protocols = protocols(&["range"], &["orders", "payments"]);
    h.join("b", &changed, 5);
    assert_eq!(h.group_state(G), Some("PreparingRebalance"));
    let during = h.sync(&sync_request(G, a, generation, &[]));
    assert_eq!(h.sync_answer(&during).expect("now").error_code, code(ErrorCode::RebalanceInProgress));
}

/// A member of another protocol type, or offering no protocol the group's members all support,
/// cannot join.
#[test]
fn inconsistent_protocols_are_refused() {
    let mut h = Harness::with_defaults();
    form_group(&mut h, &["a"]);
    let mut connect = join_request(G, "", None);
    connect.protocol_type = "connect".to_owned();
    let reply = h.join("x", &connect, 5);
    assert_eq!(h.join_answer(&reply).expect("now").error_code, code(ErrorCode::InconsistentGroupProtocol));
    let mut other_assignor = join_request(G, "", None);
    other_assignor.protocols = protocols(&["roundrobin"], &["orders"]);
    let reply = h.join("y", &other_assignor, 5);
    assert_eq!(h.join_answer(&reply).expect("now").error_code, code(ErrorCode::InconsistentGroupProtocol));
    let mut empty = join_request("fresh", "", None);
    empty.protocols.clear();
    let reply = h.join("z", &empty, 5);
    assert_eq!(h.join_answer(&reply).expect("now").error_code, code(ErrorCode::InconsistentGroupProtocol));
}

/// `group.max.size`: a member beyond it is refused with GROUP_MAX_SIZE_REACHED.
#[test]
fn group_max_size_is_enforced() {
    let mut h = Harness::new(GroupConfig { max_size: 2, initial_rebalance_delay_ms: 100, ..GroupConfig::default() });
    let ra = h.join("a", &join_request(G, "", None), 3);
    h.join("b", &join_request(G, "", None), 3);
    let third = h.join("c", &join_request(G, "", None), 3);
    let refused = h.join_answer(&third).expect("refused at once");
    assert_eq!(refused.error_code, code(ErrorCode::GroupMaxSizeReached));
    h.advance(200);
    assert_eq!(h.join_answer(&ra).expect("a").members.len(), 2);
}

/// LeaveGroup v3+ removes several members at once and answers each; an administrator can remove
/// a static member by instance id alone. The rest of the group rebalances.
#[test]
fn leave_group_in_batches() {
    let mut h = Harness::with_defaults();
    let (members, generation) = form_group(&mut h, &["a", "b", "c"]);
    let response = h.leave(G, &[(&members[1], None), ("stranger", None), ("", Some("no-such-instance"))]);
    let errors: Vec<i16> = response.members.iter().map(|m| m.error_code).collect();
    assert_eq!(errors, vec![0, code(ErrorCode::UnknownMemberId), code(ErrorCode::UnknownMemberId)]);
    assert_eq!(h.group_state(G), Some("PreparingRebalance"));
    let ra = h.join("a", &join_request(G, &members[0], None), 5);
    let rc = h.join("c", &join_request(G, &members[2], None), 5);
    let (ja, jc) = (h.join_answer(&ra).expect("a"), h.join_answer(&rc).expect("c"));
    assert_eq!((ja.generation_id, jc.generation_id), (generation + 1, generation + 1));
    assert_eq!(ja.members.len() + jc.members.len(), 2, "the leader lists the two members left");

    // Static member removed by an administrator.
    let mut h = Harness::with_defaults();
    let rs = h.join("s", &join_request(G, "", Some("instance-s")), 5);
    h.advance(200);
    let s = h.join_answer(&rs).expect("s").member_id;
    let removed = h.leave(G, &[("", Some("instance-s"))]);
    assert_eq!(removed.members[0].error_code, 0);
    assert!(h.shard.classic_group(G).expect("group").member(&s).is_none());
    assert_eq!(h.group_state(G), Some("Empty"), "the last member left: the group is empty");
    assert!(matches!(h.log.last().map(|r| r.view()), Some(RecordView::GroupMetadata { value: Some(_), .. })));
}

/// The leader's JoinGroup in Stable starts a rebalance; a follower's with unchanged metadata gets
/// the current generation again without one.
#[test]
fn leader_rejoin_rebalances_follower_rejoin_does_not() {
    let mut h = Harness::with_defaults();
    let (members, generation) = form_group(&mut h, &["a", "b"]);
    let follower = h.join("b", &join_request(G, &members[1], None), 5);
    let answer = h.join_answer(&follower).expect("answered at once");
    assert_eq!((answer.generation_id, answer.members.len()), (generation, 0));
    assert_eq!(h.group_state(G), Some("Stable"));
    let leader = h.join("a", &join_request(G, &members[0], None), 5);
    assert!(matches!(leader, Reply::Parked(_)));
    assert_eq!(h.group_state(G), Some("PreparingRebalance"));
}

/// Members that do not rejoin within the rebalance timeout are dropped and the others go on.
#[test]
fn rebalance_timeout_drops_members_that_do_not_rejoin() {
    let mut h = Harness::with_defaults();
    let mut long_session = join_request(G, "", None);
    long_session.session_timeout_ms = 60_000;
    let (a, ra) = h.join_new_member(G, "a");
    let first = h.join("b", &long_session, 5);
    let b = h.join_answer(&first).expect("member id").member_id;
    long_session.member_id = b.clone();
    let rb = h.join("b", &long_session, 5);
    h.advance(200);
    let generation = h.join_answer(&ra).expect("a").generation_id;
    h.join_answer(&rb).expect("b");
    let sb = h.sync(&sync_request(G, &b, generation, &[]));
    h.sync(&sync_request(G, &a, generation, &[(&a, b"x"), (&b, b"y")]));
    h.sync_answer(&sb).expect("b synced");

    let mut changed = join_request(G, &a, None);
    changed.protocols = protocols(&["range"], &["other"]);
    let rejoin = h.join("a", &changed, 5);
    for _ in 0..5 {
        h.advance(5_000);
        h.heartbeat(G, &a, generation, None);
    }
    assert!(h.join_answer(&rejoin).is_none());
    h.advance(5_000);
    let answer = h.join_answer(&rejoin).expect("the rebalance timeout completed the join");
    assert_eq!((answer.generation_id, answer.members.len()), (generation + 1, 1));
    assert!(h.shard.classic_group(G).expect("g").member(&b).is_none());
}

/// A member that heartbeats but never sends SyncGroup is dropped when the wait for SyncGroups (the
/// rebalance timeout) ends, and the group rebalances.
#[test]
fn missing_sync_group_is_expired() {
    let mut h = Harness::with_defaults();
    let (a, ra) = h.join_new_member(G, "a");
    let (b, rb) = h.join_new_member(G, "b");
    h.advance(200);
    let generation = h.join_answer(&ra).expect("a").generation_id;
    h.join_answer(&rb).expect("b");
    h.sync(&sync_request(G, &a, generation, &[(&a, b"x")]));
    assert_eq!(h.group_state(G), Some("Stable"));
    // The wait for SyncGroups ends 30 s (the rebalance timeout) after the join completed.
    for _ in 0..5 {
        h.advance(5_000);
        assert_eq!(h.heartbeat(G, &a, generation, None), 0);
        assert_eq!(h.heartbeat(G, &b, generation, None), 0);
    }
    h.advance(4_999);
    assert!(h.shard.classic_group(G).expect("g").member(&b).is_some());
    h.advance(1);
    assert!(h.shard.classic_group(G).expect("g").member(&b).is_none(), "b never synced");
    assert_eq!(h.group_state(G), Some("PreparingRebalance"));
}
