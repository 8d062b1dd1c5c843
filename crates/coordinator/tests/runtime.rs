//! The runtime over the in-memory partition writer, on tokio's paused clock (the coordinator's
//! `Clock` reads it, so timers fire as time auto-advances): routing (NOT_COORDINATOR,
//! COORDINATOR_LOAD_IN_PROGRESS), answers held until the records commit, failed appends answered
//! and reverted, restarts replaying the log, timers, and answers shaped for every version.

mod common;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use common::{T0, TokioClock, commit_request, join_request, protocols, sync_request};
use strand_base::{TopicPartition, Uuid};
use strand_coordinator::group::records::{CoordinatorRecord, OffsetAndMetadata, build_batch};
use strand_coordinator::writer::memory::MemoryPartitionWriter;
use strand_coordinator::{
    ClientInfo, GroupConfig, GroupCoordinator, NoTopicIds, OFFSETS_TOPIC, SequentialMemberIds, ShardStatus, TopicIds,
    WriteError,
};
use strand_protocol::Struct;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::offset_fetch_request::{
    OffsetFetchRequestGroup, OffsetFetchRequestTopic, OffsetFetchRequestTopics,
};
use strand_protocol::messages::{
    DeleteGroupsRequest, DescribeGroupsRequest, HeartbeatRequest, JoinGroupRequest, JoinGroupResponse,
    LeaveGroupRequest, ListGroupsRequest, OffsetCommitRequest, OffsetFetchRequest, SyncGroupResponse,
};

const PARTITIONS: i32 = 4;

fn tp(partition: i32) -> TopicPartition {
    TopicPartition::new(OFFSETS_TOPIC, partition)
}

fn new_coordinator(config: GroupConfig) -> (Arc<MemoryPartitionWriter>, GroupCoordinator) {
    let writer = Arc::new(MemoryPartitionWriter::new());
    for partition in 0..PARTITIONS {
        writer.lead(&tp(partition), 1);
    }
    let clock = Arc::new(TokioClock::starting_now());
    let config = GroupConfig { offsets_topic_partitions: PARTITIONS, ..config };
    let coordinator = GroupCoordinator::new(config, writer.clone(), clock, Arc::new(SequentialMemberIds::default()));
    (writer, coordinator)
}

/// A coordinator leading every partition, loaded.
async fn active(config: GroupConfig) -> (Arc<MemoryPartitionWriter>, GroupCoordinator) {
    let (writer, coordinator) = new_coordinator(config);
    for partition in 0..PARTITIONS {
        coordinator.shards().become_leader(partition, 1);
        assert!(coordinator.shards().wait_active(partition).await);
    }
    (writer, coordinator)
}

fn client(id: &str) -> ClientInfo {
    ClientInfo { client_id: id.to_owned(), client_host: "/10.0.0.1".to_owned(), ..Default::default() }
}

fn encodes<M: Struct>(message: &M, version: i16) {
    let mut out = BytesMut::new();
    message.encode(&mut out, version).unwrap_or_else(|e| panic!("{message:?} does not encode at v{version}: {e}"));
}

fn fetch_one(group: &str, topic: &str, partitions: &[i32]) -> OffsetFetchRequest {
    OffsetFetchRequest {
        groups: vec![OffsetFetchRequestGroup {
            group_id: group.to_owned(),
            topics: Some(vec![OffsetFetchRequestTopics {
                name: topic.to_owned(),
                partition_indexes: partitions.to_vec(),
                ..Default::default()
            }]),
            ..Default::default()
        }],
        ..Default::default()
    }
}

async fn fetched_offset(coordinator: &GroupCoordinator, group: &str, topic: &str, partition: i32) -> (i16, i64) {
    let response = coordinator.offset_fetch(fetch_one(group, topic, &[partition]), 8, &NoTopicIds).await;
    let group = &response.groups[0];
    let offset = group.topics.first().and_then(|t| t.partitions.first()).map_or(i64::MIN, |p| p.committed_offset);
    (group.error_code, offset)
}

fn commit(group: &str, offset: i64) -> OffsetCommitRequest {
    commit_request(group, -1, "", None, &[("orders", 0, offset)])
}

fn errors(response: &strand_protocol::messages::OffsetCommitResponse) -> Vec<i16> {
    common::commit_errors(response)
}

/// Two members join and sync through the runtime (the long polls resolve once the initial delay
/// passes on the paused clock). Returns (leader, follower, generation).
async fn form_group(coordinator: &GroupCoordinator, group: &str) -> (String, String, i32) {
    let mut ids = Vec::new();
    for name in ["a", "b"] {
        let first = coordinator.join_group(client(name), join_request(group, "", None), 5).await;
        assert_eq!(first.error_code, ErrorCode::MemberIdRequired.code());
        ids.push(first.member_id);
    }
    let (ja, jb) = tokio::join!(
        coordinator.join_group(client("a"), join_request(group, &ids[0], None), 5),
        coordinator.join_group(client("b"), join_request(group, &ids[1], None), 5),
    );
    assert_eq!((ja.error_code, jb.error_code), (0, 0));
    let (leader, follower) = if ja.leader == ja.member_id { (ja, jb) } else { (jb, ja) };
    let generation = leader.generation_id;
    let assignments: Vec<(&str, &[u8])> =
        vec![(leader.member_id.as_str(), b"leader-part"), (follower.member_id.as_str(), b"follower-part")];
    let (sl, sf): (SyncGroupResponse, SyncGroupResponse) = tokio::join!(
        coordinator.sync_group(sync_request(group, &leader.member_id, generation, &assignments), 3),
        coordinator.sync_group(sync_request(group, &follower.member_id, generation, &[]), 3),
    );
    assert_eq!((sl.assignment.as_ref(), sf.assignment.as_ref()), (&b"leader-part"[..], &b"follower-part"[..]));
    for version in 0..=5 {
        encodes(&sl, version);
    }
    for version in 0..=9 {
        encodes(&leader, version);
        encodes(&follower, version);
    }
    (leader.member_id, follower.member_id, generation)
}

/// A partition not led here: NOT_COORDINATOR, whatever the API; ListGroups just has nothing.
#[tokio::test(start_paused = true)]
async fn partitions_not_led_here_are_not_coordinator() {
    let (_writer, coordinator) = new_coordinator(GroupConfig::default());
    let not_coordinator = ErrorCode::NotCoordinator.code();
    assert_eq!(errors(&coordinator.offset_commit(commit("g", 1), 8, &NoTopicIds).await), vec![not_coordinator]);
    let join = coordinator.join_group(client("c"), join_request("g", "", None), 5).await;
    assert_eq!(join.error_code, not_coordinator);
    let heartbeat = HeartbeatRequest { group_id: "g".into(), member_id: "m".into(), ..Default::default() };
    assert_eq!(coordinator.heartbeat(heartbeat, 4).await.error_code, not_coordinator);
    assert_eq!(fetched_offset(&coordinator, "g", "orders", 0).await.0, not_coordinator);
    let listed = coordinator.list_groups(ListGroupsRequest::default(), 4).await;
    assert_eq!((listed.error_code, listed.groups.len()), (0, 0));
    assert_eq!(coordinator.shards().status(coordinator.partition_for("g")), ShardStatus::NotLed);
}

/// While a shard loads (here: waiting for a previous leader's batch to commit) its groups get
/// COORDINATOR_LOAD_IN_PROGRESS (heartbeats a blind NONE); once loaded, what the log held is
/// served.
#[tokio::test(start_paused = true)]
async fn load_in_progress_until_the_log_is_replayed() {
    let (writer, coordinator) = new_coordinator(GroupConfig::default());
    let partition = coordinator.partition_for("g");
    let offset = OffsetAndMetadata {
        committed_offset: 77,
        leader_epoch: -1,
        metadata: String::new(),
        commit_timestamp_ms: T0,
        expire_timestamp_ms: None,
        topic_id: Uuid::ZERO,
    };
    let batch = build_batch(&[CoordinatorRecord::offset_commit("g", "orders", 0, &offset)], T0).expect("batch");
    writer.append_uncommitted(&tp(partition), batch).expect("stored");
    coordinator.shards().become_leader(partition, 1);
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert_eq!(coordinator.shards().status(partition), ShardStatus::Loading);
    let loading = ErrorCode::CoordinatorLoadInProgress.code();
    assert_eq!(errors(&coordinator.offset_commit(commit("g", 1), 8, &NoTopicIds).await), vec![loading]);
    assert_eq!(coordinator.join_group(client("c"), join_request("g", "", None), 5).await.error_code, loading);
    let heartbeat = HeartbeatRequest { group_id: "g".into(), member_id: "m".into(), ..Default::default() };
    assert_eq!(coordinator.heartbeat(heartbeat, 4).await.error_code, 0);

    writer.hold_commits(&tp(partition), false);
    assert!(coordinator.shards().wait_active(partition).await);
    assert_eq!(fetched_offset(&coordinator, "g", "orders", 0).await, (0, 77));
}

/// An operation is answered only once its records are committed, and the next one waits for it.
#[tokio::test(start_paused = true)]
async fn answers_wait_for_the_commit() {
    let (writer, coordinator) = active(GroupConfig::default()).await;
    let coordinator = Arc::new(coordinator);
    let partition = coordinator.partition_for("g");
    writer.hold_commits(&tp(partition), true);
    let committing = {
        let coordinator = Arc::clone(&coordinator);
        tokio::spawn(async move { coordinator.offset_commit(commit("g", 5), 8, &NoTopicIds).await })
    };
    let fetching = {
        let coordinator = Arc::clone(&coordinator);
        tokio::spawn(async move { fetched_offset(&coordinator, "g", "orders", 0).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!committing.is_finished(), "not committed: not answered");
    assert!(!fetching.is_finished(), "the next operation waits for the one before");
    assert_eq!(writer.batches(&tp(partition)).len(), 1, "the batch is in the log, uncommitted");
    writer.hold_commits(&tp(partition), false);
    assert_eq!(errors(&committing.await.expect("task")), vec![0]);
    assert_eq!(fetching.await.expect("task"), (0, 5));
}

/// A failed append is answered with Kafka's mapping of the failure, parked requests with it too,
/// and the shard is reloaded from the log, forgetting what was not written. Losing leadership
/// stops the shard.
#[tokio::test(start_paused = true)]
async fn failed_appends_are_answered_and_reverted() {
    let (writer, coordinator) = active(GroupConfig::default()).await;
    let coordinator = Arc::new(coordinator);
    let partition = coordinator.partition_for("g");
    assert_eq!(errors(&coordinator.offset_commit(commit("g", 1), 8, &NoTopicIds).await), vec![0]);

    // A parked JoinGroup (waiting out the initial delay) of a group on the same shard.
    let group = (0..).map(|i| format!("h{i}")).find(|g| coordinator.partition_for(g) == partition).expect("some group");
    let first = coordinator.join_group(client("j"), join_request(&group, "", None), 5).await;
    let parked = {
        let coordinator = Arc::clone(&coordinator);
        let request = join_request(&group, &first.member_id, None);
        tokio::spawn(async move { coordinator.join_group(client("j"), request, 5).await })
    };
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert!(!parked.is_finished());

    writer.fail_appends(&tp(partition), Some(WriteError::Timeout));
    let failed = coordinator.offset_commit(commit("g", 2), 8, &NoTopicIds).await;
    assert_eq!(errors(&failed), vec![ErrorCode::CoordinatorNotAvailable.code()]);
    assert_eq!(parked.await.expect("task").error_code, ErrorCode::CoordinatorNotAvailable.code());
    writer.fail_appends(&tp(partition), None);
    assert!(coordinator.shards().wait_active(partition).await);
    assert_eq!(fetched_offset(&coordinator, "g", "orders", 0).await, (0, 1), "the failed commit is forgotten");

    writer.fail_appends(&tp(partition), Some(WriteError::NotLeader));
    let failed = coordinator.offset_commit(commit("g", 3), 8, &NoTopicIds).await;
    assert_eq!(errors(&failed), vec![ErrorCode::NotCoordinator.code()]);
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert_eq!(coordinator.shards().status(partition), ShardStatus::NotLed);
    assert_eq!(fetched_offset(&coordinator, "g", "orders", 0).await.0, ErrorCode::NotCoordinator.code());
}

/// A new leader (epoch) reloads the log: groups and offsets are back as committed.
#[tokio::test(start_paused = true)]
async fn a_new_leader_replays_groups_and_offsets() {
    let (writer, coordinator) = active(GroupConfig { initial_rebalance_delay_ms: 100, ..GroupConfig::default() }).await;
    let (leader, follower, generation) = form_group(&coordinator, "g").await;
    let mut request = commit_request("g", generation, &leader, None, &[("orders", 0, 10), ("orders", 1, 20)]);
    request.topics[0].partitions[1].committed_metadata = Some("hello".into());
    assert_eq!(errors(&coordinator.offset_commit(request, 8, &NoTopicIds).await), vec![0, 0]);

    let partition = coordinator.partition_for("g");
    coordinator.shards().resign(partition);
    assert_eq!(coordinator.shards().status(partition), ShardStatus::NotLed);
    writer.lead(&tp(partition), 2);
    coordinator.shards().become_leader(partition, 2);
    assert!(coordinator.shards().wait_active(partition).await);

    let described =
        coordinator.describe_groups(DescribeGroupsRequest { groups: vec!["g".into()], ..Default::default() }, 5).await;
    let group = &described.groups[0];
    assert_eq!((group.group_state.as_str(), group.protocol_data.as_str()), ("Stable", "range"));
    let mut members: Vec<_> =
        group.members.iter().map(|m| (m.member_id.clone(), m.member_assignment.clone())).collect();
    members.sort();
    let mut expected =
        vec![(leader.clone(), Bytes::from_static(b"leader-part")), (follower, Bytes::from_static(b"follower-part"))];
    expected.sort();
    assert_eq!(members, expected);
    let fetched = coordinator.offset_fetch(fetch_one("g", "orders", &[0, 1]), 8, &NoTopicIds).await;
    let partitions = &fetched.groups[0].topics[0].partitions;
    assert_eq!((partitions[0].committed_offset, partitions[1].committed_offset), (10, 20));
    assert_eq!(partitions[1].metadata.as_deref(), Some("hello"));
    // The reloaded members' sessions run: the leader heartbeats fine.
    let heartbeat =
        HeartbeatRequest { group_id: "g".into(), member_id: leader, generation_id: generation, ..Default::default() };
    assert_eq!(coordinator.heartbeat(heartbeat, 4).await.error_code, 0);
}

/// Timers run on the clock: members that stop heartbeating are removed after their session
/// timeout and the group, now empty, is written as such.
#[tokio::test(start_paused = true)]
async fn sessions_expire_on_the_clock() {
    let (_writer, coordinator) =
        active(GroupConfig { initial_rebalance_delay_ms: 100, ..GroupConfig::default() }).await;
    form_group(&coordinator, "g").await;
    let describe = || DescribeGroupsRequest { groups: vec!["g".into()], ..Default::default() };
    tokio::time::sleep(Duration::from_millis(9_000)).await;
    assert_eq!(coordinator.describe_groups(describe(), 5).await.groups[0].group_state, "Stable");
    tokio::time::sleep(Duration::from_millis(2_000)).await;
    let group = &coordinator.describe_groups(describe(), 5).await.groups[0];
    assert_eq!((group.group_state.as_str(), group.members.len()), ("Empty", 0));
}

/// JoinGroup checks and version shapes: group id, session timeout bounds, MEMBER_ID_REQUIRED with
/// `client_id-uuid`, v0's rebalance timeout, and a protocol name never null before v7.
#[tokio::test(start_paused = true)]
async fn join_group_checks_and_versions() {
    let (_writer, coordinator) = active(GroupConfig::default()).await;
    let short = JoinGroupRequest { session_timeout_ms: 5_999, ..join_request("g", "", None) };
    assert_eq!(coordinator.join_group(client("c"), short, 5).await.error_code, ErrorCode::InvalidSessionTimeout.code());
    let long = JoinGroupRequest { session_timeout_ms: 1_800_001, ..join_request("g", "", None) };
    assert_eq!(coordinator.join_group(client("c"), long, 5).await.error_code, ErrorCode::InvalidSessionTimeout.code());
    let nameless = coordinator.join_group(client("c"), join_request("", "", None), 6).await;
    assert_eq!(nameless.error_code, ErrorCode::InvalidGroupId.code());
    assert_eq!(nameless.protocol_name.as_deref(), Some(""), "v6 cannot carry a null protocol name");
    encodes(&nameless, 6);

    let required = coordinator.join_group(client("c"), join_request("g", "", None), 4).await;
    assert_eq!(required.error_code, ErrorCode::MemberIdRequired.code());
    assert_eq!(required.member_id, "c-00000000-0000-0000-0000-000000000001");
    for version in 4..=9 {
        encodes(&required, version);
    }
    let unknown = coordinator.join_group(client("c"), join_request("g", "stranger", None), 7).await;
    assert_eq!(unknown.error_code, ErrorCode::UnknownMemberId.code());
    encodes(&unknown, 7);
}

/// LeaveGroup v0-v2 (one member, one error) and v3+ (a batch); every answer encodes at its
/// version.
#[tokio::test(start_paused = true)]
async fn leave_group_versions() {
    let (_writer, coordinator) =
        active(GroupConfig { initial_rebalance_delay_ms: 100, ..GroupConfig::default() }).await;
    let (leader, _follower, _) = form_group(&coordinator, "g").await;
    let old = LeaveGroupRequest { group_id: "g".into(), member_id: "stranger".into(), ..Default::default() };
    let response = coordinator.leave_group(old, 1).await;
    assert_eq!((response.error_code, response.members.len()), (ErrorCode::UnknownMemberId.code(), 0));
    encodes(&response, 1);
    let old = LeaveGroupRequest { group_id: "g".into(), member_id: leader, ..Default::default() };
    let response = coordinator.leave_group(old, 2).await;
    assert_eq!(response.error_code, 0);
    encodes(&response, 2);
    let unknown_group = LeaveGroupRequest {
        group_id: "nope".into(),
        members: vec![strand_protocol::messages::leave_group_request::MemberIdentity {
            member_id: "m".into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let response = coordinator.leave_group(unknown_group, 5).await;
    assert_eq!((response.error_code, response.members[0].error_code), (0, ErrorCode::UnknownMemberId.code()));
    encodes(&response, 5);
}

/// OffsetFetch's single-group form (v1-v7): all partitions with null topics (v2+), the group's
/// error at the top (v2+) or in each partition (v1).
#[tokio::test(start_paused = true)]
async fn offset_fetch_single_group_versions() {
    let (_writer, coordinator) = active(GroupConfig::default()).await;
    let request = commit_request("g", -1, "", None, &[("orders", 0, 3), ("payments", 1, 4)]);
    assert_eq!(errors(&coordinator.offset_commit(request, 2, &NoTopicIds).await), vec![0, 0]);
    let all = OffsetFetchRequest { group_id: "g".into(), topics: None, ..Default::default() };
    let response = coordinator.offset_fetch(all, 7, &NoTopicIds).await;
    let got: Vec<_> = response.topics.iter().map(|t| (t.name.clone(), t.partitions[0].committed_offset)).collect();
    assert_eq!(got, vec![("orders".to_owned(), 3), ("payments".to_owned(), 4)]);
    encodes(&response, 7);

    let (_w, lost) = new_coordinator(GroupConfig::default());
    let named = OffsetFetchRequest {
        group_id: "g".into(),
        topics: Some(vec![OffsetFetchRequestTopic {
            name: "orders".into(),
            partition_indexes: vec![0],
            ..Default::default()
        }]),
        ..Default::default()
    };
    let v1 = lost.offset_fetch(named.clone(), 1, &NoTopicIds).await;
    assert_eq!(v1.topics[0].partitions[0].error_code, ErrorCode::NotCoordinator.code());
    encodes(&v1, 1);
    let v3 = lost.offset_fetch(named, 3, &NoTopicIds).await;
    assert_eq!((v3.error_code, v3.topics.len()), (ErrorCode::NotCoordinator.code(), 0));
    encodes(&v3, 3);
}

/// Topic ids in the same place as names.
#[derive(Debug)]
struct Topics(HashMap<Uuid, String>);

impl TopicIds for Topics {
    fn name(&self, id: Uuid) -> Option<String> {
        self.0.get(&id).cloned()
    }

    fn id(&self, name: &str) -> Option<Uuid> {
        self.0.iter().find(|(_, n)| *n == name).map(|(id, _)| *id)
    }
}

/// OffsetCommit and OffsetFetch v10 name topics by id: offsets are stored by name, fetched back by
/// id; an unknown id is UNKNOWN_TOPIC_ID.
#[tokio::test(start_paused = true)]
async fn topic_ids_in_v10() {
    let (_writer, coordinator) = active(GroupConfig::default()).await;
    let orders = Uuid([7; 16]);
    let unknown = Uuid([9; 16]);
    let topics = Topics(HashMap::from([(orders, "orders".to_owned())]));
    let mut request = commit_request("g", -1, "", None, &[("x", 0, 12), ("y", 0, 13)]);
    request.topics[0].topic_id = orders;
    request.topics[1].topic_id = unknown;
    let response = coordinator.offset_commit(request, 10, &topics).await;
    assert_eq!(errors(&response), vec![0, ErrorCode::UnknownTopicId.code()]);
    for version in 2..=10 {
        encodes(&response, version);
    }
    assert_eq!((response.topics[0].topic_id, response.topics[1].topic_id), (orders, unknown));
    encodes(&response, 10);
    assert_eq!(fetched_offset(&coordinator, "g", "orders", 0).await, (0, 12), "stored under the topic's name");

    let by_id = OffsetFetchRequest {
        groups: vec![OffsetFetchRequestGroup {
            group_id: "g".into(),
            topics: Some(vec![
                OffsetFetchRequestTopics { topic_id: orders, partition_indexes: vec![0], ..Default::default() },
                OffsetFetchRequestTopics { topic_id: unknown, partition_indexes: vec![0], ..Default::default() },
            ]),
            ..Default::default()
        }],
        ..Default::default()
    };
    let response = coordinator.offset_fetch(by_id, 10, &topics).await;
    let group = &response.groups[0];
    assert_eq!((group.topics[0].topic_id, group.topics[0].partitions[0].committed_offset), (orders, 12));
    assert_eq!(group.topics[1].partitions[0].error_code, ErrorCode::UnknownTopicId.code());
    encodes(&response, 10);
    let all = OffsetFetchRequest {
        groups: vec![OffsetFetchRequestGroup { group_id: "g".into(), topics: None, ..Default::default() }],
        ..Default::default()
    };
    let response = coordinator.offset_fetch(all, 10, &topics).await;
    assert_eq!(response.groups[0].topics.len(), 1);
    assert_eq!(response.groups[0].topics[0].topic_id, orders);
}

/// ListGroups gathers every shard; DescribeGroups and DeleteGroups answer in the request's order,
/// each group from its own shard (or with its shard's error).
#[tokio::test(start_paused = true)]
async fn admin_apis_span_shards() {
    let (_writer, coordinator) = active(GroupConfig::default()).await;
    let mut groups: Vec<String> = Vec::new();
    let mut partitions = Vec::new();
    for i in 0.. {
        let name = format!("group-{i}");
        let partition = coordinator.partition_for(&name);
        if !partitions.contains(&partition) {
            partitions.push(partition);
            groups.push(name);
        }
        if partitions.len() == 3 {
            break;
        }
    }
    for group in &groups {
        assert_eq!(errors(&coordinator.offset_commit(commit(group, 1), 8, &NoTopicIds).await), vec![0]);
    }
    let listed = coordinator.list_groups(ListGroupsRequest::default(), 5).await;
    let mut names: Vec<_> = listed.groups.iter().map(|g| g.group_id.clone()).collect();
    names.sort();
    let mut expected = groups.clone();
    expected.sort();
    assert_eq!(names, expected);
    for version in 0..=5 {
        encodes(&listed, version);
    }

    coordinator.shards().resign(partitions[2]);
    let request = DescribeGroupsRequest { groups: groups.iter().rev().cloned().collect(), ..Default::default() };
    let described = coordinator.describe_groups(request, 5).await;
    let got: Vec<_> = described.groups.iter().map(|g| (g.group_id.clone(), g.error_code)).collect();
    let not_coordinator = ErrorCode::NotCoordinator.code();
    assert_eq!(got, vec![(groups[2].clone(), not_coordinator), (groups[1].clone(), 0), (groups[0].clone(), 0)]);
    for version in 0..=5 {
        encodes(&described, version);
    }
    // An unknown group is Dead; from v6 (KIP-1043) also GROUP_ID_NOT_FOUND with a message.
    let led = coordinator.partition_for(&groups[0]);
    let name = (0..).map(|i| format!("unknown-{i}")).find(|n| coordinator.partition_for(n) == led).expect("a name");
    let unknown = || DescribeGroupsRequest { groups: vec![name.clone()], ..Default::default() };
    for (version, code) in [(5, 0), (6, ErrorCode::GroupIdNotFound.code())] {
        let described = coordinator.describe_groups(unknown(), version).await;
        let group = &described.groups[0];
        assert_eq!((group.group_state.as_str(), group.error_code), ("Dead", code), "v{version}");
        assert_eq!(group.error_message.is_some(), version >= 6, "v{version}");
    }

    let request = DeleteGroupsRequest {
        groups_names: vec![groups[1].clone(), groups[2].clone(), "x".into()],
        ..Default::default()
    };
    let deleted = coordinator.delete_groups(request, 2).await;
    let got: Vec<_> = deleted.results.iter().map(|r| r.error_code).collect();
    let x_error = if coordinator.partition_for("x") == partitions[2] {
        not_coordinator
    } else {
        ErrorCode::GroupIdNotFound.code()
    };
    assert_eq!(got, vec![0, not_coordinator, x_error]);
    assert_eq!(fetched_offset(&coordinator, &groups[1], "orders", 0).await, (0, -1));
}

/// The leader's JoinGroup answer lists members with their metadata, the follower's none; a join
/// with another protocol type is refused, through the runtime as in the shard.
#[tokio::test(start_paused = true)]
async fn join_answers_through_the_runtime() {
    let (_writer, coordinator) =
        active(GroupConfig { initial_rebalance_delay_ms: 100, ..GroupConfig::default() }).await;
    let (leader, _, generation) = form_group(&coordinator, "g").await;
    let mut connect = join_request("g", "", None);
    connect.protocol_type = "connect".into();
    connect.protocols = protocols(&["range"], &["orders"]);
    let refused: JoinGroupResponse = coordinator.join_group(client("x"), connect, 9).await;
    assert_eq!(refused.error_code, ErrorCode::InconsistentGroupProtocol.code());
    let heartbeat = HeartbeatRequest {
        group_id: "g".into(),
        member_id: leader,
        generation_id: generation + 1,
        ..Default::default()
    };
    assert_eq!(coordinator.heartbeat(heartbeat, 4).await.error_code, ErrorCode::IllegalGeneration.code());
}

fn assert_send<T: Send>(_: &T) {}

/// Every API's future can be spawned on a multi-threaded runtime (a handler awaits them there).
#[test]
fn api_futures_are_send() {
    let (_writer, coordinator) = new_coordinator(GroupConfig::default());
    assert_send(&coordinator.join_group(client("c"), join_request("g", "", None), 9));
    assert_send(&coordinator.sync_group(sync_request("g", "m", 1, &[]), 5));
    assert_send(&coordinator.heartbeat(HeartbeatRequest::default(), 4));
    assert_send(&coordinator.leave_group(LeaveGroupRequest::default(), 5));
    assert_send(&coordinator.offset_commit(commit("g", 1), 10, &NoTopicIds));
    assert_send(&coordinator.offset_fetch(fetch_one("g", "t", &[0]), 10, &NoTopicIds));
    assert_send(&coordinator.offset_delete(strand_protocol::messages::OffsetDeleteRequest::default(), 0));
    assert_send(&coordinator.list_groups(ListGroupsRequest::default(), 5));
    assert_send(&coordinator.describe_groups(DescribeGroupsRequest::default(), 6));
    assert_send(&coordinator.delete_groups(DeleteGroupsRequest::default(), 2));
    assert_send(&coordinator.shards().shutdown());
}

/// The consumer protocol through the runtime: metadata handed over with `on_metadata_update`
/// reaches the shards, a heartbeat is answered with its assignment once its records commit,
/// ConsumerGroupDescribe spans shards, a new leader reloads the group whole, and a topic that
/// grows is picked up at the next heartbeat.
#[tokio::test(start_paused = true)]
async fn consumer_groups_through_the_runtime() {
    use strand_coordinator::TopicMetadata;
    use strand_protocol::messages::{ConsumerGroupDescribeRequest, ConsumerGroupHeartbeatRequest};
    let (writer, coordinator) = active(GroupConfig::default()).await;
    let orders = Uuid([9; 16]);
    coordinator.on_metadata_update(TopicMetadata::new(5, [("orders".to_owned(), orders, 3)]));
    let join = ConsumerGroupHeartbeatRequest {
        group_id: "cg".into(),
        member_id: "m1".into(),
        member_epoch: 0,
        rebalance_timeout_ms: 30_000,
        subscribed_topic_names: Some(vec!["orders".into()]),
        topic_partitions: Some(Vec::new()),
        ..Default::default()
    };
    let response = coordinator.consumer_group_heartbeat(client("c"), join, 1).await;
    assert_eq!((response.error_code, response.member_epoch, response.heartbeat_interval_ms), (0, 1, 5_000));
    let assigned = response.assignment.expect("an assignment");
    assert_eq!(
        (assigned.topic_partitions[0].topic_id, assigned.topic_partitions[0].partitions.clone()),
        (orders, vec![0, 1, 2])
    );
    encodes(&coordinator.consumer_group_describe(ConsumerGroupDescribeRequest::default(), 0).await, 0);

    let partition = coordinator.partition_for("cg");
    coordinator.shards().resign(partition);
    writer.lead(&tp(partition), 2);
    coordinator.shards().become_leader(partition, 2);
    assert!(coordinator.shards().wait_active(partition).await);
    let request = ConsumerGroupDescribeRequest { group_ids: vec!["cg".into(), "missing".into()], ..Default::default() };
    let described = coordinator.consumer_group_describe(request, 1).await;
    let group = &described.groups[0];
    assert_eq!((group.group_state.as_str(), group.group_epoch, group.assignor_name.as_str()), ("Stable", 1, "uniform"));
    assert_eq!(group.members[0].assignment.topic_partitions[0].topic_name, "orders");
    assert_eq!(described.groups[1].error_code, ErrorCode::GroupIdNotFound.code());
    for version in 0..=1 {
        encodes(&described, version);
    }

    coordinator.on_metadata_update(TopicMetadata::new(6, [("orders".to_owned(), orders, 4)]));
    let beat = ConsumerGroupHeartbeatRequest {
        group_id: "cg".into(),
        member_id: "m1".into(),
        member_epoch: 1,
        rebalance_timeout_ms: -1,
        ..Default::default()
    };
    let response = coordinator.consumer_group_heartbeat(client("c"), beat, 1).await;
    assert_eq!((response.error_code, response.member_epoch), (0, 2));
    assert_eq!(response.assignment.expect("grown").topic_partitions[0].partitions, vec![0, 1, 2, 3]);
    // A v0 member without an id is given one.
    let anonymous = ConsumerGroupHeartbeatRequest {
        group_id: "cg".into(),
        member_epoch: 0,
        rebalance_timeout_ms: 30_000,
        subscribed_topic_names: Some(vec!["orders".into()]),
        topic_partitions: Some(Vec::new()),
        ..Default::default()
    };
    let response = coordinator.consumer_group_heartbeat(client("c"), anonymous.clone(), 0).await;
    assert_eq!(response.error_code, 0);
    assert!(response.member_id.is_some_and(|id| !id.is_empty()));
    // v1 requires the client's own id.
    let response = coordinator.consumer_group_heartbeat(client("c"), anonymous, 1).await;
    assert_eq!(response.error_code, ErrorCode::InvalidRequest.code());
}

/// A deleted topic takes its committed offsets with it, in every group (Kafka's
/// `onPartitionsDeleted`), and so does a topic deleted and created again under its name; the
/// offsets of other topics stay.
#[tokio::test(start_paused = true)]
async fn deleted_topics_lose_their_offsets() {
    use strand_coordinator::TopicMetadata;
    let (_, coordinator) = active(GroupConfig::default()).await;
    let (orders, payments) = (Uuid([1; 16]), Uuid([2; 16]));
    let topics = |list: &[(&str, Uuid)]| {
        TopicMetadata::new(1, list.iter().map(|(name, id)| ((*name).to_owned(), *id, 1)).collect::<Vec<_>>())
    };
    coordinator.on_metadata_update(topics(&[("orders", orders), ("payments", payments)]));
    for group in ["g1", "g2"] {
        let request = commit_request(group, -1, "", None, &[("orders", 0, 5), ("payments", 0, 7)]);
        assert_eq!(errors(&coordinator.offset_commit(request, 8, &NoTopicIds).await), [0, 0]);
    }

    coordinator.on_metadata_update(topics(&[("payments", payments)]));
    for group in ["g1", "g2"] {
        assert_eq!(fetched_offset(&coordinator, group, "orders", 0).await, (0, -1), "{group}: orders deleted");
        assert_eq!(fetched_offset(&coordinator, group, "payments", 0).await, (0, 7), "{group}: payments kept");
    }

    coordinator.on_metadata_update(topics(&[("payments", Uuid([3; 16]))]));
    assert_eq!(fetched_offset(&coordinator, "g1", "payments", 0).await, (0, -1), "payments was created again");
}
