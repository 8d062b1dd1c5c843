//! Several `strand` processes as one cluster: three nodes with both roles form the metadata
//! quorum over their CONTROLLER listeners, brokers register and heartbeat to the active
//! controller, admin requests sent to any node are decided by it, and a broker that dies is
//! fenced (its leaderships and ISR places move to the others) and taken back when it returns; a
//! partition reassigned to other brokers takes its data along and leaves no replica behind.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::txn::{TxnProducer, end_offsets, fetch_committed, until};
use common::{Server, Starting, WAIT_MAX, batch, fetch_all, produce};
use strand_base::BrokerId;
use strand_protocol::messages::alter_partition_reassignments_request::{ReassignablePartition, ReassignableTopic};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::{
    CreatableReplicaAssignment, CreatableTopic, CreatableTopicConfig,
};
use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
use strand_protocol::messages::{
    AlterPartitionReassignmentsRequest, CreateTopicsRequest, DescribeConfigsRequest, ListPartitionReassignmentsRequest,
    MetadataRequest, MetadataResponse,
};

const CLUSTER_ID: &str = "MkU3OEVBNTcwNTJENDM2Qg";
/// Lowered from Kafka's defaults (9 s, 2 s) so a dead broker is fenced within a test's patience.
const SESSION_TIMEOUT_MS: u32 = 2_000;
const HEARTBEAT_INTERVAL_MS: u32 = 250;

/// Three nodes, each broker and controller, on free loopback ports.
struct Cluster {
    nodes: Vec<Option<Server>>,
    /// Each node's data directory while it is down.
    stopped: Vec<Option<tempfile::TempDir>>,
    controller_ports: Vec<u16>,
    last_logs: std::collections::BTreeMap<i32, String>,
    /// Settings every node gets besides the cluster's own.
    extra: Vec<String>,
}

impl Cluster {
    fn start(size: usize) -> Cluster {
        Cluster::start_with_voters(size, size)
    }

    /// `size` nodes of which the first `voters` are brokers and controllers and the rest brokers
    /// that only observe the metadata log.
    fn start_with_voters(size: usize, voters: usize) -> Cluster {
        Cluster::start_configured(size, voters, &[])
    }

    /// As [`Cluster::start_with_voters`], every node with the `extra` settings too.
    fn start_configured(size: usize, voters: usize, extra: &[&str]) -> Cluster {
        let controller_ports = free_ports(voters);
        let mut cluster = Cluster {
            nodes: (0..size).map(|_| None).collect(),
            stopped: (0..size).map(|_| Some(tempfile::tempdir().expect("temp dir"))).collect(),
            controller_ports,
            last_logs: std::collections::BTreeMap::new(),
            extra: extra.iter().map(|s| (*s).to_owned()).collect(),
        };
        // Every voter must run before any can serve: spawn all, then wait for each.
        let starting: Vec<(usize, Starting)> = (0..size).map(|i| (i, cluster.spawn(i))).collect();
        for (i, node) in starting {
            cluster.nodes[i] = Some(node.ready());
        }
        cluster
    }

    /// Node ids are 1-based; index `i` is node `i + 1`.
    fn spawn(&mut self, i: usize) -> Starting {
        let voters: Vec<String> =
            self.controller_ports.iter().enumerate().map(|(j, port)| format!("{}@127.0.0.1:{port}", j + 1)).collect();
        let (roles, listeners) = match self.controller_ports.get(i) {
            Some(port) => ("broker,controller", format!("PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:{port}")),
            None => ("broker", "PLAINTEXT://127.0.0.1:0".to_owned()),
        };
        let overrides = [
            format!("node.id={}", i + 1),
            format!("process.roles={roles}"),
            format!("listeners={listeners}"),
            "controller.listener.names=CONTROLLER".to_owned(),
            format!("controller.quorum.voters={}", voters.join(",")),
            format!("cluster.id={CLUSTER_ID}"),
            format!("broker.session.timeout.ms={SESSION_TIMEOUT_MS}"),
            format!("broker.heartbeat.interval.ms={HEARTBEAT_INTERVAL_MS}"),
            // Preferred leaders come back within a second rather than five minutes.
            "leader.imbalance.check.interval.seconds=1".to_owned(),
            // Timed-out transactions are aborted within a fifth of a second of their timeout.
            "transaction.abort.timed.out.transaction.cleanup.interval.ms=200".to_owned(),
        ];
        let overrides: Vec<&str> = overrides.iter().chain(&self.extra).map(String::as_str).collect();
        let data = self.stopped[i].take().expect("the node is down");
        Server::spawn_with(data, &overrides)
    }

    /// The node that last said it became the active controller and has not said it stopped.
    fn active_controller(&self) -> Option<i32> {
        (1..=self.nodes.len() as i32).find(|id| {
            let Some(server) = self.nodes[index(*id)].as_ref() else { return false };
            let log = server.log.lock().map(|l| l.clone()).unwrap_or_default();
            log.iter().rev().find(|l| l.contains("active controller")).is_some_and(|l| l.contains(" is the active"))
        })
    }

    /// Waits until a running node says it is the active controller, other than `not`.
    fn wait_for_active_controller(&self, not: Option<i32>) -> i32 {
        const POLL: Duration = Duration::from_millis(100);
        for _ in 0..WAIT_MAX.as_millis() / POLL.as_millis() {
            if let Some(id) = self.active_controller().filter(|id| Some(*id) != not) {
                return id;
            }
            std::thread::sleep(POLL);
        }
        panic!("no node became the active controller within {WAIT_MAX:?}")
    }

    fn node(&self, id: i32) -> &Server {
        self.nodes[index(id)].as_ref().expect("the node runs")
    }

    /// `kill -9` node `id`.
    fn kill(&mut self, id: i32) {
        let server = self.nodes[index(id)].take().expect("the node runs");
        self.stopped[index(id)] = Some(server.kill());
    }

    /// SIGTERM node `id` and wait for its clean exit.
    fn terminate(&mut self, id: i32) {
        let server = self.nodes[index(id)].take().expect("the node runs");
        let log = server.log.clone();
        self.stopped[index(id)] = Some(server.terminate());
        self.last_logs.insert(id, log.lock().map(|l| l.join("\n")).unwrap_or_default());
    }

    /// The log of node `id`'s last run, once it has stopped.
    fn stopped_log(&self, id: i32) -> String {
        self.last_logs.get(&id).cloned().unwrap_or_default()
    }

    fn restart(&mut self, id: i32) {
        self.restart_all(&[id]);
    }

    /// Restarts nodes together: voters can serve only once a majority of them runs.
    fn restart_all(&mut self, ids: &[i32]) {
        let starting: Vec<(i32, Starting)> = ids.iter().map(|id| (*id, self.spawn(index(*id)))).collect();
        for (id, node) in starting {
            self.nodes[index(id)] = Some(node.ready());
        }
    }

    /// Asks node `id` for the metadata of every topic until `done` holds for it.
    fn wait_for_metadata(&self, id: i32, what: &str, done: impl Fn(&MetadataResponse) -> bool) -> MetadataResponse {
        let mut client = self.node(id).connect();
        const POLL: Duration = Duration::from_millis(100);
        for _ in 0..WAIT_MAX.as_millis() / POLL.as_millis() {
            let request = MetadataRequest { topics: None, ..Default::default() };
            let ResponseBody::Metadata(response) = client.call(RequestBody::Metadata(request), 12) else {
                panic!("not a Metadata response")
            };
            if done(&response) {
                return response;
            }
            std::thread::sleep(POLL);
        }
        panic!("node {id}: never {what} within {WAIT_MAX:?}")
    }
}

fn index(id: i32) -> usize {
    usize::try_from(id - 1).expect("node ids start at 1")
}

/// `count` distinct loopback ports nothing listens on now (the nodes bind them a moment later).
fn free_ports(count: usize) -> Vec<u16> {
    hold_free_ports(count).iter().map(|l| l.local_addr().expect("address").port()).collect()
}

/// `count` listeners on distinct free loopback ports, held (so the system hands none of them out
/// again) until dropped.
#[allow(clippy::disallowed_methods)] // The test picks ports for the processes it starts.
fn hold_free_ports(count: usize) -> Vec<std::net::TcpListener> {
    (0..count).map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("bind")).collect()
}

/// Every record of partition 0 of `topic` that consumers may read, once there are at least
/// `count`: a new leader's high watermark reaches what the old one had acknowledged only after
/// the remaining followers fetch again, so a read just after a failover may see less for a moment
/// (never anything else).
fn read_committed(client: &mut common::Client, topic: &str, count: usize) -> Vec<String> {
    let mut values = Vec::new();
    for _ in 0..WAIT_MAX.as_millis() / 100 {
        values = fetch_all(client, topic);
        if values.len() >= count {
            return values;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    values
}

fn brokers(response: &MetadataResponse) -> Vec<i32> {
    let mut ids: Vec<i32> = response.brokers.iter().map(|b| b.node_id.0).collect();
    ids.sort_unstable();
    ids
}

/// (partition, leader, replicas, isr) of `topic`, by partition.
fn partitions(response: &MetadataResponse, topic: &str) -> Vec<(i32, i32, Vec<i32>, Vec<i32>)> {
    let Some(topic) = response.topics.iter().find(|t| t.name.as_deref() == Some(topic)) else { return Vec::new() };
    let ids = |list: &[BrokerId]| list.iter().map(|b| b.0).collect::<Vec<_>>();
    let mut partitions: Vec<_> = topic
        .partitions
        .iter()
        .map(|p| (p.partition_index, p.leader_id.0, ids(&p.replica_nodes), ids(&p.isr_nodes)))
        .collect();
    partitions.sort_unstable();
    partitions
}

fn create_replicated_topic(cluster: &Cluster, through: i32, name: &str) {
    create_topic(cluster, through, name, 3);
}

fn create_topic(cluster: &Cluster, through: i32, name: &str, partitions: i32) {
    create_topic_with(cluster, through, name, partitions, &[]);
}

/// Creates `name` with replication factor 3 and the topic configs `configs`, through node
/// `through`.
fn create_topic_with(cluster: &Cluster, through: i32, name: &str, partitions: i32, configs: &[(&str, &str)]) {
    let configs = configs
        .iter()
        .map(|(name, value)| CreatableTopicConfig {
            name: (*name).to_owned(),
            value: Some((*value).to_owned()),
            ..Default::default()
        })
        .collect();
    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: name.into(),
            num_partitions: partitions,
            replication_factor: 3,
            configs,
            ..Default::default()
        }],
        timeout_ms: 10_000,
        ..Default::default()
    };
    let ResponseBody::CreateTopics(created) =
        cluster.node(through).connect().call(RequestBody::CreateTopics(request), 7)
    else {
        panic!("not a CreateTopics response")
    };
    assert_eq!(created.topics[0].error_code, 0, "{:?}", created.topics[0]);
}

/// A topic created through one node is decided by the active controller, and every node's
/// metadata shows it with three replicas in sync; a broker killed with `kill -9` is fenced
/// within the session timeout (gone from Metadata, its leaderships moved to in-sync followers,
/// out of every ISR), and once restarted it registers again, is listed, catches up into the ISRs
/// and leads its preferred partitions again.
#[test]
fn a_dead_broker_is_fenced_and_a_restarted_one_rejoins() {
    let _serial = common::serial();
    let mut cluster = Cluster::start(3);
    create_replicated_topic(&cluster, 2, "replicated");

    let mut layout = Vec::new();
    for id in 1..=3 {
        let response = cluster.wait_for_metadata(id, "listed three brokers and the topic", |m| {
            brokers(m) == [1, 2, 3] && partitions(m, "replicated").len() == 3
        });
        layout = partitions(&response, "replicated");
        for (partition, leader, replicas, isr) in &layout {
            assert_eq!(replicas.len(), 3, "partition {partition}");
            assert_eq!(isr.len(), 3, "partition {partition}");
            assert_eq!(*leader, replicas[0], "partition {partition}: the first replica leads");
        }
    }
    let leaders: std::collections::BTreeSet<i32> = layout.iter().map(|(_, leader, _, _)| *leader).collect();
    assert_eq!(leaders.len(), 3, "leaders spread over the brokers: {layout:?}");
    // Design §6: three replicas or more get min.insync.replicas=2 as the topic's own config.
    let request = DescribeConfigsRequest {
        resources: vec![DescribeConfigsResource {
            resource_type: 2,
            resource_name: "replicated".into(),
            configuration_keys: Some(vec!["min.insync.replicas".into()]),
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::DescribeConfigs(described) =
        cluster.node(3).connect().call(RequestBody::DescribeConfigs(request), 4)
    else {
        panic!("not a DescribeConfigs response")
    };
    let config = &described.results[0].configs[0];
    assert_eq!((config.value.as_deref(), config.config_source), (Some("2"), 1), "{config:?}");

    let victim = layout[0].1;
    cluster.kill(victim);
    let survivor = if victim == 1 { 2 } else { 1 };
    let fenced = cluster.wait_for_metadata(survivor, "fenced the dead broker", |m| !brokers(m).contains(&victim));
    for (partition, leader, replicas, isr) in partitions(&fenced, "replicated") {
        assert_ne!(leader, victim, "partition {partition} still led by the dead broker");
        assert!(isr.contains(&leader), "partition {partition}: leader {leader} is in the ISR {isr:?}");
        assert!(!isr.contains(&victim), "partition {partition}: the dead broker is still in the ISR {isr:?}");
        assert_eq!(replicas.len(), 3, "partition {partition}: replicas stay assigned");
    }

    cluster.restart(victim);
    cluster.wait_for_metadata(survivor, "listed the restarted broker", |m| brokers(m) == [1, 2, 3]);
    // Back in the ISR, the restarted broker leads again the partitions it is preferred for
    // (auto.leader.rebalance.enable).
    cluster.wait_for_metadata(survivor, "moved leadership back to the preferred replicas", |m| {
        let now = partitions(m, "replicated");
        now.len() == 3 && now.iter().all(|(_, leader, replicas, isr)| *leader == replicas[0] && isr.len() == 3)
    });
}

/// SIGTERM is Kafka's controlled shutdown: the broker stops only after the controller has moved
/// its leaderships to in-sync followers and fenced it, so clients are never pointed at a broker
/// that is gone, and the restarted broker registers at once (no stale session to wait out).
#[test]
fn a_clean_stop_hands_leadership_over_first() {
    let _serial = common::serial();
    let mut cluster = Cluster::start(3);
    create_replicated_topic(&cluster, 1, "handed-over");
    let before = cluster
        .wait_for_metadata(1, "listed the topic", |m| partitions(m, "handed-over").len() == 3 && brokers(m).len() == 3);
    let leaving = partitions(&before, "handed-over")[1].1;
    let staying = if leaving == 3 { 2 } else { 3 };

    cluster.terminate(leaving);
    let after = cluster.wait_for_metadata(staying, "dropped the stopped broker", |m| !brokers(m).contains(&leaving));
    for (partition, leader, _, isr) in partitions(&after, "handed-over") {
        assert_ne!(leader, leaving, "partition {partition} is still led by the stopped broker");
        assert!(isr.contains(&leader), "partition {partition}: leader {leader} not in ISR {isr:?}");
    }
    let log = cluster.stopped_log(leaving);
    assert!(log.contains("controlled shutdown complete"), "the broker stopped without handing over:\n{log}");

    cluster.restart(leaving);
    cluster.wait_for_metadata(staying, "listed the restarted broker", |m| brokers(m) == [1, 2, 3]);
}

/// The node that leads partition 0 of `topic`, once node `asked`'s metadata names a leader in
/// the ISR that `done` accepts.
fn leader_of(cluster: &Cluster, asked: i32, topic: &str, done: impl Fn(i32, &[i32]) -> bool) -> i32 {
    let response = cluster.wait_for_metadata(asked, "named the wanted leader", |m| {
        partitions(m, topic).first().is_some_and(|(_, leader, _, isr)| *leader >= 0 && done(*leader, isr))
    });
    partitions(&response, topic)[0].1
}

/// Replication end to end: records acknowledged with `acks=all` are on every in-sync replica, so
/// after the leader is killed (`kill -9`) the new leader serves every one of them; the cluster
/// takes writes again at once, and the old leader, restarted, catches up and rejoins the ISR,
/// after which it alone can serve the whole log.
#[test]
fn acknowledged_writes_survive_the_leader_dying() {
    let _serial = common::serial();
    let mut cluster = Cluster::start(3);
    create_topic(&cluster, 1, "durable", 1);
    let first = leader_of(&cluster, 1, "durable", |_, isr| isr.len() == 3);
    leader_of(&cluster, first, "durable", |leader, _| leader == first);
    let mut client = cluster.node(first).connect();
    let mut expected = Vec::new();
    for i in 0..50 {
        let values = [format!("a{i}"), format!("b{i}")];
        let refs: Vec<&str> = values.iter().map(String::as_str).collect();
        assert_eq!(produce(&mut client, "durable", -1, batch(&refs)), (0, 2 * i), "batch {i}");
        expected.extend(values);
    }
    drop(client);

    cluster.kill(first);
    let survivor = if first == 1 { 2 } else { 1 };
    let second = leader_of(&cluster, survivor, "durable", |leader, _| leader != first);
    leader_of(&cluster, second, "durable", |leader, _| leader == second);
    let mut client = cluster.node(second).connect();
    assert_eq!(
        read_committed(&mut client, "durable", expected.len()),
        expected,
        "the new leader has every acknowledged record"
    );
    assert_eq!(produce(&mut client, "durable", -1, batch(&["after"])).0, 0, "writes go on without the old leader");
    expected.push("after".to_owned());
    drop(client);

    cluster.restart(first);
    leader_of(&cluster, survivor, "durable", |_, isr| isr.contains(&first));
    // Only the restarted broker and one other remain: the other's copy must have come to it.
    let third = (1..=3).find(|id| *id != first && *id != second).expect("a third node");
    cluster.kill(second);
    cluster.kill(third);
    cluster.restart(third);
    let last = leader_of(&cluster, first, "durable", |leader, _| leader == first || leader == third);
    leader_of(&cluster, last, "durable", |leader, _| leader == last);
    let mut client = cluster.node(last).connect();
    assert_eq!(read_committed(&mut client, "durable", expected.len()), expected);
}

/// A broker that is not a voter (`process.roles=broker`) follows the committed metadata log from
/// the voters, registers through the active controller, forwards admin requests to it, and holds
/// replicas like any broker: a topic created through it with a replica on every node gets it in
/// its ISR, so records acknowledged with `acks=all` are on it; after every other node has stopped
/// and two voters come back, the partition (led by the observer or a returning voter) still
/// serves them all.
#[test]
fn a_broker_only_node_observes_the_metadata_and_replicates() {
    let _serial = common::serial();
    let mut cluster = Cluster::start_with_voters(4, 3);
    cluster.wait_for_metadata(4, "listed every broker", |m| brokers(m) == [1, 2, 3, 4]);
    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: "observed".into(),
            num_partitions: 1,
            replication_factor: 4,
            ..Default::default()
        }],
        timeout_ms: 10_000,
        ..Default::default()
    };
    let ResponseBody::CreateTopics(created) = cluster.node(4).connect().call(RequestBody::CreateTopics(request), 7)
    else {
        panic!("not a CreateTopics response")
    };
    assert_eq!(created.topics[0].error_code, 0, "{:?}", created.topics[0]);
    let leader = leader_of(&cluster, 4, "observed", |_, isr| isr.len() == 4);
    leader_of(&cluster, leader, "observed", |l, _| l == leader);
    let mut client = cluster.node(leader).connect();
    for i in 0..10 {
        assert_eq!(produce(&mut client, "observed", -1, batch(&[&format!("r{i}")])), (0, i), "record {i}");
    }
    drop(client);
    let expected: Vec<String> = (0..10).map(|i| format!("r{i}")).collect();
    // Make the observer the leader: every other node stops, so only it remains in the ISR.
    for id in (1..=3).filter(|id| *id != leader) {
        cluster.terminate(id);
    }
    if leader != 4 {
        cluster.terminate(leader);
    }
    // A majority of voters must run for the controller to move leadership: bring two back.
    cluster.restart_all(&[1, 2]);
    let now = leader_of(&cluster, 4, "observed", |leader, _| [1, 2, 4].contains(&leader));
    let mut client = cluster.node(now).connect();
    assert_eq!(read_committed(&mut client, "observed", expected.len()), expected);
}

/// The snapshots (Kafka `.checkpoint` files) each voter writes of its metadata image, by node.
fn metadata_snapshots(cluster: &Cluster, ids: &[i32]) -> Vec<Vec<String>> {
    ids.iter()
        .map(|id| {
            let dir = cluster.node(*id).data.path().join("__cluster_metadata-0");
            let mut names: Vec<String> = std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .filter(|name| name.ends_with(".checkpoint"))
                .collect();
            names.sort();
            names
        })
        .collect()
}

/// With `metadata.log.max.record.bytes.between.snapshots` lowered, voters snapshot their
/// metadata image as they go; restarted, their logs start at the snapshot, so a broker-only node
/// (which keeps no copy of the log) restarting after them loads its image from a voter's
/// snapshot, and sees every topic created before it, serving one it holds a replica of.
#[test]
fn a_restarted_observer_loads_the_metadata_from_a_snapshot() {
    let _serial = common::serial();
    let mut cluster = Cluster::start_configured(4, 3, &["metadata.log.max.record.bytes.between.snapshots=1"]);
    cluster.wait_for_metadata(4, "listed every broker", |m| brokers(m) == [1, 2, 3, 4]);
    for name in ["snap-a", "snap-b"] {
        create_topic(&cluster, 1, name, 1);
    }
    let response = cluster.wait_for_metadata(4, "listed both topics", |m| {
        ["snap-a", "snap-b"].iter().all(|t| partitions(m, t).len() == 1)
    });
    let leader = partitions(&response, "snap-a")[0].1;
    let mut client = cluster.node(leader).connect();
    assert_eq!(produce(&mut client, "snap-a", -1, batch(&["kept"])), (0, 0));
    drop(client);
    const POLL: Duration = Duration::from_millis(100);
    let snapshotted = (0..WAIT_MAX.as_millis() / POLL.as_millis()).any(|_| {
        let done = metadata_snapshots(&cluster, &[1, 2, 3]).iter().all(|s| !s.is_empty());
        if !done {
            std::thread::sleep(POLL);
        }
        done
    });
    assert!(snapshotted, "not every voter snapshotted: {:?}", metadata_snapshots(&cluster, &[1, 2, 3]));

    cluster.terminate(4);
    cluster.terminate(1);
    cluster.terminate(2);
    cluster.terminate(3);
    cluster.restart_all(&[1, 2, 3]);
    cluster.restart(4);
    let response = cluster.wait_for_metadata(4, "listed both topics again", |m| {
        brokers(m) == [1, 2, 3, 4] && ["snap-a", "snap-b"].iter().all(|t| partitions(m, t).len() == 1)
    });
    let log = cluster.node(4).log.lock().map(|l| l.join("\n")).unwrap_or_default();
    assert!(log.contains("metadata image loaded from the snapshot ending at offset"), "{log}");
    let leader = partitions(&response, "snap-a")[0].1;
    leader_of(&cluster, 4, "snap-a", |l, isr| l == leader && !isr.is_empty());
    let mut client = cluster.node(leader).connect();
    assert_eq!(read_committed(&mut client, "snap-a", 1), ["kept"]);
}

/// When the active controller dies, the other voters elect another within the Raft timeouts and
/// it takes over: brokers' requests follow it, so topic creation keeps working through any node.
#[test]
fn the_active_controller_dies_and_another_takes_over() {
    let _serial = common::serial();
    let mut cluster = Cluster::start(3);
    let first = cluster.wait_for_active_controller(None);
    cluster.kill(first);
    let second = cluster.wait_for_active_controller(Some(first));
    let through = (1..=3).find(|id| *id != first).expect("a survivor");
    create_topic(&cluster, through, "after-failover", 2);
    let response = cluster.wait_for_metadata(through, "listed the new topic", |m| {
        partitions(m, "after-failover").len() == 2 && !brokers(m).contains(&first)
    });
    for (partition, leader, _, isr) in partitions(&response, "after-failover") {
        assert_ne!(leader, first, "partition {partition} led by the dead controller's broker");
        assert!(isr.contains(&leader), "partition {partition}");
    }
    assert_ne!(second, first);
}

/// A broker that stops answering (SIGSTOP) but keeps its sockets is fenced after
/// `broker.session.timeout.ms` and leaves the ISR, so `acks=all` production with
/// `min.insync.replicas=2` of 3 goes on; after SIGCONT it heartbeats again, is unfenced, catches
/// up and rejoins the ISR.
#[test]
fn a_frozen_broker_is_fenced_and_rejoins_when_it_thaws() {
    let _serial = common::serial();
    let cluster = Cluster::start(3);
    create_topic_with(&cluster, 1, "frozen", 1, &[("min.insync.replicas", "2")]);
    let leader = leader_of(&cluster, 1, "frozen", |_, isr| isr.len() == 3);
    leader_of(&cluster, leader, "frozen", |l, _| l == leader);
    let controller = cluster.wait_for_active_controller(None);
    let victim = (1..=3).find(|id| *id != leader && *id != controller).unwrap_or_else(|| {
        (1..=3).find(|id| *id != leader).expect("a follower") // leader and controller are one node
    });
    let pid = cluster.node(victim).child.id().to_string();
    let mut client = cluster.node(leader).connect();
    assert_eq!(produce(&mut client, "frozen", -1, batch(&["before"])), (0, 0));

    assert!(std::process::Command::new("kill").args(["-STOP", &pid]).status().expect("kill").success());
    let mut expected = vec!["before".to_owned()];
    for i in 0..5 {
        let value = format!("frozen-{i}");
        assert_eq!(produce(&mut client, "frozen", -1, batch(&[&value])).0, 0, "acks=all with 2 of 3 in sync");
        expected.push(value);
    }
    let fenced = cluster.wait_for_metadata(leader, "fenced the frozen broker", |m| !brokers(m).contains(&victim));
    let (_, _, _, isr) = &partitions(&fenced, "frozen")[0];
    assert!(!isr.contains(&victim), "the frozen broker is still in the ISR {isr:?}");

    assert!(std::process::Command::new("kill").args(["-CONT", &pid]).status().expect("kill").success());
    cluster.wait_for_metadata(leader, "took the thawed broker back", |m| {
        brokers(m) == [1, 2, 3] && partitions(m, "frozen").first().is_some_and(|(_, _, _, isr)| isr.contains(&victim))
    });
    assert_eq!(read_committed(&mut client, "frozen", expected.len()), expected);
}

/// The four-broker demonstration from the shipped files (`config/four-brokers/`, with ports and
/// data directories of the test's own): three controller-only nodes and four broker-only ones; a
/// topic with 4 partitions on all four brokers; stopping brokers one at a time moves each
/// partition's leadership to the next in-sync replica and shrinks the ISRs, and starting them
/// again grows the ISRs back.
#[test]
fn the_four_broker_demonstration_from_the_shipped_files() {
    let _serial = common::serial();
    let config = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/four-brokers");
    let ports = free_ports(3);
    let voters: Vec<String> = ports.iter().enumerate().map(|(i, p)| format!("{}@127.0.0.1:{p}", i + 1)).collect();
    let voters = format!("controller.quorum.voters={}", voters.join(","));
    let controllers: Vec<Starting> = (0..3)
        .map(|i| {
            let listener = format!("listeners=CONTROLLER://127.0.0.1:{}", ports[i]);
            let file = config.join(format!("controller-{}.properties", i + 1));
            Server::spawn_from(Some(&file), tempfile::tempdir().expect("temp dir"), &[&listener, &voters])
        })
        .collect();
    let spawn_broker = |b: usize, data: tempfile::TempDir| {
        let file = config.join(format!("broker-{b}.properties"));
        let overrides = [
            "listeners=PLAINTEXT://127.0.0.1:0",
            "advertised.listeners=PLAINTEXT://127.0.0.1:0",
            &voters,
            "broker.session.timeout.ms=2000",
            "broker.heartbeat.interval.ms=250",
        ];
        Server::spawn_from(Some(&file), data, &overrides)
    };
    let mut brokers_up: Vec<Option<Server>> =
        (1..=4).map(|b| Some(spawn_broker(b, tempfile::tempdir().expect("temp dir")).ready())).collect();
    let _controllers: Vec<Server> = controllers.into_iter().map(Starting::controller_ready).collect();
    let ask = |brokers_up: &[Option<Server>], what: &str, done: &dyn Fn(&MetadataResponse) -> bool| {
        let server = brokers_up.iter().flatten().next().expect("a running broker");
        let mut client = server.connect();
        for _ in 0..300 {
            let request = MetadataRequest { topics: None, ..Default::default() };
            let ResponseBody::Metadata(m) = client.call(RequestBody::Metadata(request), 12) else { panic!() };
            if done(&m) {
                return m;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("never {what}")
    };
    ask(&brokers_up, "listed the four brokers", &|m| brokers(m) == [4, 5, 6, 7]);
    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: "demo".into(),
            num_partitions: 4,
            replication_factor: 4,
            ..Default::default()
        }],
        timeout_ms: 10_000,
        ..Default::default()
    };
    let server = brokers_up[0].as_ref().expect("broker 1");
    let ResponseBody::CreateTopics(created) = server.connect().call(RequestBody::CreateTopics(request), 7) else {
        panic!()
    };
    assert_eq!(created.topics[0].error_code, 0, "{:?}", created.topics[0]);
    ask(&brokers_up, "put every broker in every ISR", &|m| {
        let p = partitions(m, "demo");
        p.len() == 4 && p.iter().all(|(_, _, _, isr)| isr.len() == 4)
    });

    // Stop brokers 3 and 4 (nodes 6 and 7) one at a time.
    let mut stopped = Vec::new();
    for b in [3usize, 4] {
        let node = i32::try_from(b + 3).expect("node id");
        let before = ask(&brokers_up, "described the topic", &|_| true);
        let data = brokers_up[b - 1].take().expect("running").terminate();
        stopped.push((b, data));
        let after = ask(&brokers_up, "dropped the stopped broker from the ISRs", &|m| {
            partitions(m, "demo").iter().all(|(_, _, _, isr)| !isr.contains(&node))
        });
        for ((partition, old_leader, replicas, old_isr), (_, leader, _, isr)) in
            partitions(&before, "demo").iter().zip(partitions(&after, "demo"))
        {
            assert_eq!(isr.len(), old_isr.len() - 1, "partition {partition}: the ISR shrinks by one");
            if *old_leader == node {
                // The next in-sync replica in replica order takes over.
                let next = replicas.iter().copied().find(|r| *r != node && old_isr.contains(r));
                assert_eq!(Some(leader), next, "partition {partition}");
            } else {
                assert_eq!(leader, *old_leader, "partition {partition}: leadership stays");
            }
        }
    }
    for (b, data) in stopped {
        brokers_up[b - 1] = Some(spawn_broker(b, data).ready());
    }
    ask(&brokers_up, "grew every ISR back", &|m| {
        let p = partitions(m, "demo");
        brokers(m) == [4, 5, 6, 7] && p.iter().all(|(_, _, _, isr)| isr.len() == 4)
    });
}

/// Three nodes whose node-to-node traffic runs through proxies the test can cut: each node
/// reaches each other voter through a proxy of its own (`controller.quorum.voters` differs per
/// node), and followers reach a leader through that leader's replication proxy (its advertised
/// `REPLICATION` listener, `inter.broker.listener.name`). Clients connect directly.
struct PartitionableCluster {
    nodes: Vec<Server>,
    /// `(from, to)` → the proxy `from` reaches voter `to` through.
    controller_proxies: std::collections::BTreeMap<(i32, i32), common::Proxy>,
    /// The proxy in front of each node's replication listener.
    replication_proxies: std::collections::BTreeMap<i32, common::Proxy>,
}

impl PartitionableCluster {
    fn start() -> PartitionableCluster {
        // The nodes' ports stay taken while the proxies pick theirs, so no proxy lands on one.
        let held = hold_free_ports(6);
        let ports: Vec<u16> = held.iter().map(|l| l.local_addr().expect("address").port()).collect();
        let (controller, replication) = (&ports[..3], &ports[3..]);
        let local = |port: u16| SocketAddr::from(([127, 0, 0, 1], port));
        let mut controller_proxies = std::collections::BTreeMap::new();
        for from in 1..=3 {
            for to in (1..=3).filter(|to| *to != from) {
                controller_proxies.insert((from, to), common::Proxy::start(local(controller[index(to)])));
            }
        }
        let replication_proxies: std::collections::BTreeMap<i32, common::Proxy> =
            (1..=3).map(|id| (id, common::Proxy::start(local(replication[index(id)])))).collect();
        drop(held);
        let starting: Vec<Starting> = (1..=3)
            .map(|id: i32| {
                let voters: Vec<String> = (1..=3)
                    .map(|to| match to == id {
                        true => format!("{to}@127.0.0.1:{}", controller[index(to)]),
                        false => format!("{to}@127.0.0.1:{}", controller_proxies[&(id, to)].port),
                    })
                    .collect();
                let overrides = [
                    format!("node.id={id}"),
                    "process.roles=broker,controller".to_owned(),
                    format!(
                        "listeners=PLAINTEXT://127.0.0.1:0,REPLICATION://127.0.0.1:{},CONTROLLER://127.0.0.1:{}",
                        replication[index(id)],
                        controller[index(id)]
                    ),
                    format!(
                        "advertised.listeners=PLAINTEXT://127.0.0.1:0,REPLICATION://127.0.0.1:{}",
                        replication_proxies[&id].port
                    ),
                    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,REPLICATION:PLAINTEXT,CONTROLLER:PLAINTEXT"
                        .to_owned(),
                    "inter.broker.listener.name=REPLICATION".to_owned(),
                    "controller.listener.names=CONTROLLER".to_owned(),
                    format!("controller.quorum.voters={}", voters.join(",")),
                    format!("cluster.id={CLUSTER_ID}"),
                    format!("broker.session.timeout.ms={SESSION_TIMEOUT_MS}"),
                    format!("broker.heartbeat.interval.ms={HEARTBEAT_INTERVAL_MS}"),
                    // Lowered from 30 s so the cut-off leader's attempt to shrink its ISR comes
                    // within the test, yet above the time a follower takes to move to the new
                    // leader on a loaded machine: one that has not fetched from it within this is
                    // dropped from the ISR, and the new leader's first acks=all write then fails
                    // with NOT_ENOUGH_REPLICAS_AFTER_APPEND (seen once at 2 s under heavy load).
                    "replica.lag.time.max.ms=5000".to_owned(),
                ];
                let overrides: Vec<&str> = overrides.iter().map(String::as_str).collect();
                Server::spawn_with(tempfile::tempdir().expect("temp dir"), &overrides)
            })
            .collect();
        let nodes = starting.into_iter().map(Starting::ready).collect();
        PartitionableCluster { nodes, controller_proxies, replication_proxies }
    }

    /// Every proxy to or from node `id`.
    fn proxies_of(&self, id: i32) -> impl Iterator<Item = &common::Proxy> {
        let controller = self.controller_proxies.iter().filter(move |((from, to), _)| *from == id || *to == id);
        controller.map(|(_, p)| p).chain(self.replication_proxies.get(&id))
    }

    fn metadata(&self, id: i32) -> MetadataResponse {
        let mut client = self.nodes[index(id)].connect();
        let request = MetadataRequest { topics: None, ..Default::default() };
        let ResponseBody::Metadata(m) = client.call(RequestBody::Metadata(request), 12) else { panic!() };
        m
    }

    /// Like [`Cluster::wait_for_metadata`], with twice the patience: elections through the
    /// proxies on a loaded machine may take several rounds.
    fn wait_for_metadata(&self, id: i32, what: &str, done: impl Fn(&MetadataResponse) -> bool) -> MetadataResponse {
        for _ in 0..2 * WAIT_MAX.as_millis() / 100 {
            let m = self.metadata(id);
            if done(&m) {
                return m;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let logs: Vec<String> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| format!("--- node {}:\n{}", i + 1, n.log.lock().map(|l| l.join("\n")).unwrap_or_default()))
            .collect();
        panic!("node {id}: never {what}\n{}", logs.join("\n"))
    }
}

/// A leader cut off from every other node (a network partition, both ways, of its controller
/// and replication traffic; clients still reach it) cannot acknowledge `acks=all` writes: its
/// followers stop fetching and it can no longer shrink the ISR through the controller. The
/// others fence it and elect a new leader, which takes writes. Healed, the old leader rejoins as
/// a follower, drops what it took without acknowledging, and no acknowledged record is lost.
#[test]
fn a_partitioned_leader_cannot_acknowledge_and_loses_nothing_acknowledged() {
    let _serial = common::serial();
    let cluster = PartitionableCluster::start();
    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: "split".into(),
            num_partitions: 1,
            replication_factor: 3,
            configs: vec![CreatableTopicConfig {
                name: "min.insync.replicas".into(),
                value: Some("2".into()),
                ..Default::default()
            }],
            ..Default::default()
        }],
        timeout_ms: 10_000,
        ..Default::default()
    };
    let ResponseBody::CreateTopics(created) = cluster.nodes[0].connect().call(RequestBody::CreateTopics(request), 7)
    else {
        panic!()
    };
    assert_eq!(created.topics[0].error_code, 0, "{:?}", created.topics[0]);
    let isr_of_three = |m: &MetadataResponse| partitions(m, "split").first().is_some_and(|p| p.3.len() == 3);
    let old = cluster.wait_for_metadata(1, "put the topic's replicas in sync", isr_of_three);
    let old_leader = partitions(&old, "split")[0].1;
    cluster.wait_for_metadata(old_leader, "named itself leader", |m| {
        partitions(m, "split").first().is_some_and(|p| p.1 == old_leader)
    });
    let mut to_old = cluster.nodes[index(old_leader)].connect();
    let mut acknowledged = Vec::new();
    for i in 0..5 {
        let value = format!("before-{i}");
        assert_eq!(produce(&mut to_old, "split", -1, batch(&[&value])).0, 0);
        acknowledged.push(value);
    }

    for proxy in cluster.proxies_of(old_leader) {
        proxy.cut();
    }
    let survivor = (1..=3).find(|id| *id != old_leader).expect("a survivor");
    let after = cluster.wait_for_metadata(survivor, "elected a new leader", |m| {
        partitions(m, "split").first().is_some_and(|p| p.1 >= 0 && p.1 != old_leader)
    });
    let new_leader = partitions(&after, "split")[0].1;
    // The old leader still believes it leads, and clients reach it, but it cannot acknowledge.
    let (code, _) = produce(&mut to_old, "split", -1, batch(&["unacknowledged"]));
    assert_ne!(code, 0, "the partitioned old leader acknowledged an acks=all write");
    cluster.wait_for_metadata(new_leader, "named itself leader", |m| {
        partitions(m, "split").first().is_some_and(|p| p.1 == new_leader)
    });
    let mut to_new = cluster.nodes[index(new_leader)].connect();
    for i in 0..5 {
        let value = format!("after-{i}");
        assert_eq!(produce(&mut to_new, "split", -1, batch(&[&value])).0, 0, "the new leader takes writes");
        acknowledged.push(value);
    }

    for proxy in cluster.proxies_of(old_leader) {
        proxy.heal();
    }
    cluster.wait_for_metadata(survivor, "took the old leader back into the ISR", isr_of_three);
    assert_eq!(read_committed(&mut to_new, "split", acknowledged.len()), acknowledged, "the new leader's log");
    // The old leader, a follower now, truncated its unacknowledged write: lead it again and read.
    let old_back = cluster.wait_for_metadata(old_leader, "caught up", |m| {
        partitions(m, "split").first().is_some_and(|p| p.3.contains(&old_leader))
    });
    assert_ne!(partitions(&old_back, "split")[0].1, -1);
    let mut reader = cluster.nodes[index(old_leader)].connect();
    let hw_values = |client: &mut common::Client| read_committed(client, "split", acknowledged.len());
    if partitions(&old_back, "split")[0].1 == old_leader {
        assert_eq!(hw_values(&mut reader), acknowledged, "the old leader's log");
    }
}

/// Transactions survive their coordinator: a transaction committed just before its coordinator
/// is killed (`kill -9`; its COMMIT markers may or may not have gone out) is completed by the
/// node that takes over the transactional id's `__transaction_state` partition, so its records
/// become visible to `read_committed`; the producer goes on through the new coordinator, and a
/// transaction it leaves open is aborted there when its timeout passes.
#[test]
fn the_transaction_coordinator_dies_and_another_finishes_its_transactions() {
    let _serial = common::serial();
    let mut cluster = Cluster::start(3);
    const TOPIC: &str = "txn-data";
    const ID: &str = "cluster-txn";
    create_topic(&cluster, 1, TOPIC, 1);
    leader_of(&cluster, 1, TOPIC, |_, isr| isr.len() == 3);

    let coordinator = TxnProducer::coordinator(&mut cluster.node(1).connect(), ID);
    let producer = TxnProducer::init(&mut cluster.node(coordinator).connect(), ID, TOPIC, 4_000);
    producer.add_partition(&mut cluster.node(coordinator).connect());
    let leader = leader_of(&cluster, 1, TOPIC, |_, _| true);
    assert_eq!(producer.produce(&mut cluster.node(leader).connect(), 0, &["a", "b", "c"]), 0);
    producer.end(&mut cluster.node(coordinator).connect(), true);
    cluster.kill(coordinator);

    // The partition's leader (another node if the coordinator led it) gets the COMMIT marker
    // from whichever coordinator sends it.
    let survivor = (1..=3).find(|id| *id != coordinator).expect("a survivor");
    let leader = leader_of(&cluster, survivor, TOPIC, |leader, _| leader != coordinator);
    let mut data = cluster.node(leader).connect();
    // Records 0-2 and a COMMIT marker; the successor may write a second one (see below).
    let committed = |offsets: &(i64, i64)| offsets.0 == offsets.1 && (4..=5).contains(&offsets.0);
    until("the commit marker", || end_offsets(&mut data, TOPIC), committed);
    assert_eq!(fetch_committed(&mut data, TOPIC).0, ["a", "b", "c"]);

    // The producer carries on with the new coordinator; its next transaction stays open and is
    // aborted when its timeout passes.
    let successor = until(
        "a new coordinator",
        || TxnProducer::coordinator(&mut cluster.node(survivor).connect(), ID),
        |node| *node != coordinator,
    );
    producer.add_partition(&mut cluster.node(successor).connect());
    // The successor lets a new transaction start only once it has sent the first one's markers
    // again (it cannot know the dead coordinator's arrived), so a second COMMIT marker may follow
    // the first, as in Kafka: the next record's offset is read, not assumed.
    let (start, stable) = end_offsets(&mut data, TOPIC);
    assert!(start == 4 || start == 5, "one or two COMMIT markers, not {start}");
    assert_eq!(stable, start);
    assert_eq!(producer.produce(&mut data, 3, &["x", "y"]), start);
    assert_eq!(end_offsets(&mut data, TOPIC), (start + 2, start), "the open transaction holds read_committed");
    until(
        "the timed-out transaction's ABORT marker",
        || end_offsets(&mut data, TOPIC),
        |offsets| *offsets == (start + 3, start + 3),
    );
    let (values, aborted) = fetch_committed(&mut data, TOPIC);
    assert_eq!(aborted, [(producer.producer_id, start)]);
    assert_eq!(values, ["a", "b", "c", "x", "y"]);
}

/// Partition reassignment (KIP-455) end to end: a partition whose only replica is on broker 1,
/// holding records, is reassigned to brokers 2 and 3 through broker 3; ListPartitionReassignments
/// reports it in progress until the new replicas have copied the log and joined the ISR, then no
/// more; a new replica leads and serves every record, and broker 1 has deleted its replica.
#[test]
fn a_reassigned_partition_takes_its_data_and_leaves_no_replica_behind() {
    let _serial = common::serial();
    let cluster = Cluster::start(3);
    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: "moved".into(),
            num_partitions: -1,
            replication_factor: -1,
            assignments: vec![CreatableReplicaAssignment {
                partition_index: 0,
                broker_ids: vec![BrokerId(1)],
                ..Default::default()
            }],
            ..Default::default()
        }],
        timeout_ms: 10_000,
        ..Default::default()
    };
    let ResponseBody::CreateTopics(created) = cluster.node(2).connect().call(RequestBody::CreateTopics(request), 7)
    else {
        panic!("not a CreateTopics response")
    };
    assert_eq!(created.topics[0].error_code, 0, "{:?}", created.topics[0]);
    cluster.wait_for_metadata(1, "hosted the topic", |m| partitions(m, "moved") == [(0, 1, vec![1], vec![1])]);
    let mut old_leader = cluster.node(1).connect();
    let values: Vec<String> = (0..20).map(|i| format!("record-{i}")).collect();
    for chunk in values.chunks(5) {
        let chunk: Vec<&str> = chunk.iter().map(String::as_str).collect();
        assert_eq!(produce(&mut old_leader, "moved", -1, batch(&chunk)).0, 0);
    }
    let old_replica = cluster.node(1).data.path().join("moved-0");
    assert!(old_replica.is_dir(), "broker 1 holds the partition");

    let mut admin = cluster.node(3).connect();
    let request = AlterPartitionReassignmentsRequest {
        topics: vec![ReassignableTopic {
            name: "moved".into(),
            partitions: vec![ReassignablePartition {
                partition_index: 0,
                replicas: Some(vec![BrokerId(2), BrokerId(3)]),
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
    let mut polls = 0;
    loop {
        let request = ListPartitionReassignmentsRequest { topics: None, ..Default::default() };
        let ResponseBody::ListPartitionReassignments(listed) =
            admin.call(RequestBody::ListPartitionReassignments(request), 0)
        else {
            panic!("not a ListPartitionReassignments response")
        };
        assert_eq!(listed.error_code, 0, "{listed:?}");
        if listed.topics.is_empty() {
            break;
        }
        let ongoing = &listed.topics[0].partitions[0];
        assert_eq!(ongoing.replicas, [BrokerId(2), BrokerId(3), BrokerId(1)], "{ongoing:?}");
        polls += 1;
        assert!(polls < WAIT_MAX.as_millis() / 50, "the reassignment did not complete within {WAIT_MAX:?}");
        std::thread::sleep(Duration::from_millis(50));
    }

    let moved = cluster.wait_for_metadata(1, "moved the partition", |m| {
        partitions(m, "moved").first().is_some_and(|(_, leader, replicas, isr)| {
            replicas == &[2, 3] && isr.len() == 2 && replicas.contains(leader)
        })
    });
    let leader = partitions(&moved, "moved")[0].1;
    assert_eq!(read_committed(&mut cluster.node(leader).connect(), "moved", values.len()), values);
    // Broker 1 reconciles its replicas before its metadata shows the change, so it is gone now.
    assert!(!old_replica.exists(), "broker 1 kept {}", old_replica.display());
    for id in [2, 3] {
        assert!(cluster.node(id).data.path().join("moved-0").is_dir(), "broker {id} holds the new replica");
    }
}
