//! The metadata APIs: Metadata (what is left out, what is refused, auto-creation, authorized
//! operations), DescribeTopicPartitions, DescribeCluster.

use std::sync::Arc;

use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::describe_topic_partitions_request::TopicRequest;
use strand_protocol::messages::metadata_request::MetadataRequestTopic;
use strand_protocol::messages::{
    DescribeClusterRequest, DescribeQuorumRequest, DescribeTopicPartitionsRequest, MetadataRequest,
    RemoveRaftVoterRequest,
};
use strand_security::acl::{AclOperation, CLUSTER_NAME, ResourceType};

use crate::common::{Node, TableAuthorizer};

const DENIED: i16 = ErrorCode::TopicAuthorizationFailed.code();
/// DESCRIBE alone, as a field of operation codes.
const DESCRIBE_ONLY: i32 = 1 << 8;

/// `orders` and `secret` exist, auto-creation is on. alice may DESCRIBE `orders`, `newbie` and
/// `uncreatable`, and CREATE `newbie`; carol may DESCRIBE and ALTER the cluster.
async fn node() -> (Node, Uuid) {
    let settings = strand_broker::BrokerSettings { auto_create_topics: true, ..crate::common::settings() };
    let mut node = Node::with_settings(settings);
    node.create_topic("orders", 1).await;
    let secret = node.create_topic("secret", 1).await;
    let table = TableAuthorizer::default()
        .allow("alice", AclOperation::Describe, ResourceType::Topic, "orders")
        .allow("alice", AclOperation::Describe, ResourceType::Topic, "newbie")
        .allow("alice", AclOperation::Create, ResourceType::Topic, "newbie")
        .allow("alice", AclOperation::Describe, ResourceType::Topic, "uncreatable")
        .allow("carol", AclOperation::Describe, ResourceType::Cluster, CLUSTER_NAME)
        .allow("carol", AclOperation::Alter, ResourceType::Cluster, CLUSTER_NAME);
    (node.with_authorizer(Arc::new(table)), secret)
}

fn named(names: &[&str]) -> Option<Vec<MetadataRequestTopic>> {
    Some(names.iter().map(|name| MetadataRequestTopic { name: Some((*name).into()), ..Default::default() }).collect())
}

/// A topic the principal may not DESCRIBE is left out of "all topics" and, named, refused
/// whether or not it exists (no id, no partitions); asked by id, the id is echoed.
#[tokio::test]
async fn metadata_hides_what_cannot_be_described() {
    let (mut node, secret) = node().await;
    let all = call!(node, "alice", Metadata(MetadataRequest { topics: None, ..Default::default() }), 12);
    let names: Vec<_> = all.topics.iter().map(|t| t.name.clone().unwrap_or_default()).collect();
    assert_eq!(names, ["orders"]);

    let request = MetadataRequest { topics: named(&["orders", "secret", "ghost"]), ..Default::default() };
    let answered = call!(node, "alice", Metadata(request), 12);
    let summary: Vec<_> =
        answered.topics.iter().map(|t| (t.name.clone(), t.error_code, t.topic_id, t.partitions.len())).collect();
    assert_eq!(summary[0].1, 0);
    assert_eq!(summary[1], (Some("secret".into()), DENIED, Uuid::ZERO, 0), "exists, not revealed");
    assert_eq!(summary[2], (Some("ghost".into()), DENIED, Uuid::ZERO, 0), "does not exist, same answer");

    let by_id = MetadataRequest {
        topics: Some(vec![MetadataRequestTopic { topic_id: secret, name: None, ..Default::default() }]),
        ..Default::default()
    };
    let answered = call!(node, "alice", Metadata(by_id), 12);
    let topic = &answered.topics[0];
    assert_eq!((topic.name.clone(), topic.error_code, topic.topic_id), (None, DENIED, secret));
}

/// Auto-creation needs CREATE on the cluster or the topic; the rest is refused, not created.
#[tokio::test]
async fn metadata_auto_creation_needs_create() {
    let (mut node, _) = node().await;
    let request = MetadataRequest {
        topics: named(&["newbie", "uncreatable"]),
        allow_auto_topic_creation: true,
        ..Default::default()
    };
    let answered = call!(node, "alice", Metadata(request), 12);
    assert_eq!(answered.topics[0].error_code, 0, "{:?}", answered.topics[0]);
    assert_eq!(answered.topics[1].error_code, DENIED);
    let image = node.broker.image();
    assert!(image.topics().by_name("newbie").is_some());
    assert!(image.topics().by_name("uncreatable").is_none());
}

/// `include_*_authorized_operations` report the principal's operations, not every operation.
#[tokio::test]
async fn authorized_operations_are_the_principals() {
    let (mut node, _) = node().await;
    let request = || MetadataRequest {
        topics: named(&["orders"]),
        include_cluster_authorized_operations: true,
        include_topic_authorized_operations: true,
        ..Default::default()
    };
    let alice = call!(node, "alice", Metadata(request()), 10);
    assert_eq!((alice.topics[0].topic_authorized_operations, alice.cluster_authorized_operations), (DESCRIBE_ONLY, 0));
    let carol = call!(node, "carol", Metadata(request()), 10);
    assert_eq!(carol.cluster_authorized_operations, DESCRIBE_ONLY | 1 << 7);

    let cluster = || DescribeClusterRequest { include_cluster_authorized_operations: true, ..Default::default() };
    assert_eq!(call!(node, "alice", DescribeCluster(cluster()), 1).cluster_authorized_operations, 0);
    assert_eq!(
        call!(node, "carol", DescribeCluster(cluster()), 1).cluster_authorized_operations,
        DESCRIBE_ONLY | 1 << 7
    );
}

/// DescribeTopicPartitions: undescribable topics left out of "every topic", refused when named.
#[tokio::test]
async fn describe_topic_partitions_hides_what_cannot_be_described() {
    let (mut node, _) = node().await;
    let request = |names: &[&str]| DescribeTopicPartitionsRequest {
        topics: names.iter().map(|name| TopicRequest { name: (*name).into(), ..Default::default() }).collect(),
        response_partition_limit: 100,
        ..Default::default()
    };
    let all = call!(node, "alice", DescribeTopicPartitions(request(&[])), 0);
    let summary: Vec<_> =
        all.topics.iter().map(|t| (t.name.clone().unwrap_or_default(), t.topic_authorized_operations)).collect();
    assert_eq!(summary, [("orders".to_owned(), DESCRIBE_ONLY)]);

    let named = call!(node, "alice", DescribeTopicPartitions(request(&["secret", "orders"])), 0);
    let summary: Vec<_> = named.topics.iter().map(|t| (t.name.clone().unwrap_or_default(), t.error_code)).collect();
    assert_eq!(summary, [("orders".to_owned(), 0), ("secret".to_owned(), DENIED)]);
    assert!(named.topics[1].partitions.is_empty() && named.topics[1].topic_id == Uuid::ZERO);
}

/// The quorum's admin APIs: DescribeQuorum needs DESCRIBE on the cluster and RemoveRaftVoter
/// ALTER (Kafka's controller checks); a refusal is CLUSTER_AUTHORIZATION_FAILED at the top.
#[tokio::test]
async fn quorum_admin_needs_the_cluster() {
    let (mut node, _) = node().await;
    let quorum = || DescribeQuorumRequest::default();
    let refused = call!(node, "alice", DescribeQuorum(quorum()), 2);
    assert_eq!(refused.error_code, ErrorCode::ClusterAuthorizationFailed.code());
    assert_ne!(call!(node, "carol", DescribeQuorum(quorum()), 2).error_code, refused.error_code);

    let remove =
        || RemoveRaftVoterRequest { cluster_id: None, voter_directory_id: Uuid([1; 16]), ..Default::default() };
    let refused = call!(node, "alice", RemoveRaftVoter(remove()), 0);
    assert_eq!(refused.error_code, ErrorCode::ClusterAuthorizationFailed.code());
    assert_eq!(call!(node, "carol", RemoveRaftVoter(remove()), 0).error_code, ErrorCode::UnsupportedVersion.code());
}
