//! Apache Kafka is the oracle for the records Strand writes to `__consumer_offsets`: the records
//! the shard writes for an offset commit (plain, with an expire timestamp, with a topic id), an
//! offset deletion, a group's creation, its generation's assignment (dynamic and static member),
//! its emptying and deletion are byte for byte what Kafka 4.4's `GroupCoordinatorRecordHelpers`
//! write for the same inputs; and Kafka's `GroupCoordinatorRecordSerde` reads every record of a
//! larger run and writes it back unchanged.
//!
//! This runs Java: the Kafka 4.4.0 jars must be in `$STRAND_KAFKA_LIBS` (default
//! `<workspace>/target/kafka-libs`), put there by `compat/kafka/fetch-jars.sh`. Without them the
//! test fails and says so; it never skips.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::*;
use strand_base::Uuid;
use strand_coordinator::group::records::CoordinatorRecord;
use strand_protocol::messages::OffsetDeleteRequest;
use strand_protocol::messages::offset_delete_request::{OffsetDeleteRequestPartition, OffsetDeleteRequestTopic};

/// Jars that must be in the libs directory.
const REQUIRED_JARS: [&str; 3] = ["kafka-clients-", "kafka-group-coordinator-", "kafka-coordinator-common-"];

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A record as the oracle prints it: `name key-hex value-hex` (`-` for a tombstone).
fn line(name: &str, record: &CoordinatorRecord) -> String {
    let key = record.encode_key().expect("key");
    let value = record.encode_value().expect("value").map_or_else(|| "-".to_owned(), |v| hex(&v));
    format!("{name} {} {value}", hex(&key))
}

fn last(h: &Harness) -> &CoordinatorRecord {
    h.log.last().expect("a record was written")
}

/// The records Strand's shard writes, driven with the inputs the oracle's `helpers` mode uses.
fn strand_records() -> Vec<String> {
    let mut lines = Vec::new();
    let mut h = Harness::with_defaults();
    h.commit(&commit_request("g", -1, "", None, &[("orders", 0, 42)]), 9);
    lines.push(line("offset-commit", last(&h)));
    let mut with_retention = commit_request("g", -1, "", None, &[("orders", 0, 42)]);
    with_retention.retention_time_ms = 60_000;
    h.commit(&with_retention, 2);
    lines.push(line("offset-commit-expiry", last(&h)));
    let mut with_id = commit_request("g", -1, "", None, &[("orders", 0, 42)]);
    with_id.topics[0].topic_id = Uuid([7; 16]);
    h.commit(&with_id, 10);
    lines.push(line("offset-commit-topic-id", last(&h)));
    let delete = OffsetDeleteRequest {
        group_id: "g".into(),
        topics: vec![OffsetDeleteRequestTopic {
            name: "orders".into(),
            partitions: vec![OffsetDeleteRequestPartition { partition_index: 0 }],
        }],
    };
    let out = h.shard.offset_delete(&delete);
    h.absorb(out);
    lines.push(line("offset-tombstone", last(&h)));

    let mut h = Harness::with_defaults();
    h.join("a", &join_request("g", "", None), 4);
    lines.push(line("group-created", last(&h)));

    let mut h = Harness::with_defaults();
    let (a, _) = h.join_new_member("g", "a");
    h.advance(100);
    h.sync(&sync_request("g", &a, 1, &[(&a, b"x")]));
    lines.push(line("group-dynamic", last(&h)));

    let mut s = Harness::with_defaults();
    let reply = s.join("s", &join_request("g", "", Some("inst")), 5);
    s.advance(100);
    let member = s.join_answer(&reply).expect("joined").member_id;
    s.sync(&sync_request("g", &member, 1, &[(&member, b"x")]));
    lines.push(line("group-static", last(&s)));

    h.advance(4_900);
    h.leave("g", &[(&a, None)]);
    lines.push(line("group-emptied", last(&h)));
    let out = h.shard.delete_groups(&["g".to_owned()]);
    h.absorb(out);
    lines.push(line("group-tombstone", last(&h)));
    lines
}

/// Every record of a run with three members, two generations and offsets.
fn larger_run() -> Vec<String> {
    let mut h = Harness::with_defaults();
    let (a, ra) = h.join_new_member("big", "a");
    let (b, rb) = h.join_new_member("big", "b");
    let rc = h.join("c", &join_request("big", "", Some("static-c")), 9);
    h.advance(200);
    let c = h.join_answer(&rc).expect("c").member_id;
    h.join_answer(&ra).expect("a");
    h.join_answer(&rb).expect("b");
    h.sync(&sync_request("big", &b, 1, &[]));
    h.sync(&sync_request("big", &c, 1, &[]));
    h.sync(&sync_request("big", &a, 1, &[(&a, b"A"), (&b, b"B"), (&c, b"\x00\x01")]));
    h.commit(&commit_request("big", 1, &a, None, &[("orders", 0, 1), ("orders", 1, 2), ("t\u{e9}", 0, 3)]), 9);
    h.leave("big", &[(&b, None)]);
    h.log.iter().enumerate().map(|(i, r)| line(&format!("record-{i}"), r)).collect()
}

/// Kafka 4.4's helpers, given the same inputs, write the same bytes (versions included).
#[test]
fn records_match_kafka_helpers() {
    let expected = run_oracle("helpers", "");
    let ours = strand_records();
    assert_eq!(ours.len(), expected.len(), "oracle printed:\n{}", expected.join("\n"));
    for (ours, kafka) in ours.iter().zip(&expected) {
        assert_eq!(ours, kafka, "Strand's record differs from Kafka's");
    }
}

/// Kafka's serde reads every record Strand writes and writes it back unchanged.
#[test]
fn kafka_reads_and_rewrites_every_record() {
    let mut lines = strand_records();
    lines.extend(larger_run());
    let input = lines.join("\n") + "\n";
    let rewritten = run_oracle("roundtrip", &input);
    assert_eq!(rewritten, lines);
}

/// Runs the oracle in `mode` with `input` on stdin and returns its output lines.
fn run_oracle(mode: &str, input: &str) -> Vec<String> {
    let libs = kafka_libs();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/CoordinatorRecordsOracle.java");
    let mut command = Command::new("java");
    command
        .arg("-cp")
        .arg(format!("{}/*", libs.display()))
        .arg(format!(
            "-Dlog4j2.configurationFile={}",
            workspace_root().join("compat/kafka/log4j2.properties").display()
        ))
        .arg(&source)
        .arg(mode)
        .env("SUBSCRIPTION_HEX", hex(&subscription(&["orders"])))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap_or_else(|e| panic!("could not run `java` (a JDK 17+ must be on PATH): {e}"));
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write to java");
    let output = child.wait_with_output().expect("java ran");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{command:?} exited with {}:\n{stderr}", output.status);
    String::from_utf8_lossy(&output.stdout).lines().map(str::to_owned).collect()
}

/// The directory holding Kafka's runtime classpath; fails (never skips) when it lacks the jars.
fn kafka_libs() -> PathBuf {
    let libs = std::env::var_os("STRAND_KAFKA_LIBS")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/kafka-libs"));
    let names: Vec<String> = std::fs::read_dir(&libs)
        .map(|dir| dir.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    for prefix in REQUIRED_JARS {
        assert!(
            names.iter().any(|n| n.starts_with(prefix) && n.ends_with(".jar")),
            "Apache Kafka's jars are missing: no {prefix}*.jar in {}. Run compat/kafka/fetch-jars.sh \
             (or set STRAND_KAFKA_LIBS to a directory holding Kafka 4.4.0's runtime classpath).",
            libs.display()
        );
    }
    libs
}

fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.ancestors().nth(2).expect("crates/coordinator sits two levels below the workspace root").to_owned()
}
