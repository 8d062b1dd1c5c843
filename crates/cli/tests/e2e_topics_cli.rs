//! `strand topics` against a real node, compared with what Kafka 4.4's own `kafka-topics.sh`
//! printed for the same sequence: the golden files of `compat/kafka-tools/golden/` (recorded
//! from Kafka against Kafka, `compat/kafka-tools/test_kafka_tools.py`), with the same
//! normalisation (topic ids masked) and the same `exit: N` first line. Also the command-line
//! checks (stderr, exit 1, nothing on stdout) and `--output json`.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::Server;
use common::goldens::{check, strand_tool};

fn topics(server: &Server, args: &[&str]) -> Output {
    strand_tool(server, "topics", args, None)
}

/// The seeds' topic commands, as `compat/kafka-tools/test_kafka_tools.py` runs Kafka's tool:
/// byte for byte Kafka's output and exit codes.
#[test]
fn the_seeds_topic_commands_print_what_kafka_s_tool_prints() {
    let _serial = common::serial();
    let server = Server::start();
    let create = ["--create", "--topic", "first", "--partitions", "3", "--replication-factor", "1"];
    check("create-first", &topics(&server, &create));
    check("create-first-again", &topics(&server, &create));
    check("list", &topics(&server, &["--list"]));
    check("describe-first", &topics(&server, &["--describe", "--topic", "first"]));
    check("alter-first-3", &topics(&server, &["--alter", "--topic", "first", "--partitions", "3"]));
    check("alter-first-2", &topics(&server, &["--alter", "--topic", "first", "--partitions", "2"]));
    check("alter-first-5", &topics(&server, &["--alter", "--topic", "first", "--partitions", "5"]));
    check("describe-first-5", &topics(&server, &["--describe", "--topic", "first"]));
    // The same description, gathered two partitions per DescribeTopicPartitions answer.
    let paged = ["--describe", "--topic", "first", "--partition-size-limit-per-response", "2"];
    check("describe-first-5", &topics(&server, &paged));
    check(
        "create-lines",
        &topics(&server, &["--create", "--topic", "lines", "--partitions", "1", "--replication-factor", "1"]),
    );
    check("delete-first", &topics(&server, &["--delete", "--topic", "first"]));
    check("describe-deleted", &topics(&server, &["--describe", "--topic", "first"]));
    check("delete-deleted", &topics(&server, &["--delete", "--topic", "first"]));
    check("list-after-delete", &topics(&server, &["--list"]));
}

/// Wrong command lines: Kafka's reason on stderr, nothing on stdout, exit 1; `--if-not-exists`
/// and `--if-exists` make the missing or existing topic no failure.
#[test]
fn command_line_checks_and_conditional_actions() {
    let _serial = common::serial();
    let server = Server::start();
    for (args, reason) in [
        (&["--list", "--create"][..], "Command must include exactly one action"),
        (&["--create"][..], "Missing required argument \"[topic]\""),
        (&["--alter", "--topic", "a"][..], "Missing required argument \"[partitions]\""),
        (&["--list", "--partitions", "3"][..], "Option \"[partitions]\" can't be used with option \"[list]\""),
        (&["--list", "--bogus"][..], "--bogus"),
    ] {
        let done = topics(&server, args);
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert_eq!((done.status.code(), done.stdout.is_empty()), (Some(1), true), "{args:?}");
        assert!(stderr.contains(reason), "{args:?}: {stderr}");
    }
    let no_bootstrap = Command::new(env!("CARGO_BIN_EXE_strand")).args(["topics", "--list"]).output().expect("run");
    assert_eq!(no_bootstrap.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&no_bootstrap.stderr).contains("--bootstrap-server must be specified"));

    let create = ["--create", "--topic", "a_b", "--partitions", "1", "--if-not-exists"];
    let warning = "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could \
                   collide. To avoid issues it is best to use either, but not both.\n";
    let done = topics(&server, &create);
    assert_eq!(String::from_utf8_lossy(&done.stdout), format!("{warning}Created topic a_b.\n"));
    let done = topics(&server, &create);
    assert_eq!((done.status.code(), String::from_utf8_lossy(&done.stdout).into_owned()), (Some(0), warning.to_owned()));
    let done = topics(&server, &["--delete", "--topic", "missing", "--if-exists"]);
    assert_eq!((done.status.code(), done.stdout.is_empty()), (Some(0), true));
    let done = topics(&server, &["--create", "--topic", "x", "--partitions", "0"]);
    let stdout = String::from_utf8_lossy(&done.stdout);
    assert_eq!(stdout, "Error while executing topic command : The partitions must be greater than 0\n");
}

/// `--output json`: the listing and the description as JSON, and the same selection as text.
#[test]
fn json_output_for_list_and_describe() {
    let _serial = common::serial();
    let server = Server::start();
    let create = ["--create", "--topic", "orders", "--partitions", "2", "--config", "retention.ms=1000"];
    assert!(topics(&server, &create).status.success());
    let listed = topics(&server, &["--list", "--output", "json"]);
    assert_eq!(String::from_utf8_lossy(&listed.stdout), "[\"orders\"]\n");
    let described = topics(&server, &["--describe", "--output", "json"]);
    let document: serde_json::Value = serde_json::from_slice(&described.stdout).expect("JSON");
    let topic = &document[0];
    assert_eq!((topic["topic"].as_str(), topic["partitionCount"].as_u64()), (Some("orders"), Some(2)));
    assert_eq!(topic["configs"]["retention.ms"], "1000");
    assert_eq!(topic["partitions"][1]["leader"], 1);
    assert_eq!(topic["partitions"][1]["isr"], serde_json::json!([1]));
    assert_eq!(topic["topicId"].as_str().map(str::len), Some(22));
}

/// `bin/kafka-topics.sh` runs `strand topics` (here the binary under test, through `STRAND_BIN`)
/// with the user's arguments, so the seeds' commands run verbatim; `--help` shows an example.
#[test]
fn the_kafka_topics_shim_runs_strand_topics() {
    let _serial = common::serial();
    let server = Server::start();
    let shim = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../bin/kafka-topics.sh");
    let run = |args: &[&str]| {
        Command::new(&shim).args(args).env("STRAND_BIN", env!("CARGO_BIN_EXE_strand")).output().expect("run the shim")
    };
    let bootstrap = server.address.to_string();
    let created = run(&["--bootstrap-server", &bootstrap, "--create", "--topic", "orders", "--partitions", "3"]);
    assert_eq!(String::from_utf8_lossy(&created.stdout), "Created topic orders.\n");
    let listed = run(&["--bootstrap-server", &bootstrap, "--list"]);
    assert_eq!(
        (listed.status.code(), String::from_utf8_lossy(&listed.stdout).into_owned()),
        (Some(0), "orders\n".into())
    );
    let help = run(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("strand topics --bootstrap-server localhost:9092 --create"));
}
