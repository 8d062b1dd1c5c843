//! Every broker setting Strand knows: Kafka's name, Kafka's type and Kafka's default (Apache Kafka
//! 4.x `KafkaConfig`, `ServerLogConfigs`, `SocketServerConfigs`, `KRaftConfigs`, `QuorumConfig`,
//! `ReplicationConfigs`, `GroupCoordinatorConfig`, `TransactionLogConfig`), plus Strand's own
//! settings (`cluster.id`, `log.flush.on.acks.all`, `http.*`).
//!
//! A key in this table is *known*: it is accepted without a warning, validated against its type,
//! and reported (with its default) by DescribeConfigs; those Strand does not act on are refused
//! away from their default, or warned of, by `unimplemented.rs`'s lists. Keys
//! Kafka has but this table lacks (TLS, SASL, quotas, tiered storage, ...) get the unknown-key
//! warning, so nobody believes a setting took effect when it did not.
//!
//! What it is not: it holds no values; [`super::ServerConfig`] does.

use std::collections::BTreeMap;

use super::{ConfigSource, ConfigValue};

/// Kafka's type of a setting, as DescribeConfigs (v3+) reports it in `config_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigType {
    Boolean,
    String,
    Int,
    Short,
    Long,
    Double,
    List,
    Class,
    Password,
}

impl ConfigType {
    /// The wire value of DescribeConfigs' `config_type` (Kafka's `ConfigType` ids).
    pub fn kafka_id(self) -> i8 {
        match self {
            ConfigType::Boolean => 1,
            ConfigType::String => 2,
            ConfigType::Int => 3,
            ConfigType::Short => 4,
            ConfigType::Long => 5,
            ConfigType::Double => 6,
            ConfigType::List => 7,
            ConfigType::Class => 8,
            ConfigType::Password => 9,
        }
    }
}

/// How a value is checked: Kafka's type plus the validator its `ConfigDef` declares.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    Int {
        min: i32,
    },
    /// An INT within `min..=max` (Kafka's `Range.between`).
    IntBetween {
        min: i32,
        max: i32,
    },
    /// `compression.gzip.level`: 1 to 9, or -1 (Kafka's `GzipCompression.LevelValidator`).
    GzipLevel,
    Long {
        min: i64,
    },
    Short {
        min: i16,
    },
    Bool,
    Double,
    Str,
    /// A string that must be one of these (case-sensitive, as Kafka's `ValidString.in`).
    OneOf(&'static [&'static str]),
    List,
    /// A comma-separated list whose every item is one of these (Kafka's `ValidList.in`).
    ListOf(&'static [&'static str]),
    Class,
}

const INT: Kind = Kind::Int { min: i32::MIN };
const LONG: Kind = Kind::Long { min: i64::MIN };
const fn int_min(min: i32) -> Kind {
    Kind::Int { min }
}
const fn long_min(min: i64) -> Kind {
    Kind::Long { min }
}
const fn short_min(min: i16) -> Kind {
    Kind::Short { min }
}

/// One known key.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyDef {
    pub name: &'static str,
    pub kind: Kind,
    /// Kafka's default as text; `None` is Kafka's `null` (unset, another key decides).
    pub default: Option<&'static str>,
}

const fn key(name: &'static str, kind: Kind, default: Option<&'static str>) -> KeyDef {
    KeyDef { name, kind, default }
}

const LONG_MAX: &str = "9223372036854775807";
const INT_MAX: &str = "2147483647";

/// Kafka's `BrokerCompressionType` names.
pub(crate) const COMPRESSION_TYPES: &[&str] = &["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"];
pub(crate) const TIMESTAMP_TYPES: &[&str] = &["CreateTime", "LogAppendTime"];
pub(crate) const CLEANUP_POLICIES: &[&str] = &["compact", "delete"];

/// Kafka's default of `listener.security.protocol.map`, in the order Kafka's docs print it.
pub(crate) const DEFAULT_PROTOCOL_MAP: &str =
    "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT";

#[rustfmt::skip]
const KEYS: &[KeyDef] = &[
    // Identity, roles and the metadata quorum (KRaftConfigs, QuorumConfig).
    key("process.roles", Kind::ListOf(&["broker", "controller"]), Some("")),
    key("node.id", INT, Some("-1")),
    key("broker.id", INT, Some("-1")),
    key("broker.rack", Kind::Str, None),
    key("cluster.id", Kind::Str, None),
    key("http.listeners", Kind::List, Some("")),
    key("http.metrics.topics.max", int_min(0), Some("1000")),
    key("http.anonymous.allowed", Kind::Bool, None),
    key("http.metrics.anonymous.allowed", Kind::Bool, Some("false")),
    key("controller.listener.names", Kind::Str, None),
    key("controller.quorum.voters", Kind::List, Some("")),
    key("controller.quorum.bootstrap.servers", Kind::List, Some("")),
    key("controller.quorum.auto.join.enable", Kind::Bool, Some("false")),
    key("controller.quorum.election.timeout.ms", INT, Some("1000")),
    key("controller.quorum.fetch.timeout.ms", INT, Some("2000")),
    key("controller.quorum.election.backoff.max.ms", INT, Some("1000")),
    key("controller.quorum.append.linger.ms", INT, Some("25")),
    key("controller.quorum.request.timeout.ms", INT, Some("2000")),
    key("controller.quorum.retry.backoff.ms", INT, Some("20")),
    key("metadata.log.dir", Kind::Str, None),
    key("metadata.log.segment.bytes", int_min(12), Some("1073741824")),
    key("metadata.log.segment.ms", LONG, Some("604800000")),
    key("metadata.max.retention.bytes", LONG, Some("104857600")),
    key("metadata.max.retention.ms", LONG, Some("604800000")),
    key("metadata.log.max.record.bytes.between.snapshots", long_min(1), Some("20971520")),
    key("metadata.log.max.snapshot.interval.ms", long_min(0), Some("3600000")),
    key("metadata.max.idle.interval.ms", int_min(0), Some("500")),
    key("broker.heartbeat.interval.ms", INT, Some("2000")),
    key("broker.session.timeout.ms", INT, Some("9000")),
    key("initial.broker.registration.timeout.ms", INT, Some("60000")),
    // Listeners and the socket server (SocketServerConfigs).
    key("listeners", Kind::Str, Some("PLAINTEXT://:9092")),
    key("advertised.listeners", Kind::Str, None),
    key("listener.security.protocol.map", Kind::Str, Some(DEFAULT_PROTOCOL_MAP)),
    key("inter.broker.listener.name", Kind::Str, None),
    key("security.inter.broker.protocol", Kind::OneOf(&["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"]), Some("PLAINTEXT")),
    key("early.start.listeners", Kind::Str, None),
    key("socket.send.buffer.bytes", INT, Some("102400")),
    key("socket.receive.buffer.bytes", INT, Some("102400")),
    key("socket.request.max.bytes", int_min(1), Some("104857600")),
    key("socket.listen.backlog.size", int_min(1), Some("50")),
    key("max.connections", int_min(0), Some(INT_MAX)),
    key("max.connections.per.ip", int_min(0), Some(INT_MAX)),
    key("max.connections.per.ip.overrides", Kind::Str, Some("")),
    key("max.connection.creation.rate", int_min(0), Some(INT_MAX)),
    key("connections.max.idle.ms", LONG, Some("600000")),
    key("connections.max.reauth.ms", LONG, Some("0")),
    key("connection.failed.authentication.delay.ms", int_min(0), Some("100")),
    key("authorizer.class.name", Kind::Str, Some("")),
    // Delegation tokens (KIP-48): enabled only when the secret key is set.
    key("delegation.token.secret.key", Kind::Str, None),
    key("delegation.token.max.lifetime.ms", long_min(1), Some("604800000")),
    key("delegation.token.expiry.time.ms", long_min(1), Some("86400000")),
    key("delegation.token.expiry.check.interval.ms", long_min(1), Some("3600000")),
    key("sasl.enabled.mechanisms", Kind::List, Some("GSSAPI")),
    key("sasl.mechanism.inter.broker.protocol", Kind::Str, Some("GSSAPI")),
    key("sasl.mechanism.controller.protocol", Kind::Str, Some("GSSAPI")),
    key("sasl.server.max.receive.size", int_min(1), Some("524288")),
    key("queued.max.requests", int_min(1), Some("500")),
    key("quota.window.num", int_min(1), Some("11")),
    key("quota.window.size.seconds", int_min(1), Some("1")),
    key("controller.quota.window.num", int_min(1), Some("11")),
    key("controller.quota.window.size.seconds", int_min(1), Some("1")),
    key("replication.quota.window.num", int_min(1), Some("11")),
    key("replication.quota.window.size.seconds", int_min(1), Some("1")),
    key("queued.max.request.bytes", LONG, Some("-1")),
    key("num.network.threads", int_min(1), Some("3")),
    key("num.io.threads", int_min(1), Some("8")),
    key("background.threads", int_min(1), Some("10")),
    key("request.timeout.ms", INT, Some("30000")),
    // Requests and topics (ServerConfigs, ServerLogConfigs).
    key("message.max.bytes", int_min(0), Some("1048588")),
    key("fetch.max.bytes", int_min(1024), Some("57671680")),
    key("max.incremental.fetch.session.cache.slots", int_min(0), Some("1000")),
    key("delete.topic.enable", Kind::Bool, Some("true")),
    key("auto.create.topics.enable", Kind::Bool, Some("true")),
    key("num.partitions", int_min(1), Some("1")),
    key("default.replication.factor", INT, Some("1")),
    key("min.insync.replicas", int_min(1), Some("1")),
    key("unclean.leader.election.enable", Kind::Bool, Some("false")),
    key("compression.type", Kind::OneOf(COMPRESSION_TYPES), Some("producer")),
    key("compression.gzip.level", Kind::GzipLevel, Some("-1")),
    key("compression.lz4.level", Kind::IntBetween { min: 1, max: 17 }, Some("9")),
    key("compression.zstd.level", Kind::IntBetween { min: -131072, max: 22 }, Some("3")),
    key("auto.leader.rebalance.enable", Kind::Bool, Some("true")),
    key("leader.imbalance.check.interval.seconds", int_min(1), Some("300")),
    key("leader.imbalance.per.broker.percentage", INT, Some("10")),
    key("controlled.shutdown.enable", Kind::Bool, Some("true")),
    key("create.topic.policy.class.name", Kind::Class, None),
    key("alter.config.policy.class.name", Kind::Class, None),
    // The log (ServerLogConfigs, LogConfig.SERVER_CONFIG_DEF, CleanerConfig).
    key("log.dir", Kind::List, Some("/tmp/kafka-logs")),
    key("log.dirs", Kind::List, None),
    key("log.segment.bytes", int_min(1024 * 1024), Some("1073741824")),
    key("log.roll.ms", LONG, None),
    key("log.roll.hours", int_min(1), Some("168")),
    key("log.roll.jitter.ms", LONG, None),
    key("log.roll.jitter.hours", int_min(0), Some("0")),
    key("log.retention.ms", LONG, None),
    key("log.retention.minutes", INT, None),
    key("log.retention.hours", INT, Some("168")),
    key("log.retention.bytes", LONG, Some("-1")),
    key("log.retention.check.interval.ms", long_min(1), Some("300000")),
    key("log.cleanup.policy", Kind::ListOf(CLEANUP_POLICIES), Some("delete")),
    key("log.index.size.max.bytes", int_min(4), Some("10485760")),
    key("log.index.interval.bytes", int_min(0), Some("4096")),
    key("log.flush.interval.messages", long_min(1), Some(LONG_MAX)),
    key("log.flush.interval.ms", LONG, None),
    key("log.flush.scheduler.interval.ms", LONG, Some(LONG_MAX)),
    key("log.flush.offset.checkpoint.interval.ms", int_min(0), Some("60000")),
    key("log.flush.start.offset.checkpoint.interval.ms", int_min(0), Some("60000")),
    key("log.flush.on.acks.all", Kind::Bool, Some("true")),
    key("log.segment.delete.delay.ms", long_min(0), Some("60000")),
    key("log.preallocate", Kind::Bool, Some("false")),
    key("log.message.timestamp.type", Kind::OneOf(TIMESTAMP_TYPES), Some("CreateTime")),
    key("log.message.timestamp.before.max.ms", long_min(0), Some(LONG_MAX)),
    key("log.message.timestamp.after.max.ms", long_min(0), Some("3600000")),
    key("log.dir.failure.timeout.ms", long_min(1), Some("30000")),
    key("num.recovery.threads.per.data.dir", int_min(1), Some("2")),
    key("log.cleaner.enable", Kind::Bool, Some("true")),
    key("log.cleaner.threads", int_min(0), Some("1")),
    key("log.cleaner.dedupe.buffer.size", LONG, Some("134217728")),
    key("log.cleaner.io.buffer.size", int_min(0), Some("524288")),
    key("log.cleaner.io.buffer.load.factor", Kind::Double, Some("0.9")),
    key("log.cleaner.io.max.bytes.per.second", Kind::Double, Some("1.7976931348623157E308")),
    key("log.cleaner.backoff.ms", long_min(0), Some("15000")),
    key("log.cleaner.min.cleanable.ratio", Kind::Double, Some("0.5")),
    key("log.cleaner.delete.retention.ms", long_min(0), Some("86400000")),
    key("log.cleaner.min.compaction.lag.ms", long_min(0), Some("0")),
    key("log.cleaner.max.compaction.lag.ms", long_min(1), Some(LONG_MAX)),
    // Replication (ReplicationConfigs).
    key("replica.lag.time.max.ms", LONG, Some("30000")),
    key("replica.fetch.max.bytes", int_min(0), Some("1048576")),
    key("replica.fetch.wait.max.ms", INT, Some("500")),
    key("replica.fetch.min.bytes", INT, Some("1")),
    key("replica.fetch.backoff.ms", int_min(0), Some("1000")),
    key("replica.fetch.response.max.bytes", int_min(0), Some("10485760")),
    key("replica.socket.timeout.ms", INT, Some("30000")),
    key("replica.socket.receive.buffer.bytes", INT, Some("65536")),
    key("num.replica.fetchers", INT, Some("1")),
    key("replica.high.watermark.checkpoint.interval.ms", LONG, Some("5000")),
    key("replica.selector.class", Kind::Class, None),
    key("fetch.purgatory.purge.interval.requests", INT, Some("1000")),
    key("producer.purgatory.purge.interval.requests", INT, Some("1000")),
    key("delete.records.purgatory.purge.interval.requests", INT, Some("1")),
    // The group coordinator and `__consumer_offsets` (GroupCoordinatorConfig).
    key("offsets.topic.num.partitions", int_min(1), Some("50")),
    key("offsets.topic.replication.factor", short_min(1), Some("3")),
    key("offsets.topic.segment.bytes", int_min(1), Some("104857600")),
    key("offsets.topic.compression.codec", INT, Some("0")),
    key("offsets.load.buffer.size", int_min(1), Some("5242880")),
    key("offsets.retention.minutes", int_min(1), Some("10080")),
    key("offsets.retention.check.interval.ms", long_min(1), Some("600000")),
    key("offsets.commit.timeout.ms", int_min(1), Some("5000")),
    key("offset.metadata.max.bytes", INT, Some("4096")),
    key("group.initial.rebalance.delay.ms", INT, Some("3000")),
    key("group.min.session.timeout.ms", INT, Some("6000")),
    key("group.max.session.timeout.ms", INT, Some("1800000")),
    key("group.max.size", int_min(1), Some(INT_MAX)),
    key("group.coordinator.rebalance.protocols", Kind::ListOf(&["classic", "consumer", "share", "streams"]), Some("classic,consumer,streams")),
    key("group.consumer.session.timeout.ms", int_min(1), Some("45000")),
    key("group.consumer.min.session.timeout.ms", int_min(1), Some("45000")),
    key("group.consumer.max.session.timeout.ms", int_min(1), Some("60000")),
    key("group.consumer.heartbeat.interval.ms", int_min(1), Some("5000")),
    key("group.consumer.min.heartbeat.interval.ms", int_min(1), Some("5000")),
    key("group.consumer.max.heartbeat.interval.ms", int_min(1), Some("15000")),
    key("group.consumer.max.size", int_min(1), Some(INT_MAX)),
    key("group.consumer.assignors", Kind::ListOf(CONSUMER_GROUP_ASSIGNORS), Some("uniform,range")),
    key("group.consumer.migration.policy", Kind::OneOf(&["disabled", "upgrade", "downgrade", "bidirectional"]), Some("bidirectional")),
    key("group.consumer.regex.refresh.interval.ms", int_min(1), Some("600000")),
    // Streams groups (KIP-1071; GroupCoordinatorConfig).
    key("group.streams.session.timeout.ms", int_min(1), Some("45000")),
    key("group.streams.min.session.timeout.ms", int_min(1), Some("45000")),
    key("group.streams.max.session.timeout.ms", int_min(1), Some("60000")),
    key("group.streams.heartbeat.interval.ms", int_min(1), Some("5000")),
    key("group.streams.min.heartbeat.interval.ms", int_min(1), Some("5000")),
    key("group.streams.max.heartbeat.interval.ms", int_min(1), Some("15000")),
    key("group.streams.max.size", int_min(1), Some(INT_MAX)),
    key("group.streams.num.standby.replicas", int_min(0), Some("0")),
    key("group.streams.max.standby.replicas", int_min(0), Some("2")),
    key("group.streams.initial.rebalance.delay.ms", int_min(0), Some("3000")),
    key("group.streams.assignment.interval.ms", int_min(0), Some("1000")),
    key("group.streams.min.assignment.interval.ms", int_min(0), Some("0")),
    key("group.streams.max.assignment.interval.ms", int_min(0), Some("15000")),
    key("group.streams.assignors", Kind::List, Some("org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor")),
    key("group.streams.assignor.offload.enable", Kind::Bool, Some("true")),
    key("group.streams.task.offset.interval.ms", int_min(1), Some("60000")),
    key("group.streams.min.task.offset.interval.ms", int_min(1), Some("15000")),
    key("group.streams.num.warmup.replicas", int_min(0), Some("2")),
    key("group.streams.max.warmup.replicas", int_min(0), Some("20")),
    key("group.streams.acceptable.recovery.lag", long_min(0), Some("10000")),
    key("group.streams.rack.aware.assignment.tags", Kind::List, Some("")),
    key("group.streams.topology.description.plugin.class", Kind::Str, None),
    // Share groups (KIP-932; ShareGroupConfig, GroupCoordinatorConfig, ShareCoordinatorConfig).
    key("group.share.session.timeout.ms", int_min(1), Some("45000")),
    key("group.share.min.session.timeout.ms", int_min(1), Some("45000")),
    key("group.share.max.session.timeout.ms", int_min(1), Some("60000")),
    key("group.share.heartbeat.interval.ms", int_min(1), Some("5000")),
    key("group.share.min.heartbeat.interval.ms", int_min(1), Some("5000")),
    key("group.share.max.heartbeat.interval.ms", int_min(1), Some("15000")),
    key("group.share.max.size", int_min(1), Some("200")),
    key("group.share.assignors", Kind::List, Some("simple")),
    key("group.share.assignment.interval.ms", int_min(0), Some("1000")),
    key("group.share.min.assignment.interval.ms", int_min(0), Some("0")),
    key("group.share.max.assignment.interval.ms", int_min(0), Some("15000")),
    key("group.share.assignor.offload.enable", Kind::Bool, Some("true")),
    key("group.share.initialize.retry.interval.ms", int_min(1), Some("30000")),
    key("group.share.record.lock.duration.ms", int_min(1000), Some("30000")),
    key("group.share.min.record.lock.duration.ms", int_min(1000), Some("15000")),
    key("group.share.max.record.lock.duration.ms", int_min(30000), Some("60000")),
    key("group.share.delivery.count.limit", int_min(2), Some("5")),
    key("group.share.min.delivery.count.limit", int_min(2), Some("2")),
    key("group.share.max.delivery.count.limit", int_min(2), Some("10")),
    key("group.share.partition.max.record.locks", int_min(100), Some("2000")),
    key("group.share.min.partition.max.record.locks", int_min(100), Some("100")),
    key("group.share.max.partition.max.record.locks", int_min(100), Some("4000")),
    key("group.share.max.share.sessions", int_min(1), Some("2000")),
    key("group.share.persister.class.name", Kind::Str, Some("org.apache.kafka.server.share.persister.DefaultStatePersister")),
    key("errors.deadletterqueue.topic.name.prefix", Kind::Str, Some("dlq.")),
    key("errors.deadletterqueue.auto.create.topics.enable", Kind::Bool, Some("false")),
    key("group.share.dlq.manager.class.name", Kind::Str, Some("org.apache.kafka.server.share.dlq.DefaultShareGroupDLQManager")),
    key("share.fetch.purgatory.purge.interval.requests", INT, Some("1000")),
    key("share.coordinator.state.topic.num.partitions", int_min(1), Some("50")),
    key("share.coordinator.state.topic.replication.factor", short_min(1), Some("3")),
    key("share.coordinator.state.topic.min.isr", short_min(1), Some("2")),
    key("share.coordinator.state.topic.segment.bytes", int_min(1), Some("104857600")),
    key("share.coordinator.threads", int_min(1), Some("1")),
    key("share.coordinator.load.buffer.size", int_min(1), Some("5242880")),
    key("share.coordinator.snapshot.update.records.per.snapshot", int_min(0), Some("500")),
    key("share.coordinator.write.timeout.ms", int_min(1), Some("5000")),
    key("share.coordinator.append.linger.ms", int_min(-1), Some("-1")),
    key("share.coordinator.state.topic.prune.interval.ms", long_min(1), Some("300000")),
    key("share.coordinator.cold.partition.snapshot.interval.ms", int_min(1), Some("300000")),
    // The transaction coordinator and `__transaction_state` (TransactionLogConfig).
    key("transaction.state.log.num.partitions", int_min(1), Some("50")),
    key("transaction.state.log.replication.factor", short_min(1), Some("3")),
    key("transaction.state.log.min.isr", int_min(1), Some("2")),
    key("transaction.state.log.segment.bytes", int_min(1), Some("104857600")),
    key("transaction.state.log.load.buffer.size", int_min(1), Some("5242880")),
    key("transaction.max.timeout.ms", int_min(1), Some("900000")),
    key("transactional.id.expiration.ms", int_min(1), Some("604800000")),
    key("transaction.abort.timed.out.transaction.cleanup.interval.ms", int_min(1), Some("10000")),
    key("transaction.remove.expired.transaction.cleanup.interval.ms", int_min(1), Some("3600000")),
    key("transaction.partition.verification.enable", Kind::Bool, Some("true")),
    // A transactions-V2 write whose partition the coordinator cannot add yet (the previous
    // transaction's markers are still going out) is retried by the broker (KAFKA-18654).
    key("add.partitions.to.txn.retry.backoff.ms", int_min(0), Some("20")),
    key("add.partitions.to.txn.retry.backoff.max.ms", int_min(0), Some("100")),
    key("producer.id.expiration.ms", int_min(1), Some("86400000")),
    key("producer.id.expiration.check.interval.ms", int_min(1), Some("600000")),
];

/// The consumer group assignors Strand has, by name or by the class name Kafka gives them.
pub(crate) const CONSUMER_GROUP_ASSIGNORS: &[&str] = &[
    "uniform",
    "range",
    "org.apache.kafka.coordinator.group.assignor.UniformAssignor",
    "org.apache.kafka.coordinator.group.assignor.RangeAssignor",
];

/// The definition of `name`, if Strand knows the key.
pub(crate) fn lookup(name: &str) -> Option<&'static KeyDef> {
    KEYS.iter().find(|def| def.name == name)
}

/// Whether Strand knows `key` (accepts it without a warning and reports it in DescribeConfigs).
pub fn is_known_key(key: &str) -> bool {
    lookup(key).is_some()
}

/// Kafka's type of `key`, for DescribeConfigs; `None` for an unknown key.
pub fn config_type(key: &str) -> Option<ConfigType> {
    lookup(key).map(|def| match def.kind {
        Kind::Int { .. } | Kind::IntBetween { .. } | Kind::GzipLevel => ConfigType::Int,
        Kind::Long { .. } => ConfigType::Long,
        Kind::Short { .. } => ConfigType::Short,
        Kind::Bool => ConfigType::Boolean,
        Kind::Double => ConfigType::Double,
        Kind::Str | Kind::OneOf(_) => ConfigType::String,
        Kind::List | Kind::ListOf(_) => ConfigType::List,
        Kind::Class => ConfigType::Class,
    })
}

/// The keys that decide `key`'s effective value, in precedence order, as DescribeConfigs lists
/// them as synonyms (Kafka's `KafkaConfig` fallbacks): `log.roll.ms` before `log.roll.hours`, ...
/// A key without fallbacks is its own only synonym.
pub fn synonyms(key: &str) -> &'static [&'static str] {
    const GROUPS: &[&[&str]] = &[
        &["log.roll.ms", "log.roll.hours"],
        &["log.roll.jitter.ms", "log.roll.jitter.hours"],
        &["log.retention.ms", "log.retention.minutes", "log.retention.hours"],
        &["log.flush.interval.ms", "log.flush.scheduler.interval.ms"],
        &["log.dirs", "log.dir"],
        &["node.id", "broker.id"],
    ];
    if let Some(group) = GROUPS.iter().find(|group| group.contains(&key)) {
        let at = group.iter().position(|k| *k == key).unwrap_or(0);
        return &group[at..];
    }
    match lookup(key) {
        Some(def) => std::slice::from_ref(&def.name),
        None => &[],
    }
}

/// Every known key at Kafka's default, the starting point of every configuration.
pub(crate) fn default_entries() -> BTreeMap<String, ConfigValue> {
    KEYS.iter()
        .map(|def| {
            let value = ConfigValue {
                value: def.default.map(str::to_owned),
                source: ConfigSource::Default,
                // No known key is a secret yet (Strand has no TLS or SASL settings).
                sensitive: false,
            };
            (def.name.to_owned(), value)
        })
        .collect()
}

/// Whether a key's value should be hidden: Kafka types secrets as `PASSWORD`, and a key Strand
/// does not know may still be one (`ssl.keystore.password`, `sasl.jaas.config`, ...).
pub(crate) fn looks_sensitive(name: &str) -> bool {
    ["password", "secret", "jaas.config", "credential"].iter().any(|word| name.contains(word))
        || name.ends_with("ssl.keystore.key")
}

/// Checks `text` (already trimmed) against `kind`; the error is the reason, without the key.
pub(crate) fn check(kind: Kind, text: &str) -> Result<(), String> {
    match kind {
        Kind::Int { .. } | Kind::Long { .. } | Kind::Short { .. } => parse_integer(kind, text).map(|_| ()),
        Kind::IntBetween { min, max } => match parse_integer(Kind::Int { min }, text)? {
            value if value > i64::from(max) => Err(format!("must be no more than {max}")),
            _ => Ok(()),
        },
        Kind::GzipLevel => match parse_integer(INT, text)? {
            -1 | 1..=9 => Ok(()),
            _ => Err("must be between 1 and 9 or equal to -1".to_owned()),
        },
        Kind::Bool => parse_bool(text).map(|_| ()),
        Kind::Double => text.parse::<f64>().map(|_| ()).map_err(|_| "not a number".to_owned()),
        Kind::OneOf(allowed) if allowed.contains(&text) => Ok(()),
        Kind::OneOf(allowed) => Err(format!("must be one of {}", allowed.join(", "))),
        Kind::ListOf(allowed) => match parse_list(text).into_iter().find(|item| !allowed.contains(&item.as_str())) {
            Some(item) => Err(format!("{item:?} is not one of {}", allowed.join(", "))),
            None => Ok(()),
        },
        Kind::Str | Kind::List | Kind::Class => Ok(()),
    }
}

/// Parses an integer of `kind` (Java's `Integer.parseInt` / `Long.parseLong` / `Short.parseShort`
/// over the trimmed text), checked against the kind's width and minimum.
pub(crate) fn parse_integer(kind: Kind, text: &str) -> Result<i64, String> {
    let value: i64 = text.parse().map_err(|_| "not an integer".to_owned())?;
    let (low, high, min) = match kind {
        Kind::Int { min } | Kind::IntBetween { min, .. } => (i64::from(i32::MIN), i64::from(i32::MAX), i64::from(min)),
        Kind::GzipLevel => (i64::from(i32::MIN), i64::from(i32::MAX), i64::from(i32::MIN)),
        Kind::Short { min } => (i64::from(i16::MIN), i64::from(i16::MAX), i64::from(min)),
        Kind::Long { min } => (i64::MIN, i64::MAX, min),
        _ => return Err("not an integer setting".to_owned()),
    };
    if value < low || value > high {
        return Err(format!("out of range [{low}, {high}]"));
    }
    if value < min {
        return Err(format!("must be at least {min}"));
    }
    Ok(value)
}

/// Kafka's booleans: `true` or `false`, any case.
pub(crate) fn parse_bool(text: &str) -> Result<bool, String> {
    if text.eq_ignore_ascii_case("true") {
        Ok(true)
    } else if text.eq_ignore_ascii_case("false") {
        Ok(false)
    } else {
        Err("not a boolean (true or false)".to_owned())
    }
}

/// Kafka's lists: comma-separated, items trimmed, empty items dropped (`Csv.parseCsvList`).
pub(crate) fn parse_list(text: &str) -> Vec<String> {
    text.split(',').map(str::trim).filter(|item| !item.is_empty()).map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every default in the table passes its own key's validation, and no key is listed twice.
    #[test]
    fn defaults_are_valid_and_keys_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for def in KEYS {
            assert!(seen.insert(def.name), "{} listed twice", def.name);
            if let Some(default) = def.default {
                assert_eq!(check(def.kind, default), Ok(()), "{}", def.name);
            }
        }
    }

    /// Integers are checked for syntax, width and minimum; booleans and enumerations as Kafka does.
    #[test]
    fn values_are_checked_as_kafka_checks_them() {
        assert_eq!(parse_integer(INT, "+42"), Ok(42));
        assert_eq!(parse_integer(INT, "abc"), Err("not an integer".to_owned()));
        assert!(parse_integer(INT, "2147483648").is_err());
        assert!(parse_integer(short_min(1), "40000").is_err());
        assert_eq!(parse_integer(int_min(1), "0"), Err("must be at least 1".to_owned()));
        assert_eq!(parse_bool("TRUE"), Ok(true));
        assert!(parse_bool("yes").is_err());
        assert!(check(Kind::OneOf(TIMESTAMP_TYPES), "createtime").is_err());
        assert_eq!(check(Kind::ListOf(CLEANUP_POLICIES), "compact, delete"), Ok(()));
        assert!(check(Kind::ListOf(CLEANUP_POLICIES), "delete,archive").is_err());
    }

    /// Synonyms list a key and the keys it falls back to, in Kafka's precedence order.
    #[test]
    fn synonyms_follow_kafka_fallbacks() {
        assert_eq!(synonyms("log.retention.ms"), ["log.retention.ms", "log.retention.minutes", "log.retention.hours"]);
        assert_eq!(synonyms("log.retention.hours"), ["log.retention.hours"]);
        assert_eq!(synonyms("num.partitions"), ["num.partitions"]);
        assert!(synonyms("no.such.key").is_empty());
    }
}
