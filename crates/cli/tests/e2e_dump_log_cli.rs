//! `strand dump-log` against Apache Kafka 4.4's own `DumpLogSegments` on the same files, written
//! by Strand's log: every flag combination the two share prints byte for byte the same stdout
//! and stderr, with the same exit status. The segments hold batches in all five codecs, keys,
//! null values, headers, idempotent producers (sequences), a transaction aborted by a marker
//! (a control batch, a `.txnindex` entry) and several segments with many index entries; a copy
//! with garbage appended shows the trailing-bytes report, and one whose index points at the
//! wrong batch the mismatch report. A node's `__cluster_metadata` segment dumps the same too,
//! and so do its `__consumer_offsets`, `__transaction_state` and `__share_group_state` segments,
//! written for Kafka's own clients, through `--offsets-decoder`, `--transaction-log-decoder` and
//! `--share-group-state-decoder`, and the metadata log through `--cluster-metadata-decoder`; a
//! crafted segment holds every group record type no client run writes.
//!
//! Kafka's tool runs in Java: the Kafka 4.4.0 jars must be in `$STRAND_KAFKA_LIBS` (default
//! `<workspace>/target/kafka-libs`), put there by `compat/kafka/fetch-jars.sh`. Without them the
//! test fails and says so; it never skips.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use bytes::BytesMut;
use common::kafka_tool::kafka_command;
use strand_base::{Clock, ProducerId, SystemClock};
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{Log, LogConfig};
use strand_protocol::records::control::{EndTxnMarker, TransactionResult, end_txn_marker_batch};
use strand_protocol::records::{Compression, Header, NewRecord, RecordBatchBuilder};

const DUMP_LOG_SEGMENTS: &str = "org.apache.kafka.tools.DumpLogSegments";
const PRODUCER_PERFORMANCE: &str = "org.apache.kafka.tools.ProducerPerformance";
const CONSOLE_CONSUMER: &str = "org.apache.kafka.tools.consumer.ConsoleConsumer";
const CONSOLE_SHARE_CONSUMER: &str = "org.apache.kafka.tools.consumer.ConsoleShareConsumer";
const CODECS: [Compression; 5] =
    [Compression::None, Compression::Gzip, Compression::Snappy, Compression::Lz4, Compression::Zstd];

/// The flag sets compared, each on every file it applies to.
const LOG_FLAGS: [&[&str]; 6] = [
    &[],
    &["--deep-iteration"],
    &["--print-data-log"],
    &["--print-data-log", "--skip-record-metadata"],
    &["--deep-iteration", "--skip-record-metadata"],
    &["--max-bytes", "3000"],
];
const INDEX_FLAGS: [&[&str]; 3] = [&[], &["--verify-index-only"], &["--index-sanity-check"]];

/// Each file type of every segment, dumped by both tools with each flag set, prints the same.
#[test]
fn strand_dump_log_prints_what_kafka_s_dump_log_segments_prints() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_log(dir.path());
    let files = files_with(dir.path(), &["log", "index", "timeindex", "txnindex", "snapshot"]);
    assert!(files.iter().filter(|f| f.extension().is_some_and(|e| e == "log")).count() >= 3, "{files:?}");
    // Every flag set on the first and the last (active) segment's files, the defaults on the
    // others: a Java start for each comparison makes them slow.
    let segments: Vec<String> =
        files.iter().filter(|f| f.extension().is_some_and(|e| e == "log")).map(|f| base_of(f)).collect();
    let (first, last) = (segments[0].clone(), segments[segments.len() - 1].clone());
    for file in &files {
        let every = [first.as_str(), last.as_str()].contains(&base_of(file).as_str());
        let flags: &[&[&str]] = match file.extension().and_then(|e| e.to_str()) {
            Some("log") if every => &LOG_FLAGS,
            Some("index" | "timeindex") if every => &INDEX_FLAGS,
            _ => &[&[]],
        };
        for flags in flags {
            compare(flags, &[file.as_path()]);
        }
    }
    // Several files in one run, and a file of no known kind.
    let some: Vec<&Path> = files.iter().take(4).map(PathBuf::as_path).collect();
    compare(&["--print-data-log"], &some);
    compare(&[], &[&dir.path().join("leader-epoch-checkpoint")]);
}

/// A segment with garbage after its last batch is reported as Kafka reports it; an index entry
/// pointing at the wrong batch is a mismatch on stderr.
#[test]
fn damaged_files_are_reported_as_kafka_reports_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    write_log(dir.path());
    let log = files_with(dir.path(), &["log"]).into_iter().next().expect("a segment");
    let mut bytes = std::fs::read(&log).expect("read segment");
    bytes.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 1, 0, 7]);
    std::fs::write(&log, &bytes).expect("damage segment");
    compare(&[], &[&log]);
    let index = log.with_extension("index");
    let mut entries = std::fs::read(&index).expect("read index");
    assert!(entries.len() >= 16, "the index has {} bytes", entries.len());
    // The second entry's position becomes the first's.
    let first_position: [u8; 4] = entries[4..8].try_into().expect("4 bytes");
    entries[12..16].copy_from_slice(&first_position);
    std::fs::write(&index, &entries).expect("damage index");
    compare(&[], &[&index]);
    compare(&["--verify-index-only"], &[&index]);
}

/// A node's metadata log (KRaft control records: KRaftVersion, KRaftVoters, LeaderChange, and
/// metadata records, printed as their bytes or decoded) dumps as Kafka dumps it.
#[test]
fn a_node_s_metadata_log_dumps_as_kafka_dumps_it() {
    let _serial = common::serial();
    let server = common::Server::start();
    common::create_topic(&mut server.connect(), "orders", 2);
    let data = server.terminate();
    let segments = files_with(&data.path().join("__cluster_metadata-0"), &["log"]);
    assert!(!segments.is_empty(), "no metadata segment in {}", data.path().display());
    for flags in [&["--deep-iteration"][..], &["--print-data-log"], &["--cluster-metadata-decoder"]] {
        compare(flags, &[segments[0].as_path()]);
    }
}

/// Kafka's clients run a transaction, then consume with a classic group (consumer protocol
/// subscriptions and assignments), a KIP-848 consumer group (its member, assignment and epoch
/// records, and the tombstones of its member leaving), both committing offsets, and a share group
/// (its records and the share-partition state).
/// The coordinators' segments, and the metadata log that followed, decode the same with both
/// tools.
#[test]
fn a_node_s_coordinator_logs_decode_as_kafka_decodes_them() {
    let _serial = common::serial();
    let server =
        common::Server::start_with(tempfile::tempdir().expect("temp dir"), &["group.initial.rebalance.delay.ms=0"]);
    common::create_topic(&mut server.connect(), "orders", 2);
    let bootstrap = format!("bootstrap.servers={}", server.address);
    let producer = [
        "--topic",
        "orders",
        "--num-records",
        "20",
        "--record-size",
        "10",
        "--throughput",
        "-1",
        "--transactional-id",
        "dump-txn",
        "--transaction-duration-ms",
        "50",
        "--command-property",
        &bootstrap,
    ];
    let (ok, _, _) = kafka_command(PRODUCER_PERFORMANCE, &producer);
    assert!(ok, "the transactional producer failed");
    for protocol in ["classic", "consumer"] {
        let group = format!("dump-{protocol}");
        let protocol = format!("group.protocol={protocol}");
        let consumer = [
            "--bootstrap-server",
            &server.address.to_string(),
            "--topic",
            "orders",
            "--group",
            &group,
            "--from-beginning",
            "--max-messages",
            "5",
            "--consumer-property",
            &protocol,
        ];
        let (ok, _, _) = kafka_command(CONSOLE_CONSUMER, &consumer);
        assert!(ok, "the {group} consumer failed");
    }
    // A share group: it starts at the partitions' end (`share.auto.offset.reset`'s default,
    // latest), so records are produced until the consumer has read five and exits.
    let address = server.address.to_string();
    let libs = common::kafka_tool::kafka_libs(&["kafka-tools-4.4.0", "kafka-clients-4.4.0"]);
    let mut share = Command::new("java")
        .arg("-cp")
        .arg(format!("{}/*", libs.display()))
        .arg(CONSOLE_SHARE_CONSUMER)
        .args(["--bootstrap-server", &address, "--topic", "orders", "--group", "dump-share", "--max-messages", "5"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run java");
    let mut client = server.connect();
    let deadline = SystemClock.monotonic_ns() + common::WAIT_MAX.as_nanos() as u64 * 2;
    let status = loop {
        if let Some(status) = share.try_wait().expect("share consumer") {
            break status;
        }
        if SystemClock.monotonic_ns() > deadline {
            let _ = share.kill();
            panic!("the share consumer read no five records");
        }
        assert_eq!(common::produce(&mut client, "orders", 1, common::batch(&["shared"])).0, 0);
    };
    assert!(status.success(), "the share consumer failed: {status}");
    // Metadata records beyond a topic's creation: a client quota (doubles), a SCRAM credential
    // (bytes), a topic created and deleted.
    for tool in [
        &[
            "configs",
            "--alter",
            "--entity-type",
            "clients",
            "--entity-name",
            "c1",
            "--add-config",
            "producer_byte_rate=1024,consumer_byte_rate=20000000",
        ][..],
        &[
            "configs",
            "--alter",
            "--entity-type",
            "users",
            "--entity-name",
            "alice",
            "--add-config",
            "SCRAM-SHA-256=[iterations=8192,password=alice-secret]",
        ],
        &["topics", "--create", "--topic", "gone", "--partitions", "1"],
        &["topics", "--delete", "--topic", "gone"],
    ] {
        let run = Command::new(env!("CARGO_BIN_EXE_strand"))
            .args(&tool[..1])
            .args(["--bootstrap-server", &address])
            .args(&tool[1..])
            .output()
            .expect("run strand");
        assert!(run.status.success(), "{tool:?}: {}", String::from_utf8_lossy(&run.stderr));
    }
    let data = server.terminate();
    let written = |topic: &str| -> Vec<PathBuf> {
        let mut segments = Vec::new();
        for entry in std::fs::read_dir(data.path()).expect("list data") {
            let dir = entry.expect("entry").path();
            if dir.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&format!("{topic}-"))) {
                segments
                    .extend(files_with(&dir, &["log"]).into_iter().filter(|f| f.metadata().is_ok_and(|m| m.len() > 0)));
            }
        }
        segments
    };
    let offsets = written("__consumer_offsets");
    let offsets: Vec<&Path> = offsets.iter().map(PathBuf::as_path).collect();
    let printed = compare(&["--offsets-decoder"], &offsets);
    // Each kind of record was there to compare: commits, both groups' metadata, a tombstone.
    for expected in [
        "key: {\"type\":\"1\"",
        "\"subscription\":{\"topics\":[\"orders\"]",
        "\"assignment\":{\"assignedPartitions\":[",
        "key: {\"type\":\"8\"",
        "payload: <DELETE>",
        "key: {\"type\":\"15\"",
    ] {
        assert!(printed.contains(expected), "{expected} is not in:\n{printed}");
    }
    let printed = compare(&["--share-group-state-decoder"], &as_paths(&written("__share_group_state")));
    assert!(printed.contains("\"stateBatches\":["), "{printed}");
    let transactions = written("__transaction_state");
    let transactions: Vec<&Path> = transactions.iter().map(PathBuf::as_path).collect();
    let printed = compare(&["--transaction-log-decoder"], &transactions);
    assert!(printed.contains("\"transactionStatus\":\"CompleteCommit\""), "{printed}");
    // The metadata log now holds the internal topics, a producer id block, the quota, the
    // credential, the deleted topic and the shutdown.
    let metadata = files_with(&data.path().join("__cluster_metadata-0"), &["log"]);
    let printed = compare(&["--cluster-metadata-decoder"], &[metadata[0].as_path()]);
    for record in ["PRODUCER_IDS_RECORD", "CLIENT_QUOTA_RECORD", "USER_SCRAM_CREDENTIAL_RECORD", "REMOVE_TOPIC_RECORD"]
    {
        assert!(printed.contains(&format!("\"type\":\"{record}\"")), "no {record} in:\n{printed}");
    }
    assert!(!printed.contains("skipping"), "a record Strand cannot print:\n{printed}");
}

fn as_paths(files: &[PathBuf]) -> Vec<&Path> {
    files.iter().map(PathBuf::as_path).collect()
}

/// Both tools on `files` with `flags`: the same exit status, stdout and stderr; strand's stdout.
fn compare(flags: &[&str], files: &[&Path]) -> String {
    let list: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let list = list.join(",");
    let mut args: Vec<&str> = flags.to_vec();
    args.extend(["--files", &list]);
    let (kafka_ok, kafka_out, kafka_err) = kafka_command(DUMP_LOG_SEGMENTS, &args);
    let strand = Command::new(env!("CARGO_BIN_EXE_strand")).arg("dump-log").args(&args).output().expect("run strand");
    let (strand_out, strand_err) =
        (String::from_utf8_lossy(&strand.stdout).into_owned(), String::from_utf8_lossy(&strand.stderr).into_owned());
    assert_eq!(strand.status.success(), kafka_ok, "{args:?}: exit status; stderr: {strand_err}");
    assert_eq!(strand_out, kafka_out, "{args:?}: stdout ('left' is strand's)");
    assert_eq!(strand_err, kafka_err, "{args:?}: stderr ('left' is strand's)");
    strand_out
}

/// The segment a file belongs to: its name up to the first dot.
fn base_of(file: &Path) -> String {
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    name.split('.').next().unwrap_or_default().to_owned()
}

/// The files of `dir` with one of `extensions`, in name order.
fn files_with(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("list dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().and_then(|e| e.to_str()).is_some_and(|e| extensions.contains(&e)))
        .collect();
    files.sort();
    files
}

/// A log of several segments: 120 batches cycling through the codecs, every fourth from one of
/// two idempotent producers, then a transaction aborted by its marker; closed cleanly.
fn write_log(dir: &Path) {
    let config = LogConfig {
        index_interval_bytes: 256,
        segment_bytes: 6 * 1024,
        segment_index_bytes: 4096,
        ..LogConfig::default()
    };
    let mut log = Log::open(dir, config, LogCheckpoints::default(), Arc::new(SystemClock)).expect("open log");
    let now = SystemClock.now_ms();
    let client = AppendContext::client(VerificationGuard::SENTINEL);
    let mut sequences = [0i32; 2];
    for n in 0..120usize {
        let mut builder = RecordBatchBuilder::new().compression(CODECS[n % CODECS.len()]);
        let count = 1 + n % 4;
        if n % 4 == 3 {
            let producer = n % 2;
            builder = builder.producer(ProducerId(4000 + producer as i64), 1, sequences[producer]);
            sequences[producer] += count as i32;
        }
        for i in 0..count {
            let key = format!("key-{n}-{i}");
            let value = format!("value-{n}-{i}-{}", "x".repeat((n * 13 + i) % 40));
            let header_value = format!("{n}.{i}");
            let headers: Vec<Header<'_>> = (0..(n + i) % 3)
                .map(|h| Header { key: ["a", "b"][h % 2], value: Some(header_value.as_bytes()) })
                .collect();
            let record = NewRecord {
                timestamp_ms: now + (n as i64) * 3 - (i as i64 % 2),
                key: (i % 3 != 2).then_some(key.as_bytes()),
                value: (n % 7 != 6 || i > 0).then_some(value.as_bytes()),
                headers: &headers,
            };
            builder.append(&record).expect("record");
        }
        let batch = ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid");
        log.append_as_leader(batch, (n / 40) as i32, client).expect("append");
    }
    let txn_producer = ProducerId(4100);
    let guard = log.producer_state_mut().maybe_start_txn_verification(txn_producer, 0, 2, false, now).expect("verify");
    let mut builder = RecordBatchBuilder::new().producer(txn_producer, 2, 0).transactional();
    builder
        .append(&NewRecord { timestamp_ms: now, key: Some(b"t"), value: Some(b"aborted"), headers: &[] })
        .expect("record");
    let batch = ValidatedBatch::validate(BytesMut::from(&builder.build().expect("txn batch")[..])).expect("valid");
    log.append_as_leader(batch, 3, AppendContext::client(guard)).expect("txn append");
    let marker =
        end_txn_marker_batch(txn_producer, 2, TransactionResult::Abort, EndTxnMarker { coordinator_epoch: 4 }, now)
            .expect("marker")
            .build()
            .expect("marker batch");
    let marker = ValidatedBatch::validate(BytesMut::from(&marker[..])).expect("valid");
    log.append_as_leader(marker, 3, AppendContext::coordinator(0)).expect("abort");
    log.close().expect("clean close");
}

/// Group records no single client run writes (streams groups, share group members and
/// assignments, a member without assignment epochs, a legacy offset commit, a v1 commit with its
/// expiry) and records Kafka cannot read (an unknown type, an unknown value version), each with
/// non-default fields, in one segment: both tools print the same.
#[test]
fn every_group_record_type_decodes_as_kafka_decodes_it() {
    use strand_protocol::Message;
    use strand_protocol::messages::streams_group_topology_value as topology;
    use strand_protocol::messages::{self as m, streams_group_current_member_assignment_value as current};

    fn key<M: Message>(record_type: i16, message: M) -> Vec<u8> {
        [&record_type.to_be_bytes()[..], &message.encode_to_bytes(0).expect("key")].concat()
    }
    fn value<M: Message>(version: i16, message: M) -> Option<Vec<u8>> {
        Some([&version.to_be_bytes()[..], &message.encode_to_bytes(version).expect("value")].concat())
    }
    let group = || m::StreamsGroupMetadataKey { group_id: "streams".into() };
    let topic_id = strand_base::Uuid([7; 16]);
    let task = |subtopology: &str, epochs: Option<Vec<i32>>| current::TaskIds {
        subtopology_id: subtopology.into(),
        partitions: vec![0, 2],
        assignment_epochs: epochs,
        ..Default::default()
    };
    let topic_info = topology::TopicInfo {
        name: "changelog".into(),
        partitions: 3,
        replication_factor: 1,
        topic_configs: vec![topology::TopicConfig {
            key: "cleanup.policy".into(),
            value: "compact".into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let records: Vec<(Vec<u8>, Option<Vec<u8>>)> = vec![
        (
            key(17, group()),
            value(
                0,
                m::StreamsGroupMetadataValue {
                    epoch: 3,
                    metadata_hash: 77,
                    validated_topology_epoch: 2,
                    last_assignment_configs: Some(vec![m::streams_group_metadata_value::LastAssignmentConfig {
                        key: "num.standby.replicas".into(),
                        value: "1".into(),
                        ..Default::default()
                    }]),
                    ..Default::default()
                },
            ),
        ),
        (
            key(19, m::StreamsGroupMemberMetadataKey { group_id: "streams".into(), member_id: "s1".into() }),
            value(
                0,
                m::StreamsGroupMemberMetadataValue {
                    instance_id: None,
                    rack_id: Some("rack-a".into()),
                    client_id: "app".into(),
                    client_host: "/127.0.0.1".into(),
                    rebalance_timeout_ms: 5000,
                    topology_epoch: 2,
                    process_id: "p-1".into(),
                    user_endpoint: Some(m::streams_group_member_metadata_value::Endpoint {
                        host: "h".into(),
                        port: 8080,
                        ..Default::default()
                    }),
                    client_tags: vec![m::streams_group_member_metadata_value::KeyValue {
                        key: "zone".into(),
                        value: "z".into(),
                        ..Default::default()
                    }],
                    ..Default::default()
                },
            ),
        ),
        (
            key(20, m::StreamsGroupTargetAssignmentMetadataKey { group_id: "streams".into() }),
            value(
                0,
                m::StreamsGroupTargetAssignmentMetadataValue {
                    assignment_epoch: 3,
                    assignment_timestamp: 1000,
                    ..Default::default()
                },
            ),
        ),
        (
            key(21, m::StreamsGroupTargetAssignmentMemberKey { group_id: "streams".into(), member_id: "s1".into() }),
            value(
                0,
                m::StreamsGroupTargetAssignmentMemberValue {
                    active_tasks: vec![m::streams_group_target_assignment_member_value::TaskIds {
                        subtopology_id: "0".into(),
                        partitions: vec![1],
                        ..Default::default()
                    }],
                    ..Default::default()
                },
            ),
        ),
        (
            key(22, m::StreamsGroupCurrentMemberAssignmentKey { group_id: "streams".into(), member_id: "s1".into() }),
            value(
                0,
                m::StreamsGroupCurrentMemberAssignmentValue {
                    member_epoch: 3,
                    previous_member_epoch: 2,
                    state: 1,
                    active_tasks: vec![task("0", Some(vec![3, 3]))],
                    standby_tasks: vec![task("1", None)],
                    ..Default::default()
                },
            ),
        ),
        (
            key(23, m::StreamsGroupTopologyKey { group_id: "streams".into() }),
            value(
                0,
                m::StreamsGroupTopologyValue {
                    epoch: 2,
                    subtopologies: vec![topology::Subtopology {
                        subtopology_id: "0".into(),
                        source_topics: vec!["in".into()],
                        state_changelog_topics: vec![topic_info.clone()],
                        repartition_sink_topics: vec!["rep".into()],
                        repartition_source_topics: vec![topic_info],
                        copartition_groups: vec![topology::CopartitionGroup {
                            source_topics: vec![0],
                            repartition_source_topics: vec![0],
                            ..Default::default()
                        }],
                        ..Default::default()
                    }],
                    ..Default::default()
                },
            ),
        ),
        (key(23, m::StreamsGroupTopologyKey { group_id: "gone".into() }), None),
        (
            key(10, m::ShareGroupMemberMetadataKey { group_id: "share".into(), member_id: "m".into() }),
            value(
                0,
                m::ShareGroupMemberMetadataValue {
                    rack_id: None,
                    client_id: "c".into(),
                    client_host: "/h".into(),
                    subscribed_topic_names: vec!["t".into()],
                    ..Default::default()
                },
            ),
        ),
        (
            key(12, m::ShareGroupTargetAssignmentMetadataKey { group_id: "share".into() }),
            value(0, m::ShareGroupTargetAssignmentMetadataValue { assignment_epoch: 4, ..Default::default() }),
        ),
        (
            key(14, m::ShareGroupCurrentMemberAssignmentKey { group_id: "share".into(), member_id: "m".into() }),
            value(
                0,
                m::ShareGroupCurrentMemberAssignmentValue {
                    member_epoch: 4,
                    previous_member_epoch: 3,
                    assigned_partitions: vec![m::share_group_current_member_assignment_value::TopicPartitions {
                        topic_id,
                        partitions: vec![0],
                        ..Default::default()
                    }],
                    ..Default::default()
                },
            ),
        ),
        (
            key(8, m::ConsumerGroupCurrentMemberAssignmentKey { group_id: "c".into(), member_id: "m".into() }),
            value(
                0,
                m::ConsumerGroupCurrentMemberAssignmentValue {
                    member_epoch: 2,
                    assigned_partitions: vec![m::consumer_group_current_member_assignment_value::TopicPartitions {
                        topic_id,
                        partitions: vec![1],
                        assignment_epochs: None,
                        ..Default::default()
                    }],
                    ..Default::default()
                },
            ),
        ),
        (
            key(16, m::ConsumerGroupRegularExpressionKey { group_id: "c".into(), regular_expression: "or.*".into() }),
            value(
                0,
                m::ConsumerGroupRegularExpressionValue {
                    topics: vec!["orders".into()],
                    version: 5,
                    timestamp: 6,
                    ..Default::default()
                },
            ),
        ),
        (
            key(0, m::LegacyOffsetCommitKey { group: "old".into(), topic: "t".into(), partition: 1 }),
            value(0, m::LegacyOffsetCommitValue { offset: 9, metadata: "x".into(), commit_timestamp: 10 }),
        ),
        (
            key(1, m::OffsetCommitKey { group: "old".into(), topic: "t".into(), partition: 1 }),
            value(
                1,
                m::OffsetCommitValue { offset: 9, commit_timestamp: 10, expire_timestamp: 20, ..Default::default() },
            ),
        ),
        (key(99, m::OffsetCommitKey::default()), Some(vec![0, 0])),
        (key(1, m::OffsetCommitKey::default()), Some([&9i16.to_be_bytes()[..], &[0; 24]].concat())),
    ];
    let mut builder = RecordBatchBuilder::new();
    for (key, value) in &records {
        builder
            .append(&NewRecord {
                timestamp_ms: 1_700_000_000_000,
                key: Some(key),
                value: value.as_deref(),
                headers: &[],
            })
            .expect("record");
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let segment = dir.path().join("00000000000000000000.log");
    std::fs::write(&segment, builder.build().expect("batch")).expect("write segment");
    let printed = compare(&["--offsets-decoder"], &[&segment]);
    assert!(printed.contains("\"type\":\"23\""), "{printed}");
}

/// Metadata records a single node's life does not write (partition changes, fencing, ACLs,
/// tokens, metadata transactions, ELR clears, older record versions, a null quota entity name, a
/// tiny double) and values Kafka cannot read (an unknown type, frame versions 0 and 2, an unknown
/// record version, a truncated record), in one
/// segment: both tools print the same through `--cluster-metadata-decoder`.
#[test]
fn every_metadata_record_type_decodes_as_kafka_decodes_it() {
    use strand_base::{BrokerId, Uuid};
    use strand_protocol::Message;
    use strand_protocol::messages::{self as m, client_quota_record as quota, register_broker_record as broker};

    fn framed<M: Message>(api_key: u8, version: u8, record: M) -> Vec<u8> {
        [&[1, api_key, version][..], &record.encode_to_bytes(i16::from(version)).expect("record")].concat()
    }
    let ids = |ids: &[i32]| ids.iter().map(|&i| BrokerId(i)).collect::<Vec<_>>();
    let dir = Uuid([3; 16]);
    let register = |cordoned: Option<Vec<Uuid>>| m::RegisterBrokerRecord {
        broker_id: BrokerId(2),
        incarnation_id: Uuid([4; 16]),
        broker_epoch: 12,
        end_points: vec![broker::BrokerEndpoint {
            name: "PLAINTEXT".into(),
            host: "h".into(),
            port: 9092,
            security_protocol: 0,
            ..Default::default()
        }],
        rack: None,
        fenced: false,
        in_controlled_shutdown: true,
        log_dirs: vec![dir],
        cordoned_log_dirs: cordoned,
        ..Default::default()
    };
    let values: Vec<Vec<u8>> = vec![
        framed(0, 0, m::RegisterBrokerRecord { in_controlled_shutdown: false, log_dirs: vec![], ..register(None) }),
        framed(0, 4, register(Some(vec![dir]))),
        framed(
            17,
            1,
            m::BrokerRegistrationChangeRecord {
                broker_id: BrokerId(2),
                broker_epoch: 12,
                in_controlled_shutdown: 1,
                ..Default::default()
            },
        ),
        framed(
            5,
            0,
            m::PartitionChangeRecord {
                partition_id: 1,
                topic_id: Uuid([5; 16]),
                leader: BrokerId(-1),
                ..Default::default()
            },
        ),
        framed(
            5,
            2,
            m::PartitionChangeRecord {
                partition_id: 0,
                topic_id: Uuid([5; 16]),
                isr: Some(ids(&[1, 2])),
                leader: BrokerId(2),
                replicas: Some(ids(&[1, 2])),
                leader_recovery_state: 0,
                directories: Some(vec![dir, dir]),
                eligible_leader_replicas: Some(ids(&[])),
                last_known_elr: Some(ids(&[1])),
                ..Default::default()
            },
        ),
        framed(7, 0, m::FenceBrokerRecord { id: BrokerId(2), epoch: 12, ..Default::default() }),
        framed(8, 0, m::UnfenceBrokerRecord { id: BrokerId(2), epoch: 12, ..Default::default() }),
        framed(1, 0, m::UnregisterBrokerRecord { broker_id: BrokerId(2), broker_epoch: 12, ..Default::default() }),
        framed(29, 0, m::UnregisterControllerRecord { controller_id: 3, ..Default::default() }),
        framed(28, 0, m::ClearElrRecord { topic_name: "t".into(), ..Default::default() }),
        framed(
            18,
            0,
            m::AccessControlEntryRecord {
                id: Uuid([6; 16]),
                resource_type: 2,
                resource_name: "t".into(),
                pattern_type: 3,
                principal: "User:alice".into(),
                host: "*".into(),
                operation: 3,
                permission_type: 3,
                ..Default::default()
            },
        ),
        framed(19, 0, m::RemoveAccessControlEntryRecord { id: Uuid([6; 16]), ..Default::default() }),
        framed(
            10,
            0,
            m::DelegationTokenRecord {
                owner: "User:alice".into(),
                requester: "User:bob".into(),
                renewers: vec!["User:carol".into()],
                issue_timestamp: 1,
                max_timestamp: 3,
                expiration_timestamp: 2,
                token_id: "tok".into(),
                ..Default::default()
            },
        ),
        framed(26, 0, m::RemoveDelegationTokenRecord { token_id: "tok".into(), ..Default::default() }),
        framed(22, 0, m::RemoveUserScramCredentialRecord { name: "alice".into(), mechanism: 2, ..Default::default() }),
        framed(23, 0, m::BeginTransactionRecord { name: Some("migration".into()), ..Default::default() }),
        framed(25, 0, m::AbortTransactionRecord { reason: None, ..Default::default() }),
        framed(24, 0, m::EndTransactionRecord::default()),
        framed(21, 0, m::ZkMigrationStateRecord { zk_migration_state: 2, ..Default::default() }),
        framed(
            14,
            0,
            m::ClientQuotaRecord {
                entity: vec![quota::EntityData { entity_type: "user".into(), entity_name: None, ..Default::default() }],
                key: "request_percentage".into(),
                value: 0.0001,
                remove: true,
                ..Default::default()
            },
        ),
        vec![1, 99, 0],
        [&[0u8][..], &framed(20, 0, m::NoOpRecord::default())[1..]].concat(),
        [&[1u8, 12, 9][..], &framed(12, 0, m::FeatureLevelRecord::default())[3..]].concat(),
        framed(12, 0, m::FeatureLevelRecord { name: "x".into(), feature_level: 1, ..Default::default() })[..5].to_vec(),
        [&[2u8][..], &framed(20, 0, m::NoOpRecord::default())[1..]].concat(),
    ];
    let mut builder = RecordBatchBuilder::new();
    for value in &values {
        builder
            .append(&NewRecord { timestamp_ms: 1_700_000_000_000, key: None, value: Some(value), headers: &[] })
            .expect("record");
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let segment = dir.path().join("00000000000000000000.log");
    std::fs::write(&segment, builder.build().expect("batch")).expect("write segment");
    let printed = compare(&["--cluster-metadata-decoder"], &[&segment]);
    assert!(printed.contains("\"type\":\"PARTITION_CHANGE_RECORD\""), "{printed}");
}
