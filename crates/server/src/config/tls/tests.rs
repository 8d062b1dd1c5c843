use super::*;

/// A one-node configuration with the embedded defaults, an SSL listener beside the PLAINTEXT
/// one, and `overrides`.
fn load(overrides: &[(&str, &str)]) -> Result<ServerConfig, ConfigError> {
    let mut all = vec![
        ("listeners".to_owned(), "PLAINTEXT://localhost:9092,SSL://localhost:9093".to_owned()),
        ("ssl.keystore.type".to_owned(), "PEM".to_owned()),
        ("ssl.keystore.location".to_owned(), "/etc/strand/node.pem".to_owned()),
    ];
    all.extend(overrides.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    ServerConfig::from_properties(None, &all)
}

fn ssl(config: &ServerConfig) -> &TlsSettings {
    config.tls.get("SSL").expect("the SSL listener's settings")
}

fn refused(overrides: &[(&str, &str)], key: &str, expected: &str) {
    let error = load(overrides).err();
    let text = error.as_ref().map(ToString::to_string).unwrap_or_default();
    assert_eq!(error.as_ref().and_then(ConfigError::key), Some(key), "{overrides:?}: {text}");
    assert!(text.contains(expected), "{overrides:?}: {text}");
}

/// Kafka's defaults give TLSv1.2 and 1.3, every suite, no client authentication, host name
/// verification and the DEFAULT mapping; a PLAINTEXT listener gets no TLS settings.
#[test]
fn defaults_follow_kafka() {
    let config = load(&[]).expect("loads");
    let settings = ssl(&config);
    assert_eq!(
        settings.keystore,
        Some(Keystore::Pem { source: PemSource::File("/etc/strand/node.pem".into()), key_password: None })
    );
    assert_eq!(settings.truststore, None);
    assert_eq!(settings.client_auth, ClientAuth::None);
    assert_eq!(settings.protocols, BTreeSet::from([TlsProtocol::V1_2, TlsProtocol::V1_3]));
    assert!(settings.cipher_suites.is_empty());
    assert!(settings.endpoint_identification);
    assert_eq!(settings.principal_mapper.name("CN=a,O=b").as_deref(), Ok("CN=a,O=b"));
    assert!(!config.tls.contains_key("PLAINTEXT"));
    assert!(config.warnings.iter().all(|w| !w.contains("ssl.")), "{:?}", config.warnings);
}

/// `listener.name.<lower-case name>.ssl.*` overrides the top-level key for its listener only.
#[test]
fn listener_keys_override_top_level_ones() {
    let config = load(&[
        ("listeners", "PLAINTEXT://localhost:9092,SSL://localhost:9093,EXTERNAL://localhost:9094"),
        ("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:SSL,EXTERNAL:SSL,CONTROLLER:PLAINTEXT"),
        ("ssl.client.auth", "requested"),
        ("ssl.truststore.type", "PKCS12"),
        ("ssl.truststore.location", "/t.p12"),
        ("ssl.truststore.password", "secret"),
        ("listener.name.external.ssl.client.auth", "REQUIRED"),
        ("listener.name.external.ssl.keystore.type", "PKCS12"),
        ("listener.name.external.ssl.keystore.location", "/k.p12"),
        ("listener.name.external.ssl.keystore.password", "pw"),
        ("listener.name.external.ssl.principal.mapping.rules", "RULE:^CN=([^,]*).*$/$1/L"),
        ("listener.name.external.ssl.endpoint.identification.algorithm", ""),
    ])
    .expect("loads");
    let external = config.tls.get("EXTERNAL").expect("external");
    assert_eq!(external.client_auth, ClientAuth::Required);
    assert_eq!(external.keystore, Some(Keystore::Pkcs12 { path: "/k.p12".into(), password: "pw".into() }));
    assert_eq!(external.truststore, Some(Truststore::Pkcs12 { path: "/t.p12".into(), password: "secret".into() }));
    assert_eq!(external.principal_mapper.name("CN=Bob,O=x").as_deref(), Ok("bob"));
    assert!(!external.endpoint_identification);
    let plain_ssl = ssl(&config);
    assert_eq!(plain_ssl.client_auth, ClientAuth::Requested);
    assert!(plain_ssl.endpoint_identification);
    assert!(config.get("listener.name.external.ssl.keystore.password").is_some_and(|e| e.sensitive));
}

/// Inline PEM stores, and the protocol and suite lists.
#[test]
fn inline_pem_protocols_and_suites_are_read() {
    let config = load(&[
        ("ssl.keystore.location", ""),
        ("ssl.keystore.certificate.chain", "-----BEGIN CERTIFICATE-----"),
        ("ssl.keystore.key", "-----BEGIN PRIVATE KEY-----"),
        ("ssl.truststore.type", "PEM"),
        ("ssl.truststore.certificates", "-----BEGIN CERTIFICATE-----"),
        ("ssl.enabled.protocols", "TLSv1.3"),
        ("ssl.protocol", "TLSv1.3"),
        ("ssl.cipher.suites", "TLS_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"),
        ("ssl.keymanager.algorithm", "SunX509"),
        ("ssl.engine.factory.class", ""),
    ])
    .expect("loads");
    let settings = ssl(&config);
    let inline = |certificates: &str, key: &str| PemSource::Inline {
        certificates: certificates.to_owned(),
        key: key.to_owned(),
    };
    assert_eq!(
        settings.keystore,
        Some(Keystore::Pem {
            source: inline("-----BEGIN CERTIFICATE-----", "-----BEGIN PRIVATE KEY-----"),
            key_password: None
        })
    );
    assert_eq!(settings.truststore, Some(Truststore::Pem(inline("-----BEGIN CERTIFICATE-----", ""))));
    assert_eq!(settings.protocols, BTreeSet::from([TlsProtocol::V1_3]));
    assert_eq!(settings.cipher_suites, ["TLS_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"]);
    assert!(config.get("ssl.keystore.key").is_some_and(|e| e.sensitive));
}

/// What Strand cannot honour is refused, naming the key.
#[test]
fn what_strand_cannot_honour_is_refused() {
    refused(&[("ssl.keystore.type", "JKS")], "ssl.keystore.type", "keytool -importkeystore");
    refused(&[("ssl.keystore.type", "")], "ssl.keystore.type", "-deststoretype PKCS12");
    refused(&[("ssl.truststore.location", "/t.jks")], "ssl.truststore.type", "keytool -importkeystore");
    refused(&[("ssl.keystore.type", "BKS")], "ssl.keystore.type", "PKCS12 and PEM");
    refused(&[("ssl.enabled.protocols", "TLSv1.2,TLSv1.1")], "ssl.enabled.protocols", "TLSv1.1 is not supported");
    refused(&[("ssl.protocol", "SSLv3")], "ssl.protocol", "TLSv1.2 and TLSv1.3 only");
    refused(&[("ssl.cipher.suites", "TLS_RSA_WITH_RC4_128_MD5")], "ssl.cipher.suites", "not a cipher suite");
    refused(&[("ssl.client.auth", "maybe")], "ssl.client.auth", "required, requested, none");
    refused(&[("ssl.endpoint.identification.algorithm", "ldaps")], "ssl.endpoint.identification.algorithm", "https");
    refused(&[("ssl.principal.mapping.rules", "RULE:abc")], "ssl.principal.mapping.rules", "Invalid rule");
    refused(&[("ssl.engine.factory.class", "com.example.Factory")], "ssl.engine.factory.class", "Kafka's default");
    refused(&[("ssl.keymanager.algorithm", "PKIX")], "ssl.keymanager.algorithm", "Kafka's default");
    refused(&[("listener.name.ssl.ssl.provider", "BC")], "listener.name.ssl.ssl.provider", "Kafka's default");
    refused(&[("ssl.keystore.alias", "x")], "ssl.keystore.alias", "not supported by Strand");
    refused(&[("ssl.keystore.password", "x")], "ssl.keystore.password", "cannot be specified with PEM");
    refused(&[("ssl.keystore.location", "")], "listener.name.ssl.ssl.*", "has no key store");
    refused(&[("ssl.client.auth", "required")], "listener.name.ssl.ssl.*", "no trust store");
}

/// A node dialling an SSL controller listener needs a trust store even if it serves no TLS.
#[test]
fn a_dialled_ssl_listener_needs_a_trust_store() {
    let overrides = [
        ("process.roles", "broker"),
        ("node.id", "2"),
        ("listeners", "PLAINTEXT://localhost:9092"),
        ("controller.listener.names", "CONTROLLER"),
        ("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:SSL"),
        ("controller.quorum.bootstrap.servers", "localhost:9093"),
    ];
    let with = |extra: &[(&str, &str)]| {
        let all: Vec<(String, String)> =
            overrides.iter().chain(extra).map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        ServerConfig::from_properties(Some(&[]), &all)
    };
    let error = with(&[]).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(error.contains("no trust store"), "{error}");
    let config = with(&[("ssl.truststore.type", "PEM"), ("ssl.truststore.location", "/ca.pem")]).expect("loads");
    let controller = config.tls.get("CONTROLLER").expect("dialled with TLS");
    assert_eq!(controller.keystore, None);
}
