//! A real `strand` over two log dirs moves a partition between them with AlterReplicaLogDirs
//! while a producer keeps writing to it (acks=all): DescribeLogDirs shows the partition in its
//! first dir, then its future replica in the other with a positive offset lag while the copy,
//! held to `replica.alter.log.dirs.io.max.bytes.per.second`, catches up; a `kill -9` in the
//! middle of the move leaves the `-future` directory, the restart resumes the move, and once it
//! is swapped every acknowledged record is there, once, in order, the partition's files are in
//! the new dir only, and the node has told the controller the new dir (AssignReplicasToDirs).
//! A move to the dir the partition is in is a no-op success; an unknown dir is LOG_DIR_NOT_FOUND.
//!
//! And through Apache Kafka 4.4's own tools: `kafka-reassign-partitions --execute` with
//! `log_dirs` in its JSON and `--replica-alter-log-dirs-throttle` starts the move, `--verify`
//! reports it completed and clears the throttle, and `kafka-log-dirs --describe` shows the
//! partition in its new dir. The tools run in Java: the Kafka 4.4.0 jars must be in
//! `$STRAND_KAFKA_LIBS` (default `<workspace>/target/kafka-libs`, put there by
//! `compat/kafka/fetch-jars.sh`). Without them the test fails and says so; it never skips.

mod common;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};

use common::kafka_tool::kafka_tool;
use common::{Client, Server, WAIT_MAX, batch, create_topic, fetch_all, produce, serial};
use strand_protocol::messages::alter_replica_log_dirs_request::{AlterReplicaLogDir, AlterReplicaLogDirTopic};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::incremental_alter_configs_request::{AlterConfigsResource, AlterableConfig};
use strand_protocol::messages::{
    AlterReplicaLogDirsRequest, DescribeLogDirsRequest, IncrementalAlterConfigsRequest, MetadataRequest,
};

const TOPIC: &str = "moving";
/// Records of 10 kB: 300 of them (3 MB) take many throttled copy steps.
const RECORD_BYTES: usize = 10_000;
const RECORDS_BEFORE_MOVE: usize = 300;
/// The throttle on the move, bytes a second: the 3 MB copy takes tens of seconds under it.
const THROTTLE: u64 = 100_000;
const LOG_DIR_NOT_FOUND: i16 = 57;

/// One partition of [`TOPIC`] in a log dir, as DescribeLogDirs reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Replica {
    dir: String,
    is_future: bool,
    offset_lag: i64,
    size: i64,
}

fn describe_log_dirs(client: &mut Client) -> Vec<Replica> {
    let request = DescribeLogDirsRequest { topics: None, ..Default::default() };
    let ResponseBody::DescribeLogDirs(response) = client.call(RequestBody::DescribeLogDirs(request), 4) else {
        panic!("not a DescribeLogDirs response")
    };
    let mut replicas = Vec::new();
    for dir in response.results {
        assert_eq!(dir.error_code, 0, "{dir:?}");
        for topic in dir.topics.iter().filter(|t| t.name == TOPIC) {
            for p in &topic.partitions {
                let (is_future, offset_lag, size) = (p.is_future_key, p.offset_lag, p.partition_size);
                replicas.push(Replica { dir: dir.log_dir.clone(), is_future, offset_lag, size });
            }
        }
    }
    replicas
}

/// AlterReplicaLogDirs for partition 0 of [`TOPIC`] to `dir`: its error code.
fn move_to(client: &mut Client, dir: &Path) -> i16 {
    let topics = vec![AlterReplicaLogDirTopic { name: TOPIC.into(), partitions: vec![0], ..Default::default() }];
    let dirs = vec![AlterReplicaLogDir { path: dir.display().to_string(), topics, ..Default::default() }];
    let request = AlterReplicaLogDirsRequest { dirs, ..Default::default() };
    let ResponseBody::AlterReplicaLogDirs(response) = client.call(RequestBody::AlterReplicaLogDirs(request), 2) else {
        panic!("not an AlterReplicaLogDirs response")
    };
    response.results[0].partitions[0].error_code
}

/// Sets (or with `None` deletes) the cluster-wide default of the log-dir move throttle.
fn set_throttle(client: &mut Client, rate: Option<u64>) {
    let config = AlterableConfig {
        name: "replica.alter.log.dirs.io.max.bytes.per.second".into(),
        config_operation: if rate.is_some() { 0 } else { 1 },
        value: rate.map(|r| r.to_string()),
        ..Default::default()
    };
    let resource = AlterConfigsResource {
        resource_type: 4,
        resource_name: String::new(),
        configs: vec![config],
        ..Default::default()
    };
    let request = IncrementalAlterConfigsRequest { resources: vec![resource], ..Default::default() };
    let ResponseBody::IncrementalAlterConfigs(response) = client.call(RequestBody::IncrementalAlterConfigs(request), 1)
    else {
        panic!("not an IncrementalAlterConfigs response")
    };
    assert_eq!(response.responses[0].error_code, 0, "{:?}", response.responses[0]);
}

/// A producer thread: one record per request, acks=all, until told to stop. Each acknowledged
/// value is kept, and its count sent on `acked`.
struct Producer {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Vec<String>>,
    acked: mpsc::Receiver<usize>,
}

impl Producer {
    fn start(server: &Server, first: usize) -> Producer {
        let mut client = server.connect();
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, acked) = mpsc::channel();
        let stopping = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let mut values = Vec::new();
            while !stopping.load(Ordering::Relaxed) {
                let value = format!("m{:06}-{}", first + values.len(), "x".repeat(RECORD_BYTES));
                let (error, _) = produce(&mut client, TOPIC, -1, batch(&[&value]));
                assert_eq!(error, 0, "an acks=all produce failed during the move");
                values.push(value);
                let _ = tx.send(values.len());
            }
            values
        });
        Producer { stop, thread, acked }
    }

    /// Waits until `count` records are acknowledged.
    fn wait_for(&self, count: usize) {
        while self.acked.recv_timeout(WAIT_MAX).expect("the producer goes on") < count {}
    }

    fn stop(self) -> Vec<String> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().expect("producer")
    }
}

/// The names of the entries of `dir` about [`TOPIC`].
fn topic_entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(TOPIC))
        .collect();
    names.sort();
    names
}

/// Polls DescribeLogDirs until `done` holds (the move is the node's, on its own schedule).
fn wait_for_dirs(client: &mut Client, what: &str, done: impl Fn(&[Replica]) -> bool) -> Vec<Replica> {
    for _ in 0..(WAIT_MAX.as_millis() / 50) {
        let replicas = describe_log_dirs(client);
        if done(&replicas) {
            return replicas;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("never {what}: {:?}", describe_log_dirs(client));
}

/// Whether the node's log says it placed replicas with AssignReplicasToDirs after it moved the
/// partition.
fn placed_after_move(server: &Server) -> bool {
    let lines = server.log.lock().map(|l| l.clone()).unwrap_or_default();
    let moved = lines.iter().position(|l| l.contains("moved moving-0 to its new log dir"));
    moved.is_some_and(|at| lines[at..].iter().any(|l| l.contains("placed 1 replicas in their log dirs")))
}

#[test]
fn a_partition_moves_between_log_dirs_under_produce_and_survives_a_crash_mid_move() {
    let _serial = serial();
    let data = tempfile::tempdir().expect("temp dir");
    let (a, b) = (data.path().join("a"), data.path().join("b"));
    let dirs = format!("log.dirs={},{}", a.display(), b.display());
    let metadata = format!("metadata.log.dir={}", a.display());
    let server = Server::start_with(data, &[&dirs, &metadata]);
    let mut client = server.connect();
    create_topic(&mut client, TOPIC, 1);
    let before = wait_for_dirs(&mut client, "hosted", |r| r.len() == 1);
    assert!(!before[0].is_future && before[0].offset_lag == 0, "{before:?}");
    let (from, to) = if before[0].dir == a.display().to_string() { (&a, &b) } else { (&b, &a) };

    assert_eq!(move_to(&mut client, Path::new("/no/such/log/dir")), LOG_DIR_NOT_FOUND);
    assert_eq!(move_to(&mut client, from), 0, "a move to the partition's own dir succeeds");
    assert_eq!(describe_log_dirs(&mut client), before, "and does nothing");

    let producer = Producer::start(&server, 0);
    producer.wait_for(RECORDS_BEFORE_MOVE);
    set_throttle(&mut client, Some(THROTTLE));
    assert_eq!(move_to(&mut client, to), 0);
    let moving = wait_for_dirs(&mut client, "moving", |r| r.iter().any(|r| r.is_future));
    let future = moving.iter().find(|r| r.is_future).expect("the future replica");
    assert_eq!(future.dir, to.display().to_string(), "{moving:?}");
    assert!(future.offset_lag > 0, "the future replica is behind while it copies: {moving:?}");
    let current = moving.iter().find(|r| !r.is_future).expect("the current replica");
    assert_eq!(current.dir, from.display().to_string(), "{moving:?}");
    assert!(current.size > future.size, "{moving:?}");
    // Unthrottled, the 3 MB would be copied in a few 1 MiB steps, long before 100 more acks=all
    // produces; held to 100 kB/s it is still copying.
    producer.wait_for(RECORDS_BEFORE_MOVE + 100);
    let still = describe_log_dirs(&mut client);
    assert!(still.iter().any(|r| r.is_future && r.offset_lag > 0), "the throttle holds the copy back: {still:?}");
    let acked_before = producer.stop();

    // kill -9 in the middle of the move: the future log stays on disk.
    drop(client);
    let data = server.kill();
    let future_dirs = topic_entries(to);
    assert!(
        future_dirs.len() == 1 && future_dirs[0].starts_with("moving-0.") && future_dirs[0].ends_with("-future"),
        "{future_dirs:?}"
    );
    assert_eq!(topic_entries(from), ["moving-0"]);

    let server = Server::start_with(data, &[&dirs, &metadata]);
    let mut client = server.connect();
    set_throttle(&mut client, None);
    let producer = Producer::start(&server, acked_before.len());
    let moved = wait_for_dirs(&mut client, "moved", |r| r.len() == 1 && r[0].dir == to.display().to_string());
    assert!(!moved[0].is_future, "{moved:?}");
    producer.wait_for(50);
    let acked_after = producer.stop();

    let expected: Vec<String> = acked_before.into_iter().chain(acked_after).collect();
    let stored = fetch_all(&mut client, TOPIC);
    assert_eq!(stored.len(), expected.len(), "every acknowledged record, once");
    assert!(stored == expected, "the records differ from those acknowledged");
    assert_eq!(topic_entries(to), ["moving-0"]);
    assert!(topic_entries(from).is_empty(), "nothing of the partition left in {}", from.display());
    for _ in 0..(WAIT_MAX.as_millis() / 50) {
        if placed_after_move(&server) {
            break;
        }
        // The node says so in its log only: nothing to wait on but its lines.
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(placed_after_move(&server), "the new dir sent to the controller (AssignReplicasToDirs)");
    drop(client);
    let _data = server.terminate();
}

const REASSIGN: &str = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand";
const LOG_DIRS: &str = "org.apache.kafka.tools.LogDirsCommand";

/// `kafka-log-dirs --describe`'s JSON: each log dir of the broker with the partitions of
/// [`TOPIC`] in it (`<topic>-<partition>`, whether future).
fn tool_log_dirs(server: &Server) -> Vec<(String, Vec<(String, bool)>)> {
    let (ok, stdout) = kafka_tool(LOG_DIRS, server.address, &["--describe", "--topic-list", TOPIC]);
    assert!(ok, "kafka-log-dirs failed: {stdout}");
    let json = stdout.lines().find(|l| l.starts_with('{')).expect("the JSON line");
    let described: serde_json::Value = serde_json::from_str(json).expect("JSON");
    let dirs = described["brokers"][0]["logDirs"].as_array().expect("logDirs").clone();
    dirs.iter()
        .map(|dir| {
            let partitions = dir["partitions"].as_array().cloned().unwrap_or_default();
            let partitions = partitions
                .iter()
                .map(|p| (p["partition"].as_str().unwrap_or_default().to_owned(), p["isFuture"] == true))
                .collect();
            (dir["logDir"].as_str().unwrap_or_default().to_owned(), partitions)
        })
        .collect()
}

/// `kafka-reassign-partitions --execute` with `log_dirs` and a log-dir throttle moves the
/// partition; `--verify` completes it and clears the throttle; `kafka-log-dirs` shows the move.
#[test]
fn kafka_reassign_partitions_moves_a_replica_between_log_dirs() {
    let _serial = serial();
    let data = tempfile::tempdir().expect("temp dir");
    let (a, b) = (data.path().join("a"), data.path().join("b"));
    let dirs = format!("log.dirs={},{}", a.display(), b.display());
    let metadata = format!("metadata.log.dir={}", a.display());
    let server = Server::start_with(data, &[&dirs, &metadata]);
    let mut client = server.connect();
    create_topic(&mut client, TOPIC, 1);
    let values: Vec<String> = (0..20).map(|i| format!("t{i}")).collect();
    for value in &values {
        assert_eq!(produce(&mut client, TOPIC, -1, batch(&[value])).0, 0);
    }
    let request = MetadataRequest { topics: None, ..Default::default() };
    let ResponseBody::Metadata(cluster) = client.call(RequestBody::Metadata(request), 12) else { panic!() };
    let node = cluster.brokers[0].node_id.0;
    let before = wait_for_dirs(&mut client, "hosted", |r| r.len() == 1);
    let (from, to) = if before[0].dir == a.display().to_string() { (&a, &b) } else { (&b, &a) };
    let described = tool_log_dirs(&server);
    let holding = |dirs: &[(String, Vec<(String, bool)>)], dir: &Path| {
        dirs.iter().find(|(d, _)| *d == dir.display().to_string()).map(|(_, p)| p.clone()).unwrap_or_default()
    };
    assert_eq!(holding(&described, from), [(format!("{TOPIC}-0"), false)], "{described:?}");
    assert!(holding(&described, to).is_empty(), "{described:?}");

    let plan_file = tempfile::NamedTempFile::new().expect("plan file");
    let plan = serde_json::json!({"version": 1, "partitions": [
        {"topic": TOPIC, "partition": 0, "replicas": [node], "log_dirs": [to.display().to_string()]}
    ]});
    std::fs::write(plan_file.path(), plan.to_string()).expect("write the plan");
    let plan_path = plan_file.path().display().to_string();
    let args = ["--execute", "--reassignment-json-file", &plan_path, "--replica-alter-log-dirs-throttle", "1000000"];
    let (ok, stdout) = kafka_tool(REASSIGN, server.address, &args);
    assert!(ok, "--execute failed: {stdout}");
    let started = format!(
        "Successfully started moving log directory to {} for replica {TOPIC}-0 with broker {node}",
        to.display()
    );
    assert!(stdout.contains(&started), "{stdout}");
    assert!(stdout.contains("The replica-alter-dir throttle limit was set to 1000000 B/s"), "{stdout}");

    let completed = format!("Reassignment of replica {TOPIC}-0-{node} completed successfully.");
    let mut verified = String::new();
    for _ in 0..(WAIT_MAX.as_millis() / 500) {
        let (ok, stdout) = kafka_tool(REASSIGN, server.address, &["--verify", "--reassignment-json-file", &plan_path]);
        assert!(ok, "--verify failed: {stdout}");
        verified = stdout;
        if verified.contains(&completed) {
            break;
        }
    }
    assert!(verified.contains(&completed), "{verified}");
    assert!(verified.contains(&format!("Clearing broker-level throttles on broker {node}")), "{verified}");

    let described = tool_log_dirs(&server);
    assert_eq!(holding(&described, to), [(format!("{TOPIC}-0"), false)], "{described:?}");
    assert!(holding(&described, from).is_empty(), "{described:?}");
    assert_eq!(fetch_all(&mut client, TOPIC), values);
    assert_eq!(topic_entries(to), [format!("{TOPIC}-0")]);
    assert!(topic_entries(from).is_empty());
    drop(client);
    let _data = server.terminate();
}
