//! The SASL settings of each `SASL_PLAINTEXT` / `SASL_SSL` listener, Kafka's names and
//! precedence: a `listener.name.NAME.MECHANISM.KEY` setting overrides `listener.name.NAME.KEY`,
//! which overrides `KEY`. `sasl.jaas.config` is taken only in its per-listener, per-mechanism
//! form (`listener.name.sasl_ssl.plain.sasl.jaas.config`), as Kafka's brokers read it; the bare
//! key would be ignored by Kafka, so it is refused here.
//!
//! What a listener may not use yet is refused at start-up by [`check`], naming the setting:
//! GSSAPI and unknown mechanisms, custom callback handlers (but Kafka's KIP-768 validator,
//! [`super::oauthbearer`]) and login modules, and every Kerberos or client-login key.
//!
//! A SASL inter-broker or controller listener is also this node's way to its peers: it logs in
//! there as a client ([`NodeLogin`]) with `sasl.mechanism.inter.broker.protocol` or
//! `sasl.mechanism.controller.protocol` and the `username` and `password` options of that
//! listener's JAAS entry for the mechanism, as Kafka's login modules give them to its clients.
//! As Kafka, the inter-broker mechanism must be enabled on its listener (Kafka's default, GSSAPI,
//! never is here). The node's own links speak PLAIN and SCRAM (OAUTHBEARER would need a token
//! provider); on the controller listener only PLAIN: SCRAM credentials live in the metadata log,
//! which controllers must reach one another to read (KIP-900), so Kafka's controllers cannot use
//! them either, and a controller listener enabling SCRAM or OAUTHBEARER serves no Strand node.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use strand_base::Clock;
use strand_security::sasl::oauthbearer::jwks::JwkSet;
use strand_security::sasl::oauthbearer::{CurrentJwks, JwksValidator, TokenValidator, UnsecuredValidator};
use strand_security::sasl::plain::PlainUsers;
use strand_security::sasl::{
    CredentialStore, Mechanism, SaslClient, SaslServerFactory, SaslSettings, client_from_jaas, jaas,
};

use super::keys::parse_list;
use super::oauthbearer::{HANDLER_KEY, JWKS_KEYS, JwksEndpoint, jwks_endpoint, unserved_key, uses_jwks};
use super::{ConfigError, ConfigSource, ServerConfig};

/// One SASL listener's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaslListenerConfig {
    /// The listener's name, upper-case.
    pub listener: String,
    /// `sasl.enabled.mechanisms`.
    pub mechanisms: Vec<String>,
    /// `connections.max.reauth.ms` by mechanism; a mechanism absent never expires its sessions.
    pub reauth_max: BTreeMap<String, Duration>,
    /// `connection.failed.authentication.delay.ms`.
    pub failed_delay: Duration,
    /// `sasl.server.max.receive.size`.
    pub receive_bytes_max: usize,
    /// Each enabled mechanism's `sasl.*` settings, the most specific form of each, keys without
    /// their prefixes (`sasl.jaas.config`, `sasl.oauthbearer.expected.audience`, ...).
    pub mechanism_settings: BTreeMap<String, BTreeMap<String, String>>,
}

impl SaslListenerConfig {
    /// The listener's mechanisms, each server of a connection made by the returned factory;
    /// SCRAM reads `credentials`, OAUTHBEARER's token times read `clock`, its JWKS validator (if
    /// [`SaslListenerConfig::jwks_endpoint`] says so) the key set `jwks` (none: an empty one).
    /// The error names the setting at fault.
    pub fn factory(
        &self,
        credentials: Arc<dyn CredentialStore>,
        clock: Arc<dyn Clock>,
        jwks: Option<Arc<CurrentJwks>>,
    ) -> Result<SaslServerFactory, ConfigError> {
        let key = format!("listener.name.{}.sasl.enabled.mechanisms", self.listener.to_ascii_lowercase());
        let mechanisms = strand_security::sasl::check_enabled_mechanisms(&self.mechanisms)
            .map_err(|e| ConfigError::rule(&key, format!("SASL listener {}: {e}", self.listener)))?;
        let plain_users = match mechanisms.contains(&Mechanism::Plain) {
            true => Some(Arc::new(self.with_jaas("PLAIN", PlainUsers::from_jaas)?)),
            false => None,
        };
        let token_validator: Option<Arc<dyn TokenValidator>> = match mechanisms.contains(&Mechanism::OAuthBearer) {
            true => Some(match self.jwks_endpoint()? {
                Some(endpoint) => {
                    let keys = jwks.unwrap_or_else(|| Arc::new(CurrentJwks::new(JwkSet { keys: Vec::new() })));
                    Arc::new(JwksValidator::new(keys, endpoint.settings))
                }
                None => Arc::new(self.with_jaas("OAUTHBEARER", UnsecuredValidator::from_jaas)?),
            }),
            false => None,
        };
        let scram_credentials = mechanisms.iter().any(|m| matches!(m, Mechanism::Scram(_))).then_some(credentials);
        let settings = SaslSettings { mechanisms, plain_users, scram_credentials, token_validator, clock };
        SaslServerFactory::new(settings)
            .map_err(|e| ConfigError::rule(&key, format!("SASL listener {}: {e}", self.listener)))
    }

    /// The factory of a listener whose mechanisms need no SCRAM credentials (a controller
    /// listener's, or one checked at start-up): a SCRAM exchange finds no user.
    pub fn factory_without_credentials(&self) -> Result<SaslServerFactory, ConfigError> {
        self.factory(Arc::new(NoCredentials), Arc::new(strand_base::SystemClock), None)
    }

    /// The JWK set endpoint when this listener enables OAUTHBEARER with Kafka's KIP-768
    /// validator handler; none for the unsecured validator (Kafka's default).
    pub fn jwks_endpoint(&self) -> Result<Option<JwksEndpoint>, ConfigError> {
        let settings = self.mechanism_settings.get("OAUTHBEARER");
        match settings {
            Some(settings) if uses_jwks(Some(settings)) => {
                let jaas = self.with_jaas("OAUTHBEARER", |entry| Ok(entry.clone()))?;
                jwks_endpoint(&self.listener, settings, &jaas).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// What `read` makes of `mechanism`'s JAAS entry, which must be set.
    fn with_jaas<T>(
        &self,
        mechanism: &str,
        read: impl Fn(&jaas::JaasEntry) -> Result<T, String>,
    ) -> Result<T, ConfigError> {
        let key = format!(
            "listener.name.{}.{}.sasl.jaas.config",
            self.listener.to_ascii_lowercase(),
            mechanism.to_ascii_lowercase()
        );
        let text = self.mechanism_settings.get(mechanism).and_then(|settings| settings.get("sasl.jaas.config"));
        let Some(text) = text else {
            let module = match mechanism {
                "PLAIN" => "PlainLoginModule with user_NAME=\"password\" options to check passwords against",
                _ => "OAuthBearerLoginModule, whose unsecuredValidator* options configure Kafka's unsecured validator",
            };
            return Err(ConfigError::rule(
                &key,
                format!("SASL listener {} enables {mechanism} but sets no {key} ({module})", self.listener),
            ));
        };
        let entry = jaas::parse_single(text).map_err(|e| ConfigError::rule(&key, e.to_string()))?;
        read(&entry).map_err(|reason| ConfigError::rule(&key, reason))
    }
}

/// A store with no users, for checking a listener's settings before the image exists.
#[derive(Debug)]
struct NoCredentials;

impl CredentialStore for NoCredentials {
    fn scram_credential(&self, _user: &str, _mechanism: &str) -> Option<strand_security::sasl::ScramCredential> {
        None
    }
}

/// The `sasl.*` keys a SASL listener may set: what Strand implements.
const SERVED_KEYS: &[&str] = &[
    "sasl.enabled.mechanisms",
    "sasl.jaas.config",
    "sasl.server.max.receive.size",
    "sasl.mechanism.inter.broker.protocol",
    "sasl.mechanism.controller.protocol",
];

/// The keys besides `sasl.*` a SASL listener reads in its own `listener.name.NAME.` form, and
/// whether each is also read per mechanism (`listener.name.NAME.MECHANISM.KEY`).
const LISTENER_KEYS: &[(&str, bool)] =
    &[("connections.max.reauth.ms", true), ("connection.failed.authentication.delay.ms", false)];

/// Whether `key` is a per-listener SASL setting (`listener.name.NAME[.MECHANISM].KEY`) a SASL
/// listener reads, so it is not reported unknown. Its `sasl.*` ones Strand does not serve are
/// refused by [`check`].
pub(super) fn is_listener_key(key: &str) -> bool {
    let Some((_listener, base)) = key.strip_prefix("listener.name.").and_then(|rest| rest.split_once('.')) else {
        return false;
    };
    let read = |base: &str, per_mechanism: bool| {
        base.starts_with("sasl.")
            || LISTENER_KEYS.iter().any(|(key, mechanism)| *key == base && (*mechanism || !per_mechanism))
    };
    read(base, false) || base.split_once('.').is_some_and(|(_mechanism, after)| read(after, true))
}

impl ServerConfig {
    /// The settings of every SASL listener this node binds.
    pub fn sasl_listeners(&self) -> Vec<SaslListenerConfig> {
        self.listeners
            .iter()
            .filter(|endpoint| endpoint.security_protocol.uses_sasl())
            .map(|endpoint| self.sasl_listener(&endpoint.listener_name))
            .collect()
    }

    fn sasl_listener(&self, listener: &str) -> SaslListenerConfig {
        let mechanisms =
            parse_list(&self.listener_value(listener, None, "sasl.enabled.mechanisms").unwrap_or_default());
        let millis = |text: Option<String>| text.and_then(|text| text.trim().parse::<u64>().ok());
        let reauth_max = mechanisms
            .iter()
            .filter_map(|mechanism| {
                let max = millis(self.listener_value(listener, Some(mechanism), "connections.max.reauth.ms"))?;
                (max > 0).then(|| (mechanism.clone(), Duration::from_millis(max)))
            })
            .collect();
        let mechanism_settings = mechanisms
            .iter()
            .map(|mechanism| {
                let settings = SERVED_KEYS
                    .iter()
                    .chain([&HANDLER_KEY])
                    .chain(JWKS_KEYS)
                    .filter_map(|key| {
                        let value = match *key {
                            "sasl.jaas.config" => self.jaas_config(listener, mechanism),
                            _ => self.listener_value(listener, Some(mechanism), key),
                        };
                        Some(((*key).to_owned(), value?))
                    })
                    .collect();
                (mechanism.clone(), settings)
            })
            .collect();
        SaslListenerConfig {
            listener: listener.to_owned(),
            failed_delay: Duration::from_millis(
                millis(self.listener_value(listener, None, "connection.failed.authentication.delay.ms")).unwrap_or(100),
            ),
            receive_bytes_max: millis(self.listener_value(listener, None, "sasl.server.max.receive.size"))
                .and_then(|max| usize::try_from(max).ok())
                .unwrap_or(524_288),
            mechanisms,
            reauth_max,
            mechanism_settings,
        }
    }

    /// `key` for `listener` (and `mechanism`), the most specific form set.
    fn listener_value(&self, listener: &str, mechanism: Option<&str>, key: &str) -> Option<String> {
        let listener = listener.to_ascii_lowercase();
        let mut forms = Vec::new();
        if let Some(mechanism) = mechanism {
            forms.push(format!("listener.name.{listener}.{}.{key}", mechanism.to_ascii_lowercase()));
        }
        forms.push(format!("listener.name.{listener}.{key}"));
        forms.push(key.to_owned());
        forms.iter().find_map(|form| self.get(form)?.value.clone())
    }

    /// `listener.name.NAME.MECHANISM.sasl.jaas.config`, the one form a broker reads.
    fn jaas_config(&self, listener: &str, mechanism: &str) -> Option<String> {
        let key = format!(
            "listener.name.{}.{}.sasl.jaas.config",
            listener.to_ascii_lowercase(),
            mechanism.to_ascii_lowercase()
        );
        self.get(&key)?.value.clone()
    }
}

/// `sasl.mechanism.inter.broker.protocol`.
const INTER_BROKER_MECHANISM_KEY: &str = "sasl.mechanism.inter.broker.protocol";
/// `sasl.mechanism.controller.protocol`.
const CONTROLLER_MECHANISM_KEY: &str = "sasl.mechanism.controller.protocol";

/// How this node logs in on one of its own SASL links: the mechanism, and the listener's JAAS
/// entry for it, whose `username` and `password` options are the node's credentials (checked at
/// start-up). Its `Debug` shows neither.
#[derive(Clone)]
pub struct NodeLogin {
    /// The listener's name, upper-case.
    pub listener: String,
    pub mechanism: Mechanism,
    jaas: jaas::JaasEntry,
}

impl std::fmt::Debug for NodeLogin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeLogin")
            .field("listener", &self.listener)
            .field("mechanism", &self.mechanism)
            .field("user", &self.user())
            .finish_non_exhaustive()
    }
}

impl NodeLogin {
    /// A login on `listener` with `mechanism` and the JAAS entry holding the node's `username`
    /// and `password`; the error says what the entry lacks.
    pub fn new(listener: &str, mechanism: Mechanism, jaas: jaas::JaasEntry) -> Result<NodeLogin, String> {
        client_from_jaas(mechanism, &jaas).map_err(|e| e.to_string())?;
        Ok(NodeLogin { listener: listener.to_owned(), mechanism, jaas })
    }

    /// The client side of one connection's exchange.
    pub fn client(&self) -> Result<Box<dyn SaslClient>, String> {
        client_from_jaas(self.mechanism, &self.jaas).map_err(|e| e.to_string())
    }

    /// The user this node logs in as (never the password).
    pub fn user(&self) -> &str {
        self.jaas.option("username").unwrap_or_default()
    }
}

impl ServerConfig {
    /// This node's login on its links to other brokers, when the inter-broker listener is SASL.
    pub fn inter_broker_login(&self) -> Result<Option<NodeLogin>, ConfigError> {
        self.node_login(&self.inter_broker_listener_name, INTER_BROKER_MECHANISM_KEY)
    }

    /// This node's login on its links to the controllers, when the controller listener is SASL.
    pub fn controller_login(&self) -> Result<Option<NodeLogin>, ConfigError> {
        match self.controller_listener_names.first() {
            Some(listener) => self.node_login(listener, CONTROLLER_MECHANISM_KEY),
            None => Ok(None),
        }
    }

    fn node_login(&self, listener: &str, mechanism_key: &str) -> Result<Option<NodeLogin>, ConfigError> {
        let protocol = self.listener_security_protocol_map.get(listener);
        if !protocol.is_some_and(|protocol| protocol.uses_sasl()) {
            return Ok(None);
        }
        let controller = mechanism_key == CONTROLLER_MECHANISM_KEY;
        let role = if controller { "controller" } else { "inter-broker" };
        let name = self.get(mechanism_key).and_then(|entry| entry.value.clone()).unwrap_or_default();
        let name = name.trim();
        let enabled = self.sasl_listener(listener).mechanisms;
        if !controller && !enabled.iter().any(|mechanism| mechanism == name) {
            // Kafka's own requirement, its words first.
            return Err(ConfigError::rule(
                mechanism_key,
                format!(
                    "{mechanism_key} must be included in sasl.enabled.mechanisms when SASL is used for inter-broker \
                     communication: it is {name} (Kafka's default is GSSAPI) and listener {listener} enables {enabled:?}"
                ),
            ));
        }
        let refuse = |reason: String| {
            ConfigError::rule(mechanism_key, format!("the {role} listener {listener} uses SASL: {reason}"))
        };
        let mechanism = Mechanism::from_name(name).map_err(|e| refuse(format!("{mechanism_key} is {name}: {e}")))?;
        if controller && matches!(mechanism, Mechanism::Scram(_)) {
            return Err(refuse(format!(
                "{mechanism_key} is {name}, but SCRAM credentials live in the metadata log, which controllers must \
                 reach one another to read (KIP-900): use PLAIN between nodes and controllers"
            )));
        }
        let jaas_key =
            format!("listener.name.{}.{}.sasl.jaas.config", listener.to_ascii_lowercase(), name.to_ascii_lowercase());
        let Some(text) = self.jaas_config(listener, name) else {
            return Err(ConfigError::rule(
                &jaas_key,
                format!(
                    "the {role} listener {listener} uses SASL with {name} ({mechanism_key}), but {jaas_key} is not \
                     set: this node logs in to its peers with its username and password options"
                ),
            ));
        };
        let entry = jaas::parse_single(&text).map_err(|e| ConfigError::rule(&jaas_key, e.to_string()))?;
        let login =
            NodeLogin::new(listener, mechanism, entry).map_err(|reason| ConfigError::rule(&jaas_key, reason))?;
        Ok(Some(login))
    }

    /// The settings of this node's CONTROLLER listener when it binds one and it is SASL.
    pub fn controller_sasl_listener(&self) -> Option<SaslListenerConfig> {
        let name = self.controller_listener_names.first()?;
        self.sasl_listeners().into_iter().find(|listener| &listener.listener == name)
    }
}

/// A SASL controller listener serves only Strand's nodes, which log in there with PLAIN: a
/// mechanism none of them can use is refused rather than left open.
fn check_controller_listeners(config: &ServerConfig) -> Result<(), ConfigError> {
    let listeners = config.sasl_listeners();
    for listener in listeners.iter().filter(|l| config.controller_listener_names.contains(&l.listener)) {
        let key = format!("listener.name.{}.sasl.enabled.mechanisms", listener.listener.to_ascii_lowercase());
        if let Some(other) = listener.mechanisms.iter().find(|mechanism| mechanism.as_str() != "PLAIN") {
            return Err(ConfigError::rule(
                &key,
                format!(
                    "the controller listener {} enables {other}, which no node can log in with there (SCRAM \
                     credentials live in the metadata log the controllers serve; nodes do not log in with \
                     OAUTHBEARER tokens): enable only PLAIN on it",
                    listener.listener
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses the first SASL setting this node would otherwise ignore or misread.
pub(super) fn check(config: &ServerConfig) -> Result<(), ConfigError> {
    let jwks_listeners: Vec<String> = config
        .sasl_listeners()
        .iter()
        .filter(|listener| {
            listener.mechanisms.iter().any(|m| m == "OAUTHBEARER")
                && uses_jwks(listener.mechanism_settings.get("OAUTHBEARER"))
        })
        .map(|listener| listener.listener.to_ascii_lowercase())
        .collect();
    for (key, entry) in &config.entries {
        if !matches!(entry.source, ConfigSource::File | ConfigSource::Override) {
            continue;
        }
        if let Some(reason) = unserved(key, entry.value.as_deref().unwrap_or_default(), &jwks_listeners) {
            return Err(ConfigError::rule(key, reason));
        }
    }
    for listener in config.sasl_listeners() {
        check_listener(&listener)?;
    }
    check_controller_listeners(config)?;
    config.inter_broker_login()?;
    config.controller_login()?;
    Ok(())
}

fn check_listener(listener: &SaslListenerConfig) -> Result<(), ConfigError> {
    listener.factory_without_credentials().map(|_| ())
}

/// Why a `sasl.*`-family key the user set would not do what Kafka's documentation says here.
fn unserved(key: &str, value: &str, jwks_listeners: &[String]) -> Option<String> {
    let lower = key.to_ascii_lowercase();
    let base = super::security::listener_base(&lower);
    if lower == "sasl.jaas.config" {
        return Some(
            "a broker reads sasl.jaas.config only per listener and mechanism \
             (listener.name.NAME.MECHANISM.sasl.jaas.config); Kafka ignores the bare key, so it is refused"
                .to_owned(),
        );
    }
    if base == HANDLER_KEY || JWKS_KEYS.contains(&base) {
        return unserved_key(&lower, value, jwks_listeners);
    }
    if !base.starts_with("sasl.") || SERVED_KEYS.contains(&base) {
        return None;
    }
    Some(format!(
        "{base} is not supported by Strand: its SASL listeners serve PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and \
         OAUTHBEARER (Kafka's unsecured validator, or its JWKS validator) with the built-in handlers; remove it"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Result<ServerConfig, ConfigError> {
        let mut all = vec![
            ("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0"),
            (
                "listener.security.protocol.map",
                "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
            ),
        ];
        all.extend_from_slice(pairs);
        let pairs: Vec<(String, String)> = all.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        ServerConfig::from_properties(None, &pairs)
    }

    const USERS: (&str, &str) = (
        "listener.name.sasl_plaintext.plain.sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"alice-secret\";",
    );

    #[test]
    fn settings_resolve_per_listener_and_mechanism() -> Result<(), ConfigError> {
        let config = config(&[
            ("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-512"),
            USERS,
            ("connections.max.reauth.ms", "60000"),
            ("listener.name.sasl_plaintext.scram-sha-512.connections.max.reauth.ms", "2000"),
            ("listener.name.sasl_plaintext.sasl.server.max.receive.size", "4096"),
        ])?;
        let listeners = config.sasl_listeners();
        let [listener] = listeners.as_slice() else { panic!("{listeners:?}") };
        assert_eq!(listener.listener, "SASL_PLAINTEXT");
        assert_eq!(listener.mechanisms, ["PLAIN", "SCRAM-SHA-512"]);
        assert_eq!(listener.reauth_max.get("PLAIN"), Some(&Duration::from_secs(60)));
        assert_eq!(listener.reauth_max.get("SCRAM-SHA-512"), Some(&Duration::from_secs(2)));
        assert_eq!(listener.receive_bytes_max, 4096);
        assert_eq!(listener.failed_delay, Duration::from_millis(100));
        let plain = listener.mechanism_settings.get("PLAIN").and_then(|s| s.get("sasl.jaas.config"));
        assert_eq!(plain.map(String::as_str), Some(USERS.1));
        assert!(listener.mechanism_settings.get("SCRAM-SHA-512").is_some_and(|s| !s.contains_key("sasl.jaas.config")));
        assert_eq!(config.warnings, Vec::<String>::new(), "a per-listener key read was reported unknown");
        Ok(())
    }

    /// The per-listener keys a SASL listener reads are known; the forms it does not read are not.
    #[test]
    fn per_listener_keys_are_known_in_the_forms_read() {
        for key in [
            "listener.name.controller.plain.connections.max.reauth.ms",
            "listener.name.controller.connections.max.reauth.ms",
            "listener.name.sasl_ssl.connection.failed.authentication.delay.ms",
            "listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config",
            "listener.name.sasl_ssl.sasl.enabled.mechanisms",
        ] {
            assert!(is_listener_key(key), "{key} is read but reported unknown");
        }
        for key in [
            "listener.name.sasl_ssl.plain.connection.failed.authentication.delay.ms",
            "listener.name.sasl_ssl.num.io.threads",
            "connections.max.reauth.ms",
            "listener.name.sasl_ssl",
        ] {
            assert!(!is_listener_key(key), "{key} is not read per listener");
        }
    }

    #[test]
    fn what_a_sasl_listener_cannot_do_is_refused_by_name() {
        type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str);
        let cases: &[Case<'_>] = &[
            (&[], "listener.name.sasl_plaintext.sasl.enabled.mechanisms", "GSSAPI"),
            (
                &[("sasl.enabled.mechanisms", "GSSAPI")],
                "listener.name.sasl_plaintext.sasl.enabled.mechanisms",
                "Kerberos",
            ),
            (
                &[("sasl.enabled.mechanisms", "DIGEST-MD5")],
                "listener.name.sasl_plaintext.sasl.enabled.mechanisms",
                "'DIGEST-MD5' is not supported",
            ),
            (
                &[("sasl.enabled.mechanisms", "OAUTHBEARER")],
                "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
                "OAuthBearerLoginModule",
            ),
            (
                &[
                    ("sasl.enabled.mechanisms", "PLAIN"),
                    ("listener.name.sasl_plaintext.plain.sasl.jaas.config", "org.Nope required user_a=\"b\";"),
                ],
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "PlainLoginModule",
            ),
            (
                &[("sasl.enabled.mechanisms", "PLAIN")],
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "user_NAME",
            ),
            (&[("sasl.enabled.mechanisms", "PLAIN"), USERS, ("sasl.jaas.config", "x")], "sasl.jaas.config", "bare key"),
            (
                &[("sasl.enabled.mechanisms", "PLAIN"), USERS, ("sasl.kerberos.service.name", "kafka")],
                "sasl.kerberos.service.name",
                "not supported",
            ),
            (
                &[
                    ("sasl.enabled.mechanisms", "PLAIN"),
                    USERS,
                    ("listener.name.sasl_plaintext.plain.sasl.server.callback.handler.class", "x.Handler"),
                ],
                "listener.name.sasl_plaintext.plain.sasl.server.callback.handler.class",
                "not supported",
            ),
            (
                &[("sasl.enabled.mechanisms", "PLAIN"), USERS, ("inter.broker.listener.name", "SASL_PLAINTEXT")],
                "sasl.mechanism.inter.broker.protocol",
                "must be included in sasl.enabled.mechanisms",
            ),
            (
                &[
                    ("sasl.enabled.mechanisms", "PLAIN"),
                    USERS,
                    ("inter.broker.listener.name", "SASL_PLAINTEXT"),
                    ("sasl.mechanism.inter.broker.protocol", "PLAIN"),
                ],
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "no 'username' option",
            ),
            (
                &[
                    ("sasl.enabled.mechanisms", "SCRAM-SHA-512"),
                    ("inter.broker.listener.name", "SASL_PLAINTEXT"),
                    ("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512"),
                ],
                "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config",
                "username and password options",
            ),
        ];
        for (pairs, key, expected) in cases {
            let error = config(pairs).err();
            let text = error.as_ref().map(ToString::to_string).unwrap_or_default();
            assert_eq!(error.as_ref().and_then(ConfigError::key), Some(*key), "{pairs:?}: {text}");
            assert!(text.contains(expected), "{pairs:?}: {text}");
        }
    }

    const NODE_PLAIN: (&str, &str) = (
        "listener.name.controller.plain.sasl.jaas.config",
        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"node\" password=\"node-secret\" \
         user_node=\"node-secret\";",
    );
    const NODE_SCRAM: (&str, &str) = (
        "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config",
        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"node\" password=\"node-secret\";",
    );
    /// [`config`]'s listeners with a SASL_PLAINTEXT CONTROLLER listener.
    fn sasl_controller(pairs: &[(&str, &str)]) -> Result<ServerConfig, ConfigError> {
        let mut all = vec![
            ("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0"),
            (
                "listener.security.protocol.map",
                "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT",
            ),
        ];
        all.extend_from_slice(pairs);
        let pairs: Vec<(String, String)> = all.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        ServerConfig::from_properties(None, &pairs)
    }

    /// SASL links between nodes: SCRAM to brokers and PLAIN to controllers log in with the
    /// listeners' JAAS usernames; SCRAM towards controllers, or enabled on their listener, is
    /// refused by name, as is a mechanism outside Strand's clients.
    #[test]
    fn node_logins_come_from_the_links_listeners() -> Result<(), ConfigError> {
        let good = [
            ("listener.name.sasl_plaintext.sasl.enabled.mechanisms", "SCRAM-SHA-512"),
            ("listener.name.controller.sasl.enabled.mechanisms", "PLAIN"),
            ("controller.listener.names", "CONTROLLER"),
            ("inter.broker.listener.name", "SASL_PLAINTEXT"),
            ("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512"),
            ("sasl.mechanism.controller.protocol", "PLAIN"),
            NODE_SCRAM,
            NODE_PLAIN,
        ];
        let parsed = sasl_controller(&good)?;
        let brokers = parsed.inter_broker_login()?.expect("a SASL inter-broker listener");
        assert_eq!(
            (brokers.listener.as_str(), brokers.mechanism.name(), brokers.user()),
            ("SASL_PLAINTEXT", "SCRAM-SHA-512", "node")
        );
        assert!(!format!("{brokers:?}").contains("node-secret"), "{brokers:?}");
        let controllers = parsed.controller_login()?.expect("a SASL controller listener");
        assert_eq!((controllers.mechanism.name(), controllers.user()), ("PLAIN", "node"));
        assert_eq!(controllers.client().map(|c| c.mechanism()), Ok("PLAIN"));

        type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str);
        let cases: &[Case<'_>] = &[
            (
                &[("sasl.mechanism.controller.protocol", "SCRAM-SHA-512")],
                "sasl.mechanism.controller.protocol",
                "KIP-900",
            ),
            (&[("sasl.mechanism.controller.protocol", "GSSAPI")], "sasl.mechanism.controller.protocol", "Kerberos"),
            (
                &[("listener.name.controller.sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256")],
                "listener.name.controller.sasl.enabled.mechanisms",
                "enables SCRAM-SHA-256",
            ),
            (
                &[
                    ("listener.name.sasl_plaintext.sasl.enabled.mechanisms", "OAUTHBEARER"),
                    ("sasl.mechanism.inter.broker.protocol", "OAUTHBEARER"),
                    (
                        "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;",
                    ),
                ],
                "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
                "OAUTHBEARER is not supported for this node's own links",
            ),
        ];
        for (changes, key, expected) in cases {
            let mut pairs: Vec<(&str, &str)> = good.to_vec();
            pairs.retain(|(k, _)| !changes.iter().any(|(changed, _)| changed == k));
            pairs.extend_from_slice(changes);
            let error = sasl_controller(&pairs).err();
            let text = error.as_ref().map(ToString::to_string).unwrap_or_default();
            assert_eq!(error.as_ref().and_then(ConfigError::key), Some(*key), "{changes:?}: {text}");
            assert!(text.contains(expected), "{changes:?}: {text}");
        }
        Ok(())
    }
}
