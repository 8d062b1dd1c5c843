//! Requests that name one thing many times, answered as Kafka answers them: Metadata describes
//! each topic once (Kafka answers the set of topics asked for), so a few bytes per mention cannot
//! buy a whole topic's partitions per mention; a topic named twice for auto-creation is created;
//! ListOffsets answers every mention of a repeated partition INVALID_REQUEST and looks none up.

mod common;

use common::Node;
use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use strand_protocol::messages::metadata_request::MetadataRequestTopic;
use strand_protocol::messages::{ListOffsetsRequest, MetadataRequest, MetadataResponse};

async fn metadata(node: &mut Node, names: &[&str], ids: &[Uuid], auto_create: bool) -> MetadataResponse {
    let by_name = names.iter().map(|n| MetadataRequestTopic { name: Some((*n).to_owned()), ..Default::default() });
    let by_id = ids.iter().map(|id| MetadataRequestTopic { topic_id: *id, name: None, ..Default::default() });
    let request = MetadataRequest {
        topics: Some(by_name.chain(by_id).collect()),
        allow_auto_topic_creation: auto_create,
        ..Default::default()
    };
    let ResponseBody::Metadata(response) = node.call(RequestBody::Metadata(request), 12).await else {
        panic!("not a Metadata response");
    };
    response
}

/// A topic named 1,000 times, and by id 1,000 times, is described once each way.
#[tokio::test]
async fn metadata_describes_each_topic_once() {
    let mut node = Node::new();
    let id = node.create_topic("wide", 8).await;
    let response = metadata(&mut node, &["wide"; 1000], &[id; 1000], false).await;
    assert_eq!(response.topics.len(), 2, "once by name, once by id");
    let named: Vec<_> = response.topics.iter().map(|t| (t.name.clone(), t.partitions.len())).collect();
    assert_eq!(named, [(Some("wide".to_owned()), 8), (Some("wide".to_owned()), 8)]);
}

/// With auto-creation on, a missing topic named twice is created (once), not refused as a
/// repeated name.
#[tokio::test]
async fn a_topic_named_twice_is_auto_created() {
    let mut node =
        Node::with_settings(strand_broker::BrokerSettings { auto_create_topics: true, ..common::settings() });
    let response = metadata(&mut node, &["fresh", "fresh"], &[], true).await;
    assert_eq!(response.topics.len(), 1);
    assert_eq!(response.topics[0].error_code, 0, "created");
}

/// A partition listed twice is INVALID_REQUEST at both mentions; the others are answered.
#[tokio::test]
async fn list_offsets_refuses_repeated_partitions() {
    let mut node = Node::new();
    node.create_topic("orders", 2).await;
    let partition = |index: i32| ListOffsetsPartition { partition_index: index, timestamp: -1, ..Default::default() };
    let request = ListOffsetsRequest {
        replica_id: strand_base::BrokerId(-1),
        topics: vec![
            ListOffsetsTopic {
                name: "orders".into(),
                partitions: vec![partition(0), partition(1)],
                ..Default::default()
            },
            ListOffsetsTopic { name: "orders".into(), partitions: vec![partition(0)], ..Default::default() },
        ],
        ..Default::default()
    };
    let ResponseBody::ListOffsets(response) = node.call(RequestBody::ListOffsets(request), 7).await else {
        panic!("not a ListOffsets response");
    };
    // One answer for the topic named twice, one for the partition named twice (Kafka 4.4's, as
    // `e2e_kafka_answers.rs` recorded it: its answers are keyed by partition).
    assert_eq!(response.topics.len(), 1);
    let codes: Vec<(i32, i16)> =
        response.topics.iter().flat_map(|t| &t.partitions).map(|p| (p.partition_index, p.error_code)).collect();
    let invalid = ErrorCode::InvalidRequest.code();
    assert_eq!(codes, [(0, invalid), (1, 0)]);
}
