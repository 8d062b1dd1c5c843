//! SCRAM credentials in the metadata log, end to end: a node formatted with
//! `strand storage format --add-scram` starts with the credential committed, and
//! DescribeUserScramCredentials shows it; AlterUserScramCredentials changes it and the change
//! survives a restart (replayed from the log); in a cluster, an alteration sent to a node that
//! is not the active controller is forwarded to it and reaches every node's image.

mod common;

use bytes::Bytes;
use common::cluster::Cluster;
use common::{Server, WAIT_MAX, serial};
use strand_protocol::messages::alter_user_scram_credentials_request::ScramCredentialUpsertion;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::{AlterUserScramCredentialsRequest, DescribeUserScramCredentialsRequest};

/// A described user: name, error code, (mechanism, iterations) pairs.
type Described = (String, i16, Vec<(i8, i32)>);

/// Every described user.
fn describe(server: &Server) -> Vec<Described> {
    describe_at(server.address)
}

fn describe_at(address: std::net::SocketAddr) -> Vec<Described> {
    let mut client = common::Client::connect(address);
    let request = DescribeUserScramCredentialsRequest { users: None, ..Default::default() };
    let ResponseBody::DescribeUserScramCredentials(response) =
        client.call(RequestBody::DescribeUserScramCredentials(request), 0)
    else {
        panic!("not a DescribeUserScramCredentials response");
    };
    response
        .results
        .into_iter()
        .map(|r| (r.user, r.error_code, r.credential_infos.iter().map(|i| (i.mechanism, i.iterations)).collect()))
        .collect()
}

/// `format --add-scram` (twice, Kafka's syntax, a password and a salted password) writes the
/// credentials before the first start; the node serves them at once, an alteration adds one, and
/// all of them are there after a restart.
#[test]
fn formatted_credentials_are_served_and_survive_restarts() {
    let _serial = serial();
    let data = tempfile::tempdir().expect("temp dir");
    let config = data.path().join("server.properties");
    let body = format!(
        "node.id=1\nprocess.roles=broker,controller\nlisteners=PLAINTEXT://127.0.0.1:0\nlog.dirs={}\n",
        data.path().display()
    );
    std::fs::write(&config, body).expect("write server.properties");
    let formatted = std::process::Command::new(env!("CARGO_BIN_EXE_strand"))
        .args(["storage", "format", "-t", "q1Sh-9_ISia_zwGINzRvyQ", "-c"])
        .arg(&config)
        .args(["--add-scram", "SCRAM-SHA-256=[name=alice,password=alice-secret]"])
        .args(["-S", "SCRAM-SHA-512=[name=admin,iterations=8192,salt=\"c2FsdA==\",saltedpassword=\"YWJj\"]"])
        .output()
        .expect("run strand storage format");
    assert!(formatted.status.success(), "{}", String::from_utf8_lossy(&formatted.stderr));
    assert!(data.path().join("bootstrap.checkpoint").exists());

    let server = Server::spawn_from(Some(&config), data, &[]).ready();
    let expected = vec![("admin".to_owned(), 0, vec![(2, 8192)]), ("alice".to_owned(), 0, vec![(1, 4096)])];
    assert_eq!(describe(&server), expected);

    let upsertion = ScramCredentialUpsertion {
        name: "alice".into(),
        mechanism: 2,
        iterations: 10_000,
        salt: Bytes::from_static(b"s"),
        salted_password: Bytes::from(vec![7; 64]),
        ..Default::default()
    };
    assert_eq!(alter(&server, upsertion), (0, None));
    let altered = vec![("admin".to_owned(), 0, vec![(2, 8192)]), ("alice".to_owned(), 0, vec![(1, 4096), (2, 10_000)])];
    assert_eq!(describe(&server), altered);

    let data = server.terminate();
    let restarted = Server::spawn_from(Some(&config), data, &[]).ready();
    assert_eq!(describe(&restarted), altered, "replayed from the metadata log after a restart");
}

/// AlterUserScramCredentials through `server`: the first user's error code and message.
fn alter(server: &Server, upsertion: ScramCredentialUpsertion) -> (i16, Option<String>) {
    let request = AlterUserScramCredentialsRequest { upsertions: vec![upsertion], ..Default::default() };
    let ResponseBody::AlterUserScramCredentials(response) =
        server.connect().call(RequestBody::AlterUserScramCredentials(request), 0)
    else {
        panic!("not an AlterUserScramCredentials response");
    };
    let result = &response.results[0];
    (result.error_code, result.error_message.clone())
}

/// A node that is not the active controller forwards the alteration over the network; every
/// node's image then holds the credential.
#[test]
fn alterations_through_any_node_reach_every_node() {
    let _serial = serial();
    let cluster = Cluster::start(3);
    let controller = cluster.wait_for_active_controller(None);
    let through = if controller == 1 { 2 } else { 1 };
    let upsertion = ScramCredentialUpsertion {
        name: "carol".into(),
        mechanism: 1,
        iterations: 4096,
        salt: Bytes::from_static(b"s"),
        salted_password: Bytes::from(vec![9; 32]),
        ..Default::default()
    };
    assert_eq!(alter(cluster.node(through), upsertion), (0, None));
    let expected = vec![("carol".to_owned(), 0, vec![(1, 4096)])];
    assert_eq!(describe(cluster.node(through)), expected, "the forwarding node answers once its image has it");
    const POLL: std::time::Duration = std::time::Duration::from_millis(100);
    for id in 1..=3 {
        let address = cluster.node(id).address;
        let seen = (0..WAIT_MAX.as_millis() / POLL.as_millis()).any(|_| {
            let done = describe_at(address) == expected;
            if !done {
                std::thread::sleep(POLL);
            }
            done
        });
        assert!(seen, "node {id} never described carol: {:?}", describe_at(address));
    }
}
