//! End to end over loopback: a consumer group through a real `strand server`. FindCoordinator
//! creates `__consumer_offsets` and names this node; a member joins (after KIP-394's
//! MEMBER_ID_REQUIRED), leads, syncs and commits; the group and its offsets come back after a
//! clean restart and after `kill -9`, because they are records in `__consumer_offsets`.

mod common;

use bytes::Bytes;
use common::{Client, Server};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::join_group_request::JoinGroupRequestProtocol;
use strand_protocol::messages::offset_commit_request::{OffsetCommitRequestPartition, OffsetCommitRequestTopic};
use strand_protocol::messages::offset_fetch_request::OffsetFetchRequestTopic;
use strand_protocol::messages::sync_group_request::SyncGroupRequestAssignment;
use strand_protocol::messages::{
    CreateTopicsRequest, DescribeGroupsRequest, FindCoordinatorRequest, JoinGroupRequest, OffsetCommitRequest,
    OffsetFetchRequest, SyncGroupRequest,
};

const GROUP: &str = "e2e-group";
const TOPIC: &str = "orders";

/// No wait before a new group's first rebalance, so the test never sleeps through one.
const OVERRIDES: &[&str] = &["group.initial.rebalance.delay.ms=0"];

/// Calls `make()` until the answer's error (per `error`) is not COORDINATOR_LOAD_IN_PROGRESS or
/// COORDINATOR_NOT_AVAILABLE, as clients retry while a coordinator loads after a restart.
fn retrying<T>(
    client: &mut Client,
    make: impl Fn() -> RequestBody,
    version: i16,
    pick: impl Fn(ResponseBody) -> T,
    error: impl Fn(&T) -> i16,
) -> T {
    use strand_base::Clock;
    let clock = strand_base::SystemClock;
    let deadline = clock.monotonic_ns() + common::WAIT_MAX.as_nanos() as u64;
    loop {
        let answer = pick(client.call(make(), version));
        let code = error(&answer);
        let retriable = [ErrorCode::CoordinatorLoadInProgress.code(), ErrorCode::CoordinatorNotAvailable.code()];
        if !retriable.contains(&code) || clock.monotonic_ns() > deadline {
            return answer;
        }
        std::thread::yield_now();
    }
}

fn committed(client: &mut Client) -> Vec<i64> {
    let request = || {
        RequestBody::OffsetFetch(OffsetFetchRequest {
            group_id: GROUP.into(),
            topics: Some(vec![OffsetFetchRequestTopic {
                name: TOPIC.into(),
                partition_indexes: vec![0, 1],
                ..Default::default()
            }]),
            ..Default::default()
        })
    };
    let response = retrying(
        client,
        request,
        7,
        |body| match body {
            ResponseBody::OffsetFetch(r) => r,
            other => panic!("{other:?}"),
        },
        |r| r.error_code,
    );
    assert_eq!(response.error_code, 0, "{response:?}");
    response.topics[0].partitions.iter().map(|p| p.committed_offset).collect()
}

fn commit(client: &mut Client, generation: i32, member: &str, offsets: [i64; 2]) {
    let partitions = offsets
        .iter()
        .enumerate()
        .map(|(i, &offset)| OffsetCommitRequestPartition {
            partition_index: i as i32,
            committed_offset: offset,
            committed_metadata: Some(format!("meta-{offset}")),
            ..Default::default()
        })
        .collect();
    let request = OffsetCommitRequest {
        group_id: GROUP.into(),
        generation_id_or_member_epoch: generation,
        member_id: member.into(),
        topics: vec![OffsetCommitRequestTopic { name: TOPIC.into(), partitions, ..Default::default() }],
        ..Default::default()
    };
    let ResponseBody::OffsetCommit(response) = client.call(RequestBody::OffsetCommit(request), 8) else { panic!() };
    for partition in &response.topics[0].partitions {
        assert_eq!(partition.error_code, 0, "{response:?}");
    }
}

fn group_state(client: &mut Client) -> (String, usize) {
    let request =
        || RequestBody::DescribeGroups(DescribeGroupsRequest { groups: vec![GROUP.into()], ..Default::default() });
    let response = retrying(
        client,
        request,
        5,
        |body| match body {
            ResponseBody::DescribeGroups(r) => r,
            other => panic!("{other:?}"),
        },
        |r| r.groups[0].error_code,
    );
    let group = &response.groups[0];
    assert_eq!(group.error_code, 0, "{group:?}");
    (group.group_state.clone(), group.members.len())
}

#[test]
fn groups_and_offsets_survive_restarts() {
    let _serial = common::serial();
    let server = Server::start_with(tempfile::tempdir().expect("temp dir"), OVERRIDES);
    let mut client = server.connect();
    let topic = CreatableTopic { name: TOPIC.into(), num_partitions: 2, replication_factor: 1, ..Default::default() };
    let request = CreateTopicsRequest { topics: vec![topic], timeout_ms: 10_000, ..Default::default() };
    let ResponseBody::CreateTopics(created) = client.call(RequestBody::CreateTopics(request), 7) else { panic!() };
    assert_eq!(created.topics[0].error_code, 0);

    // The batched form (v4+): this node coordinates, on the address the client used.
    let find = FindCoordinatorRequest { key_type: 0, coordinator_keys: vec![GROUP.into()], ..Default::default() };
    let ResponseBody::FindCoordinator(found) = client.call(RequestBody::FindCoordinator(find), 4) else { panic!() };
    let coordinator = &found.coordinators[0];
    assert_eq!(coordinator.error_code, 0, "{coordinator:?}");
    assert_eq!((coordinator.node_id.0, coordinator.port), (1, i32::from(server.address.port())));

    let join = |member_id: &str| JoinGroupRequest {
        group_id: GROUP.into(),
        session_timeout_ms: 30_000,
        rebalance_timeout_ms: 30_000,
        member_id: member_id.into(),
        protocol_type: "consumer".into(),
        protocols: vec![JoinGroupRequestProtocol {
            name: "range".into(),
            metadata: Bytes::from_static(b"sub"),
            ..Default::default()
        }],
        ..Default::default()
    };
    let call_join = |client: &mut Client, member: &str| {
        let body = || RequestBody::JoinGroup(join(member));
        retrying(
            client,
            body,
            5,
            |b| match b {
                ResponseBody::JoinGroup(r) => r,
                other => panic!("{other:?}"),
            },
            |r| r.error_code,
        )
    };
    let first = call_join(&mut client, "");
    assert_eq!(first.error_code, ErrorCode::MemberIdRequired.code(), "{first:?}");
    assert!(!first.member_id.is_empty());
    let joined = call_join(&mut client, &first.member_id);
    assert_eq!(joined.error_code, 0, "{joined:?}");
    assert_eq!(joined.leader, first.member_id, "the only member leads");
    assert_eq!(joined.members.len(), 1);
    assert_eq!(joined.members[0].metadata, Bytes::from_static(b"sub"));

    let assignment = Bytes::from_static(b"partitions-0-and-1");
    let sync = SyncGroupRequest {
        group_id: GROUP.into(),
        generation_id: joined.generation_id,
        member_id: first.member_id.clone(),
        protocol_type: Some("consumer".into()),
        protocol_name: Some("range".into()),
        assignments: vec![SyncGroupRequestAssignment {
            member_id: first.member_id.clone(),
            assignment: assignment.clone(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::SyncGroup(synced) = client.call(RequestBody::SyncGroup(sync), 5) else { panic!() };
    assert_eq!((synced.error_code, synced.assignment.clone()), (0, assignment));

    commit(&mut client, joined.generation_id, &first.member_id, [5, 7]);
    assert_eq!(committed(&mut client), [5, 7]);
    assert_eq!(group_state(&mut client), ("Stable".into(), 1));

    drop(client);
    let server = Server::start_with(server.terminate(), OVERRIDES);
    let mut client = server.connect();
    assert_eq!(committed(&mut client), [5, 7], "a clean restart lost committed offsets");
    assert_eq!(group_state(&mut client), ("Stable".into(), 1), "a clean restart lost the group");
    commit(&mut client, joined.generation_id, &first.member_id, [9, 11]);

    drop(client);
    let server = Server::start_with(server.kill(), OVERRIDES);
    let mut client = server.connect();
    assert_eq!(committed(&mut client), [9, 11], "kill -9 lost an acknowledged commit");
    assert_eq!(group_state(&mut client).1, 1, "kill -9 lost the group's member");
}
