//! Apache Kafka is the oracle for the records Strand writes to `__consumer_offsets`: the records
//! the shard writes for an offset commit (plain, with an expire timestamp, with a topic id), an
//! offset deletion, a group's creation, its generation's assignment (dynamic and static member),
//! its emptying and deletion are byte for byte what Kafka 4.4's `GroupCoordinatorRecordHelpers`
//! write for the same inputs; and Kafka's `GroupCoordinatorRecordSerde` reads every record of a
//! larger run and of an online migration (classic member metadata included) and writes it back
//! unchanged.
//!
//! This runs Java: the Kafka 4.4.0 jars must be in `$STRAND_KAFKA_LIBS` (default
//! `<workspace>/target/kafka-libs`), put there by `compat/kafka/fetch-jars.sh`. Without them the
//! test fails and says so; it never skips.

mod common;

#[path = "../../../tools/testing/kafka_jars.rs"]
mod kafka_jars;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use common::*;
use kafka_jars::{kafka_libs, workspace_root};
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
    // (consumer group records are appended by `strand_consumer_records`)
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

/// The consumer group records Strand's shard writes (a member joining and leaving, a static member
/// subscribed by regex leaving for now, a group deleted), named as the oracle names Kafka's, and
/// the metadata hashes of the same topics.
fn strand_consumer_records() -> Vec<String> {
    let metadata = topics(7, &[("orders", 3), ("auto-a", 2), ("t\u{e9}", 5)]);
    let hash = |name: &str| metadata.topic(name).map_or(0, |t| t.hash);
    let mut lines = vec![
        format!("topic-hash-orders {:x} -", hash("orders") as u64),
        format!("topic-hash-te {:x} -", hash("t\u{e9}") as u64),
        format!("group-hash {:x} -", metadata.group_hash(["orders", "auto-a"]) as u64),
    ];
    let mut h = Harness::with_defaults();
    h.shard.set_metadata(metadata.clone());
    let mut take = |h: &Harness, from: usize, names: &[&str]| {
        let written = &h.log[from..];
        assert!(written.len() >= names.len(), "wrote {written:?}");
        for (name, record) in names.iter().zip(written) {
            lines.push(line(name, record));
        }
        h.log.len()
    };
    let joined = h.cg_heartbeat(&cg_join("g", "m1", &["orders"]));
    assert_eq!(joined.error_code, 0);
    let at = take(&h, 0, &["cg-member", "cg-epoch", "cg-target", "cg-target-epoch", "cg-current"]);
    let leave =
        strand_protocol::messages::ConsumerGroupHeartbeatRequest { member_epoch: -1, ..cg_beat("g", "m1", 1, &[]) };
    assert_eq!(h.cg_heartbeat(&leave).error_code, 0);
    let names =
        ["cg-current-tombstone", "cg-target-tombstone", "cg-member-tombstone", "cg-epoch-left", "cg-target-epoch-left"];
    let at = take(&h, at, &names);
    let mut regex = cg_join("r", "r1", &[]);
    regex.subscribed_topic_names = None;
    regex.subscribed_topic_regex = Some("auto-.*".to_owned());
    regex.server_assignor = Some("range".to_owned());
    regex.instance_id = Some("inst".to_owned());
    assert_eq!(h.cg_heartbeat(&regex).error_code, 0);
    let _ = take(&h, at, &["cg-regex-member", "cg-regex", "cg-regex-epoch"]);
    let at = h.log.len();
    let away = strand_protocol::messages::ConsumerGroupHeartbeatRequest {
        member_epoch: -2,
        instance_id: Some("inst".to_owned()),
        ..cg_beat("r", "r1", 1, &[])
    };
    assert_eq!(h.cg_heartbeat(&away).error_code, 0);
    let at = take(&h, at, &["cg-static-away"]);
    let out = h.shard.delete_groups(&["g".to_owned()]);
    h.absorb(out);
    take(&h, at, &["cg-delete-target-epoch", "cg-delete-partition-metadata", "cg-delete-epoch"]);
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

/// Every record of an online migration: a classic group upgraded by a consumer-protocol member
/// (classic member metadata in the members' subscriptions), a classic member rejoining the
/// consumer group, and the downgrade when the consumer-protocol member leaves.
fn migration_run() -> Vec<String> {
    use bytes::BufMut;
    use strand_protocol::Struct;
    use strand_protocol::messages::consumer_protocol_assignment::{ConsumerProtocolAssignment, TopicPartition};
    let assignment = |partitions: &[i32]| {
        let value = ConsumerProtocolAssignment {
            assigned_partitions: vec![TopicPartition { topic: "orders".to_owned(), partitions: partitions.to_vec() }],
            user_data: None,
        };
        let mut out = bytes::BytesMut::new();
        out.put_i16(1);
        value.encode(&mut out, 1).expect("encode");
        out.to_vec()
    };
    let mut h = Harness::with_defaults();
    h.shard.set_metadata(topics(3, &[("orders", 4)]));
    let start = h.log.len();
    let (a, ra) = h.join_new_member("mig", "a");
    let (b, rb) = h.join_new_member("mig", "b");
    h.advance(200);
    let generation = h.join_answer(&ra).expect("a").generation_id;
    h.join_answer(&rb).expect("b");
    h.sync(&sync_request("mig", &b, generation, &[]));
    h.sync(&sync_request("mig", &a, generation, &[(&a, &assignment(&[0, 1])), (&b, &assignment(&[2, 3]))]));
    assert_eq!(h.cg_heartbeat(&cg_join("mig", "m", &["orders"])).error_code, 0);
    let rejoined = h.join("a", &join_request("mig", &a, None), 9);
    assert_eq!(h.join_answer(&rejoined).expect("answered at once").error_code, 0);
    let leave = strand_protocol::messages::ConsumerGroupHeartbeatRequest {
        member_epoch: -1,
        ..cg_beat("mig", "m", generation + 1, &[])
    };
    assert_eq!(h.cg_heartbeat(&leave).error_code, 0);
    assert!(matches!(h.shard.group("mig"), Some(strand_coordinator::group::Group::Classic(_))), "downgraded");
    h.log[start..].iter().enumerate().map(|(i, r)| line(&format!("migration-{i}"), r)).collect()
}

/// Kafka 4.4's helpers, given the same inputs, write the same bytes (versions included).
#[test]
fn records_match_kafka_helpers() {
    let expected = run_oracle("helpers", "");
    let mut ours = strand_records();
    ours.extend(strand_consumer_records());
    assert_eq!(ours.len(), expected.len(), "oracle printed:\n{}", expected.join("\n"));
    for (ours, kafka) in ours.iter().zip(&expected) {
        assert_eq!(ours, kafka, "Strand's record differs from Kafka's");
    }
}

/// Kafka's serde reads every record Strand writes and writes it back unchanged.
#[test]
fn kafka_reads_and_rewrites_every_record() {
    let mut lines = strand_records();
    lines.extend(
        strand_consumer_records().into_iter().filter(|l| !l.starts_with("topic-hash") && !l.starts_with("group-hash")),
    );
    lines.extend(larger_run());
    lines.extend(migration_run());
    let input = lines.join("\n") + "\n";
    let rewritten = run_oracle("roundtrip", &input);
    assert_eq!(rewritten, lines);
}

/// Runs the oracle in `mode` with `input` on stdin and returns its output lines.
fn run_oracle(mode: &str, input: &str) -> Vec<String> {
    let libs = kafka_libs(&REQUIRED_JARS);
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
