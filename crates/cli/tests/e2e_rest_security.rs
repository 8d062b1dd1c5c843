//! The HTTP surface's security on a real `strand`: ACLs applied to the gateway's anonymous
//! caller (403); every route refused (401) without credentials when every Kafka listener
//! authenticates; `https://` listeners serving the node's certificate; callers authenticated as
//! the SASL listener's users (Basic, Bearer) under the ACLs, a refused sign-in answered after the
//! listener's failed-authentication delay, a flood of wrong passwords that stalls neither Kafka
//! clients nor signed-in callers, and a deleted user refused at once.

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use bytes::Bytes;
use common::rest::{
    Answer, HTTP_ON, answer_of, get, http, http_address, http_as, kafka_partitions, kafka_view, now, start,
};
use common::{Server, WAIT_MAX};
use serde_json::json;
use strand_protocol::messages::alter_user_scram_credentials_request::{
    ScramCredentialDeletion, ScramCredentialUpsertion,
};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_acls_request::AclCreation;
use strand_protocol::messages::{AlterUserScramCredentialsRequest, CreateAclsRequest};
use strand_security::scram::ScramMechanism;

#[test]
fn acls_apply_to_the_gateway_and_authenticating_listeners_close_it() {
    let _serial = common::serial();
    // An authorizer and no ACLs: the gateway's anonymous caller may do nothing.
    let (server, http_at) = start(&["authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer"]);
    let cluster =
        get(http_at, "/v3/clusters").json()["data"][0]["cluster_id"].as_str().expect("a cluster id").to_owned();
    let c = format!("/v3/clusters/{cluster}");
    let denied = http(http_at, "POST", &format!("{c}/topics"), r#"{"topic_name": "rest-denied"}"#, None);
    denied.error(403, 40301);
    assert_eq!(get(http_at, &format!("{c}/topics")).json()["data"], json!([]));
    drop(server);

    // Every broker listener authenticates: the gateway answers 401 on every route.
    let jaas = "listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.\
                PlainLoginModule required username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\";";
    let settings = [
        HTTP_ON,
        "listeners=SASL_PLAINTEXT://127.0.0.1:0",
        "advertised.listeners=SASL_PLAINTEXT://127.0.0.1:0",
        "listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
        "inter.broker.listener.name=SASL_PLAINTEXT",
        "sasl.enabled.mechanisms=PLAIN",
        "sasl.mechanism.inter.broker.protocol=PLAIN",
        jaas,
    ];
    let (server, _) = Server::spawn_with(tempfile::tempdir().expect("temp dir"), &settings).ready_on("SASL_PLAINTEXT");
    let http_at = http_address(&server);
    get(http_at, "/v3/clusters").error(401, 40101);
    http(http_at, "POST", "/v3/clusters/x/topics/t/records", r#"{"value": {"type": "STRING", "data": "x"}}"#, None)
        .error(401, 40101);
    assert_eq!(get(http_at, "/metrics").status, 401, "the metrics need credentials too");
    let admin = basic("admin", "admin-secret");
    assert_eq!(http_as(Some(&admin), http_at, "GET", "/metrics", "", None).status, 200);
    assert_eq!(http_as(Some(&admin), http_at, "GET", "/v3/clusters", "", None).status, 200);
    drop(server);

    // Anonymous HTTP on such a node is refused at start-up, naming the setting.
    let mut open = settings.to_vec();
    open.push("http.anonymous.allowed=true");
    let stderr = Server::spawn_with(tempfile::tempdir().expect("temp dir"), &open).fails();
    assert!(stderr.contains("http.anonymous.allowed=true would serve"), "{stderr}");
}

/// A GET over TLS, trusting `ca`, with `authorization` if set.
fn https_get(
    address: SocketAddr,
    ca: &rustls::pki_types::CertificateDer<'static>,
    path: &str,
    authorization: Option<&str>,
) -> Answer {
    let (mut connection, mut socket) = common::tls::tls_connection(address, ca.clone(), None);
    let mut stream = rustls::Stream::new(&mut connection, &mut socket);
    let auth = authorization.map(|a| format!("Authorization: {a}\r\n")).unwrap_or_default();
    let head = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\n{auth}Connection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).expect("send over TLS");
    let mut response = Vec::new();
    // The server closes after its answer (Connection: close), possibly without a TLS close_notify.
    let _ = stream.read_to_end(&mut response);
    answer_of(&String::from_utf8_lossy(&response))
}

/// `https://` in `http.listeners` serves the node's `ssl.keystore.*` (a PEM store made at test
/// time): a client trusting the CA is served, with `https://` links, after authenticating; a
/// plaintext request on that port is not answered.
#[test]
#[allow(clippy::disallowed_methods)] // A plaintext client of the test's own on the TLS port.
fn https_listeners_serve_the_nodes_certificate() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().expect("dir");
    let pki = common::tls::Pki::new("strand-http-ca");
    std::fs::write(dir.path().join("node.pem"), pki.issue(("node", "brokers", "acme")).pem()).expect("node");
    let jaas = "listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.\
                PlainLoginModule required username=\"admin\" password=\"admin-secret\" user_admin=\"admin-secret\";";
    let keystore = format!("ssl.keystore.location={}", dir.path().join("node.pem").display());
    let settings = [
        "http.listeners=https://127.0.0.1:0",
        "listeners=SASL_PLAINTEXT://127.0.0.1:0",
        "advertised.listeners=SASL_PLAINTEXT://127.0.0.1:0",
        "listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
        "inter.broker.listener.name=SASL_PLAINTEXT",
        "sasl.enabled.mechanisms=PLAIN",
        "sasl.mechanism.inter.broker.protocol=PLAIN",
        jaas,
        "ssl.keystore.type=PEM",
        &keystore,
    ];
    let (server, _) = Server::spawn_with(tempfile::tempdir().expect("temp dir"), &settings).ready_on("SASL_PLAINTEXT");
    let pause = std::time::Duration::from_millis(20);
    let line = |l: &String| l.split("metrics at https://").nth(1)?.split('/').next().map(str::to_owned);
    let mut found = None;
    for _ in 0..WAIT_MAX.as_millis() / pause.as_millis() {
        found = server.log.lock().expect("log").iter().find_map(line);
        if found.is_some() {
            break;
        }
        std::thread::park_timeout(pause);
    }
    let https_at: SocketAddr = found.expect("an https address in the log").parse().expect("an address");

    https_get(https_at, &pki.ca(), "/v3/clusters", None).error(401, 40101);
    let admin = basic("admin", "admin-secret");
    let clusters = https_get(https_at, &pki.ca(), "/v3/clusters", Some(&admin));
    assert_eq!(clusters.status, 200, "{}", clusters.body);
    let own = clusters.json()["data"][0]["metadata"]["self"].as_str().expect("a link").to_owned();
    assert!(own.starts_with(&format!("https://{https_at}/v3/clusters/")), "{own}");
    assert_eq!(https_get(https_at, &pki.ca(), "/metrics", Some(&admin)).status, 200);

    // Plaintext HTTP on the TLS port: no HTTP answer.
    let mut plain = TcpStream::connect(https_at).expect("connect");
    plain.set_read_timeout(Some(WAIT_MAX)).expect("timeout");
    plain.write_all(b"GET /v3/clusters HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").expect("send");
    let mut answer = Vec::new();
    let _ = plain.read_to_end(&mut answer);
    assert!(!String::from_utf8_lossy(&answer).starts_with("HTTP/1.1"), "{}", String::from_utf8_lossy(&answer));
}

/// `Authorization: Basic` for `user`.
fn basic(user: &str, password: &str) -> String {
    use base64::Engine;
    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}")))
}

/// HTTP credentials are the SASL listener's users, and the ACLs decide what each may do: no
/// credentials or a wrong password is 401 with a challenge, sent after the listener's
/// `connection.failed.authentication.delay.ms`; a user without ACLs is refused (403, 40301) a
/// topic's creation and its records; once granted, both succeed. A flood of wrong SCRAM
/// passwords neither stalls a Kafka client's Metadata nor refuses a signed-in HTTP caller, and a
/// deleted SCRAM user is refused though its password was checked (and remembered) before.
#[test]
fn http_callers_authenticate_as_sasl_users_and_acls_apply() {
    let _serial = common::serial();
    let jaas = "listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.\
                PlainLoginModule required user_alice=\"alice-secret\";";
    let settings = [
        HTTP_ON,
        "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "advertised.listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
        "inter.broker.listener.name=PLAINTEXT",
        "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256",
        jaas,
        "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        // The test's own Kafka client, on PLAINTEXT, administers; HTTP callers must authenticate.
        "super.users=User:ANONYMOUS",
        "http.anonymous.allowed=false",
        "connection.failed.authentication.delay.ms=500",
    ];
    let (server, http_at) = start(&settings);
    let mut admin = server.connect();
    common::create_topic(&mut admin, "sec-read", 1);
    let cluster = kafka_view(&mut admin).0;
    let c = format!("/v3/clusters/{cluster}");
    let alice = basic("alice", "alice-secret");
    let create = |who: Option<&str>, topic: &str| {
        http_as(who, http_at, "POST", &format!("{c}/topics"), &format!(r#"{{"topic_name": "{topic}"}}"#), None)
    };
    let read = |who: Option<&str>| http_as(who, http_at, "GET", "/topics/sec-read/tail?from=0:0", "", None);

    let missing = create(None, "sec-a");
    missing.error(401, 40101);
    assert!(missing.head.to_ascii_lowercase().contains("www-authenticate: basic realm="), "{}", missing.head);
    let started = now();
    create(Some(&basic("alice", "wrong")), "sec-a").error(401, 40101);
    let took = now() - started;
    assert!(took >= std::time::Duration::from_millis(500), "a failed sign-in answered after {took:?}");
    create(Some("Bearer not-a-token"), "sec-a").error(401, 40101);
    assert_eq!(read(None).status, 401);
    assert_eq!(get(http_at, "/metrics").status, 401);

    create(Some(&alice), "sec-a").error(403, 40301);
    read(Some(&alice)).error(403, 40301);
    assert_eq!(kafka_partitions(&mut admin, "sec-a"), Err(3), "no topic was created");

    // ALL on topics named sec-*, for alice.
    let creation = AclCreation {
        resource_type: 2,
        resource_name: "sec-".into(),
        resource_pattern_type: 4,
        principal: "User:alice".into(),
        host: "*".into(),
        operation: 2,
        permission_type: 3,
        ..Default::default()
    };
    let request = CreateAclsRequest { creations: vec![creation], ..Default::default() };
    let ResponseBody::CreateAcls(created) = admin.call(RequestBody::CreateAcls(request), 3) else { panic!() };
    assert_eq!(created.results[0].error_code, 0, "{created:?}");
    // The grant applies once the node's image has it.
    let pause = std::time::Duration::from_millis(20);
    let mut granted = read(Some(&alice));
    for _ in 0..WAIT_MAX.as_millis() / pause.as_millis() {
        if granted.status != 403 {
            break;
        }
        std::thread::park_timeout(pause);
        granted = read(Some(&alice));
    }
    assert_eq!(granted.status, 200, "{}", granted.body);
    let made = create(Some(&alice), "sec-a");
    assert_eq!(made.status, 201, "{}", made.body);
    assert_eq!(kafka_partitions(&mut admin, "sec-a"), Ok(1));
    create(Some(&alice), "other").error(403, 40301);

    // A SCRAM user (its credential in the metadata image) authenticates too, and has no ACLs.
    let salted = ScramMechanism::Sha256.salted_password(b"bob-secret", b"salt", 4096);
    let upsertion = ScramCredentialUpsertion {
        name: "bob".into(),
        mechanism: 1,
        iterations: 4096,
        salt: Bytes::from_static(b"salt"),
        salted_password: Bytes::from(salted),
        ..Default::default()
    };
    let request = AlterUserScramCredentialsRequest { upsertions: vec![upsertion], ..Default::default() };
    let ResponseBody::AlterUserScramCredentials(altered) =
        admin.call(RequestBody::AlterUserScramCredentials(request), 0)
    else {
        panic!()
    };
    assert_eq!(altered.results[0].error_code, 0, "{altered:?}");
    let bob = basic("bob", "bob-secret");
    let mut answer = read(Some(&bob));
    for _ in 0..WAIT_MAX.as_millis() / pause.as_millis() {
        if answer.status != 401 {
            break;
        }
        std::thread::park_timeout(pause);
        answer = read(Some(&bob));
    }
    answer.error(403, 40301);
    assert_eq!(read(Some(&basic("bob", "not-bobs"))).status, 401);
    create(Some(&basic("bob", "not-bobs")), "sec-b").error(401, 40101);
    create(Some(&bob), "sec-b").error(403, 40301);

    // A flood: many callers sending wrong SCRAM passwords at once, each in a loop. Meanwhile a
    // Kafka client's Metadata and a signed-in HTTP caller are served promptly.
    let flooding = std::sync::atomic::AtomicBool::new(true);
    let (metadata_max, alice_answers, flood_answers) = std::thread::scope(|scope| {
        let flooders: Vec<_> = (0..24)
            .map(|i| {
                let flooding = &flooding;
                scope.spawn(move || {
                    let mut statuses = Vec::new();
                    while flooding.load(std::sync::atomic::Ordering::Relaxed) {
                        let wrong = basic("bob", &format!("guess-{i}-{}", statuses.len()));
                        statuses.push(read(Some(&wrong)).status);
                    }
                    statuses
                })
            })
            .collect();
        let mut metadata_max = std::time::Duration::ZERO;
        let mut alice_answers = Vec::new();
        for _ in 0..20 {
            let started = now();
            kafka_view(&mut admin);
            metadata_max = metadata_max.max(now() - started);
            alice_answers.push(read(Some(&alice)).status);
            std::thread::park_timeout(std::time::Duration::from_millis(100));
        }
        flooding.store(false, std::sync::atomic::Ordering::Relaxed);
        let flood: Vec<u16> = flooders.into_iter().flat_map(|f| f.join().expect("a flooder")).collect();
        (metadata_max, alice_answers, flood)
    });
    assert!(metadata_max < std::time::Duration::from_secs(2), "a Metadata took {metadata_max:?} during the flood");
    assert!(alice_answers.iter().all(|&status| status == 200), "alice during the flood: {alice_answers:?}");
    assert!(flood_answers.len() >= 24, "the flood sent {} requests", flood_answers.len());
    assert!(flood_answers.iter().all(|&status| status == 401 || status == 429), "{flood_answers:?}");

    // bob's password was checked and remembered; once his credential is deleted he is refused,
    // well before the remembered check would expire (60 s).
    let deletion = ScramCredentialDeletion { name: "bob".into(), mechanism: 1, ..Default::default() };
    let request = AlterUserScramCredentialsRequest { deletions: vec![deletion], ..Default::default() };
    let ResponseBody::AlterUserScramCredentials(deleted) =
        admin.call(RequestBody::AlterUserScramCredentials(request), 0)
    else {
        panic!()
    };
    assert_eq!(deleted.results[0].error_code, 0, "{deleted:?}");
    let started = now();
    let mut answer = read(Some(&bob));
    while answer.status != 401 && now() - started < WAIT_MAX {
        std::thread::park_timeout(pause);
        answer = read(Some(&bob));
    }
    assert_eq!(answer.status, 401, "bob after his credential's deletion: {}", answer.body);
}
