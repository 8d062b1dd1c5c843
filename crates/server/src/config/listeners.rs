//! The addresses of a node's configuration, in Kafka's text forms:
//!
//! - [`Endpoint`]: one entry of `listeners` / `advertised.listeners`, `NAME://host:port`
//!   (`PLAINTEXT://:9092`, `CONTROLLER://[::1]:9093`), with its [`SecurityProtocol`] from
//!   `listener.security.protocol.map`.
//! - [`QuorumVoter`]: one entry of `controller.quorum.voters`, `id@host:port`.
//! - [`HostPort`]: one entry of `controller.quorum.bootstrap.servers`, `host:port`.
//!
//! Parsing follows Kafka's `SocketServerConfigs.listenerListToEndPoints`, `Csv.parseCsvMap` and
//! `QuorumConfig.parseVoterConnections`. Errors are reasons without the key; the caller names it.
//! Nothing here resolves names or opens sockets.

use std::collections::BTreeMap;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::keys::parse_list;

pub use strand_security::SecurityProtocol;

/// A listener: where a node accepts connections, or what it tells others to connect to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Upper-cased, as Kafka's `ListenerName.normalised`.
    pub listener_name: String,
    /// Empty means every interface when binding; an advertised empty host means this machine's
    /// canonical host name, as Kafka does. IPv6 addresses are stored without brackets.
    pub host: String,
    /// 0 binds an ephemeral port (tests use it).
    pub port: u16,
    pub security_protocol: SecurityProtocol,
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}", self.listener_name, HostPort { host: self.host.clone(), port: self.port })
    }
}

/// A host and port, printed as Kafka's `Utils.formatAddress` does (IPv6 in brackets).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPort {
    pub host: String,
    pub port: u16,
}

impl fmt::Display for HostPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// One voter of a static controller quorum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuorumVoter {
    pub id: i32,
    pub address: HostPort,
}

impl fmt::Display for QuorumVoter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.id, self.address)
    }
}

/// Parses `listener.security.protocol.map` (`NAME:PROTOCOL,...`), names upper-cased.
pub fn parse_protocol_map(text: &str) -> Result<BTreeMap<String, SecurityProtocol>, String> {
    let mut map = BTreeMap::new();
    for entry in parse_list(text) {
        let Some((name, protocol)) = entry.split_once(':') else {
            return Err(format!("entry {entry:?} is not NAME:PROTOCOL"));
        };
        let (name, protocol) = (name.trim(), protocol.trim());
        let protocol = SecurityProtocol::from_name(protocol)
            .ok_or_else(|| format!("invalid security protocol `{protocol}` for listener {name}"))?;
        if name.is_empty() {
            return Err(format!("entry {entry:?} has an empty listener name"));
        }
        map.insert(name.to_ascii_uppercase(), protocol);
    }
    Ok(map)
}

/// Parses a `listeners`-style list against the protocol map. With `distinct_ports` (for
/// `listeners`, not `advertised.listeners`), two listeners may share a non-zero port only if one
/// is on an IPv4 address and the other on an IPv6 address, as Kafka allows.
pub fn parse_listeners(
    text: &str,
    protocol_map: &BTreeMap<String, SecurityProtocol>,
    distinct_ports: bool,
) -> Result<Vec<Endpoint>, String> {
    let mut endpoints: Vec<Endpoint> = Vec::new();
    for entry in parse_list(text) {
        let endpoint = parse_endpoint(&entry, protocol_map)?;
        if endpoints.iter().any(|other| other.listener_name == endpoint.listener_name) {
            return Err(format!("each listener must have a different name; {} appears twice", endpoint.listener_name));
        }
        if distinct_ports && let Some(other) = endpoints.iter().find(|other| ports_clash(other, &endpoint)) {
            return Err(format!("each listener must have a different port; {other} and {endpoint} share one"));
        }
        endpoints.push(endpoint);
    }
    Ok(endpoints)
}

fn ports_clash(a: &Endpoint, b: &Endpoint) -> bool {
    if a.port != b.port || a.port == 0 {
        return false;
    }
    let v4 = |host: &str| host.parse::<Ipv4Addr>().is_ok();
    let v6 = |host: &str| host.parse::<Ipv6Addr>().is_ok();
    !((v4(&a.host) && v6(&b.host)) || (v6(&a.host) && v4(&b.host)))
}

fn parse_endpoint(entry: &str, protocol_map: &BTreeMap<String, SecurityProtocol>) -> Result<Endpoint, String> {
    let Some((name, address)) = entry.split_once("://") else {
        return Err(format!("listener {entry:?} is not NAME://host:port"));
    };
    if name.is_empty() {
        return Err(format!("listener {entry:?} has no name"));
    }
    let listener_name = name.to_ascii_uppercase();
    let security_protocol = *protocol_map.get(&listener_name).ok_or_else(|| {
        format!("no security protocol defined for listener {listener_name} in listener.security.protocol.map")
    })?;
    let HostPort { host, port } =
        parse_host_port(address, true).map_err(|reason| format!("listener {entry:?}: {reason}"))?;
    Ok(Endpoint { listener_name, host, port, security_protocol })
}

/// Parses `host:port` or `[ipv6]:port`; the host may be empty only if `allow_empty_host`.
pub fn parse_host_port(text: &str, allow_empty_host: bool) -> Result<HostPort, String> {
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']').ok_or_else(|| format!("{text:?} has no closing ]"))?;
        let port = after.strip_prefix(':').ok_or_else(|| format!("{text:?} has no port"))?;
        (host, port)
    } else {
        text.rsplit_once(':').ok_or_else(|| format!("{text:?} is not host:port"))?
    };
    let valid_char = |c: char| c.is_ascii_alphanumeric() || "-%._:".contains(c);
    if !host.chars().all(valid_char) {
        return Err(format!("invalid host {host:?}"));
    }
    if host.is_empty() && !allow_empty_host {
        return Err(format!("{text:?} has no host"));
    }
    let port: u16 = port.parse().map_err(|_| format!("invalid port {port:?}"))?;
    Ok(HostPort { host: host.to_owned(), port })
}

/// Parses `controller.quorum.voters` (`id@host:port,...`); a voter id appears once.
pub fn parse_voters(text: &str) -> Result<Vec<QuorumVoter>, String> {
    let mut voters: Vec<QuorumVoter> = Vec::new();
    for entry in parse_list(text) {
        let shape = || format!("entry {entry:?} should be in the form `{{id}}@{{host}}:{{port}}`");
        let (id, address) = entry.split_once('@').ok_or_else(shape)?;
        let id: i32 = id.trim().parse().ok().filter(|id| *id >= 0).ok_or_else(shape)?;
        let address = parse_host_port(address.trim(), false).map_err(|reason| format!("{}: {reason}", shape()))?;
        if address.host == "0.0.0.0" {
            return Err(format!("host string ({}) is not routable", address.host));
        }
        if voters.iter().any(|voter| voter.id == id) {
            return Err(format!("voter id {id} appears twice"));
        }
        voters.push(QuorumVoter { id, address });
    }
    Ok(voters)
}

/// Parses `controller.quorum.bootstrap.servers` (`host:port,...`).
pub fn parse_bootstrap_servers(text: &str) -> Result<Vec<HostPort>, String> {
    parse_list(text).iter().map(|entry| parse_host_port(entry, false)).collect()
}

/// Whether `host` names this machine's loopback interface.
pub(crate) fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost") || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_map() -> BTreeMap<String, SecurityProtocol> {
        parse_protocol_map(super::super::keys::DEFAULT_PROTOCOL_MAP).unwrap_or_default()
    }

    /// Listener text parses as Kafka's: names upper-cased, empty hosts, bracketed IPv6, port 0.
    #[test]
    fn listeners_parse_as_kafka() -> Result<(), String> {
        let map = default_map();
        let parsed = parse_listeners("plaintext://:9092, SSL://[::1]:9093,SASL_SSL://host.example:0", &map, true)?;
        let shown: Vec<String> = parsed.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["PLAINTEXT://:9092", "SSL://[::1]:9093", "SASL_SSL://host.example:0"]);
        assert_eq!(parsed[1].host, "::1");
        assert_eq!(parsed[1].security_protocol, SecurityProtocol::Ssl);
        Ok(())
    }

    /// Malformed listeners, unknown names, duplicate names and clashing ports are refused.
    #[test]
    fn bad_listeners_are_refused() {
        let map = default_map();
        for bad in [
            "localhost:9092",
            "PLAINTEXT://localhost",
            "PLAINTEXT://localhost:70000",
            "PLAINTEXT://bad host:9092",
            "CONTROLLER://:9093",
            "PLAINTEXT://:9092,PLAINTEXT://:9093",
            "PLAINTEXT://:9092,SSL://:9092",
        ] {
            assert!(parse_listeners(bad, &map, true).is_err(), "{bad}");
        }
        assert!(parse_listeners("PLAINTEXT://127.0.0.1:9092,SSL://[::1]:9092", &map, true).is_ok());
        assert!(parse_listeners("PLAINTEXT://:9092,SSL://:9092", &map, false).is_ok());
    }

    /// Voters are `id@host:port` with distinct non-negative ids and routable hosts.
    #[test]
    fn voters_parse_as_kafka() -> Result<(), String> {
        let voters = parse_voters("1@localhost:9093, 2@[::1]:9094")?;
        assert_eq!(voters[1], QuorumVoter { id: 2, address: HostPort { host: "::1".into(), port: 9094 } });
        assert_eq!(voters[1].to_string(), "2@[::1]:9094");
        for bad in ["localhost:9093", "x@localhost:9093", "-1@h:1", "1@:9093", "1@0.0.0.0:9093", "1@a:1,1@b:2"] {
            assert!(parse_voters(bad).is_err(), "{bad}");
        }
        Ok(())
    }

    /// The protocol map upper-cases names and refuses unknown protocols and malformed entries.
    #[test]
    fn protocol_map_parses() {
        let map = parse_protocol_map("controller:plaintext, EXTERNAL:SASL_SSL").unwrap_or_default();
        assert_eq!(map.get("CONTROLLER"), Some(&SecurityProtocol::Plaintext));
        assert_eq!(map.get("EXTERNAL"), Some(&SecurityProtocol::SaslSsl));
        assert!(parse_protocol_map("A:TLS").is_err());
        assert!(parse_protocol_map("A").is_err());
    }
}
