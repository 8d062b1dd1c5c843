//! TLS settings: Kafka's `ssl.*` keys, top-level and per listener (`listener.name.<name>.ssl.*`,
//! the listener's name in lower case, overriding the top-level key of the same name), read into
//! one [`TlsSettings`] per listener that uses TLS: each SSL listener this node binds, and the
//! controller and inter-broker listeners it dials.
//!
//! Pure text: no file is opened here (`crate::tls` loads the stores at start-up). What Strand
//! cannot honour is refused, naming the key: a JKS store (with the `keytool` conversion), a
//! protocol other than TLSv1.2 and TLSv1.3, an unknown cipher suite, and every `ssl.*` key not implemented here unless it holds Kafka's default.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use strand_security::SslPrincipalMapper;

use super::keys::parse_list;
use super::{ConfigError, ConfigSource, ServerConfig, invalid};

/// The `ssl.*` keys Strand implements.
pub(crate) const IMPLEMENTED: &[&str] = &[
    "ssl.keystore.type",
    "ssl.keystore.location",
    "ssl.keystore.password",
    "ssl.key.password",
    "ssl.keystore.certificate.chain",
    "ssl.keystore.key",
    "ssl.truststore.type",
    "ssl.truststore.location",
    "ssl.truststore.password",
    "ssl.truststore.certificates",
    "ssl.client.auth",
    "ssl.enabled.protocols",
    "ssl.protocol",
    "ssl.cipher.suites",
    "ssl.endpoint.identification.algorithm",
    "ssl.principal.mapping.rules",
];

/// `ssl.*` keys accepted only at Kafka's default (an empty value is Kafka's `null`).
const DEFAULT_ONLY: &[(&str, &str)] = &[
    ("ssl.keymanager.algorithm", "SunX509"),
    ("ssl.trustmanager.algorithm", "PKIX"),
    ("ssl.secure.random.implementation", ""),
    ("ssl.engine.factory.class", ""),
    ("ssl.provider", ""),
    ("ssl.allow.dn.changes", "false"),
    ("ssl.allow.san.changes", "false"),
];

/// The cipher suites Strand's TLS (rustls with ring) offers, by their IANA names, which are
/// Java's and so Kafka's.
pub const CIPHER_SUITES: &[&str] = &[
    "TLS_AES_256_GCM_SHA384",
    "TLS_AES_128_GCM_SHA256",
    "TLS_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
];

const JKS: &str = "JKS key stores are not supported by Strand: convert the store to PKCS12 with `keytool \
                   -importkeystore -srckeystore store.jks -srcstoretype JKS -destkeystore store.p12 \
                   -deststoretype PKCS12` and set the type to PKCS12 (or use PEM)";

/// One listener's TLS settings.
#[derive(Debug, Clone)]
pub struct TlsSettings {
    /// The listener's name, upper-case.
    pub listener: String,
    /// This node's certificate chain and key: served on its listener, shown when it dials.
    pub keystore: Option<Keystore>,
    /// The certificates this node trusts, to verify clients' and peers' certificates.
    pub truststore: Option<Truststore>,
    pub client_auth: ClientAuth,
    /// `ssl.enabled.protocols`.
    pub protocols: BTreeSet<TlsProtocol>,
    /// `ssl.cipher.suites` by IANA name, each in [`CIPHER_SUITES`]; empty: all of them.
    pub cipher_suites: Vec<String>,
    /// `ssl.endpoint.identification.algorithm=https`: verify the peer's host name when dialling.
    pub endpoint_identification: bool,
    pub principal_mapper: SslPrincipalMapper,
}

/// `ssl.keystore.*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keystore {
    /// `ssl.keystore.type=PEM`: a file holding the key and the chain, or both inline; the key
    /// encrypted (PKCS#8 `ENCRYPTED PRIVATE KEY`) with `ssl.key.password` when that is set.
    Pem { source: PemSource, key_password: Option<String> },
    /// `ssl.keystore.type=PKCS12`, read with `ssl.keystore.password`.
    Pkcs12 { path: PathBuf, password: String },
}

/// Where PEM text comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PemSource {
    File(PathBuf),
    /// `ssl.keystore.certificate.chain` with `ssl.keystore.key`, or `ssl.truststore.certificates`
    /// (then `key` is empty).
    Inline {
        certificates: String,
        key: String,
    },
}

/// `ssl.truststore.*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Truststore {
    Pem(PemSource),
    Pkcs12 { path: PathBuf, password: String },
}

/// `ssl.client.auth`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    None,
    Requested,
    Required,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TlsProtocol {
    V1_2,
    V1_3,
}

/// Refuses the `ssl.*` keys Strand does not implement, then reads the settings of every
/// listener this node serves or dials with TLS.
pub(super) fn read(config: &ServerConfig) -> Result<BTreeMap<String, TlsSettings>, ConfigError> {
    for (key, entry) in &config.entries {
        if matches!(entry.source, ConfigSource::File | ConfigSource::Override) {
            check_key(key, entry.value.as_deref().unwrap_or_default())?;
        }
    }
    let bound = config.listeners.iter().map(|l| l.listener_name.clone());
    let dialled = config.controller_listener_names.iter().cloned().chain([config.inter_broker_listener_name.clone()]);
    let mut settings = BTreeMap::new();
    for name in bound.clone().chain(dialled).collect::<BTreeSet<_>>() {
        let uses_tls = config.listener_security_protocol_map.get(&name).is_some_and(|p| p.uses_tls());
        if !uses_tls {
            continue;
        }
        let serves = config.listeners.iter().any(|l| l.listener_name == name);
        settings.insert(name.clone(), listener_settings(config, &name, serves)?);
    }
    Ok(settings)
}

/// Whether `key` is a TLS key (top-level or per listener), and if so that Strand can honour it.
fn check_key(key: &str, value: &str) -> Result<(), ConfigError> {
    let Some(base) = ssl_base(key) else { return Ok(()) };
    if IMPLEMENTED.contains(&base) {
        return Ok(());
    }
    match DEFAULT_ONLY.iter().find(|(name, _)| *name == base) {
        Some((_, default)) if value.trim().eq_ignore_ascii_case(default) => Ok(()),
        Some((_, default)) => Err(ConfigError::rule(
            key,
            format!("Strand's TLS supports only Kafka's default ({default:?}) here, not {value:?}"),
        )),
        None => Err(ConfigError::rule(key, "this TLS setting is not supported by Strand; remove it")),
    }
}

/// `key`'s `ssl.*` name, with any `listener.name.NAME.` prefix removed; `None` if it is no TLS key.
pub(crate) fn ssl_base(key: &str) -> Option<&str> {
    let base = match key.strip_prefix("listener.name.") {
        Some(rest) => rest.split_once('.')?.1,
        None => key,
    };
    base.starts_with("ssl.").then_some(base)
}

/// A listener's view of the keys: `listener.name.<lower-case name>.KEY` set dynamically for
/// this broker, else in the file, else `KEY`.
struct ListenerKeys<'a> {
    config: &'a ServerConfig,
    prefix: String,
    /// This broker's dynamic configs (the TLS stores it takes at run time), by full key.
    dynamic: &'a BTreeMap<String, String>,
}

impl ListenerKeys<'_> {
    /// The key that decides `base` for this listener and its value; `None` when unset or empty.
    fn get(&self, base: &str) -> (String, Option<String>) {
        let prefixed = format!("{}{base}", self.prefix);
        if let Some(value) = self.dynamic.get(&prefixed) {
            return (prefixed, Some(value.clone()).filter(|v| !v.trim().is_empty()));
        }
        let user_set = |key: &str| {
            let entry = self.config.entries.get(key)?;
            matches!(entry.source, ConfigSource::File | ConfigSource::Override).then(|| entry.value.clone())?
        };
        match user_set(&prefixed) {
            Some(value) => (prefixed, Some(value).filter(|v| !v.trim().is_empty())),
            None => (base.to_owned(), user_set(base).filter(|v| !v.trim().is_empty())),
        }
    }

    fn value(&self, base: &str) -> Option<String> {
        self.get(base).1
    }
}

fn listener_settings(config: &ServerConfig, listener: &str, serves: bool) -> Result<TlsSettings, ConfigError> {
    listener_settings_with(config, listener, serves, &BTreeMap::new())
}

/// The TLS settings of `listener` with this broker's dynamic configs (`dynamic`, by full key)
/// over `server.properties`: what a run-time change of its stores makes of them.
pub fn listener_settings_with(
    config: &ServerConfig,
    listener: &str,
    serves: bool,
    dynamic: &BTreeMap<String, String>,
) -> Result<TlsSettings, ConfigError> {
    let prefix = format!("listener.name.{}.", listener.to_lowercase());
    let keys = ListenerKeys { config, prefix, dynamic };
    let client_auth = match keys.get("ssl.client.auth") {
        (_, None) => ClientAuth::None,
        (key, Some(value)) => match value.trim().to_ascii_lowercase().as_str() {
            "none" => ClientAuth::None,
            "requested" => ClientAuth::Requested,
            "required" => ClientAuth::Required,
            _ => return Err(invalid(&key, &value, "must be one of required, requested, none")),
        },
    };
    let keystore = keystore(&keys)?;
    let truststore = truststore(&keys)?;
    let need = |what: &str| ConfigError::rule(&format!("listener.name.{}.ssl.*", listener.to_lowercase()), what);
    if serves && keystore.is_none() {
        return Err(need(&format!(
            "listener {listener} uses SSL but has no key store: set ssl.keystore.location (PKCS12 or PEM), or \
             ssl.keystore.certificate.chain and ssl.keystore.key with ssl.keystore.type=PEM"
        )));
    }
    let verifies = !serves || client_auth != ClientAuth::None;
    if truststore.is_none() && verifies {
        return Err(need(&format!(
            "listener {listener} verifies certificates (ssl.client.auth, or this node dials it) but has no trust \
             store: set ssl.truststore.location or ssl.truststore.certificates (Strand has no JVM default trust \
             store to fall back on)"
        )));
    }
    Ok(TlsSettings {
        listener: listener.to_owned(),
        keystore,
        truststore,
        client_auth,
        protocols: protocols(&keys)?,
        cipher_suites: cipher_suites(&keys)?,
        endpoint_identification: endpoint_identification(&keys)?,
        principal_mapper: principal_mapper(&keys)?,
    })
}

/// A store's type: Kafka's default is JKS.
fn store_type(keys: &ListenerKeys<'_>, base: &str) -> Result<(String, String), ConfigError> {
    let (key, value) = keys.get(base);
    let value = value.unwrap_or_else(|| "JKS".to_owned()).trim().to_ascii_uppercase();
    match value.as_str() {
        "PEM" | "PKCS12" | "JKS" => Ok((key, value)),
        _ => Err(invalid(&key, &value, "Strand reads PKCS12 and PEM stores only")),
    }
}

fn keystore(keys: &ListenerKeys<'_>) -> Result<Option<Keystore>, ConfigError> {
    let location = keys.get("ssl.keystore.location");
    let (chain, key) = (keys.get("ssl.keystore.certificate.chain"), keys.get("ssl.keystore.key"));
    if location.1.is_none() && chain.1.is_none() && key.1.is_none() {
        return Ok(None);
    }
    let (type_key, kind) = store_type(keys, "ssl.keystore.type")?;
    let password = keys.value("ssl.keystore.password");
    let key_password = keys.get("ssl.key.password");
    match kind.as_str() {
        "JKS" => Err(ConfigError::rule(&type_key, format!("ssl.keystore.type is JKS (Kafka's default). {JKS}"))),
        "PKCS12" => {
            let Some(path) = location.1 else {
                return Err(ConfigError::rule(&chain.0, "inline certificates need ssl.keystore.type=PEM"));
            };
            let password = password.unwrap_or_default();
            if let Some(other) = key_password.1.filter(|k| *k != password) {
                let reason = "Strand reads a PKCS12 key with the store's password: ssl.key.password must be \
                              unset or equal to ssl.keystore.password";
                return Err(invalid(&key_password.0, &"*".repeat(other.len().min(8)), reason));
            }
            Ok(Some(Keystore::Pkcs12 { path: PathBuf::from(path), password }))
        }
        _ => {
            if password.is_some() {
                return Err(ConfigError::rule(
                    "ssl.keystore.password",
                    "SSL key store password cannot be specified with PEM format, only key password may be specified",
                ));
            }
            let source = pem_keystore(location, chain, key)?;
            Ok(Some(Keystore::Pem { source, key_password: key_password.1 }))
        }
    }
}

type Setting = (String, Option<String>);

fn pem_keystore(location: Setting, chain: Setting, key: Setting) -> Result<PemSource, ConfigError> {
    match (location.1, chain.1, key.1) {
        (Some(path), None, None) => Ok(PemSource::File(PathBuf::from(path))),
        (None, Some(certificates), Some(key)) => Ok(PemSource::Inline { certificates, key }),
        (Some(_), _, _) => Err(ConfigError::rule(
            &location.0,
            "set either ssl.keystore.location or ssl.keystore.certificate.chain with ssl.keystore.key, not both",
        )),
        (None, Some(_), None) => {
            Err(ConfigError::rule(&key.0, "ssl.keystore.certificate.chain needs ssl.keystore.key"))
        }
        (None, _, _) => Err(ConfigError::rule(&chain.0, "ssl.keystore.key needs ssl.keystore.certificate.chain")),
    }
}

fn truststore(keys: &ListenerKeys<'_>) -> Result<Option<Truststore>, ConfigError> {
    let location = keys.get("ssl.truststore.location");
    let inline = keys.get("ssl.truststore.certificates");
    if location.1.is_none() && inline.1.is_none() {
        return Ok(None);
    }
    let (type_key, kind) = store_type(keys, "ssl.truststore.type")?;
    let password = keys.value("ssl.truststore.password");
    match (kind.as_str(), location.1, inline.1) {
        ("JKS", _, _) => {
            Err(ConfigError::rule(&type_key, format!("ssl.truststore.type is JKS (Kafka's default). {JKS}")))
        }
        (_, Some(_), Some(_)) => Err(ConfigError::rule(
            &location.0,
            "set either ssl.truststore.location or ssl.truststore.certificates, not both",
        )),
        ("PKCS12", Some(path), None) => {
            Ok(Some(Truststore::Pkcs12 { path: PathBuf::from(path), password: password.unwrap_or_default() }))
        }
        ("PKCS12", None, _) => Err(ConfigError::rule(&inline.0, "inline certificates need ssl.truststore.type=PEM")),
        (_, _, _) if password.is_some() => Err(ConfigError::rule(
            "ssl.truststore.password",
            "SSL trust store password cannot be specified with PEM format",
        )),
        (_, Some(path), None) => Ok(Some(Truststore::Pem(PemSource::File(PathBuf::from(path))))),
        (_, None, certificates) => Ok(Some(Truststore::Pem(PemSource::Inline {
            certificates: certificates.unwrap_or_default(),
            key: String::new(),
        }))),
    }
}

fn protocols(keys: &ListenerKeys<'_>) -> Result<BTreeSet<TlsProtocol>, ConfigError> {
    let (key, value) = keys.get("ssl.protocol");
    if let Some(value) = value
        && !matches!(value.trim(), "TLSv1.2" | "TLSv1.3" | "TLS")
    {
        return Err(invalid(&key, &value, "Strand's TLS implements TLSv1.2 and TLSv1.3 only"));
    }
    let (key, value) = keys.get("ssl.enabled.protocols");
    let Some(value) = value else { return Ok(BTreeSet::from([TlsProtocol::V1_2, TlsProtocol::V1_3])) };
    let mut enabled = BTreeSet::new();
    for name in parse_list(&value) {
        enabled.insert(match name.as_str() {
            "TLSv1.2" => TlsProtocol::V1_2,
            "TLSv1.3" => TlsProtocol::V1_3,
            _ => {
                let reason = format!("{name} is not supported: Strand's TLS implements TLSv1.2 and TLSv1.3 only");
                return Err(invalid(&key, &value, reason));
            }
        });
    }
    Ok(enabled)
}

fn cipher_suites(keys: &ListenerKeys<'_>) -> Result<Vec<String>, ConfigError> {
    let (key, value) = keys.get("ssl.cipher.suites");
    let suites = parse_list(value.as_deref().unwrap_or_default());
    match suites.iter().find(|suite| !CIPHER_SUITES.contains(&suite.as_str())) {
        Some(unknown) => Err(invalid(
            &key,
            value.as_deref().unwrap_or_default(),
            format!("{unknown} is not a cipher suite Strand offers (it offers {})", CIPHER_SUITES.join(", ")),
        )),
        None => Ok(suites),
    }
}

fn endpoint_identification(keys: &ListenerKeys<'_>) -> Result<bool, ConfigError> {
    let (key, value) = keys.get("ssl.endpoint.identification.algorithm");
    let key_set = keys.config.entries.get(&key).is_some_and(|e| e.source != ConfigSource::Default);
    match value {
        // Kafka's default is https; set to empty it is off.
        None => Ok(!key_set),
        Some(value) if value.trim().eq_ignore_ascii_case("https") => Ok(true),
        Some(value) => Err(invalid(&key, &value, "must be https, or empty for no host name verification")),
    }
}

fn principal_mapper(keys: &ListenerKeys<'_>) -> Result<SslPrincipalMapper, ConfigError> {
    match keys.get("ssl.principal.mapping.rules") {
        (_, None) => Ok(SslPrincipalMapper::default()),
        (key, Some(value)) => SslPrincipalMapper::parse(&value).map_err(|reason| invalid(&key, &value, reason)),
    }
}

#[cfg(test)]
mod tests;
