//! SCRAM credentials in the metadata log, end to end: a node formatted with
//! `strand storage format --add-scram` starts with the credential committed, and
//! DescribeUserScramCredentials shows it; AlterUserScramCredentials changes it and the change
//! survives a restart (replayed from the log).

mod common;

use bytes::Bytes;
use common::{Server, serial};
use strand_protocol::messages::alter_user_scram_credentials_request::ScramCredentialUpsertion;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::{AlterUserScramCredentialsRequest, DescribeUserScramCredentialsRequest};

/// A described user: name, error code, (mechanism, iterations) pairs.
type Described = (String, i16, Vec<(i8, i32)>);

/// Every described user.
fn describe(server: &Server) -> Vec<Described> {
    let mut client = server.connect();
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
    let request = AlterUserScramCredentialsRequest { upsertions: vec![upsertion], ..Default::default() };
    let ResponseBody::AlterUserScramCredentials(response) =
        server.connect().call(RequestBody::AlterUserScramCredentials(request), 0)
    else {
        panic!("not an AlterUserScramCredentials response");
    };
    assert_eq!(response.results[0].error_code, 0, "{:?}", response.results[0].error_message);
    let altered = vec![("admin".to_owned(), 0, vec![(2, 8192)]), ("alice".to_owned(), 0, vec![(1, 4096), (2, 10_000)])];
    assert_eq!(describe(&server), altered);

    let data = server.terminate();
    let restarted = Server::spawn_from(Some(&config), data, &[]).ready();
    assert_eq!(describe(&restarted), altered, "replayed from the metadata log after a restart");
}
