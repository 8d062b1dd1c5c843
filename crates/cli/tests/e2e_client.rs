//! `strand-client` at its boundary, against real `strand` processes: the admin calls and their
//! errors as Kafka's admin client reports them, the bootstrap past a dead address, a retry over
//! a connection the node dropped, a cluster that never answers within `default.api.timeout.ms`,
//! and the security a client properties file asks for (SASL PLAIN and SCRAM, TLS with a PEM
//! trust store), each refusal a non-retried error.

mod common;

use std::collections::BTreeMap;

use common::Server;
use common::tls::{Pki, pem};
use strand_client::admin::{NewTopic, PartitionIncrease, RESOURCE_TOPIC};
use strand_client::{Admin, Client, ClientConfig, ClientError};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::FindCoordinatorRequest;
use strand_protocol::messages::api::{ApiKey, RequestBody};

fn block_on<T>(work: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime").block_on(work)
}

fn config(pairs: &[(&str, String)]) -> ClientConfig {
    let properties: BTreeMap<String, String> = pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect();
    ClientConfig::from_properties(&properties).expect("client config")
}

fn admin(pairs: &[(&str, String)]) -> Result<Admin, ClientError> {
    block_on(Client::connect(config(pairs))).map(Admin::new)
}

fn increase(topic: &str, total_count: i32) -> PartitionIncrease {
    PartitionIncrease { topic: topic.to_owned(), total_count, assignments: None }
}

fn code(error: &ClientError) -> Option<ErrorCode> {
    error.code()
}

/// Create, list, describe (with the ELR of DescribeTopicPartitions), describe configs, grow and
/// delete a topic; the errors carry the broker's messages, and a topic's own error is returned
/// at once rather than retried.
#[test]
fn admin_calls_answer_as_kafka_s_admin_client() {
    let _serial = common::serial();
    let server = Server::start();
    let admin = admin(&[("bootstrap.servers", server.address.to_string())]).expect("connected");
    block_on(async {
        let connection = admin.client().any_connection().await.expect("a connection");
        assert_eq!(connection.version(ApiKey::Metadata), Ok(13), "the highest version both speak");
        // A request that cannot be encoded at the version spoken (FindCoordinator's single `key`
        // is gone from v4) fails at once for good, and the connection goes on.
        let unencodable =
            RequestBody::FindCoordinator(FindCoordinatorRequest { key: "g".into(), ..Default::default() });
        let refused = connection.call(&unencodable).await.expect_err("not encodable at v6");
        assert!(matches!(refused, ClientError::Config(_)) && !refused.is_retriable(), "{refused:?}");
        let listed = admin.list_topics(true).await.expect("the connection still answers");
        assert!(listed.is_empty(), "{listed:?}");

        let mut topic = NewTopic::new("orders", 3, 1);
        topic.configs.push(("retention.ms".into(), "1000".into()));
        assert_eq!(admin.create_topics(&[topic.clone()], false).await.expect("answered"), [Ok(())]);
        let again = admin.create_topics(&[topic], false).await.expect("answered");
        let Err(exists) = &again[0] else { panic!("created twice") };
        assert_eq!(
            (code(exists), exists.to_string()),
            (Some(ErrorCode::TopicAlreadyExists), "Topic 'orders' already exists.".into())
        );

        let listed = admin.list_topics(true).await.expect("listed");
        assert_eq!(listed.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["orders"]);
        let described = admin.describe_topics(&["orders".into()]).await.expect("described");
        assert_eq!(described[0].topic_id, listed[0].topic_id);
        assert_eq!(described[0].partitions.iter().map(|p| p.partition).collect::<Vec<_>>(), [0, 1, 2]);
        let first = &described[0].partitions[0];
        assert_eq!((first.leader, first.replicas.clone(), first.isr.clone()), (Some(1), vec![1], vec![1]));
        assert_eq!((first.elr.clone(), first.last_known_elr.clone()), (Some(vec![]), Some(vec![])));
        let through_metadata = admin.describe_topics_through_metadata(&["orders".into()]).await.expect("described");
        assert_eq!(through_metadata[0].partitions[0].elr, None, "Metadata carries no ELR");

        let configs = admin.describe_configs(&[(RESOURCE_TOPIC, "orders".into())]).await.expect("configs");
        let retention = configs[0].iter().find(|c| c.name == "retention.ms").expect("retention.ms");
        assert_eq!((retention.value.as_deref(), retention.is_default()), (Some("1000"), false));
        assert!(configs[0].iter().find(|c| c.name == "segment.bytes").is_some_and(|c| c.is_default()));

        let shrink = admin.create_partitions(&[increase("orders", 2)]).await.expect("answered");
        let Err(shrink) = &shrink[0] else { panic!("shrank") };
        assert_eq!(code(shrink), Some(ErrorCode::InvalidPartitions));
        assert_eq!(shrink.to_string(), "The topic orders currently has 3 partition(s); 2 would not be an increase.");
        assert_eq!(admin.create_partitions(&[increase("orders", 5)]).await.expect("answered"), [Ok(())]);

        let cluster = admin.describe_cluster().await.expect("cluster");
        assert_eq!(cluster.nodes.iter().map(|n| n.id).collect::<Vec<_>>(), [1]);
        let moving = admin.list_partition_reassignments(&[("orders".into(), 0)]).await.expect("reassignments");
        assert!(moving.is_empty());

        assert_eq!(admin.delete_topics(&["orders".into()]).await.expect("answered"), [Ok(())]);
        let unknown = admin.delete_topics(&["orders".into()]).await.expect("answered");
        assert!(matches!(&unknown[0], Err(e) if code(e) == Some(ErrorCode::UnknownTopicOrPartition)), "{unknown:?}");
        // UNKNOWN_TOPIC_OR_PARTITION is retriable, but as a topic's own answer it is final.
        let gone = admin.describe_topics(&["orders".into()]).await.expect_err("deleted");
        assert_eq!(code(&gone), Some(ErrorCode::UnknownTopicOrPartition));
    });
}

/// A dead first bootstrap address is skipped; a cluster that never answers fails once
/// `default.api.timeout.ms` has passed; a connection the node dropped (a restart on the same
/// port) is reopened by the retry.
#[test]
fn bootstrap_timeouts_and_reconnects() {
    let _serial = common::serial();
    let port = free_port();
    let listener = format!("listeners=PLAINTEXT://127.0.0.1:{port}");
    let advertised = format!("advertised.listeners=PLAINTEXT://127.0.0.1:{port}");
    let data = tempfile::tempdir().expect("temp dir");
    let server = Server::start_with(data, &[&listener, &advertised]);
    let dead = format!("127.0.0.1:{}", free_port());
    let timeouts = [("default.api.timeout.ms", "15000".to_owned()), ("retry.backoff.max.ms", "200".to_owned())];
    let bootstrap = ("bootstrap.servers", format!("{dead},127.0.0.1:{port}"));
    let cluster = admin(&[bootstrap, timeouts[0].clone(), timeouts[1].clone()]).expect("the second address answers");
    block_on(cluster.create_topics(&[NewTopic::new("kept", 1, 1)], false)).expect("answered")[0]
        .clone()
        .expect("created");

    let data = server.terminate();
    let _server = Server::start_with(data, &[&listener, &advertised]);
    let listed = block_on(cluster.list_topics(false)).expect("the retry reconnects");
    assert_eq!(listed.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["kept"]);

    let nobody = admin(&[("bootstrap.servers", dead), ("default.api.timeout.ms", "300".to_owned())]);
    assert!(matches!(nobody, Err(ClientError::Timeout(_) | ClientError::Connect { .. })), "{nobody:?}");
}

#[allow(clippy::disallowed_methods)] // A port for the node to listen on, found by the test.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("address").port()
}

/// SASL_PLAINTEXT with PLAIN (JAAS users) and SCRAM-SHA-512 (a user of the metadata log): the
/// client logs in from its properties; a wrong password is an authentication error at once.
#[test]
fn sasl_plain_and_scram_logins() {
    let _serial = common::serial();
    let data = tempfile::tempdir().expect("temp dir");
    let server = Server::start_with(
        data,
        &[
            "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
            "advertised.listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
            "inter.broker.listener.name=PLAINTEXT",
            "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512",
            "connection.failed.authentication.delay.ms=0",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.\
             PlainLoginModule required user_alice=\"alice-secret\";",
        ],
    );
    let address = server.listener_address("SASL_PLAINTEXT");
    let sasl = |mechanism: &str, module: &str, user: &str, password: &str| {
        let jaas =
            format!("org.apache.kafka.common.security.{module} required username=\"{user}\" password=\"{password}\";");
        admin(&[
            ("bootstrap.servers", address.to_string()),
            ("security.protocol", "SASL_PLAINTEXT".to_owned()),
            ("sasl.mechanism", mechanism.to_owned()),
            ("sasl.jaas.config", jaas),
        ])
    };
    let plain = sasl("PLAIN", "plain.PlainLoginModule", "alice", "alice-secret").expect("PLAIN login");
    assert!(block_on(plain.list_topics(false)).expect("listed").is_empty());
    let refused = sasl("PLAIN", "plain.PlainLoginModule", "alice", "wrong").expect_err("refused");
    assert!(
        matches!(&refused, ClientError::Authentication(m) if m.contains("Invalid username or password")),
        "{refused:?}"
    );

    add_scram_user(&server, "carol", "carol-secret");
    // The credential reaches the listener as the image is replayed, just after the answer.
    let scram = (0..200)
        .find_map(|_| sasl("SCRAM-SHA-512", "scram.ScramLoginModule", "carol", "carol-secret").ok())
        .expect("SCRAM login");
    assert!(block_on(scram.list_topics(false)).expect("listed").is_empty());
    let refused = sasl("SCRAM-SHA-512", "scram.ScramLoginModule", "carol", "wrong").expect_err("refused");
    assert!(matches!(refused, ClientError::Authentication(_)), "{refused:?}");
}

fn add_scram_user(server: &Server, user: &str, password: &str) {
    use bytes::Bytes;
    use strand_protocol::messages::AlterUserScramCredentialsRequest;
    use strand_protocol::messages::alter_user_scram_credentials_request::ScramCredentialUpsertion;
    use strand_protocol::messages::api::{RequestBody, ResponseBody};
    use strand_security::scram::ScramMechanism;
    let (salt, iterations) = (b"carol-salt".to_vec(), 4096);
    let salted = ScramMechanism::Sha512.salted_password(password.as_bytes(), &salt, iterations);
    let upsertion = ScramCredentialUpsertion {
        name: user.into(),
        mechanism: ScramMechanism::Sha512.id(),
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
}

/// SSL with a PEM trust store (host names verified): the client is served; one trusting
/// another CA fails its handshake at once, not after retries.
#[test]
fn ssl_with_a_pem_trust_store() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().expect("dir");
    let pki = Pki::new("strand-test-ca");
    let node = pki.issue(("node", "brokers", "acme"));
    std::fs::write(dir.path().join("ca.pem"), pem("CERTIFICATE", &pki.ca())).expect("ca");
    std::fs::write(dir.path().join("node.pem"), node.pem()).expect("node");
    std::fs::write(dir.path().join("other.pem"), pem("CERTIFICATE", &Pki::new("another-ca").ca())).expect("other");
    let data = tempfile::tempdir().expect("data");
    let truststore = format!("ssl.truststore.location={}", dir.path().join("ca.pem").display());
    let keystore = format!("ssl.keystore.location={}", dir.path().join("node.pem").display());
    let overrides = [
        "listeners=SSL://127.0.0.1:0",
        "advertised.listeners=SSL://127.0.0.1:0",
        "security.inter.broker.protocol=SSL",
        "ssl.truststore.type=PEM",
        &truststore,
        "ssl.keystore.type=PEM",
        &keystore,
    ];
    let (_server, address) = Server::spawn_with(data, &overrides).ready_on("SSL");
    let ssl = |ca: &str| {
        admin(&[
            ("bootstrap.servers", address.to_string()),
            ("security.protocol", "SSL".to_owned()),
            ("ssl.truststore.type", "PEM".to_owned()),
            ("ssl.truststore.location", dir.path().join(ca).display().to_string()),
        ])
    };
    let admin = ssl("ca.pem").expect("TLS");
    assert!(block_on(admin.list_topics(false)).expect("listed").is_empty());
    let refused = ssl("other.pem").expect_err("untrusted");
    assert!(matches!(&refused, ClientError::Authentication(m) if m.contains("SSL handshake failed")), "{refused:?}");
}
