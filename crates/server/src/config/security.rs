//! The security settings Strand does not implement yet, refused at start-up.
//!
//! A node that accepted them and went on serving without them would be silently insecure, so a
//! configuration that sets any of them does not load: `authorizer.class.name` naming any class
//! but Kafka's `StandardAuthorizer`, `principal.builder.class`, `security.providers`, and a
//! `delegation.token.*` key other than the four [`delegation_tokens`] reads (Kafka 4 removed
//! `delegation.token.master.key`).
//!
//! [`delegation_tokens`]: `delegation.token.secret.key` (tokens are enabled only when it is set
//! and not empty, as Kafka's `tokenAuthEnabled`), `delegation.token.max.lifetime.ms`,
//! `delegation.token.expiry.time.ms` and `delegation.token.expiry.check.interval.ms`.
//!
//! TLS and SASL themselves are served: [`super::tls`] refuses the `ssl.*` keys it does not
//! implement, [`super::sasl`] the `sasl.*` ones and what the node's own SASL links cannot do.
//!
//! [`authorizer`]: `authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer`
//! with `super.users` (`;`-separated `Type:name` principals) and `allow.everyone.if.no.acl.found`
//! (true only if it says `true`, as Java's `Boolean.parseBoolean`), read as Kafka's
//! `StandardAuthorizer.configure` reads them. Without an authorizer Kafka ignores both, and so
//! does Strand (`super.users` also names who may reach a TLS CONTROLLER listener).

use strand_metadata::authorizer::AuthorizerSettings;
use strand_security::delegation_token::DelegationTokenSettings;

use super::{ConfigError, ConfigSource, ServerConfig};

/// The one authorizer Strand implements, by the class name Kafka users write.
pub const STANDARD_AUTHORIZER: &str = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

/// Whether `key` configures the authorizer without being a `KafkaConfig` key.
pub(super) fn is_authorizer_key(key: &str) -> bool {
    matches!(key, "super.users" | "allow.everyone.if.no.acl.found")
}

/// The authorizer's settings if `authorizer.class.name` names Kafka's `StandardAuthorizer`;
/// `None` if it is empty. Any other class, or a super user that is not `Type:name`, stops the
/// node.
pub(super) fn authorizer(config: &ServerConfig) -> Result<Option<AuthorizerSettings>, ConfigError> {
    let value = |key: &str| config.get(key).and_then(|entry| entry.value.clone()).unwrap_or_default();
    let class = value("authorizer.class.name");
    match class.trim() {
        "" => return Ok(None),
        STANDARD_AUTHORIZER => {}
        other => {
            let reason = format!(
                "authorizer class {other} is not supported by Strand; the only authorizer is {STANDARD_AUTHORIZER}"
            );
            return Err(ConfigError::rule("authorizer.class.name", reason));
        }
    }
    let mut super_users = std::collections::BTreeSet::new();
    for principal in value("super.users").split(';').map(str::trim).filter(|p| !p.is_empty()) {
        if !principal.contains(':') {
            let reason = format!("expected a string in format principalType:principalName but got {principal}");
            return Err(ConfigError::rule("super.users", reason));
        }
        super_users.insert(principal.to_owned());
    }
    let allow_if_no_acl_found = value("allow.everyone.if.no.acl.found").trim().eq_ignore_ascii_case("true");
    Ok(Some(AuthorizerSettings { super_users, allow_if_no_acl_found }))
}

/// The delegation-token settings if `delegation.token.secret.key` is set and not empty.
pub(super) fn delegation_tokens(config: &ServerConfig) -> Result<Option<DelegationTokenSettings>, ConfigError> {
    let secret_key = config.get("delegation.token.secret.key").and_then(|entry| entry.value.clone());
    let Some(secret_key) = secret_key.filter(|key| !key.is_empty()) else { return Ok(None) };
    let millis = |key: &str| {
        let text = config.get(key).and_then(|entry| entry.value.clone()).unwrap_or_default();
        text.trim().parse::<i64>().map_err(|e| ConfigError::rule(key, e.to_string()))
    };
    Ok(Some(DelegationTokenSettings {
        secret_key,
        max_lifetime_ms: millis("delegation.token.max.lifetime.ms")?,
        expiry_time_ms: millis("delegation.token.expiry.time.ms")?,
        expiry_check_interval_ms: millis("delegation.token.expiry.check.interval.ms")?,
    }))
}

/// Refuses the first security setting Strand would otherwise ignore.
pub(super) fn check(config: &ServerConfig) -> Result<(), ConfigError> {
    super::sasl::check(config)?;
    for (key, entry) in &config.entries {
        if !matches!(entry.source, ConfigSource::File | ConfigSource::Override) {
            continue;
        }
        if let Some(reason) = unsupported(key) {
            return Err(ConfigError::rule(key, format!("{reason}; the setting would be silently ignored; remove it")));
        }
    }
    Ok(())
}

/// Why `key`, set by the user, asks for security Strand does not have, if it does.
fn unsupported(key: &str) -> Option<&'static str> {
    let key = key.to_ascii_lowercase();
    match listener_base(&key) {
        "principal.builder.class" | "security.providers" => {
            Some("custom principals and security providers are not supported by Strand yet")
        }
        "delegation.token.secret.key"
        | "delegation.token.max.lifetime.ms"
        | "delegation.token.expiry.time.ms"
        | "delegation.token.expiry.check.interval.ms" => None,
        base if base.starts_with("delegation.token.") => Some(
            "Kafka 4 knows no such delegation token setting (delegation.token.master.key became delegation.token.secret.key)",
        ),
        _ => None,
    }
}

/// `key` without Kafka's per-listener prefix: `listener.name.NAME.` and, for SASL settings,
/// the mechanism after it (`listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config`).
pub(super) fn listener_base(key: &str) -> &str {
    let Some(rest) = key.strip_prefix("listener.name.") else {
        return key;
    };
    let Some((_, base)) = rest.split_once('.') else {
        return key;
    };
    match base.split_once('.') {
        Some((_mechanism, after)) if after.starts_with("sasl.") => after,
        _ => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn security_keys_are_recognised_in_every_form() {
        for key in ["principal.builder.class", "delegation.token.master.key", "listener.name.x.security.providers"] {
            assert!(unsupported(key).is_some(), "{key} accepted");
        }
        let accepted = [
            ("connections.max.reauth.ms", "2000"),
            ("delegation.token.secret.key", "k"),
            ("delegation.token.expiry.check.interval.ms", "1000"),
            ("sasl.enabled.mechanisms", "PLAIN"),
            ("listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config", "x"),
            ("security.inter.broker.protocol", "PLAINTEXT"),
            ("security.inter.broker.protocol", "SSL"),
            ("security.inter.broker.protocol", "SASL_SSL"),
            ("ssl.keystore.location", "/k.p12"),
            ("listener.name.external.ssl.client.auth", "required"),
            ("authorizer.class.name", ""),
            ("authorizer.class.name", STANDARD_AUTHORIZER),
            ("super.users", "User:admin"),
            ("listener.name.external.max.connections.per.ip", "3"),
            ("num.io.threads", "8"),
        ];
        for (key, value) in accepted {
            assert_eq!(unsupported(key), None, "{key}={value} refused");
        }
    }

    fn load(pairs: &[(&str, &str)]) -> Result<ServerConfig, ConfigError> {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        ServerConfig::from_properties(None, &pairs)
    }

    /// Kafka's StandardAuthorizer is accepted with its two settings; any other class, or a super
    /// user without a type, stops the node naming it.
    #[test]
    fn the_standard_authorizer_is_configured_and_others_refused() {
        let config = load(&[
            ("authorizer.class.name", STANDARD_AUTHORIZER),
            ("super.users", "User:admin; User:broker ;"),
            ("allow.everyone.if.no.acl.found", "TRUE"),
        ])
        .expect("config");
        let settings = config.authorizer.expect("an authorizer");
        assert_eq!(settings.super_users, ["User:admin".to_owned(), "User:broker".to_owned()].into());
        assert!(settings.allow_if_no_acl_found);
        assert!(!config.warnings.iter().any(|w| w.contains("super.users") || w.contains("allow.everyone")));

        let plain = load(&[("super.users", "User:admin")]).expect("config");
        assert_eq!(plain.authorizer, None);
        let default = load(&[("authorizer.class.name", STANDARD_AUTHORIZER)]).expect("config");
        assert!(!default.authorizer.expect("an authorizer").allow_if_no_acl_found);

        let refused = load(&[("authorizer.class.name", "kafka.security.authorizer.AclAuthorizer")]);
        let message = refused.expect_err("refused").to_string();
        assert!(message.contains("kafka.security.authorizer.AclAuthorizer"), "{message}");
        let refused = load(&[("authorizer.class.name", STANDARD_AUTHORIZER), ("super.users", "admin")]);
        assert!(refused.expect_err("refused").to_string().contains("principalType:principalName"));
    }

    /// Tokens are enabled by a non-empty secret key, with Kafka's defaults for the three
    /// durations; a duration below 1 ms stops the node.
    #[test]
    fn delegation_tokens_are_enabled_by_the_secret_key() {
        assert_eq!(load(&[]).expect("config").delegation_tokens, None);
        assert_eq!(load(&[("delegation.token.secret.key", "")]).expect("config").delegation_tokens, None);
        let config = load(&[("delegation.token.secret.key", "s3cret")]).expect("config");
        let settings = config.delegation_tokens.expect("enabled");
        assert_eq!(
            (settings.max_lifetime_ms, settings.expiry_time_ms, settings.expiry_check_interval_ms),
            (604_800_000, 86_400_000, 3_600_000)
        );
        assert!(!config.warnings.iter().any(|w| w.contains("delegation")), "{:?}", config.warnings);
        let config = load(&[("delegation.token.secret.key", "k"), ("delegation.token.expiry.time.ms", "5000")]);
        assert_eq!(config.expect("config").delegation_tokens.expect("enabled").expiry_time_ms, 5000);
        assert!(load(&[("delegation.token.max.lifetime.ms", "0")]).is_err());
        let refused = load(&[("delegation.token.master.key", "k")]).expect_err("refused").to_string();
        assert!(refused.contains("delegation.token.master.key"), "{refused}");
    }
}
