//! Leader elections asked for by an operator, with Apache Kafka 4.4's own
//! `kafka-leader-election` (`org.apache.kafka.tools.LeaderElectionCommand`) against three Strand
//! nodes: a preferred replica that lost its leadership gets it back, and the tool prints what it
//! prints against Kafka (its report is built from ElectLeaders' per-partition errors). The
//! expected outputs are what Kafka 4.4.0 printed for the same sequence on three combined nodes
//! run from the same jars (`auto.leader.rebalance.enable=false`, broker 1 stopped with SIGTERM
//! and restarted).
//!
//! Kafka's tool runs in Java: the Kafka 4.4.0 jars must be in `$STRAND_KAFKA_LIBS` (default
//! `<workspace>/target/kafka-libs`), put there by `compat/kafka/fetch-jars.sh`. Without them the
//! test fails and says so; it never skips.

mod common;

use common::cluster::{Cluster, create_assigned_topic, partitions};
use common::kafka_tool::kafka_tool;

const LEADER_ELECTION: &str = "org.apache.kafka.tools.LeaderElectionCommand";

/// (partition, leader, isr) of each partition of `topic` as node `asked` sees it, once `done`
/// holds for them.
fn wait_for(cluster: &Cluster, asked: i32, what: &str, done: impl Fn(&[(i32, i32, Vec<i32>)]) -> bool) {
    let shape = |m: &_| -> Vec<(i32, i32, Vec<i32>)> {
        partitions(m, "elect").into_iter().map(|(p, leader, _, isr)| (p, leader, isr)).collect()
    };
    cluster.wait_for_metadata(asked, what, |m| done(&shape(m)));
}

/// Broker 1, the preferred leader of `elect-0`, stops (controlled shutdown) and comes back: with
/// automatic rebalancing off it stays a follower. `kafka-leader-election --election-type
/// preferred --all-topic-partitions` moves the leadership back and names only that partition
/// (Kafka leaves out those that need no election); asked again by name, the tool says a valid
/// replica is already elected; an unclean election over every partition has nothing to do and
/// prints nothing; a JSON file naming an unknown partition fails it with Kafka's error line.
#[test]
fn kafka_leader_election_moves_a_preferred_leader_back() {
    let _serial = common::serial();
    let mut cluster = Cluster::start_configured(3, 3, &["auto.leader.rebalance.enable=false"]);
    create_assigned_topic(&cluster, 2, "elect", &[&[1, 2, 3], &[2, 3, 1]], &[]);
    wait_for(&cluster, 2, "led elect by its preferred replicas", |p| {
        p.len() == 2 && p.iter().all(|(_, _, isr)| isr.len() == 3) && p[0].1 == 1 && p[1].1 == 2
    });

    cluster.terminate(1);
    wait_for(&cluster, 2, "moved elect-0 off broker 1", |p| p.len() == 2 && ![1, -1].contains(&p[0].1));
    cluster.restart(1);
    wait_for(&cluster, 2, "had broker 1 back in elect-0's ISR", |p| p.len() == 2 && p[0].2.contains(&1));
    wait_for(&cluster, 2, "kept elect-0 off broker 1", |p| p[0].1 != 1);

    let bootstrap = cluster.node(2).address;
    let preferred_all = ["--election-type", "preferred", "--all-topic-partitions"];
    assert_eq!(
        kafka_tool(LEADER_ELECTION, bootstrap, &preferred_all),
        (true, "Successfully completed leader election (PREFERRED) for partitions elect-0\n".to_owned())
    );
    wait_for(&cluster, 3, "led elect-0 by broker 1 again", |p| p.len() == 2 && p[0].1 == 1);

    let by_name = ["--election-type", "preferred", "--topic", "elect", "--partition", "0"];
    assert_eq!(
        kafka_tool(LEADER_ELECTION, bootstrap, &by_name),
        (true, "Valid replica already elected for partitions elect-0\n".to_owned())
    );
    let unclean_all = ["--election-type", "unclean", "--all-topic-partitions"];
    assert_eq!(kafka_tool(LEADER_ELECTION, bootstrap, &unclean_all), (true, String::new()));

    let file = tempfile::NamedTempFile::new().expect("temp file");
    let json = r#"{"partitions": [{"topic": "elect", "partition": 1}, {"topic": "elect", "partition": 9}]}"#;
    std::fs::write(file.path(), json).expect("write the JSON file");
    let path = file.path().to_str().expect("a UTF-8 path");
    let (succeeded, stdout) =
        kafka_tool(LEADER_ELECTION, bootstrap, &["--election-type", "preferred", "--path-to-json-file", path]);
    assert!(!succeeded, "an unknown partition fails the tool");
    assert_eq!(
        stdout,
        "Valid replica already elected for partitions elect-1\n\
         Error completing leader election (PREFERRED) for partition: elect-9: \
         org.apache.kafka.common.errors.UnknownTopicOrPartitionException: No such partition as elect-9\n"
    );
}
