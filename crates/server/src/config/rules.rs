//! Kafka's rules between keys (`KafkaConfig.validateValues` for KRaft), checked on typed settings
//! after every value was found valid on its own.
//!
//! One relaxation, Strand's (design §1): a node that is its quorum's sole voter needs neither
//! `controller.quorum.voters`/`controller.quorum.bootstrap.servers` nor a CONTROLLER listener,
//! since nobody has to reach its controller over the network.

use super::{ConfigError, Endpoint, ServerConfig};

/// Checks the cross-key rules; pushes Kafka's warnings for settings that are legal but partly
/// ignored.
pub(super) fn check(config: &ServerConfig, warnings: &mut Vec<String>) -> Result<(), ConfigError> {
    match (config.process_roles.broker, config.process_roles.controller) {
        (true, false) => check_broker_only(config, warnings)?,
        (false, true) => check_controller_only(config)?,
        _ => check_combined(config)?,
    }
    if config.process_roles.broker {
        check_broker_listeners(config)?;
    }
    let mut advertised = config.advertised_broker_listeners().chain(advertised_controller_listeners(config));
    if let Some(endpoint) = advertised.find(|endpoint| endpoint.host == "0.0.0.0") {
        return Err(rule(
            "advertised.listeners",
            format!(
                "cannot use the nonroutable meta-address 0.0.0.0 ({endpoint}); use a routable IP address \
                 (advertised.listeners defaults to listeners)"
            ),
        ));
    }
    check_log(config)?;
    check_connections(config)
}

/// Kafka's `effectiveAdvertisedControllerListeners`: per controller listener name, its advertised
/// entry, else its `listeners` entry.
fn advertised_controller_listeners(config: &ServerConfig) -> impl Iterator<Item = &Endpoint> {
    config.controller_listener_names.iter().filter_map(|name| {
        let named = |endpoint: &&Endpoint| &endpoint.listener_name == name;
        config.advertised_listeners.iter().find(named).or_else(|| config.listeners.iter().find(named))
    })
}

fn check_broker_only(config: &ServerConfig, warnings: &mut Vec<String>) -> Result<(), ConfigError> {
    check_quorum_reachable(config)?;
    if config.controller_quorum_voters.iter().any(|voter| voter.id == config.node_id) {
        return Err(rule(
            "controller.quorum.voters",
            format!(
                "if process.roles contains just the 'broker' role, the node id {} must not be included in the \
                 set of voters",
                config.node_id
            ),
        ));
    }
    let Some(first) = config.controller_listener_names.first() else {
        return Err(rule(
            "controller.listener.names",
            "must contain at least one value when running KRaft with just the broker role",
        ));
    };
    if config.controller_listeners().next().is_some() {
        return Err(rule(
            "controller.listener.names",
            "must not contain a value appearing in the 'listeners' configuration when running KRaft with just the \
             broker role",
        ));
    }
    if let Some(name) =
        config.controller_listener_names.iter().find(|name| !config.listener_security_protocol_map.contains_key(*name))
    {
        return Err(rule(
            "controller.listener.names",
            format!("controller listener with name {name} not found in listener.security.protocol.map"),
        ));
    }
    if config.controller_listener_names.len() > 1 {
        warnings.push(format!(
            "controller.listener.names has multiple entries; only the first ({first}) will be used since \
             process.roles=broker"
        ));
    }
    Ok(())
}

fn check_controller_only(config: &ServerConfig) -> Result<(), ConfigError> {
    check_quorum_reachable(config)?;
    if config.listeners.iter().any(|listener| !config.controller_listener_names.contains(&listener.listener_name)) {
        return Err(rule(
            "listeners",
            "must only contain KRaft controller listeners from controller.listener.names when \
             process.roles=controller",
        ));
    }
    check_voters_include_self(config)?;
    check_controller_listeners(config, true)
}

fn check_combined(config: &ServerConfig) -> Result<(), ConfigError> {
    check_quorum_reachable(config)?;
    check_voters_include_self(config)?;
    check_controller_listeners(config, !config.is_sole_voter())
}

/// A node must be able to find the controllers, unless it is the only one.
fn check_quorum_reachable(config: &ServerConfig) -> Result<(), ConfigError> {
    if config.controller_quorum_voters.is_empty()
        && config.controller_quorum_bootstrap_servers.is_empty()
        && !config.is_sole_voter()
    {
        return Err(rule(
            "controller.quorum.voters",
            "either controller.quorum.bootstrap.servers must contain the set of bootstrap controllers or \
             controller.quorum.voters must contain a parseable set of controllers",
        ));
    }
    Ok(())
}

fn check_voters_include_self(config: &ServerConfig) -> Result<(), ConfigError> {
    let voters = &config.controller_quorum_voters;
    if !voters.is_empty() && !voters.iter().any(|voter| voter.id == config.node_id) {
        let ids: Vec<String> = voters.iter().map(|voter| voter.id.to_string()).collect();
        return Err(rule(
            "controller.quorum.voters",
            format!(
                "if process.roles contains the 'controller' role, the node id {} must be included in the set of \
                 voters [{}]",
                config.node_id,
                ids.join(", ")
            ),
        ));
    }
    Ok(())
}

/// Every controller listener name must be a listener; and unless the node is a sole voter, there
/// must be at least one.
fn check_controller_listeners(config: &ServerConfig, required: bool) -> Result<(), ConfigError> {
    let is_listener = |name: &String| config.listeners.iter().any(|listener| &listener.listener_name == name);
    if let Some(name) = config.controller_listener_names.iter().find(|name| !is_listener(name)) {
        return Err(rule(
            "controller.listener.names",
            format!(
                "must only contain values appearing in the 'listeners' configuration when running the KRaft \
                 controller role; {name} does not"
            ),
        ));
    }
    if required && config.controller_listeners().next().is_none() {
        return Err(rule(
            "controller.listener.names",
            "must contain at least one value appearing in the 'listeners' configuration when running the KRaft \
             controller role in a quorum of more than one voter (only a sole voter can do without)",
        ));
    }
    Ok(())
}

fn check_broker_listeners(config: &ServerConfig) -> Result<(), ConfigError> {
    let advertised: Vec<&Endpoint> = config.advertised_broker_listeners().collect();
    if advertised.is_empty() {
        return Err(rule(
            "advertised.listeners",
            "there must be at least one broker advertised listener; perhaps all listeners appear in \
             controller.listener.names?",
        ));
    }
    let names = |endpoints: &[&Endpoint]| -> Vec<String> {
        endpoints.iter().map(|endpoint| endpoint.listener_name.clone()).collect()
    };
    if !advertised.iter().any(|endpoint| endpoint.listener_name == config.inter_broker_listener_name) {
        return Err(rule(
            "inter.broker.listener.name",
            format!(
                "must be a listener name defined in advertised.listeners; {} is not (the valid options are {})",
                config.inter_broker_listener_name,
                names(&advertised).join(",")
            ),
        ));
    }
    let is_listener = |name: &str| config.listeners.iter().any(|listener| listener.listener_name == name);
    if let Some(endpoint) = advertised.iter().find(|endpoint| !is_listener(&endpoint.listener_name)) {
        return Err(rule(
            "advertised.listeners",
            format!(
                "listener names must be equal to or a subset of the ones defined in listeners; {} is not in listeners",
                endpoint.listener_name
            ),
        ));
    }
    Ok(())
}

fn check_log(config: &ServerConfig) -> Result<(), ConfigError> {
    if config.log_roll_ms < 1 {
        return Err(rule("log.roll.ms", "must be greater than or equal to 1"));
    }
    if config.log_roll_jitter_ms < 0 {
        return Err(rule("log.roll.jitter.ms", "must be greater than or equal to 0"));
    }
    if config.log_retention_ms == 0 {
        return Err(rule("log.retention.ms", "must be unlimited (-1) or, greater than or equal to 1"));
    }
    if config.log_flush_interval_ms < 0 {
        return Err(rule("log.flush.interval.ms", "must be greater than or equal to 0"));
    }
    Ok(())
}

/// The socket server's rules (Kafka's `KafkaConfig.validateValues`), and the per-listener limits
/// Strand does not have, refused rather than ignored.
fn check_connections(config: &ServerConfig) -> Result<(), ConfigError> {
    let pool = config.queued_max_request_bytes;
    if pool > 0 && pool < i64::from(config.socket_request_max_bytes) {
        return Err(rule("queued.max.request.bytes", "must be larger or equal to socket.request.max.bytes"));
    }
    if config.max_connections_per_ip == 0 && config.max_connections_per_ip_overrides.is_empty() {
        return Err(rule(
            "max.connections.per.ip",
            "can be set to zero only if max.connections.per.ip.overrides property is set.",
        ));
    }
    // Java's socket calls refuse a size of 0 or less at the first connection; refused here at once.
    for (key, bytes) in [
        ("socket.send.buffer.bytes", config.socket_send_buffer_bytes),
        ("socket.receive.buffer.bytes", config.socket_receive_buffer_bytes),
    ] {
        if bytes != -1 && bytes <= 0 {
            return Err(rule(key, "must be -1 (the operating system's default) or a positive size"));
        }
    }
    let idle_ms = config.connections_max_idle_ms;
    let delay_ms = config.connection_failed_authentication_delay_ms;
    if idle_ms >= 0 && i64::from(delay_ms) >= idle_ms {
        return Err(rule(
            "connection.failed.authentication.delay.ms",
            format!(
                "connection.failed.authentication.delay.ms={delay_ms} should always be less than \
                 connections.max.idle.ms={idle_ms} to prevent failed authentication responses from timing out"
            ),
        ));
    }
    for key in config.entries.keys().filter(|key| key.starts_with("listener.name.")) {
        if key.ends_with(".max.connections") || key.ends_with(".max.connection.creation.rate") {
            return Err(rule(
                key,
                "per-listener connection limits are not supported by Strand; use the broker-wide \
                 max.connections and max.connection.creation.rate",
            ));
        }
    }
    Ok(())
}

fn rule(key: &str, reason: impl Into<String>) -> ConfigError {
    ConfigError::rule(key, reason)
}
