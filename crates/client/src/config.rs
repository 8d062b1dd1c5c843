//! Kafka's client properties, as a `--command-config` file or `-X` flags give them: the keys the
//! client acts on are read and checked here, once; a key it cannot honour (GSSAPI, JKS stores,
//! OAUTHBEARER) is refused naming it, never ignored. Other keys (`client.id` aside) are accepted
//! and unused, as Kafka's clients warn about unknown keys and go on.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use strand_security::sasl::jaas::{self, JaasEntry};
use strand_security::sasl::{Mechanism, SaslClient, client_from_jaas};

use crate::ClientError;

/// The largest client properties file read.
pub const PROPERTIES_FILE_BYTES_MAX: u64 = 1 << 20;

/// How the client reaches the cluster: Kafka's `security.protocol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecurityProtocol {
    Plaintext,
    Ssl,
    SaslPlaintext,
    SaslSsl,
}

impl SecurityProtocol {
    fn parse(name: &str) -> Result<SecurityProtocol, ClientError> {
        match name.to_ascii_uppercase().as_str() {
            "PLAINTEXT" => Ok(SecurityProtocol::Plaintext),
            "SSL" => Ok(SecurityProtocol::Ssl),
            "SASL_PLAINTEXT" => Ok(SecurityProtocol::SaslPlaintext),
            "SASL_SSL" => Ok(SecurityProtocol::SaslSsl),
            _ => Err(ClientError::Config(format!("Invalid value {name} for configuration security.protocol"))),
        }
    }

    pub fn uses_tls(self) -> bool {
        matches!(self, SecurityProtocol::Ssl | SecurityProtocol::SaslSsl)
    }

    pub fn uses_sasl(self) -> bool {
        matches!(self, SecurityProtocol::SaslPlaintext | SecurityProtocol::SaslSsl)
    }
}

/// A store of certificates: PEM (a file, or inline text) or PKCS12.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Store {
    PemFile(PathBuf),
    PemInline(String),
    Pkcs12 { path: PathBuf, password: String },
}

/// The TLS side: `ssl.truststore.*`, `ssl.keystore.*`, `ssl.endpoint.identification.algorithm`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsConfig {
    /// `None`: the Mozilla roots are not bundled, so a trust store is required for TLS.
    pub truststore: Option<Store>,
    /// The client certificate and key, for mutual TLS.
    pub keystore: Option<Store>,
    /// `ssl.keystore.key` with `ssl.keystore.certificate.chain`, inline.
    pub keystore_key: Option<String>,
    /// False when `ssl.endpoint.identification.algorithm` is empty.
    pub verify_host_name: bool,
}

/// The SASL login: the mechanism and the JAAS entry holding `username` and `password`.
#[derive(Clone)]
pub struct SaslConfig {
    pub mechanism: Mechanism,
    entry: JaasEntry,
}

impl std::fmt::Debug for SaslConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SaslConfig").field("mechanism", &self.mechanism).finish_non_exhaustive()
    }
}

impl SaslConfig {
    /// A fresh client for one login (each login has its own nonce).
    pub fn client(&self) -> Result<Box<dyn SaslClient>, ClientError> {
        client_from_jaas(self.mechanism, &self.entry).map_err(|e| ClientError::Config(e.to_string()))
    }
}

/// Everything the client acts on, with Kafka's defaults.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// `bootstrap.servers`: `host:port` addresses.
    pub bootstrap_servers: Vec<String>,
    /// `bootstrap.controllers` (KIP-919): the controllers' addresses, for an admin client that
    /// talks to the controller quorum instead of brokers.
    pub bootstrap_controllers: Vec<String>,
    pub client_id: String,
    pub security_protocol: SecurityProtocol,
    pub tls: TlsConfig,
    pub sasl: Option<SaslConfig>,
    /// `request.timeout.ms`: one request's wait for its response.
    pub request_timeout: Duration,
    /// `default.api.timeout.ms`: one admin call's, retries included.
    pub api_timeout: Duration,
    /// `socket.connection.setup.timeout.ms`.
    pub connect_timeout: Duration,
    /// `retry.backoff.ms` and `retry.backoff.max.ms`: the first wait between retries, and the most.
    pub retry_backoff: Duration,
    pub retry_backoff_max: Duration,
    /// The largest response accepted (Kafka's clients take any; a bound keeps a bad peer from
    /// making the client allocate without limit).
    pub response_bytes_max: usize,
}

impl Default for ClientConfig {
    fn default() -> ClientConfig {
        ClientConfig {
            bootstrap_servers: Vec::new(),
            bootstrap_controllers: Vec::new(),
            client_id: "strand".to_owned(),
            security_protocol: SecurityProtocol::Plaintext,
            tls: TlsConfig { verify_host_name: true, ..TlsConfig::default() },
            sasl: None,
            request_timeout: Duration::from_millis(30_000),
            api_timeout: Duration::from_millis(60_000),
            connect_timeout: Duration::from_millis(10_000),
            retry_backoff: Duration::from_millis(100),
            retry_backoff_max: Duration::from_millis(1_000),
            response_bytes_max: 256 << 20,
        }
    }
}

impl ClientConfig {
    /// Reads a Java properties file (`--command-config`).
    pub fn read_properties(path: &Path) -> Result<BTreeMap<String, String>, ClientError> {
        use std::io::Read;
        let file = std::fs::File::open(path).map_err(|e| ClientError::Config(format!("{}: {e}", path.display())))?;
        let mut text = Vec::new();
        file.take(PROPERTIES_FILE_BYTES_MAX)
            .read_to_end(&mut text)
            .map_err(|e| ClientError::Config(format!("{}: {e}", path.display())))?;
        let map = java_properties::read(text.as_slice())
            .map_err(|e| ClientError::Config(format!("{}: {e}", path.display())))?;
        Ok(map.into_iter().collect())
    }

    /// The configuration `properties` describe, on Kafka's defaults.
    pub fn from_properties(properties: &BTreeMap<String, String>) -> Result<ClientConfig, ClientError> {
        let mut config = ClientConfig::default();
        let get = |key: &str| properties.get(key).map(|v| v.trim()).filter(|v| !v.is_empty());
        let addresses = |text: &str| text.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect();
        if let Some(servers) = get("bootstrap.servers") {
            config.bootstrap_servers = addresses(servers);
        }
        if let Some(controllers) = get("bootstrap.controllers") {
            config.bootstrap_controllers = addresses(controllers);
        }
        if !config.bootstrap_servers.is_empty() && !config.bootstrap_controllers.is_empty() {
            return Err(ClientError::Config("You cannot set both bootstrap.servers and bootstrap.controllers.".into()));
        }
        if let Some(id) = get("client.id") {
            config.client_id = id.to_owned();
        }
        if let Some(protocol) = get("security.protocol") {
            config.security_protocol = SecurityProtocol::parse(protocol)?;
        }
        let millis = |key: &str, default: Duration| -> Result<Duration, ClientError> {
            match get(key) {
                None => Ok(default),
                Some(v) => v.parse::<u64>().map(Duration::from_millis).map_err(|_| {
                    ClientError::Config(format!("Invalid value {v} for configuration {key}: Not a number of type LONG"))
                }),
            }
        };
        config.request_timeout = millis("request.timeout.ms", config.request_timeout)?;
        config.api_timeout = millis("default.api.timeout.ms", config.api_timeout)?;
        config.connect_timeout = millis("socket.connection.setup.timeout.ms", config.connect_timeout)?;
        config.retry_backoff = millis("retry.backoff.ms", config.retry_backoff)?;
        config.retry_backoff_max = millis("retry.backoff.max.ms", config.retry_backoff_max)?;
        if config.security_protocol.uses_tls() {
            // Kafka's default is `https`; only an explicitly empty value turns the check off.
            let verify = properties.get("ssl.endpoint.identification.algorithm").is_none_or(|v| !v.trim().is_empty());
            config.tls = tls_config(&get, verify)?;
        }
        if config.security_protocol.uses_sasl() {
            config.sasl = Some(sasl_config(&get)?);
        }
        Ok(config)
    }
}

fn tls_config<'a>(get: &impl Fn(&str) -> Option<&'a str>, verify_host_name: bool) -> Result<TlsConfig, ClientError> {
    let store = |kind: &str| -> Result<Option<Store>, ClientError> {
        let store_type = get(&format!("ssl.{kind}.type")).unwrap_or("JKS").to_ascii_uppercase();
        let location = get(&format!("ssl.{kind}.location")).map(PathBuf::from);
        let inline_key =
            if kind == "truststore" { "ssl.truststore.certificates" } else { "ssl.keystore.certificate.chain" };
        let inline = get(inline_key);
        match (store_type.as_str(), location, inline) {
            (_, None, None) => Ok(None),
            ("PEM", Some(path), None) => Ok(Some(Store::PemFile(path))),
            ("PEM", None, Some(text)) => Ok(Some(Store::PemInline(text.to_owned()))),
            ("PKCS12", Some(path), None) => {
                let password = get(&format!("ssl.{kind}.password")).unwrap_or_default().to_owned();
                Ok(Some(Store::Pkcs12 { path, password }))
            }
            ("JKS", ..) => Err(ClientError::Config(format!(
                "ssl.{kind}.type JKS is not supported by this version of Strand: convert the store with \
                 keytool -importkeystore -deststoretype PKCS12, or use PEM"
            ))),
            (other, ..) => Err(ClientError::Config(format!("ssl.{kind}.type {other} is not supported"))),
        }
    };
    if get("ssl.key.password").is_some() {
        return Err(ClientError::Config(
            "ssl.key.password (an encrypted client key) is not supported by this version of Strand's client".into(),
        ));
    }
    Ok(TlsConfig {
        truststore: store("truststore")?,
        keystore: store("keystore")?,
        keystore_key: get("ssl.keystore.key").map(str::to_owned),
        verify_host_name,
    })
}

fn sasl_config<'a>(get: &impl Fn(&str) -> Option<&'a str>) -> Result<SaslConfig, ClientError> {
    let name = get("sasl.mechanism").unwrap_or("GSSAPI");
    let mechanism = Mechanism::from_name(name).map_err(|e| ClientError::Config(format!("sasl.mechanism: {e}")))?;
    if mechanism == Mechanism::OAuthBearer {
        return Err(ClientError::Config(
            "sasl.mechanism OAUTHBEARER is not supported by this version of Strand's client".into(),
        ));
    }
    let text = get("sasl.jaas.config")
        .ok_or_else(|| ClientError::Config(format!("sasl.jaas.config must be set for sasl.mechanism {name}")))?;
    let entry = jaas::parse_single(text).map_err(|e| ClientError::Config(format!("sasl.jaas.config: {e}")))?;
    let config = SaslConfig { mechanism, entry };
    config.client()?; // `username` and `password` are there
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Result<ClientConfig, ClientError> {
        ClientConfig::from_properties(&pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect())
    }

    /// Kafka's defaults, and the keys that change them.
    #[test]
    fn properties_set_what_kafka_s_keys_say() {
        let plain = config(&[("bootstrap.servers", "a:1, b:2"), ("request.timeout.ms", "500")]).expect("config");
        assert_eq!(plain.bootstrap_servers, ["a:1", "b:2"]);
        assert_eq!(plain.request_timeout, Duration::from_millis(500));
        assert_eq!(plain.api_timeout, Duration::from_millis(60_000));
        assert_eq!(plain.security_protocol, SecurityProtocol::Plaintext);
        let controllers = config(&[("bootstrap.controllers", "c:1,d:2")]).expect("config");
        assert!(controllers.bootstrap_servers.is_empty());
        assert_eq!(controllers.bootstrap_controllers, ["c:1", "d:2"]);

        let jaas = r#"org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="p";"#;
        let sasl = config(&[
            ("security.protocol", "SASL_SSL"),
            ("sasl.mechanism", "SCRAM-SHA-512"),
            ("sasl.jaas.config", jaas),
            ("ssl.truststore.type", "PEM"),
            ("ssl.truststore.location", "/ca.pem"),
        ])
        .expect("config");
        assert_eq!(sasl.sasl.map(|s| s.mechanism.name()), Some("SCRAM-SHA-512"));
        assert_eq!(sasl.tls.truststore, Some(Store::PemFile("/ca.pem".into())));
    }

    /// What the client cannot honour is refused, naming the key.
    #[test]
    fn what_the_client_cannot_do_is_refused() {
        for (pairs, expected) in [
            (vec![("security.protocol", "SASL_PLAINTEXT")], "GSSAPI"),
            (vec![("security.protocol", "SSL"), ("ssl.truststore.location", "/x.jks")], "JKS"),
            (vec![("security.protocol", "BOGUS")], "security.protocol"),
            (vec![("request.timeout.ms", "soon")], "request.timeout.ms"),
            (vec![("security.protocol", "SASL_PLAINTEXT"), ("sasl.mechanism", "PLAIN")], "sasl.jaas.config"),
            (vec![("bootstrap.servers", "a:1"), ("bootstrap.controllers", "b:2")], "bootstrap.controllers"),
        ] {
            let error = config(&pairs).expect_err("refused").to_string();
            assert!(error.contains(expected), "{error}");
        }
    }
}
