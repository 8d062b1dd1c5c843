//! `strand verifiable-producer` and `strand verifiable-consumer` against a real node: the
//! producer's reported sends are what a group consumer then finds, offset for offset; the
//! group's commit holds (a second run reads only what came after); SIGTERM ends both tools with
//! their closing events; flags Strand does not serve are refused; and the producer's lines have
//! the keys and value types of Kafka 4.4's own `VerifiableProducer` run against the same node.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, Output, Stdio};

use common::Server;
use common::kafka_tool::kafka_command;
use serde_json::Value;

/// `strand <tool> --bootstrap-server <server> <args>`, run to its end.
fn tool(server: &Server, tool: &str, args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_strand"))
        .args([tool, "--bootstrap-server", &server.address.to_string()])
        .args(args)
        .output()
        .expect("run strand");
    eprintln!("{tool}: {}\n{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    output
}

/// `strand <tool> ...` started with its stdout piped, read line by line.
fn spawn(server: &Server, tool: &str, args: &[&str]) -> (Child, BufReader<ChildStdout>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strand"))
        .args([tool, "--bootstrap-server", &server.address.to_string()])
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn strand");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    (child, stdout)
}

/// The events of `stdout`, one JSON object a line.
fn events(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect()
}

/// The next event from a running tool, printed as it comes.
fn next_event(stdout: &mut BufReader<ChildStdout>) -> Value {
    let mut line = String::new();
    let read = stdout.read_line(&mut line).expect("read a line");
    assert!(read > 0, "the tool ended early");
    eprintln!("{}", line.trim_end());
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
}

fn named<'a>(events: &'a [Value], name: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["name"] == name).collect()
}

/// (partition, offset) -> value of the events' records.
fn records(events: &[&Value]) -> BTreeMap<(i64, i64), String> {
    let field = |e: &Value, key: &str| e[key].as_i64().unwrap_or_else(|| panic!("{key} in {e}"));
    events
        .iter()
        .map(|e| ((field(e, "partition"), field(e, "offset")), e["value"].as_str().expect("value").to_owned()))
        .collect()
}

/// 300 records with acks=all: 300 send successes whose offsets fill both partitions from 0; a
/// group consumer gets assigned both, consumes exactly those 300 (offset and value) in polls of
/// at most its `max.poll.records` and commits each partition's end; a second run of the group reads only a record produced after that.
#[test]
fn a_group_consumes_exactly_what_the_producer_acknowledged() {
    let _serial = common::serial();
    let server = Server::start();
    common::create_topic(&mut server.connect(), "verified", 2);
    let produced =
        tool(&server, "verifiable-producer", &["--topic", "verified", "--max-messages", "300", "--acks", "-1"]);
    assert!(produced.status.success());
    let producer_events = events(&produced.stdout);
    let names: Vec<&str> = producer_events.iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(names.first(), Some(&"startup_complete"));
    assert_eq!(names[names.len() - 2..], ["shutdown_complete", "tool_data"]);
    let sent = records(&named(&producer_events, "producer_send_success"));
    assert_eq!(sent.len(), 300);
    assert_eq!(sent.values().collect::<BTreeSet<_>>().len(), 300, "each value once");
    for partition in [0, 1] {
        let offsets: Vec<i64> = sent.keys().filter(|(p, _)| *p == partition).map(|(_, o)| *o).collect();
        assert_eq!(offsets, (0..offsets.len() as i64).collect::<Vec<_>>(), "partition {partition}");
    }
    let summary = named(&producer_events, "tool_data")[0];
    assert_eq!((summary["sent"].as_i64(), summary["acked"].as_i64()), (Some(300), Some(300)));

    let config = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(config.path(), "max.poll.records=50\n").expect("write");
    let path = config.path().display().to_string();
    let args = ["--topic", "verified", "--group-id", "checkers", "--max-messages", "300", "--verbose"];
    let consumed = tool(&server, "verifiable-consumer", &[&args[..], &["--consumer.config", &path]].concat());
    assert!(consumed.status.success());
    let consumer_events = events(&consumed.stdout);
    let assigned = named(&consumer_events, "partitions_assigned");
    let both = serde_json::json!([{"topic": "verified", "partition": 0}, {"topic": "verified", "partition": 1}]);
    assert_eq!(assigned.len(), 1);
    assert_eq!(assigned[0]["partitions"], both);
    assert_eq!(records(&named(&consumer_events, "record_data")), sent);
    let polls: Vec<i64> =
        named(&consumer_events, "records_consumed").iter().filter_map(|e| e["count"].as_i64()).collect();
    assert_eq!(polls.iter().sum::<i64>(), 300);
    assert!(polls.len() >= 6 && polls.iter().all(|n| *n <= 50), "max.poll.records=50: {polls:?}");
    let mut committed = BTreeMap::new();
    for commit in named(&consumer_events, "offsets_committed") {
        assert_eq!(commit["success"], true, "{commit}");
        for offset in commit["offsets"].as_array().expect("offsets") {
            committed.insert(offset["partition"].as_i64(), offset["offset"].as_i64());
        }
    }
    let ends = |partition: i64| sent.keys().filter(|(p, _)| *p == partition).count() as i64;
    assert_eq!(committed, BTreeMap::from([(Some(0), Some(ends(0))), (Some(1), Some(ends(1)))]));
    let names: Vec<&str> = consumer_events.iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(names[names.len() - 3..], ["partitions_revoked", "shutdown_complete", "shutdown_requested"]);

    // The group again, its member named by client.id (the group's description shows it): once
    // assigned, one new record; it is the only one consumed.
    std::fs::write(config.path(), "client.id=checker-7\n").expect("write");
    let again_args = [&args[..5], &["1", "--verbose", "--consumer.config", &path]].concat();
    let (mut again, mut stdout) = spawn(&server, "verifiable-consumer", &again_args);
    assert_eq!(next_event(&mut stdout)["name"], "startup_complete");
    assert_eq!(next_event(&mut stdout)["partitions"], both);
    let described = tool(&server, "consumer-groups", &["--describe", "--group", "checkers", "--members"]);
    let members = String::from_utf8_lossy(&described.stdout);
    let client_ids: Vec<&str> =
        members.lines().filter(|l| l.starts_with("checkers ")).filter_map(|l| l.split_whitespace().nth(3)).collect();
    assert_eq!(client_ids, ["checker-7"], "{members}");
    let one =
        tool(&server, "verifiable-producer", &["--topic", "verified", "--max-messages", "1", "--value-prefix", "9"]);
    let new = records(&named(&events(&one.stdout), "producer_send_success"));
    let record = next_event(&mut stdout);
    assert_eq!(record["name"], "record_data");
    assert_eq!(records(&[&record]), new);
    assert!(again.wait().expect("wait").success());
}

/// SIGTERM mid-run: the producer ends with shutdown_complete and tool_data counting exactly the
/// sends it reported; the consumer with shutdown_requested, its partitions revoked, then
/// shutdown_complete.
#[test]
fn sigterm_ends_both_tools_with_their_closing_events() {
    let _serial = common::serial();
    let server = Server::start();
    common::create_topic(&mut server.connect(), "endless", 1);
    let (producer, mut stdout) = spawn(&server, "verifiable-producer", &["--topic", "endless", "--throughput", "100"]);
    assert_eq!(next_event(&mut stdout)["name"], "startup_complete");
    for _ in 0..3 {
        assert_eq!(next_event(&mut stdout)["name"], "producer_send_success");
    }
    let rest = terminate(producer, stdout);
    let names: Vec<&str> = rest.iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(names[names.len() - 2..], ["shutdown_complete", "tool_data"]);
    let successes = 3 + named(&rest, "producer_send_success").len() as i64;
    let summary = named(&rest, "tool_data")[0];
    assert_eq!(summary["acked"].as_i64(), Some(successes), "{summary}");
    assert_eq!(summary["target_throughput"].as_i64(), Some(100));

    // --throughput 0: Kafka's throttler lets the first record out and then waits for good.
    let (producer, mut stdout) = spawn(&server, "verifiable-producer", &["--topic", "endless", "--throughput", "0"]);
    assert_eq!(next_event(&mut stdout)["name"], "startup_complete");
    assert_eq!(next_event(&mut stdout)["name"], "producer_send_success");
    let rest = terminate(producer, stdout);
    let names: Vec<&str> = rest.iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(names, ["shutdown_complete", "tool_data"]);
    assert_eq!((rest[1]["sent"].as_i64(), rest[1]["acked"].as_i64()), (Some(1), Some(1)));

    // An empty topic: nothing consumed, so nothing else comes between.
    common::create_topic(&mut server.connect(), "quiet", 1);
    let args = ["--topic", "quiet", "--group-id", "stoppers"];
    let (consumer, mut stdout) = spawn(&server, "verifiable-consumer", &args);
    assert_eq!(next_event(&mut stdout)["name"], "startup_complete");
    assert_eq!(next_event(&mut stdout)["name"], "partitions_assigned");
    let rest = terminate(consumer, stdout);
    let names: Vec<&str> = rest.iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(names, ["shutdown_requested", "partitions_revoked", "shutdown_complete"]);
}

/// A second member splits the group: the first is told to rejoin, prints its partitions revoked
/// and gets one of the two (Kafka's range assignment), the second the other.
#[test]
fn a_second_member_takes_half_the_partitions() {
    let _serial = common::serial();
    let server = Server::start();
    common::create_topic(&mut server.connect(), "shared", 2);
    let args = ["--topic", "shared", "--group-id", "sharers"];
    let (first, mut first_out) = spawn(&server, "verifiable-consumer", &args);
    assert_eq!(next_event(&mut first_out)["name"], "startup_complete");
    assert_eq!(next_event(&mut first_out)["partitions"].as_array().map(Vec::len), Some(2));
    let (second, mut second_out) = spawn(&server, "verifiable-consumer", &args);
    assert_eq!(next_event(&mut second_out)["name"], "startup_complete");
    let second_assigned = next_event(&mut second_out);
    assert_eq!(second_assigned["name"], "partitions_assigned");
    let revoked = next_event(&mut first_out);
    assert_eq!(
        (revoked["name"].as_str(), revoked["partitions"].as_array().map(Vec::len)),
        (Some("partitions_revoked"), Some(2))
    );
    let first_assigned = next_event(&mut first_out);
    assert_eq!(first_assigned["name"], "partitions_assigned");
    let partitions = |event: &Value| -> Vec<i64> {
        event["partitions"].as_array().expect("partitions").iter().filter_map(|p| p["partition"].as_i64()).collect()
    };
    let mut both = [partitions(&first_assigned), partitions(&second_assigned)];
    both.sort();
    assert_eq!(both, [vec![0], vec![1]]);
    terminate(second, second_out);
    terminate(first, first_out);
}

/// Sends SIGTERM to `child` and returns the events it printed from then on; it must exit 0.
fn terminate(mut child: Child, mut stdout: BufReader<ChildStdout>) -> Vec<Value> {
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill");
    assert!(status.success());
    let mut rest = Vec::new();
    std::io::Read::read_to_end(&mut stdout, &mut rest).expect("read to the end");
    eprintln!("{}", String::from_utf8_lossy(&rest));
    assert!(child.wait().expect("wait").success());
    events(&rest)
}

/// Flags Kafka has and Strand does not serve are refused in one line naming them; a bad --acks
/// is refused as Kafka's parser refuses it.
#[test]
fn unsupported_flags_are_refused() {
    let _serial = common::serial();
    let server = Server::start();
    let base = ["--topic", "t", "--group-id", "g"];
    let refused = [
        (&["--group-protocol", "consumer"][..], "--group-protocol consumer"),
        (&["--group-remote-assignor", "uniform"][..], "--group-remote-assignor"),
        (
            &["--assignment-strategy", "org.apache.kafka.clients.consumer.RoundRobinAssignor"][..],
            "--assignment-strategy",
        ),
    ];
    for (extra, flag) in refused {
        let output = tool(&server, "verifiable-consumer", &[&base[..], extra].concat());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1));
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(flag) && stderr.contains("not supported"), "{stderr}");
        assert!(output.stdout.is_empty());
    }
    let config = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(config.path(), "compression.type=gzip\n").expect("write");
    let path = config.path().display().to_string();
    let output = tool(&server, "verifiable-producer", &["--topic", "t", "--producer.config", &path]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr.trim() == "compression.type is not supported by this version of Strand", "{stderr}");
    // A consumer property Strand's client would not honour is refused; a name no Kafka client
    // knows gets Kafka's warning and the run goes on.
    std::fs::write(config.path(), "fetch.min.bytes=1000\nclient.id=c\n").expect("write");
    let output = tool(&server, "verifiable-consumer", &[&base[..], &["--consumer.config", &path]].concat());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stderr.trim_end(), "fetch.min.bytes is not supported by this version of Strand");
    std::fs::write(config.path(), "no.such.setting=1\nacks=1\n").expect("write");
    let args = ["--topic", "t", "--max-messages", "0", "--producer.config", &path];
    let output = tool(&server, "verifiable-producer", &args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(stderr.trim_end(), "WARN These configurations '[no.such.setting]' were supplied but are not used yet.");
    let output = tool(&server, "verifiable-producer", &["--topic", "t", "--acks", "2"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--acks"));
}

/// Each event's name and keys in the order the line has them (`serde_json`'s map sorts them; a
/// producer event is flat, so a key's first `"key":` in the line is where it stands), with the
/// JSON type of each value.
fn shapes(stdout: &[u8]) -> Vec<(String, Vec<(String, &'static str)>)> {
    let kind = |v: &Value| match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let text = String::from_utf8_lossy(stdout);
    let mut shapes = Vec::new();
    for line in text.lines() {
        let event: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        let object = event.as_object().expect("an object");
        let mut keys: Vec<(usize, String, &'static str)> = object
            .iter()
            .map(|(k, v)| (line.find(&format!("\"{k}\":")).expect("the key in the line"), k.clone(), kind(v)))
            .collect();
        keys.sort();
        let name = event["name"].as_str().unwrap_or_default().to_owned();
        shapes.push((name, keys.into_iter().map(|(_, k, t)| (k, t)).collect()));
    }
    shapes
}

/// Kafka 4.4's VerifiableProducer and Strand's against the same node, the same arguments: the
/// same events in the same order, each with the same keys in the same order and value types.
#[test]
fn the_producer_s_lines_have_kafka_s_shape() {
    let _serial = common::serial();
    let server = Server::start();
    common::create_topic(&mut server.connect(), "shapes", 1);
    let args = ["--topic", "shapes", "--max-messages", "3", "--repeating-keys", "2", "--value-prefix", "5"];
    let bootstrap = server.address.to_string();
    let kafka_args: Vec<&str> = ["--bootstrap-server", bootstrap.as_str()].into_iter().chain(args).collect();
    let (ok, kafka_stdout, _) = kafka_command("org.apache.kafka.tools.VerifiableProducer", &kafka_args);
    assert!(ok);
    let strand = tool(&server, "verifiable-producer", &args);
    assert!(strand.status.success());
    assert_eq!(shapes(&strand.stdout), shapes(kafka_stdout.as_bytes()));
    let kafka_events = events(kafka_stdout.as_bytes());
    let strand_events = events(&strand.stdout);
    let values = |events: &[Value]| -> Vec<(Value, Value)> {
        named(events, "producer_send_success").iter().map(|e| (e["key"].clone(), e["value"].clone())).collect()
    };
    assert_eq!(values(&strand_events), values(&kafka_events));
}
