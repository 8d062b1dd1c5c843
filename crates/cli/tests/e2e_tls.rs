//! TLS end to end: a real `strand` serving an SSL listener with certificates made at test time
//! (a CA, the node's, a client's; nothing committed that could expire), reached by a rustls
//! client: requests work over TLS (a Fetch's records too, read from the segment files through
//! TLS rather than `sendfile`), Metadata advertises the SSL listener, and whatever must not
//! connect does not (plaintext, an untrusted server, a client without the certificate
//! `ssl.client.auth=required` asks for).

mod common;

use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;

use common::tls::{Pki, pem, tls_client, tls_connection};
use common::{Client, Server, WAIT_MAX, batch, create_topic, fetch_all, produce};
use rustls::pki_types::CertificateDer;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::{ApiVersionsRequest, MetadataRequest};

fn api_versions(client: &mut Client) -> Result<i16, String> {
    let request = ApiVersionsRequest {
        client_software_name: "e2e".into(),
        client_software_version: "1".into(),
        ..Default::default()
    };
    match client.try_call(RequestBody::ApiVersions(request), 3)? {
        ResponseBody::ApiVersions(response) => Ok(response.error_code),
        other => Err(format!("unexpected {other:?}")),
    }
}

/// Whether `server` logs a line holding `text` within [`WAIT_MAX`] (lines reach the test
/// through the server's stderr reader, after the client saw the connection close).
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

/// Starts strand with one SSL broker listener and `settings` (paths under `dir`).
fn start_ssl(dir: &Path, settings: &[String]) -> (Server, SocketAddr) {
    let data = tempfile::tempdir().expect("data");
    let mut overrides = vec![
        "listeners=SSL://127.0.0.1:0".to_owned(),
        "advertised.listeners=SSL://127.0.0.1:0".to_owned(),
        "security.inter.broker.protocol=SSL".to_owned(),
        "ssl.truststore.type=PEM".to_owned(),
        format!("ssl.truststore.location={}", dir.join("ca.pem").display()),
    ];
    overrides.extend(settings.iter().cloned());
    let overrides: Vec<&str> = overrides.iter().map(String::as_str).collect();
    Server::spawn_with(data, &overrides).ready_on("SSL")
}

/// A test CA, the node's certificate for `CN=node,OU=brokers,O=acme` in a PEM key store file
/// under `dir`, and strand serving it on one SSL listener.
fn start_pem(dir: &Path) -> (Pki, common::tls::Identity, Server, SocketAddr) {
    let pki = Pki::new("strand-test-ca");
    let node = pki.issue(("node", "brokers", "acme"));
    std::fs::write(dir.join("ca.pem"), pem("CERTIFICATE", &pki.ca())).expect("ca");
    std::fs::write(dir.join("node.pem"), node.pem()).expect("node");
    let keystore =
        ["ssl.keystore.type=PEM".to_owned(), format!("ssl.keystore.location={}", dir.join("node.pem").display())];
    let (server, address) = start_ssl(dir, &keystore);
    (pki, node, server, address)
}

/// A PEM key store: ApiVersions, Metadata (advertising the SSL listener) and a Produce and Fetch
/// round trip work over TLS; a plaintext client and a client not trusting the CA are refused.
#[test]
fn a_pem_ssl_listener_serves_tls_only() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().expect("dir");
    let (pki, _node, server, address) = start_pem(dir.path());

    let mut client = tls_client(address, pki.ca(), None);
    assert_eq!(api_versions(&mut client), Ok(0));
    let request = MetadataRequest { topics: None, ..Default::default() };
    let Ok(ResponseBody::Metadata(metadata)) = client.try_call(RequestBody::Metadata(request), 12) else {
        panic!("no Metadata over TLS")
    };
    let advertised: Vec<(String, i32)> = metadata.brokers.iter().map(|b| (b.host.clone(), b.port)).collect();
    assert_eq!(advertised, [("127.0.0.1".to_owned(), i32::from(address.port()))]);

    // Enough records that the Fetch's region is several of the copy path's chunks.
    create_topic(&mut client, "secure", 1);
    let values: Vec<String> = (0..3000).map(|i| format!("record-{i:05}-{}", "x".repeat(60))).collect();
    let refs: Vec<&str> = values.iter().map(String::as_str).collect();
    assert_eq!(produce(&mut client, "secure", -1, batch(&refs)), (0, 0));
    assert_eq!(fetch_all(&mut client, "secure"), values);

    let mut plain = Client::connect(address);
    assert!(api_versions(&mut plain).is_err(), "a plaintext request on the TLS port is not answered");
    let stranger = Pki::new("another-ca");
    let mut untrusting = tls_client(address, stranger.ca(), None);
    let refused = api_versions(&mut untrusting).err().unwrap_or_default();
    assert!(refused.contains("certificate"), "a client not trusting the CA fails its handshake: {refused}");
    assert!(logged(&server, "TLS handshake failed"), "the refused handshake is logged");
}

/// A PKCS12 key store with `ssl.client.auth=required`: a client without a certificate is
/// refused, one with a certificate the CA signed is served.
#[test]
fn required_client_auth_with_pkcs12_stores() {
    use p12_keystore::{KeyStore, KeyStoreEntry, PrivateKey, PrivateKeyChain};
    let _serial = common::serial();
    let dir = tempfile::tempdir().expect("dir");
    let pki = Pki::new("strand-test-ca");
    let node = pki.issue(("node", "brokers", "acme"));
    let client_identity = pki.issue(("client", "eng", "acme"));
    std::fs::write(dir.path().join("ca.pem"), pem("CERTIFICATE", &pki.ca())).expect("ca");
    let certificates: Vec<p12_keystore::Certificate> =
        node.chain.iter().map(|c| p12_keystore::Certificate::from_der(c).expect("certificate")).collect();
    let chain = PrivateKeyChain::new(vec![1u8; 20], PrivateKey::from_der(&node.key).expect("key"), certificates);
    let mut store = KeyStore::new();
    store.add_entry("node", KeyStoreEntry::PrivateKeyChain(chain));
    std::fs::write(dir.path().join("node.p12"), store.writer("changeit").write().expect("pkcs12")).expect("write");
    let settings = [
        "ssl.keystore.type=PKCS12".to_owned(),
        format!("ssl.keystore.location={}", dir.path().join("node.p12").display()),
        "ssl.keystore.password=changeit".to_owned(),
        "ssl.client.auth=required".to_owned(),
        "ssl.principal.mapping.rules=RULE:^CN=([^,]*),.*$/$1/L,DEFAULT".to_owned(),
    ];
    let (_server, address) = start_ssl(dir.path(), &settings);

    let mut anonymous = tls_client(address, pki.ca(), None);
    assert!(api_versions(&mut anonymous).is_err(), "no client certificate, no service");
    let mut authenticated = tls_client(address, pki.ca(), Some(&client_identity));
    assert_eq!(api_versions(&mut authenticated), Ok(0));
}

/// A cluster whose every link is TLS: the CONTROLLER listener with `ssl.client.auth=required` and
/// `super.users` naming the nodes' certificate, the broker listener (the inter-broker one) SSL
/// too. The quorum forms, a replicated acks=all produce succeeds (followers fetch over TLS), and
/// a client certificate not in `super.users` is refused on the CONTROLLER listener.
#[test]
fn a_cluster_links_over_tls() {
    use common::cluster::{Cluster, partitions};
    use strand_protocol::messages::MetadataResponse;
    let _serial = common::serial();
    let dir = tempfile::tempdir().expect("dir");
    let pki = Pki::new("strand-test-ca");
    let node = pki.issue(("node", "brokers", "acme"));
    let stranger = pki.issue(("client", "eng", "acme"));
    std::fs::write(dir.path().join("ca.pem"), pem("CERTIFICATE", &pki.ca())).expect("ca");
    std::fs::write(dir.path().join("node.pem"), node.pem()).expect("node");
    let extra = [
        "listener.security.protocol.map=PLAINTEXT:SSL,CONTROLLER:SSL".to_owned(),
        "ssl.keystore.type=PEM".to_owned(),
        format!("ssl.keystore.location={}", dir.path().join("node.pem").display()),
        "ssl.truststore.type=PEM".to_owned(),
        format!("ssl.truststore.location={}", dir.path().join("ca.pem").display()),
        "listener.name.controller.ssl.client.auth=required".to_owned(),
        "super.users=User:CN=node,OU=brokers,O=acme".to_owned(),
    ];
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let cluster = Cluster::start_configured(3, 3, &extra);
    let connect = |id: i32| tls_client(cluster.node(id).address, pki.ca(), None);

    let mut client = connect(1);
    common::create_replicated_topic(&mut client, "replicated", 1, 3);
    let metadata = |client: &mut Client| -> MetadataResponse {
        let request = MetadataRequest { topics: None, ..Default::default() };
        match client.try_call(RequestBody::Metadata(request), 12) {
            Ok(ResponseBody::Metadata(response)) => response,
            other => panic!("no Metadata over TLS: {other:?}"),
        }
    };
    // Every node must know the leader and the full ISR before the leader takes the produce.
    let mut leader = -1;
    for id in 1..=3 {
        let mut asking = connect(id);
        for _ in 0..300 {
            let found = partitions(&metadata(&mut asking), "replicated");
            if let Some((_, id, _, _)) = found.first().filter(|(_, id, _, isr)| *id > 0 && isr.len() == 3) {
                leader = *id;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
    assert!(leader > 0, "the partition got a leader and a full ISR");
    let mut to_leader = connect(leader);
    assert_eq!(produce(&mut to_leader, "replicated", -1, batch(&["a", "b", "c"])), (0, 0), "acks=all over TLS");
    assert_eq!(fetch_all(&mut to_leader, "replicated"), ["a", "b", "c"]);

    let controller = SocketAddr::from(([127, 0, 0, 1], cluster.controller_port(1)));
    let mut outsider = tls_client(controller, pki.ca(), Some(&stranger));
    // Kafka's APIs on the CONTROLLER listener answer any authenticated principal (KIP-919);
    // Strand's own frames only super users.
    assert_eq!(api_versions(&mut outsider), Ok(0), "ApiVersions is answered, as Kafka's controllers do");
    let _ = outsider.stream.write_all(&common::cluster::heartbeat_frame(1, "outsider"));
    let _ = outsider.stream.flush();
    assert!(outsider.is_closed_by_server(), "a principal outside super.users is closed on a Strand frame");
    let refused = "User:CN=client,OU=eng,O=acme may not CLUSTER_ACTION on the cluster";
    assert!(logged(cluster.node(1), refused), "the refusal is logged");
}

/// With a PLAINTEXT and an SSL broker listener, Metadata and FindCoordinator answer with the
/// endpoints of the listener the request came on, as Kafka does (they answered with the first
/// listener's, sending an SSL client to the plaintext port).
#[test]
fn each_listener_advertises_itself() {
    use strand_protocol::messages::FindCoordinatorRequest;
    let _serial = common::serial();
    let dir = tempfile::tempdir().expect("dir");
    let pki = Pki::new("strand-test-ca");
    std::fs::write(dir.path().join("ca.pem"), pem("CERTIFICATE", &pki.ca())).expect("ca");
    std::fs::write(dir.path().join("node.pem"), pki.issue(("node", "brokers", "acme")).pem()).expect("node");
    let data = tempfile::tempdir().expect("data");
    let overrides = [
        "listeners=PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0".to_owned(),
        "advertised.listeners=PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0".to_owned(),
        "ssl.keystore.type=PEM".to_owned(),
        format!("ssl.keystore.location={}", dir.path().join("node.pem").display()),
    ];
    let overrides: Vec<&str> = overrides.iter().map(String::as_str).collect();
    let (server, ssl) = Server::spawn_with(data, &overrides).ready_on("SSL");
    let log = server.log.lock().map(|l| l.join("\n")).unwrap_or_default();
    let plain: SocketAddr = log
        .split(" on PLAINTEXT://")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .and_then(|address| address.trim().parse().ok())
        .expect("the PLAINTEXT listener's address");
    for (mut client, address) in [(Client::connect(plain), plain), (tls_client(ssl, pki.ca(), None), ssl)] {
        let request = MetadataRequest { topics: None, ..Default::default() };
        let Ok(ResponseBody::Metadata(metadata)) = client.try_call(RequestBody::Metadata(request), 12) else {
            panic!("no Metadata")
        };
        let ports: Vec<i32> = metadata.brokers.iter().map(|b| b.port).collect();
        assert_eq!(ports, [i32::from(address.port())], "Metadata on {address}");
        let request = FindCoordinatorRequest { key_type: 0, coordinator_keys: vec!["g".into()], ..Default::default() };
        let Ok(ResponseBody::FindCoordinator(found)) = client.try_call(RequestBody::FindCoordinator(request), 4) else {
            panic!("no FindCoordinator")
        };
        assert_eq!(found.coordinators[0].port, i32::from(address.port()), "FindCoordinator on {address}");
    }
}

/// The certificate `address` serves to a client trusting `ca`.
fn served_certificate(address: SocketAddr, ca: CertificateDer<'static>) -> CertificateDer<'static> {
    let (mut connection, mut socket) = tls_connection(address, ca, None);
    while connection.is_handshaking() {
        connection.complete_io(&mut socket).expect("handshake");
    }
    connection.peer_certificates().and_then(|c| c.first()).expect("a certificate").clone().into_owned()
}

/// IncrementalAlterConfigs SET of one broker key; the resource's error code and message.
fn set_broker_config(client: &mut Client, broker: &str, key: &str, value: &str) -> (i16, String) {
    use strand_protocol::messages::IncrementalAlterConfigsRequest;
    use strand_protocol::messages::incremental_alter_configs_request::{AlterConfigsResource, AlterableConfig};
    let config = AlterableConfig {
        name: key.to_owned(),
        config_operation: 0,
        value: Some(value.to_owned()),
        ..Default::default()
    };
    let resource = AlterConfigsResource {
        resource_type: 4,
        resource_name: broker.to_owned(),
        configs: vec![config],
        ..Default::default()
    };
    let request = IncrementalAlterConfigsRequest { resources: vec![resource], ..Default::default() };
    let ResponseBody::IncrementalAlterConfigs(response) = client.call(RequestBody::IncrementalAlterConfigs(request), 1)
    else {
        panic!("not an IncrementalAlterConfigs response")
    };
    let result = &response.responses[0];
    (result.error_code, result.error_message.clone().unwrap_or_default())
}

/// A listener's key store changed at run time, as Kafka's per-broker dynamic
/// `listener.name.ssl.ssl.keystore.location`: a renewed certificate (same names, new key) is
/// served by the next handshakes without a restart and described as a dynamic broker config; a
/// certificate with another subject, a store that does not load and a cluster-wide change are
/// refused with INVALID_REQUEST, and the renewed certificate stays.
#[test]
fn a_key_store_changes_through_alter_configs() {
    use strand_protocol::messages::DescribeConfigsRequest;
    use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
    let _serial = common::serial();
    let dir = tempfile::tempdir().expect("dir");
    let (pki, node, _server, address) = start_pem(dir.path());
    assert_eq!(served_certificate(address, pki.ca()), node.chain[0]);

    let mut client = tls_client(address, pki.ca(), None);
    let request = MetadataRequest { topics: None, ..Default::default() };
    let ResponseBody::Metadata(metadata) = client.call(RequestBody::Metadata(request), 12) else { panic!("metadata") };
    let id = metadata.brokers[0].node_id.0.to_string();
    let key = "listener.name.ssl.ssl.keystore.location";

    let renewed = pki.issue(("node", "brokers", "acme"));
    let renewed_path = dir.path().join("renewed.pem");
    std::fs::write(&renewed_path, renewed.pem()).expect("renewed");
    assert_eq!(set_broker_config(&mut client, &id, key, &renewed_path.display().to_string()), (0, String::new()));
    let served_renewed = (0..WAIT_MAX.as_millis() / 20).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(20));
        served_certificate(address, pki.ca()) == renewed.chain[0]
    });
    assert!(served_renewed, "the renewed certificate is served without a restart");

    let resource = DescribeConfigsResource {
        resource_type: 4,
        resource_name: id.clone(),
        configuration_keys: Some(vec![key.to_owned()]),
        ..Default::default()
    };
    let request = DescribeConfigsRequest { resources: vec![resource], ..Default::default() };
    let ResponseBody::DescribeConfigs(described) = client.call(RequestBody::DescribeConfigs(request), 4) else {
        panic!("not a DescribeConfigs response")
    };
    let entry = &described.results[0].configs[0];
    assert_eq!((entry.name.as_str(), entry.value.clone()), (key, Some(renewed_path.display().to_string())));
    // DYNAMIC_BROKER_CONFIG, a STRING.
    assert_eq!((entry.config_source, entry.read_only, entry.is_sensitive, entry.config_type), (2, false, false, 2));

    let other = pki.issue(("intruder", "brokers", "acme"));
    let other_path = dir.path().join("other.pem");
    std::fs::write(&other_path, other.pem()).expect("other");
    let (code, message) = set_broker_config(&mut client, &id, key, &other_path.display().to_string());
    assert_eq!(code, 42, "INVALID_REQUEST: {message}");
    assert!(message.contains("DistinguishedName does not match"), "{message}");
    let missing = dir.path().join("missing.pem").display().to_string();
    let (code, message) = set_broker_config(&mut client, &id, key, &missing);
    assert_eq!(code, 42, "INVALID_REQUEST: {message}");
    assert!(message.contains("missing.pem"), "{message}");
    let (code, message) = set_broker_config(&mut client, "", key, &renewed_path.display().to_string());
    assert_eq!(code, 42, "INVALID_REQUEST: {message}");
    assert!(message.contains("broker id must be specified"), "{message}");
    assert_eq!(served_certificate(address, pki.ca()), renewed.chain[0], "refused changes change nothing");
}
