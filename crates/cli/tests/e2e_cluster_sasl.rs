//! A cluster whose every listener is SASL_SSL, end to end: three nodes (broker and controller
//! each) whose CONTROLLER listener authenticates with PLAIN (SCRAM's credentials live in the
//! metadata log the controllers serve, so Kafka's controllers cannot use it) and whose broker
//! listener, the inter-broker one, with SCRAM-SHA-512, the nodes' own SCRAM user seeded by
//! `strand storage format --add-scram`. Certificates are made at test time.
//!
//! Replication (followers' fetches), the quorum, brokers' controller requests and transactions
//! (verification and markers) all run over those links; a principal the controller listener
//! authenticates but `super.users` does not name is closed before any frame of its is served.
//! The StandardAuthorizer is on: the nodes act as a super user, alice through the bindings a super
//! user grants on one node (every node enforces them), and bob, with none, is refused.

mod common;

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::Path;

use bytes::Bytes;
use common::cluster::{CLUSTER_ID, Cluster, heartbeat_frame, partitions};
use common::tls::{Pki, pem, tls_client};
use common::txn::{TxnProducer, end_offsets, fetch_committed, until};
use common::{Client, Server, WAIT_MAX, batch, create_replicated_topic, fetch_all, produce};
use rustls::pki_types::CertificateDer;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::metadata_request::MetadataRequestTopic;
use strand_protocol::messages::{
    MetadataRequest, MetadataResponse, SaslAuthenticateRequest, SaslAuthenticateResponse, SaslHandshakeRequest,
};
use strand_security::sasl::plain::PlainClient;
use strand_security::sasl::scram::ScramClient;
use strand_security::sasl::{ClientStep, SaslClient};
use strand_security::scram::ScramMechanism;

/// The nodes' own user, a super user, on both listeners.
const NODE: (&str, &str) = ("node", "node-secret");
/// A client's SCRAM user on the broker listener.
const ALICE: (&str, &str) = ("alice", "alice-secret");
/// A client's SCRAM user with no ACL bindings.
const BOB: (&str, &str) = ("bob", "bob-secret");
/// A user the CONTROLLER listener authenticates (its JAAS names it) but `super.users` does not.
const OUTSIDER: (&str, &str) = ("outsider", "outsider-secret");
/// Kafka's UNKNOWN_TOPIC_OR_PARTITION: a topic the principal may describe does not exist.
const UNKNOWN_TOPIC: i16 = 3;
/// Kafka's TOPIC_AUTHORIZATION_FAILED.
const TOPIC_DENIED: i16 = 29;

/// Every node's settings: SASL_SSL everywhere, PLAIN to controllers, SCRAM-SHA-512 to brokers.
/// The controller listener's sessions last 2 s (KIP-368), so the nodes' links must renew theirs.
fn settings(dir: &Path) -> Vec<String> {
    let (user, password) = NODE;
    vec![
        "listener.security.protocol.map=PLAINTEXT:SASL_SSL,CONTROLLER:SASL_SSL".to_owned(),
        "ssl.keystore.type=PEM".to_owned(),
        format!("ssl.keystore.location={}", dir.join("node.pem").display()),
        "ssl.truststore.type=PEM".to_owned(),
        format!("ssl.truststore.location={}", dir.join("ca.pem").display()),
        "listener.name.plaintext.sasl.enabled.mechanisms=SCRAM-SHA-512".to_owned(),
        "listener.name.controller.sasl.enabled.mechanisms=PLAIN".to_owned(),
        "sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512".to_owned(),
        "sasl.mechanism.controller.protocol=PLAIN".to_owned(),
        format!(
            "listener.name.plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.\
             ScramLoginModule required username=\"{user}\" password=\"{password}\";"
        ),
        format!(
            "listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule \
             required username=\"{user}\" password=\"{password}\" user_{user}=\"{password}\" user_{}=\"{}\";",
            OUTSIDER.0, OUTSIDER.1
        ),
        "listener.name.controller.plain.connections.max.reauth.ms=2000".to_owned(),
        "connection.failed.authentication.delay.ms=0".to_owned(),
        format!("super.users=User:{user}"),
        "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer".to_owned(),
        // Lowered from 30 s so a follower that lost its leader leaves the ISR within the test.
        "replica.lag.time.max.ms=5000".to_owned(),
    ]
}

/// Formats node `id`'s data directory with the nodes' and alice's SCRAM-SHA-512 credentials.
fn format(dir: &Path, id: i32, data: &Path) {
    let config = dir.join(format!("format-{id}.properties"));
    let body = format!(
        "node.id={id}\nprocess.roles=broker,controller\nlisteners=PLAINTEXT://127.0.0.1:0\nlog.dirs={}\n",
        data.display()
    );
    std::fs::write(&config, body).expect("write the format config");
    let formatted = std::process::Command::new(env!("CARGO_BIN_EXE_strand"))
        .args(["storage", "format", "-t", CLUSTER_ID, "-c"])
        .arg(&config)
        .args(["--add-scram", &format!("SCRAM-SHA-512=[name={},password={}]", NODE.0, NODE.1)])
        .args(["--add-scram", &format!("SCRAM-SHA-512=[name={},password={}]", ALICE.0, ALICE.1)])
        .args(["--add-scram", &format!("SCRAM-SHA-512=[name={},password={}]", BOB.0, BOB.1)])
        .output()
        .expect("run strand storage format");
    assert!(formatted.status.success(), "{}", String::from_utf8_lossy(&formatted.stderr));
}

/// The cluster and what its clients trust.
struct Secured {
    cluster: Cluster,
    ca: CertificateDer<'static>,
}

impl Secured {
    /// A client of node `id`'s broker listener, logged in as alice with SCRAM-SHA-512.
    fn connect(&self, id: i32) -> Client {
        self.connect_as(id, ALICE)
    }

    /// A client of node `id`'s broker listener, logged in as `user` with SCRAM-SHA-512.
    fn connect_as(&self, id: i32, (user, password): (&str, &str)) -> Client {
        let mut client = tls_client(self.cluster.node(id).address, self.ca.clone(), None);
        let response = login(&mut client, ScramClient::new(ScramMechanism::Sha512, user, password));
        assert_eq!(response.error_code, 0, "{user} logs in: {response:?}");
        client
    }

    /// Grants alice ALL on every topic and transactional id through node 1, as the nodes' super
    /// user, and waits until every node lets her describe a topic.
    fn grant_alice(&self) {
        let mut admin = self.connect_as(1, NODE);
        let alice = format!("User:{}", ALICE.0);
        const TOPIC: i8 = 2;
        const TRANSACTIONAL_ID: i8 = 5;
        const ALL: i8 = 2;
        assert_eq!(common::create_acl(&mut admin, TOPIC, "*", &alice, ALL), 0);
        assert_eq!(common::create_acl(&mut admin, TRANSACTIONAL_ID, "*", &alice, ALL), 0);
        for id in 1..=3 {
            let probe = |m: &MetadataResponse| m.topics.first().map(|t| t.error_code) == Some(UNKNOWN_TOPIC);
            self.wait_for_topics(id, ALICE, Some(vec!["acl-probe".into()]), "let alice describe a topic", probe);
        }
    }

    /// Asks node `id` for every topic's metadata, as alice, until `done` holds.
    fn wait_for(&self, id: i32, what: &str, done: impl Fn(&MetadataResponse) -> bool) -> MetadataResponse {
        self.wait_for_topics(id, ALICE, None, what, done)
    }

    /// Asks node `id` as `user` for `names`' metadata (every topic's if none) until `done` holds.
    fn wait_for_topics(
        &self,
        id: i32,
        user: (&str, &str),
        names: Option<Vec<String>>,
        what: &str,
        done: impl Fn(&MetadataResponse) -> bool,
    ) -> MetadataResponse {
        let mut client = self.connect_as(id, user);
        let poll = std::time::Duration::from_millis(100);
        let topics: Option<Vec<MetadataRequestTopic>> = names.map(|names| {
            names.into_iter().map(|name| MetadataRequestTopic { name: Some(name), ..Default::default() }).collect()
        });
        for _ in 0..WAIT_MAX.as_millis() / poll.as_millis() {
            let request =
                MetadataRequest { topics: topics.clone(), allow_auto_topic_creation: false, ..Default::default() };
            let ResponseBody::Metadata(response) = client.call(RequestBody::Metadata(request), 12) else {
                panic!("not a Metadata response")
            };
            if done(&response) {
                return response;
            }
            std::thread::sleep(poll);
        }
        panic!("node {id}: never {what} within {WAIT_MAX:?}")
    }

    /// The leader of partition 0 of `topic` once node `id` names one its ISR and `done` accept.
    fn leader(&self, id: i32, topic: &str, done: impl Fn(i32, &[i32]) -> bool) -> i32 {
        let found = |m: &MetadataResponse| {
            partitions(m, topic).first().is_some_and(|(_, leader, _, isr)| *leader > 0 && done(*leader, isr))
        };
        partitions(&self.wait_for(id, "named the wanted leader", found), topic)[0].1
    }
}

/// Runs `mechanism`'s exchange on `client`: the last SaslAuthenticate response.
fn login(client: &mut Client, mut mechanism: impl SaslClient) -> SaslAuthenticateResponse {
    let handshake = SaslHandshakeRequest { mechanism: mechanism.mechanism().to_owned() };
    let ResponseBody::SaslHandshake(answer) = client.call(RequestBody::SaslHandshake(handshake), 1) else {
        panic!("not a SaslHandshake response")
    };
    assert_eq!(answer.error_code, 0, "{answer:?}");
    let mut token = mechanism.initial_response();
    loop {
        let request = SaslAuthenticateRequest { auth_bytes: Bytes::from(token), ..Default::default() };
        let ResponseBody::SaslAuthenticate(response) = client.call(RequestBody::SaslAuthenticate(request), 2) else {
            panic!("not a SaslAuthenticate response")
        };
        if response.error_code != 0 {
            return response;
        }
        match mechanism.step(&response.auth_bytes).expect("the server proves itself") {
            ClientStep::Respond(next) => token = next,
            ClientStep::Done => return response,
        }
    }
}

/// Whether `server` logs a line holding `text` within [`WAIT_MAX`].
fn logged(server: &Server, text: &str) -> bool {
    let found = || server.log.lock().map(|l| l.iter().any(|line| line.contains(text))).unwrap_or(false);
    for _ in 0..WAIT_MAX.as_millis() / 20 {
        if found() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    found()
}

/// Every listener SASL_SSL: a replicated topic takes acks=all writes and loses none of them when
/// its leader is killed, a transaction commits across the nodes, a principal outside
/// `super.users` is closed on the CONTROLLER listener after authenticating, and no node's
/// session on a CONTROLLER listener ever expires (the links renew them).
#[test]
fn a_cluster_links_over_sasl_ssl() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().expect("dir");
    let pki = Pki::new("strand-test-ca");
    std::fs::write(dir.path().join("ca.pem"), pem("CERTIFICATE", &pki.ca())).expect("ca");
    std::fs::write(dir.path().join("node.pem"), pki.issue(("node", "brokers", "acme")).pem()).expect("node");
    let extra = settings(dir.path());
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let cluster = Cluster::start_prepared(3, 3, &extra, |id, data| format(dir.path(), id, data));
    let mut secured = Secured { cluster, ca: pki.ca() };
    secured.grant_alice();

    // A transaction: the leader checks it with the coordinator, the coordinator's markers reach
    // the leader, both over the inter-broker SASL_SSL links.
    const TXN_TOPIC: &str = "txn-data";
    create_replicated_topic(&mut secured.connect(1), TXN_TOPIC, 1, 3);
    secured.leader(1, TXN_TOPIC, |_, isr| isr.len() == 3);
    let coordinator = TxnProducer::coordinator(&mut secured.connect(1), "sasl-txn");
    let producer = TxnProducer::init(&mut secured.connect(coordinator), "sasl-txn", TXN_TOPIC, 10_000);
    producer.add_partition(&mut secured.connect(coordinator));
    let leader = secured.leader(1, TXN_TOPIC, |_, _| true);
    let mut data = secured.connect(leader);
    assert_eq!(producer.produce(&mut data, 0, &["t1", "t2"]), 0);
    producer.end(&mut secured.connect(coordinator), true);
    until("the commit marker", || end_offsets(&mut data, TXN_TOPIC), |offsets| *offsets == (3, 3));
    assert_eq!(fetch_committed(&mut data, TXN_TOPIC).0, ["t1", "t2"]);

    // Acknowledged writes survive their leader.
    const TOPIC: &str = "replicated";
    create_replicated_topic(&mut secured.connect(1), TOPIC, 1, 3);
    // Every node must know the leader and the full ISR before the leader takes the writes.
    let mut first = 0;
    for id in 1..=3 {
        first = secured.leader(id, TOPIC, |_, isr| isr.len() == 3);
    }
    let mut to_leader = secured.connect(first);
    let mut acknowledged = Vec::new();
    for round in 0..5 {
        let values: Vec<String> = (0..20).map(|i| format!("r{round}-{i}")).collect();
        let refs: Vec<&str> = values.iter().map(String::as_str).collect();
        assert_eq!(produce(&mut to_leader, TOPIC, -1, batch(&refs)).0, 0, "acks=all over SASL_SSL");
        acknowledged.extend(values);
    }
    drop(to_leader);
    secured.cluster.kill(first);
    let survivor = (1..=3).find(|id| *id != first).expect("a survivor");
    let second = secured.leader(survivor, TOPIC, |leader, _| leader != first);
    secured.leader(second, TOPIC, |leader, _| leader == second);
    let mut to_second = secured.connect(second);
    let mut read = Vec::new();
    for _ in 0..WAIT_MAX.as_millis() / 100 {
        read = fetch_all(&mut to_second, TOPIC);
        if read.len() >= acknowledged.len() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(read, acknowledged, "the new leader has every acknowledged record");
    assert_eq!(produce(&mut to_second, TOPIC, -1, batch(&["after"])).0, 0, "writes go on without the old leader");

    // Bob has no bindings: his write is refused and the topics are hidden from him.
    let mut bob = secured.connect_as(second, BOB);
    assert_eq!(produce(&mut bob, TOPIC, -1, batch(&["bob"])).0, TOPIC_DENIED, "bob may not write");
    let every_topic = MetadataRequest { topics: None, ..Default::default() };
    let ResponseBody::Metadata(seen) = bob.call(RequestBody::Metadata(every_topic), 12) else {
        panic!("not a Metadata response")
    };
    assert!(seen.topics.is_empty(), "bob sees no topic: {:?}", seen.topics);

    // A principal the controller listener authenticates but super.users does not name.
    let controller = SocketAddr::from(([127, 0, 0, 1], secured.cluster.controller_port(survivor)));
    let mut outsider = tls_client(controller, pki.ca(), None);
    let response = login(&mut outsider, PlainClient::new(OUTSIDER.0, OUTSIDER.1));
    assert_eq!(response.error_code, 0, "the outsider's password is right: {response:?}");
    let _ = outsider.stream.write_all(&heartbeat_frame(survivor, "outsider"));
    let _ = outsider.stream.flush();
    let mut byte = [0u8; 1];
    assert!(!matches!(outsider.stream.read(&mut byte), Ok(n) if n > 0), "the outsider's heartbeat is not answered");
    assert!(
        logged(secured.cluster.node(survivor), "User:outsider may not CLUSTER_ACTION on the cluster"),
        "the refusal is logged"
    );

    // The quorum is unharmed: a new topic gets a leader from the surviving voters.
    create_replicated_topic_on_two(&mut secured, survivor);
    for id in (1..=3).filter(|id| *id != first) {
        let log = secured.cluster.node(id).log.lock().map(|l| l.join("\n")).unwrap_or_default();
        assert!(!log.contains("expired (connections.max.reauth.ms"), "node {id} let a session expire:\n{log}");
        assert!(!log.contains("refused this node's login"), "node {id} had a login refused:\n{log}");
    }
}

/// Creates a topic of two replicas through node `through` and waits for its leader.
fn create_replicated_topic_on_two(secured: &mut Secured, through: i32) {
    create_replicated_topic(&mut secured.connect(through), "after-refusal", 1, 2);
    secured.leader(through, "after-refusal", |_, isr| isr.len() == 2);
}
