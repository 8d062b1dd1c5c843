//! The group APIs: membership (JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
//! ConsumerGroupHeartbeat), offsets (OffsetCommit, OffsetFetch, OffsetDelete), the admin ones
//! (DescribeGroups, ConsumerGroupDescribe, ListGroups, DeleteGroups) and FindCoordinator.

use std::sync::Arc;

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::find_coordinator_response::Coordinator;
use strand_protocol::messages::join_group_request::JoinGroupRequestProtocol;
use strand_protocol::messages::offset_commit_request::{OffsetCommitRequestPartition, OffsetCommitRequestTopic};
use strand_protocol::messages::offset_delete_request::{OffsetDeleteRequestPartition, OffsetDeleteRequestTopic};
use strand_protocol::messages::offset_fetch_request::{OffsetFetchRequestGroup, OffsetFetchRequestTopics};
use strand_protocol::messages::{
    ConsumerGroupDescribeRequest, ConsumerGroupHeartbeatRequest, DeleteGroupsRequest, DescribeGroupsRequest,
    FindCoordinatorRequest, HeartbeatRequest, JoinGroupRequest, LeaveGroupRequest, ListGroupsRequest,
    OffsetCommitRequest, OffsetCommitResponse, OffsetDeleteRequest, OffsetFetchRequest, SyncGroupRequest,
};
use strand_security::acl::{AclOperation, CLUSTER_NAME, ResourceType};

use crate::common::{Node, TableAuthorizer};

const GROUP_DENIED: i16 = ErrorCode::GroupAuthorizationFailed.code();
const TOPIC_DENIED: i16 = ErrorCode::TopicAuthorizationFailed.code();
/// How many times a test asks a coordinator that is still loading its partition.
const LOAD_ATTEMPTS_MAX: usize = 1000;

fn commit(group: &str, topics: &[&str]) -> OffsetCommitRequest {
    let topic = |name: &&str| OffsetCommitRequestTopic {
        name: (*name).into(),
        partitions: vec![OffsetCommitRequestPartition {
            partition_index: 0,
            committed_offset: 1,
            ..Default::default()
        }],
        ..Default::default()
    };
    OffsetCommitRequest { group_id: group.into(), topics: topics.iter().map(topic).collect(), ..Default::default() }
}

fn commit_codes(response: &OffsetCommitResponse) -> Vec<i16> {
    response.topics.iter().map(|t| t.partitions[0].error_code).collect()
}

/// Groups `g` and `other` exist with an offset of `orders` each (committed before the authorizer
/// is on). alice may READ and DESCRIBE `g` and `orders`; bob may DELETE `g` and READ `orders`;
/// carol may DESCRIBE the cluster.
async fn node() -> Node {
    let mut node = Node::new();
    node.create_topic("orders", 1).await;
    node.create_topic("secret", 1).await;
    for group in ["g", "other"] {
        let find = FindCoordinatorRequest { key: group.into(), ..Default::default() };
        let ResponseBody::FindCoordinator(found) = node.call(RequestBody::FindCoordinator(find), 3).await else {
            panic!("not FindCoordinator")
        };
        assert_eq!(found.error_code, 0, "{found:?}");
        let mut attempts = 0;
        loop {
            let body = RequestBody::OffsetCommit(commit(group, &["orders"]));
            let ResponseBody::OffsetCommit(response) = node.call(body, 9).await else { panic!("not OffsetCommit") };
            let code = commit_codes(&response)[0];
            if code == 0 {
                break;
            }
            attempts += 1;
            assert!(attempts < LOAD_ATTEMPTS_MAX, "the coordinator never loaded: {code}");
            tokio::task::yield_now().await;
        }
    }
    let mut table = TableAuthorizer::default()
        .allow("bob", AclOperation::Delete, ResourceType::Group, "g")
        .allow("bob", AclOperation::Read, ResourceType::Topic, "orders")
        .allow("carol", AclOperation::Describe, ResourceType::Cluster, CLUSTER_NAME);
    for operation in [AclOperation::Read, AclOperation::Describe] {
        table = table.allow("alice", operation, ResourceType::Group, "g");
        table = table.allow("alice", operation, ResourceType::Group, "by-regex");
        table = table.allow("alice", operation, ResourceType::Topic, "orders");
    }
    node.with_authorizer(Arc::new(table))
}

/// The membership APIs need READ on the group; a ConsumerGroupHeartbeat naming topics needs
/// DESCRIBE on each.
#[tokio::test]
async fn membership_needs_read_on_the_group() {
    let mut node = node().await;
    let join = |group: &str| JoinGroupRequest {
        group_id: group.into(),
        session_timeout_ms: 10_000,
        rebalance_timeout_ms: 10_000,
        protocol_type: "consumer".into(),
        protocols: vec![JoinGroupRequestProtocol { name: "range".into(), ..Default::default() }],
        ..Default::default()
    };
    let refused = call!(node, "alice", JoinGroup(join("other")), 9);
    assert_eq!((refused.error_code, refused.generation_id, refused.protocol_name), (GROUP_DENIED, -1, None));
    let joined = call!(node, "alice", JoinGroup(join("g")), 9);
    assert_eq!(joined.error_code, ErrorCode::MemberIdRequired.code(), "let through to the coordinator");

    let sync = SyncGroupRequest {
        group_id: "other".into(),
        protocol_type: Some("consumer".into()),
        protocol_name: Some("range".into()),
        ..Default::default()
    };
    assert_eq!(call!(node, "alice", SyncGroup(sync), 5).error_code, GROUP_DENIED);
    let heartbeat = HeartbeatRequest { group_id: "other".into(), ..Default::default() };
    assert_eq!(call!(node, "alice", Heartbeat(heartbeat), 4).error_code, GROUP_DENIED);
    let leave = LeaveGroupRequest { group_id: "other".into(), ..Default::default() };
    assert_eq!(call!(node, "alice", LeaveGroup(leave), 5).error_code, GROUP_DENIED);

    let heartbeat = |group: &str, topics: &[&str]| ConsumerGroupHeartbeatRequest {
        group_id: group.into(),
        member_epoch: 0,
        rebalance_timeout_ms: 10_000,
        subscribed_topic_names: Some(topics.iter().map(|t| (*t).to_owned()).collect()),
        topic_partitions: Some(Vec::new()),
        ..Default::default()
    };
    let refused = call!(node, "alice", ConsumerGroupHeartbeat(heartbeat("other", &["orders"])), 0);
    assert_eq!(refused.error_code, GROUP_DENIED);
    let refused = call!(node, "alice", ConsumerGroupHeartbeat(heartbeat("g", &["orders", "secret"])), 0);
    assert_eq!(refused.error_code, TOPIC_DENIED);
    let joined = call!(node, "alice", ConsumerGroupHeartbeat(heartbeat("new-g", &["orders"])), 0);
    assert_eq!(joined.error_code, GROUP_DENIED, "a group the principal may not READ");
}

/// A subscription regex is resolved to the matching topics the member's principal may DESCRIBE,
/// as Kafka's `filterTopicDescribeAuthorizedTopics`: `secret` matches, but alice cannot describe
/// it, so it is neither assigned nor shown as subscribed.
#[tokio::test]
async fn a_regex_subscription_keeps_the_topics_the_member_may_describe() {
    let mut node = node().await;
    let heartbeat = ConsumerGroupHeartbeatRequest {
        group_id: "by-regex".into(),
        member_id: "member-1".into(),
        member_epoch: 0,
        rebalance_timeout_ms: 10_000,
        subscribed_topic_regex: Some("orders|secret".into()),
        topic_partitions: Some(Vec::new()),
        ..Default::default()
    };
    let joined = call!(node, "alice", ConsumerGroupHeartbeat(heartbeat), 1);
    assert_eq!(joined.error_code, 0, "{joined:?}");
    let describe = ConsumerGroupDescribeRequest { group_ids: vec!["by-regex".into()], ..Default::default() };
    let described = call!(node, "alice", ConsumerGroupDescribe(describe), 1);
    let member = &described.groups[0].members[0];
    let assigned: Vec<&str> = member.assignment.topic_partitions.iter().map(|t| t.topic_name.as_str()).collect();
    let target: Vec<&str> = member.target_assignment.topic_partitions.iter().map(|t| t.topic_name.as_str()).collect();
    assert_eq!((assigned, target), (vec!["orders"], vec!["orders"]));
}

/// OffsetCommit needs READ on the group and each topic; OffsetFetch DESCRIBE on each group and
/// topic (all of a group's offsets: the others left out); OffsetDelete DELETE on the group and
/// READ on each topic.
#[tokio::test]
async fn offsets_need_the_group_and_each_topic() {
    let mut node = node().await;
    let committed = call!(node, "alice", OffsetCommit(commit("g", &["orders", "secret"])), 9);
    assert_eq!(commit_codes(&committed), [0, TOPIC_DENIED]);
    let refused = call!(node, "alice", OffsetCommit(commit("other", &["orders", "secret"])), 9);
    assert_eq!(commit_codes(&refused), [GROUP_DENIED; 2]);

    let named = |group: &str| OffsetFetchRequestGroup {
        group_id: group.into(),
        topics: Some(
            ["secret", "orders"]
                .iter()
                .map(|name| OffsetFetchRequestTopics {
                    name: (*name).into(),
                    partition_indexes: vec![0],
                    ..Default::default()
                })
                .collect(),
        ),
        ..Default::default()
    };
    let all = OffsetFetchRequestGroup { group_id: "g".into(), topics: None, ..Default::default() };
    let request = OffsetFetchRequest { groups: vec![named("g"), named("other"), all], ..Default::default() };
    let fetched = call!(node, "alice", OffsetFetch(request), 9);
    let g = &fetched.groups[0];
    let topics: Vec<_> = g.topics.iter().map(|t| (t.name.as_str(), t.partitions[0].error_code)).collect();
    assert_eq!(topics, [("orders", 0), ("secret", TOPIC_DENIED)], "refused topics after the others");
    assert_eq!(g.topics[0].partitions[0].committed_offset, 1);
    assert_eq!((fetched.groups[1].group_id.as_str(), fetched.groups[1].error_code), ("other", GROUP_DENIED));
    let names: Vec<_> = fetched.groups[2].topics.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["orders"]);
    let old = OffsetFetchRequest { group_id: "other".into(), topics: None, ..Default::default() };
    assert_eq!(call!(node, "alice", OffsetFetch(old), 7).error_code, GROUP_DENIED);

    let delete = || OffsetDeleteRequest {
        group_id: "g".into(),
        topics: ["orders", "secret"]
            .iter()
            .map(|name| OffsetDeleteRequestTopic {
                name: (*name).into(),
                partitions: vec![OffsetDeleteRequestPartition { partition_index: 0 }],
            })
            .collect(),
    };
    assert_eq!(call!(node, "alice", OffsetDelete(delete()), 0).error_code, GROUP_DENIED);
    let deleted = call!(node, "bob", OffsetDelete(delete()), 0);
    let topics: Vec<_> = deleted.topics.iter().map(|t| (t.name.as_str(), t.partitions[0].error_code)).collect();
    assert_eq!((deleted.error_code, topics), (0, vec![("secret", TOPIC_DENIED), ("orders", 0)]));
}

/// DescribeGroups and ConsumerGroupDescribe need DESCRIBE on each group and report the
/// principal's operations; ListGroups shows the groups it may DESCRIBE (all, with DESCRIBE on
/// the cluster); DeleteGroups needs DELETE on each group.
#[tokio::test]
async fn group_admin_apis_check_each_group() {
    let mut node = node().await;
    let describe = DescribeGroupsRequest {
        groups: vec!["other".into(), "g".into()],
        include_authorized_operations: true,
        ..Default::default()
    };
    let described = call!(node, "alice", DescribeGroups(describe), 5);
    let groups: Vec<_> =
        described.groups.iter().map(|g| (g.group_id.as_str(), g.error_code, g.authorized_operations)).collect();
    assert_eq!(groups[0], ("other", GROUP_DENIED, i32::MIN));
    assert_eq!(groups[1], ("g", 0, 1 << 3 | 1 << 8), "READ and DESCRIBE");

    let describe = ConsumerGroupDescribeRequest { group_ids: vec!["other".into()], ..Default::default() };
    let described = call!(node, "alice", ConsumerGroupDescribe(describe), 0);
    assert_eq!(described.groups[0].error_code, GROUP_DENIED);

    let listed = |response: strand_protocol::messages::ListGroupsResponse| -> Vec<String> {
        let mut ids: Vec<String> = response.groups.into_iter().map(|g| g.group_id).collect();
        ids.sort();
        ids
    };
    assert_eq!(listed(call!(node, "alice", ListGroups(ListGroupsRequest::default()), 4)), ["g"]);
    assert_eq!(listed(call!(node, "carol", ListGroups(ListGroupsRequest::default()), 4)), ["g", "other"]);

    let delete = DeleteGroupsRequest { groups_names: vec!["other".into(), "g".into()], ..Default::default() };
    let deleted = call!(node, "bob", DeleteGroups(delete), 2);
    let results: Vec<_> = deleted.results.iter().map(|r| (r.group_id.as_str(), r.error_code)).collect();
    assert_eq!(results, [("other", GROUP_DENIED), ("g", 0)]);
}

/// A group named many times in one DeleteGroups is looked up, deleted and answered once, as
/// Kafka answers the distinct names: a repeat is not GROUP_ID_NOT_FOUND for the group the first
/// mention just deleted, and refusals are not repeated either.
#[tokio::test]
async fn delete_groups_answers_each_group_once() {
    let mut node = node().await;
    let names = ["g", "other", "g", "other", "g"].map(String::from).to_vec();
    let deleted =
        call!(node, "bob", DeleteGroups(DeleteGroupsRequest { groups_names: names, ..Default::default() }), 2);
    let results: Vec<_> = deleted.results.iter().map(|r| (r.group_id.as_str(), r.error_code)).collect();
    assert_eq!(results, [("g", 0), ("other", GROUP_DENIED)]);
}

/// FindCoordinator needs DESCRIBE on the group or transactional id it names.
#[tokio::test]
async fn find_coordinator_needs_describe_on_the_key() {
    let mut node = node().await;
    let find = |key_type: i8, keys: &[&str]| FindCoordinatorRequest {
        key_type,
        coordinator_keys: keys.iter().map(|k| (*k).to_owned()).collect(),
        ..Default::default()
    };
    let found = call!(node, "alice", FindCoordinator(find(0, &["g", "other"])), 4);
    let codes: Vec<_> = found.coordinators.iter().map(|c: &Coordinator| (c.error_code, c.node_id.0)).collect();
    assert_eq!(codes, [(0, 1), (GROUP_DENIED, -1)]);
    let found = call!(node, "alice", FindCoordinator(find(1, &["tx"])), 4);
    assert_eq!(found.coordinators[0].error_code, ErrorCode::TransactionalIdAuthorizationFailed.code());
    let old = FindCoordinatorRequest { key: "other".into(), key_type: 0, ..Default::default() };
    let refused = call!(node, "alice", FindCoordinator(old), 3);
    assert_eq!(
        (refused.error_code, refused.error_message.as_deref()),
        (GROUP_DENIED, Some("Group authorization failed."))
    );
}
