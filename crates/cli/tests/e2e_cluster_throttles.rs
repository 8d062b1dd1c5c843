//! Replication throttles (KIP-73) on three Strand nodes, set and cleared by Apache Kafka 4.4's own
//! `kafka-reassign-partitions` (`org.apache.kafka.tools.reassign.ReassignPartitionsCommand`):
//! `--execute --throttle` sets the brokers' `leader.replication.throttled.rate` and
//! `follower.replication.throttled.rate` and the topic's throttled replicas lists, and the new
//! replica of a partition holding megabytes catches up no faster than the throttle allows, while
//! an unthrottled partition reassigned beside it catches up at once; `--execute --additional
//! --throttle` raises it and the catch-up completes; `--verify` then removes every throttle
//! config, as Kafka's does.
//!
//! The follower's bytes are the size of its replica's segment files; the time is the wall clock's
//! (a loaded machine only makes the measured time, and so the allowed bytes, larger).
//!
//! Kafka's tool runs in Java: the Kafka 4.4.0 jars must be in `$STRAND_KAFKA_LIBS` (default
//! `<workspace>/target/kafka-libs`), put there by `compat/kafka/fetch-jars.sh`. Without them the
//! test fails and says so; it never skips.

mod common;

use std::time::{Duration, SystemTime};

use common::cluster::{Cluster, create_assigned_topic, partitions};
use common::kafka_tool::kafka_tool;
use common::{WAIT_MAX, batch, produce};
use strand_base::BrokerId;
use strand_protocol::messages::alter_partition_reassignments_request::{ReassignablePartition, ReassignableTopic};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
use strand_protocol::messages::{
    AlterPartitionReassignmentsRequest, DescribeConfigsRequest, ListPartitionReassignmentsRequest,
};

const REASSIGN: &str = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand";

/// The throttle, bytes a second.
const THROTTLE: u64 = 256 * 1024;
/// Records of 100 kB, each its own batch: 100 of them make a 10 MB partition.
const RECORD_BYTES: usize = 100_000;
const RECORDS: usize = 100;
/// What may pass beyond the rate: a fresh quota's first window (one second's worth) and the
/// fetch in flight when it is exceeded (`replica.fetch.max.bytes`, 1 MiB, and a batch more).
const BURST_BYTES: u64 = THROTTLE + 1024 * 1024 + RECORD_BYTES as u64;
/// How long the throttled catch-up is watched.
const WATCHED: Duration = Duration::from_secs(6);

const DYNAMIC_TOPIC_CONFIG: i8 = 1;
const DYNAMIC_BROKER_CONFIG: i8 = 2;
const DEFAULT_CONFIG: i8 = 5;
const BROKER: i8 = 4;
const TOPIC: i8 = 2;

/// The bytes of partition 0 of `topic` in `node`'s segment files.
fn replica_bytes(cluster: &Cluster, node: i32, topic: &str) -> u64 {
    let dir = cluster.node(node).data.path().join(format!("{topic}-0"));
    let Ok(entries) = std::fs::read_dir(&dir) else { return 0 };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum()
}

fn now() -> Duration {
    SystemTime::UNIX_EPOCH.elapsed().expect("a clock after 1970")
}

/// Each (name, value, source) node `node` describes for resource (`kind`, `name`), among `keys`.
fn described(cluster: &Cluster, node: i32, kind: i8, name: &str, keys: &[&str]) -> Vec<(String, String, i8)> {
    let request = DescribeConfigsRequest {
        resources: vec![DescribeConfigsResource {
            resource_type: kind,
            resource_name: name.into(),
            configuration_keys: Some(keys.iter().map(|k| (*k).to_owned()).collect()),
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::DescribeConfigs(response) =
        cluster.node(node).connect().call(RequestBody::DescribeConfigs(request), 4)
    else {
        panic!("not a DescribeConfigs response")
    };
    let result = &response.results[0];
    assert_eq!(result.error_code, 0, "{result:?}");
    result.configs.iter().map(|c| (c.name.clone(), c.value.clone().unwrap_or_default(), c.config_source)).collect()
}

const RATES: [&str; 2] = ["leader.replication.throttled.rate", "follower.replication.throttled.rate"];
const LISTS: [&str; 2] = ["leader.replication.throttled.replicas", "follower.replication.throttled.replicas"];

/// Polls every 50 ms until `done`, at most [`WAIT_MAX`].
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let mut polls = 0;
    while !done() {
        polls += 1;
        assert!(polls < WAIT_MAX.as_millis() / 50, "{what} within {WAIT_MAX:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A replica added to a 10 MB partition with `kafka-reassign-partitions --throttle 262144`
/// copies no more than the throttle allows (256 KiB/s over the time watched, with half again and
/// a burst to spare), while a replica added to an unthrottled partition at the same time copies
/// everything at once; `--verify` leaves the throttle while the copy is under way, raising it
/// with `--additional` lets the copy finish, and `--verify` then clears the brokers' rates and
/// the topic's lists.
#[test]
fn a_throttled_reassignment_copies_no_faster_than_its_throttle() {
    let _serial = common::serial();
    let cluster = Cluster::start(3);
    create_assigned_topic(&cluster, 2, "throttled", &[&[1]], &[]);
    create_assigned_topic(&cluster, 2, "free", &[&[1]], &[]);
    cluster.wait_for_metadata(1, "hosted the topics", |m| {
        partitions(m, "throttled") == [(0, 1, vec![1], vec![1])] && partitions(m, "free") == [(0, 1, vec![1], vec![1])]
    });
    let mut producer = cluster.node(1).connect();
    let value = "v".repeat(RECORD_BYTES);
    for topic in ["throttled", "free"] {
        for _ in 0..RECORDS {
            assert_eq!(produce(&mut producer, topic, 1, batch(&[&value])).0, 0);
        }
    }
    let total = replica_bytes(&cluster, 1, "throttled");
    assert!(total >= (RECORD_BYTES * RECORDS) as u64, "{total} bytes on broker 1");

    let plan = tempfile::NamedTempFile::new().expect("temp file");
    let json = r#"{"version":1,"partitions":[{"topic":"throttled","partition":0,"replicas":[1,3]}]}"#;
    std::fs::write(plan.path(), json).expect("write the plan");
    let plan = plan.path().to_str().expect("a UTF-8 path");
    let bootstrap = cluster.node(2).address;
    let throttle = THROTTLE.to_string();
    let (ok, out) =
        kafka_tool(REASSIGN, bootstrap, &["--execute", "--reassignment-json-file", plan, "--throttle", &throttle]);
    let started = now();
    assert!(ok, "{out}");
    assert!(out.contains(&format!("The inter-broker throttle limit was set to {THROTTLE} B/s")), "{out}");
    assert!(out.contains("Successfully started partition reassignment for throttled-0"), "{out}");
    for node in [1, 3] {
        let rates = described(&cluster, node, BROKER, &node.to_string(), &RATES);
        let expected: Vec<_> =
            [RATES[1], RATES[0]].map(|k| (k.to_owned(), throttle.clone(), DYNAMIC_BROKER_CONFIG)).into();
        assert_eq!(rates, expected, "broker {node}'s rates");
    }
    let lists = described(&cluster, 1, TOPIC, "throttled", &LISTS);
    assert!(lists.contains(&(LISTS[0].to_owned(), "0:1".to_owned(), DYNAMIC_TOPIC_CONFIG)), "{lists:?}");
    assert!(lists.contains(&(LISTS[1].to_owned(), "0:3".to_owned(), DYNAMIC_TOPIC_CONFIG)), "{lists:?}");

    // The unthrottled partition, reassigned now, is not held back by the other's throttle.
    let mut admin = cluster.node(2).connect();
    let request = AlterPartitionReassignmentsRequest {
        topics: vec![ReassignableTopic {
            name: "free".into(),
            partitions: vec![ReassignablePartition {
                partition_index: 0,
                replicas: Some(vec![BrokerId(1), BrokerId(2)]),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::AlterPartitionReassignments(altered) =
        admin.call(RequestBody::AlterPartitionReassignments(request), 0)
    else {
        panic!("not an AlterPartitionReassignments response")
    };
    assert_eq!(altered.responses[0].partitions[0].error_code, 0, "{altered:?}");
    let free_total = replica_bytes(&cluster, 1, "free");
    wait_until("the unthrottled replica copied everything", || replica_bytes(&cluster, 2, "free") == free_total);
    let free_copied_in = now() - started;

    // The throttled one, meanwhile and for a while after, copies no faster than the throttle.
    let copied = loop {
        let bytes = replica_bytes(&cluster, 3, "throttled");
        let elapsed = now() - started;
        let allowed = (THROTTLE as f64 * elapsed.as_secs_f64() * 1.5) as u64 + BURST_BYTES;
        eprintln!("{elapsed:?}: {bytes} of {total} bytes copied under the throttle (at most {allowed} allowed)");
        assert!(bytes <= allowed, "{bytes} bytes copied in {elapsed:?} under a {THROTTLE} B/s throttle");
        if elapsed >= WATCHED {
            break bytes;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    eprintln!("unthrottled: {free_total} bytes in {free_copied_in:?}; throttled: {copied} of {total} in {WATCHED:?}+");
    assert!(copied > 0, "the throttled replica copies, slowly");
    assert!(copied < total, "the throttled replica has not caught up");

    let (ok, out) = kafka_tool(REASSIGN, bootstrap, &["--verify", "--reassignment-json-file", plan]);
    assert!(ok, "{out}");
    assert!(out.contains("Reassignment of partition throttled-0 is still in progress."), "{out}");
    assert!(!out.contains("Clearing"), "throttles stay while the reassignment runs: {out}");
    assert_eq!(described(&cluster, 3, BROKER, "3", &RATES).len(), 2, "the rates stay");

    // Raised, as Kafka's documentation says to, the copy completes.
    let raised = (1024 * 1024 * 1024).to_string();
    let args = ["--execute", "--additional", "--reassignment-json-file", plan, "--throttle", &raised];
    let (ok, out) = kafka_tool(REASSIGN, bootstrap, &args);
    assert!(ok, "{out}");
    wait_until("the reassignment completed", || {
        let request = ListPartitionReassignmentsRequest { topics: None, ..Default::default() };
        let ResponseBody::ListPartitionReassignments(listed) =
            admin.call(RequestBody::ListPartitionReassignments(request), 0)
        else {
            panic!("not a ListPartitionReassignments response")
        };
        listed.topics.is_empty()
    });
    cluster.wait_for_metadata(3, "the new replica joined the ISR", |m| {
        partitions(m, "throttled").first().is_some_and(|p| p.2 == [1, 3] && p.3.len() == 2)
    });
    assert_eq!(replica_bytes(&cluster, 3, "throttled"), total, "the new replica holds every byte");

    let (ok, out) = kafka_tool(REASSIGN, bootstrap, &["--verify", "--reassignment-json-file", plan]);
    assert!(ok, "{out}");
    assert!(out.contains("Reassignment of partition throttled-0 is completed."), "{out}");
    assert!(out.contains("Clearing broker-level throttles on brokers 1,2,3"), "{out}");
    assert!(out.contains("Clearing topic-level throttles on topic throttled"), "{out}");
    for node in [1, 2, 3] {
        wait_until("the rates are gone", || described(&cluster, node, BROKER, &node.to_string(), &RATES).is_empty());
    }
    let lists = described(&cluster, 1, TOPIC, "throttled", &LISTS);
    assert!(lists.iter().all(|(_, value, source)| value.is_empty() && *source == DEFAULT_CONFIG), "{lists:?}");
}
