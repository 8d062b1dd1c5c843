//! End to end over loopback: the server's periodic retention pass deletes what a topic's
//! `retention.ms` no longer keeps, and ListOffsets' earliest offset moves past it; a topic with
//! `cleanup.policy=compact` keeps everything.

mod common;

use bytes::Bytes;
use common::{Client, Server};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::{CreatableTopic, CreatableTopicConfig};
use strand_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::{CreateTopicsRequest, ListOffsetsRequest, ProduceRequest};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

/// A pass every 50 ms, so the test waits for it briefly.
const OVERRIDES: &[&str] = &["log.retention.check.interval.ms=50"];

fn create(client: &mut Client, name: &str, config: (&str, &str)) {
    let topic = CreatableTopic {
        name: name.into(),
        num_partitions: 1,
        replication_factor: 1,
        configs: vec![
            CreatableTopicConfig { name: "retention.ms".into(), value: Some("3600000".into()), ..Default::default() },
            CreatableTopicConfig { name: config.0.into(), value: Some(config.1.into()), ..Default::default() },
        ],
        ..Default::default()
    };
    let request = CreateTopicsRequest { topics: vec![topic], timeout_ms: 10_000, ..Default::default() };
    let ResponseBody::CreateTopics(response) = client.call(RequestBody::CreateTopics(request), 7) else { panic!() };
    assert_eq!(response.topics[0].error_code, 0, "{:?}", response.topics[0]);
}

/// Produces one record stamped in 2023: far older than an hour.
fn produce_old(client: &mut Client, topic: &str) {
    let mut builder = RecordBatchBuilder::new();
    builder
        .append(&NewRecord { timestamp_ms: 1_700_000_000_000, key: Some(b"k"), value: Some(b"v"), headers: &[] })
        .expect("record");
    let records: Bytes = builder.build().expect("batch");
    let request = ProduceRequest {
        acks: 1,
        timeout_ms: 10_000,
        topic_data: vec![TopicProduceData {
            name: topic.into(),
            partition_data: vec![PartitionProduceData { index: 0, records: Some(records), ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::Produce(response) = client.call(RequestBody::Produce(request), 9) else { panic!() };
    assert_eq!(response.responses[0].partition_responses[0].error_code, 0);
}

fn earliest(client: &mut Client, topic: &str) -> i64 {
    let request = ListOffsetsRequest {
        replica_id: strand_base::BrokerId(-1),
        topics: vec![ListOffsetsTopic {
            name: topic.into(),
            partitions: vec![ListOffsetsPartition { partition_index: 0, timestamp: -2, ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::ListOffsets(response) = client.call(RequestBody::ListOffsets(request), 7) else { panic!() };
    response.topics[0].partitions[0].offset
}

#[test]
fn expired_records_are_deleted_by_the_retention_pass() {
    let _serial = common::serial();
    let server = Server::start_with(tempfile::tempdir().expect("temp dir"), OVERRIDES);
    let mut client = server.connect();
    create(&mut client, "expiring", ("cleanup.policy", "delete"));
    create(&mut client, "compacted", ("cleanup.policy", "compact"));
    for topic in ["expiring", "compacted"] {
        for _ in 0..3 {
            produce_old(&mut client, topic);
        }
    }
    use strand_base::Clock;
    let clock = strand_base::SystemClock;
    let deadline = clock.monotonic_ns() + common::WAIT_MAX.as_nanos() as u64;
    while earliest(&mut client, "expiring") != 3 {
        assert!(clock.monotonic_ns() < deadline, "retention never deleted the expired records");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // The pass that deleted `expiring`'s records also ran over `compacted`, which keeps them.
    assert_eq!(earliest(&mut client, "compacted"), 0);
}
