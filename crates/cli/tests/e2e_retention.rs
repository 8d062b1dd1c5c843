//! End to end over loopback: the server's periodic retention pass deletes what a topic's
//! `retention.ms` no longer keeps, and ListOffsets' earliest offset moves past it; a topic with
//! `cleanup.policy=compact` keeps everything from retention, and its cleaner pass keeps the latest
//! record per key in the segments below the active one.

mod common;

use bytes::Bytes;
use common::{Client, Server};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::{CreatableTopic, CreatableTopicConfig};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::{CreateTopicsRequest, ProduceRequest};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

/// A pass every 50 ms, so the test waits for it briefly.
const OVERRIDES: &[&str] = &["log.retention.check.interval.ms=50", "log.cleaner.backoff.ms=50"];

/// Creates a one-partition topic with `retention.ms` of an hour and `configs`.
fn create(client: &mut Client, name: &str, configs: &[(&str, &str)]) {
    let configs = [("retention.ms", "3600000")]
        .iter()
        .chain(configs)
        .map(|(key, value)| CreatableTopicConfig {
            name: (*key).into(),
            value: Some((*value).into()),
            ..Default::default()
        })
        .collect();
    let topic =
        CreatableTopic { name: name.into(), num_partitions: 1, replication_factor: 1, configs, ..Default::default() };
    let request = CreateTopicsRequest { topics: vec![topic], timeout_ms: 10_000, ..Default::default() };
    let ResponseBody::CreateTopics(response) = client.call(RequestBody::CreateTopics(request), 7) else { panic!() };
    assert_eq!(response.topics[0].error_code, 0, "{:?}", response.topics[0]);
}

/// Produces one record stamped in 2023: far older than an hour.
fn produce_old(client: &mut Client, topic: &str) {
    produce(client, topic, 1_700_000_000_000, b"v");
}

/// Produces one record with key `k`.
fn produce(client: &mut Client, topic: &str, timestamp_ms: i64, value: &[u8]) {
    let mut builder = RecordBatchBuilder::new();
    builder.append(&NewRecord { timestamp_ms, key: Some(b"k"), value: Some(value), headers: &[] }).expect("record");
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

fn earliest(client: &mut common::Client, topic: &str) -> i64 {
    client.list_offset(topic, -2)
}

#[test]
fn expired_records_are_deleted_by_the_retention_pass() {
    let _serial = common::serial();
    let server = Server::start_with(tempfile::tempdir().expect("temp dir"), OVERRIDES);
    let mut client = server.connect();
    create(&mut client, "expiring", &[("cleanup.policy", "delete")]);
    create(&mut client, "compacted", &[("cleanup.policy", "compact")]);
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

/// The first offset a fetch from offset 0 returns.
fn first_fetched_offset(client: &mut Client, topic: &str) -> i64 {
    use strand_protocol::messages::FetchRequest;
    use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
    let request = FetchRequest {
        max_wait_ms: 0,
        max_bytes: 1 << 20,
        topics: vec![FetchTopic {
            topic: topic.into(),
            partitions: vec![FetchPartition { partition: 0, partition_max_bytes: 1 << 20, ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::Fetch(response) = client.call(RequestBody::Fetch(request), 12) else { panic!() };
    let partition = &response.responses[0].partitions[0];
    let records = partition.records.as_ref().and_then(|r| r.as_bytes()).cloned().unwrap_or_default();
    let first = strand_protocol::records::RecordBatches::new(records).next().expect("a batch").expect("whole batch");
    first.base_offset()
}

#[test]
fn the_cleaner_keeps_the_latest_record_per_key() {
    let _serial = common::serial();
    let server = Server::start_with(tempfile::tempdir().expect("temp dir"), OVERRIDES);
    let mut client = server.connect();
    // The smallest segment Kafka allows: twelve 100 KB records with one key fill more than one.
    create(&mut client, "profiles", &[("cleanup.policy", "compact"), ("segment.bytes", "1048576")]);
    let value = vec![b'p'; 100_000];
    let now_ms = {
        use strand_base::Clock;
        strand_base::SystemClock.now_ms()
    };
    // Five records fit in the active segment, which the cleaner never touches: nothing is
    // compacted yet. The next seven roll it, and the first segment becomes cleanable.
    for _ in 0..5 {
        produce(&mut client, "profiles", now_ms, &value);
    }
    assert_eq!(first_fetched_offset(&mut client, "profiles"), 0);
    for _ in 0..7 {
        produce(&mut client, "profiles", now_ms, &value);
    }
    use strand_base::Clock;
    let clock = strand_base::SystemClock;
    let deadline = clock.monotonic_ns() + common::WAIT_MAX.as_nanos() as u64;
    // Every record has key `k`: the first segment keeps only its last record.
    while first_fetched_offset(&mut client, "profiles") == 0 {
        assert!(clock.monotonic_ns() < deadline, "the cleaner never compacted the first segment");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(earliest(&mut client, "profiles"), 0, "compaction leaves the log start where it was");
}

/// Sends DeleteRecords for partition 0 of `topic` up to `offset`: (error code, low watermark).
fn delete_records(client: &mut Client, topic: &str, offset: i64) -> (i16, i64) {
    use strand_protocol::messages::DeleteRecordsRequest;
    use strand_protocol::messages::delete_records_request::{DeleteRecordsPartition, DeleteRecordsTopic};
    let request = DeleteRecordsRequest {
        topics: vec![DeleteRecordsTopic {
            name: topic.into(),
            partitions: vec![DeleteRecordsPartition { partition_index: 0, offset, ..Default::default() }],
            ..Default::default()
        }],
        timeout_ms: 10_000,
        ..Default::default()
    };
    let ResponseBody::DeleteRecords(response) = client.call(RequestBody::DeleteRecords(request), 2) else { panic!() };
    let partition = &response.topics[0].partitions[0];
    (partition.error_code, partition.low_watermark)
}

/// The error code of a Fetch of partition 0 of `topic` from `offset`.
fn fetch_error(client: &mut Client, topic: &str, offset: i64) -> i16 {
    use strand_protocol::messages::FetchRequest;
    use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
    let request = FetchRequest {
        max_wait_ms: 0,
        max_bytes: 1 << 20,
        topics: vec![FetchTopic {
            topic: topic.into(),
            partitions: vec![FetchPartition {
                partition: 0,
                fetch_offset: offset,
                partition_max_bytes: 1 << 20,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::Fetch(response) = client.call(RequestBody::Fetch(request), 12) else { panic!() };
    response.responses[0].partitions[0].error_code
}

/// DeleteRecords moves the log start offset: ListOffsets' earliest follows, a fetch below it is
/// OFFSET_OUT_OF_RANGE, `-1` means the high watermark, an offset past it is refused, a compacted
/// topic refuses it (POLICY_VIOLATION), and the new log start survives a `kill -9`.
#[test]
fn delete_records_moves_the_log_start_offset() {
    use strand_protocol::error::ErrorCode;
    let _serial = common::serial();
    let server = Server::start();
    let mut client = server.connect();
    create(&mut client, "trimmed", &[]);
    let now = strand_base::Clock::now_ms(&strand_base::SystemClock);
    for _ in 0..10 {
        produce(&mut client, "trimmed", now, b"v");
    }
    assert_eq!(delete_records(&mut client, "trimmed", 4), (0, 4));
    assert_eq!(earliest(&mut client, "trimmed"), 4);
    assert_eq!(fetch_error(&mut client, "trimmed", 2), ErrorCode::OffsetOutOfRange.code());
    assert_eq!(fetch_error(&mut client, "trimmed", 4), 0);
    assert_eq!(delete_records(&mut client, "trimmed", 2), (0, 4), "the log start never moves back");
    assert_eq!(delete_records(&mut client, "trimmed", 11).0, ErrorCode::OffsetOutOfRange.code());
    assert_eq!(delete_records(&mut client, "trimmed", -1), (0, 10), "-1 is the high watermark");
    create(&mut client, "kept", &[("cleanup.policy", "compact")]);
    assert_eq!(delete_records(&mut client, "kept", 0).0, ErrorCode::PolicyViolation.code());
    drop(client);

    let server = Server::start_in(server.kill());
    let mut client = server.connect();
    assert_eq!(earliest(&mut client, "trimmed"), 10, "the deletion survives a crash");
}

/// A cluster-wide dynamic default (`kafka-configs --entity-type brokers --entity-default
/// --add-config log.retention.ms=...`) applies, without a restart, to every topic that has no
/// `retention.ms` of its own: a record two hours old, kept under the static default of 168 hours,
/// goes once the default drops to one hour.
#[test]
fn a_cluster_wide_retention_default_applies_to_topics_without_their_own() {
    use strand_base::Clock;
    use strand_protocol::messages::IncrementalAlterConfigsRequest;
    use strand_protocol::messages::incremental_alter_configs_request::{AlterConfigsResource, AlterableConfig};
    let _serial = common::serial();
    let server = Server::start_with(tempfile::tempdir().expect("temp dir"), OVERRIDES);
    let mut client = server.connect();
    let topic = CreatableTopic { name: "plain".into(), num_partitions: 1, replication_factor: 1, ..Default::default() };
    let request = CreateTopicsRequest { topics: vec![topic], timeout_ms: 10_000, ..Default::default() };
    let ResponseBody::CreateTopics(created) = client.call(RequestBody::CreateTopics(request), 7) else { panic!() };
    assert_eq!(created.topics[0].error_code, 0);
    let clock = strand_base::SystemClock;
    let two_hours_ago = clock.now_ms() - 2 * 3_600_000;
    // Retention deletes whole segments by their newest record: this one is the segment's only.
    produce(&mut client, "plain", two_hours_ago, b"v");
    assert_eq!(earliest(&mut client, "plain"), 0, "168 hours keep a record two hours old");

    let request = IncrementalAlterConfigsRequest {
        resources: vec![AlterConfigsResource {
            resource_type: 4,
            resource_name: String::new(),
            configs: vec![AlterableConfig {
                name: "log.retention.ms".into(),
                config_operation: 0,
                value: Some("3600000".into()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::IncrementalAlterConfigs(altered) = client.call(RequestBody::IncrementalAlterConfigs(request), 1)
    else {
        panic!()
    };
    assert_eq!(altered.responses[0].error_code, 0, "{:?}", altered.responses[0]);
    let deadline = clock.monotonic_ns() + common::WAIT_MAX.as_nanos() as u64;
    while earliest(&mut client, "plain") != 1 {
        assert!(clock.monotonic_ns() < deadline, "the one-hour default never deleted the two-hour-old record");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
