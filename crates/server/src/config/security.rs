//! The security settings Strand does not implement yet, refused at start-up.
//!
//! Kafka would authenticate or authorize with them. A node that accepted them and went on
//! serving unauthenticated connections would be silently insecure (the operator believes the
//! listener is SASL), so a configuration that asks for any of them does not load:
//! - a listener (bound, advertised or a controller listener this node connects to) whose
//!   security protocol is SASL (`SASL_PLAINTEXT`, `SASL_SSL`), and `security.inter.broker.protocol`
//!   naming one; `PLAINTEXT` and `SSL` are served (TLS settings: `tls.rs`, which refuses the
//!   `ssl.*` keys it does not implement);
//! - any SASL key the user set (`sasl.*`, and its `listener.name.NAME.` and
//!   `listener.name.NAME.MECHANISM.` forms), whatever its value;
//! - the other keys that only mean something with authentication or authorization:
//!   `authorizer.class.name`, `principal.builder.class`, `security.providers`,
//!   `connections.max.reauth.ms`, `delegation.token.*`.
//!
//! `super.users` and `allow.everyone.if.no.acl.found` stay accepted: Kafka ignores them too when
//! no authorizer is configured.

use super::{ConfigError, ConfigSource, Endpoint, SecurityProtocol, ServerConfig};

const SASL: &str = "SASL authentication is not supported by Strand yet";
const PLAINTEXT_ONLY: &str =
    "listeners serve PLAINTEXT or SSL only, so the setting would be silently ignored; remove it";

/// Refuses the first security setting Strand would otherwise ignore.
pub(super) fn check(config: &ServerConfig) -> Result<(), ConfigError> {
    check_listeners(config)?;
    for (key, entry) in &config.entries {
        if !matches!(entry.source, ConfigSource::File | ConfigSource::Override) {
            continue;
        }
        if let Some(reason) = unsupported(key, entry.value.as_deref().unwrap_or_default()) {
            return Err(ConfigError::rule(key, format!("{reason}; {PLAINTEXT_ONLY}")));
        }
    }
    Ok(())
}

/// Every listener this node binds, advertises or dials must be `PLAINTEXT` or `SSL`.
fn check_listeners(config: &ServerConfig) -> Result<(), ConfigError> {
    let refuse = |key: &str, endpoint: &Endpoint| {
        ConfigError::rule(
            key,
            format!(
                "listener {endpoint} uses security protocol {}, which Strand does not support yet: only PLAINTEXT \
                 and SSL listeners are served (SASL is not implemented); map the listener to PLAINTEXT or SSL in \
                 listener.security.protocol.map or remove it",
                endpoint.security_protocol.name()
            ),
        )
    };
    let insecure = |endpoint: &&Endpoint| endpoint.security_protocol.uses_sasl();
    if let Some(endpoint) = config.listeners.iter().find(insecure) {
        return Err(refuse("listeners", endpoint));
    }
    if let Some(endpoint) = config.advertised_listeners.iter().find(insecure) {
        return Err(refuse("advertised.listeners", endpoint));
    }
    let dialled = config.controller_listener_names.iter().filter_map(|name| {
        let protocol = *config.listener_security_protocol_map.get(name)?;
        protocol.uses_sasl().then_some((name, protocol))
    });
    if let Some((name, protocol)) = dialled.into_iter().next() {
        return Err(ConfigError::rule(
            "controller.listener.names",
            format!(
                "controller listener {name} uses security protocol {}, which Strand does not support yet: only \
                 PLAINTEXT and SSL are (SASL is not implemented)",
                protocol.name()
            ),
        ));
    }
    Ok(())
}

/// Why `key` (set by the user to `value`) asks for security Strand does not have, if it does.
fn unsupported(key: &str, value: &str) -> Option<&'static str> {
    let key = key.to_ascii_lowercase();
    let base = listener_base(&key);
    if base.starts_with("sasl.") || base == "connections.max.reauth.ms" && value.trim() != "0" {
        return Some(SASL);
    }
    match base {
        "security.inter.broker.protocol"
            if SecurityProtocol::from_name(value.trim()).is_some_and(|p| p.uses_sasl()) =>
        {
            Some("inter-broker SASL is not supported by Strand yet")
        }
        "authorizer.class.name" if !value.trim().is_empty() => {
            Some("authorization (ACLs, authorizer.class.name) is not supported by Strand yet")
        }
        "principal.builder.class" | "security.providers" => {
            Some("custom principals and security providers are not supported by Strand yet")
        }
        _ if base.starts_with("delegation.token.") => Some("delegation tokens are not supported by Strand yet"),
        _ => None,
    }
}

/// `key` without Kafka's per-listener prefix: `listener.name.NAME.` and, for SASL settings,
/// the mechanism after it (`listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config`).
fn listener_base(key: &str) -> &str {
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
            ("sasl.enabled.mechanisms", "PLAIN"),
            ("sasl.jaas.config", "x"),
            ("listener.name.sasl_ssl.sasl.enabled.mechanisms", "SCRAM-SHA-512"),
            ("listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config", "x"),
            ("listener.name.sasl_ssl.plain.sasl.jaas.config", "x"),
            ("connections.max.reauth.ms", "2000"),
            ("security.inter.broker.protocol", "SASL_SSL"),
            ("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer"),
            ("principal.builder.class", "x"),
            ("delegation.token.secret.key", "x"),
        ];
        for (key, value) in refused {
            assert!(unsupported(key, value).is_some(), "{key}={value} accepted");
        }
        let accepted = [
            ("connections.max.reauth.ms", "0"),
            ("security.inter.broker.protocol", "PLAINTEXT"),
            ("security.inter.broker.protocol", "SSL"),
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
