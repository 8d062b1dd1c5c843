//! The topic configs Kafka 4.4 knows (`LogConfig`), their types, defaults, validation and broker
//! synonyms, and the sources DescribeConfigs names (the layering is
//! [`super::TopicConfigResolver`]'s).
//!
//! The table was read from Kafka 4.4's `kafka-storage` jar (`LogConfig.configKeys()`: type,
//! default, validator) and `ServerTopicConfigSynonyms` (the broker config each one defaults
//! from); the messages follow Kafka's `ConfigException` wording, so a client sees what Kafka
//! would have said.

use std::collections::BTreeMap;

use ConfigType::{Boolean, Double, Int, List, Long};
use ConfigValidator::{Any, GzipLevel, ListOf, OneOf, Ratio, ThrottledReplicas};

/// How a config's value is parsed (Kafka's `ConfigDef.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigType {
    Boolean,
    Int,
    Long,
    Double,
    String,
    List,
}

impl ConfigType {
    /// Whether APPEND and SUBTRACT apply (Kafka's `isSplittable`).
    pub fn is_list(self) -> bool {
        self == ConfigType::List
    }

    fn kafka_name(self) -> &'static str {
        match self {
            ConfigType::Boolean => "BOOLEAN",
            ConfigType::Int => "INT",
            ConfigType::Long => "LONG",
            ConfigType::Double => "DOUBLE",
            ConfigType::String => "STRING",
            ConfigType::List => "LIST",
        }
    }
}

/// Which parsed values are legal (Kafka's `ConfigDef.Validator`s used by `LogConfig`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ConfigValidator {
    Any,
    /// An integer at least `min` and, if given, at most `max`.
    Range {
        min: i64,
        max: Option<i64>,
    },
    /// A double between 0 and 1.
    Ratio,
    /// One of these strings, case-sensitive.
    OneOf(&'static [&'static str]),
    /// A comma-separated list of these strings, none empty.
    ListOf(&'static [&'static str]),
    /// 1 to 9, or -1 for the codec's default.
    GzipLevel,
    /// `*` or `partition:broker` pairs.
    ThrottledReplicas,
}

/// One topic config: its name, type, Kafka's default and the broker config it defaults from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TopicConfigDef {
    pub name: &'static str,
    pub kind: ConfigType,
    /// Kafka's default, as DescribeConfigs prints it.
    pub default: &'static str,
    pub validator: ConfigValidator,
    /// The broker config that sets the cluster default (`log.retention.ms` for `retention.ms`),
    /// `None` if there is none.
    pub broker_synonym: Option<&'static str>,
}

const fn def(
    name: &'static str,
    kind: ConfigType,
    default: &'static str,
    validator: ConfigValidator,
    broker_synonym: Option<&'static str>,
) -> TopicConfigDef {
    TopicConfigDef { name, kind, default, validator, broker_synonym }
}

const fn at_least(min: i64) -> ConfigValidator {
    ConfigValidator::Range { min, max: None }
}

const LONG_MAX: &str = "9223372036854775807";

/// Every topic config of Kafka 4.4, by name, and Strand's `delivery.delay.*`.
pub const TOPIC_CONFIGS: &[TopicConfigDef] = &[
    def("cleanup.policy", List, "delete", ListOf(&["compact", "delete"]), Some("log.cleanup.policy")),
    def("compression.gzip.level", Int, "-1", GzipLevel, Some("compression.gzip.level")),
    def(
        "compression.lz4.level",
        Int,
        "9",
        ConfigValidator::Range { min: 1, max: Some(17) },
        Some("compression.lz4.level"),
    ),
    def(
        "compression.type",
        ConfigType::String,
        "producer",
        OneOf(&["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"]),
        Some("compression.type"),
    ),
    def(
        "compression.zstd.level",
        Int,
        "3",
        ConfigValidator::Range { min: -131072, max: Some(22) },
        Some("compression.zstd.level"),
    ),
    def("delete.retention.ms", Long, "86400000", at_least(0), Some("log.cleaner.delete.retention.ms")),
    // Strand's delayed delivery (not Kafka's): a delay for every record, and the longest one.
    def("delivery.delay.max.ms", Long, "7776000000", at_least(0), None),
    def("delivery.delay.ms", Long, "0", at_least(0), None),
    def("errors.deadletterqueue.group.enable", Boolean, "false", Any, None),
    def("file.delete.delay.ms", Long, "60000", at_least(0), Some("log.segment.delete.delay.ms")),
    def("flush.messages", Long, LONG_MAX, at_least(1), Some("log.flush.interval.messages")),
    def("flush.ms", Long, LONG_MAX, at_least(0), Some("log.flush.interval.ms")),
    def(FOLLOWER_REPLICATION_THROTTLED_REPLICAS, List, "", ThrottledReplicas, None),
    def("index.interval.bytes", Int, "4096", at_least(0), Some("log.index.interval.bytes")),
    def(LEADER_REPLICATION_THROTTLED_REPLICAS, List, "", ThrottledReplicas, None),
    def("local.retention.bytes", Long, "-2", at_least(-2), Some("log.local.retention.bytes")),
    def("local.retention.ms", Long, "-2", at_least(-2), Some("log.local.retention.ms")),
    def("max.compaction.lag.ms", Long, LONG_MAX, at_least(1), Some("log.cleaner.max.compaction.lag.ms")),
    def(
        "max.decompressed.message.bytes",
        Int,
        "2147483639",
        ConfigValidator::Range { min: 1, max: Some(2147483639) },
        Some("max.decompressed.message.bytes"),
    ),
    def("max.message.bytes", Int, "1048588", at_least(0), Some("message.max.bytes")),
    def("message.timestamp.after.max.ms", Long, "3600000", at_least(0), Some("log.message.timestamp.after.max.ms")),
    def("message.timestamp.before.max.ms", Long, LONG_MAX, at_least(0), Some("log.message.timestamp.before.max.ms")),
    def(
        "message.timestamp.type",
        ConfigType::String,
        "CreateTime",
        OneOf(&["CreateTime", "LogAppendTime"]),
        Some("log.message.timestamp.type"),
    ),
    def("min.cleanable.dirty.ratio", Double, "0.5", Ratio, Some("log.cleaner.min.cleanable.ratio")),
    def("min.compaction.lag.ms", Long, "0", at_least(0), Some("log.cleaner.min.compaction.lag.ms")),
    def("min.insync.replicas", Int, "1", at_least(1), Some("min.insync.replicas")),
    def("preallocate", Boolean, "false", Any, Some("log.preallocate")),
    def("remote.copy.lag.bytes", Long, "-1", at_least(-1), Some("log.remote.copy.lag.bytes")),
    def("remote.copy.lag.ms", Long, "0", at_least(-1), Some("log.remote.copy.lag.ms")),
    def("remote.log.copy.disable", Boolean, "false", Any, None),
    def("remote.log.delete.on.disable", Boolean, "false", Any, None),
    def("remote.storage.enable", Boolean, "false", Any, None),
    def("retention.bytes", Long, "-1", Any, Some("log.retention.bytes")),
    def("retention.ms", Long, "604800000", at_least(-1), Some("log.retention.ms")),
    def("segment.bytes", Int, "1073741824", at_least(1_048_576), Some("log.segment.bytes")),
    def("segment.index.bytes", Int, "10485760", at_least(4), Some("log.index.size.max.bytes")),
    def("segment.jitter.ms", Long, "0", at_least(0), Some("log.roll.jitter.ms")),
    def("segment.ms", Long, "604800000", at_least(1), Some("log.roll.ms")),
    def("unclean.leader.election.enable", Boolean, "false", Any, Some("unclean.leader.election.enable")),
];

/// Kafka's broker quota configs (`QuotaConfig.brokerQuotaConfigs`): set only dynamically, per
/// broker or as the cluster default, in bytes a second. Not topic configs, but checked the same
/// way.
pub const BROKER_QUOTA_CONFIGS: &[TopicConfigDef] = &[
    def(FOLLOWER_REPLICATION_THROTTLED_RATE, Long, LONG_MAX, at_least(0), None),
    def(LEADER_REPLICATION_THROTTLED_RATE, Long, LONG_MAX, at_least(0), None),
    def(REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND, Long, LONG_MAX, at_least(0), None),
];

/// The broker quota configs' and the throttled replicas lists' names.
pub const LEADER_REPLICATION_THROTTLED_RATE: &str = "leader.replication.throttled.rate";
pub const FOLLOWER_REPLICATION_THROTTLED_RATE: &str = "follower.replication.throttled.rate";
pub const REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND: &str = "replica.alter.log.dirs.io.max.bytes.per.second";
pub const LEADER_REPLICATION_THROTTLED_REPLICAS: &str = "leader.replication.throttled.replicas";
pub const FOLLOWER_REPLICATION_THROTTLED_REPLICAS: &str = "follower.replication.throttled.replicas";

/// The definition of broker quota config `name`, if it is one.
pub fn broker_quota_config(name: &str) -> Option<&'static TopicConfigDef> {
    BROKER_QUOTA_CONFIGS.iter().find(|d| d.name == name)
}

/// `compression.lz4.level`: Strand's LZ4 compressor (`lz4_flex`) has its fast mode only, Kafka's
/// level 9; another level is refused rather than ignored.
const LZ4_LEVEL: &str = "compression.lz4.level";
const LZ4_ONLY_LEVEL: i64 = 9;

/// `min.insync.replicas`, which Strand sets on topics with three or more replicas.
pub const MIN_INSYNC_REPLICAS: &str = "min.insync.replicas";

/// The definition of topic config `name`, if Kafka has one.
pub fn topic_config(name: &str) -> Option<&'static TopicConfigDef> {
    TOPIC_CONFIGS.binary_search_by(|d| d.name.cmp(name)).ok().map(|i| &TOPIC_CONFIGS[i])
}

/// The topic config whose cluster default broker config `name` is (`log.retention.ms` gives
/// `retention.ms`): the dynamic broker configs Strand accepts.
pub fn topic_config_for_broker_synonym(name: &str) -> Option<&'static TopicConfigDef> {
    TOPIC_CONFIGS.iter().find(|d| d.broker_synonym == Some(name))
}

/// Checks one value against its definition; the error is Kafka's `ConfigException` message.
pub fn validate_value(def: &TopicConfigDef, key: &str, value: &str) -> Result<(), String> {
    let invalid = |shown: &str, why: &str| format!("Invalid value {shown} for configuration {key}: {why}");
    let trimmed = value.trim();
    match def.kind {
        ConfigType::Boolean => {
            if trimmed.eq_ignore_ascii_case("true") || trimmed.eq_ignore_ascii_case("false") {
                Ok(())
            } else {
                Err(invalid(value, "Expected value to be either true or false"))
            }
        }
        ConfigType::Int | ConfigType::Long => {
            let parsed = parse_integer(def.kind, trimmed)
                .ok_or_else(|| invalid(value, &format!("Not a number of type {}", def.kind.kafka_name())))?;
            check_integer(def.validator, parsed).map_err(|why| invalid(&parsed.to_string(), &why))?;
            if def.name == LZ4_LEVEL && parsed != LZ4_ONLY_LEVEL {
                return Err(invalid(
                    &parsed.to_string(),
                    "Strand compresses LZ4 at level 9 only (LZ4's fast mode, Kafka's default); other levels are \
                     not implemented",
                ));
            }
            Ok(())
        }
        ConfigType::Double => {
            let parsed: f64 = trimmed.parse().map_err(|_| invalid(value, "Not a number of type DOUBLE"))?;
            check_ratio(def.validator, parsed).map_err(|why| invalid(&format!("{parsed:?}"), &why))
        }
        ConfigType::String => match def.validator {
            OneOf(allowed) if !allowed.contains(&trimmed) => {
                Err(invalid(trimmed, &format!("String must be one of: {}", allowed.join(", "))))
            }
            _ => Ok(()),
        },
        ConfigType::List => check_list(def.validator, key, &split_list(value)),
    }
}

/// Kafka's list parsing: the empty string is the empty list, otherwise comma-separated, trimmed.
pub fn split_list(value: &str) -> Vec<String> {
    let trimmed = value.trim();
    if trimmed.is_empty() { Vec::new() } else { trimmed.split(',').map(|s| s.trim().to_owned()).collect() }
}

fn parse_integer(kind: ConfigType, trimmed: &str) -> Option<i64> {
    match kind {
        ConfigType::Int => trimmed.parse::<i32>().ok().map(i64::from),
        _ => trimmed.parse::<i64>().ok(),
    }
}

fn check_integer(validator: ConfigValidator, n: i64) -> Result<(), String> {
    match validator {
        ConfigValidator::Range { min, .. } if n < min => Err(format!("Value must be at least {min}")),
        ConfigValidator::Range { max: Some(max), .. } if n > max => Err(format!("Value must be no more than {max}")),
        GzipLevel if n != -1 && !(1..=9).contains(&n) => Err("Value must be between 1 and 9 or equal to -1".to_owned()),
        _ => Ok(()),
    }
}

fn check_ratio(validator: ConfigValidator, x: f64) -> Result<(), String> {
    match validator {
        Ratio if x < 0.0 => Err("Value must be at least 0".to_owned()),
        Ratio if x > 1.0 => Err("Value must be no more than 1".to_owned()),
        _ => Ok(()),
    }
}

fn check_list(validator: ConfigValidator, key: &str, items: &[String]) -> Result<(), String> {
    let shown = || format!("[{}]", items.join(", "));
    match validator {
        ListOf(allowed) => {
            if items.iter().any(String::is_empty) {
                return Err(format!("Configuration '{key}' values must not be empty."));
            }
            match items.iter().find(|item| !allowed.contains(&item.as_str())) {
                Some(bad) => Err(format!(
                    "Invalid value {bad} for configuration {key}: String must be one of: {}",
                    allowed.join(", ")
                )),
                None => Ok(()),
            }
        }
        ThrottledReplicas if !is_throttled_replica_list(items) => Err(format!(
            "Invalid value {} for configuration {key}: {key} must be the literal '*' or a list of replicas in \
             the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...",
            shown()
        )),
        _ => Ok(()),
    }
}

fn is_throttled_replica_list(items: &[String]) -> bool {
    let is_pair = |item: &String| {
        item.split_once(':').is_some_and(|(p, b)| {
            !p.is_empty()
                && !b.is_empty()
                && p.bytes().all(|c| c.is_ascii_digit())
                && b.bytes().all(|c| c.is_ascii_digit())
        })
    };
    (items.len() == 1 && items[0] == "*") || items.iter().all(is_pair)
}

/// Kafka's `LogConfig.validate` for a topic's complete set of overrides: every name known, every
/// value legal, and the cross-config rules (minimum compaction lag not above the maximum).
pub fn validate_topic_configs(configs: &BTreeMap<String, String>) -> Result<(), String> {
    for (key, value) in configs {
        let def = topic_config(key).ok_or_else(|| format!("Unknown topic config name: {key}"))?;
        validate_value(def, key, value)?;
    }
    // Strand has no tiered storage: Kafka's answer with `remote.log.storage.system.enable=false`.
    if configs.get("remote.storage.enable").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return Err("Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote \
                    log storage."
            .to_owned());
    }
    let lag = |key: &str, default: i64| configs.get(key).and_then(|v| v.trim().parse::<i64>().ok()).unwrap_or(default);
    let (min_lag, max_lag) = (lag("min.compaction.lag.ms", 0), lag("max.compaction.lag.ms", i64::MAX));
    if min_lag > max_lag {
        return Err(format!(
            "conflict topic config setting min.compaction.lag.ms ({min_lag}) > max.compaction.lag.ms ({max_lag})"
        ));
    }
    Ok(())
}

/// Where a config's effective value comes from (DescribeConfigs' `ConfigSource`, wire ids).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigSource {
    TopicConfig,
    DynamicBrokerConfig,
    DynamicDefaultBrokerConfig,
    StaticBrokerConfig,
    DefaultConfig,
    /// A group's own value (KIP-848's `GROUP_CONFIG`).
    GroupConfig,
}

impl ConfigSource {
    /// The wire id.
    pub fn wire(self) -> i8 {
        match self {
            ConfigSource::TopicConfig => 1,
            ConfigSource::DynamicBrokerConfig => 2,
            ConfigSource::DynamicDefaultBrokerConfig => 3,
            ConfigSource::StaticBrokerConfig => 4,
            ConfigSource::DefaultConfig => 5,
            ConfigSource::GroupConfig => 8,
        }
    }
}

/// One config's effective value for a topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectiveConfig {
    pub name: &'static str,
    pub value: String,
    pub source: ConfigSource,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(key: &str, value: &str, expected: Result<(), &str>) {
        let configs = BTreeMap::from([(key.to_owned(), value.to_owned())]);
        assert_eq!(validate_topic_configs(&configs), expected.map_err(str::to_owned), "{key}={value}");
    }

    /// The table is sorted, so lookups by binary search find every entry.
    #[test]
    fn table_is_sorted() {
        assert!(TOPIC_CONFIGS.windows(2).all(|w| w[0].name < w[1].name));
        assert!(TOPIC_CONFIGS.iter().all(|d| topic_config(d.name) == Some(d)));
        assert_eq!(topic_config_for_broker_synonym("log.retention.ms").map(|d| d.name), Some("retention.ms"));
    }

    /// Values Kafka 4.4's `LogConfig.validate` accepts and rejects, with its messages (checked
    /// against the jar).
    #[test]
    fn values_validate_as_kafka() {
        check("cleanup.policy", "", Ok(()));
        check("cleanup.policy", "delete, compact", Ok(()));
        check(
            "cleanup.policy",
            "Compact",
            Err("Invalid value Compact for configuration cleanup.policy: String must be one of: compact, delete"),
        );
        check("cleanup.policy", "delete,", Err("Configuration 'cleanup.policy' values must not be empty."));
        check("compression.type", " gzip ", Ok(()));
        check("retention.ms", " +100 ", Ok(()));
        check("retention.ms", "-2", Err("Invalid value -2 for configuration retention.ms: Value must be at least -1"));
        check(
            "retention.ms",
            "1.5",
            Err("Invalid value 1.5 for configuration retention.ms: Not a number of type LONG"),
        );
        check(
            "max.message.bytes",
            "99999999999",
            Err("Invalid value 99999999999 for configuration max.message.bytes: Not a number of type INT"),
        );
        check(
            "min.cleanable.dirty.ratio",
            "2",
            Err("Invalid value 2.0 for configuration min.cleanable.dirty.ratio: Value must be no more than 1"),
        );
        check("preallocate", " True ", Ok(()));
        check(
            "preallocate",
            "yes",
            Err("Invalid value yes for configuration preallocate: Expected value to be either true or false"),
        );
        check("compression.gzip.level", "-1", Ok(()));
        check(
            "compression.gzip.level",
            "0",
            Err(
                "Invalid value 0 for configuration compression.gzip.level: Value must be between 1 and 9 or equal to -1",
            ),
        );
        check("leader.replication.throttled.replicas", "*", Ok(()));
        check("leader.replication.throttled.replicas", " 0:1 , 2:3 ", Ok(()));
        assert!(
            validate_topic_configs(&BTreeMap::from([(
                "leader.replication.throttled.replicas".to_owned(),
                "1:x".to_owned()
            )]))
            .is_err()
        );
        check("foo.bar", "1", Err("Unknown topic config name: foo.bar"));
    }

    /// The minimum compaction lag may not exceed the maximum, defaults included.
    #[test]
    fn compaction_lags_are_checked_together() {
        let configs = BTreeMap::from([
            ("min.compaction.lag.ms".to_owned(), "100".to_owned()),
            ("max.compaction.lag.ms".to_owned(), "50".to_owned()),
        ]);
        assert_eq!(
            validate_topic_configs(&configs),
            Err("conflict topic config setting min.compaction.lag.ms (100) > max.compaction.lag.ms (50)".to_owned())
        );
    }

    /// An LZ4 level other than 9, legal in Kafka, is refused: Strand cannot apply it.
    #[test]
    fn lz4_levels_other_than_nine_are_refused() {
        check("compression.lz4.level", "9", Ok(()));
        let refused = "Invalid value 4 for configuration compression.lz4.level: Strand compresses LZ4 at level 9 \
                       only (LZ4's fast mode, Kafka's default); other levels are not implemented";
        check("compression.lz4.level", "4", Err(refused));
        check(
            "compression.lz4.level",
            "18",
            Err("Invalid value 18 for configuration compression.lz4.level: Value must be no more than 17"),
        );
    }

    /// Remote storage is refused as Kafka refuses it without tiered storage; false is fine.
    #[test]
    fn remote_storage_is_refused() {
        let refused = "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with \
                       remote log storage.";
        check("remote.storage.enable", "true", Err(refused));
        check("remote.storage.enable", " TRUE", Err(refused));
        check("remote.storage.enable", "false", Ok(()));
    }
}
