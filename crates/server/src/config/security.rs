//! The security settings Strand does not implement yet, refused at start-up.
//!
//! Kafka would authorize with them or use them for delegation tokens. A node that accepted them
//! and went on serving without them would be silently insecure, so a configuration that sets any
//! of them does not load: `authorizer.class.name`, `principal.builder.class`,
//! `security.providers` and `delegation.token.*`.
//!
//! TLS and SASL themselves are served: [`super::tls`] refuses the `ssl.*` keys it does not
//! implement, [`super::sasl`] the `sasl.*` ones and what the node's own SASL links cannot do.
//!
//! `super.users` and `allow.everyone.if.no.acl.found` stay accepted: Kafka ignores them too when
//! no authorizer is configured (`super.users` also names who may reach a TLS CONTROLLER
//! listener).

use super::{ConfigError, ConfigSource, ServerConfig};

/// Refuses the first security setting Strand would otherwise ignore.
pub(super) fn check(config: &ServerConfig) -> Result<(), ConfigError> {
    super::sasl::check(config)?;
    for (key, entry) in &config.entries {
        if !matches!(entry.source, ConfigSource::File | ConfigSource::Override) {
            continue;
        }
        if let Some(reason) = unsupported(key, entry.value.as_deref().unwrap_or_default()) {
            return Err(ConfigError::rule(key, format!("{reason}; the setting would be silently ignored; remove it")));
        }
    }
    Ok(())
}

/// Why `key` (set by the user to `value`) asks for security Strand does not have, if it does.
fn unsupported(key: &str, value: &str) -> Option<&'static str> {
    let key = key.to_ascii_lowercase();
    match listener_base(&key) {
        "authorizer.class.name" if !value.trim().is_empty() => {
            Some("authorization (ACLs, authorizer.class.name) is not supported by Strand yet")
        }
        "principal.builder.class" | "security.providers" => {
            Some("custom principals and security providers are not supported by Strand yet")
        }
        base if base.starts_with("delegation.token.") => Some("delegation tokens are not supported by Strand yet"),
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
        let refused = [
            ("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"),
            ("principal.builder.class", "x"),
            ("delegation.token.secret.key", "x"),
        ];
        for (key, value) in refused {
            assert!(unsupported(key, value).is_some(), "{key}={value} accepted");
        }
        let accepted = [
            ("connections.max.reauth.ms", "2000"),
            ("sasl.enabled.mechanisms", "PLAIN"),
            ("listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config", "x"),
            ("security.inter.broker.protocol", "PLAINTEXT"),
            ("security.inter.broker.protocol", "SSL"),
            ("security.inter.broker.protocol", "SASL_SSL"),
            ("ssl.keystore.location", "/k.p12"),
            ("listener.name.external.ssl.client.auth", "required"),
            ("authorizer.class.name", ""),
            ("super.users", "User:admin"),
            ("listener.name.external.max.connections.per.ip", "3"),
            ("num.io.threads", "8"),
        ];
        for (key, value) in accepted {
            assert_eq!(unsupported(key, value), None, "{key}={value} refused");
        }
    }
}
