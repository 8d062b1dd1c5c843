//! A real `strand` over two log dirs, one of which is dead at start-up (a regular file where the
//! directory was, as a failed mount or an operator's mistake leaves it): the node starts on the
//! other, as Kafka's `LogManager` does, logs one ERROR naming the dead dir, answers
//! DescribeLogDirs KAFKA_STORAGE_ERROR for it, serves the partitions of the good dir with their
//! records, leaves the dead dir's partitions offline rather than recreating them empty, and stops
//! cleanly.

mod common;

use std::collections::BTreeMap;

use common::{Client, Server, batch, create_topic, serial};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::{DescribeLogDirsRequest, FetchRequest, ProduceRequest};
use strand_protocol::records::RecordBatches;

const TOPIC: &str = "spread";
const PARTITIONS: i32 = 4;
const KAFKA_STORAGE_ERROR: i16 = 56;

/// Each log dir's error code and the partitions of [`TOPIC`] it holds.
fn describe_log_dirs(client: &mut Client) -> BTreeMap<String, (i16, Vec<i32>)> {
    let request = DescribeLogDirsRequest { topics: None, ..Default::default() };
    let ResponseBody::DescribeLogDirs(response) = client.call(RequestBody::DescribeLogDirs(request), 4) else {
        panic!("not a DescribeLogDirs response")
    };
    response
        .results
        .into_iter()
        .map(|dir| {
            let partitions = dir.topics.iter().filter(|t| t.name == TOPIC);
            let mut indexes: Vec<i32> =
                partitions.flat_map(|t| t.partitions.iter().map(|p| p.partition_index)).collect();
            indexes.sort_unstable();
            (dir.log_dir, (dir.error_code, indexes))
        })
        .collect()
}

/// Produces `value` to `partition` with acks=1: the error code.
fn produce_to(client: &mut Client, partition: i32, value: &str) -> i16 {
    let data = PartitionProduceData { index: partition, records: Some(batch(&[value])), ..Default::default() };
    let topic = TopicProduceData { name: TOPIC.into(), partition_data: vec![data], ..Default::default() };
    let request = ProduceRequest { acks: 1, timeout_ms: 10_000, topic_data: vec![topic], ..Default::default() };
    let ResponseBody::Produce(response) = client.call(RequestBody::Produce(request), 9) else { panic!() };
    response.responses[0].partition_responses[0].error_code
}

/// Fetches `partition` from 0: the error code and the record values.
fn fetch_from(client: &mut Client, partition: i32) -> (i16, Vec<String>) {
    let fetched = FetchPartition { partition, fetch_offset: 0, partition_max_bytes: 1 << 20, ..Default::default() };
    let topic = FetchTopic { topic: TOPIC.into(), partitions: vec![fetched], ..Default::default() };
    let request = FetchRequest { max_wait_ms: 0, max_bytes: 1 << 20, topics: vec![topic], ..Default::default() };
    let ResponseBody::Fetch(response) = client.call(RequestBody::Fetch(request), 12) else { panic!() };
    let partition = &response.responses[0].partitions[0];
    let records = partition.records.as_ref().and_then(|r| r.as_bytes()).cloned().unwrap_or_default();
    let mut values = Vec::new();
    for batch in RecordBatches::new(records) {
        for record in batch.expect("whole batch").records().expect("records").iter() {
            values.push(String::from_utf8_lossy(record.expect("record").value().unwrap_or_default()).into_owned());
        }
    }
    (partition.error_code, values)
}

/// Waits until the node has told the controller where every partition of [`TOPIC`] is
/// (AssignReplicasToDirs, KIP-858): a restart then knows which replicas the dead dir held.
fn wait_until_placed(server: &Server) {
    for _ in 0..300 {
        let placed: usize = server
            .log
            .lock()
            .map(|lines| {
                lines.iter().filter_map(|l| l.split("placed ").nth(1)?.split(' ').next()?.parse::<usize>().ok()).sum()
            })
            .unwrap_or(0);
        if placed >= PARTITIONS as usize {
            return;
        }
        // The node says so in its log only: nothing to wait on but its lines.
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("the replicas were never placed in their log dirs");
}

/// The second of two log dirs replaced by a file while the node is down: before, the node did
/// not start at all ("cannot lock log directory"); now it starts on the first dir.
#[test]
fn a_dead_log_dir_at_start_up_is_offline_and_the_node_serves_the_others() {
    let _serial = serial();
    let data = tempfile::tempdir().expect("temp dir");
    let (a, b) = (data.path().join("a"), data.path().join("b"));
    let dirs = format!("log.dirs={},{}", a.display(), b.display());
    let metadata = format!("metadata.log.dir={}", a.display());
    let server = Server::start_with(data, &[&dirs, &metadata]);
    let mut client = server.connect();
    create_topic(&mut client, TOPIC, PARTITIONS);
    for partition in 0..PARTITIONS {
        assert_eq!(produce_to(&mut client, partition, &format!("v{partition}")), 0);
    }
    let before = describe_log_dirs(&mut client);
    let in_a = before[&a.display().to_string()].1.clone();
    let in_b = before[&b.display().to_string()].1.clone();
    assert!(!in_a.is_empty() && !in_b.is_empty(), "the partitions are spread: {before:?}");
    wait_until_placed(&server);
    drop(client);
    let data = server.terminate();

    std::fs::remove_dir_all(&b).expect("remove the second dir");
    std::fs::write(&b, b"a dead disk").expect("a file in its place");
    let server = Server::start_with(data, &[&dirs, &metadata]);
    let mut client = server.connect();

    let lines = server.log.lock().map(|l| l.clone()).unwrap_or_default();
    let errors: Vec<&String> = lines.iter().filter(|l| l.contains(" ERROR ")).collect();
    assert_eq!(errors.len(), 1, "one ERROR line: {lines:#?}");
    assert!(errors[0].contains(&b.display().to_string()), "{}", errors[0]);

    let after = describe_log_dirs(&mut client);
    assert_eq!(after[&b.display().to_string()], (KAFKA_STORAGE_ERROR, Vec::new()), "{after:?}");
    assert_eq!(after[&a.display().to_string()], (0, in_a.clone()), "{after:?}");
    for &partition in &in_a {
        assert_eq!(fetch_from(&mut client, partition), (0, vec![format!("v{partition}")]));
        assert_eq!(produce_to(&mut client, partition, "more"), 0);
    }
    for &partition in &in_b {
        let (error, values) = fetch_from(&mut client, partition);
        assert_ne!(error, 0, "partition {partition} of the dead dir served {values:?}");
        assert_ne!(produce_to(&mut client, partition, "lost"), 0, "partition {partition} of the dead dir took a write");
    }
    drop(client);
    let _data = server.terminate();
    assert_eq!(std::fs::read(&b).expect("the file"), b"a dead disk", "the dead dir was written to");
}
