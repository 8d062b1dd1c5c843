//! The partition APIs: Produce, Fetch (consumers and followers), ListOffsets,
//! OffsetForLeaderEpoch, DeleteRecords, DescribeProducers.

use std::sync::Arc;

use bytes::Bytes;
use strand_base::{BrokerId, ProducerId, TopicPartition};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::delete_records_request::{DeleteRecordsPartition, DeleteRecordsTopic};
use strand_protocol::messages::describe_producers_request::TopicRequest;
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use strand_protocol::messages::offset_for_leader_epoch_request::{OffsetForLeaderPartition, OffsetForLeaderTopic};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::{
    DeleteRecordsRequest, DescribeProducersRequest, FetchRequest, ListOffsetsRequest, OffsetForLeaderEpochRequest,
    ProduceRequest,
};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};
use strand_security::acl::{AclOperation, CLUSTER_NAME, ResourceType};

use crate::common::{Node, TableAuthorizer};

const TOPICS: [&str; 3] = ["orders", "secret", "missing"];
const DENIED: i16 = ErrorCode::TopicAuthorizationFailed.code();
const UNKNOWN: i16 = ErrorCode::UnknownTopicOrPartition.code();

/// `orders` and `secret` exist (one partition each, one record in `orders`); alice may do
/// everything on `orders`, bob only on `missing` (which does not exist), `broker` is a broker.
async fn node() -> Node {
    let mut node = Node::new();
    node.create_topic("orders", 1).await;
    node.create_topic("secret", 1).await;
    node.append(&TopicPartition::new("orders", 0), 0);
    let mut table =
        TableAuthorizer::default().allow("broker", AclOperation::ClusterAction, ResourceType::Cluster, CLUSTER_NAME);
    for operation in [AclOperation::Read, AclOperation::Write, AclOperation::Describe, AclOperation::Delete] {
        table = table.allow("alice", operation, ResourceType::Topic, "orders");
        table = table.allow("bob", operation, ResourceType::Topic, "missing");
    }
    node.with_authorizer(Arc::new(table))
}

fn batch(transactional: bool) -> Bytes {
    let builder = RecordBatchBuilder::new().producer(ProducerId(5), 0, 0);
    let mut builder = if transactional { builder.transactional() } else { builder };
    builder.append(&NewRecord { timestamp_ms: 1_000, key: None, value: Some(b"v"), headers: &[] }).expect("record");
    builder.build().expect("batch")
}

fn produce(transactional_id: Option<&str>, records: Bytes) -> ProduceRequest {
    let topic = |name: &str| TopicProduceData {
        name: name.into(),
        partition_data: vec![PartitionProduceData { index: 0, records: Some(records.clone()), ..Default::default() }],
        ..Default::default()
    };
    ProduceRequest {
        transactional_id: transactional_id.map(str::to_owned),
        acks: 1,
        timeout_ms: 1000,
        topic_data: TOPICS.iter().map(|name| topic(name)).collect(),
        ..Default::default()
    }
}

/// Produce needs WRITE on each topic, asked before the topic is looked up (a denied name never
/// tells whether it exists); transactional records need WRITE on the transactional id, or the
/// whole request is refused and nothing appended.
#[tokio::test]
async fn produce_needs_write_on_each_topic_and_the_transactional_id() {
    let mut node = node().await;
    let codes = |response: strand_protocol::messages::ProduceResponse| -> Vec<i16> {
        response.responses.iter().map(|t| t.partition_responses[0].error_code).collect()
    };
    assert_eq!(codes(call!(node, "alice", Produce(produce(None, batch(false))), 9)), [0, DENIED, DENIED]);
    assert_eq!(codes(call!(node, "bob", Produce(produce(None, batch(false))), 9)), [DENIED, DENIED, UNKNOWN]);

    let orders = TopicPartition::new("orders", 0);
    let before = node.replicas.log_end_offset(&orders).expect("log");
    let refused = call!(node, "alice", Produce(produce(Some("tx"), batch(true))), 9);
    let txn_denied = ErrorCode::TransactionalIdAuthorizationFailed.code();
    assert_eq!(codes(refused), [txn_denied; 3]);
    assert_eq!(node.replicas.log_end_offset(&orders).expect("log"), before, "nothing appended");
}

fn fetch(replica_id: i32) -> FetchRequest {
    let topic = |name: &str| FetchTopic {
        topic: name.into(),
        partitions: vec![FetchPartition { partition: 0, partition_max_bytes: 1 << 20, ..Default::default() }],
        ..Default::default()
    };
    FetchRequest {
        replica_id: BrokerId(replica_id),
        max_wait_ms: 0,
        max_bytes: 1 << 20,
        session_epoch: -1,
        topics: TOPICS.iter().map(|name| topic(name)).collect(),
        ..Default::default()
    }
}

fn fetch_codes(response: &strand_protocol::messages::FetchResponse) -> Vec<i16> {
    response.responses.iter().map(|t| t.partitions[0].error_code).collect()
}

/// Consumers need READ on each topic. Only brokers (CLUSTER_ACTION) may fetch as a follower: a
/// client posing as replica 2 is refused every partition and moves no high watermark.
#[tokio::test]
async fn fetch_needs_read_and_followers_need_cluster_action() {
    let mut node = node().await;
    let consumer = call!(node, "alice", Fetch(fetch(-1)), 12);
    assert_eq!(fetch_codes(&consumer), [0, DENIED, DENIED]);
    assert!(consumer.responses[0].partitions[0].records.as_ref().is_some_and(|r| !r.is_empty()));

    let posing = call!(node, "alice", Fetch(fetch(2)), 12);
    assert_eq!(fetch_codes(&posing), [DENIED; 3]);
    let follower = call!(node, "broker", Fetch(fetch(2)), 12);
    assert!(fetch_codes(&follower).iter().all(|&code| code != DENIED), "a broker is let through: {follower:?}");
}

/// ListOffsets and OffsetForLeaderEpoch need DESCRIBE on each topic (a broker's
/// OffsetForLeaderEpoch: CLUSTER_ACTION instead); DeleteRecords DELETE; DescribeProducers READ.
#[tokio::test]
async fn offsets_and_producers_need_their_topic_operation() {
    let mut node = node().await;
    let list = ListOffsetsRequest {
        replica_id: BrokerId(-1),
        topics: (TOPICS.iter())
            .map(|name| ListOffsetsTopic {
                name: (*name).into(),
                partitions: vec![ListOffsetsPartition { partition_index: 0, timestamp: -1, ..Default::default() }],
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let listed = call!(node, "alice", ListOffsets(list), 7);
    let codes: Vec<i16> = listed.topics.iter().map(|t| t.partitions[0].error_code).collect();
    assert_eq!(codes, [0, DENIED, DENIED]);
    assert_eq!(listed.topics[0].partitions[0].offset, 1);

    let epochs = || OffsetForLeaderEpochRequest {
        replica_id: BrokerId(-1),
        topics: (TOPICS.iter())
            .map(|name| OffsetForLeaderTopic {
                topic: (*name).into(),
                partitions: vec![OffsetForLeaderPartition {
                    partition: 0,
                    current_leader_epoch: -1,
                    leader_epoch: 0,
                    ..Default::default()
                }],
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let epoch_codes = |response: strand_protocol::messages::OffsetForLeaderEpochResponse| -> Vec<i16> {
        response.topics.iter().map(|t| t.partitions[0].error_code).collect()
    };
    assert_eq!(epoch_codes(call!(node, "alice", OffsetForLeaderEpoch(epochs()), 4)), [0, DENIED, DENIED]);
    assert_eq!(epoch_codes(call!(node, "broker", OffsetForLeaderEpoch(epochs()), 4)), [0, 0, UNKNOWN]);

    let delete = DeleteRecordsRequest {
        topics: (TOPICS.iter())
            .map(|name| DeleteRecordsTopic {
                name: (*name).into(),
                partitions: vec![DeleteRecordsPartition { partition_index: 0, offset: 0, ..Default::default() }],
                ..Default::default()
            })
            .collect(),
        timeout_ms: 1000,
        ..Default::default()
    };
    let deleted = call!(node, "alice", DeleteRecords(delete), 2);
    let codes: Vec<i16> = deleted.topics.iter().map(|t| t.partitions[0].error_code).collect();
    assert_eq!(codes, [0, DENIED, DENIED]);

    let describe = DescribeProducersRequest {
        topics: (TOPICS.iter())
            .map(|name| TopicRequest { name: (*name).into(), partition_indexes: vec![0], ..Default::default() })
            .collect(),
        ..Default::default()
    };
    let described = call!(node, "bob", DescribeProducers(describe), 0);
    let codes: Vec<i16> = described.topics.iter().map(|t| t.partitions[0].error_code).collect();
    assert_eq!(codes, [DENIED, DENIED, UNKNOWN]);
}
