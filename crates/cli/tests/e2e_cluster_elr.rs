//! Eligible leader replicas (KIP-966 part 1, on by default in a new cluster as in Kafka 4.1+)
//! end to end: two controllers (nodes 1 and 2, a quorum that fences brokers whose sessions
//! expire, which a sole voter does not) and three brokers (3, 4, 5) holding a topic of three
//! replicas with `min.insync.replicas=2`, whose replicas stop one by one:
//!
//! - a SIGTERM'd follower leaves the ISR, which still holds min ISR: no ELR;
//! - a kill -9'd follower is fenced and leaves the ISR below min ISR: it becomes eligible (ELR);
//!   `acks=all` is refused (NOT_ENOUGH_REPLICAS) and an `acks=1` record is stored but not exposed
//!   (strict min ISR: the high watermark stays);
//! - the leader, the last ISR member, shuts down: the ISR empties, the ELR holds both, the last
//!   known ELR the last leader, and Kafka 4.4's `kafka-topics --describe` prints them;
//! - the kill -9'd replica registers again with no clean-shutdown epoch: it leaves the ELR and,
//!   once unfenced, is not elected; the replica that shut down cleanly comes back and is elected
//!   from the ELR (a clean election), every acknowledged record still there.
//!
//! Each step's partition state is compared with what Apache Kafka 4.4.0 reported for the same
//! sequence (`tests/data/kafka-4.4-elr-describe.txt`, `kafka-topics --describe` after each step on
//! a Kafka cluster of the same shape), and Kafka's `kafka-topics --describe` against Strand at the
//! leaderless step must print Kafka's lines exactly.
//!
//! Kafka's tool runs in Java: the Kafka 4.4.0 jars must be in `$STRAND_KAFKA_LIBS` (default
//! `<workspace>/target/kafka-libs`), put there by `compat/kafka/fetch-jars.sh`.

mod common;

use std::time::Duration;

use common::cluster::{Cluster, create_assigned_topic};
use common::kafka_tool::{kafka_tool, workspace_root};
use common::{Client, WAIT_MAX, batch, fetch_all, produce, produce_when_led};
use strand_base::BrokerId;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::DescribeTopicPartitionsRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::describe_topic_partitions_request::TopicRequest;

const TOPIC: &str = "elr";
const ACKS_ALL: i16 = -1;
const ACKS_LEADER: i16 = 1;

/// (leader, ISR, ELR, last known ELR) of partition 0 as DescribeTopicPartitions reports it.
type Elr = (i32, Vec<i32>, Vec<i32>, Vec<i32>);

fn describe(client: &mut Client) -> Elr {
    let request = DescribeTopicPartitionsRequest {
        topics: vec![TopicRequest { name: TOPIC.into(), ..Default::default() }],
        response_partition_limit: 10,
        ..Default::default()
    };
    let ResponseBody::DescribeTopicPartitions(response) = client.call(RequestBody::DescribeTopicPartitions(request), 0)
    else {
        panic!("not a DescribeTopicPartitions response")
    };
    let p = &response.topics[0].partitions[0];
    let ids = |list: &[BrokerId]| list.iter().map(|b| b.0).collect::<Vec<_>>();
    let opt = |list: &Option<Vec<BrokerId>>| list.as_deref().map(ids).unwrap_or_default();
    (p.leader_id.0, ids(&p.isr_nodes), opt(&p.eligible_leader_replicas), opt(&p.last_known_elr))
}

/// Kafka 4.4's `kafka-topics --describe` output after each step, by step title.
fn kafka_steps() -> Vec<(String, String)> {
    let path = workspace_root().join("crates/cli/tests/data/kafka-4.4-elr-describe.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut steps: Vec<(String, String)> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with("# ")) {
        match line.strip_prefix("== ") {
            Some(title) => steps.push((title.to_owned(), String::new())),
            None => {
                let (_, block) = steps.last_mut().expect("a step title first");
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    steps
}

/// The (leader, ISR, ELR, last known ELR) that Kafka's partition line of step `title` shows.
fn kafka_state(steps: &[(String, String)], title: &str) -> Elr {
    let (_, block) = steps.iter().find(|(t, _)| t == title).unwrap_or_else(|| panic!("no Kafka step {title:?}"));
    let line = block.lines().find(|l| l.contains("Partition: 0")).expect("a partition line");
    let field = |name: &str| {
        let value = line.split('\t').find_map(|f| f.strip_prefix(name)).expect("field").trim();
        value.split(',').filter(|v| !v.is_empty()).map(|v| v.parse::<i32>().expect("a broker id")).collect::<Vec<_>>()
    };
    let leader = if line.contains("Leader: none") { -1 } else { field("Leader: ")[0] };
    (leader, field("Isr: "), field("Elr: "), field("LastKnownElr: "))
}

/// Asks node 1 until partition 0 is what Kafka showed at step `title`.
fn wait_for_kafka_step(cluster: &Cluster, steps: &[(String, String)], title: &str) {
    wait_for(cluster, title, kafka_state(steps, title));
}

/// Asks node 1 until partition 0 is `expected`, the ISR in any order (it lists members in the
/// order they joined, which the followers' fetch timing decides).
fn wait_for(cluster: &Cluster, what: &str, expected: Elr) {
    let sorted = |(leader, mut isr, elr, last_known): Elr| {
        isr.sort_unstable();
        (leader, isr, elr, last_known)
    };
    let expected = sorted(expected);
    let mut client = cluster.node(1).connect();
    let mut seen = describe(&mut client);
    for _ in 0..WAIT_MAX.as_millis() / 100 {
        if sorted(seen.clone()) == expected {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
        seen = describe(&mut client);
    }
    let log = cluster.node(1).log.lock().map(|l| l.join("\n")).unwrap_or_default();
    panic!("{what}: partition 0 stayed {seen:?}, expected {expected:?}; node 1 logged:\n{log}");
}

/// The line node `id`'s last registration logged, naming its previous broker epoch.
fn registration_line(cluster: &Cluster, id: i32) -> String {
    let log = cluster.node(id).log.lock().map(|l| l.clone()).unwrap_or_default();
    log.into_iter().rfind(|l| l.contains("previous broker epoch")).unwrap_or_default()
}

/// The whole sequence of the module doc.
#[test]
fn eligible_leader_replicas_keep_a_partition_electable_without_loss() {
    let steps = kafka_steps();
    let mut cluster = Cluster::start_configured(5, 2, &["auto.leader.rebalance.enable=false"]);
    create_assigned_topic(&cluster, 1, TOPIC, &[&[3, 4, 5]], &[("min.insync.replicas", "2")]);
    wait_for_kafka_step(&cluster, &steps, "created");
    let mut leader = cluster.node(3).connect();
    assert_eq!(produce_when_led(&mut leader, TOPIC, ACKS_ALL, &["a0", "a1", "a2"]), (0, 0));

    cluster.terminate(5);
    wait_for_kafka_step(&cluster, &steps, "5 stopped (SIGTERM)");
    assert_eq!(produce(&mut leader, TOPIC, ACKS_ALL, batch(&["b"])), (0, 3), "ISR 2 meets min ISR 2");

    cluster.kill(4);
    wait_for_kafka_step(&cluster, &steps, "4 killed (kill -9) and fenced");
    let refused = produce(&mut leader, TOPIC, ACKS_ALL, batch(&["refused"]));
    assert_eq!(refused.0, ErrorCode::NotEnoughReplicas.code(), "acks=all below min ISR");
    assert_eq!(produce(&mut leader, TOPIC, ACKS_LEADER, batch(&["c"])), (0, 4), "acks=1 is stored");
    assert_eq!(leader.list_offset(TOPIC, -1), 4, "the high watermark stays below the acks=1 record");
    assert_eq!(fetch_all(&mut leader, TOPIC), ["a0", "a1", "a2", "b"], "consumers do not see it");

    let leaderless = "3, the last ISR member, stopped (SIGTERM)";
    cluster.terminate(3);
    wait_for_kafka_step(&cluster, &steps, leaderless);
    let (ok, described) =
        kafka_tool("org.apache.kafka.tools.TopicCommand", cluster.node(1).address, &["--describe", "--topic", TOPIC]);
    assert!(ok, "kafka-topics --describe failed");
    let topic_id = described.split("TopicId: ").nth(1).and_then(|rest| rest.split('\t').next()).unwrap_or_default();
    let described = described.replace(topic_id, "<TOPIC_ID>");
    let kafka = &steps.iter().find(|(t, _)| t == leaderless).expect("the leaderless step").1;
    assert_eq!(&described, kafka, "kafka-topics --describe against Strand and against Kafka");

    cluster.restart(4);
    assert!(registration_line(&cluster, 4).contains("previous broker epoch -1"), "4 crashed: no clean epoch");
    wait_for_kafka_step(&cluster, &steps, "4 restarted");
    cluster.restart(5);
    wait_for_kafka_step(&cluster, &steps, "5 restarted");
    cluster.restart(3);
    assert!(!registration_line(&cluster, 3).contains("previous broker epoch -1"), "3 stopped cleanly");
    wait_for_kafka_step(&cluster, &steps, "3 restarted");
    let mut leader = cluster.node(3).connect();
    let values = common::cluster::read_committed(&mut leader, TOPIC, 5);
    assert_eq!(values, ["a0", "a1", "a2", "b", "c"], "nothing acknowledged is lost; c is exposed at min ISR");
    assert_eq!(produce_when_led(&mut leader, TOPIC, ACKS_ALL, &["d"]), (0, 5));
}
