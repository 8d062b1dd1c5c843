//! KIP-768 on a SASL listener: `listener.name.NAME.oauthbearer.sasl.server.callback.handler.class`
//! set to Kafka's [`JWKS_HANDLER`] makes that listener's OAUTHBEARER validate signed JWTs against
//! the JWK set at `sasl.oauthbearer.jwks.endpoint.url` (`https://`, `http://` or `file:`), with
//! the [`JWKS_KEYS`] Kafka's handler reads. Any other handler class, the class in another form,
//! and a `sasl.oauthbearer.*` key no such listener reads are refused by [`unserved_key`]: each
//! would do nothing here.
//!
//! An `https` endpoint is trusted by Mozilla's roots (`webpki-roots`, where Kafka uses the JVM's
//! trust store), or by the PEM certificates of the JAAS options `ssl.truststore.location` with
//! `ssl.truststore.type=PEM`, the options Kafka's handler reads for its HTTPS client.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use strand_security::sasl::jaas::JaasEntry;
use strand_security::sasl::oauthbearer::JwksSettings;

use super::ConfigError;
use super::keys::parse_list;

/// The one server callback handler a listener may name: Kafka's KIP-768 validator.
pub const JWKS_HANDLER: &str = "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";

/// The handler's 3.x name, removed in Kafka 4.0.
const REMOVED_HANDLER: &str =
    "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerValidatorCallbackHandler";

/// `sasl.server.callback.handler.class`.
pub const HANDLER_KEY: &str = "sasl.server.callback.handler.class";

/// What the JAAS entry of a JWKS listener must name.
const LOGIN_MODULE: &str = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";

const URL_KEY: &str = "sasl.oauthbearer.jwks.endpoint.url";
const REFRESH_KEY: &str = "sasl.oauthbearer.jwks.endpoint.refresh.ms";
const BACKOFF_KEY: &str = "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms";
const BACKOFF_MAX_KEY: &str = "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms";
const AUDIENCE_KEY: &str = "sasl.oauthbearer.expected.audience";
const ISSUER_KEY: &str = "sasl.oauthbearer.expected.issuer";
const SKEW_KEY: &str = "sasl.oauthbearer.clock.skew.seconds";
const SUB_KEY: &str = "sasl.oauthbearer.sub.claim.name";
const SCOPE_KEY: &str = "sasl.oauthbearer.scope.claim.name";

/// The `sasl.oauthbearer.*` keys Kafka's validator handler reads.
pub const JWKS_KEYS: &[&str] =
    &[URL_KEY, REFRESH_KEY, BACKOFF_KEY, BACKOFF_MAX_KEY, AUDIENCE_KEY, ISSUER_KEY, SKEW_KEY, SUB_KEY, SCOPE_KEY];

/// Where a listener's JWK set comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JwksSource {
    /// A `file:` URL, read again at each refresh.
    File(PathBuf),
    /// An `http://` or `https://` URL.
    Http(String),
}

/// One listener's JWK set endpoint and validator settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JwksEndpoint {
    /// The listener, upper-case, for the logs.
    pub listener: String,
    pub source: JwksSource,
    /// `sasl.oauthbearer.jwks.endpoint.refresh.ms`, default one hour.
    pub refresh: Duration,
    /// `...retry.backoff.ms` (default 100 ms): the first wait after a failed fetch, doubled after
    /// each further failure.
    pub retry_backoff: Duration,
    /// `...retry.backoff.max.ms` (default 10 s): how long one refresh keeps retrying.
    pub retry_backoff_max: Duration,
    /// JAAS `ssl.truststore.location` (PEM): the only roots trusted for `https`; none: Mozilla's.
    pub trust_store: Option<PathBuf>,
    pub settings: JwksSettings,
}

/// Whether `settings` (OAUTHBEARER's of a listener) name Kafka's JWKS validator.
pub(crate) fn uses_jwks(settings: Option<&BTreeMap<String, String>>) -> bool {
    settings.and_then(|settings| settings.get(HANDLER_KEY)).is_some_and(|class| class.trim() == JWKS_HANDLER)
}

/// The endpoint of `listener`, from its OAUTHBEARER `settings` and JAAS entry.
pub(crate) fn jwks_endpoint(
    listener: &str,
    settings: &BTreeMap<String, String>,
    jaas: &JaasEntry,
) -> Result<JwksEndpoint, ConfigError> {
    let key = |base: &str| format!("listener.name.{}.oauthbearer.{base}", listener.to_ascii_lowercase());
    let text = |base: &str| settings.get(base).map(|value| value.trim()).filter(|value| !value.is_empty());
    let millis = |base: &str, default: u64, min: u64| -> Result<Duration, ConfigError> {
        let Some(value) = text(base) else { return Ok(Duration::from_millis(default)) };
        match value.parse::<u64>() {
            Ok(ms) if ms >= min => Ok(Duration::from_millis(ms)),
            _ => Err(ConfigError::rule(
                &key(base),
                format!("The OAuth configuration option {base} value ({value}) must be at least {min}"),
            )),
        }
    };
    let url = text(URL_KEY).ok_or_else(|| {
        ConfigError::rule(
            &key(URL_KEY),
            format!(
                "SASL listener {listener} validates OAUTHBEARER with {JWKS_HANDLER}, which requires the JWK set's URL \
                 (https://, http:// or file:) in {URL_KEY}"
            ),
        )
    })?;
    let source = parse_url(url).map_err(|reason| ConfigError::rule(&key(URL_KEY), reason))?;
    let skew = match text(SKEW_KEY) {
        None => 30,
        Some(value) => value.parse::<i32>().ok().filter(|skew| *skew >= 0).ok_or_else(|| {
            ConfigError::rule(
                &key(SKEW_KEY),
                format!("The OAuth configuration option {SKEW_KEY} value ({value}) must be at least 0"),
            )
        })?,
    };
    let claim = |base: &str, default: &str| text(base).unwrap_or(default).to_owned();
    if jaas.login_module != LOGIN_MODULE {
        return Err(ConfigError::rule(
            &key("sasl.jaas.config"),
            format!(
                "SASL listener {listener}'s OAUTHBEARER JAAS entry must name {LOGIN_MODULE}, not {}",
                jaas.login_module
            ),
        ));
    }
    Ok(JwksEndpoint {
        listener: listener.to_owned(),
        source,
        refresh: millis(REFRESH_KEY, 3_600_000, 1)?,
        retry_backoff: millis(BACKOFF_KEY, 100, 0)?,
        retry_backoff_max: millis(BACKOFF_MAX_KEY, 10_000, 0)?,
        trust_store: trust_store(jaas).map_err(|reason| ConfigError::rule(&key("sasl.jaas.config"), reason))?,
        settings: JwksSettings {
            expected_audience: text(AUDIENCE_KEY).map(parse_list).unwrap_or_default(),
            expected_issuer: text(ISSUER_KEY).map(str::to_owned),
            clock_skew_seconds: i64::from(skew),
            sub_claim_name: claim(SUB_KEY, "sub"),
            scope_claim_name: claim(SCOPE_KEY, "scope"),
        },
    })
}

/// Kafka's `ConfigurationUtils.validateUrl`: `http`, `https` or `file`.
fn parse_url(text: &str) -> Result<JwksSource, String> {
    let url = reqwest::Url::parse(text).map_err(|e| {
        format!("The OAuth configuration option {URL_KEY} contains a URL ({text}) that is malformed: {e}")
    })?;
    match url.scheme() {
        "http" | "https" => Ok(JwksSource::Http(url.to_string())),
        "file" => url.to_file_path().map(JwksSource::File).map_err(|()| {
            format!("The OAuth configuration option {URL_KEY} contains a URL ({text}) that is not a local file")
        }),
        scheme => Err(format!(
            "The OAuth configuration option {URL_KEY} contains a URL ({text}) that contains an invalid protocol \
             ({scheme}); only \"http\", \"https\", and \"file\" protocol are supported"
        )),
    }
}

/// The JAAS options' `ssl.*` settings for the HTTPS client: a PEM trust store or none.
fn trust_store(jaas: &JaasEntry) -> Result<Option<PathBuf>, String> {
    for name in jaas.options.keys().filter(|name| name.starts_with("ssl.")) {
        if name != "ssl.truststore.location" && name != "ssl.truststore.type" {
            return Err(format!(
                "JAAS option {name} is not supported for the JWKS endpoint's HTTPS client: only \
                 ssl.truststore.location with ssl.truststore.type=PEM"
            ));
        }
    }
    let Some(location) = jaas.option("ssl.truststore.location").map(str::trim).filter(|l| !l.is_empty()) else {
        return Ok(None);
    };
    match jaas.option("ssl.truststore.type").map(str::trim) {
        Some(kind) if kind.eq_ignore_ascii_case("PEM") => Ok(Some(PathBuf::from(location))),
        kind => Err(format!(
            "JAAS option ssl.truststore.type must be PEM for the JWKS endpoint's trust store (is {}): Strand reads \
             no JKS or PKCS12 stores",
            kind.unwrap_or("unset, JKS in Kafka")
        )),
    }
}

/// Why a key the user set of the handler's family would do nothing here; `jwks_listeners` are
/// the lower-case names of the listeners that validate with [`JWKS_HANDLER`].
pub(super) fn unserved_key(key: &str, value: &str, jwks_listeners: &[String]) -> Option<String> {
    let (listener, mechanism, base) = scope(key);
    let served_on = |listener: &str| jwks_listeners.iter().any(|name| name == listener);
    if base == HANDLER_KEY {
        let value = value.trim();
        if value == REMOVED_HANDLER {
            return Some(format!("{REMOVED_HANDLER} was removed in Kafka 4.0; use {JWKS_HANDLER}"));
        }
        if value != JWKS_HANDLER {
            return Some(format!(
                "custom SASL server callback handlers are not supported by Strand: the one it serves is \
                 {JWKS_HANDLER}, for OAUTHBEARER; remove it"
            ));
        }
        return match (listener, mechanism) {
            (Some(listener), Some("oauthbearer")) if served_on(listener) => None,
            (Some(listener), Some("oauthbearer")) => {
                Some(format!("listener {listener} is not a SASL listener enabling OAUTHBEARER"))
            }
            _ => Some(format!(
                "a broker reads {HANDLER_KEY} only per listener and mechanism \
                 (listener.name.NAME.oauthbearer.{HANDLER_KEY}); Kafka ignores this form, so it is refused"
            )),
        };
    }
    if !JWKS_KEYS.contains(&base) {
        return None;
    }
    let read = match (listener, mechanism) {
        (Some(listener), None | Some("oauthbearer")) => served_on(listener),
        (Some(_), Some(_)) => false,
        (None, _) => !jwks_listeners.is_empty(),
    };
    (!read).then(|| {
        format!(
            "{base} configures {JWKS_HANDLER}, which no OAUTHBEARER listener it applies to uses (set \
             listener.name.NAME.oauthbearer.{HANDLER_KEY}={JWKS_HANDLER}); it would do nothing, so it is refused"
        )
    })
}

/// A key's listener and mechanism (`listener.name.L.[M.]base`, lower-case) and its base.
fn scope(key: &str) -> (Option<&str>, Option<&str>, &str) {
    let Some(rest) = key.strip_prefix("listener.name.") else { return (None, None, key) };
    let Some((listener, base)) = rest.split_once('.') else { return (None, None, key) };
    match base.split_once('.') {
        Some((mechanism, after)) if after.starts_with("sasl.") => (Some(listener), Some(mechanism), after),
        _ => (Some(listener), None, base),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ServerConfig;

    const JAAS_KEY: &str = "listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config";
    const JAAS: &str = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;";
    const HANDLER: &str = "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class";

    fn config(pairs: &[(&str, &str)]) -> Result<ServerConfig, ConfigError> {
        let mut all = vec![
            ("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0"),
            (
                "listener.security.protocol.map",
                "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
            ),
            ("sasl.enabled.mechanisms", "OAUTHBEARER"),
            (JAAS_KEY, JAAS),
        ];
        all.extend_from_slice(pairs);
        let pairs: Vec<(String, String)> = all.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        ServerConfig::from_properties(None, &pairs)
    }

    fn endpoint(pairs: &[(&str, &str)]) -> Result<Option<JwksEndpoint>, ConfigError> {
        let config = config(pairs)?;
        let listeners = config.sasl_listeners();
        let [listener] = listeners.as_slice() else { panic!("{listeners:?}") };
        listener.jwks_endpoint()
    }

    /// The handler switches the listener to JWKS validation with Kafka's defaults, each setting
    /// read in its most specific form; without it the listener keeps the unsecured validator.
    #[test]
    fn the_handler_switches_a_listener_to_jwks() -> Result<(), ConfigError> {
        assert_eq!(endpoint(&[])?, None);
        let defaults = endpoint(&[(HANDLER, JWKS_HANDLER), (URL_KEY, "file:/etc/jwks.json")])?.expect("JWKS");
        assert_eq!(defaults.source, JwksSource::File("/etc/jwks.json".into()));
        assert_eq!(
            (defaults.refresh, defaults.retry_backoff, defaults.retry_backoff_max),
            (Duration::from_secs(3600), Duration::from_millis(100), Duration::from_secs(10))
        );
        assert_eq!(defaults.settings, JwksSettings::default());
        assert_eq!(defaults.trust_store, None);
        let tuned = endpoint(&[
            (HANDLER, JWKS_HANDLER),
            (URL_KEY, "https://idp.example/jwks"),
            ("listener.name.sasl_plaintext.sasl.oauthbearer.expected.audience", "kafka, other"),
            ("listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.expected.issuer", "https://idp.example"),
            (ISSUER_KEY, "ignored, less specific"),
            (SKEW_KEY, "5"),
            (SUB_KEY, "client_id"),
            (SCOPE_KEY, "scp"),
            (REFRESH_KEY, "60000"),
            (BACKOFF_KEY, "10"),
            (BACKOFF_MAX_KEY, "500"),
            (
                JAAS_KEY,
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \
                 ssl.truststore.location=\"/ca.pem\" ssl.truststore.type=\"PEM\";",
            ),
        ])?
        .expect("JWKS");
        assert_eq!(tuned.source, JwksSource::Http("https://idp.example/jwks".into()));
        assert_eq!(tuned.settings.expected_audience, ["kafka", "other"]);
        assert_eq!(tuned.settings.expected_issuer.as_deref(), Some("https://idp.example"));
        assert_eq!(tuned.settings.clock_skew_seconds, 5);
        assert_eq!(
            (tuned.settings.sub_claim_name.as_str(), tuned.settings.scope_claim_name.as_str()),
            ("client_id", "scp")
        );
        assert_eq!(tuned.refresh, Duration::from_secs(60));
        assert_eq!(
            (tuned.retry_backoff, tuned.retry_backoff_max),
            (Duration::from_millis(10), Duration::from_millis(500))
        );
        assert_eq!(tuned.trust_store, Some(PathBuf::from("/ca.pem")));
        Ok(())
    }

    /// Each refusal names the key at fault and says why.
    #[test]
    fn what_the_handler_cannot_use_is_refused_by_name() {
        let url_key = "listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.jwks.endpoint.url";
        type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str);
        let cases: &[Case<'_>] = &[
            (&[(HANDLER, JWKS_HANDLER)], url_key, "requires the JWK set's URL"),
            (&[(HANDLER, JWKS_HANDLER), (URL_KEY, "ftp://idp/jwks")], url_key, "invalid protocol (ftp)"),
            (&[(HANDLER, JWKS_HANDLER), (URL_KEY, "not a url")], url_key, "malformed"),
            (&[(HANDLER, "com.example.Handler")], HANDLER, "not supported"),
            (&[(HANDLER, REMOVED_HANDLER)], HANDLER, "removed in Kafka 4.0"),
            (
                &[("listener.name.sasl_plaintext.sasl.server.callback.handler.class", JWKS_HANDLER)],
                "listener.name.sasl_plaintext.sasl.server.callback.handler.class",
                "only per listener and mechanism",
            ),
            (&[(HANDLER_KEY, JWKS_HANDLER)], HANDLER_KEY, "only per listener and mechanism"),
            (
                &[("listener.name.plaintext.oauthbearer.sasl.server.callback.handler.class", JWKS_HANDLER)],
                "listener.name.plaintext.oauthbearer.sasl.server.callback.handler.class",
                "not a SASL listener enabling OAUTHBEARER",
            ),
            (&[(AUDIENCE_KEY, "kafka")], AUDIENCE_KEY, "would do nothing"),
            (
                &[
                    (HANDLER, JWKS_HANDLER),
                    (URL_KEY, "file:/j"),
                    ("listener.name.plaintext.sasl.oauthbearer.expected.issuer", "x"),
                ],
                "listener.name.plaintext.sasl.oauthbearer.expected.issuer",
                "would do nothing",
            ),
            (
                &[("sasl.oauthbearer.token.endpoint.url", "https://idp/token")],
                "sasl.oauthbearer.token.endpoint.url",
                "not supported",
            ),
            (
                &[(HANDLER, JWKS_HANDLER), (URL_KEY, "file:/j"), (REFRESH_KEY, "0")],
                "listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.jwks.endpoint.refresh.ms",
                "must be at least 1",
            ),
            (
                &[(HANDLER, JWKS_HANDLER), (URL_KEY, "file:/j"), (SKEW_KEY, "-1")],
                "listener.name.sasl_plaintext.oauthbearer.sasl.oauthbearer.clock.skew.seconds",
                "must be at least 0",
            ),
            (
                &[(HANDLER, JWKS_HANDLER), (URL_KEY, "file:/j"), (JAAS_KEY, "org.example.Login required;")],
                JAAS_KEY,
                "OAuthBearerLoginModule",
            ),
            (
                &[
                    (HANDLER, JWKS_HANDLER),
                    (URL_KEY, "file:/j"),
                    (
                        JAAS_KEY,
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \
                         ssl.truststore.location=\"/t.jks\";",
                    ),
                ],
                JAAS_KEY,
                "must be PEM",
            ),
            (
                &[
                    (HANDLER, JWKS_HANDLER),
                    (URL_KEY, "file:/j"),
                    (
                        JAAS_KEY,
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required \
                         ssl.keystore.location=\"/k\";",
                    ),
                ],
                JAAS_KEY,
                "ssl.keystore.location is not supported",
            ),
        ];
        for (pairs, key, expected) in cases {
            let error = config(pairs).err();
            let text = error.as_ref().map(ToString::to_string).unwrap_or_default();
            assert_eq!(error.as_ref().and_then(ConfigError::key), Some(*key), "{pairs:?}: {text}");
            assert!(text.contains(expected), "{pairs:?}: {text}");
        }
    }
}
