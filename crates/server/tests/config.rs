//! `ServerConfig` at its boundary: Kafka's `server.properties` names and defaults, precedence of
//! embedded defaults, file and overrides, aliases, warnings for unknown keys, errors naming the
//! key, and Kafka's cross-key rules with Strand's sole-voter relaxation.

use std::path::PathBuf;

use strand_server::config::{
    BrokerCompressionType, ConfigError, ConfigSource, ProcessRoles, SecurityProtocol, ServerConfig, TimestampType,
};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn pairs(text: &[(&str, &str)]) -> Vec<(String, String)> {
    text.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// A file for one node of a three-controller cluster: Kafka's defaults stand everywhere.
const CLUSTER_NODE: &[(&str, &str)] = &[
    ("process.roles", "broker,controller"),
    ("node.id", "1"),
    ("controller.quorum.voters", "1@localhost:9093,2@localhost:9095,3@localhost:9097"),
    ("listeners", "PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093"),
    ("controller.listener.names", "CONTROLLER"),
];

fn from_file(file: &[(&str, &str)], overrides: &[(&str, &str)]) -> Result<ServerConfig, ConfigError> {
    ServerConfig::from_properties(Some(&pairs(file)), &pairs(overrides))
}

fn embedded(overrides: &[(&str, &str)]) -> Result<ServerConfig, ConfigError> {
    ServerConfig::from_properties(None, &pairs(overrides))
}

fn value<'a>(config: &'a ServerConfig, key: &str) -> Option<(&'a str, ConfigSource)> {
    config.get(key).and_then(|entry| Some((entry.value.as_deref()?, entry.source)))
}

/// Keys nobody set report Kafka 4's defaults, both typed and as text with source Default.
#[test]
fn defaults_are_kafkas() -> TestResult {
    let config = from_file(CLUSTER_NODE, &[])?;
    let expected = [
        ("num.partitions", "1"),
        ("default.replication.factor", "1"),
        ("auto.create.topics.enable", "true"),
        ("log.segment.bytes", "1073741824"),
        ("log.roll.hours", "168"),
        ("log.retention.hours", "168"),
        ("log.retention.bytes", "-1"),
        ("log.retention.check.interval.ms", "300000"),
        ("log.index.interval.bytes", "4096"),
        ("log.index.size.max.bytes", "10485760"),
        ("log.cleanup.policy", "delete"),
        ("log.flush.interval.messages", "9223372036854775807"),
        ("log.message.timestamp.type", "CreateTime"),
        ("log.message.timestamp.after.max.ms", "3600000"),
        ("message.max.bytes", "1048588"),
        ("socket.request.max.bytes", "104857600"),
        ("num.network.threads", "3"),
        ("num.io.threads", "8"),
        ("connections.max.idle.ms", "600000"),
        ("offsets.topic.num.partitions", "50"),
        ("offsets.topic.replication.factor", "3"),
        ("transaction.state.log.replication.factor", "3"),
        ("transaction.state.log.min.isr", "2"),
        ("group.initial.rebalance.delay.ms", "3000"),
        ("min.insync.replicas", "1"),
        ("unclean.leader.election.enable", "false"),
        ("compression.type", "producer"),
        ("max.incremental.fetch.session.cache.slots", "1000"),
        ("producer.id.expiration.ms", "86400000"),
        (
            "listener.security.protocol.map",
            "SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT",
        ),
        ("log.flush.on.acks.all", "true"),
    ];
    for (key, text) in expected {
        assert_eq!(value(&config, key), Some((text, ConfigSource::Default)), "{key}");
    }
    assert_eq!(config.get("log.roll.ms").map(|entry| entry.value.clone()), Some(None));
    assert_eq!(config.log_roll_ms, 7 * 24 * 3_600_000);
    assert_eq!(config.log_retention_ms, 7 * 24 * 3_600_000);
    assert_eq!(config.log_flush_interval_ms, i64::MAX);
    assert_eq!(config.message_max_bytes, 1_048_588);
    assert_eq!(config.offsets_topic_replication_factor, 3);
    assert_eq!(config.transaction_state_log_min_isr, 2);
    assert_eq!(config.log_message_timestamp_type, TimestampType::CreateTime);
    assert_eq!(config.compression_type, BrokerCompressionType::Producer);
    assert!(config.log_flush_on_acks_all);
    assert_eq!(config.log_dirs, [PathBuf::from("/tmp/kafka-logs")]);
    assert_eq!(config.inter_broker_listener_name, "PLAINTEXT");
    assert!(!config.is_sole_voter());
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    Ok(())
}

/// Without a file, `strand server` is a one-node cluster: node 1, both roles, localhost:9092,
/// ./strand-data, and the internal topics lowered to one replica; with no warnings.
#[test]
fn embedded_one_node_defaults() -> TestResult {
    let config = embedded(&[])?;
    assert_eq!(config.node_id, 1);
    assert_eq!(config.process_roles, ProcessRoles { broker: true, controller: true });
    assert_eq!(config.listeners.len(), 1);
    assert_eq!(config.listeners[0].to_string(), "PLAINTEXT://localhost:9092");
    assert_eq!(config.advertised_listeners, config.listeners);
    assert_eq!(config.log_dirs, [PathBuf::from("./strand-data")]);
    assert_eq!(config.metadata_log_dir, PathBuf::from("./strand-data"));
    assert_eq!(config.all_log_dirs(), [PathBuf::from("./strand-data")]);
    assert!(config.is_sole_voter());
    assert!(config.controller_listener_names.is_empty());
    assert_eq!(config.offsets_topic_replication_factor, 1);
    assert_eq!(config.transaction_state_log_replication_factor, 1);
    assert_eq!(config.transaction_state_log_min_isr, 1);
    assert_eq!(value(&config, "offsets.topic.replication.factor"), Some(("1", ConfigSource::StrandDefault)));
    assert_eq!(value(&config, "node.id"), Some(("1", ConfigSource::StrandDefault)));
    assert_eq!(value(&config, "broker.id"), Some(("1", ConfigSource::StrandDefault)));
    assert_eq!(value(&config, "num.partitions"), Some(("1", ConfigSource::Default)));
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    Ok(())
}

/// An override beats an embedded default, and a set internal-topic setting is never lowered.
#[test]
fn overrides_beat_embedded_defaults() -> TestResult {
    let config = embedded(&[("listeners", "PLAINTEXT://127.0.0.1:0"), ("offsets.topic.replication.factor", "3")])?;
    assert_eq!(config.listeners[0].port, 0);
    assert_eq!(config.offsets_topic_replication_factor, 3);
    assert_eq!(value(&config, "offsets.topic.replication.factor"), Some(("3", ConfigSource::Override)));
    assert_eq!(config.transaction_state_log_replication_factor, 1);
    Ok(())
}

/// File values beat defaults, overrides beat the file, and among overrides the last wins.
#[test]
fn file_then_overrides_precedence() -> TestResult {
    let mut file = CLUSTER_NODE.to_vec();
    file.extend([("num.partitions", "3"), ("log.segment.bytes", "2097152"), ("num.partitions", "4")]);
    let config = from_file(&file, &[("num.partitions", "5"), ("log.retention.hours", "1"), ("num.partitions", "6")])?;
    assert_eq!(config.num_partitions, 6);
    assert_eq!(value(&config, "num.partitions"), Some(("6", ConfigSource::Override)));
    assert_eq!(config.log_segment_bytes, 2_097_152);
    assert_eq!(value(&config, "log.segment.bytes"), Some(("2097152", ConfigSource::File)));
    assert_eq!(config.log_retention_ms, 3_600_000);
    assert_eq!(config.log_config().segment_bytes, 2_097_152);
    Ok(())
}

/// A file, even an empty one, means Kafka's defaults: no embedded roles, so process.roles is
/// required, as in Kafka 4.
#[test]
fn a_file_gets_no_embedded_defaults() {
    let error = from_file(&[], &[]).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(error.contains("process.roles"), "{error}");
}

/// `broker.id` is `node.id`'s alias; `log.dir` stands in for `log.dirs`; `*.ms` beats `*.hours`.
#[test]
fn aliases_and_fallbacks() -> TestResult {
    let base: Vec<(&str, &str)> = CLUSTER_NODE.iter().copied().filter(|(k, _)| *k != "node.id").collect();
    let mut file = base.clone();
    file.extend([("broker.id", "1"), ("log.dir", "/data/a, /data/b")]);
    let config = from_file(&file, &[("log.roll.hours", "2"), ("log.retention.minutes", "30")])?;
    assert_eq!(config.node_id, 1);
    assert_eq!(value(&config, "node.id"), Some(("1", ConfigSource::File)));
    assert_eq!(config.log_dirs, [PathBuf::from("/data/a"), PathBuf::from("/data/b")]);
    assert_eq!(config.metadata_log_dir, PathBuf::from("/data/a"));
    assert_eq!(config.log_roll_ms, 2 * 3_600_000);
    assert_eq!(config.log_retention_ms, 30 * 60_000);

    let config = from_file(&file, &[("log.roll.ms", "1000"), ("log.roll.hours", "2"), ("log.dirs", "/x")])?;
    assert_eq!(config.log_roll_ms, 1000);
    assert_eq!(config.log_dirs, [PathBuf::from("/x")]);
    assert_eq!(config.log_config().segment_ms, 1000);

    let config = from_file(&file, &[("log.retention.ms", "-5"), ("metadata.log.dir", "/meta")])?;
    assert_eq!(config.log_retention_ms, -1);
    assert_eq!(config.all_log_dirs(), [PathBuf::from("/data/a"), PathBuf::from("/data/b"), PathBuf::from("/meta")]);

    let error =
        from_file(&base, &[("broker.id", "1"), ("node.id", "2")]).err().and_then(|e| e.key().map(str::to_owned));
    assert_eq!(error.as_deref(), Some("node.id"));
    Ok(())
}

/// An unknown key is kept and warned about in Kafka's words, once, and a secret-looking one is
/// marked sensitive; the configuration still loads.
#[test]
fn unknown_keys_warn() -> TestResult {
    let mut file = CLUSTER_NODE.to_vec();
    file.push(("log.segmnet.bytes", "1"));
    let config = from_file(&file, &[("my.plugin.password", "hunter2"), ("log.segmnet.bytes", "2")])?;
    assert_eq!(
        config.warnings,
        [
            "The configuration 'log.segmnet.bytes' was supplied but isn't a known config.",
            "The configuration 'my.plugin.password' was supplied but isn't a known config.",
        ]
    );
    assert_eq!(value(&config, "log.segmnet.bytes"), Some(("2", ConfigSource::Override)));
    assert!(config.get("my.plugin.password").is_some_and(|entry| entry.sensitive));
    assert!(config.get("num.io.threads").is_some_and(|entry| !entry.sensitive));
    Ok(())
}

/// A PLAIN JAAS entry with users to check but no login of the node's own.
const PLAIN_USERS: &str = "org.apache.kafka.common.security.plain.PlainLoginModule required user_a=\"b\";";

/// Security Strand does not implement yet is refused, naming the key, wherever it is asked for:
/// a SASL inter-broker listener without a login Strand can make, any authorization key the user set, and a TLS or SASL key
/// Strand does not implement; Kafka's defaults alone load, and so do the TLS and SASL settings
/// Strand serves.
#[test]
fn unimplemented_security_is_refused() -> TestResult {
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str);
    let cases: &[Case<'_>] = &[
        (
            &[
                ("listeners", "SASL_SSL://localhost:9093"),
                ("security.inter.broker.protocol", "SASL_SSL"),
                ("sasl.enabled.mechanisms", "PLAIN"),
                ("listener.name.sasl_ssl.plain.sasl.jaas.config", PLAIN_USERS),
            ],
            "sasl.mechanism.inter.broker.protocol",
            "must be included in sasl.enabled.mechanisms when SASL is used for inter-broker communication",
        ),
        (
            &[("listeners", "PLAINTEXT://localhost:9092,SASL_SSL://localhost:9094")],
            "listener.name.sasl_ssl.sasl.enabled.mechanisms",
            "GSSAPI",
        ),
        (
            &[
                ("listener.security.protocol.map", "PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT"),
                ("sasl.enabled.mechanisms", "PLAIN"),
                ("sasl.mechanism.inter.broker.protocol", "PLAIN"),
                ("listener.name.plaintext.plain.sasl.jaas.config", PLAIN_USERS),
            ],
            "listener.name.plaintext.plain.sasl.jaas.config",
            "no 'username' option for this node's own login",
        ),
        (&[("ssl.engine.factory.class", "x.Factory")], "ssl.engine.factory.class", "Kafka's default"),
        (&[("ssl.keystore.alias", "node")], "ssl.keystore.alias", "not supported by Strand"),
        (&[("sasl.kerberos.service.name", "kafka")], "sasl.kerberos.service.name", "not supported by Strand"),
        (&[("sasl.jaas.config", "x")], "sasl.jaas.config", "per listener and mechanism"),
        (
            &[("authorizer.class.name", "kafka.security.authorizer.AclAuthorizer")],
            "authorizer.class.name",
            "authorizer class kafka.security.authorizer.AclAuthorizer is not supported",
        ),
        (&[("principal.builder.class", "x.Builder")], "principal.builder.class", "custom principals"),
    ];
    for (overrides, key, expected) in cases {
        let error = embedded(overrides).err();
        let text = error.as_ref().map(ToString::to_string).unwrap_or_default();
        assert_eq!(error.as_ref().and_then(ConfigError::key), Some(*key), "{overrides:?}: {text}");
        assert!(text.contains(expected), "{overrides:?}: {text}");
    }
    let plain = embedded(&[
        ("super.users", "User:admin"),
        ("connections.max.reauth.ms", "2000"),
        ("sasl.enabled.mechanisms", "SCRAM-SHA-512"),
    ])?;
    assert_eq!(value(&plain, "super.users"), Some(("User:admin", ConfigSource::Override)));
    Ok(())
}

/// Each invalid value is refused with an error naming the key and the value.
#[test]
fn invalid_values_name_the_key() {
    let cases: &[(&str, &str, &str)] = &[
        ("num.partitions", "abc", "invalid value \"abc\" for num.partitions: not an integer"),
        ("num.partitions", "0", "must be at least 1"),
        ("log.segment.bytes", "1000", "must be at least 1048576"),
        ("log.segment.bytes", "4294967296", "out of range"),
        ("offsets.topic.replication.factor", "40000", "out of range"),
        ("auto.create.topics.enable", "yes", "not a boolean"),
        ("log.message.timestamp.type", "createtime", "must be one of CreateTime, LogAppendTime"),
        ("compression.type", "brotli", "must be one of"),
        ("compression.gzip.level", "0", "must be between 1 and 9 or equal to -1"),
        ("compression.lz4.level", "18", "must be no more than 17"),
        ("compression.lz4.level", "0", "must be at least 1"),
        ("compression.zstd.level", "23", "must be no more than 22"),
        ("compression.zstd.level", "-131073", "must be at least -131072"),
        ("log.cleanup.policy", "delete,archive", "\"archive\" is not one of compact, delete"),
        ("num.io.threads", "0", "must be at least 1"),
        ("socket.send.buffer.bytes", "0", "must be -1 (the operating system's default) or a positive size"),
        ("socket.receive.buffer.bytes", "-2", "must be -1 (the operating system's default) or a positive size"),
        ("log.retention.bytes", "1e9", "not an integer"),
        ("listeners", "PLAINTEXT//localhost:9092", "is not NAME://host:port"),
        ("listeners", "EXTERNAL://localhost:9092", "no security protocol defined for listener EXTERNAL"),
        ("listener.security.protocol.map", "PLAINTEXT:TLS", "invalid security protocol"),
        ("controller.quorum.voters", "1@localhost", "{id}@{host}:{port}"),
        ("process.roles", "broker,zookeeper", "\"zookeeper\" is not one of broker, controller"),
        ("process.roles", "broker,broker", "duplicate role names"),
        ("log.dirs", " , ", "at least one log directory"),
        ("cluster.id", "", "must not be empty"),
        ("log.retention.ms", "0", "must be unlimited (-1)"),
        (
            "replica.selector.class",
            "com.example.MySelector",
            "Strand has only org.apache.kafka.common.replica.RackAwareReplicaSelector",
        ),
    ];
    for (key, bad, expected) in cases {
        let error = embedded(&[(key, bad)]).err();
        let key_named = error.as_ref().and_then(ConfigError::key) == Some(*key);
        let text = error.map(|e| e.to_string()).unwrap_or_default();
        assert!(key_named && text.contains(key) && text.contains(expected), "{key}={bad}: {text:?}");
    }
}

/// `broker.rack` and Kafka's rack-aware `replica.selector.class` are taken (KIP-392); without
/// them a broker has no rack and consumers stay on leaders, as with Kafka's defaults.
#[test]
fn rack_and_replica_selector() -> TestResult {
    let config = embedded(&[
        ("broker.rack", "us-east-1a"),
        ("replica.selector.class", "org.apache.kafka.common.replica.RackAwareReplicaSelector"),
    ])?;
    assert_eq!(config.broker_rack.as_deref(), Some("us-east-1a"));
    assert_eq!(config.replica_selector, Some(strand_broker::ReplicaSelector::RackAware));
    let plain = embedded(&[])?;
    assert_eq!((plain.broker_rack, plain.replica_selector), (None, None));
    Ok(())
}

/// Kafka's cross-key rules hold, naming the key at fault; a sole voter needs no controller
/// listener while a member of a larger quorum does.
#[test]
fn cross_key_rules() -> TestResult {
    let rule_cases: &[(&[(&str, &str)], &str)] = &[
        (&[("listeners", "PLAINTEXT://0.0.0.0:9092")], "advertised.listeners"),
        (&[("advertised.listeners", "PLAINTEXT://0.0.0.0:9092")], "advertised.listeners"),
        (&[("advertised.listeners", "SSL://host:9093")], "inter.broker.listener.name"),
        (&[("controller.quorum.voters", "1@a:9093,2@b:9093")], "controller.listener.names"),
        (&[("controller.quorum.voters", "2@a:9093")], "controller.quorum.voters"),
        (&[("controller.listener.names", "CONTROLLER")], "controller.listener.names"),
        (
            &[("inter.broker.listener.name", "PLAINTEXT"), ("security.inter.broker.protocol", "SSL")],
            "inter.broker.listener.name",
        ),
        (&[("process.roles", "broker")], "controller.quorum.voters"),
        (&[("process.roles", "broker"), ("controller.quorum.voters", "2@a:9093")], "controller.listener.names"),
        (&[("process.roles", "controller")], "listeners"),
        (&[("node.id", "-1"), ("broker.id", "-1")], "node.id"),
    ];
    for (overrides, key) in rule_cases {
        let error = embedded(overrides).err();
        assert_eq!(error.as_ref().and_then(ConfigError::key), Some(*key), "{overrides:?}: {error:?}");
    }
    let bound_everywhere =
        embedded(&[("listeners", "PLAINTEXT://0.0.0.0:9092"), ("advertised.listeners", "PLAINTEXT://localhost:9092")])?;
    assert_eq!(bound_everywhere.advertised_listeners[0].host, "localhost");
    let sole_with_self = embedded(&[("controller.quorum.voters", "1@localhost:9093")])?;
    assert!(sole_with_self.is_sole_voter());
    let member = embedded(&[
        ("controller.quorum.voters", "1@localhost:9093,2@localhost:9095"),
        ("listeners", "PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093"),
        ("controller.listener.names", "CONTROLLER"),
    ])?;
    assert!(!member.is_sole_voter());
    assert_eq!(member.offsets_topic_replication_factor, 3);
    assert_eq!(member.listener_security_protocol_map.get("CONTROLLER"), Some(&SecurityProtocol::Plaintext));
    let broker = embedded(&[
        ("process.roles", "broker"),
        ("node.id", "4"),
        ("controller.quorum.voters", "1@localhost:9093"),
        ("controller.listener.names", "CONTROLLER,OTHER"),
    ])?;
    assert!(!broker.is_sole_voter());
    assert_eq!(broker.warnings.len(), 1, "{:?}", broker.warnings);
    Ok(())
}

/// Kafka 4's stock single-node `config/server.properties` loads without warnings, and, since its
/// bootstrap server is its own controller listener, the node counts as its quorum's sole voter.
#[test]
fn kafka_stock_server_properties_load() -> TestResult {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("server.properties");
    std::fs::write(&path, KAFKA_STOCK_FILE)?;
    let config = ServerConfig::load(Some(&path), &[])?;
    assert!(config.warnings.is_empty(), "{:?}", config.warnings);
    assert!(config.is_sole_voter());
    assert_eq!(config.log_dirs, [PathBuf::from("/tmp/kraft-combined-logs")]);
    assert_eq!(config.controller_listeners().count(), 1);
    let shown: Vec<String> = config.advertised_broker_listeners().map(ToString::to_string).collect();
    assert_eq!(shown, ["PLAINTEXT://localhost:9092"]);
    assert_eq!(value(&config, "log.retention.hours"), Some(("168", ConfigSource::File)));
    assert_eq!(value(&config, "offsets.topic.replication.factor"), Some(("1", ConfigSource::File)));
    Ok(())
}

/// A missing file, a malformed override and a bad escape are errors naming the file or argument.
#[test]
fn unreadable_input_is_an_error() -> TestResult {
    let dir = tempfile::tempdir()?;
    let missing = dir.path().join("nope.properties");
    let error = ServerConfig::load(Some(&missing), &[]).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(error.contains("nope.properties"), "{error}");
    let bad = dir.path().join("bad.properties");
    std::fs::write(&bad, "process.roles=broker\\u12\n")?;
    let error = ServerConfig::load(Some(&bad), &[]).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(error.contains("bad.properties"), "{error}");
    assert!(strand_server::config::parse_override("no-equals-sign").is_err());
    assert_eq!(strand_server::config::parse_override(" a.b = c=d")?, ("a.b".to_owned(), " c=d".to_owned()));
    Ok(())
}

/// The log settings map onto the log crate's `LogConfig` with Kafka's topic-config meanings.
#[test]
fn log_config_mapping() -> TestResult {
    let config = embedded(&[
        ("log.segment.bytes", "1048576"),
        ("log.roll.jitter.hours", "1"),
        ("log.index.size.max.bytes", "4096"),
        ("log.index.interval.bytes", "100"),
        ("log.flush.interval.messages", "10"),
        ("log.flush.scheduler.interval.ms", "500"),
        ("log.preallocate", "true"),
        ("log.retention.minutes", "90"),
        ("log.retention.bytes", "5000000"),
        ("log.cleanup.policy", "compact"),
        ("log.cleaner.min.cleanable.ratio", "0.25"),
        ("log.cleaner.max.compaction.lag.ms", "600000"),
        ("producer.id.expiration.ms", "60000"),
        ("transaction.max.timeout.ms", "120000"),
        ("transaction.partition.verification.enable", "false"),
        ("log.message.timestamp.type", "LogAppendTime"),
    ])?;
    let log = config.log_config();
    let expected = strand_log::LogConfig {
        segment_bytes: 1_048_576,
        segment_ms: 7 * 24 * 3_600_000,
        segment_jitter_ms: 3_600_000,
        segment_index_bytes: 4096,
        index_interval_bytes: 100,
        flush_interval_messages: 10,
        flush_interval_ms: 500,
        preallocate: true,
        retention_ms: 90 * 60_000,
        retention_bytes: 5_000_000,
        delete_enabled: false,
        compact_enabled: true,
        delete_retention_ms: 86_400_000,
        min_compaction_lag_ms: 0,
        min_cleanable_dirty_ratio: 0.25,
        max_compaction_lag_ms: 600_000,
        log_append_time: true,
        producer_state: strand_log::producer_state::ProducerStateConfig {
            producer_id_expiration_ms: 60_000,
            max_transaction_timeout_ms: 120_000,
            transaction_verification_enabled: false,
        },
    };
    assert_eq!(log, expected);
    Ok(())
}

/// Kafka 4.x's `config/server.properties` (comments shortened).
const KAFKA_STOCK_FILE: &str = r"
# The role of this server. Setting this puts us in KRaft mode
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=localhost:9093
listeners=PLAINTEXT://:9092,CONTROLLER://:9093
inter.broker.listener.name=PLAINTEXT
advertised.listeners=PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL
num.network.threads=3
num.io.threads=8
socket.send.buffer.bytes=102400
socket.receive.buffer.bytes=102400
socket.request.max.bytes=104857600
log.dirs=/tmp/kraft-combined-logs
num.partitions=1
num.recovery.threads.per.data.dir=1
offsets.topic.replication.factor=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
#log.flush.interval.messages=10000
#log.flush.interval.ms=1000
log.retention.hours=168
#log.retention.bytes=1073741824
log.segment.bytes=1073741824
log.retention.check.interval.ms=300000
";

/// The cluster files the README points at (`config/`) load, and describe the clusters it says:
/// three combined nodes on 9092-9094, and three controllers beside four brokers on 9092-9095.
#[test]
fn the_shipped_cluster_files_load() -> TestResult {
    let config = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config");
    for n in 1..=3 {
        let node = ServerConfig::load(Some(&config.join(format!("three-nodes/node-{n}.properties"))), &[])?;
        assert_eq!((node.node_id, node.process_roles.broker, node.process_roles.controller), (n, true, true));
        assert_eq!(node.controller_quorum_voters.len(), 3);
        assert_eq!(node.advertised_broker_listeners().next().map(|l| l.port), Some(9091 + n as u16));
    }
    for n in 1..=3 {
        let node = ServerConfig::load(Some(&config.join(format!("four-brokers/controller-{n}.properties"))), &[])?;
        assert_eq!((node.node_id, node.process_roles.broker, node.process_roles.controller), (n, false, true));
    }
    for b in 1..=4 {
        let node = ServerConfig::load(Some(&config.join(format!("four-brokers/broker-{b}.properties"))), &[])?;
        assert_eq!((node.node_id, node.process_roles.broker, node.process_roles.controller), (b + 3, true, false));
        assert_eq!(node.advertised_broker_listeners().next().map(|l| l.port), Some(9091 + b as u16));
    }
    Ok(())
}

/// The socket server's limits: Kafka's defaults, the overrides' `host:count` syntax (split at the
/// last colon, for IPv6), Kafka's rules between the keys, and per-listener limits refused at
/// start-up rather than ignored.
#[test]
fn connection_limit_settings() -> TestResult {
    let defaults = embedded(&[])?;
    assert_eq!(
        (defaults.max_connections, defaults.max_connections_per_ip, defaults.max_connection_creation_rate),
        (i32::MAX, i32::MAX, i32::MAX)
    );
    assert_eq!((defaults.queued_max_requests, defaults.queued_max_request_bytes), (500, -1));
    assert_eq!(defaults.connections_max_idle_ms, 600_000);
    let set = embedded(&[
        ("max.connections.per.ip", "0"),
        ("max.connections.per.ip.overrides", "127.0.0.1:5, host-a : 7,::1:3"),
        ("connections.max.idle.ms", "-1"),
        ("queued.max.request.bytes", "104857600"),
    ])?;
    let overrides: Vec<(&str, i32)> =
        set.max_connections_per_ip_overrides.iter().map(|(host, count)| (host.as_str(), *count)).collect();
    assert_eq!(overrides, [("127.0.0.1", 5), ("::1", 3), ("host-a", 7)]);
    assert_eq!(set.connections_max_idle_ms, -1);
    let refused: &[(&[(&str, &str)], &str)] = &[
        (&[("queued.max.request.bytes", "1048576")], "queued.max.request.bytes"),
        (&[("max.connections.per.ip", "0")], "max.connections.per.ip"),
        (&[("max.connections.per.ip.overrides", "bad host:1")], "max.connections.per.ip.overrides"),
        (&[("max.connections.per.ip.overrides", "host")], "max.connections.per.ip.overrides"),
        (&[("max.connections.per.ip.overrides", "host:many")], "max.connections.per.ip.overrides"),
        (&[("connections.max.idle.ms", "100")], "connection.failed.authentication.delay.ms"),
        (&[("listener.name.plaintext.max.connections", "10")], "listener.name.plaintext.max.connections"),
        (
            &[("listener.name.plaintext.max.connection.creation.rate", "10")],
            "listener.name.plaintext.max.connection.creation.rate",
        ),
    ];
    for (overrides, key) in refused {
        let error = embedded(overrides).err();
        assert_eq!(error.as_ref().and_then(ConfigError::key), Some(*key), "{overrides:?}: {error:?}");
    }
    let message = embedded(&[("listener.name.plaintext.max.connections", "10")]).err().map(|e| e.to_string());
    assert!(message.is_some_and(|m| m.contains("not supported")), "the refusal says why");
    Ok(())
}

/// `http.listeners` (a Strand setting): on at `http://localhost:8080` without a file, off with
/// one unless set, off when set empty; several entries; `https://` refused naming the setting;
/// `http.metrics.topics.max` at 1000 unless set, never negative.
#[test]
fn http_settings() -> TestResult {
    let listeners = |config: &ServerConfig| config.http.listeners.iter().map(ToString::to_string).collect::<Vec<_>>();
    let embedded_default = embedded(&[])?;
    assert_eq!(listeners(&embedded_default), ["http://localhost:8080"]);
    assert_eq!(
        value(&embedded_default, "http.listeners"),
        Some(("http://localhost:8080", ConfigSource::StrandDefault))
    );
    assert_eq!(embedded_default.http.metrics_topics_max, 1000);
    assert!(from_file(CLUSTER_NODE, &[])?.http.listeners.is_empty());
    assert!(embedded(&[("http.listeners", "")])?.http.listeners.is_empty());
    let two = from_file(CLUSTER_NODE, &[("http.listeners", "http://0.0.0.0:8080, http://[::1]:0")])?;
    assert_eq!(listeners(&two), ["http://0.0.0.0:8080", "http://[::1]:0"]);
    let set = embedded(&[("http.metrics.topics.max", "5")])?;
    assert_eq!(set.http.metrics_topics_max, 5);
    for (key, bad, said) in [
        ("http.listeners", "localhost:8080", "expected http://host:port or https://host:port"),
        ("http.anonymous.allowed", "maybe", "http.anonymous.allowed"),
        ("http.metrics.topics.max", "-1", "http.metrics.topics.max"),
    ] {
        let error = embedded(&[(key, bad)]).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains(key) && error.contains(said), "{key}={bad}: {error}");
    }
    // `https://` takes the node's `ssl.*` key store, which must be there.
    let error = embedded(&[("http.listeners", "https://localhost:8443")]).err().map(|e| e.to_string());
    let error = error.unwrap_or_default();
    assert!(error.contains("listener.name.http.ssl") && error.contains("ssl.keystore.location"), "{error}");
    let set = embedded(&[("http.anonymous.allowed", "false"), ("http.metrics.anonymous.allowed", "true")])?;
    assert_eq!((set.http.anonymous_allowed, set.http.metrics_anonymous_allowed), (Some(false), true));
    assert_eq!(
        (embedded_default.http.anonymous_allowed, embedded_default.http.metrics_anonymous_allowed),
        (None, false)
    );
    Ok(())
}
