//! Broker-side compression (issue 19 item 8): a topic's `compression.type` decides the codec a
//! batch is stored with, read back from the segment file itself (as Kafka's DumpLogSegments
//! shows it) and from a raw Fetch, which returns exactly the stored bytes. The broker's
//! `compression.type` is the default of topics without their own; a topic's changed by
//! IncrementalAlterConfigs applies to the next produce; bad levels are refused as Kafka refuses
//! them.
//!
//! `STRAND_TEST_BROKER=127.0.0.1:<port> cargo test -p strand-cli --test e2e_compression kafkas`
//! runs the rebuilt-batch case against any broker at that address instead (recorded from Apache
//! Kafka 4.4.0, the `compat/broker/kafka-server.properties` oracle).

mod common;

use bytes::Bytes;
use common::{Client, Server, fetch_all, produce};
use strand_base::ProducerId;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::{CreatableTopic, CreatableTopicConfig};
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::incremental_alter_configs_request::{AlterConfigsResource, AlterableConfig};
use strand_protocol::messages::{CreateTopicsRequest, FetchRequest, IncrementalAlterConfigsRequest};
use strand_protocol::records::{Compression, NewRecord, RecordBatch, RecordBatchBuilder, RecordBatches};

const NOW_MS: i64 = 1_700_000_000_000;
/// Kafka's INVALID_CONFIG.
const INVALID_CONFIG: i16 = 40;

/// A batch of an idempotent producer in `codec`: three records, one large and compressible.
fn batch(codec: Compression, sequence: i32) -> Bytes {
    let large = "x".repeat(20_000);
    let mut builder = RecordBatchBuilder::new().compression(codec).producer(ProducerId(1000), 0, sequence);
    for value in ["a", "bb", &large] {
        let record = NewRecord { timestamp_ms: NOW_MS, key: Some(b"k"), value: Some(value.as_bytes()), headers: &[] };
        builder.append(&record).expect("record");
    }
    builder.build().expect("batch")
}

/// Creates `name` with `configs`; the topic's error code.
fn create(client: &mut Client, name: &str, configs: &[(&str, &str)]) -> i16 {
    let configs = configs
        .iter()
        .map(|(name, value)| CreatableTopicConfig {
            name: (*name).into(),
            value: Some((*value).into()),
            ..Default::default()
        })
        .collect();
    let topic =
        CreatableTopic { name: name.into(), num_partitions: 1, replication_factor: 1, configs, ..Default::default() };
    let request = CreateTopicsRequest { topics: vec![topic], timeout_ms: 10_000, ..Default::default() };
    let ResponseBody::CreateTopics(created) = client.call(RequestBody::CreateTopics(request), 7) else { panic!() };
    created.topics[0].error_code
}

/// Sets one config of topic `name`; the resource's error code and message.
fn alter(client: &mut Client, name: &str, key: &str, value: &str) -> (i16, Option<String>) {
    alter_resource(client, TOPIC, name, key, value)
}

/// IncrementalAlterConfigs' resource types: a topic, a broker (`""`: the cluster-wide default).
const TOPIC: i8 = 2;
const BROKER: i8 = 4;

/// Sets one config of resource `name` of type `kind`; the resource's error code and message.
fn alter_resource(client: &mut Client, kind: i8, name: &str, key: &str, value: &str) -> (i16, Option<String>) {
    let config =
        AlterableConfig { name: key.into(), config_operation: 0, value: Some(value.into()), ..Default::default() };
    let resource = AlterConfigsResource {
        resource_type: kind,
        resource_name: name.into(),
        configs: vec![config],
        ..Default::default()
    };
    let request = IncrementalAlterConfigsRequest { resources: vec![resource], ..Default::default() };
    let ResponseBody::IncrementalAlterConfigs(altered) = client.call(RequestBody::IncrementalAlterConfigs(request), 1)
    else {
        panic!()
    };
    (altered.responses[0].error_code, altered.responses[0].error_message.clone())
}

/// Every batch of partition 0 as a Fetch returns it.
fn fetched_batches(client: &mut Client, topic: &str) -> Vec<RecordBatch> {
    let partition =
        FetchPartition { partition: 0, fetch_offset: 0, partition_max_bytes: 10 << 20, ..Default::default() };
    let topics = vec![FetchTopic { topic: topic.into(), partitions: vec![partition], ..Default::default() }];
    let request = FetchRequest { max_wait_ms: 0, min_bytes: 0, max_bytes: 10 << 20, topics, ..Default::default() };
    let ResponseBody::Fetch(response) = client.call(RequestBody::Fetch(request), 12) else { panic!() };
    let records = response.responses[0].partitions[0].records.as_ref().and_then(|r| r.as_bytes()).cloned();
    RecordBatches::new(records.unwrap_or_default()).map(|b| b.expect("whole batch")).collect()
}

/// Every batch of the partition's first segment file, read from disk.
fn stored_batches(server: &Server, topic: &str) -> Vec<RecordBatch> {
    let path = server.data.path().join(format!("{topic}-0")).join("00000000000000000000.log");
    let bytes = std::fs::read(&path).expect("segment file");
    RecordBatches::new(Bytes::from(bytes)).map(|b| b.expect("whole batch")).collect()
}

fn codecs(batches: &[RecordBatch]) -> Vec<Compression> {
    batches.iter().map(|b| b.attributes().compression().expect("known codec")).collect()
}

/// A gzip producer on a zstd topic is stored as zstd, the producer's fields kept, and Fetch
/// returns the stored bytes; the broker's `compression.type=lz4`, then a dynamic cluster-wide
/// `snappy`, applies to a topic without its own; a topic set to `producer` or `uncompressed` later
/// stores its next batch that way.
#[test]
fn the_topic_codec_is_what_is_stored_and_fetched() {
    let _serial = common::serial();
    let server = Server::start_with(tempfile::tempdir().expect("temp dir"), &["compression.type=lz4"]);
    let mut client = server.connect();
    assert_eq!(create(&mut client, "zstd-topic", &[("compression.type", "zstd")]), 0);
    assert_eq!(produce(&mut client, "zstd-topic", -1, batch(Compression::Gzip, 0)), (0, 0));

    let stored = stored_batches(&server, "zstd-topic");
    assert_eq!(codecs(&stored), [Compression::Zstd]);
    let first = &stored[0];
    assert_eq!((first.producer_id(), first.producer_epoch(), first.base_sequence()), (ProducerId(1000), 0, 0));
    assert_eq!((first.record_count(), first.base_timestamp(), first.max_timestamp()), (3, NOW_MS, NOW_MS));
    assert!(first.crc_is_valid());
    let fetched = fetched_batches(&mut client, "zstd-topic");
    assert_eq!(fetched.iter().map(|b| b.as_bytes().clone()).collect::<Vec<_>>(), [first.as_bytes().clone()]);
    assert_eq!(fetch_all(&mut client, "zstd-topic")[..2], ["a", "bb"]);

    assert_eq!(create(&mut client, "broker-default", &[]), 0);
    assert_eq!(produce(&mut client, "broker-default", -1, batch(Compression::None, 0)).0, 0);
    assert_eq!(codecs(&stored_batches(&server, "broker-default")), [Compression::Lz4]);
    // The cluster-wide dynamic default (kafka-configs --entity-default) comes before the file's.
    assert_eq!(alter_resource(&mut client, BROKER, "", "compression.type", "snappy").0, 0);
    assert_eq!(produce(&mut client, "broker-default", -1, batch(Compression::None, 3)).0, 0);
    assert_eq!(codecs(&stored_batches(&server, "broker-default")), [Compression::Lz4, Compression::Snappy]);

    assert_eq!(alter(&mut client, "zstd-topic", "compression.type", "producer").0, 0);
    assert_eq!(produce(&mut client, "zstd-topic", -1, batch(Compression::Gzip, 3)), (0, 3));
    assert_eq!(alter(&mut client, "zstd-topic", "compression.type", "uncompressed").0, 0);
    assert_eq!(produce(&mut client, "zstd-topic", -1, batch(Compression::Snappy, 6)), (0, 6));
    let stored = stored_batches(&server, "zstd-topic");
    assert_eq!(codecs(&stored), [Compression::Zstd, Compression::Gzip, Compression::None]);
    assert_eq!(fetch_all(&mut client, "zstd-topic").len(), 9);
}

/// `compression.gzip.level` reaches the codec (level 1 stores more bytes than level 9); levels
/// outside Kafka's ranges are refused by CreateTopics and IncrementalAlterConfigs with
/// INVALID_CONFIG and Kafka's message.
#[test]
fn levels_apply_and_bad_levels_are_refused() {
    let _serial = common::serial();
    let server = Server::start_with(tempfile::tempdir().expect("temp dir"), &[]);
    let mut client = server.connect();
    for (topic, level) in [("gzip-1", "1"), ("gzip-9", "9")] {
        assert_eq!(create(&mut client, topic, &[("compression.type", "gzip"), ("compression.gzip.level", level)]), 0);
        assert_eq!(produce(&mut client, topic, -1, batch(Compression::None, 0)).0, 0);
    }
    let size = |topic| stored_batches(&server, topic)[0].size_in_bytes();
    assert!(size("gzip-1") > size("gzip-9"), "level 1: {} bytes, level 9: {}", size("gzip-1"), size("gzip-9"));

    assert_eq!(create(&mut client, "bad", &[("compression.gzip.level", "10")]), INVALID_CONFIG);
    let (code, message) = alter(&mut client, "gzip-1", "compression.zstd.level", "23");
    assert_eq!(code, INVALID_CONFIG);
    assert_eq!(
        message.as_deref(),
        Some("Invalid value 23 for configuration compression.zstd.level: Value must be no more than 22")
    );
    assert_eq!(alter(&mut client, "gzip-1", "compression.lz4.level", "0").0, INVALID_CONFIG);
}

/// A record's attributes, timestamp delta, offset delta, key, value and header count.
type RecordFields = (i8, i64, i32, Option<Vec<u8>>, Option<Vec<u8>>, usize);

/// The fields of a batch and its records that Kafka's rebuild decides.
#[derive(Debug, PartialEq)]
struct Rebuilt {
    attributes: i16,
    last_offset_delta: i32,
    base_timestamp: i64,
    max_timestamp_is_append_time: bool,
    producer: (i64, i16, i32),
    records: Vec<RecordFields>,
}

/// An uncompressed batch of an idempotent producer, its timestamps out of order, written again
/// with gzip exactly as Kafka 4.4's LogValidator writes it: base timestamp the first record's
/// (not the smallest), deltas from it, offset deltas from 0, record attributes 0, the producer's
/// fields kept; under LogAppendTime the max timestamp is the broker's and the records keep theirs.
#[test]
fn the_rebuilt_batch_is_kafkas() {
    let _serial = common::serial();
    let oracle: Option<std::net::SocketAddr> =
        std::env::var("STRAND_TEST_BROKER").ok().map(|a| a.parse().expect("STRAND_TEST_BROKER is host:port"));
    let server = oracle.is_none().then(|| Server::start_with(tempfile::tempdir().expect("temp dir"), &[]));
    let address = oracle.unwrap_or_else(|| server.as_ref().expect("server").address);
    let mut client = Client::connect(address);
    let suffix = std::process::id();
    let header = strand_protocol::records::Header { key: "h", value: Some(b"v") };
    let headers = [header];
    let mut builder = RecordBatchBuilder::new().producer(ProducerId(4242), 0, 0);
    for (timestamp_ms, key) in [(NOW_MS + 500, None), (NOW_MS, Some(&b"k1"[..])), (NOW_MS + 200, Some(b"k2"))] {
        let record = NewRecord { timestamp_ms, key, value: Some(b"value"), headers: &headers };
        builder.append(&record).expect("record");
    }
    let sent = builder.build().expect("batch");
    for (timestamp_type, log_append_time) in [("CreateTime", false), ("LogAppendTime", true)] {
        let topic = format!("rebuilt-{timestamp_type}-{suffix}");
        let configs = [("compression.type", "gzip"), ("message.timestamp.type", timestamp_type)];
        assert_eq!(create(&mut client, &topic, &configs), 0);
        let mut produced = produce(&mut client, &topic, -1, sent.clone());
        for _ in 0..50 {
            // A topic just created may not be led yet on every broker (Kafka answers so).
            if produced.0 != 6 && produced.0 != 3 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            produced = produce(&mut client, &topic, -1, sent.clone());
        }
        assert_eq!(produced, (0, 0), "{topic}");
        let batches = fetched_batches(&mut client, &topic);
        let batch = &batches[0];
        assert!(batch.crc_is_valid());
        let records = batch.records_with_limit(1 << 20).expect("decompresses");
        let rebuilt = Rebuilt {
            attributes: batch.attributes().0,
            last_offset_delta: batch.last_offset_delta(),
            base_timestamp: batch.base_timestamp(),
            max_timestamp_is_append_time: batch.max_timestamp() > NOW_MS + 500,
            producer: (batch.producer_id().0, batch.producer_epoch(), batch.base_sequence()),
            records: records
                .iter()
                .map(|r| {
                    let r = r.expect("record");
                    let key = r.key().map(<[u8]>::to_vec);
                    (
                        r.attributes(),
                        r.timestamp_delta(),
                        r.offset_delta(),
                        key,
                        r.value().map(<[u8]>::to_vec),
                        r.header_count(),
                    )
                })
                .collect(),
        };
        let value = Some(b"value".to_vec());
        let expected = Rebuilt {
            attributes: if log_append_time { 1 | 8 } else { 1 },
            last_offset_delta: 2,
            base_timestamp: NOW_MS + 500,
            max_timestamp_is_append_time: log_append_time,
            producer: (4242, 0, 0),
            records: vec![
                (0, 0, 0, None, value.clone(), 1),
                (0, -500, 1, Some(b"k1".to_vec()), value.clone(), 1),
                (0, -300, 2, Some(b"k2".to_vec()), value, 1),
            ],
        };
        assert_eq!(rebuilt, expected, "{timestamp_type}");
    }
}
