//! Delegation tokens (KIP-48) end to end, on one node whose client listener is SASL_PLAINTEXT
//! with SCRAM-SHA-512 and `delegation.token.secret.key` set: alice creates a token; a client
//! authenticating with it (the `tokenauth` extension, the token id and its base64 HMAC) is
//! served as alice but may not create a token; the token survives a restart (replayed from the
//! metadata log); a token whose lifetime has passed is removed by the expiry check
//! (`delegation.token.expiry.check.interval.ms`), and an expired token no longer authenticates. A
//! token's session lasts no longer than the token. The CONTROLLER listener serves the token APIs
//! with the same checks.

mod common;

use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use common::{Client, Server, WAIT_MAX, serial};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::{
    CreateDelegationTokenRequest, CreateDelegationTokenResponse, DescribeDelegationTokenRequest,
    ExpireDelegationTokenRequest, MetadataRequest, SaslAuthenticateRequest, SaslHandshakeRequest,
};
use strand_security::sasl::scram::ScramClient;
use strand_security::sasl::{ClientStep, SaslClient};
use strand_security::scram::ScramMechanism;

const ALICE: (&str, &str) = ("alice", "alice-secret");
const NODE: (&str, &str) = ("node", "node-secret");
/// Kafka's DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.
const NOT_ALLOWED: i16 = 64;
/// The test harness overrides `listeners` (with PLAINTEXT alone): this restores the CONTROLLER
/// listener.
const LISTENERS: &str = "listeners=PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0";

/// The node's settings: SASL_PLAINTEXT with SCRAM-SHA-512 on the client (and inter-broker)
/// listener, tokens enabled, expired tokens checked for every 200 ms.
fn write_config(dir: &Path, data: &Path) -> std::path::PathBuf {
    let (user, password) = NODE;
    let config = dir.join("server.properties");
    let body = format!(
        "node.id=1\nprocess.roles=broker,controller\nlog.dirs={}\n\
         listeners=PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0\ncontroller.listener.names=CONTROLLER\n\
         listener.security.protocol.map=PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT\n\
         sasl.enabled.mechanisms=SCRAM-SHA-512\nsasl.mechanism.inter.broker.protocol=SCRAM-SHA-512\n\
         listener.name.plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.\
         ScramLoginModule required username=\"{user}\" password=\"{password}\";\n\
         delegation.token.secret.key=e2e-secret\ndelegation.token.expiry.check.interval.ms=200\n",
        data.display()
    );
    std::fs::write(&config, body).expect("write server.properties");
    let formatted = std::process::Command::new(env!("CARGO_BIN_EXE_strand"))
        .args(["storage", "format", "-t", "q1Sh-9_ISia_zwGINzRvyQ", "-c"])
        .arg(&config)
        .args(["--add-scram", &format!("SCRAM-SHA-512=[name={user},password={password}]")])
        .args(["--add-scram", &format!("SCRAM-SHA-512=[name={},password={}]", ALICE.0, ALICE.1)])
        .output()
        .expect("run strand storage format");
    assert!(formatted.status.success(), "{}", String::from_utf8_lossy(&formatted.stderr));
    config
}

/// SaslHandshake then SaslAuthenticate rounds with `mechanism`: the final error code and the
/// session's lifetime (ms, 0: unbounded).
fn login(client: &mut Client, mut mechanism: ScramClient) -> (i16, i64) {
    let handshake = SaslHandshakeRequest { mechanism: mechanism.mechanism().to_owned() };
    let ResponseBody::SaslHandshake(answer) = client.call(RequestBody::SaslHandshake(handshake), 1) else { panic!() };
    assert_eq!(answer.error_code, 0, "{answer:?}");
    let mut token = mechanism.initial_response();
    loop {
        let request = SaslAuthenticateRequest { auth_bytes: Bytes::from(token), ..Default::default() };
        let ResponseBody::SaslAuthenticate(response) = client.call(RequestBody::SaslAuthenticate(request), 2) else {
            panic!()
        };
        if response.error_code != 0 {
            return (response.error_code, 0);
        }
        match mechanism.step(&response.auth_bytes).expect("the server proves itself") {
            ClientStep::Respond(next) => token = next,
            ClientStep::Done => return (0, response.session_lifetime_ms),
        }
    }
}

fn as_alice(server: &Server) -> Client {
    let mut client = Client::connect(server.address);
    assert_eq!(login(&mut client, ScramClient::new(ScramMechanism::Sha512, ALICE.0, ALICE.1)), (0, 0));
    client
}

/// A client logged in with `token` (SCRAM-SHA-512, `tokenauth=true`): the login's error code.
/// A session so opened lasts no longer than the token (Kafka's credential lifetime).
fn with_token(server: &Server, token: &CreateDelegationTokenResponse) -> (Client, i16) {
    let mut client = Client::connect(server.address);
    let mechanism = ScramClient::for_token(ScramMechanism::Sha512, &token.token_id, STANDARD.encode(&token.hmac));
    let (code, lifetime_ms) = login(&mut client, mechanism);
    if code == 0 {
        let left_ms = token.expiry_timestamp_ms - token.issue_timestamp_ms;
        assert!(lifetime_ms > 0 && lifetime_ms <= left_ms, "session of {lifetime_ms} ms, token of {left_ms} ms");
    }
    (client, code)
}

fn create(client: &mut Client, max_lifetime_ms: i64) -> CreateDelegationTokenResponse {
    let request = CreateDelegationTokenRequest { max_lifetime_ms, ..Default::default() };
    let ResponseBody::CreateDelegationToken(response) = client.call(RequestBody::CreateDelegationToken(request), 3)
    else {
        panic!()
    };
    response
}

/// The ids of the tokens `client` is shown.
fn described(client: &mut Client) -> Vec<String> {
    let request = DescribeDelegationTokenRequest { owners: None, ..Default::default() };
    let ResponseBody::DescribeDelegationToken(response) = client.call(RequestBody::DescribeDelegationToken(request), 3)
    else {
        panic!()
    };
    assert_eq!(response.error_code, 0);
    response.tokens.into_iter().map(|t| t.token_id).collect()
}

/// A token authenticates as its owner, survives a restart, is removed by the expiry check once
/// its lifetime has passed, and stops authenticating once expired.
#[test]
fn tokens_authenticate_survive_restarts_and_expire() {
    let _serial = serial();
    let dir = tempfile::tempdir().expect("temp dir");
    let data = tempfile::tempdir().expect("data dir");
    let config = write_config(dir.path(), data.path());
    let server = Server::spawn_from(Some(&config), data, &[LISTENERS]).ready();

    let mut alice = as_alice(&server);
    let token = create(&mut alice, -1);
    assert_eq!((token.error_code, token.principal_name.as_str()), (0, "alice"), "{token:?}");
    let (mut by_token, code) = with_token(&server, &token);
    assert_eq!(code, 0, "the token authenticates");
    let request = MetadataRequest { topics: Some(Vec::new()), ..Default::default() };
    let ResponseBody::Metadata(metadata) = by_token.call(RequestBody::Metadata(request), 12) else { panic!() };
    assert_eq!(metadata.brokers.len(), 1);
    assert_eq!(create(&mut by_token, -1).error_code, NOT_ALLOWED, "a token-authenticated session");

    // The CONTROLLER listener serves the token APIs too (KIP-919), refusing this PLAINTEXT one.
    let mut controller = Client::connect(server.logged_address("controller listener on "));
    assert_eq!(create(&mut controller, -1).error_code, NOT_ALLOWED, "a PLAINTEXT controller session");

    let data = server.terminate();
    let server = Server::spawn_from(Some(&config), data, &[LISTENERS]).ready();
    assert_eq!(with_token(&server, &token).1, 0, "the token is replayed after a restart");
    let mut alice = as_alice(&server);
    assert_eq!(described(&mut alice), vec![token.token_id.clone()]);

    // A token living 300 ms is removed by the 200 ms expiry check soon after.
    let short = create(&mut alice, 300);
    assert_eq!(short.error_code, 0);
    let removed = (0..WAIT_MAX.as_millis() / 50).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        !described(&mut alice).contains(&short.token_id)
    });
    assert!(removed, "the expiry check removed the short-lived token");
    assert_ne!(with_token(&server, &short).1, 0, "a removed token no longer authenticates");

    let request =
        ExpireDelegationTokenRequest { hmac: token.hmac.clone(), expiry_time_period_ms: -1, ..Default::default() };
    let ResponseBody::ExpireDelegationToken(expired) = alice.call(RequestBody::ExpireDelegationToken(request), 2)
    else {
        panic!()
    };
    assert_eq!(expired.error_code, 0);
    assert_ne!(with_token(&server, &token).1, 0, "an expired token no longer authenticates");
    assert!(described(&mut alice).is_empty());
}
