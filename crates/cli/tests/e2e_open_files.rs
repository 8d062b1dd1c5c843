//! End to end over loopback, under a low open-files limit (`prlimit`, soft and hard alike, so the
//! node cannot raise it): a node hosts more partitions than three descriptors each would allow
//! (it held `.log`, `.index` and `.timeindex` open for every segment, and stopped hosting new
//! partitions with "Too many open files" while CreateTopics answered success), serves produces
//! and fetches on them, and starts again after a clean stop (it failed: "...timeindex: Too many
//! open files").
//!
//! The operator's case, run by hand with `TOPICS = 1000` and `OPEN_FILES = 20000` (10,000
//! partitions, 1,009 of them written): 1,024 descriptors hosting, 1,025 after a restart; the old
//! node stopped hosting at about 6,600 partitions and could not start again.

mod common;

use common::{Client, Server};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::{CreateTopicsRequest, FetchRequest, ProduceRequest};
use strand_protocol::records::RecordBatches;

/// The node's open-files limit, soft and hard.
const OPEN_FILES: usize = 600;
const TOPICS: usize = 50;
const PARTITIONS: usize = 10;
/// At three descriptors a partition, fewer than `OPEN_FILES / 3` partitions fit.
const _: () = assert!(TOPICS * PARTITIONS > OPEN_FILES / 3);

fn spawn(data: tempfile::TempDir) -> Server {
    let limit = format!("--nofile={OPEN_FILES}:{OPEN_FILES}");
    Server::spawn_under(&["prlimit", &limit, "--"], None, data, &[]).ready()
}

fn topic(t: usize) -> String {
    format!("many-{t:03}")
}

/// Creates every topic, 50 to a request (a controller decision of more than 10,000 records is
/// refused whole).
fn create_all(client: &mut Client) {
    let names: Vec<String> = (0..TOPICS).map(topic).collect();
    for chunk in names.chunks(50) {
        let topics = chunk
            .iter()
            .map(|name| CreatableTopic {
                name: name.clone(),
                num_partitions: PARTITIONS as i32,
                replication_factor: 1,
                ..Default::default()
            })
            .collect();
        let request = CreateTopicsRequest { topics, timeout_ms: 30_000, ..Default::default() };
        let ResponseBody::CreateTopics(response) = client.call(RequestBody::CreateTopics(request), 7) else { panic!() };
        for created in &response.topics {
            assert_eq!(created.error_code, 0, "{created:?}");
        }
    }
}

/// Produces one record to `topic`'s `partition` with acks=all, retried while the new topic's
/// leader is not ready yet (as a client retries); returns the error code of the last try.
fn produce(client: &mut Client, topic: &str, partition: i32, value: &str) -> i16 {
    let not_ready = [ErrorCode::NotLeaderOrFollower.code(), ErrorCode::UnknownTopicOrPartition.code()];
    let mut code = -1;
    for _ in 0..100 {
        let request = ProduceRequest {
            acks: -1,
            timeout_ms: 10_000,
            topic_data: vec![TopicProduceData {
                name: topic.into(),
                partition_data: vec![PartitionProduceData {
                    index: partition,
                    records: Some(common::batch(&[value])),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let ResponseBody::Produce(response) = client.call(RequestBody::Produce(request), 9) else { panic!() };
        code = response.responses[0].partition_responses[0].error_code;
        if !not_ready.contains(&code) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    code
}

/// The values in `topic`'s `partition` from offset 0.
fn fetch(client: &mut Client, topic: &str, partition: i32) -> Vec<String> {
    let request = FetchRequest {
        max_wait_ms: 0,
        max_bytes: 1 << 20,
        topics: vec![FetchTopic {
            topic: topic.into(),
            partitions: vec![FetchPartition { partition, partition_max_bytes: 1 << 20, ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::Fetch(response) = client.call(RequestBody::Fetch(request), 12) else { panic!() };
    let fetched = &response.responses[0].partitions[0];
    assert_eq!(fetched.error_code, 0, "fetch {topic}-{partition}");
    let records = fetched.records.as_ref().and_then(|r| r.as_bytes()).cloned().unwrap_or_default();
    let mut values = Vec::new();
    for batch in RecordBatches::new(records) {
        for record in batch.expect("batch").records().expect("records").iter() {
            values.push(String::from_utf8_lossy(record.expect("record").value().unwrap_or_default()).into_owned());
        }
    }
    values
}

/// The node's log lines that say a partition could not be hosted or the files ran out.
fn hosting_failures(server: &Server) -> Vec<String> {
    let log = server.log.lock().map(|l| l.clone()).unwrap_or_default();
    log.into_iter().filter(|l| l.contains("cannot host") || l.contains("Too many open files")).collect()
}

/// The partitions written to: partition 0 of every topic and every partition of the last one.
fn written() -> Vec<(String, i32)> {
    let firsts = (0..TOPICS).map(|t| (topic(t), 0));
    firsts.chain((1..PARTITIONS as i32).map(|p| (topic(TOPICS - 1), p))).collect()
}

#[test]
fn a_node_hosts_more_partitions_than_three_descriptors_each_allow_and_restarts() {
    let _serial = common::serial();
    let server = spawn(tempfile::tempdir().expect("dir"));
    let mut client = server.connect();
    create_all(&mut client);
    for (topic, partition) in written() {
        let code = produce(&mut client, &topic, partition, &format!("{topic}/{partition}"));
        assert_eq!(code, 0, "produce to {topic}-{partition}: {:?}", hosting_failures(&server));
    }
    assert_eq!(hosting_failures(&server), Vec::<String>::new());
    let log = server.log.lock().map(|l| l.join("\n")).unwrap_or_default();
    assert!(log.contains(&format!("open-files limit: {OPEN_FILES}")), "the limit is logged:\n{log}");
    assert!(log.contains("is too low for the"), "a limit too low for the partitions is a warning:\n{log}");
    let hosting = open_fds(&server);
    assert!(hosting < TOPICS * PARTITIONS, "{hosting} descriptors for {} partitions", TOPICS * PARTITIONS);
    drop(client);

    let server = spawn(server.terminate());
    let mut client = server.connect();
    for (topic, partition) in written() {
        let value = format!("{topic}/{partition}");
        assert_eq!(
            fetch(&mut client, &topic, partition),
            std::slice::from_ref(&value),
            "{topic}-{partition} after a restart"
        );
        assert_eq!(produce(&mut client, &topic, partition, "again"), 0, "{:?}", hosting_failures(&server));
    }
    assert_eq!(produce(&mut client, &topic(0), PARTITIONS as i32 - 1, "idle until now"), 0);
    assert_eq!(hosting_failures(&server), Vec::<String>::new());
    let restarted = open_fds(&server);
    eprintln!(
        "{} partitions, {} written: {hosting} descriptors, {restarted} after a restart",
        TOPICS * PARTITIONS,
        written().len()
    );
}

/// The descriptors the node holds (`prlimit` runs it in its own process).
fn open_fds(server: &Server) -> usize {
    std::fs::read_dir(format!("/proc/{}/fd", server.child.id())).map(|d| d.count()).unwrap_or(0)
}

/// The node raises its soft open-files limit to the hard one at start-up and says so.
#[test]
fn the_soft_open_files_limit_is_raised_to_the_hard_one() {
    let _serial = common::serial();
    let data = tempfile::tempdir().expect("dir");
    let server = Server::spawn_under(&["prlimit", "--nofile=256:1000", "--"], None, data, &[]).ready();
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", server.child.id())).expect("limits");
    let open_files = limits.lines().find(|l| l.starts_with("Max open files")).expect("a line for open files");
    assert_eq!(open_files.split_whitespace().collect::<Vec<_>>()[3..5], ["1000", "1000"], "{open_files}");
    let log = server.log.lock().map(|l| l.join("\n")).unwrap_or_default();
    assert!(log.contains("open-files limit: 1000"), "the limit is logged:\n{log}");
}
