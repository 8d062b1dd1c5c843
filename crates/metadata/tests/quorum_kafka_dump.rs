//! Apache Kafka's own `DumpLogSegments --cluster-metadata-decoder` reads the quorum's
//! `__cluster_metadata-0` segment: the membership (`KRaftVersion`, `KRaftVoters`), one
//! `LeaderChange` per election, and every metadata record we appended, decoded by Kafka's
//! `MetadataRecordSerde`, in offset order, every batch valid; and the snapshot and bootstrap
//! files.
//!
//! Kafka is the oracle here, so this test runs Java: the Kafka 4.4.0 jars must be in
//! `$STRAND_KAFKA_LIBS` (default `<workspace>/target/kafka-libs`), put there by
//! `compat/kafka/fetch-jars.sh`. Without them the test fails and says so; it never skips.

#[path = "../../../tools/testing/kafka_jars.rs"]
mod kafka_jars;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;

use kafka_jars::{kafka_libs, workspace_root};
use strand_base::{BrokerId, SystemClock, Uuid};
use strand_metadata::quorum::{LoneVoterTransport, NewVoter, Quorum, QuorumConfig};
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{ProducerIdsRecord, TopicRecord, UserScramCredentialRecord};

const DUMP_LOG_SEGMENTS: &str = "org.apache.kafka.tools.DumpLogSegments";
/// The core jar `fetch-jars.sh` checks for, and the tools jar that holds the class.
const REQUIRED_JARS: [&str; 2] = ["kafka_2.13-", "kafka-tools-"];
/// What DumpLogSegments prints when it cannot read something.
const PROBLEMS: [&str; 6] = ["Exception", "isvalid: false", "Error", "corrupt", "Could not", "invalid bytes"];
const WAIT: Duration = Duration::from_secs(30);

fn topic(name: &str, id: u8) -> (MetadataRecord, i16) {
    let record = TopicRecord { name: name.into(), topic_id: Uuid([id; 16]), ..TopicRecord::default() };
    (MetadataRecord::TopicRecord(record), 0)
}

fn producer_ids(next: i64) -> (MetadataRecord, i16) {
    let record =
        ProducerIdsRecord { broker_id: BrokerId(1), broker_epoch: 3, next_producer_id: next, ..Default::default() };
    (MetadataRecord::ProducerIdsRecord(record), 0)
}

async fn run_quorum(dir: &Path, appends: Vec<Vec<(MetadataRecord, i16)>>) {
    let config = QuorumConfig::lone_voter(1, "MkU3OEVBNTcwNTJENDM2Qg");
    let open = Quorum::open(dir, config, Arc::new(LoneVoterTransport), Arc::new(SystemClock));
    let quorum = tokio::time::timeout(WAIT, open).await.expect("opens in time").expect("opens");
    for records in appends {
        tokio::time::timeout(WAIT, quorum.append(records)).await.expect("commits in time").expect("commits");
    }
    tokio::time::timeout(WAIT, quorum.shutdown()).await.expect("stops in time").expect("stops");
}

/// Two runs of the quorum (two elections) leave a segment Kafka decodes record for record.
#[tokio::test]
async fn kafka_decodes_the_metadata_log() {
    let dir = tempfile::tempdir().expect("tempdir");
    let partition = dir.path().join("__cluster_metadata-0");
    run_quorum(&partition, vec![vec![topic("orders", 1), topic("payments", 2)], vec![producer_ids(1000)]]).await;
    run_quorum(&partition, vec![vec![topic("audit", 3)]]).await;

    let stdout = dump(&partition.join("00000000000000000000.log"));
    let lines: Vec<&str> = stdout.lines().collect();
    let payloads: Vec<&str> = lines.iter().filter_map(|l| l.split_once(" payload: ").map(|(_, p)| p)).collect();
    let expected_payloads = [
        r#"{"type":"TOPIC_RECORD","version":0,"data":{"name":"orders","topicId":"AQEBAQEBAQEBAQEBAQEBAQ"}}"#,
        r#"{"type":"TOPIC_RECORD","version":0,"data":{"name":"payments","topicId":"AgICAgICAgICAgICAgICAg"}}"#,
        r#"{"type":"PRODUCER_IDS_RECORD","version":0,"data":{"brokerId":1,"brokerEpoch":3,"nextProducerId":1000}}"#,
        r#"{"type":"TOPIC_RECORD","version":0,"data":{"name":"audit","topicId":"AwMDAwMDAwMDAwMDAwMDAw"}}"#,
    ];
    assert_eq!(payloads, expected_payloads, "{stdout}");
    let count = |needle: &str| lines.iter().filter(|l| l.contains(needle)).count();
    // A static quorum (no directory ids) is at kraft.version 0, as Kafka's static quorums are.
    assert_eq!(count(r#"KRaftVersion {"version":0,"kRaftVersion":0}"#), 1, "{stdout}");
    assert_eq!(count(r#"KRaftVoters {"version":0,"voters":[{"voterId":1,"#), 1, "{stdout}");
    assert_eq!(count(r#"LeaderChange: {"version":0,"leaderId":1,"voters":[{"voterId":1}]"#), 2, "{stdout}");
    // Batches follow each other without gaps: each base offset is the last one's last + 1.
    let mut next = 0;
    for line in lines.iter().filter(|l| l.starts_with("baseOffset: ")) {
        let field = |name: &str| -> i64 {
            let rest = line.split_once(name).map(|(_, r)| r).unwrap_or_default();
            rest.split_whitespace().next().and_then(|v| v.parse().ok()).unwrap_or(-1)
        };
        assert_eq!(field("baseOffset: "), next, "{line}");
        next = field("lastOffset: ") + 1;
    }
    // Membership (2 records), a leader change, 3 records, a leader change, 1 record.
    assert_eq!(next, 8, "{stdout}");
}

/// The `kraft.version` upgrade of a static quorum is one control batch Kafka decodes as it
/// writes its own: `KRaftVersion` 1, then the voters with their directory ids.
#[tokio::test]
async fn kafka_decodes_the_kraft_version_upgrade() {
    let dir = tempfile::tempdir().expect("tempdir");
    let partition = dir.path().join("__cluster_metadata-0");
    let config = QuorumConfig::lone_voter(1, "MkU3OEVBNTcwNTJENDM2Qg");
    let open = Quorum::open(&partition, config, Arc::new(LoneVoterTransport), Arc::new(SystemClock));
    let quorum = tokio::time::timeout(WAIT, open).await.expect("opens in time").expect("opens");
    let itself = NewVoter { id: 1, directory_id: Uuid([7; 16]), listeners: Vec::new() };
    quorum.report_voter(itself, (0, 1)).expect("the lone voter reports to itself");
    let upgrade = quorum.upgrade_kraft_version(1, WAIT);
    tokio::time::timeout(WAIT, upgrade).await.expect("upgrades in time").expect("upgrades");
    tokio::time::timeout(WAIT, quorum.append(vec![topic("orders", 1)])).await.expect("in time").expect("commits");
    tokio::time::timeout(WAIT, quorum.shutdown()).await.expect("stops in time").expect("stops");

    let stdout = dump(&partition.join("00000000000000000000.log"));
    let lines: Vec<&str> = stdout.lines().collect();
    let position = |needle: &str| lines.iter().position(|l| l.contains(needle));
    let before = position(r#"KRaftVersion {"version":0,"kRaftVersion":0}"#).expect(&stdout);
    let upgraded = position(r#"KRaftVersion {"version":0,"kRaftVersion":1}"#).expect(&stdout);
    let voters = r#"KRaftVoters {"version":0,"voters":[{"voterId":1,"voterDirectoryId":"BwcHBwcHBwcHBwcHBwcHBw""#;
    assert!(before < upgraded, "{stdout}");
    assert_eq!(position(voters), Some(upgraded + 1), "the voters follow in the same batch: {stdout}");
    let batch = lines[..upgraded].iter().rposition(|l| l.starts_with("baseOffset: ")).expect("a batch");
    assert!(lines[batch].contains("isControl: true") && lines[batch].contains("count: 2"), "{}", lines[batch]);
}

/// A snapshot of the metadata log is a `.checkpoint` file Kafka decodes: its header, the
/// voters, the image's records, its footer.
#[tokio::test]
async fn kafka_decodes_a_metadata_snapshot() {
    let dir = tempfile::tempdir().expect("tempdir");
    let partition = dir.path().join("__cluster_metadata-0");
    let config = QuorumConfig::lone_voter(1, "MkU3OEVBNTcwNTJENDM2Qg");
    let open = Quorum::open(&partition, config, Arc::new(LoneVoterTransport), Arc::new(SystemClock));
    let quorum = tokio::time::timeout(WAIT, open).await.expect("opens in time").expect("opens");
    for records in [vec![topic("orders", 1), topic("payments", 2)], vec![producer_ids(1000)]] {
        tokio::time::timeout(WAIT, quorum.append(records)).await.expect("commits in time").expect("commits");
    }
    let end = tokio::time::timeout(WAIT, quorum.snapshot(WAIT)).await.expect("in time").expect("snapshots");
    let name = format!("{end:020}-{:010}.checkpoint", quorum.leader_epoch());
    tokio::time::timeout(WAIT, quorum.shutdown()).await.expect("stops in time").expect("stops");

    let stdout = dump(&partition.join(&name));
    let lines: Vec<&str> = stdout.lines().collect();
    let payloads: Vec<&str> = lines.iter().filter_map(|l| l.split_once(" payload: ").map(|(_, p)| p)).collect();
    // The image's records at their newest versions, brokerId -1 as Kafka's image writes it.
    let expected_payloads = [
        r#"{"type":"TOPIC_RECORD","version":0,"data":{"name":"orders","topicId":"AQEBAQEBAQEBAQEBAQEBAQ"}}"#,
        r#"{"type":"TOPIC_RECORD","version":0,"data":{"name":"payments","topicId":"AgICAgICAgICAgICAgICAg"}}"#,
        r#"{"type":"PRODUCER_IDS_RECORD","version":0,"data":{"brokerId":-1,"brokerEpoch":-1,"nextProducerId":1000}}"#,
    ];
    assert_eq!(payloads, expected_payloads, "{stdout}");
    let count = |needle: &str| lines.iter().filter(|l| l.contains(needle)).count();
    assert_eq!(count("SnapshotHeader"), 1, "{stdout}");
    assert_eq!(count("SnapshotFooter"), 1, "{stdout}");
    assert_eq!(count(r#"KRaftVoters {"version":0,"voters":[{"voterId":1,"#), 1, "{stdout}");
}

/// `bootstrap.checkpoint`, as `strand storage format --add-scram` writes it, is what Kafka
/// calls a KRaft bootstrap snapshot: header, the records, footer.
#[test]
fn kafka_decodes_the_bootstrap_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let credential = UserScramCredentialRecord {
        name: "alice".into(),
        mechanism: 1,
        salt: Bytes::from_static(b"salt"),
        stored_key: Bytes::from_static(&[1; 32]),
        server_key: Bytes::from_static(&[2; 32]),
        iterations: 4096,
        ..Default::default()
    };
    let records = vec![(MetadataRecord::UserScramCredentialRecord(credential), 0)];
    let bootstrap = strand_metadata::quorum::Bootstrap { records, dynamic_voters: None };
    strand_metadata::quorum::write_bootstrap(dir.path(), &bootstrap, 1_700_000_000_000).expect("write");

    let stdout = dump(&dir.path().join(strand_metadata::quorum::BOOTSTRAP_FILE));
    assert!(stdout.contains("KRaft bootstrap snapshot"), "{stdout}");
    let payloads: Vec<&str> = stdout.lines().filter_map(|l| l.split_once(" payload: ").map(|(_, p)| p)).collect();
    let expected = r#"{"type":"USER_SCRAM_CREDENTIAL_RECORD","version":0,"data":{"name":"alice","mechanism":1,"salt":"c2FsdA==","storedKey":"AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=","serverKey":"AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=","iterations":4096}}"#;
    assert_eq!(payloads, [expected], "{stdout}");
    let count = |needle: &str| stdout.lines().filter(|l| l.contains(needle)).count();
    assert_eq!((count("SnapshotHeader"), count("SnapshotFooter")), (1, 1), "{stdout}");
}

/// Runs DumpLogSegments on `segment`, fails on any problem it reports, returns what it printed.
fn dump(segment: &Path) -> String {
    let libs = kafka_libs(&REQUIRED_JARS);
    let mut command = Command::new("java");
    command
        .arg("-cp")
        .arg(format!("{}/*", libs.display()))
        .arg(format!(
            "-Dlog4j2.configurationFile={}",
            workspace_root().join("compat/kafka/log4j2.properties").display()
        ))
        .arg(DUMP_LOG_SEGMENTS)
        .arg("--cluster-metadata-decoder")
        .arg("--files")
        .arg(segment);
    let output = command.output().unwrap_or_else(|e| panic!("could not run `java` (a JDK 17+ must be on PATH): {e}"));
    let (stdout, stderr) =
        (String::from_utf8_lossy(&output.stdout).into_owned(), String::from_utf8_lossy(&output.stderr).into_owned());
    assert!(output.status.success(), "{command:?} exited with {}:\n{stderr}", output.status);
    for problem in PROBLEMS {
        let found: Vec<&str> = stdout.lines().chain(stderr.lines()).filter(|l| l.contains(problem)).collect();
        assert!(found.is_empty(), "{command:?} reported {problem:?}:\n{}\n{stdout}", found.join("\n"));
    }
    stdout
}
