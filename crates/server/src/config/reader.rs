//! Typed reads of a configuration's entries ([`Reader`]): Kafka's parsing of each key, its
//! fallbacks (`log.roll.ms` → `log.roll.hours`, `log.dirs` → `log.dir`, ...), and the node's
//! identity and listeners ([`Quorum`]), which depend on each other and are read together.
//! Every error names its key.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::keys::{self, Kind, parse_bool, parse_integer, parse_list};
use super::listeners::{self, Endpoint, HostPort, QuorumVoter, SecurityProtocol};
use super::{
    BrokerCompressionType, CleanupPolicy, ConfigError, ConfigSource, ConfigValue, ProcessRoles, TimestampType, invalid,
};

const HOUR_MS: i64 = 60 * 60 * 1000;
const MINUTE_MS: i64 = 60 * 1000;

/// The settings that decide who the node is and how it is reached, read together because the
/// protocol map depends on the controller listener names and the listeners on the map.
pub(super) struct Quorum {
    pub(super) node_id: i32,
    pub(super) process_roles: ProcessRoles,
    pub(super) listeners: Vec<Endpoint>,
    pub(super) advertised_listeners: Vec<Endpoint>,
    pub(super) protocol_map: BTreeMap<String, SecurityProtocol>,
    pub(super) inter_broker_listener_name: String,
    pub(super) controller_listener_names: Vec<String>,
    pub(super) voters: Vec<QuorumVoter>,
    pub(super) bootstrap_servers: Vec<HostPort>,
}

/// Typed reads of validated entries; every error names its key.
pub(super) struct Reader<'a> {
    pub(super) entries: &'a BTreeMap<String, ConfigValue>,
}

impl Reader<'_> {
    pub(super) fn text(&self, key: &str) -> Option<&str> {
        self.entries.get(key).and_then(|entry| entry.value.as_deref())
    }

    pub(super) fn is_set(&self, key: &str) -> bool {
        self.entries.get(key).is_some_and(|entry| entry.source != ConfigSource::Default)
    }

    pub(super) fn required(&self, key: &str) -> Result<&str, ConfigError> {
        self.text(key).ok_or_else(|| ConfigError::Missing { key: key.to_owned(), reason: "it has no default".into() })
    }

    pub(super) fn integer(&self, key: &str) -> Result<Option<i64>, ConfigError> {
        let Some(text) = self.text(key) else { return Ok(None) };
        let kind = keys::lookup(key).map_or(Kind::Long { min: i64::MIN }, |def| def.kind);
        parse_integer(kind, text).map(Some).map_err(|reason| invalid(key, text, reason))
    }

    pub(super) fn long(&self, key: &str) -> Result<i64, ConfigError> {
        self.integer(key)?
            .ok_or_else(|| ConfigError::Missing { key: key.to_owned(), reason: "it has no default".into() })
    }

    pub(super) fn int(&self, key: &str) -> Result<i32, ConfigError> {
        let value = self.long(key)?;
        i32::try_from(value).map_err(|_| invalid(key, &value.to_string(), "not a 32-bit integer"))
    }

    pub(super) fn short(&self, key: &str) -> Result<i16, ConfigError> {
        let value = self.long(key)?;
        i16::try_from(value).map_err(|_| invalid(key, &value.to_string(), "not a 16-bit integer"))
    }

    pub(super) fn double(&self, key: &str) -> Result<f64, ConfigError> {
        let text = self.required(key)?;
        text.trim().parse::<f64>().map_err(|_| invalid(key, text, "not a number"))
    }

    pub(super) fn bool(&self, key: &str) -> Result<bool, ConfigError> {
        let text = self.required(key)?;
        parse_bool(text).map_err(|reason| invalid(key, text, reason))
    }

    /// The first set key of `keys` (each with its unit in ms), Kafka's fallback chain; the last
    /// key always has a default.
    pub(super) fn duration_ms(&self, keys: &[(&str, i64)]) -> Result<i64, ConfigError> {
        for (key, unit_ms) in keys {
            if let Some(value) = self.integer(key)? {
                return Ok(value.saturating_mul(*unit_ms));
            }
        }
        let last = keys.last().map_or("", |(key, _)| *key);
        Err(ConfigError::Missing { key: last.to_owned(), reason: "it has no default".into() })
    }

    /// `log.roll.ms`, or `log.roll.hours`.
    pub(super) fn roll_ms(&self) -> Result<i64, ConfigError> {
        self.duration_ms(&[("log.roll.ms", 1), ("log.roll.hours", HOUR_MS)])
    }

    /// `log.roll.jitter.ms`, or `log.roll.jitter.hours`.
    pub(super) fn roll_jitter_ms(&self) -> Result<i64, ConfigError> {
        self.duration_ms(&[("log.roll.jitter.ms", 1), ("log.roll.jitter.hours", HOUR_MS)])
    }

    /// `log.flush.interval.ms`, or `log.flush.scheduler.interval.ms`.
    pub(super) fn flush_interval_ms(&self) -> Result<i64, ConfigError> {
        self.duration_ms(&[("log.flush.interval.ms", 1), ("log.flush.scheduler.interval.ms", 1)])
    }

    /// `log.retention.ms`, `.minutes`, `.hours`; any negative value means unlimited (-1).
    pub(super) fn retention_ms(&self) -> Result<i64, ConfigError> {
        let chain = [("log.retention.ms", 1), ("log.retention.minutes", MINUTE_MS), ("log.retention.hours", HOUR_MS)];
        let millis = self.duration_ms(&chain)?;
        Ok(if millis < 0 { -1 } else { millis })
    }

    /// `max.connections.per.ip.overrides`: `host:count` pairs, comma-separated, split at each pair's
    /// last colon so IPv6 addresses work (Kafka's `Csv.parseCsvMap`); hosts are checked for
    /// Kafka's valid host characters, counts must be 32-bit integers.
    pub(super) fn connections_per_ip_overrides(&self) -> Result<BTreeMap<String, i32>, ConfigError> {
        const KEY: &str = "max.connections.per.ip.overrides";
        let text = self.text(KEY).unwrap_or_default();
        let mut overrides = BTreeMap::new();
        for pair in text.split(',').map(str::trim).filter(|pair| !pair.is_empty()) {
            let Some((host, count)) = pair.rsplit_once(':') else {
                return Err(invalid(KEY, text, format!("{pair:?} is not host:count")));
            };
            let host = host.trim();
            let valid_host = |c: char| c.is_ascii_alphanumeric() || "-%._:".contains(c);
            if host.is_empty() || !host.chars().all(valid_host) {
                return Err(invalid(KEY, text, format!("contains invalid addresses : {host}")));
            }
            let count =
                count.trim().parse::<i32>().map_err(|_| invalid(KEY, text, format!("{pair:?}: not a count")))?;
            overrides.insert(host.to_owned(), count);
        }
        Ok(overrides)
    }

    pub(super) fn cluster_id(&self) -> Result<Option<String>, ConfigError> {
        match self.text("cluster.id") {
            None => Ok(None),
            Some("") => Err(invalid("cluster.id", "", "must not be empty")),
            Some(id) if id.chars().any(char::is_whitespace) => {
                Err(invalid("cluster.id", id, "must not contain spaces"))
            }
            Some(id) => Ok(Some(id.to_owned())),
        }
    }

    pub(super) fn log_dirs(&self) -> Result<Vec<PathBuf>, ConfigError> {
        let key = if self.text("log.dirs").is_some() { "log.dirs" } else { "log.dir" };
        let text = self.text(key).unwrap_or_default();
        let dirs = parse_list(text);
        if dirs.is_empty() {
            return Err(invalid(key, text, "at least one log directory must be defined via log.dirs or log.dir"));
        }
        if let Some(dup) = dirs.iter().enumerate().find(|(i, dir)| dirs[..*i].contains(dir)).map(|(_, dir)| dir) {
            return Err(invalid(key, text, format!("directory {dup} is listed twice")));
        }
        Ok(dirs.into_iter().map(PathBuf::from).collect())
    }

    pub(super) fn cleanup_policy(&self) -> Result<CleanupPolicy, ConfigError> {
        let policies = parse_list(self.required("log.cleanup.policy")?);
        Ok(CleanupPolicy {
            delete: policies.iter().any(|p| p == "delete"),
            compact: policies.iter().any(|p| p == "compact"),
        })
    }

    pub(super) fn timestamp_type(&self) -> Result<TimestampType, ConfigError> {
        match self.required("log.message.timestamp.type")? {
            "LogAppendTime" => Ok(TimestampType::LogAppendTime),
            "CreateTime" => Ok(TimestampType::CreateTime),
            other => Err(invalid("log.message.timestamp.type", other, "must be CreateTime or LogAppendTime")),
        }
    }

    pub(super) fn compression_type(&self) -> Result<BrokerCompressionType, ConfigError> {
        Ok(match self.required("compression.type")? {
            "uncompressed" => BrokerCompressionType::Uncompressed,
            "zstd" => BrokerCompressionType::Zstd,
            "lz4" => BrokerCompressionType::Lz4,
            "snappy" => BrokerCompressionType::Snappy,
            "gzip" => BrokerCompressionType::Gzip,
            "producer" => BrokerCompressionType::Producer,
            other => return Err(invalid("compression.type", other, keys::COMPRESSION_TYPES.join(", "))),
        })
    }

    /// `replica.selector.class`: Kafka's `RackAwareReplicaSelector` or nothing; another class is
    /// refused (Kafka loads any `ReplicaSelector`, Strand has only that one).
    pub(super) fn replica_selector(&self) -> Result<Option<strand_broker::ReplicaSelector>, ConfigError> {
        match self.text("replica.selector.class").map(str::trim) {
            None | Some("") => Ok(None),
            Some(name) => match strand_broker::ReplicaSelector::from_class_name(name) {
                Some(selector) => Ok(Some(selector)),
                None => Err(invalid(
                    "replica.selector.class",
                    name,
                    format!("Strand has only {}", strand_broker::ReplicaSelector::RACK_AWARE_CLASS),
                )),
            },
        }
    }

    /// `group.consumer.assignors` by short name (Kafka's class names of its built-ins map to them).
    pub(super) fn consumer_group_assignors(&self) -> Result<Vec<String>, ConfigError> {
        let names = parse_list(self.required("group.consumer.assignors")?);
        Ok(names
            .into_iter()
            .map(|name| match name.as_str() {
                "org.apache.kafka.coordinator.group.assignor.UniformAssignor" => "uniform".to_owned(),
                "org.apache.kafka.coordinator.group.assignor.RangeAssignor" => "range".to_owned(),
                _ => name,
            })
            .collect())
    }

    pub(super) fn consumer_group_migration_policy(&self) -> Result<strand_coordinator::MigrationPolicy, ConfigError> {
        let text = self.required("group.consumer.migration.policy")?;
        Ok(strand_coordinator::MigrationPolicy::from_name(text)
            .unwrap_or(strand_coordinator::MigrationPolicy::Bidirectional))
    }

    pub(super) fn process_roles(&self) -> Result<ProcessRoles, ConfigError> {
        let text = self.required("process.roles")?;
        let roles = parse_list(text);
        if roles.is_empty() {
            let reason = "set it to broker, controller or broker,controller (Strand runs KRaft only)";
            return Err(ConfigError::Missing { key: "process.roles".into(), reason: reason.into() });
        }
        let count = |name: &str| roles.iter().filter(|role| *role == name).count();
        if count("broker") > 1 || count("controller") > 1 {
            return Err(invalid("process.roles", text, "duplicate role names"));
        }
        Ok(ProcessRoles { broker: count("broker") == 1, controller: count("controller") == 1 })
    }

    /// `node.id`, after `mirror_node_id` made it and `broker.id` agree when only one was set.
    pub(super) fn node_id(&self) -> Result<i32, ConfigError> {
        let node_id = self.int("node.id")?;
        if self.int("broker.id")? != node_id {
            return Err(ConfigError::rule("node.id", "you must set node.id to the same value as broker.id"));
        }
        if node_id < 0 {
            let reason = "it is required when process.roles is defined (set node.id, or its alias broker.id)";
            return Err(ConfigError::Missing { key: "node.id".into(), reason: reason.into() });
        }
        Ok(node_id)
    }

    pub(super) fn quorum(&self) -> Result<Quorum, ConfigError> {
        let process_roles = self.process_roles()?;
        let node_id = self.node_id()?;
        let controller_listener_names: Vec<String> =
            parse_list(self.text("controller.listener.names").unwrap_or_default())
                .iter()
                .map(|n| n.to_ascii_uppercase())
                .collect();
        let listeners_text = self.required("listeners")?;
        let protocol_map = self.protocol_map(&controller_listener_names, listeners_text)?;
        let listeners = listeners::parse_listeners(listeners_text, &protocol_map, true)
            .map_err(|reason| invalid("listeners", listeners_text, reason))?;
        let advertised_listeners = match self.text("advertised.listeners") {
            Some(text) => listeners::parse_listeners(text, &protocol_map, false)
                .map_err(|reason| invalid("advertised.listeners", text, reason))?,
            None => listeners.clone(),
        };
        let voters_text = self.text("controller.quorum.voters").unwrap_or_default();
        let voters = listeners::parse_voters(voters_text)
            .map_err(|reason| invalid("controller.quorum.voters", voters_text, reason))?;
        let bootstrap_text = self.text("controller.quorum.bootstrap.servers").unwrap_or_default();
        let bootstrap_servers = listeners::parse_bootstrap_servers(bootstrap_text)
            .map_err(|reason| invalid("controller.quorum.bootstrap.servers", bootstrap_text, reason))?;
        Ok(Quorum {
            node_id,
            process_roles,
            listeners,
            advertised_listeners,
            inter_broker_listener_name: self.inter_broker_listener_name()?,
            protocol_map,
            controller_listener_names,
            voters,
            bootstrap_servers,
        })
    }

    /// Kafka's `effectiveListenerSecurityProtocolMap`: the configured map, plus `NAME:PLAINTEXT`
    /// for each controller listener when the map was left at its default and nothing in the
    /// controller names or the listeners is TLS or SASL.
    pub(super) fn protocol_map(
        &self,
        controller_names: &[String],
        listeners_text: &str,
    ) -> Result<BTreeMap<String, SecurityProtocol>, ConfigError> {
        let key = "listener.security.protocol.map";
        let text = self.required(key)?;
        let mut map = listeners::parse_protocol_map(text).map_err(|reason| invalid(key, text, reason))?;
        if self.is_set(key) {
            return Ok(map);
        }
        let secured = |name: &str| SecurityProtocol::from_name(name).is_some_and(SecurityProtocol::is_ssl_or_sasl);
        let listener_names = parse_list(listeners_text);
        let listener_names = listener_names.iter().map(|entry| entry.split(':').next().unwrap_or_default());
        if controller_names.iter().any(|name| secured(name)) || listener_names.into_iter().any(secured) {
            return Ok(map);
        }
        for name in controller_names {
            map.entry(name.clone()).or_insert(SecurityProtocol::Plaintext);
        }
        Ok(map)
    }

    pub(super) fn inter_broker_listener_name(&self) -> Result<String, ConfigError> {
        let protocol = self.required("security.inter.broker.protocol")?;
        match self.text("inter.broker.listener.name") {
            Some(_) if self.is_set("security.inter.broker.protocol") => Err(ConfigError::rule(
                "inter.broker.listener.name",
                "only one of inter.broker.listener.name and security.inter.broker.protocol should be set",
            )),
            Some(name) => Ok(name.to_ascii_uppercase()),
            None => Ok(protocol.to_owned()),
        }
    }
}
