//! End to end over loopback: a real `strand server` creates a topic, takes produce requests with
//! each `acks`, serves them back by fetch and list-offsets, and keeps every acknowledged record
//! across a clean restart and across `kill -9`.

mod common;

use common::{Server, batch, fetch_all, produce};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::{CreateTopicsRequest, FetchRequest, ProduceRequest};

fn latest_offset(client: &mut common::Client, topic: &str) -> i64 {
    client.list_offset(topic, -1)
}

/// Each acks value is honoured: acks=1 and acks=all answer with the base offset, acks=0 sends no
/// response (the next request's answer comes straight back), an invalid acks is refused.
#[test]
fn produce_and_fetch_with_every_acks() {
    let _serial = common::serial();
    let server = Server::start();
    let mut client = server.connect();
    common::create_topic(&mut client, "events", 1);
    assert_eq!(produce(&mut client, "events", 1, batch(&["a", "b"])), (0, 0));
    assert_eq!(produce(&mut client, "events", -1, batch(&["c"])), (0, 2));
    // acks=0: no response; the ListOffsets that follows gets its own answer.
    let frame = strand_protocol::frame::encode_request(
        99,
        None,
        &RequestBody::Produce(ProduceRequest {
            acks: 0,
            timeout_ms: 1000,
            topic_data: vec![TopicProduceData {
                name: "events".into(),
                partition_data: vec![PartitionProduceData {
                    index: 0,
                    records: Some(batch(&["d"])),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        }),
        9,
    )
    .expect("encode");
    client.send_raw(&frame);
    assert_eq!(latest_offset(&mut client, "events"), 4);
    assert_eq!(fetch_all(&mut client, "events"), ["a", "b", "c", "d"]);
    let (code, _) = produce(&mut client, "events", 2, batch(&["x"]));
    assert_eq!(code, strand_protocol::error::ErrorCode::InvalidRequiredAcks.code());
    let (code, _) = produce(&mut client, "nope", 1, batch(&["x"]));
    assert_eq!(code, strand_protocol::error::ErrorCode::UnknownTopicOrPartition.code());
}

/// Acknowledged records survive a clean restart (SIGTERM) and a `kill -9`.
#[test]
fn acknowledged_records_survive_restarts() {
    let _serial = common::serial();
    let server = Server::start();
    let mut client = server.connect();
    common::create_topic(&mut client, "durable", 1);
    let mut expected = Vec::new();
    for i in 0..20 {
        let value = format!("v{i}");
        let acks = if i % 2 == 0 { 1 } else { -1 };
        assert_eq!(produce(&mut client, "durable", acks, batch(&[&value])).0, 0);
        expected.push(value);
    }
    drop(client);
    let data = server.terminate();
    assert!(data.path().join(".kafka_cleanshutdown").exists(), "a clean shutdown leaves the marker");

    let server = Server::start_in(data);
    let mut client = server.connect();
    assert_eq!(fetch_all(&mut client, "durable"), expected);
    for i in 20..40 {
        let value = format!("v{i}");
        assert_eq!(produce(&mut client, "durable", 1, batch(&[&value])).0, 0);
        expected.push(value);
    }
    drop(client);
    let data = server.kill();

    let server = Server::start_in(data);
    let mut client = server.connect();
    assert_eq!(fetch_all(&mut client, "durable"), expected, "kill -9 lost acknowledged records");
    assert_eq!(latest_offset(&mut client, "durable"), 40);
}

/// `kill -9` in the middle of production loses no acknowledged record, with acks=1 (the page
/// cache survives a process kill) and with acks=all (fsynced before the answer).
#[test]
fn kill_during_production_loses_nothing_acknowledged() {
    let _serial = common::serial();
    for acks in [1i16, -1] {
        let server = Server::start();
        let mut client = server.connect();
        let topic = format!("busy{}", acks.abs());
        common::create_topic(&mut client, &topic, 1);
        let address = server.address;
        let (acked_tx, acked_rx) = std::sync::mpsc::channel::<String>();
        let producer_topic = topic.clone();
        let producer = std::thread::spawn(move || {
            let mut client = common::Client::connect(address);
            for i in 0.. {
                let value = format!("r{i}");
                let request = ProduceRequest {
                    acks,
                    timeout_ms: 5_000,
                    topic_data: vec![TopicProduceData {
                        name: producer_topic.clone(),
                        partition_data: vec![PartitionProduceData {
                            index: 0,
                            records: Some(batch(&[&value])),
                            ..Default::default()
                        }],
                        ..Default::default()
                    }],
                    ..Default::default()
                };
                let frame = strand_protocol::frame::encode_request(i, None, &RequestBody::Produce(request), 9);
                let Ok(frame) = frame else { return };
                if std::io::Write::write_all(&mut client.stream, &frame).is_err() {
                    return;
                }
                match client.read_frame() {
                    Some(_) if acked_tx.send(value).is_ok() => {}
                    _ => return,
                }
            }
        });
        // Kill once a good number of records were acknowledged, with production still going.
        let mut acked = Vec::new();
        while acked.len() < 200 {
            acked.push(acked_rx.recv_timeout(common::WAIT_MAX).expect("acknowledgements keep coming"));
        }
        let data = server.kill();
        let _ = producer.join();
        acked.extend(acked_rx.try_iter());

        let server = Server::start_in(data);
        let mut client = server.connect();
        let stored = fetch_all(&mut client, &topic);
        assert!(stored.len() >= acked.len(), "acks={acks}: {} stored, {} acknowledged", stored.len(), acked.len());
        assert_eq!(stored[..acked.len()], acked[..], "acks={acks}: acknowledged records lost or reordered");
    }
}

/// A topic's own `segment.bytes` (set at creation) governs its log: batches roll into new
/// segment files at that size, where the broker default (1 GiB) would keep one.
#[test]
fn topic_configs_govern_the_log() {
    let _serial = common::serial();
    use strand_protocol::messages::create_topics_request::CreatableTopicConfig;
    let server = Server::start();
    let mut client = server.connect();
    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: "small-segments".into(),
            num_partitions: 1,
            replication_factor: 1,
            configs: vec![CreatableTopicConfig {
                name: "segment.bytes".into(),
                value: Some("1048576".into()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        timeout_ms: 10_000,
        ..Default::default()
    };
    let ResponseBody::CreateTopics(response) = client.call(RequestBody::CreateTopics(request), 7) else { panic!() };
    assert_eq!(response.topics[0].error_code, 0, "{:?}", response.topics[0]);
    let big = "x".repeat(600 * 1024);
    for _ in 0..4 {
        assert_eq!(produce(&mut client, "small-segments", 1, batch(&[&big])).0, 0);
    }
    let dir = server.data.path().join("small-segments-0");
    let segments = std::fs::read_dir(&dir)
        .expect("partition dir")
        .filter(|e| e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "log")))
        .count();
    assert!(segments >= 2, "{segments} segment(s) in {}", dir.display());
}

/// Pipelined produce requests (sent back to back, before any answer) are answered in request
/// order and appended in that order: the idempotent producer's guarantee, which Kafka gives by
/// muting a connection while its request is handled.
#[test]
fn pipelined_requests_keep_their_order() {
    let _serial = common::serial();
    let server = Server::start();
    let mut client = server.connect();
    common::create_topic(&mut client, "piped", 1);
    let count = 50;
    let mut frames = Vec::new();
    for i in 0..count {
        let request = ProduceRequest {
            acks: if i % 2 == 0 { 1 } else { -1 },
            timeout_ms: 10_000,
            topic_data: vec![TopicProduceData {
                name: "piped".into(),
                partition_data: vec![PartitionProduceData {
                    index: 0,
                    records: Some(batch(&[&format!("p{i}")])),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let frame = strand_protocol::frame::encode_request(1000 + i, None, &RequestBody::Produce(request), 9);
        frames.extend_from_slice(&frame.expect("encode"));
    }
    client.send_raw(&frames);
    for i in 0..count {
        let frame = client.read_frame().expect("a response per request");
        let (header, body) =
            strand_protocol::frame::decode_response(strand_protocol::messages::api::ApiKey::Produce, 9, frame)
                .expect("decode");
        assert_eq!(header.correlation_id, 1000 + i, "answers come in request order");
        let ResponseBody::Produce(response) = body else { panic!() };
        let partition = &response.responses[0].partition_responses[0];
        assert_eq!((partition.error_code, partition.base_offset), (0, i64::from(i)), "appended in request order");
    }
    let expected: Vec<String> = (0..count).map(|i| format!("p{i}")).collect();
    assert_eq!(fetch_all(&mut client, "piped"), expected);
}

/// SIGTERM closes the logs cleanly even while clients are connected: one idle, one in the middle
/// of a long-poll fetch. Their connections are closed, not waited for, so the clean-shutdown
/// marker is written.
#[test]
fn a_clean_stop_does_not_wait_for_connected_clients() {
    let _serial = common::serial();
    let server = Server::start();
    let mut idle = server.connect();
    common::create_topic(&mut idle, "quiet", 1);
    assert_eq!(produce(&mut idle, "quiet", 1, batch(&["x"])).0, 0);
    let mut polling = server.connect();
    let request = FetchRequest {
        max_wait_ms: 30_000,
        min_bytes: 1 << 20,
        max_bytes: 1 << 20,
        topics: vec![FetchTopic {
            topic: "quiet".into(),
            partitions: vec![FetchPartition {
                partition: 0,
                fetch_offset: 1,
                partition_max_bytes: 1 << 20,
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let frame = strand_protocol::frame::encode_request(7, None, &RequestBody::Fetch(request), 12).expect("encode");
    polling.send_raw(&frame);

    let data = server.terminate();
    assert!(data.path().join(".kafka_cleanshutdown").exists(), "connected clients kept the logs from closing cleanly");
    assert!(polling.read_frame().is_none(), "the long poll's connection is closed, not answered");
}
