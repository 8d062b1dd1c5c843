//! Clusters of `strand` processes for the `e2e_cluster_*` tests: [`Cluster`], nodes with both
//! roles (and optionally broker-only ones) on free loopback ports that the test kills, stops,
//! freezes and restarts; [`PartitionableCluster`], three nodes whose node-to-node traffic runs
//! through proxies the test can cut; and the metadata questions the tests ask of them.

use std::net::SocketAddr;
use std::time::Duration;

use strand_base::BrokerId;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::{
    CreatableReplicaAssignment, CreatableTopic, CreatableTopicConfig,
};
use strand_protocol::messages::{CreateTopicsRequest, MetadataRequest, MetadataResponse};

use super::{Client, Proxy, Server, Starting, WAIT_MAX, fetch_all};

pub const CLUSTER_ID: &str = "MkU3OEVBNTcwNTJENDM2Qg";
/// Lowered from Kafka's defaults (9 s, 2 s) so a dead broker is fenced within a test's patience.
pub const SESSION_TIMEOUT_MS: u32 = 2_000;
pub const HEARTBEAT_INTERVAL_MS: u32 = 250;

/// Three nodes, each broker and controller, on free loopback ports.
pub struct Cluster {
    nodes: Vec<Option<Server>>,
    /// Each node's data directory while it is down.
    stopped: Vec<Option<tempfile::TempDir>>,
    controller_ports: Vec<u16>,
    last_logs: std::collections::BTreeMap<i32, String>,
    /// Settings every node gets besides the cluster's own.
    extra: Vec<String>,
    /// Settings of one node each (by index), after `extra`.
    node_extra: Vec<Vec<String>>,
}

impl Cluster {
    pub fn start(size: usize) -> Cluster {
        Cluster::start_with_voters(size, size)
    }

    /// `size` nodes of which the first `voters` are brokers and controllers and the rest brokers
    /// that only observe the metadata log.
    pub fn start_with_voters(size: usize, voters: usize) -> Cluster {
        Cluster::start_configured(size, voters, &[])
    }

    /// As [`Cluster::start_with_voters`], every node with the `extra` settings too.
    pub fn start_configured(size: usize, voters: usize, extra: &[&str]) -> Cluster {
        Cluster::start_prepared(size, voters, extra, |_, _| {})
    }

    /// As [`Cluster::start_configured`], `prepare` run on each node's id and data directory
    /// before its first start (`strand storage format` with bootstrap records, say).
    pub fn start_prepared(
        size: usize,
        voters: usize,
        extra: &[&str],
        prepare: impl Fn(i32, &std::path::Path),
    ) -> Cluster {
        Cluster::start_full(size, voters, extra, &[], prepare)
    }

    /// As [`Cluster::start_configured`], node `i + 1` also with the settings `node_extra[i]`
    /// (`broker.rack`, say).
    pub fn start_with_node_settings(size: usize, voters: usize, extra: &[&str], node_extra: &[&[&str]]) -> Cluster {
        Cluster::start_full(size, voters, extra, node_extra, |_, _| {})
    }

    fn start_full(
        size: usize,
        voters: usize,
        extra: &[&str],
        node_extra: &[&[&str]],
        prepare: impl Fn(i32, &std::path::Path),
    ) -> Cluster {
        let controller_ports = free_ports(voters);
        let mut cluster = Cluster {
            nodes: (0..size).map(|_| None).collect(),
            stopped: (0..size).map(|_| Some(tempfile::tempdir().expect("temp dir"))).collect(),
            controller_ports,
            last_logs: std::collections::BTreeMap::new(),
            extra: extra.iter().map(|s| (*s).to_owned()).collect(),
            node_extra: node_extra.iter().map(|n| n.iter().map(|s| (*s).to_owned()).collect()).collect(),
        };
        for (i, data) in cluster.stopped.iter().enumerate() {
            prepare(i as i32 + 1, data.as_ref().expect("not started yet").path());
        }
        // Every voter must run before any can serve: spawn all, then wait for each.
        let starting: Vec<(usize, Starting)> = (0..size).map(|i| (i, cluster.spawn(i))).collect();
        for (i, node) in starting {
            cluster.nodes[i] = Some(node.ready());
        }
        cluster
    }

    /// Node ids are 1-based; index `i` is node `i + 1`.
    pub fn spawn(&mut self, i: usize) -> Starting {
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
        let own = self.node_extra.get(i).into_iter().flatten();
        let overrides: Vec<&str> = overrides.iter().chain(&self.extra).chain(own).map(String::as_str).collect();
        let data = self.stopped[i].take().expect("the node is down");
        Server::spawn_with(data, &overrides)
    }

    /// The node that last said it became the active controller and has not said it stopped.
    pub fn active_controller(&self) -> Option<i32> {
        (1..=self.nodes.len() as i32).find(|id| {
            let Some(server) = self.nodes[index(*id)].as_ref() else { return false };
            let log = server.log.lock().map(|l| l.clone()).unwrap_or_default();
            log.iter().rev().find(|l| l.contains("active controller")).is_some_and(|l| l.contains(" is the active"))
        })
    }

    /// Waits until a running node says it is the active controller, other than `not`.
    pub fn wait_for_active_controller(&self, not: Option<i32>) -> i32 {
        const POLL: Duration = Duration::from_millis(100);
        for _ in 0..WAIT_MAX.as_millis() / POLL.as_millis() {
            if let Some(id) = self.active_controller().filter(|id| Some(*id) != not) {
                return id;
            }
            std::thread::sleep(POLL);
        }
        panic!("no node became the active controller within {WAIT_MAX:?}")
    }

    /// Voter `id`'s CONTROLLER listener port.
    pub fn controller_port(&self, id: i32) -> u16 {
        self.controller_ports[index(id)]
    }

    pub fn node(&self, id: i32) -> &Server {
        self.nodes[index(id)].as_ref().expect("the node runs")
    }

    /// `kill -9` node `id`.
    pub fn kill(&mut self, id: i32) {
        let server = self.nodes[index(id)].take().expect("the node runs");
        self.stopped[index(id)] = Some(server.kill());
    }

    /// SIGTERM node `id` and wait for its clean exit.
    pub fn terminate(&mut self, id: i32) {
        let server = self.nodes[index(id)].take().expect("the node runs");
        let log = server.log.clone();
        self.stopped[index(id)] = Some(server.terminate());
        self.last_logs.insert(id, log.lock().map(|l| l.join("\n")).unwrap_or_default());
    }

    /// The log of node `id`'s last run, once it has stopped.
    pub fn stopped_log(&self, id: i32) -> String {
        self.last_logs.get(&id).cloned().unwrap_or_default()
    }

    pub fn restart(&mut self, id: i32) {
        self.restart_all(&[id]);
    }

    /// Restarts nodes together: voters can serve only once a majority of them runs.
    pub fn restart_all(&mut self, ids: &[i32]) {
        let starting: Vec<(i32, Starting)> = ids.iter().map(|id| (*id, self.spawn(index(*id)))).collect();
        for (id, node) in starting {
            self.nodes[index(id)] = Some(node.ready());
        }
    }

    /// Asks node `id` for the metadata of every topic until `done` holds for it.
    pub fn wait_for_metadata(&self, id: i32, what: &str, done: impl Fn(&MetadataResponse) -> bool) -> MetadataResponse {
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

pub fn index(id: i32) -> usize {
    usize::try_from(id - 1).expect("node ids start at 1")
}

/// `count` distinct loopback ports nothing listens on now (the nodes bind them a moment later).
pub fn free_ports(count: usize) -> Vec<u16> {
    hold_free_ports(count).iter().map(|l| l.local_addr().expect("address").port()).collect()
}

/// `count` listeners on distinct free loopback ports, held (so the system hands none of them out
/// again) until dropped.
#[allow(clippy::disallowed_methods)] // The test picks ports for the processes it starts.
pub fn hold_free_ports(count: usize) -> Vec<std::net::TcpListener> {
    (0..count).map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("bind")).collect()
}

/// Every record of partition 0 of `topic` that consumers may read, once there are at least
/// `count`: a new leader's high watermark reaches what the old one had acknowledged only after
/// the remaining followers fetch again, so a read just after a failover may see less for a moment
/// (never anything else).
pub fn read_committed(client: &mut Client, topic: &str, count: usize) -> Vec<String> {
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

pub fn brokers(response: &MetadataResponse) -> Vec<i32> {
    let mut ids: Vec<i32> = response.brokers.iter().map(|b| b.node_id.0).collect();
    ids.sort_unstable();
    ids
}

/// (partition, leader, replicas, isr) of `topic`, by partition.
pub fn partitions(response: &MetadataResponse, topic: &str) -> Vec<(i32, i32, Vec<i32>, Vec<i32>)> {
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

pub fn create_replicated_topic(cluster: &Cluster, through: i32, name: &str) {
    create_topic(cluster, through, name, 3);
}

pub fn create_topic(cluster: &Cluster, through: i32, name: &str, partitions: i32) {
    create_topic_with(cluster, through, name, partitions, &[]);
}

/// Creates `name` with replication factor 3 and the topic configs `configs`, through node
/// `through`.
pub fn create_topic_with(cluster: &Cluster, through: i32, name: &str, partitions: i32, configs: &[(&str, &str)]) {
    let topic =
        CreatableTopic { name: name.into(), num_partitions: partitions, replication_factor: 3, ..Default::default() };
    create(cluster, through, topic, configs);
}

/// Creates `name` with partition `i` on the brokers `replicas[i]` (the first the preferred
/// leader) and the topic configs `configs`, through node `through`.
pub fn create_assigned_topic(
    cluster: &Cluster,
    through: i32,
    name: &str,
    replicas: &[&[i32]],
    configs: &[(&str, &str)],
) {
    let assignments = (0..)
        .zip(replicas)
        .map(|(partition_index, ids)| CreatableReplicaAssignment {
            partition_index,
            broker_ids: ids.iter().copied().map(BrokerId).collect(),
            ..Default::default()
        })
        .collect();
    let topic = CreatableTopic {
        name: name.into(),
        num_partitions: -1,
        replication_factor: -1,
        assignments,
        ..Default::default()
    };
    create(cluster, through, topic, configs);
}

fn create(cluster: &Cluster, through: i32, mut topic: CreatableTopic, configs: &[(&str, &str)]) {
    topic.configs = configs
        .iter()
        .map(|(name, value)| CreatableTopicConfig {
            name: (*name).to_owned(),
            value: Some((*value).to_owned()),
            ..Default::default()
        })
        .collect();
    let request = CreateTopicsRequest { topics: vec![topic], timeout_ms: 10_000, ..Default::default() };
    let ResponseBody::CreateTopics(created) =
        cluster.node(through).connect().call(RequestBody::CreateTopics(request), 7)
    else {
        panic!("not a CreateTopics response")
    };
    assert_eq!(created.topics[0].error_code, 0, "{:?}", created.topics[0]);
}

/// The node that leads partition 0 of `topic`, once node `asked`'s metadata names a leader in
/// the ISR that `done` accepts.
pub fn leader_of(cluster: &Cluster, asked: i32, topic: &str, done: impl Fn(i32, &[i32]) -> bool) -> i32 {
    let response = cluster.wait_for_metadata(asked, "named the wanted leader", |m| {
        partitions(m, topic).first().is_some_and(|(_, leader, _, isr)| *leader >= 0 && done(*leader, isr))
    });
    partitions(&response, topic)[0].1
}

/// Three nodes whose node-to-node traffic runs through proxies the test can cut: each node
/// reaches each other voter through a proxy of its own (`controller.quorum.voters` differs per
/// node), and followers reach a leader through that leader's replication proxy (its advertised
/// `REPLICATION` listener, `inter.broker.listener.name`). Clients connect directly.
pub struct PartitionableCluster {
    pub nodes: Vec<Server>,
    /// `(from, to)` → the proxy `from` reaches voter `to` through.
    controller_proxies: std::collections::BTreeMap<(i32, i32), Proxy>,
    /// The proxy in front of each node's replication listener.
    replication_proxies: std::collections::BTreeMap<i32, Proxy>,
}

impl PartitionableCluster {
    pub fn start() -> PartitionableCluster {
        // The nodes' ports stay taken while the proxies pick theirs, so no proxy lands on one.
        let held = hold_free_ports(6);
        let ports: Vec<u16> = held.iter().map(|l| l.local_addr().expect("address").port()).collect();
        let (controller, replication) = (&ports[..3], &ports[3..]);
        let local = |port: u16| SocketAddr::from(([127, 0, 0, 1], port));
        let mut controller_proxies = std::collections::BTreeMap::new();
        for from in 1..=3 {
            for to in (1..=3).filter(|to| *to != from) {
                controller_proxies.insert((from, to), Proxy::start(local(controller[index(to)])));
            }
        }
        let replication_proxies: std::collections::BTreeMap<i32, Proxy> =
            (1..=3).map(|id| (id, Proxy::start(local(replication[index(id)])))).collect();
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
    pub fn proxies_of(&self, id: i32) -> impl Iterator<Item = &Proxy> {
        let controller = self.controller_proxies.iter().filter(move |((from, to), _)| *from == id || *to == id);
        controller.map(|(_, p)| p).chain(self.replication_proxies.get(&id))
    }

    pub fn metadata(&self, id: i32) -> MetadataResponse {
        let mut client = self.nodes[index(id)].connect();
        let request = MetadataRequest { topics: None, ..Default::default() };
        let ResponseBody::Metadata(m) = client.call(RequestBody::Metadata(request), 12) else { panic!() };
        m
    }

    /// Like [`Cluster::wait_for_metadata`], with twice the patience: elections through the
    /// proxies on a loaded machine may take several rounds.
    pub fn wait_for_metadata(&self, id: i32, what: &str, done: impl Fn(&MetadataResponse) -> bool) -> MetadataResponse {
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

/// Strand's node-to-node request key (`inter_node::wire`).
const STRAND_RPC_API_KEY: i16 = 32_000;

/// A Strand controller request frame carrying a BrokerHeartbeat from node `id`, as a broker's
/// controller client sends it (`client_id` names the frame in the test's logs only).
pub fn heartbeat_frame(id: i32, client_id: &str) -> Vec<u8> {
    use strand_protocol::messages::BrokerHeartbeatRequest;
    let _ = client_id;
    let heartbeat = BrokerHeartbeatRequest { broker_id: BrokerId(id), broker_epoch: 1, ..Default::default() };
    controller_frame(&RequestBody::BrokerHeartbeat(heartbeat), 1, None)
}

/// A Strand controller request frame (`inter_node::wire`) carrying `request` at `version`,
/// forwarded for `requester` (a `Type:name` principal and a client address) or, `None`, the
/// sending node's own.
pub fn controller_frame(request: &RequestBody, version: i16, requester: Option<(&str, &str)>) -> Vec<u8> {
    let mut payload = Vec::new();
    payload.extend_from_slice(&(request.api_key() as i16).to_be_bytes());
    payload.extend_from_slice(&version.to_be_bytes());
    match requester {
        None => payload.extend_from_slice(&(-1i16).to_be_bytes()),
        Some((principal, host)) => {
            for field in [principal, host] {
                payload.extend_from_slice(&i16::try_from(field.len()).expect("short").to_be_bytes());
                payload.extend_from_slice(field.as_bytes());
            }
        }
    }
    let mut body = bytes::BytesMut::new();
    request.encode(&mut body, version).expect("encodes");
    payload.extend_from_slice(&body);
    let mut frame = Vec::new();
    let size = i32::try_from(2 + 2 + 4 + 1 + payload.len()).expect("small");
    frame.extend_from_slice(&size.to_be_bytes());
    frame.extend_from_slice(&STRAND_RPC_API_KEY.to_be_bytes());
    frame.extend_from_slice(&0i16.to_be_bytes());
    frame.extend_from_slice(&7i32.to_be_bytes());
    frame.push(1);
    frame.extend_from_slice(&payload);
    frame
}

/// The Kafka response body of a Strand controller reply frame (without its size prefix):
/// `Err` with the controller's message when it refused.
pub fn controller_reply(frame: bytes::Bytes) -> Result<bytes::Bytes, String> {
    let (status, rest) = (frame[4], frame.slice(5..));
    match status {
        0 => Ok(rest.slice(8..)),
        _ => Err(String::from_utf8_lossy(&rest).into_owned()),
    }
}
