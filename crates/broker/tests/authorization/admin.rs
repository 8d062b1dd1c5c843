//! The admin APIs: CreateTopics, DeleteTopics, CreatePartitions, the config APIs and those that
//! need an operation on the cluster.

use std::sync::Arc;

use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_configs_request::{AlterConfigsResource, AlterableConfig};
use strand_protocol::messages::alter_partition_reassignments_request::{ReassignablePartition, ReassignableTopic};
use strand_protocol::messages::alter_replica_log_dirs_request::{AlterReplicaLogDir, AlterReplicaLogDirTopic};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_partitions_request::CreatePartitionsTopic;
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::delete_topics_request::DeleteTopicState;
use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
use strand_protocol::messages::incremental_alter_configs_request as incremental;
use strand_protocol::messages::{
    AlterConfigsRequest, AlterPartitionReassignmentsRequest, AlterReplicaLogDirsRequest, CreatePartitionsRequest,
    CreateTopicsRequest, DeleteTopicsRequest, DescribeClientQuotasRequest, DescribeConfigsRequest,
    DescribeLogDirsRequest, DescribeUserScramCredentialsRequest, IncrementalAlterConfigsRequest,
    ListPartitionReassignmentsRequest, UnregisterBrokerRequest,
};
use strand_security::acl::{AclOperation, CLUSTER_NAME, ResourceType};

use crate::common::{Node, TableAuthorizer};

const TOPIC_DENIED: i16 = ErrorCode::TopicAuthorizationFailed.code();
const CLUSTER_DENIED: i16 = ErrorCode::ClusterAuthorizationFailed.code();
const TOPIC: i8 = 2;
const BROKER: i8 = 4;

/// `orders` and `secret` exist. alice may CREATE `fresh`, DESCRIBE and ALTER `orders`,
/// DESCRIBE `ghost`, DESCRIBE_CONFIGS and ALTER_CONFIGS `orders`; bob may DESCRIBE and DELETE
/// `orders`; carol may CREATE, ALTER, DESCRIBE and DESCRIBE_CONFIGS the cluster and
/// DESCRIBE_CONFIGS and ALTER `made`.
async fn node() -> (Node, Uuid) {
    let mut node = Node::new();
    node.create_topic("orders", 1).await;
    let secret = node.create_topic("secret", 1).await;
    let mut table = TableAuthorizer::default()
        .allow("alice", AclOperation::Create, ResourceType::Topic, "fresh")
        .allow("alice", AclOperation::Describe, ResourceType::Topic, "ghost")
        .allow("bob", AclOperation::Describe, ResourceType::Topic, "orders")
        .allow("bob", AclOperation::Delete, ResourceType::Topic, "orders")
        .allow("carol", AclOperation::DescribeConfigs, ResourceType::Topic, "made")
        .allow("carol", AclOperation::Alter, ResourceType::Topic, "made");
    for operation in
        [AclOperation::Describe, AclOperation::Alter, AclOperation::DescribeConfigs, AclOperation::AlterConfigs]
    {
        table = table.allow("alice", operation, ResourceType::Topic, "orders");
    }
    for operation in [AclOperation::Create, AclOperation::Alter, AclOperation::Describe, AclOperation::DescribeConfigs]
    {
        table = table.allow("carol", operation, ResourceType::Cluster, CLUSTER_NAME);
    }
    (node.with_authorizer(Arc::new(table)), secret)
}

/// CreateTopics needs CREATE on the cluster or the topic (and DESCRIBE_CONFIGS to see the new
/// topic's configs); DeleteTopics DELETE, never revealing a topic that cannot be described;
/// CreatePartitions ALTER.
#[tokio::test]
async fn topic_admin_needs_create_delete_and_alter() {
    let (mut node, secret) = node().await;
    let create = |names: &[&str]| CreateTopicsRequest {
        topics: (names.iter())
            .map(|name| CreatableTopic {
                name: (*name).into(),
                num_partitions: 1,
                replication_factor: 1,
                ..Default::default()
            })
            .collect(),
        timeout_ms: 1000,
        ..Default::default()
    };
    let created = call!(node, "alice", CreateTopics(create(&["fresh", "other"])), 7);
    let fresh = created.topics.iter().find(|t| t.name == "fresh").expect("fresh");
    assert_eq!((fresh.error_code, fresh.topic_config_error_code, fresh.num_partitions), (0, TOPIC_DENIED, -1));
    assert_eq!(fresh.configs.as_ref().map(Vec::len), Some(0), "configs hidden without DESCRIBE_CONFIGS");
    let other = created.topics.iter().find(|t| t.name == "other").expect("other");
    assert_eq!((other.error_code, other.error_message.as_deref()), (TOPIC_DENIED, Some("Authorization failed.")));
    assert!(node.broker.image().topics().by_name("other").is_none());
    let made = call!(node, "carol", CreateTopics(create(&["made"])), 7);
    assert_eq!(
        (made.topics[0].error_code, made.topics[0].topic_config_error_code, made.topics[0].num_partitions),
        (0, 0, 1)
    );

    let delete = |names: &[&str]| DeleteTopicsRequest {
        topics: (names.iter())
            .map(|name| DeleteTopicState { name: Some((*name).into()), topic_id: Uuid::ZERO, ..Default::default() })
            .collect(),
        timeout_ms: 1000,
        ..Default::default()
    };
    let refused = call!(node, "alice", DeleteTopics(delete(&["orders", "secret", "ghost"])), 6);
    let answers = |response: &strand_protocol::messages::DeleteTopicsResponse, name: &str| {
        response.responses.iter().find(|r| r.name.as_deref() == Some(name)).map(|r| r.error_code)
    };
    assert_eq!(answers(&refused, "orders"), Some(TOPIC_DENIED), "describable, not deletable");
    assert_eq!(answers(&refused, "secret"), Some(TOPIC_DENIED), "not describable");
    assert_eq!(answers(&refused, "ghost"), Some(ErrorCode::UnknownTopicOrPartition.code()), "describable, absent");
    let by_id = DeleteTopicsRequest {
        topics: vec![DeleteTopicState { name: None, topic_id: secret, ..Default::default() }],
        timeout_ms: 1000,
        ..Default::default()
    };
    let refused = call!(node, "alice", DeleteTopics(by_id), 6);
    assert_eq!((refused.responses[0].name.clone(), refused.responses[0].error_code), (None, TOPIC_DENIED));
    assert_eq!(answers(&call!(node, "bob", DeleteTopics(delete(&["orders"])), 6), "orders"), Some(0));

    let partitions = CreatePartitionsRequest {
        topics: (["secret", "made"].iter())
            .map(|name| CreatePartitionsTopic { name: (*name).into(), count: 2, ..Default::default() })
            .collect(),
        timeout_ms: 1000,
        ..Default::default()
    };
    let grown = call!(node, "alice", CreatePartitions(partitions.clone()), 3);
    assert!(grown.results.iter().all(|r| r.error_code == TOPIC_DENIED));
    let grown = call!(node, "carol", CreatePartitions(partitions), 3);
    let codes: Vec<_> = grown.results.iter().map(|r| (r.name.as_str(), r.error_code)).collect();
    assert!(codes.contains(&("secret", TOPIC_DENIED)), "{codes:?}");
    assert!(codes.iter().any(|&(name, code)| name == "made" && code != TOPIC_DENIED), "let through: {codes:?}");
}

/// DescribeConfigs needs DESCRIBE_CONFIGS, AlterConfigs and IncrementalAlterConfigs
/// ALTER_CONFIGS: on the topic for a topic, on the cluster for a broker.
#[tokio::test]
async fn configs_need_describe_and_alter_configs() {
    let (mut node, _) = node().await;
    let resources = [(TOPIC, "orders"), (TOPIC, "secret"), (BROKER, "1")];
    let describe = DescribeConfigsRequest {
        resources: (resources.iter())
            .map(|(resource_type, name)| DescribeConfigsResource {
                resource_type: *resource_type,
                resource_name: (*name).into(),
                configuration_keys: None,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let described = call!(node, "alice", DescribeConfigs(describe), 4);
    let codes: Vec<_> = described.results.iter().map(|r| r.error_code).collect();
    assert_eq!(codes, [0, TOPIC_DENIED, CLUSTER_DENIED]);
    assert!(described.results[1].configs.is_empty());

    let by_name = |responses: Vec<(String, i16)>| {
        let mut responses = responses;
        responses.sort();
        responses
    };
    let expected = by_name(vec![("1".into(), CLUSTER_DENIED), ("orders".into(), 0), ("secret".into(), TOPIC_DENIED)]);
    let alter = AlterConfigsRequest {
        resources: (resources.iter())
            .map(|(resource_type, name)| AlterConfigsResource {
                resource_type: *resource_type,
                resource_name: (*name).into(),
                configs: vec![AlterableConfig {
                    name: "retention.ms".into(),
                    value: Some("1000".into()),
                    ..Default::default()
                }],
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let altered = call!(node, "alice", AlterConfigs(alter), 2);
    assert_eq!(by_name(altered.responses.iter().map(|r| (r.resource_name.clone(), r.error_code)).collect()), expected);

    let incremental = IncrementalAlterConfigsRequest {
        resources: (resources.iter())
            .map(|(resource_type, name)| incremental::AlterConfigsResource {
                resource_type: *resource_type,
                resource_name: (*name).into(),
                configs: vec![incremental::AlterableConfig {
                    name: "retention.ms".into(),
                    config_operation: 0,
                    value: Some("2000".into()),
                    ..Default::default()
                }],
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let altered = call!(node, "alice", IncrementalAlterConfigs(incremental), 1);
    assert_eq!(by_name(altered.responses.iter().map(|r| (r.resource_name.clone(), r.error_code)).collect()), expected);
}

/// Reassignments, log dirs, SCRAM credentials, client quotas and unregistering a broker need
/// ALTER, DESCRIBE or DESCRIBE_CONFIGS on the cluster.
#[tokio::test]
async fn cluster_apis_need_their_cluster_operation() {
    let (mut node, _) = node().await;
    let reassign = || AlterPartitionReassignmentsRequest {
        timeout_ms: 1000,
        topics: vec![ReassignableTopic {
            name: "orders".into(),
            partitions: vec![ReassignablePartition { partition_index: 0, replicas: None, ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let refused = call!(node, "alice", AlterPartitionReassignments(reassign()), 0);
    assert_eq!((refused.error_code, refused.responses[0].partitions[0].error_code), (CLUSTER_DENIED, CLUSTER_DENIED));
    assert_ne!(call!(node, "carol", AlterPartitionReassignments(reassign()), 0).error_code, CLUSTER_DENIED);

    let list = || ListPartitionReassignmentsRequest { timeout_ms: 1000, topics: None, ..Default::default() };
    assert_eq!(call!(node, "alice", ListPartitionReassignments(list()), 0).error_code, CLUSTER_DENIED);
    assert_eq!(call!(node, "carol", ListPartitionReassignments(list()), 0).error_code, 0);

    let dirs = || DescribeLogDirsRequest { topics: None, ..Default::default() };
    let refused = call!(node, "alice", DescribeLogDirs(dirs()), 4);
    assert_eq!((refused.error_code, refused.results.len()), (CLUSTER_DENIED, 0));
    assert_eq!(call!(node, "carol", DescribeLogDirs(dirs()), 4).error_code, 0);

    let move_dirs = || AlterReplicaLogDirsRequest {
        dirs: vec![AlterReplicaLogDir {
            path: "/not/a/log/dir".into(),
            topics: vec![AlterReplicaLogDirTopic { name: "orders".into(), partitions: vec![0], ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let refused = call!(node, "alice", AlterReplicaLogDirs(move_dirs()), 2);
    assert_eq!(refused.results[0].partitions[0].error_code, CLUSTER_DENIED);
    let answered = call!(node, "carol", AlterReplicaLogDirs(move_dirs()), 2);
    assert_eq!(answered.results[0].partitions[0].error_code, ErrorCode::LogDirNotFound.code());

    let scram = || DescribeUserScramCredentialsRequest { users: None, ..Default::default() };
    assert_eq!(call!(node, "alice", DescribeUserScramCredentials(scram()), 0).error_code, CLUSTER_DENIED);
    assert_eq!(call!(node, "carol", DescribeUserScramCredentials(scram()), 0).error_code, 0);

    let quotas = || DescribeClientQuotasRequest::default();
    assert_eq!(call!(node, "alice", DescribeClientQuotas(quotas()), 1).error_code, CLUSTER_DENIED);
    assert_eq!(call!(node, "carol", DescribeClientQuotas(quotas()), 1).error_code, 0);

    let unregister = || UnregisterBrokerRequest { broker_id: strand_base::BrokerId(7), ..Default::default() };
    let refused = call!(node, "alice", UnregisterBroker(unregister()), 0);
    assert_eq!((refused.error_code, refused.error_message), (CLUSTER_DENIED, None));
    let decided = call!(node, "carol", UnregisterBroker(unregister()), 0);
    assert_eq!(decided.error_code, ErrorCode::BrokerIdNotRegistered.code(), "the controller decided: {decided:?}");
}
