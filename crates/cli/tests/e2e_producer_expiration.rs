//! A running node forgets idle producers on Kafka's schedule: an idempotent producer that stops
//! writing is gone from DescribeProducers once `producer.id.expiration.ms` has passed and the
//! next `producer.id.expiration.check.interval.ms` pass has run, without a restart.

mod common;

use common::{Client, Server};
use strand_base::ProducerId;
use strand_protocol::messages::DescribeProducersRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::describe_producers_request::TopicRequest;
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

/// The producer ids DescribeProducers reports for partition 0 of `topic`.
fn producers(client: &mut Client, topic: &str) -> Vec<i64> {
    let request = DescribeProducersRequest {
        topics: vec![TopicRequest { name: topic.into(), partition_indexes: vec![0], ..Default::default() }],
        ..Default::default()
    };
    let ResponseBody::DescribeProducers(response) = client.call(RequestBody::DescribeProducers(request), 0) else {
        panic!("not a DescribeProducers response")
    };
    let partition = &response.topics[0].partitions[0];
    assert_eq!(partition.error_code, 0);
    partition.active_producers.iter().map(|p| p.producer_id.0).collect()
}

/// An idle idempotent producer is reported, then forgotten by the periodic pass.
#[test]
fn an_idle_producer_is_forgotten_while_the_node_runs() {
    let _serial = common::serial();
    let data = tempfile::tempdir().expect("dir");
    let overrides = ["producer.id.expiration.ms=1000", "producer.id.expiration.check.interval.ms=100"];
    let server = Server::start_with(data, &overrides);
    let mut client = server.connect();
    common::create_topic(&mut client, "t", 1);
    let now = std::time::SystemTime::UNIX_EPOCH.elapsed().map(|d| d.as_millis() as i64).unwrap_or(0);
    let mut builder = RecordBatchBuilder::new().producer(ProducerId(777), 0, 0);
    builder.append(&NewRecord { timestamp_ms: now, key: None, value: Some(b"v"), headers: &[] }).expect("record");
    assert_eq!(common::produce(&mut client, "t", -1, builder.build().expect("batch")).0, 0);
    assert_eq!(producers(&mut client, "t"), [777]);
    common::txn::until("the idle producer forgotten", || producers(&mut client, "t"), Vec::is_empty);
}
