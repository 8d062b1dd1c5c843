use std::collections::BTreeSet;

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};

use strand_security::SslPrincipalMapper;

use super::*;
use crate::config::tls::{Keystore, PemSource, Truststore};

struct Ca(CertifiedIssuer<'static, KeyPair>);

impl Ca {
    fn new() -> Ca {
        let mut params = CertificateParams::default();
        params.distinguished_name.push(DnType::CommonName, "test-ca");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        Ca(CertifiedIssuer::self_signed(params, KeyPair::generate().expect("key")).expect("ca"))
    }

    /// A PEM key store for `CN=<cn>,O=acme`, valid for localhost.
    fn keystore(&self, cn: &str) -> Keystore {
        let mut params = CertificateParams::new(vec!["localhost".to_owned()]).expect("names");
        // Encoded O first, so Java's name (the last RDN first) is `CN=<cn>,O=acme`.
        params.distinguished_name = rcgen::DistinguishedName::new();
        params.distinguished_name.push(DnType::OrganizationName, "acme");
        params.distinguished_name.push(DnType::CommonName, cn);
        let key = KeyPair::generate().expect("key");
        let certificate = params.signed_by(&key, &self.0).expect("signed");
        let source = PemSource::Inline { certificates: certificate.pem(), key: key.serialize_pem() };
        Keystore::Pem { source, key_password: None }
    }

    fn truststore(&self) -> Truststore {
        Truststore::Pem(PemSource::Inline { certificates: self.0.pem(), key: String::new() })
    }
}

fn settings(keystore: Option<Keystore>, truststore: Truststore, client_auth: ClientAuth, rules: &str) -> TlsSettings {
    TlsSettings {
        listener: "SSL".into(),
        keystore,
        truststore: Some(truststore),
        client_auth,
        protocols: BTreeSet::from([TlsProtocol::V1_2, TlsProtocol::V1_3]),
        cipher_suites: Vec::new(),
        endpoint_identification: true,
        principal_mapper: SslPrincipalMapper::parse(rules).expect("rules"),
    }
}

/// Connects `client` to `server` over loopback: the server's session, or why it refused.
#[allow(clippy::disallowed_methods)] // A test's own loopback listener.
async fn handshake(server: &ListenerTls, client: &ListenerTls) -> Result<Session, String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let connecting = TcpStream::connect(listener.local_addr().expect("address"));
    let (connected, accepted) = tokio::join!(connecting, listener.accept());
    let (stream, peer) = accepted.expect("accept");
    let timeout = Duration::from_secs(5);
    let (served, dialled) = tokio::join!(
        server.accept(stream, peer, timeout),
        client.connect(connected.expect("connect"), "localhost", timeout)
    );
    let _client = dialled;
    served.map(|(_, session)| session)
}

/// The client certificate's subject, mapped by the listener's rules, is the session's
/// principal; no certificate is `User:ANONYMOUS`; a subject no rule applies to is refused.
#[tokio::test]
async fn the_principal_is_the_mapped_certificate_subject() {
    let ca = Ca::new();
    let rules = "RULE:^CN=([^,]*),O=acme$/$1/L";
    let server =
        ListenerTls::build(&settings(Some(ca.keystore("node")), ca.truststore(), ClientAuth::Requested, rules))
            .expect("server");
    let alice = ListenerTls::build(&settings(Some(ca.keystore("Alice")), ca.truststore(), ClientAuth::None, "DEFAULT"))
        .expect("alice");
    let session = handshake(&server, &alice).await.expect("served");
    assert_eq!(session.principal, KafkaPrincipal::user("alice"));
    assert_eq!(session.protocol, SecurityProtocol::Ssl);

    let nobody = ListenerTls::build(&settings(None, ca.truststore(), ClientAuth::None, "DEFAULT")).expect("nobody");
    assert_eq!(handshake(&server, &nobody).await.map(|s| s.principal), Ok(KafkaPrincipal::anonymous()));

    let strict =
        ListenerTls::build(&settings(Some(ca.keystore("node")), ca.truststore(), ClientAuth::Required, "DEFAULT"))
            .expect("strict");
    assert_eq!(handshake(&strict, &alice).await.map(|s| s.principal.name), Ok("CN=Alice,O=acme".to_owned()));
    assert!(handshake(&strict, &nobody).await.is_err(), "required client auth refuses no certificate");

    let unmapped = ListenerTls::build(&settings(
        Some(ca.keystore("node")),
        ca.truststore(),
        ClientAuth::Required,
        "RULE:^CN=x$/x/",
    ))
    .expect("unmapped");
    let refused = handshake(&unmapped, &alice).await.err().unwrap_or_default();
    assert!(refused.contains("No rules apply to CN=Alice,O=acme"), "{refused}");
}

/// Host name verification: a certificate for localhost does not pass for another name unless
/// `ssl.endpoint.identification.algorithm` is empty.
#[tokio::test]
#[allow(clippy::disallowed_methods)] // A test's own loopback listener.
async fn host_names_are_verified_unless_disabled() {
    let ca = Ca::new();
    let server = ListenerTls::build(&settings(Some(ca.keystore("node")), ca.truststore(), ClientAuth::None, "DEFAULT"))
        .expect("server");
    for (verify, expected_ok) in [(true, false), (false, true)] {
        let client = ListenerTls::build(&TlsSettings {
            endpoint_identification: verify,
            ..settings(None, ca.truststore(), ClientAuth::None, "DEFAULT")
        })
        .expect("client");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let connecting = TcpStream::connect(listener.local_addr().expect("address"));
        let (connected, accepted) = tokio::join!(connecting, listener.accept());
        let (stream, peer) = accepted.expect("accept");
        let timeout = Duration::from_secs(5);
        let (_, dialled) = tokio::join!(
            server.accept(stream, peer, timeout),
            client.connect(connected.expect("connect"), "strand.example", timeout)
        );
        assert_eq!(dialled.is_ok(), expected_ok, "verify={verify}: {:?}", dialled.err());
    }
}

/// The subject the server showed `client`.
#[allow(clippy::disallowed_methods)] // A test's own loopback listener.
async fn server_subject(server: &ListenerTls, client: &ListenerTls) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let connecting = TcpStream::connect(listener.local_addr().expect("address"));
    let (connected, accepted) = tokio::join!(connecting, listener.accept());
    let (stream, peer) = accepted.expect("accept");
    let timeout = Duration::from_secs(5);
    let (_, dialled) = tokio::join!(
        server.accept(stream, peer, timeout),
        client.connect(connected.expect("connect"), "localhost", timeout)
    );
    let dialled = dialled.expect("handshake");
    let certificate = dialled.get_ref().1.peer_certificates().and_then(|c| c.first()).expect("a certificate");
    strand_security::x500::subject_name(certificate).expect("subject")
}

/// A changed key store file is picked up by the next reload and shown by later handshakes; one
/// that no longer loads keeps the previous certificate, reported once.
#[tokio::test]
async fn a_changed_key_store_file_is_reloaded() {
    let ca = Ca::new();
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("node.pem");
    let write = |cn: &str| {
        let Keystore::Pem { source: PemSource::Inline { certificates, key }, .. } = ca.keystore(cn) else {
            unreachable!()
        };
        std::fs::write(&path, key + &certificates).expect("write");
    };
    write("a");
    let keystore = Keystore::Pem { source: PemSource::File(path.clone()), key_password: None };
    let server =
        ListenerTls::build(&settings(Some(keystore), ca.truststore(), ClientAuth::None, "DEFAULT")).expect("server");
    let client = ListenerTls::build(&settings(None, ca.truststore(), ClientAuth::None, "DEFAULT")).expect("client");
    assert_eq!(server.reload_if_changed().await, Ok(false));
    assert_eq!(server_subject(&server, &client).await, "CN=a,O=acme");
    write("b");
    assert_eq!(server.reload_if_changed().await, Ok(true));
    assert_eq!(server_subject(&server, &client).await, "CN=b,O=acme");
    std::fs::write(&path, "not a certificate").expect("write");
    assert!(server.reload_if_changed().await.is_err(), "a broken store is reported");
    assert_eq!(server.reload_if_changed().await, Ok(false), "once");
    assert_eq!(server_subject(&server, &client).await, "CN=b,O=acme", "the previous certificate is kept");
}

/// A PKCS#8 key encrypted as `openssl pkcs8 -topk8 -v2 aes-256-cbc` writes it (PBES2,
/// PBKDF2-HMAC-SHA256) is read with `ssl.key.password`; a wrong or missing password, or a password
/// for a key that is not encrypted, is refused naming the setting, as Kafka's `PemStore` refuses.
#[tokio::test]
async fn an_encrypted_pem_key_is_read_with_the_key_password() {
    use pkcs8::der::pem::LineEnding;
    use rustls_pki_types::pem::PemObject;
    let ca = Ca::new();
    let Keystore::Pem { source: PemSource::Inline { certificates, key }, .. } = ca.keystore("node") else {
        unreachable!()
    };
    let der = rustls_pki_types::PrivateKeyDer::from_pem_slice(key.as_bytes()).expect("key");
    let info = pkcs8::PrivateKeyInfoRef::try_from(der.secret_der()).expect("PKCS#8");
    let params = pkcs8::pkcs5::pbes2::Parameters::generate_pbkdf2_sha256_aes256cbc(2048, b"saltsaltsaltsalt", [7; 16])
        .expect("parameters");
    let encrypted = info.encrypt_with_params(params, "s3cret").expect("encrypt");
    let encrypted = encrypted.to_pem("ENCRYPTED PRIVATE KEY", LineEnding::LF).expect("PEM").to_string();
    let keystore = |key: &str, key_password: Option<&str>| {
        let source = PemSource::Inline { certificates: certificates.clone(), key: key.to_owned() };
        Some(Keystore::Pem { source, key_password: key_password.map(str::to_owned) })
    };
    let build = |key: &str, password: Option<&str>| {
        ListenerTls::build(&settings(keystore(key, password), ca.truststore(), ClientAuth::None, "DEFAULT"))
    };

    let server = build(&encrypted, Some("s3cret")).expect("decrypted with ssl.key.password");
    let client = ListenerTls::build(&settings(None, ca.truststore(), ClientAuth::None, "DEFAULT")).expect("client");
    assert_eq!(server_subject(&server, &client).await, "CN=node,O=acme");

    let wrong = build(&encrypted, Some("guess")).err().unwrap_or_default();
    assert!(wrong.contains("cannot be decrypted with ssl.key.password"), "{wrong}");
    let missing = build(&encrypted, None).err().unwrap_or_default();
    assert!(missing.contains("encrypted and ssl.key.password is not set"), "{missing}");
    let plain = build(&key, Some("s3cret")).err().unwrap_or_default();
    assert!(plain.contains("ssl.key.password is set but the key is not an encrypted"), "{plain}");

    // A key file that asks for an unbounded derivation is refused before any of it is done: the
    // cheap key's header is rewritten to ask for one iteration more than the bound.
    use pkcs8::der::Encode;
    let cheap = pkcs8::pkcs5::pbes2::Parameters::generate_pbkdf2_sha256_aes256cbc(1, b"saltsaltsaltsalt", [7; 16])
        .expect("parameters");
    let encrypted = info.encrypt_with_params(cheap.clone(), "s3cret").expect("encrypt");
    let parsed = pkcs8::EncryptedPrivateKeyInfoRef::try_from(encrypted.as_bytes()).expect("parsed");
    let mut costly = cheap;
    let pkcs8::pkcs5::pbes2::Kdf::Pbkdf2(pbkdf2) = &mut costly.kdf else { unreachable!() };
    pbkdf2.iteration_count = super::stores::PBKDF2_ITERATIONS_MAX + 1;
    let forged = pkcs8::EncryptedPrivateKeyInfoRef {
        encryption_algorithm: pkcs8::pkcs5::EncryptionScheme::Pbes2(costly),
        encrypted_data: parsed.encrypted_data,
    };
    let der = forged.to_der().expect("DER");
    let pem = pkcs8::der::pem::encode_string("ENCRYPTED PRIVATE KEY", LineEnding::LF, &der).expect("PEM");
    let refused = build(&pem, Some("s3cret")).err().unwrap_or_default();
    assert!(refused.contains("PBKDF2 iterations"), "{refused}");
}
