//! Committed offsets and the administrative APIs on one shard: OffsetCommit's checks (generation,
//! member, metadata size), OffsetFetch (named and all partitions), OffsetDelete, expiry after
//! `offsets.retention.minutes`, ListGroups, DescribeGroups, DeleteGroups.

mod common;

use common::*;
use strand_coordinator::GroupConfig;
use strand_coordinator::group::records::{OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY, RecordView};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::OffsetDeleteRequest;
use strand_protocol::messages::offset_delete_request::{OffsetDeleteRequestPartition, OffsetDeleteRequestTopic};

const G: &str = "group";

fn code(error: ErrorCode) -> i16 {
    error.code()
}

/// A Stable consumer group of `clients` subscribed to "orders", formed with the harness.
fn stable_group(h: &mut Harness, clients: &[&str]) -> (Vec<String>, i32) {
    let mut members = Vec::new();
    let mut replies = Vec::new();
    for client in clients {
        let (id, reply) = h.join_new_member(G, client);
        members.push(id);
        replies.push(reply);
    }
    h.advance(200);
    let generation = h.join_answer(&replies[0]).expect("joined").generation_id;
    for (member, reply) in members.iter().zip(&replies).skip(1) {
        h.join_answer(reply).expect("joined");
        h.sync(&sync_request(G, member, generation, &[]));
    }
    h.sync(&sync_request(G, &members[0], generation, &[]));
    assert_eq!(h.group_state(G), Some("Stable"));
    (members, generation)
}

fn delete_request(group: &str, topics: &[(&str, &[i32])]) -> OffsetDeleteRequest {
    OffsetDeleteRequest {
        group_id: group.to_owned(),
        topics: topics
            .iter()
            .map(|(name, partitions)| OffsetDeleteRequestTopic {
                name: (*name).to_owned(),
                partitions: partitions.iter().map(|p| OffsetDeleteRequestPartition { partition_index: *p }).collect(),
            })
            .collect(),
    }
}

/// A commit with generation -1 from outside group management creates a "simple" group; fetches
/// return what was committed (named partitions, or all), -1 for the rest, stamped with the clock.
#[test]
fn standalone_commit_and_fetch() {
    let mut h = Harness::with_defaults();
    let response = h.commit(&commit_request("simple", -1, "", None, &[("orders", 0, 42), ("orders", 2, 7)]), 9);
    assert_eq!(commit_errors(&response), vec![0, 0]);
    assert_eq!(h.group_state("simple"), Some("Empty"));
    assert_eq!(h.shard.group("simple").and_then(|g| g.protocol_type()), None, "a simple group has no protocol");

    let fetched = h.fetch("simple", Some(&[("orders", &[0, 1, 2]), ("other", &[0])]));
    let got: Vec<_> = fetched
        .topics
        .iter()
        .flat_map(|t| t.partitions.iter().map(move |p| (t.name.clone(), p.partition_index, p.committed_offset)))
        .collect();
    assert_eq!(
        got,
        vec![("orders".into(), 0, 42), ("orders".into(), 1, -1), ("orders".into(), 2, 7), ("other".into(), 0, -1)]
    );
    let zero = &fetched.topics[0].partitions[0];
    assert_eq!((zero.committed_leader_epoch, zero.metadata.as_deref()), (3, Some("meta-42")));

    let all = h.fetch("simple", None);
    assert_eq!(all.topics.len(), 1);
    assert_eq!(all.topics[0].partitions.iter().map(|p| p.partition_index).collect::<Vec<_>>(), vec![0, 2]);
    let stored = h.shard.offsets().get("simple", "orders", 0).expect("stored");
    assert_eq!(stored.commit_timestamp_ms, h.now, "commit time comes from the clock");
    assert_eq!(h.fetch("no-such-group", Some(&[("orders", &[0])])).topics[0].partitions[0].committed_offset, -1);
}

/// Commits from a group's members are checked: generation, member id, static instance, a
/// rebalance in progress, and standalone commits while the group has members.
#[test]
fn commits_are_checked_against_the_group() {
    let mut h = Harness::with_defaults();
    let (members, generation) = stable_group(&mut h, &["a", "b"]);
    let (a, b) = (members[0].as_str(), members[1].as_str());
    let offsets = [("orders", 0, 1)];
    let check = |h: &mut Harness, generation: i32, member: &str, instance: Option<&str>, version: i16| {
        commit_errors(&h.commit(&commit_request(G, generation, member, instance, &offsets), version))[0]
    };
    assert_eq!(check(&mut h, generation, a, None, 9), 0);
    assert_eq!(check(&mut h, generation + 1, a, None, 9), code(ErrorCode::IllegalGeneration));
    assert_eq!(check(&mut h, generation, "stranger", None, 9), code(ErrorCode::UnknownMemberId));
    assert_eq!(check(&mut h, -1, "", None, 9), code(ErrorCode::UnknownMemberId), "standalone commit, live group");
    assert_eq!(check(&mut h, generation, a, Some("instance"), 9), code(ErrorCode::UnknownMemberId));
    // A group that does not exist: ILLEGAL_GENERATION before v9, GROUP_ID_NOT_FOUND from v9.
    let missing = |h: &mut Harness, version| {
        commit_errors(&h.commit(&commit_request("missing", 1, "m", None, &offsets), version))[0]
    };
    assert_eq!(missing(&mut h, 8), code(ErrorCode::IllegalGeneration));
    assert_eq!(missing(&mut h, 9), code(ErrorCode::GroupIdNotFound));

    // b rejoins: while the group completes its rebalance, commits are refused.
    let mut changed = join_request(G, b, None);
    changed.protocols = protocols(&["range"], &["orders", "payments"]);
    let rb = h.join("b", &changed, 5);
    let ra = h.join("a", &join_request(G, a, None), 5);
    let next = h.join_answer(&ra).expect("completed").generation_id;
    h.join_answer(&rb).expect("completed");
    assert_eq!(h.group_state(G), Some("CompletingRebalance"));
    assert_eq!(check(&mut h, next, a, None, 9), code(ErrorCode::RebalanceInProgress));
}

/// A static member's commit under a member id its instance no longer has is fenced.
#[test]
fn a_replaced_static_member_is_fenced_from_committing() {
    let mut h = Harness::with_defaults();
    let r = h.join("s", &join_request(G, "", Some("instance")), 5);
    h.advance(200);
    let old = h.join_answer(&r).expect("joined").member_id;
    h.sync(&sync_request(G, &old, 1, &[]));
    let again = h.join("s", &join_request(G, "", Some("instance")), 5);
    let new = h.join_answer(&again).expect("replaced").member_id;
    let offsets = [("orders", 0, 1)];
    let fenced = h.commit(&commit_request(G, 1, &old, Some("instance"), &offsets), 9);
    assert_eq!(commit_errors(&fenced), vec![code(ErrorCode::FencedInstanceId)]);
    let fine = h.commit(&commit_request(G, 1, &new, Some("instance"), &offsets), 9);
    assert_eq!(commit_errors(&fine), vec![0]);
}

/// Metadata longer than `offset.metadata.max.bytes` (counted in UTF-16 code units, as Java's
/// String.length) is refused per partition; the others are committed.
#[test]
fn oversized_metadata_is_refused() {
    let mut h = Harness::new(GroupConfig { offset_metadata_max_bytes: 10, ..GroupConfig::default() });
    let mut request = commit_request("simple", -1, "", None, &[("t", 0, 1), ("t", 1, 2), ("t", 2, 3)]);
    let partitions = &mut request.topics[0].partitions;
    partitions[0].committed_metadata = Some("\u{e9}".repeat(10)); // 20 UTF-8 bytes, 10 UTF-16 units
    partitions[1].committed_metadata = Some("x".repeat(11));
    partitions[2].committed_metadata = None;
    let response = h.commit(&request, 8);
    assert_eq!(commit_errors(&response), vec![0, code(ErrorCode::OffsetMetadataTooLarge), 0]);
    assert!(h.shard.offsets().get("simple", "t", 1).is_none());
    assert_eq!(h.shard.offsets().get("simple", "t", 2).expect("stored").metadata, "", "null metadata is stored empty");
}

/// OffsetCommit v2-v4's retention time becomes an expire timestamp, written at value version 1,
/// and the offset expires then, whatever `offsets.retention.minutes` says.
#[test]
fn retention_time_sets_an_expire_timestamp() {
    let mut h = Harness::with_defaults();
    let mut request = commit_request("simple", -1, "", None, &[("t", 0, 5)]);
    request.retention_time_ms = 60_000;
    h.commit(&request, 2);
    let (version, _) = h.log.last().and_then(|r| r.value.clone()).expect("a value");
    assert_eq!(version, OFFSET_COMMIT_VALUE_VERSION_WITH_EXPIRY);
    assert_eq!(h.shard.offsets().get("simple", "t", 0).expect("stored").expire_timestamp_ms, Some(h.now + 60_000));
    // The expiry check runs every offsets.retention.check.interval.ms (10 minutes).
    h.advance(600_000);
    assert!(h.shard.offsets().get("simple", "t", 0).is_none(), "expired at its own timestamp");
    assert!(h.shard.group("simple").is_none(), "the simple group went with its last offset");
}

/// Offsets of an Empty group expire `offsets.retention.minutes` after it emptied; the group is
/// then deleted with tombstones. A Stable consumer group keeps the offsets of topics it
/// subscribes to.
#[test]
fn offsets_expire_after_retention_once_the_group_is_empty() {
    let config = GroupConfig {
        offsets_retention_minutes: 60,
        offsets_retention_check_interval_ms: 60_000,
        initial_rebalance_delay_ms: 100,
        ..GroupConfig::default()
    };
    let mut h = Harness::new(config);
    let (members, generation) = stable_group(&mut h, &["a"]);
    let a = members[0].clone();
    let offsets = [("orders", 0, 10), ("old-topic", 0, 3)];
    h.commit(&commit_request(G, generation, &a, None, &offsets), 9);
    // Stable and subscribed to "orders": only the unsubscribed topic expires.
    for _ in 0..(62 * 12) {
        h.advance(5_000);
        assert_eq!(h.heartbeat(G, &a, generation, None), 0);
    }
    assert!(h.shard.offsets().get(G, "old-topic", 0).is_none(), "not subscribed: expired");
    assert!(h.shard.offsets().get(G, "orders", 0).is_some(), "subscribed: kept");

    let response = h.leave(G, &[(&a, None)]);
    assert_eq!(response.members[0].error_code, 0);
    assert_eq!(h.group_state(G), Some("Empty"));
    h.advance(59 * 60_000);
    assert!(h.shard.offsets().get(G, "orders", 0).is_some(), "59 minutes after emptying: kept");
    let before = h.log.len();
    h.advance(2 * 60_000);
    assert!(h.shard.offsets().get(G, "orders", 0).is_none(), "an hour after emptying: expired");
    assert!(h.shard.group(G).is_none(), "the empty group is deleted with its last offset");
    let written: Vec<_> = h.log[before..].iter().map(|r| r.view()).collect();
    assert!(matches!(written[0], RecordView::OffsetCommit { offset: None, .. }));
    assert!(matches!(written[1], RecordView::GroupMetadata { value: None, .. }));
}

/// OffsetDelete: refused for topics a consumer group subscribes to, done for the others; refused
/// for an unknown group and for a non-empty group of another protocol type.
#[test]
fn offset_delete() {
    let mut h = Harness::with_defaults();
    let (members, generation) = stable_group(&mut h, &["a"]);
    h.commit(&commit_request(G, generation, &members[0], None, &[("orders", 0, 1), ("other", 0, 2)]), 9);
    let response = h.shard.offset_delete(&delete_request(G, &[("orders", &[0]), ("other", &[0, 1])]));
    let response = h.absorb(response);
    assert_eq!(response.error_code, 0);
    let errors: Vec<Vec<i16>> =
        response.topics.iter().map(|t| t.partitions.iter().map(|p| p.error_code).collect()).collect();
    assert_eq!(errors, vec![vec![code(ErrorCode::GroupSubscribedToTopic)], vec![0, 0]]);
    assert!(h.shard.offsets().get(G, "orders", 0).is_some());
    assert!(h.shard.offsets().get(G, "other", 0).is_none());

    let unknown = h.shard.offset_delete(&delete_request("missing", &[("t", &[0])]));
    assert_eq!(unknown.response.error_code, code(ErrorCode::GroupIdNotFound));

    let mut connect = join_request("connect-group", "", None);
    connect.protocol_type = "connect".to_owned();
    h.join("w", &connect, 3);
    let non_empty = h.shard.offset_delete(&delete_request("connect-group", &[("t", &[0])]));
    assert_eq!(non_empty.response.error_code, code(ErrorCode::NonEmptyGroup));
}

/// ListGroups filters by state and type (case-insensitively); DescribeGroups gives members with
/// metadata and assignment once Stable, and Dead for an unknown group.
#[test]
fn list_and_describe_groups() {
    let mut h = Harness::with_defaults();
    let (members, generation) = stable_group(&mut h, &["a"]);
    h.commit(&commit_request("simple", -1, "", None, &[("t", 0, 1)]), 9);

    let all = h.shard.list_groups(&[], &[]);
    let listed: Vec<_> =
        all.iter().map(|g| (g.group_id.as_str(), g.group_state.as_str(), g.protocol_type.as_str())).collect();
    assert_eq!(listed, vec![(G, "Stable", "consumer"), ("simple", "Empty", "")]);
    assert!(all.iter().all(|g| g.group_type == "classic"));
    let stable = h.shard.list_groups(&["STABLE".to_owned()], &[]);
    assert_eq!(stable.iter().map(|g| g.group_id.as_str()).collect::<Vec<_>>(), vec![G]);
    assert_eq!(h.shard.list_groups(&[], &["Classic".to_owned()]).len(), 2);
    assert!(h.shard.list_groups(&[], &["consumer".to_owned()]).is_empty());

    let described = h.shard.describe_groups(&[G.to_owned(), "missing".to_owned()]);
    let group = &described[0];
    assert_eq!((group.error_code, group.group_state.as_str(), group.protocol_data.as_str()), (0, "Stable", "range"));
    assert_eq!(group.authorized_operations, i32::MIN, "left for the handler to fill");
    let member = &group.members[0];
    assert_eq!((member.member_id.as_str(), member.client_id.as_str()), (members[0].as_str(), "a"));
    assert_eq!(member.member_metadata, subscription(&["orders"]));
    assert_eq!(generation, 1);
    // The shard names the missing group; the runtime drops the error before DescribeGroups v6.
    assert_eq!((described[1].error_code, described[1].group_state.as_str()), (69, "Dead"));
}

/// DeleteGroups: an Empty group and its offsets are deleted with tombstones; a group with members
/// gets NON_EMPTY_GROUP, an unknown one GROUP_ID_NOT_FOUND.
#[test]
fn delete_groups() {
    let mut h = Harness::with_defaults();
    stable_group(&mut h, &["a"]);
    h.commit(&commit_request("simple", -1, "", None, &[("t", 0, 1), ("t", 1, 2)]), 9);
    let output = h.shard.delete_groups(&[G.to_owned(), "simple".to_owned(), "missing".to_owned()]);
    let records = output.records.clone();
    let results = h.absorb(output);
    let errors: Vec<i16> = results.iter().map(|r| r.error_code).collect();
    assert_eq!(errors, vec![code(ErrorCode::NonEmptyGroup), 0, code(ErrorCode::GroupIdNotFound)]);
    assert!(h.shard.group("simple").is_none());
    assert!(h.shard.offsets().group("simple").is_none());
    let kinds: Vec<_> = records.iter().map(|r| r.view()).collect();
    assert_eq!(kinds.len(), 3);
    assert!(matches!(kinds[0], RecordView::OffsetCommit { group: "simple", partition: 0, offset: None, .. }));
    assert!(matches!(kinds[1], RecordView::OffsetCommit { group: "simple", partition: 1, offset: None, .. }));
    assert!(matches!(kinds[2], RecordView::GroupMetadata { group: "simple", value: None }));
}
