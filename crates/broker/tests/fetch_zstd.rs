//! Fetch below v10 from a zstd topic: Kafka's `maybeConvertFetchedData` answers the partition
//! UNSUPPORTED_COMPRESSION_TYPE with no records when the topic's `compression.type` is zstd, since
//! a client older than KIP-110 could not read it; other topics, and v10 on, read as usual.

mod common;

use common::Node;
use strand_base::TopicPartition;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::{CreatableTopic, CreatableTopicConfig};
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::{FetchRequest, FetchResponse};

async fn fetch(node: &mut Node, version: i16) -> FetchResponse {
    let topic = |name: &str| FetchTopic {
        topic: name.to_owned(),
        partitions: vec![FetchPartition {
            partition: 0,
            fetch_offset: 0,
            partition_max_bytes: 1 << 20,
            ..Default::default()
        }],
        ..Default::default()
    };
    let request = FetchRequest {
        max_wait_ms: 0,
        min_bytes: 0,
        max_bytes: 1 << 20,
        topics: vec![topic("zstd-topic"), topic("plain-topic")],
        ..Default::default()
    };
    let ResponseBody::Fetch(response) = node.call(RequestBody::Fetch(request), version).await else {
        panic!("not a Fetch response");
    };
    response
}

/// (error code, whether records came) per topic, in request order.
fn answers(response: &FetchResponse) -> Vec<(i16, bool)> {
    let partitions = response.responses.iter().map(|t| &t.partitions[0]);
    partitions.map(|p| (p.error_code, p.records.as_ref().is_some_and(|r| !r.is_empty()))).collect()
}

#[tokio::test]
async fn an_old_fetch_of_a_zstd_topic_is_refused() {
    let mut node = Node::new();
    let config =
        CreatableTopicConfig { name: "compression.type".into(), value: Some("zstd".into()), ..Default::default() };
    let zstd = CreatableTopic {
        name: "zstd-topic".into(),
        num_partitions: 1,
        replication_factor: 1,
        configs: vec![config],
        ..Default::default()
    };
    node.create(zstd).await;
    node.create_topic("plain-topic", 1).await;
    for name in ["zstd-topic", "plain-topic"] {
        node.append(&TopicPartition::new(name.to_owned(), 0), 0);
    }
    let unsupported = ErrorCode::UnsupportedCompressionType.code();
    for version in [4, 9] {
        assert_eq!(answers(&fetch(&mut node, version).await), [(unsupported, false), (0, true)], "v{version}");
    }
    for version in [10, 12] {
        assert_eq!(answers(&fetch(&mut node, version).await), [(0, true), (0, true)], "v{version}");
    }
}
