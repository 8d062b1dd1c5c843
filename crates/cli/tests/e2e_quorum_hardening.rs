//! The metadata quorum against what a stranger can send and what an operator reads: a forged
//! Raft RPC sent in raw bytes to a voter's CONTROLLER listener (which serves anyone who knows
//! the cluster id, and Metadata hands that out) is refused with the connection closed and one
//! WARN line, and the quorum goes on committing and starts again; and a healthy three-node
//! cluster logs no ERROR from start to clean stop, while a node that stops is reported by the
//! others in one WARN line, not several a second, and its return in one INFO line.
//!
//! Each test starts its own three `strand` processes (both roles, one voter each) on free
//! loopback ports, with short broker session and heartbeat settings (2 s, 250 ms).

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use common::{Server, Starting, WAIT_MAX};
use strand_protocol::messages::CreateTopicsRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_topics_request::CreatableTopic;

const CLUSTER_ID: &str = "MkU3OEVBNTcwNTJENDM2Qg";
/// Strand's node-to-node request key (`inter_node::wire`), version 0, kind 0 (Raft).
const STRAND_RPC_API_KEY: i16 = 32_000;
const POLL: Duration = Duration::from_millis(100);

/// Three nodes, each broker and voter.
struct Cluster {
    nodes: Vec<Option<Server>>,
    stopped: Vec<Option<tempfile::TempDir>>,
    controller_ports: Vec<u16>,
}

impl Cluster {
    fn start() -> Cluster {
        let controller_ports = free_ports(3);
        let mut cluster = Cluster {
            nodes: (0..3).map(|_| None).collect(),
            stopped: (0..3).map(|_| Some(tempfile::tempdir().expect("temp dir"))).collect(),
            controller_ports,
        };
        cluster.restart_all();
        cluster
    }

    /// Starts every stopped node at once (a voter serves only once a majority runs).
    fn restart_all(&mut self) {
        let down: Vec<usize> = (0..3).filter(|i| self.nodes[*i].is_none()).collect();
        let starting: Vec<(usize, Starting)> = down.into_iter().map(|i| (i, self.spawn(i))).collect();
        for (i, node) in starting {
            self.nodes[i] = Some(node.ready());
        }
    }

    /// Node ids are 1-based; index `i` is node `i + 1`.
    fn spawn(&mut self, i: usize) -> Starting {
        let voters: Vec<String> =
            self.controller_ports.iter().enumerate().map(|(j, port)| format!("{}@127.0.0.1:{port}", j + 1)).collect();
        let overrides = [
            format!("node.id={}", i + 1),
            "process.roles=broker,controller".to_owned(),
            format!("listeners=PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:{}", self.controller_ports[i]),
            "controller.listener.names=CONTROLLER".to_owned(),
            format!("controller.quorum.voters={}", voters.join(",")),
            format!("cluster.id={CLUSTER_ID}"),
            "broker.session.timeout.ms=2000".to_owned(),
            "broker.heartbeat.interval.ms=250".to_owned(),
        ];
        let overrides: Vec<&str> = overrides.iter().map(String::as_str).collect();
        Server::spawn_with(self.stopped[i].take().expect("the node is down"), &overrides)
    }

    fn node(&self, id: usize) -> &Server {
        self.nodes[id - 1].as_ref().expect("the node runs")
    }

    /// SIGTERM node `id`, waits for its clean exit, and returns its log.
    fn terminate(&mut self, id: usize) -> Vec<String> {
        let server = self.nodes[id - 1].take().expect("the node runs");
        let log = server.log.clone();
        self.stopped[id - 1] = Some(server.terminate());
        log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    fn controller_address(&self, id: usize) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.controller_ports[id - 1]))
    }

    /// Waits until a running node says it is the active controller (and has not said it
    /// stopped being it); its id.
    fn wait_for_active_controller(&self) -> usize {
        let active = || {
            (1..=3).find(|id| {
                let Some(node) = self.nodes[id - 1].as_ref() else { return false };
                lines(node)
                    .iter()
                    .rev()
                    .find(|l| l.contains("active controller"))
                    .is_some_and(|l| l.contains(" is the"))
            })
        };
        until("an active controller", || active().is_some());
        active().expect("found")
    }
}

fn lines(node: &Server) -> Vec<String> {
    node.log.lock().map(|l| l.clone()).unwrap_or_default()
}

/// Waits (at most [`WAIT_MAX`]) until `done`.
fn until(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..WAIT_MAX.as_millis() / POLL.as_millis() {
        if done() {
            return;
        }
        std::thread::sleep(POLL);
    }
    assert!(done(), "not {what} within {WAIT_MAX:?}");
}

#[allow(clippy::disallowed_methods)] // The test picks ports for the processes it starts.
fn free_ports(count: usize) -> Vec<u16> {
    let held: Vec<std::net::TcpListener> =
        (0..count).map(|_| std::net::TcpListener::bind("127.0.0.1:0").expect("bind")).collect();
    held.iter().map(|l| l.local_addr().expect("address").port()).collect()
}

/// Creates `name` through node `through`; the error code.
fn create_topic(cluster: &Cluster, through: usize, name: &str) -> i16 {
    let request = CreateTopicsRequest {
        topics: vec![CreatableTopic {
            name: name.into(),
            num_partitions: 1,
            replication_factor: 1,
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
    created.topics[0].error_code
}

/// A Raft AppendEntries as the transport encodes it (JSON), from `source` to `target`, naming
/// `leader` at `term`, in a Strand request frame.
fn forged_append(source: i32, target: i32, leader: i32, term: u64) -> Vec<u8> {
    let json = format!(
        r#"{{"cluster_id":"{CLUSTER_ID}","source":{source},"target":{target},"body":{{"AppendEntries":{{"vote":{{"leader_id":{{"term":{term},"voted_for":{leader}}},"committed":true}},"prev_log_id":null,"entries":[],"leader_commit":null}}}}}}"#
    );
    strand_frame(json.as_bytes())
}

fn strand_frame(payload: &[u8]) -> Vec<u8> {
    let mut frame = Vec::new();
    let size = i32::try_from(2 + 2 + 4 + 1 + payload.len()).expect("small");
    frame.extend_from_slice(&size.to_be_bytes());
    frame.extend_from_slice(&STRAND_RPC_API_KEY.to_be_bytes());
    frame.extend_from_slice(&0i16.to_be_bytes());
    frame.extend_from_slice(&1i32.to_be_bytes());
    frame.push(0);
    frame.extend_from_slice(payload);
    frame
}

/// Sends `frame` on a new connection to `address`, and reads the reply if any.
#[allow(clippy::disallowed_methods)] // The test is the stranger connecting.
fn send(address: SocketAddr, frame: &[u8]) -> TcpStream {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream.set_read_timeout(Some(WAIT_MAX)).expect("timeout");
    stream.write_all(frame).expect("send");
    let mut prefix = [0u8; 4];
    if stream.read_exact(&mut prefix).is_ok() {
        let mut reply = vec![0u8; usize::try_from(i32::from_be_bytes(prefix)).unwrap_or(0)];
        let _ = stream.read_exact(&mut reply);
    }
    stream
}

/// Whether the node closed `stream` (it has had all the time it needs).
fn is_closed(stream: &mut TcpStream) -> bool {
    stream.set_read_timeout(Some(Duration::from_secs(1))).expect("timeout");
    let mut byte = [0u8; 1];
    match stream.read(&mut byte) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => !matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut),
    }
}

/// Creates `name` through node `through`, retrying while the quorum is between leaders, until
/// it succeeds within [`WAIT_MAX`].
fn create_topic_eventually(cluster: &Cluster, through: usize, name: &str) {
    let mut code = -1;
    for _ in 0..WAIT_MAX.as_millis() / POLL.as_millis() {
        code = create_topic(cluster, through, name);
        // 36, TOPIC_ALREADY_EXISTS: an earlier attempt went through.
        if code == 0 || code == 36 {
            return;
        }
        std::thread::sleep(POLL);
    }
    panic!("topic {name} not created within {WAIT_MAX:?}: error {code}");
}

/// One ~300-byte AppendEntries with term 2^31-1 and a made-up leader, sent to a voter's
/// CONTROLLER listener, used to stop the metadata quorum for good: the next election needed
/// term 2^31, which no Kafka epoch holds, and every voter died trying (again after each
/// restart, the vote being saved); terms of 2^62 and 2^64-1 stopped the receiving voter at
/// once. Each is now refused, the connection closed with one WARN line: after them, the active
/// controller stops, the others elect a new one, which commits, and the cluster starts again.
#[test]
fn a_forged_raft_rpc_cannot_stop_the_quorum() {
    let _serial = common::serial();
    let mut cluster = Cluster::start();
    let active = cluster.wait_for_active_controller();
    create_topic_eventually(&cluster, 1, "before");

    let mut connections = Vec::new();
    for target in 1..=3 {
        let other = if target == 1 { 2 } else { 1 };
        let forged = [
            forged_append(other, target, 7, i32::MAX as u64),
            forged_append(7, target, 7, i32::MAX as u64),
            forged_append(other, target, other, 1 << 62),
            forged_append(other, target, other, u64::MAX),
        ];
        assert!(forged[0].len() < 400, "{} bytes", forged[0].len());
        let address = cluster.controller_address(target as usize);
        connections.extend(forged.iter().map(|frame| (target, send(address, frame))));
    }

    // An election must now happen: it used to be where every voter died.
    cluster.terminate(active);
    let survivor = if active == 1 { 2 } else { 1 };
    create_topic_eventually(&cluster, survivor, "after");
    for (target, connection) in &mut connections {
        assert!(is_closed(connection), "node {target} kept a forged rpc's connection open");
    }
    for target in (1..=3).filter(|id| *id != active) {
        let refused = |l: &String| l.contains("WARN") && l.contains("a raft rpc claiming");
        until("a WARN line for each forged rpc", || {
            lines(cluster.node(target)).iter().filter(|l| refused(l)).count() == 4
        });
    }

    for id in (1..=3).filter(|id| *id != active) {
        cluster.terminate(id);
    }
    cluster.restart_all();
    create_topic_eventually(&cluster, 1, "restarted");
    for id in 1..=3 {
        let errors: Vec<String> = lines(cluster.node(id)).into_iter().filter(|l| l.contains("ERROR")).collect();
        assert!(errors.is_empty(), "node {id} after the restart: {errors:#?}");
    }
}

/// Lines at WARN or ERROR.
fn complaints(log: &[String]) -> Vec<String> {
    log.iter().filter(|l| l.contains(" WARN ") || l.contains(" ERROR ")).cloned().collect()
}

/// Makes the cluster do a little of everything that crosses nodes: a topic whose partitions
/// are led by every node and replicated to all, written to.
fn exercise(cluster: &Cluster) {
    create_topic_eventually(cluster, 1, "warm");
    common::create_replicated_topic(&mut cluster.node(1).connect(), "spread", 6, 3);
}

/// A healthy cluster's start used to log `ERROR ... voter N is unreachable` (a voter standing
/// before the others listened), and a clean stop ended in `ERROR ... channel closed`: a start
/// and a clean stop of a healthy cluster log no ERROR at all.
#[test]
fn a_healthy_start_and_a_clean_stop_log_no_error() {
    let _serial = common::serial();
    let mut cluster = Cluster::start();
    cluster.wait_for_active_controller();
    exercise(&cluster);
    let mut logs = Vec::new();
    for id in 1..=3 {
        logs.push((id, cluster.terminate(id)));
    }
    for (id, log) in logs {
        let errors: Vec<&String> = log.iter().filter(|l| l.contains(" ERROR ")).collect();
        assert!(errors.is_empty(), "node {id} logged errors:\n{errors:#?}");
        assert!(log.iter().any(|l| l.contains("shut down cleanly")), "node {id} did not stop cleanly:\n{log:#?}");
    }
}

/// While a node is down, the others used to log about four ERROR/WARN lines a second about it.
/// Now they say it once (one WARN naming it), repeat it at most every 30 s, and say once, at
/// INFO, when it is back.
#[test]
fn a_node_that_goes_is_one_warning_and_its_return_one_info() {
    /// How long the others are watched after the first WARN: dozens of lines, before.
    const WATCHED: Duration = Duration::from_secs(5);
    let _serial = common::serial();
    let mut cluster = Cluster::start();
    let active = cluster.wait_for_active_controller();
    exercise(&cluster);
    let gone = if active == 3 { 2 } else { 3 };
    let others: Vec<usize> = (1..=3).filter(|id| *id != gone).collect();
    let before: Vec<usize> = others.iter().map(|id| lines(cluster.node(*id)).len()).collect();
    let server = cluster.nodes[gone - 1].take().expect("runs");
    cluster.stopped[gone - 1] = Some(server.kill());

    let since_kill = |i: usize| lines(cluster.node(others[i])).split_off(before[i]);
    let about_gone = format!("node {gone} is unreachable");
    until("a WARN about the node that went", || (0..2).any(|i| since_kill(i).iter().any(|l| l.contains(&about_gone))));
    std::thread::sleep(WATCHED);
    for (i, id) in others.iter().enumerate() {
        let complaints = complaints(&since_kill(i));
        assert!(complaints.len() <= 1, "node {id} in {WATCHED:?} after node {gone} went:\n{complaints:#?}");
        assert!(complaints.iter().all(|l| l.contains(&about_gone)), "node {id}:\n{complaints:#?}");
    }

    let warned: Vec<usize> =
        (0..2).filter(|i| since_kill(*i).iter().any(|l| l.contains(&about_gone))).map(|i| others[i]).collect();
    cluster.restart_all();
    let back = format!("node {gone} is reachable again");
    for id in &warned {
        until("an INFO line when it is back", || lines(cluster.node(*id)).iter().any(|l| l.contains(&back)));
    }
    for id in 1..=3 {
        let errors: Vec<String> = lines(cluster.node(id)).into_iter().filter(|l| l.contains(" ERROR ")).collect();
        assert!(errors.is_empty(), "node {id}:\n{errors:#?}");
    }
}
