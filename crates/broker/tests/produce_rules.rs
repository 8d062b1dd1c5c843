//! A topic's own configs govern produce: `max.message.bytes` (MESSAGE_TOO_LARGE),
//! `min.insync.replicas` above the ISR (NOT_ENOUGH_REPLICAS for acks=all only, nothing appended),
//! and `message.timestamp.type=LogAppendTime` (the broker's time in the answer). Clients cannot
//! write to internal topics, nor write records without keys to compacted ones.

mod common;

use bytes::Bytes;
use common::Node;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::ProduceRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::{CreatableTopic, CreatableTopicConfig};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::produce_response::PartitionProduceResponse;
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

fn topic(name: &str, key: &str, value: &str) -> CreatableTopic {
    CreatableTopic {
        name: name.into(),
        num_partitions: 1,
        replication_factor: 1,
        configs: vec![CreatableTopicConfig { name: key.into(), value: Some(value.into()), ..Default::default() }],
        ..Default::default()
    }
}

fn batch(value_bytes: usize) -> Bytes {
    let value = vec![b'v'; value_bytes];
    let mut builder = RecordBatchBuilder::new();
    builder
        .append(&NewRecord { timestamp_ms: 1_700_000_000_000, key: None, value: Some(&value), headers: &[] })
        .expect("record");
    builder.build().expect("batch")
}

async fn produce(node: &mut Node, topic: &str, acks: i16, records: Bytes) -> PartitionProduceResponse {
    let request = ProduceRequest {
        acks,
        timeout_ms: 1000,
        topic_data: vec![TopicProduceData {
            name: topic.into(),
            partition_data: vec![PartitionProduceData { index: 0, records: Some(records), ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::Produce(response) = node.call(RequestBody::Produce(request), 9).await else { panic!() };
    response.responses[0].partition_responses[0].clone()
}

/// Each topic config takes effect on produce, and the broker's defaults stand elsewhere.
#[tokio::test]
async fn topic_configs_govern_produce() {
    let mut node = Node::new();
    node.create(topic("small", "max.message.bytes", "200")).await;
    node.create(topic("safe", "min.insync.replicas", "2")).await;
    node.create(topic("stamped", "message.timestamp.type", "LogAppendTime")).await;
    node.create_topic("plain", 1).await;

    assert_eq!(produce(&mut node, "small", 1, batch(500)).await.error_code, ErrorCode::MessageTooLarge.code());
    assert_eq!(produce(&mut node, "small", 1, batch(10)).await.error_code, 0);
    assert_eq!(produce(&mut node, "plain", 1, batch(500)).await.error_code, 0);

    let refused = produce(&mut node, "safe", -1, batch(10)).await;
    assert_eq!(refused.error_code, ErrorCode::NotEnoughReplicas.code());
    let accepted = produce(&mut node, "safe", 1, batch(10)).await;
    assert_eq!((accepted.error_code, accepted.base_offset), (0, 0), "nothing was appended by the refused produce");

    let stamped = produce(&mut node, "stamped", 1, batch(10)).await;
    assert_eq!(stamped.error_code, 0);
    assert!(stamped.log_append_time_ms > 1_700_000_000_000, "{}", stamped.log_append_time_ms);
    assert_eq!(produce(&mut node, "plain", 1, batch(10)).await.log_append_time_ms, -1);
}

/// Clients cannot write to an internal topic: only the coordinators do.
#[tokio::test]
async fn internal_topics_refuse_client_writes() {
    let mut node = Node::new();
    node.create_topic("__consumer_offsets", 1).await;
    let answer = produce(&mut node, "__consumer_offsets", 1, batch(10)).await;
    assert_eq!(answer.error_code, ErrorCode::InvalidTopicException.code(), "{answer:?}");
    let tp = strand_base::TopicPartition::new("__consumer_offsets", 0);
    assert_eq!(node.replicas.offsets(&tp).expect("hosted").high_watermark, 0, "nothing was appended");
}

/// A compacted topic refuses records without a key (INVALID_RECORD, nothing appended) and takes
/// keyed ones.
#[tokio::test]
async fn compacted_topics_need_keys() {
    let mut node = Node::new();
    node.create(topic("profiles", "cleanup.policy", "compact")).await;
    let keyless = produce(&mut node, "profiles", 1, batch(10)).await;
    assert_eq!(keyless.error_code, ErrorCode::InvalidRecord.code(), "{keyless:?}");
    let mut builder = RecordBatchBuilder::new();
    let record = NewRecord { timestamp_ms: 1_700_000_000_000, key: Some(b"user-1"), value: Some(b"v"), headers: &[] };
    builder.append(&record).expect("record");
    let keyed = produce(&mut node, "profiles", 1, builder.build().expect("batch")).await;
    assert_eq!((keyed.error_code, keyed.base_offset), (0, 0), "the keyless batch appended nothing");
}

/// The dynamic broker configs govern produce as they govern the log: a cluster-wide
/// `log.cleanup.policy=compact` makes a topic without its own policy refuse keyless records (its
/// log compacts), and this broker's own `message.max.bytes` beats the cluster's.
#[tokio::test]
async fn dynamic_broker_configs_govern_produce_as_the_log() {
    use strand_protocol::messages::IncrementalAlterConfigsRequest;
    use strand_protocol::messages::incremental_alter_configs_request::{AlterConfigsResource, AlterableConfig};
    let mut node = Node::new();
    node.create_topic("plain", 1).await;
    assert_eq!(produce(&mut node, "plain", 1, batch(10)).await.error_code, 0);
    for (broker, key, value) in
        [("", "log.cleanup.policy", "compact"), ("", "message.max.bytes", "100000"), ("1", "message.max.bytes", "300")]
    {
        let resource = AlterConfigsResource {
            resource_type: 4,
            resource_name: broker.into(),
            configs: vec![AlterableConfig {
                name: key.into(),
                config_operation: 0,
                value: Some(value.into()),
                ..Default::default()
            }],
            ..Default::default()
        };
        let request = IncrementalAlterConfigsRequest { resources: vec![resource], ..Default::default() };
        let ResponseBody::IncrementalAlterConfigs(answer) =
            node.call(RequestBody::IncrementalAlterConfigs(request), 1).await
        else {
            panic!()
        };
        assert_eq!(answer.responses[0].error_code, 0, "{key}: {answer:?}");
    }
    let image = node.broker.image();
    let configs = node.broker.topic_configs(&image).topic("plain");
    assert!(configs.log_config(Default::default()).compact_enabled, "the log compacts");

    let keyless = produce(&mut node, "plain", 1, batch(10)).await;
    assert_eq!(keyless.error_code, ErrorCode::InvalidRecord.code(), "{keyless:?}");
    let mut builder = RecordBatchBuilder::new();
    let value = vec![b'v'; 500];
    let record = NewRecord { timestamp_ms: 1_700_000_000_000, key: Some(b"k"), value: Some(&value), headers: &[] };
    builder.append(&record).expect("record");
    let large = produce(&mut node, "plain", 1, builder.build().expect("batch")).await;
    assert_eq!(large.error_code, ErrorCode::MessageTooLarge.code(), "this broker's 300 bytes, not the cluster's");
}
