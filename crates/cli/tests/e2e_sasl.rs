//! SASL on a real node's SASL_PLAINTEXT listener, through the wire as a Kafka client speaks it:
//! nothing is served before authentication, PLAIN authenticates against its JAAS users,
//! failures are SASL_AUTHENTICATION_FAILED with Kafka's message and one log line without the
//! secret, and KIP-368 sessions re-authenticate or are closed once expired.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use common::{Client, Server, WAIT_MAX};
use strand_protocol::messages::AlterUserScramCredentialsRequest;
use strand_protocol::messages::alter_user_scram_credentials_request::ScramCredentialUpsertion;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::{
    MetadataRequest, SaslAuthenticateRequest, SaslAuthenticateResponse, SaslHandshakeRequest,
};
use strand_security::sasl::plain::PlainClient;
use strand_security::sasl::scram::ScramClient;
use strand_security::sasl::{ClientStep, SaslClient};
use strand_security::scram::ScramMechanism;

const JAAS: &str = "listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.\
                    PlainLoginModule required user_alice=\"alice-secret\" user_bob=\"bob-secret\";";

/// A node with a PLAINTEXT inter-broker listener and a SASL_PLAINTEXT client listener.
fn start(extra: &[&str]) -> (Server, SocketAddr) {
    let data = tempfile::tempdir().expect("temp dir");
    let mut overrides = vec![
        "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "advertised.listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
        "inter.broker.listener.name=PLAINTEXT",
        "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512",
        "connection.failed.authentication.delay.ms=0",
        JAAS,
    ];
    overrides.extend_from_slice(extra);
    let server = Server::start_with(data, &overrides);
    let address = server.listener_address("SASL_PLAINTEXT");
    (server, address)
}

fn handshake(client: &mut Client, mechanism: &str) -> i16 {
    let request = SaslHandshakeRequest { mechanism: mechanism.to_owned() };
    let ResponseBody::SaslHandshake(response) = client.call(RequestBody::SaslHandshake(request), 1) else {
        panic!("not a SaslHandshake response")
    };
    response.error_code
}

fn authenticate_token(client: &mut Client, token: Vec<u8>) -> SaslAuthenticateResponse {
    let request = SaslAuthenticateRequest { auth_bytes: Bytes::from(token), ..Default::default() };
    let ResponseBody::SaslAuthenticate(response) = client.call(RequestBody::SaslAuthenticate(request), 2) else {
        panic!("not a SaslAuthenticate response")
    };
    response
}

/// Runs `mechanism`'s whole exchange; the last response (the failure, or the success with the
/// session's lifetime).
fn login(client: &mut Client, mut mechanism: impl SaslClient) -> SaslAuthenticateResponse {
    assert_eq!(handshake(client, mechanism.mechanism()), 0);
    let mut token = mechanism.initial_response();
    loop {
        let response = authenticate_token(client, token);
        if response.error_code != 0 {
            return response;
        }
        match mechanism.step(&response.auth_bytes).expect("the server proves itself") {
            ClientStep::Respond(next) => token = next,
            ClientStep::Done => return response,
        }
    }
}

fn metadata(client: &mut Client) -> bool {
    matches!(client.call(RequestBody::Metadata(MetadataRequest::default()), 12), ResponseBody::Metadata(_))
}

#[test]
fn nothing_is_served_before_authentication() {
    let _serial = common::serial();
    let (server, address) = start(&[]);
    let mut client = Client::connect(address);
    client.send_raw(&encode(RequestBody::Metadata(MetadataRequest::default()), 12));
    assert!(client.is_closed_by_server(), "Metadata served before authentication");
    // ApiVersions is answered, then only the handshake is.
    let mut client = Client::connect(address);
    assert!(matches!(
        client.call(RequestBody::ApiVersions(common::api_versions_request()), 3),
        ResponseBody::ApiVersions(_)
    ));
    client.send_raw(&encode(RequestBody::Metadata(MetadataRequest::default()), 12));
    assert!(client.is_closed_by_server());
    // An unauthenticated peer cannot make the node read a frame over sasl.server.max.receive.size.
    let mut client = Client::connect(address);
    client.send_raw(&(1024 * 1024u32).to_be_bytes());
    assert!(client.is_closed_by_server());
    // The PLAINTEXT listener still serves without authentication.
    assert!(metadata(&mut server.connect()));
}

#[test]
fn plain_authenticates_and_a_wrong_password_fails_as_kafka_fails() {
    let _serial = common::serial();
    let (server, address) = start(&[]);
    let mut client = Client::connect(address);
    let done = login(&mut client, PlainClient::new("alice", "alice-secret"));
    assert_eq!((done.error_code, done.session_lifetime_ms), (0, 0));
    assert!(metadata(&mut client));

    let mut client = Client::connect(address);
    let failed = login(&mut client, PlainClient::new("alice", "not-her-password"));
    assert_eq!(failed.error_code, 58, "SASL_AUTHENTICATION_FAILED");
    assert_eq!(failed.error_message.as_deref(), Some("Authentication failed: Invalid username or password"));
    assert!(client.is_closed_by_server());
    let lines = wait_for_line(&server, "alice");
    assert!(!lines.contains("not-her-password"), "the secret was logged: {lines}");

    let mut client = Client::connect(address);
    assert_eq!(handshake(&mut client, "GSSAPI"), 33, "UNSUPPORTED_SASL_MECHANISM");
    assert!(client.is_closed_by_server());
}

/// SCRAM users come from the metadata log: seeded by `storage format --add-scram`, and added by
/// AlterUserScramCredentials (through the PLAINTEXT listener) without a restart.
#[test]
fn scram_authenticates_users_of_the_metadata_log() {
    let _serial = common::serial();
    let data = tempfile::tempdir().expect("temp dir");
    let config = data.path().join("server.properties");
    let body = format!(
        "node.id=1\nprocess.roles=broker,controller\nlog.dirs={}\n\
         listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0\n\
         listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT\n\
         inter.broker.listener.name=PLAINTEXT\ncontroller.listener.names=CONTROLLER\n\
         sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512\nconnection.failed.authentication.delay.ms=0\n",
        data.path().display()
    );
    std::fs::write(&config, body).expect("write server.properties");
    let formatted = std::process::Command::new(env!("CARGO_BIN_EXE_strand"))
        .args(["storage", "format", "-t", "q1Sh-9_ISia_zwGINzRvyQ", "-c"])
        .arg(&config)
        .args(["--add-scram", "SCRAM-SHA-512=[name=carol,password=carol-secret]"])
        .output()
        .expect("run strand storage format");
    assert!(formatted.status.success(), "{}", String::from_utf8_lossy(&formatted.stderr));
    let listeners = [
        "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0",
        "advertised.listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
    ];
    let server = Server::spawn_from(Some(&config), data, &listeners).ready();
    let address = server.listener_address("SASL_PLAINTEXT");

    let mut client = Client::connect(address);
    let done = login(&mut client, ScramClient::new(ScramMechanism::Sha512, "carol", "carol-secret"));
    assert_eq!(done.error_code, 0, "{:?}", done.error_message);
    assert!(metadata(&mut client));
    let mut client = Client::connect(address);
    let failed = login(&mut client, ScramClient::new(ScramMechanism::Sha512, "carol", "wrong"));
    assert_eq!(failed.error_code, 58);
    assert_eq!(
        failed.error_message.as_deref(),
        Some(
            "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512"
        )
    );
    assert!(client.is_closed_by_server());
    // Carol has no SHA-256 credential; dave has none until it is altered in.
    let mut client = Client::connect(address);
    assert_eq!(login(&mut client, ScramClient::new(ScramMechanism::Sha256, "carol", "carol-secret")).error_code, 58);
    let (salt, iterations) = (b"dave-salt".to_vec(), 4096);
    let salted = ScramMechanism::Sha256.salted_password(b"dave-secret", &salt, iterations);
    let upsertion = ScramCredentialUpsertion {
        name: "dave".into(),
        mechanism: ScramMechanism::Sha256.id(),
        iterations: iterations as i32,
        salt: Bytes::from(salt),
        salted_password: Bytes::from(salted),
        ..Default::default()
    };
    let request = AlterUserScramCredentialsRequest { upsertions: vec![upsertion], ..Default::default() };
    let ResponseBody::AlterUserScramCredentials(altered) =
        server.connect().call(RequestBody::AlterUserScramCredentials(request), 0)
    else {
        panic!("not an AlterUserScramCredentials response")
    };
    assert_eq!(altered.results[0].error_code, 0);
    // The image reaches the listener's store as it is replayed: the alteration's answer comes
    // once it is committed, and the next exchange reads it.
    let authenticated = (0..1000).any(|_| {
        let mut client = Client::connect(address);
        let attempt = login(&mut client, ScramClient::new(ScramMechanism::Sha256, "dave", "dave-secret"));
        attempt.error_code == 0 && metadata(&mut client)
    });
    assert!(authenticated, "dave never authenticated");
}

#[test]
fn sessions_re_authenticate_and_expire() {
    let _serial = common::serial();
    let (_server, address) = start(&["connections.max.reauth.ms=1500"]);
    let mut client = Client::connect(address);
    let done = login(&mut client, PlainClient::new("bob", "bob-secret"));
    assert_eq!((done.error_code, done.session_lifetime_ms), (0, 1500));
    for _ in 0..3 {
        let again = login(&mut client, PlainClient::new("bob", "bob-secret"));
        assert_eq!((again.error_code, again.session_lifetime_ms), (0, 1500));
        assert!(metadata(&mut client));
    }
    // Another principal may not take the session over.
    let mut other = Client::connect(address);
    assert_eq!(login(&mut other, PlainClient::new("bob", "bob-secret")).error_code, 0);
    let takeover = login(&mut other, PlainClient::new("alice", "alice-secret"));
    assert_eq!(takeover.error_code, 58);
    assert!(other.is_closed_by_server());
    // Past its lifetime without re-authenticating, the next request closes the connection. The
    // lifetime passing is the event: nothing else announces it.
    // The takeover attempt above took some of it already; 1.6 s from now is past it.
    std::thread::sleep(Duration::from_millis(1600));
    client.send_raw(&encode(RequestBody::Metadata(MetadataRequest::default()), 12));
    assert!(client.is_closed_by_server(), "an expired session was served");
}

fn encode(body: RequestBody, version: i16) -> Bytes {
    strand_protocol::frame::encode_request(99, Some("e2e"), &body, version).expect("encodes")
}

/// Waits for a server log line containing `needle`; all lines so far.
fn wait_for_line(server: &Server, needle: &str) -> String {
    let pause = Duration::from_millis(20);
    for _ in 0..WAIT_MAX.as_millis() / pause.as_millis() {
        let lines = server.log.lock().map(|lines| lines.join("\n")).unwrap_or_default();
        if lines.contains(needle) {
            return lines;
        }
        std::thread::park_timeout(pause);
    }
    panic!("no log line with {needle}")
}
