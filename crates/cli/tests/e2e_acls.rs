//! Apache Kafka 4.4's own `kafka-acls` (`org.apache.kafka.tools.AclCommand`, from the jars
//! `compat/kafka/fetch-jars.sh` puts in `target/kafka-libs`) against a node with
//! `authorizer.class.name=...StandardAuthorizer`: add, list and remove, the `--producer` and
//! `--consumer --group` shortcuts, a prefixed pattern and a MATCH listing, compared with what
//! Kafka 4.4 printed for the same commands (`tests/data/kafka-acls/*.txt`, recorded against Kafka
//! 4.4.0 with `super.users=User:ANONYMOUS`; a binding's order within its resource, and the
//! resources' order, follow Java's hash sets there, so both sides are compared sorted). Then the
//! bindings decide: a SASL user is refused the ACL APIs until granted DESCRIBE on the cluster;
//! they survive a restart that loads the image from a metadata snapshot, and, in a cluster, the
//! active controller's death.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use common::cluster::Cluster;
use common::kafka_tool::kafka_tool_at;
use common::{Client, Server, WAIT_MAX, create_topic};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::elect_leaders_request::TopicPartitions;
use strand_protocol::messages::{DescribeAclsRequest, ElectLeadersRequest};

const JAAS: &str = "listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.\
                    PlainLoginModule required user_alice=\"alice-secret\";";

/// The node's settings: PLAINTEXT clients are `User:ANONYMOUS`, a super user (as in the Kafka
/// run the outputs were recorded from); SASL_PLAINTEXT's `alice` is not. Snapshots are taken
/// after every committed byte, so a restart loads the image from one.
const SETTINGS: &[&str] = &[
    "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
    "advertised.listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
    "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
    "inter.broker.listener.name=PLAINTEXT",
    "sasl.enabled.mechanisms=PLAIN",
    JAAS,
    "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users=User:ANONYMOUS",
    "metadata.log.max.record.bytes.between.snapshots=1",
];

/// Kafka's jars, or a panic saying how to fetch them.
fn kafka_libs() -> PathBuf {
    let libs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/kafka-libs");
    assert!(
        libs.join("kafka-tools-4.4.0.jar").exists(),
        "Kafka 4.4's jars are missing from {}: run compat/kafka/fetch-jars.sh",
        libs.display()
    );
    libs
}

/// Runs `kafka-acls --bootstrap-server bootstrap ARGS` (with `--command-config config` if set).
fn kafka_acls(bootstrap: &str, config: Option<&Path>, args: &[&str]) -> Output {
    kafka_acls_at(&Target::Broker(bootstrap), config, args)
}

/// Which `kafka-acls` runs a recorded step: Kafka's, or `strand acls`.
#[derive(Clone, Copy)]
enum Tool {
    Kafka,
    Strand,
}

/// Runs `strand acls` as [`kafka_acls_at`] runs Kafka's.
fn strand_acls_at(target: &Target, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_strand"))
        .arg("acls")
        .args(match target {
            Target::Broker(address) => ["--bootstrap-server", address],
            Target::Controller(address) => ["--bootstrap-controller", address],
        })
        .args(args)
        .output()
        .expect("run strand")
}

/// Where `kafka-acls` connects: a broker's listener or a controller's (`--bootstrap-controller`).
enum Target<'a> {
    Broker(&'a str),
    Controller(&'a str),
}

fn kafka_acls_at(target: &Target, config: Option<&Path>, args: &[&str]) -> Output {
    let java = std::env::var_os("JAVA_HOME").map_or(PathBuf::from("java"), |home| Path::new(&home).join("bin/java"));
    let log4j = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../compat/kafka/log4j2.properties");
    let mut command = Command::new(java);
    command
        .args(["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"])
        .arg(format!("-Dlog4j2.configurationFile={}", log4j.display()))
        .arg("-cp")
        .arg(format!("{}/*", kafka_libs().display()))
        .arg("org.apache.kafka.tools.AclCommand")
        .args(match target {
            Target::Broker(address) => ["--bootstrap-server", address],
            Target::Controller(address) => ["--bootstrap-controller", address],
        });
    if let Some(config) = config {
        command.arg("--command-config").arg(config);
    }
    command.args(args).output().expect("run java (is a JDK installed?)")
}

/// stdout and the exit status as the recordings hold them.
fn printed(output: &Output) -> String {
    format!("{}exit: {}\n", String::from_utf8_lossy(&output.stdout), output.status.code().unwrap_or(-1))
}

/// Output with each resource's bindings sorted, and the resources sorted: the parts whose order
/// is Java's hash order in Kafka's run. Each line that is not a binding starts a block.
fn sorted(text: &str) -> Vec<Vec<String>> {
    let mut blocks: Vec<Vec<String>> = Vec::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match blocks.last_mut() {
            Some(block) if line.starts_with("(principal=") => block.push(line.to_owned()),
            _ => blocks.push(vec![line.to_owned()]),
        }
    }
    for block in &mut blocks {
        block[1..].sort();
    }
    blocks.sort();
    blocks
}

/// Runs one recorded step and compares its output with Kafka's.
fn check(target: &Target, tool: Tool, name: &str, args: &[&str]) {
    let output = match tool {
        Tool::Kafka => kafka_acls_at(target, None, args),
        Tool::Strand => strand_acls_at(target, args),
    };
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/kafka-acls/{name}.txt"));
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let actual = printed(&output);
    assert_eq!(
        sorted(&actual),
        sorted(&expected),
        "{name}: kafka-acls {args:?} printed\n{actual}\nKafka 4.4 printed\n{expected}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The `.checkpoint` files of the node's metadata log.
fn snapshots(server: &Server) -> Vec<String> {
    let dir = server.data.path().join("__cluster_metadata-0");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut names: Vec<String> = entries
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".checkpoint"))
        .collect();
    names.sort();
    names
}

/// The recorded session: what each command prints is what Kafka 4.4 printed.
fn recorded_session(bootstrap: &Target, tool: Tool) {
    check(
        bootstrap,
        tool,
        "add-alice",
        &[
            "--add",
            "--allow-principal",
            "User:alice",
            "--operation",
            "Read",
            "--operation",
            "Write",
            "--topic",
            "orders",
        ],
    );
    check(
        bootstrap,
        tool,
        "add-producer",
        &[
            "--add",
            "--allow-principal",
            "User:bob",
            "--producer",
            "--topic",
            "pay",
            "--resource-pattern-type",
            "prefixed",
        ],
    );
    check(
        bootstrap,
        tool,
        "add-consumer",
        &["--add", "--allow-principal", "User:carol", "--consumer", "--topic", "orders", "--group", "readers"],
    );
    check(
        bootstrap,
        tool,
        "add-deny",
        &["--add", "--deny-principal", "User:mallory", "--deny-host", "10.0.0.1", "--operation", "All", "--group", "*"],
    );
    check(bootstrap, tool, "list-all", &["--list"]);
    check(bootstrap, tool, "list-orders", &["--list", "--topic", "orders"]);
    check(bootstrap, tool, "list-pay-prefixed", &["--list", "--topic", "pay", "--resource-pattern-type", "prefixed"]);
    check(bootstrap, tool, "list-match", &["--list", "--topic", "payments", "--resource-pattern-type", "match"]);
    check(bootstrap, tool, "list-carol", &["--list", "--principal", "User:carol"]);
    check(
        bootstrap,
        tool,
        "remove-alice-write",
        &["--remove", "--allow-principal", "User:alice", "--operation", "Write", "--topic", "orders", "--force"],
    );
    check(bootstrap, tool, "list-orders-after", &["--list", "--topic", "orders"]);
    check(
        bootstrap,
        tool,
        "remove-pay",
        &["--remove", "--topic", "pay", "--resource-pattern-type", "prefixed", "--force"],
    );
    check(bootstrap, tool, "list-all-after", &["--list"]);
}

/// kafka-acls works unchanged and prints what Kafka prints; a non-super user is refused the
/// ACL APIs until a binding allows it; the bindings survive a restart from a snapshot.
#[test]
fn kafka_acls_round_trip_and_bindings_survive_a_restart() {
    let _serial = common::serial();
    let server = Server::start_with(tempfile::tempdir().expect("temp dir"), SETTINGS);
    let bootstrap = server.address.to_string();
    recorded_session(&Target::Broker(&bootstrap), Tool::Kafka);

    // alice (SASL) may not list ACLs until she may DESCRIBE the cluster.
    let alice = server.data.path().join("alice.properties");
    let jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" \
                password=\"alice-secret\";";
    let config = format!("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config={jaas}\n");
    std::fs::write(&alice, config).expect("write alice.properties");
    let sasl = server.listener_address("SASL_PLAINTEXT").to_string();
    let refused = printed(&kafka_acls(&sasl, Some(&alice), &["--list"]));
    // The tool prints the error on stdout.
    let denial = "ClusterAuthorizationException: Cluster authorization failed.";
    assert!(refused.contains(denial) && refused.ends_with("exit: 1\n"), "{refused}");
    let grant = kafka_acls(
        &bootstrap,
        None,
        &["--add", "--allow-principal", "User:alice", "--operation", "Describe", "--cluster"],
    );
    assert_eq!(grant.status.code(), Some(0), "{}", printed(&grant));
    let allowed = kafka_acls(&sasl, Some(&alice), &["--list", "--cluster"]);
    assert!(
        printed(&allowed).contains("(principal=User:alice, host=*, operation=DESCRIBE, permissionType=ALLOW)"),
        "{}",
        printed(&allowed)
    );
    let revoke = kafka_acls(
        &bootstrap,
        None,
        &["--remove", "--allow-principal", "User:alice", "--operation", "Describe", "--cluster", "--force"],
    );
    assert_eq!(revoke.status.code(), Some(0), "{}", printed(&revoke));

    // A snapshot taken after the last change holds every binding; the restart loads it.
    let before = snapshots(&server);
    create_topic(&mut server.connect(), "after-acls", 1);
    const POLL: Duration = Duration::from_millis(100);
    let snapshotted = (0..WAIT_MAX.as_millis() / POLL.as_millis()).any(|_| {
        let done = snapshots(&server).iter().any(|name| !before.contains(name));
        if !done {
            std::thread::sleep(POLL);
        }
        done
    });
    assert!(snapshotted, "no snapshot after {before:?}");
    let restarted = Server::start_with(server.terminate(), SETTINGS);
    let log = restarted.log.lock().map(|l| l.join("\n")).unwrap_or_default();
    assert!(log.contains("metadata image loaded from the snapshot ending at offset"), "{log}");
    check(&Target::Broker(&restarted.address.to_string()), Tool::Kafka, "list-all-after", &["--list"]);
}

/// `kafka-acls --bootstrap-controller` (KIP-919): the CONTROLLER listener serves the ACL APIs as
/// a broker does, and the recorded session prints what Kafka printed; a binding made there
/// decides on the broker's listeners. The requests a broker forwards are served there too:
/// `kafka-reassign-partitions --bootstrap-controller --list`, and an ElectLeaders decided by the
/// active controller.
#[test]
fn admin_tools_on_the_controller_listener() {
    let _serial = common::serial();
    let mut settings = SETTINGS.to_vec();
    settings[0] = "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0";
    settings.push("controller.listener.names=CONTROLLER");
    let server = Server::start_with(tempfile::tempdir().expect("temp dir"), &settings);
    let controller = server.logged_address("controller listener on ").to_string();
    recorded_session(&Target::Controller(&controller), Tool::Kafka);

    let alice = server.data.path().join("alice.properties");
    let jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" \
                password=\"alice-secret\";";
    let config = format!("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config={jaas}\n");
    std::fs::write(&alice, config).expect("write alice.properties");
    let sasl = server.listener_address("SASL_PLAINTEXT").to_string();
    let denial = "ClusterAuthorizationException: Cluster authorization failed.";
    assert!(printed(&kafka_acls(&sasl, Some(&alice), &["--list"])).contains(denial));
    let grant = ["--add", "--allow-principal", "User:alice", "--operation", "Describe", "--cluster"];
    let granted = kafka_acls_at(&Target::Controller(&controller), None, &grant);
    assert_eq!(granted.status.code(), Some(0), "{}", printed(&granted));
    let allowed = printed(&kafka_acls(&sasl, Some(&alice), &["--list", "--cluster"]));
    assert!(allowed.contains("(principal=User:alice, host=*, operation=DESCRIBE, permissionType=ALLOW)"), "{allowed}");

    let reassign = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand";
    let listed = kafka_tool_at(reassign, "--bootstrap-controller", &controller, &["--list"]);
    assert_eq!(listed, (true, "No partition reassignments found.\n".to_owned()));
    create_topic(&mut server.connect(), "elect", 1);
    let partitions = vec![TopicPartitions { topic: "elect".into(), partitions: vec![0], ..Default::default() }];
    let preferred = ElectLeadersRequest {
        election_type: 0,
        topic_partitions: Some(partitions),
        timeout_ms: 10_000,
        ..Default::default()
    };
    let mut client = Client::connect(controller.parse().expect("an address"));
    let ResponseBody::ElectLeaders(elected) = client.call(RequestBody::ElectLeaders(preferred), 2) else {
        panic!("not an ElectLeaders response")
    };
    let result = &elected.replica_election_results[0].partition_result[0];
    assert_eq!((elected.error_code, result.error_code), (0, 84), "ELECTION_NOT_NEEDED: {elected:?}");
}

/// `strand acls` (Strand's kafka-acls.sh) prints what Kafka's tool printed for the recorded
/// session, through a broker's listener and through the CONTROLLER listener.
#[test]
fn strand_acls_prints_what_kafka_acls_printed() {
    let _serial = common::serial();
    let mut settings = SETTINGS.to_vec();
    settings[0] = "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0";
    settings.push("controller.listener.names=CONTROLLER");
    let server = Server::start_with(tempfile::tempdir().expect("temp dir"), &settings);
    let bootstrap = server.address.to_string();
    recorded_session(&Target::Broker(&bootstrap), Tool::Strand);
    let controller = server.logged_address("controller listener on ").to_string();
    // The session ends with the bindings it made removed but for alice's READ, carol's and
    // mallory's: add bob's again so that it can be removed through the controller.
    let again = [
        "--add",
        "--allow-principal",
        "User:bob",
        "--producer",
        "--topic",
        "pay",
        "--resource-pattern-type",
        "prefixed",
    ];
    check(&Target::Controller(&controller), Tool::Strand, "add-producer", &again);
    check(
        &Target::Controller(&controller),
        Tool::Strand,
        "list-pay-prefixed",
        &["--list", "--topic", "pay", "--resource-pattern-type", "prefixed"],
    );
    let remove = ["--remove", "--topic", "pay", "--resource-pattern-type", "prefixed", "--force"];
    check(&Target::Controller(&controller), Tool::Strand, "remove-pay", &remove);
    check(&Target::Controller(&controller), Tool::Strand, "list-all-after", &["--list"]);
    let refused = strand_acls_at(&Target::Broker(&bootstrap), &["--add", "--operation", "Read", "--topic", "t"]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr).lines().next(),
        Some("You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.")
    );
}

/// Creates one ALLOW binding for `principal` to READ topic `topic`; the result's error code.
fn create_read_acl(client: &mut Client, principal: &str, topic: &str) -> i16 {
    common::create_acl(client, 2, topic, principal, 3)
}

/// The principals of every binding the node describes, sorted.
fn described_principals(client: &mut Client) -> Vec<String> {
    let request = DescribeAclsRequest {
        resource_type_filter: 1,
        resource_name_filter: None,
        pattern_type_filter: 1,
        principal_filter: None,
        host_filter: None,
        operation: 1,
        permission_type: 1,
        ..Default::default()
    };
    let ResponseBody::DescribeAcls(response) = client.call(RequestBody::DescribeAcls(request), 3) else {
        panic!("not a DescribeAcls response")
    };
    assert_eq!(response.error_code, 0, "{response:?}");
    let mut principals: Vec<String> =
        response.resources.iter().flat_map(|r| r.acls.iter().map(|a| a.principal.clone())).collect();
    principals.sort();
    principals
}

/// Sends the active controller `controller` a CreateTopics as a broker forwards it, for
/// `requester` (`None`: the broker's own); the topic's error code.
fn forward_create_topic(cluster: &Cluster, controller: i32, name: &str, requester: Option<(&str, &str)>) -> i16 {
    use strand_protocol::codec::Message;
    use strand_protocol::messages::create_topics_request::CreatableTopic;
    use strand_protocol::messages::{CreateTopicsRequest, CreateTopicsResponse};
    let topic = CreatableTopic { name: name.into(), num_partitions: 1, replication_factor: 1, ..Default::default() };
    let request = CreateTopicsRequest { topics: vec![topic], timeout_ms: 10_000, ..Default::default() };
    let frame = common::cluster::controller_frame(&RequestBody::CreateTopics(request), 7, requester);
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], cluster.controller_port(controller)));
    let mut client = Client::connect(address);
    client.send_raw(&frame);
    let reply = common::cluster::controller_reply(client.read_frame().expect("a reply")).expect("answered");
    let response = CreateTopicsResponse::decode_exact(reply, 7).expect("a CreateTopics response");
    response.topics[0].error_code
}

/// The controller authorizes what a broker forwards with the client's principal and address,
/// not trusting the broker: a CreateTopics forwarded for `User:mallory`, who may create nothing,
/// is refused by the controller itself (the CONTROLLER listener's caller here is a super user, as
/// brokers are); the same frame as the broker's own request is decided.
fn forwarded_requests_are_authorized_by_the_controller(cluster: &Cluster, controller: i32) {
    let mallory = Some(("User:mallory", "127.0.0.1"));
    assert_eq!(forward_create_topic(cluster, controller, "forged", mallory), 29, "TOPIC_AUTHORIZATION_FAILED");
    assert_eq!(forward_create_topic(cluster, controller, "forged", None), 0, "the broker's own request");
}

/// In a three-node cluster a binding created through one node is described by the others, and
/// survives the active controller's death: the next controller holds it (creating it again
/// writes no second copy) and takes new ones.
#[test]
fn acls_survive_a_controller_failover() {
    let _serial = common::serial();
    let settings =
        ["authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer", "super.users=User:ANONYMOUS"];
    let mut cluster = Cluster::start_configured(3, 3, &settings);
    assert_eq!(create_read_acl(&mut cluster.node(1).connect(), "User:alice", "orders"), 0);
    let first = cluster.wait_for_active_controller(None);
    let survivor = (1..=3).find(|id| *id != first).expect("a survivor");
    const POLL: Duration = Duration::from_millis(100);
    let listed = |cluster: &Cluster, expected: &[&str]| {
        (0..WAIT_MAX.as_millis() / POLL.as_millis()).any(|_| {
            let done = described_principals(&mut cluster.node(survivor).connect()) == expected;
            if !done {
                std::thread::sleep(POLL);
            }
            done
        })
    };
    assert!(listed(&cluster, &["User:alice"]), "node {survivor} never described alice's binding");
    forwarded_requests_are_authorized_by_the_controller(&cluster, first);

    cluster.kill(first);
    cluster.wait_for_active_controller(Some(first));
    let mut client = cluster.node(survivor).connect();
    assert_eq!(create_read_acl(&mut client, "User:alice", "orders"), 0);
    assert_eq!(create_read_acl(&mut client, "User:bob", "orders"), 0);
    assert!(
        listed(&cluster, &["User:alice", "User:bob"]),
        "after the failover: {:?}",
        described_principals(&mut client)
    );
}
