//! DeleteTopics, CreatePartitions, DescribeTopicPartitions and DescribeCluster through
//! `Broker::handle`: Kafka's error codes and fields, at every version served.

mod common;

use std::sync::atomic::Ordering;

use common::{NODE, Node, settings};
use strand_base::{BrokerId, Uuid};
use strand_metadata::controller::InitialFencing;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_partitions_request::CreatePartitionsTopic;
use strand_protocol::messages::delete_topics_request::DeleteTopicState;
use strand_protocol::messages::describe_topic_partitions_request::{Cursor, TopicRequest};
use strand_protocol::messages::{
    CreatePartitionsRequest, CreatePartitionsResponse, DeleteTopicsRequest, DeleteTopicsResponse,
    DescribeClusterRequest, DescribeClusterResponse, DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse,
};

const UNKNOWN_ID: Uuid = Uuid([0x77; 16]);

async fn delete(node: &mut Node, request: DeleteTopicsRequest, version: i16) -> DeleteTopicsResponse {
    match node.call(RequestBody::DeleteTopics(request), version).await {
        ResponseBody::DeleteTopics(r) => r,
        other => panic!("not a DeleteTopics response: {other:?}"),
    }
}

async fn create_partitions(
    node: &mut Node,
    request: CreatePartitionsRequest,
    version: i16,
) -> CreatePartitionsResponse {
    match node.call(RequestBody::CreatePartitions(request), version).await {
        ResponseBody::CreatePartitions(r) => r,
        other => panic!("not a CreatePartitions response: {other:?}"),
    }
}

async fn describe_partitions(
    node: &mut Node,
    request: DescribeTopicPartitionsRequest,
) -> DescribeTopicPartitionsResponse {
    match node.call(RequestBody::DescribeTopicPartitions(request), 0).await {
        ResponseBody::DescribeTopicPartitions(r) => r,
        other => panic!("not a DescribeTopicPartitions response: {other:?}"),
    }
}

async fn describe_cluster(node: &mut Node, request: DescribeClusterRequest, version: i16) -> DescribeClusterResponse {
    match node.call(RequestBody::DescribeCluster(request), version).await {
        ResponseBody::DescribeCluster(r) => r,
        other => panic!("not a DescribeCluster response: {other:?}"),
    }
}

fn by_names(names: &[&str]) -> DeleteTopicsRequest {
    DeleteTopicsRequest {
        topic_names: names.iter().map(|n| (*n).to_owned()).collect(),
        timeout_ms: 1000,
        ..Default::default()
    }
}

/// Topics deleted by name (v1-6) leave the image and this node's logs; an unknown name is
/// UNKNOWN_TOPIC_OR_PARTITION.
#[tokio::test]
async fn delete_topics_by_name_at_every_version() {
    for version in 1..=6 {
        let mut node = Node::new();
        node.create_topic("first", 2).await;
        assert_eq!(node.replicas.hosted().len(), 2);
        let request = if version < 6 {
            by_names(&["first", "nope"])
        } else {
            let state = |name: &str| DeleteTopicState { name: Some(name.to_owned()), ..Default::default() };
            DeleteTopicsRequest { topics: vec![state("first"), state("nope")], timeout_ms: 1000, ..Default::default() }
        };
        let response = delete(&mut node, request, version).await;
        let codes: Vec<(Option<&str>, i16)> =
            response.responses.iter().map(|r| (r.name.as_deref(), r.error_code)).collect();
        assert_eq!(
            codes,
            [(Some("nope"), ErrorCode::UnknownTopicOrPartition.code()), (Some("first"), 0)],
            "v{version}"
        );
        assert!(node.broker.image().topics().by_name("first").is_none(), "v{version}");
        assert!(node.replicas.hosted().is_empty(), "v{version}: the logs are deleted");
    }
}

/// v6 deletes by id; an unknown id is UNKNOWN_TOPIC_ID, and an entry with both or neither of
/// name and id is INVALID_REQUEST.
#[tokio::test]
async fn delete_topics_by_id() {
    let mut node = Node::new();
    let id = node.create_topic("first", 1).await;
    let state = |name: Option<&str>, topic_id: Uuid| DeleteTopicState {
        name: name.map(str::to_owned),
        topic_id,
        ..Default::default()
    };
    let request = DeleteTopicsRequest {
        topics: vec![state(None, id), state(None, UNKNOWN_ID), state(Some("x"), UNKNOWN_ID), state(None, Uuid::ZERO)],
        timeout_ms: 1000,
        ..Default::default()
    };
    let response = delete(&mut node, request, 6).await;
    let mut codes: Vec<(Option<&str>, Uuid, i16)> =
        response.responses.iter().map(|r| (r.name.as_deref(), r.topic_id, r.error_code)).collect();
    codes.sort();
    let mut expected = vec![
        (None, Uuid::ZERO, ErrorCode::InvalidRequest.code()),
        (None, UNKNOWN_ID, ErrorCode::UnknownTopicId.code()),
        (Some("first"), id, 0),
        (Some("x"), UNKNOWN_ID, ErrorCode::InvalidRequest.code()),
    ];
    expected.sort();
    assert_eq!(codes, expected);
    assert!(node.broker.image().topics().by_id(id).is_none());
}

/// With `delete.topic.enable=false` every topic is refused: INVALID_REQUEST before v3,
/// TOPIC_DELETION_DISABLED from v3; nothing is deleted.
#[tokio::test]
async fn delete_topics_disabled() {
    for (version, code) in [
        (1, ErrorCode::InvalidRequest),
        (2, ErrorCode::InvalidRequest),
        (3, ErrorCode::TopicDeletionDisabled),
        (6, ErrorCode::TopicDeletionDisabled),
    ] {
        let mut node = Node::with_settings(strand_broker::BrokerSettings { delete_topic_enable: false, ..settings() });
        node.create_topic("first", 1).await;
        let request = if version < 6 {
            by_names(&["first"])
        } else {
            let state = DeleteTopicState { name: Some("first".to_owned()), ..Default::default() };
            DeleteTopicsRequest { topics: vec![state], timeout_ms: 1000, ..Default::default() }
        };
        let response = delete(&mut node, request, version).await;
        let codes: Vec<i16> = response.responses.iter().map(|r| r.error_code).collect();
        assert_eq!(codes, [code.code()], "v{version}");
        assert!(node.broker.image().topics().by_name("first").is_some());
    }
}

/// A commit that fails (no quorum) turns the successes into REQUEST_TIMED_OUT.
#[tokio::test]
async fn failed_commit_is_request_timed_out() {
    let mut node = Node::new();
    node.create_topic("first", 1).await;
    node.writer.failing.store(true, Ordering::SeqCst);
    let response = delete(&mut node, by_names(&["first", "nope"]), 5).await;
    let codes: Vec<i16> = response.responses.iter().map(|r| r.error_code).collect();
    assert_eq!(codes, [ErrorCode::UnknownTopicOrPartition.code(), ErrorCode::RequestTimedOut.code()]);
}

fn grow(name: &str, count: i32) -> CreatePartitionsTopic {
    CreatePartitionsTopic { name: name.to_owned(), count, assignments: None, ..Default::default() }
}

/// CreatePartitions grows a topic; an equal or smaller count is INVALID_PARTITIONS with Kafka's
/// messages, an unknown topic UNKNOWN_TOPIC_OR_PARTITION, and `validate_only` changes nothing.
#[tokio::test]
async fn create_partitions_at_every_version() {
    struct Case {
        topic: CreatePartitionsTopic,
        validate_only: bool,
        code: ErrorCode,
        message: Option<&'static str>,
        partitions_after: usize,
    }
    let cases = [
        Case {
            topic: grow("first", 5),
            validate_only: false,
            code: ErrorCode::None,
            message: None,
            partitions_after: 5,
        },
        Case {
            topic: grow("first", 5),
            validate_only: false,
            code: ErrorCode::InvalidPartitions,
            message: Some("Topic already has 5 partition(s)."),
            partitions_after: 5,
        },
        Case {
            topic: grow("first", 2),
            validate_only: false,
            code: ErrorCode::InvalidPartitions,
            message: Some("The topic first currently has 5 partition(s); 2 would not be an increase."),
            partitions_after: 5,
        },
        Case {
            topic: grow("first", 8),
            validate_only: true,
            code: ErrorCode::None,
            message: None,
            partitions_after: 5,
        },
        Case {
            topic: grow("nope", 8),
            validate_only: false,
            code: ErrorCode::UnknownTopicOrPartition,
            message: None,
            partitions_after: 5,
        },
    ];
    for version in 0..=3 {
        let mut node = Node::new();
        node.create_topic("first", 3).await;
        for case in &cases {
            let request = CreatePartitionsRequest {
                topics: vec![case.topic.clone()],
                timeout_ms: 1000,
                validate_only: case.validate_only,
                ..Default::default()
            };
            let response = create_partitions(&mut node, request, version).await;
            let result = &response.results[0];
            let label = format!("v{version} {} -> {}", case.topic.name, case.topic.count);
            assert_eq!(
                (result.error_code, result.error_message.as_deref()),
                (case.code.code(), case.message),
                "{label}"
            );
            let image = node.broker.image();
            assert_eq!(
                image.topics().by_name("first").map(|t| t.partitions.len()),
                Some(case.partitions_after),
                "{label}"
            );
        }
        assert_eq!(node.replicas.hosted().len(), 5, "v{version}: the new partitions are hosted");
    }
}

fn describe_request(topics: &[&str], limit: i32, cursor: Option<(&str, i32)>) -> DescribeTopicPartitionsRequest {
    DescribeTopicPartitionsRequest {
        topics: topics.iter().map(|name| TopicRequest { name: (*name).to_owned(), ..Default::default() }).collect(),
        response_partition_limit: limit,
        cursor: cursor.map(|(topic_name, partition_index)| Cursor {
            topic_name: topic_name.to_owned(),
            partition_index,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// What a page holds: (topic, error, partition indexes), and the next cursor.
type PageSummary = (Vec<(String, i16, Vec<i32>)>, Option<(String, i32)>);

fn summary(response: &DescribeTopicPartitionsResponse) -> PageSummary {
    let topics = response
        .topics
        .iter()
        .map(|t| {
            (t.name.clone().unwrap_or_default(), t.error_code, t.partitions.iter().map(|p| p.partition_index).collect())
        })
        .collect();
    (topics, response.next_cursor.as_ref().map(|c| (c.topic_name.clone(), c.partition_index)))
}

fn page(topics: &[(&str, i16, &[i32])], next: Option<(&str, i32)>) -> PageSummary {
    (
        topics.iter().map(|(name, code, partitions)| ((*name).to_owned(), *code, partitions.to_vec())).collect(),
        next.map(|(t, p)| (t.to_owned(), p)),
    )
}

/// Pages follow Kafka's cursor rules: name order, the limit counted in partitions, the next
/// cursor at the first partition left out (or at the next topic when a topic ended exactly at
/// the limit); unknown and illegal names are answered per topic, bad cursors fail the request.
#[tokio::test]
async fn describe_topic_partitions_pages() {
    let mut node = Node::new();
    node.create_topic("b", 2).await;
    node.create_topic("a", 3).await;
    node.create_topic("c", 1).await;
    let unknown = ErrorCode::UnknownTopicOrPartition.code();
    let invalid_request = ErrorCode::InvalidRequest.code();
    let cases: Vec<(DescribeTopicPartitionsRequest, PageSummary)> = vec![
        (describe_request(&[], 2000, None), page(&[("a", 0, &[0, 1, 2]), ("b", 0, &[0, 1]), ("c", 0, &[0])], None)),
        (describe_request(&[], 2, None), page(&[("a", 0, &[0, 1])], Some(("a", 2)))),
        (describe_request(&[], 2, Some(("a", 2))), page(&[("a", 0, &[2]), ("b", 0, &[0])], Some(("b", 1)))),
        (describe_request(&[], 1, Some(("b", 1))), page(&[("b", 0, &[1])], Some(("c", 0)))),
        (describe_request(&[], 0, Some(("c", 0))), page(&[("c", 0, &[0])], None)),
        (
            describe_request(&["c", "zz", "a"], 2000, None),
            page(&[("a", 0, &[0, 1, 2]), ("c", 0, &[0]), ("zz", unknown, &[])], None),
        ),
        (describe_request(&["c", "a"], 2000, Some(("c", 0))), page(&[("c", 0, &[0])], None)),
        (
            describe_request(&["bad name"], 2000, None),
            page(&[("bad name", ErrorCode::InvalidTopicException.code(), &[])], None),
        ),
        (describe_request(&["a"], 2000, Some(("b", 0))), page(&[("a", invalid_request, &[])], None)),
        (describe_request(&["a"], 2000, Some(("a", -1))), page(&[("a", invalid_request, &[])], None)),
    ];
    for (request, expected) in cases {
        let label = format!("{request:?}");
        assert_eq!(summary(&describe_partitions(&mut node, request).await), expected, "{label}");
    }
}

/// Each partition carries its leader, epoch, replicas, ISR and (empty, not null) ELR lists;
/// a replica on a fenced broker is offline, and a fenced leader is reported as none.
#[tokio::test]
async fn describe_topic_partitions_fields() {
    let mut node = Node::new();
    let id = node.create_topic("first", 1).await;
    node.register(2, InitialFencing::Unfenced);
    node.create_assigned("second", &[&[2, 1]]).await;
    node.fence(2);
    let response = describe_partitions(&mut node, describe_request(&["first", "second"], 2000, None)).await;
    let first = &response.topics[0];
    assert_eq!((first.topic_id, first.is_internal, first.error_code), (id, false, 0));
    assert_eq!(first.topic_authorized_operations, 3576, "every topic operation, as Kafka without an authorizer");
    let p = &first.partitions[0];
    assert_eq!((p.leader_id, p.leader_epoch), (NODE, 0));
    assert_eq!((p.replica_nodes.as_slice(), p.isr_nodes.as_slice()), ([NODE].as_slice(), [NODE].as_slice()));
    assert_eq!(
        (p.eligible_leader_replicas.as_deref(), p.last_known_elr.as_deref()),
        (Some([].as_slice()), Some([].as_slice()))
    );
    assert!(p.offline_replicas.is_empty());
    let second = &response.topics[1].partitions[0];
    assert_eq!(second.replica_nodes, [BrokerId(2), NODE]);
    assert_eq!(second.offline_replicas, [BrokerId(2)]);
    assert_eq!(second.leader_id, BrokerId(-1), "the leader, broker 2, is fenced");
}

/// DescribeCluster lists the unfenced brokers on the client's listener (fenced ones too, marked,
/// when v2 asks), this node as controller, and refuses controller endpoint types.
#[tokio::test]
async fn describe_cluster_at_every_version() {
    let mut node = Node::new();
    node.register(3, InitialFencing::Fenced);
    for version in 0..=2 {
        let response = describe_cluster(&mut node, DescribeClusterRequest::default(), version).await;
        assert_eq!((response.error_code, response.cluster_id.as_str()), (0, common::CLUSTER_ID), "v{version}");
        assert_eq!((response.controller_id, response.endpoint_type), (NODE, 1), "v{version}");
        let brokers: Vec<(BrokerId, &str, i32, bool)> =
            response.brokers.iter().map(|b| (b.broker_id, b.host.as_str(), b.port, b.is_fenced)).collect();
        assert_eq!(brokers, [(NODE, "host-1", 9092, false)], "v{version}");
        assert_eq!(response.cluster_authorized_operations, i32::MIN, "v{version}");
    }
    let request = DescribeClusterRequest {
        include_fenced_brokers: true,
        include_cluster_authorized_operations: true,
        ..Default::default()
    };
    let response = describe_cluster(&mut node, request, 2).await;
    let brokers: Vec<(BrokerId, bool)> = response.brokers.iter().map(|b| (b.broker_id, b.is_fenced)).collect();
    assert_eq!(brokers, [(NODE, false), (BrokerId(3), true)]);
    assert_eq!(response.cluster_authorized_operations, 8096);
    for (endpoint_type, code) in [
        (2, ErrorCode::MismatchedEndpointType),
        (0, ErrorCode::UnsupportedEndpointType),
        (9, ErrorCode::UnsupportedEndpointType),
    ] {
        let request = DescribeClusterRequest { endpoint_type, ..Default::default() };
        let response = describe_cluster(&mut node, request, 1).await;
        assert_eq!(response.error_code, code.code(), "endpoint type {endpoint_type}");
        assert!(response.brokers.is_empty());
    }
}
