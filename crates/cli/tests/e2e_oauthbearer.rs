//! OAUTHBEARER with KIP-768's validator on a real node: a SASL_PLAINTEXT listener whose
//! `sasl.server.callback.handler.class` is Kafka's `OAuthBearerValidatorCallbackHandler` checks
//! JWTs signed by keys made here against the JWK set at `sasl.oauthbearer.jwks.endpoint.url`,
//! logged in through the wire as Kafka's client does (`n,,\x01auth=Bearer <jwt>\x01\x01`).

mod common;

use std::net::SocketAddr;
use std::path::Path;

use bytes::Bytes;
use common::{Client, Server, WAIT_MAX};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::{
    MetadataRequest, SaslAuthenticateRequest, SaslAuthenticateResponse, SaslHandshakeRequest,
};

const HANDLER: &str = "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class=\
                       org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";
const JAAS_PREFIX: &str = "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config=\
                           org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule ";
const JAAS: &str = "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config=\
                    org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;";
const INVALID: &str = r#"{"status":"invalid_token"}"#;

/// A signing key made now, and its public JWK named `kid`.
fn key(kid: &str) -> (EncodingKey, Jwk) {
    use p256::elliptic_curve::Generate;
    use p256::pkcs8::EncodePrivateKey;
    let der = p256::SecretKey::generate().to_pkcs8_der().expect("PKCS#8 DER");
    let encoding = EncodingKey::from_ec_der(der.as_bytes());
    let mut jwk = Jwk::from_encoding_key(&encoding, Algorithm::ES256).expect("public JWK");
    jwk.common.key_id = Some(kid.into());
    (encoding, jwk)
}

fn write_jwks(path: &Path, keys: &[&Jwk]) {
    let set = JwkSet { keys: keys.iter().map(|jwk| (*jwk).clone()).collect() };
    // Written whole then renamed: a refresh never reads half a file.
    let partial = path.with_extension("partial");
    std::fs::write(&partial, serde_json::to_vec(&set).expect("JSON")).expect("write JWKS");
    std::fs::rename(&partial, path).expect("rename JWKS");
}

#[allow(clippy::disallowed_methods)] // Tokens are signed for the node's wall clock.
fn now_s() -> i64 {
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).expect("after 1970");
    i64::try_from(since_epoch.as_secs()).expect("seconds")
}

fn claims(sub: &str, exp: i64, aud: &str) -> Value {
    json!({"sub": sub, "iat": now_s() - 5, "exp": exp, "aud": aud, "iss": "https://idp.test"})
}

fn token(key: &EncodingKey, kid: &str, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some(kid.into());
    jsonwebtoken::encode(&header, claims, key).expect("signed JWT")
}

/// A node whose SASL_PLAINTEXT listener validates with the JWK set at `url`.
fn start(url: &str, extra: &[&str]) -> (Server, SocketAddr) {
    let data = tempfile::tempdir().expect("temp dir");
    let url = format!("listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.jwks.endpoint.url={url}");
    let mut overrides = vec![
        "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "advertised.listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
        "inter.broker.listener.name=PLAINTEXT",
        "sasl.enabled.mechanisms=OAUTHBEARER",
        "connection.failed.authentication.delay.ms=0",
        "sasl.oauthbearer.expected.audience=kafka",
        "sasl.oauthbearer.expected.issuer=https://idp.test",
        HANDLER,
        JAAS,
        &url,
    ];
    overrides.extend_from_slice(extra);
    let server = Server::start_with(data, &overrides);
    let address = server.listener_address("SASL_PLAINTEXT");
    (server, address)
}

/// Kafka's client exchange: the initial response, then `\x01` after an error challenge.
fn login(address: SocketAddr, jwt: &str) -> (Client, SaslAuthenticateResponse) {
    let mut client = Client::connect(address);
    let request = SaslHandshakeRequest { mechanism: "OAUTHBEARER".into() };
    let ResponseBody::SaslHandshake(handshake) = client.call(RequestBody::SaslHandshake(request), 1) else {
        panic!("not a SaslHandshake response")
    };
    assert_eq!(handshake.error_code, 0);
    let first = authenticate(&mut client, format!("n,,\u{1}auth=Bearer {jwt}\u{1}\u{1}").into_bytes());
    if first.error_code != 0 || first.auth_bytes.is_empty() {
        return (client, first);
    }
    assert_eq!(first.auth_bytes.as_ref(), INVALID.as_bytes(), "the error challenge");
    let last = authenticate(&mut client, vec![0x01]);
    (client, last)
}

fn authenticate(client: &mut Client, token: Vec<u8>) -> SaslAuthenticateResponse {
    let request = SaslAuthenticateRequest { auth_bytes: Bytes::from(token), ..Default::default() };
    let ResponseBody::SaslAuthenticate(response) = client.call(RequestBody::SaslAuthenticate(request), 2) else {
        panic!("not a SaslAuthenticate response")
    };
    response
}

fn accepted(address: SocketAddr, jwt: &str) -> bool {
    let (mut client, response) = login(address, jwt);
    response.error_code == 0
        && matches!(client.call(RequestBody::Metadata(MetadataRequest::default()), 12), ResponseBody::Metadata(_))
}

fn refused(address: SocketAddr, jwt: &str) -> bool {
    let (mut client, response) = login(address, jwt);
    response.error_code == 58 && response.error_message.as_deref() == Some(INVALID) && client.is_closed_by_server()
}

/// Waits until the node's log holds `count` lines containing `needle`.
fn wait_for_lines(server: &Server, needle: &str, count: usize) {
    let pause = std::time::Duration::from_millis(20);
    for _ in 0..WAIT_MAX.as_millis() / pause.as_millis() {
        let found = server.log.lock().map(|lines| lines.iter().filter(|l| l.contains(needle)).count()).unwrap_or(0);
        if found >= count {
            return;
        }
        std::thread::park_timeout(pause);
    }
    panic!("fewer than {count} log lines with {needle}")
}

fn lines_with(server: &Server, needle: &str) -> usize {
    server.log.lock().map(|lines| lines.iter().filter(|l| l.contains(needle)).count()).unwrap_or(0)
}

/// Signed tokens from a `file:` JWK set: the right key authenticates; a wrong audience, an
/// expired token, an unknown key fail with SASL_AUTHENTICATION_FAILED; a key rotated into the
/// file is used once a token naming it has made the node refresh early, and the rotated-out
/// key's tokens are refused from then on.
#[test]
fn signed_tokens_are_checked_against_a_jwks_file() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().expect("temp dir");
    let jwks = dir.path().join("jwks.json");
    let (k1, k1_jwk) = key("k1");
    let (k2, k2_jwk) = key("k2");
    write_jwks(&jwks, &[&k1_jwk]);
    let url = format!("file:{}", jwks.display());
    let (server, address) = start(&url, &[]);

    let good = token(&k1, "k1", &claims("alice", now_s() + 600, "kafka"));
    assert!(accepted(address, &good), "a token signed by the set's key");
    let (_, done) = login(address, &good);
    assert!(done.session_lifetime_ms > 500_000, "the session lasts as long as the token");
    assert!(refused(address, &token(&k1, "k1", &claims("alice", now_s() + 600, "other"))), "wrong audience");
    assert!(refused(address, &token(&k1, "k1", &claims("alice", now_s() - 60, "kafka"))), "expired");
    assert!(refused(address, &token(&k2, "k1", &claims("alice", now_s() + 600, "kafka"))), "wrong key");

    // Rotation: k2 replaces k1 in the file. The first k2 token is refused (its key is unknown)
    // and refreshes the set early; once that refresh completes, k2 is in and k1 is out.
    let refreshes = lines_with(&server, "OAuth JWKS refresh of");
    write_jwks(&jwks, &[&k2_jwk]);
    let rotated = token(&k2, "k2", &claims("bob", now_s() + 600, "kafka"));
    assert!(refused(address, &rotated), "not yet refreshed");
    wait_for_lines(&server, "OAuth JWKS refresh of", refreshes + 1);
    assert!(accepted(address, &rotated), "the rotated-in key");
    assert!(refused(address, &good), "the rotated-out key");
}

/// The scheduled refresh (`jwks.endpoint.refresh.ms`) reloads the file without any token
/// asking, and a set that no longer parses keeps the last good one.
#[test]
fn the_set_is_refreshed_on_schedule_and_a_bad_fetch_keeps_the_last() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().expect("temp dir");
    let jwks = dir.path().join("jwks.json");
    let (k1, k1_jwk) = key("k1");
    let (k2, k2_jwk) = key("k2");
    write_jwks(&jwks, &[&k1_jwk]);
    let url = format!("file:{}", jwks.display());
    let extra = [
        "sasl.oauthbearer.jwks.endpoint.refresh.ms=200",
        "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms=10",
        "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms=50",
    ];
    let (server, address) = start(&url, &extra);
    let first = token(&k1, "k1", &claims("alice", now_s() + 600, "kafka"));
    assert!(accepted(address, &first));

    std::fs::write(&jwks, b"{not json").expect("write");
    let errors = lines_with(&server, "encountered an error; not updating local JWKS cache");
    wait_for_lines(&server, "encountered an error; not updating local JWKS cache", errors + 1);
    assert!(accepted(address, &first), "the last good set stays");

    // Two completed refreshes after the write: the second began after it.
    write_jwks(&jwks, &[&k1_jwk, &k2_jwk]);
    let complete = lines_with(&server, "complete (");
    wait_for_lines(&server, "complete (", complete + 2);
    assert!(accepted(address, &token(&k2, "k2", &claims("bob", now_s() + 600, "kafka"))));
}

/// A JWK set that cannot be loaded at start-up stops the node, as Kafka's handler fails to
/// initialise.
#[test]
fn a_jwks_that_does_not_load_stops_the_start() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!(
        "listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.jwks.endpoint.url=file:{}",
        dir.path().join("missing.json").display()
    );
    let overrides = [
        "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "advertised.listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
        "inter.broker.listener.name=PLAINTEXT",
        "sasl.enabled.mechanisms=OAUTHBEARER",
        HANDLER,
        JAAS,
        &url,
    ];
    let log = Server::spawn_with(tempfile::tempdir().expect("temp dir"), &overrides).fails();
    assert!(
        log.contains("SASL listener SASL_PLAINTEXT: the OAuth validator configuration encountered an error")
            && log.contains("missing.json"),
        "{log}"
    );
}

/// A JWKS endpoint served over HTTPS by the test, on 127.0.0.1, with a certificate of its own CA.
struct HttpsJwks {
    url: String,
    /// The CA's certificate, PEM, in a file.
    ca: tempfile::NamedTempFile,
    body: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
}

impl HttpsJwks {
    #[allow(clippy::disallowed_methods)] // The test serves the node's JWKS endpoint.
    fn serve(keys: &[&Jwk]) -> HttpsJwks {
        use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().expect("CA key")).expect("CA");
        let leaf_key = KeyPair::generate().expect("leaf key");
        let leaf = CertificateParams::new(vec!["127.0.0.1".to_owned()])
            .expect("leaf params")
            .signed_by(&leaf_key, &ca)
            .expect("leaf");
        let ca_file = tempfile::NamedTempFile::new().expect("temp file");
        std::fs::write(ca_file.path(), ca.as_ref().pem()).expect("write CA");

        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        let key = rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(vec![leaf.der().clone()], key)
            .expect("server TLS config");
        let config = std::sync::Arc::new(config);
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("https://127.0.0.1:{}/jwks", listener.local_addr().expect("address").port());
        let set = JwkSet { keys: keys.iter().map(|jwk| (*jwk).clone()).collect() };
        let body = std::sync::Arc::new(std::sync::Mutex::new(serde_json::to_vec(&set).expect("JSON")));
        let served = std::sync::Arc::clone(&body);
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let Ok(connection) = rustls::ServerConnection::new(std::sync::Arc::clone(&config)) else { return };
                let body = served.lock().map(|body| body.clone()).unwrap_or_default();
                // A failed handshake (an untrusting client) is that client's business.
                let _ = answer(rustls::StreamOwned::new(connection, stream), &body);
            }
        });
        HttpsJwks { url, ca: ca_file, body }
    }

    fn replace(&self, keys: &[&Jwk]) {
        let set = JwkSet { keys: keys.iter().map(|jwk| (*jwk).clone()).collect() };
        *self.body.lock().expect("lock") = serde_json::to_vec(&set).expect("JSON");
    }
}

/// Reads one request's head and answers it with `body`.
fn answer(mut stream: impl std::io::Read + std::io::Write, body: &[u8]) -> std::io::Result<()> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 16 * 1024 {
        stream.read_exact(&mut byte)?;
        head.push(byte[0]);
    }
    let status = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(status.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}

/// An `https` JWKS endpoint trusted through the JAAS options' PEM trust store: its keys
/// authenticate, a key rotated in is fetched early; without the trust store (Mozilla's roots
/// only) the endpoint's certificate is refused and the node does not start.
#[test]
fn signed_tokens_are_checked_against_an_https_jwks() {
    let _serial = common::serial();
    let (k1, k1_jwk) = key("k1");
    let (k2, k2_jwk) = key("k2");
    let endpoint = HttpsJwks::serve(&[&k1_jwk]);
    let trusting = format!(
        "{JAAS_PREFIX}required ssl.truststore.location=\"{}\" ssl.truststore.type=\"PEM\";",
        endpoint.ca.path().display()
    );
    let (server, address) = start(&endpoint.url, &[&trusting]);
    assert!(accepted(address, &token(&k1, "k1", &claims("alice", now_s() + 600, "kafka"))));
    assert!(refused(address, &token(&k1, "k1", &claims("alice", now_s() + 600, "other"))), "wrong audience");

    let refreshes = lines_with(&server, "OAuth JWKS refresh of");
    endpoint.replace(&[&k2_jwk]);
    let rotated = token(&k2, "k2", &claims("bob", now_s() + 600, "kafka"));
    assert!(refused(address, &rotated), "not yet refreshed");
    wait_for_lines(&server, "OAuth JWKS refresh of", refreshes + 1);
    assert!(accepted(address, &rotated), "the rotated-in key");
    drop(server);

    let url = format!("listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.jwks.endpoint.url={}", endpoint.url);
    let overrides = [
        "listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "advertised.listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
        "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
        "inter.broker.listener.name=PLAINTEXT",
        "sasl.enabled.mechanisms=OAUTHBEARER",
        HANDLER,
        JAAS,
        &url,
    ];
    let log = Server::spawn_with(tempfile::tempdir().expect("temp dir"), &overrides).fails();
    assert!(
        log.contains("the OAuth validator configuration encountered an error") && log.contains("certificate"),
        "{log}"
    );
}

/// The status of `GET path` on the HTTP listener `address` with `Authorization: Bearer jwt`.
#[allow(clippy::disallowed_methods)] // The test's own HTTP client.
fn http_status(address: SocketAddr, path: &str, jwt: &str) -> u16 {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address).expect("connect to the HTTP listener");
    stream.set_read_timeout(Some(WAIT_MAX)).expect("timeout");
    let head =
        format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {jwt}\r\nConnection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read the response");
    response.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("no status: {response}"))
}

/// HTTP's `Authorization: Bearer` is checked as the SASL listener checks OAUTHBEARER tokens,
/// against the same JWK set: a signed token is served, a wrong audience or an unknown key is 401.
#[test]
fn bearer_tokens_on_http_are_checked_against_the_listeners_jwks() {
    let _serial = common::serial();
    let dir = tempfile::tempdir().expect("temp dir");
    let jwks = dir.path().join("jwks.json");
    let (k1, k1_jwk) = key("k1");
    let (stranger, _) = key("k9");
    write_jwks(&jwks, &[&k1_jwk]);
    let url = format!("file:{}", jwks.display());
    let (server, _) = start(&url, &["http.listeners=http://127.0.0.1:0", "http.anonymous.allowed=false"]);
    let line = |l: &String| l.split("metrics at http://").nth(1)?.split('/').next().map(str::to_owned);
    let pause = std::time::Duration::from_millis(20);
    let mut found = None;
    for _ in 0..WAIT_MAX.as_millis() / pause.as_millis() {
        found = server.log.lock().expect("log").iter().find_map(line);
        if found.is_some() {
            break;
        }
        std::thread::park_timeout(pause);
    }
    let http: SocketAddr = found.expect("an HTTP address in the log").parse().expect("an address");

    let good = token(&k1, "k1", &claims("alice", now_s() + 600, "kafka"));
    assert_eq!(http_status(http, "/v3/clusters", &good), 200);
    assert_eq!(http_status(http, "/v3/clusters", &token(&k1, "k1", &claims("alice", now_s() + 600, "other"))), 401);
    assert_eq!(
        http_status(http, "/v3/clusters", &token(&stranger, "k9", &claims("alice", now_s() + 600, "kafka"))),
        401
    );
}
