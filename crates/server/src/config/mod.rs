//! The node's configuration: Kafka's `server.properties` with Kafka's names and defaults, plus
//! `--override key=value` pairs, plus Strand's embedded one-node defaults.
//!
//! - [`ServerConfig`]: the typed settings the node runs with (one field per Kafka key, named
//!   after it: `log.segment.bytes` is `log_segment_bytes`), every key's text and
//!   [`ConfigSource`] in [`ServerConfig::entries`] (what DescribeConfigs reports), and the
//!   warnings loading produced (unknown keys), for the caller to log.
//! - [`ConfigError`]: why a configuration cannot run; every variant names the key (or the file)
//!   at fault.
//! - [`listeners`]: [`Endpoint`], [`SecurityProtocol`], [`QuorumVoter`], [`HostPort`].
//! - `keys`: the known keys with Kafka's types and defaults; [`is_known_key`], [`config_type`],
//!   [`synonyms`] for DescribeConfigs. `reader`: each key's parsing and Kafka's fallbacks
//!   (`log.roll.ms` → `log.roll.hours`, ...).
//!
//! Precedence, later wins: Kafka's defaults; Strand's embedded one-node defaults (only when no
//! file is given: `node.id=1`, both roles, `listeners=PLAINTEXT://localhost:9092`,
//! `log.dirs=./strand-data`, `http.listeners=http://localhost:8080`); the file; the overrides in order. Then, only on a node that is its
//! quorum's sole voter ([`ServerConfig::is_sole_voter`]), the internal topics' replication
//! settings nobody set drop to what one node can hold (`offsets.topic.replication.factor`,
//! `transaction.state.log.replication.factor`, `transaction.state.log.min.isr`,
//! `share.coordinator.state.topic.replication.factor` and `.min.isr` = 1). Then Kafka's
//! cross-key rules are checked (`rules`), with one relaxation: a sole voter needs no
//! CONTROLLER listener.
//!
//! What it is not: it reads one file and touches no other storage (formatting log dirs is the
//! CLI's), opens no sockets and resolves no host names.

pub(crate) mod broker_settings;
mod coordinator_settings;
pub mod http;
mod keys;
pub mod listeners;
pub mod oauthbearer;
mod reader;
mod rules;
pub mod sasl;
mod security;
pub mod share;
pub mod tls;
mod topic_defaults;
mod unimplemented;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use keys::{ConfigType, config_type, is_known_key, synonyms};
pub use listeners::{Endpoint, HostPort, QuorumVoter, SecurityProtocol};
pub use topic_defaults::{static_topic_configs, synonym_chain};

use reader::Reader;

/// Where a key's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigSource {
    /// Kafka's default.
    Default,
    /// A default Strand chooses where Kafka's would not run a one-node cluster (design §1): the
    /// embedded defaults without a file, and a sole voter's internal-topic replication settings.
    StrandDefault,
    /// The `server.properties` file.
    File,
    /// A `--override key=value`.
    Override,
}

impl ConfigSource {
    /// DescribeConfigs' `config_source`: `STATIC_BROKER_CONFIG` (4) for what the user set,
    /// `DEFAULT_CONFIG` (5) otherwise.
    pub fn kafka_id(self) -> i8 {
        match self {
            ConfigSource::File | ConfigSource::Override => 4,
            ConfigSource::Default | ConfigSource::StrandDefault => 5,
        }
    }
}

/// One key's value as configured (text, as Kafka's DescribeConfigs reports it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigValue {
    /// `None` is Kafka's `null`: unset, with another key deciding (`log.roll.ms` → `log.roll.hours`).
    pub value: Option<String>,
    pub source: ConfigSource,
    /// A secret: DescribeConfigs reports it with a null value.
    pub sensitive: bool,
}

/// Why a configuration was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{}: {message}", path.display())]
    Syntax { path: PathBuf, message: String },
    #[error("invalid --override {0:?}: expected key=value")]
    Override(String),
    #[error("invalid value {value:?} for {key}: {reason}")]
    InvalidValue { key: String, value: String, reason: String },
    #[error("missing required configuration {key}: {reason}")]
    Missing { key: String, reason: String },
    /// A rule between keys is broken (Kafka's `KafkaConfig.validateValues`).
    #[error("{key}: {reason}")]
    Rule { key: String, reason: String },
}

impl ConfigError {
    /// The key at fault, if the error is about one.
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigError::InvalidValue { key, .. }
            | ConfigError::Missing { key, .. }
            | ConfigError::Rule { key, .. } => Some(key),
            ConfigError::Read { .. } | ConfigError::Syntax { .. } | ConfigError::Override(_) => None,
        }
    }

    pub(crate) fn rule(key: &str, reason: impl Into<String>) -> ConfigError {
        ConfigError::Rule { key: key.to_owned(), reason: reason.into() }
    }
}

/// `process.roles`: KRaft's roles of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessRoles {
    pub broker: bool,
    pub controller: bool,
}

/// `log.message.timestamp.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimestampType {
    CreateTime,
    LogAppendTime,
}

/// `log.cleanup.policy`: either, both or (Kafka 4.1+) neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CleanupPolicy {
    pub delete: bool,
    pub compact: bool,
}

/// `compression.type`: Kafka's `BrokerCompressionType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrokerCompressionType {
    Uncompressed,
    Zstd,
    Lz4,
    Snappy,
    Gzip,
    /// Keep the producer's codec.
    Producer,
}

/// The embedded one-node defaults, applied when `strand server` gets no file.
const EMBEDDED_DEFAULTS: &[(&str, &str)] = &[
    ("node.id", "1"),
    ("process.roles", "broker,controller"),
    ("listeners", "PLAINTEXT://localhost:9092"),
    ("log.dirs", "./strand-data"),
    ("http.listeners", "http://localhost:8080"),
];

/// The internal topics' settings a sole voter lowers when nobody set them.
const SOLE_VOTER_DEFAULTS: &[(&str, &str)] = &[
    ("offsets.topic.replication.factor", "1"),
    ("transaction.state.log.replication.factor", "1"),
    ("transaction.state.log.min.isr", "1"),
    ("share.coordinator.state.topic.replication.factor", "1"),
    ("share.coordinator.state.topic.min.isr", "1"),
];

/// The settings a node runs with, as [`ServerConfig::load`] and [`ServerConfig::from_properties`]
/// build them after validating every value and Kafka's cross-key rules (the fields are public to
/// read; changing them bypasses that validation).
/// Durations are `*_ms` after Kafka's fallbacks (`log.roll.hours` when `log.roll.ms` is unset).
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// `node.id`, or its alias `broker.id`.
    pub node_id: i32,
    /// `broker.rack`: registered with the controller, for placement and KIP-392.
    pub broker_rack: Option<String>,
    /// `replica.selector.class`: only Kafka's `RackAwareReplicaSelector` (anything else refused).
    pub replica_selector: Option<strand_broker::ReplicaSelector>,
    /// Share groups' settings (`group.share.*`, `share.coordinator.state.topic.*`).
    pub share: share::ShareConfig,
    /// `errors.deadletterqueue.topic.name.prefix` (KIP-1191): the prefix a share group's
    /// dead-letter topic must have; empty for none.
    pub dlq_topic_name_prefix: String,
    pub process_roles: ProcessRoles,
    /// `cluster.id` (a Strand setting): the cluster id to format empty log dirs with on first
    /// start. `strand server` sets it to the id in `meta.properties` before the node runs.
    pub cluster_id: Option<String>,
    pub listeners: Vec<Endpoint>,
    /// `advertised.listeners`, or `listeners` when unset.
    pub advertised_listeners: Vec<Endpoint>,
    /// `listener.security.protocol.map` with Kafka's implicit `NAME:PLAINTEXT` entries for
    /// controller listeners when the map is not set and nothing uses TLS or SASL.
    pub listener_security_protocol_map: BTreeMap<String, SecurityProtocol>,
    /// `inter.broker.listener.name`, or the listener named after `security.inter.broker.protocol`.
    pub inter_broker_listener_name: String,
    pub controller_listener_names: Vec<String>,
    pub controller_quorum_voters: Vec<QuorumVoter>,
    pub controller_quorum_bootstrap_servers: Vec<HostPort>,
    /// `controller.quorum.auto.join.enable`: a dynamic quorum's controller that is not a voter
    /// adds itself (AddRaftVoter to the leader, through the bootstrap servers).
    pub controller_quorum_auto_join_enable: bool,
    /// `controller.quorum.election.timeout.ms` and `controller.quorum.fetch.timeout.ms`: the Raft
    /// timeouts (see `strand_metadata::quorum::QuorumConfig`).
    pub controller_quorum_election_timeout_ms: i32,
    pub controller_quorum_fetch_timeout_ms: i32,
    /// `controller.quorum.request.timeout.ms`: how long one request to a controller may take.
    pub controller_quorum_request_timeout_ms: i32,
    /// `metadata.log.max.record.bytes.between.snapshots` and `metadata.log.max.snapshot.interval.ms`:
    /// when a voter snapshots the metadata log (see `strand_metadata::quorum::SnapshotSettings`).
    pub metadata_log_max_record_bytes_between_snapshots: i64,
    pub metadata_log_max_snapshot_interval_ms: i64,
    /// `request.timeout.ms`: how long this node's requests to other brokers may take (transaction
    /// checks with a coordinator).
    pub request_timeout_ms: i32,
    /// `broker.heartbeat.interval.ms`: how often a broker heartbeats to the active controller.
    pub broker_heartbeat_interval_ms: i32,
    /// `broker.session.timeout.ms`: a broker without a heartbeat this long is fenced.
    pub broker_session_timeout_ms: i32,
    /// `replica.*`: followers' fetching and the leader's ISR rules (`strand_replication`).
    pub replica_lag_time_max_ms: i64,
    pub num_replica_fetchers: i32,
    pub replica_fetch_max_bytes: i32,
    pub replica_fetch_response_max_bytes: i32,
    pub replica_fetch_wait_max_ms: i32,
    pub replica_fetch_min_bytes: i32,
    pub replica_fetch_backoff_ms: i32,
    pub replica_socket_timeout_ms: i32,
    pub replica_high_watermark_checkpoint_interval_ms: i64,
    /// `auto.leader.rebalance.enable`, checked every `leader.imbalance.check.interval.seconds`.
    pub auto_leader_rebalance_enable: bool,
    /// `controlled.shutdown.enable`: on SIGTERM, hand leadership over before stopping.
    pub controlled_shutdown_enable: bool,
    pub leader_imbalance_check_interval_seconds: i32,
    /// `log.dirs`, or `log.dir` when unset.
    pub log_dirs: Vec<PathBuf>,
    /// `metadata.log.dir`, or the first of `log_dirs` (Kafka's rule).
    pub metadata_log_dir: PathBuf,
    pub num_partitions: i32,
    pub default_replication_factor: i32,
    pub auto_create_topics_enable: bool,
    pub delete_topic_enable: bool,
    pub log_segment_bytes: i32,
    /// `log.roll.ms`, or `log.roll.hours`.
    pub log_roll_ms: i64,
    /// `log.roll.jitter.ms`, or `log.roll.jitter.hours`.
    pub log_roll_jitter_ms: i64,
    pub log_index_interval_bytes: i32,
    pub log_index_size_max_bytes: i32,
    /// `log.retention.ms`, `.minutes` or `.hours`, first set wins; -1 is unlimited.
    pub log_retention_ms: i64,
    pub log_retention_bytes: i64,
    pub log_retention_check_interval_ms: i64,
    /// `log.cleaner.enable`: whether compacted topics are cleaned.
    pub log_cleaner_enable: bool,
    /// `log.cleaner.dedupe.buffer.size`: the cleaner's key map, allocated only during a pass.
    pub log_cleaner_dedupe_buffer_size: i64,
    pub log_cleaner_io_buffer_load_factor: f64,
    /// `log.cleaner.backoff.ms`: the pause between compaction passes.
    pub log_cleaner_backoff_ms: i64,
    /// `log.cleaner.min.cleanable.ratio`: the dirty share of a log that makes it due.
    pub log_cleaner_min_cleanable_ratio: f64,
    pub log_cleanup_policy: CleanupPolicy,
    pub log_flush_interval_messages: i64,
    /// `log.flush.interval.ms`, or `log.flush.scheduler.interval.ms`.
    pub log_flush_interval_ms: i64,
    /// `log.flush.on.acks.all` (a Strand setting): fsync before acknowledging `acks=all`.
    pub log_flush_on_acks_all: bool,
    pub log_preallocate: bool,
    pub log_message_timestamp_type: TimestampType,
    pub log_message_timestamp_before_max_ms: i64,
    pub log_message_timestamp_after_max_ms: i64,
    pub message_max_bytes: i32,
    pub compression_type: BrokerCompressionType,
    pub min_insync_replicas: i32,
    pub unclean_leader_election_enable: bool,
    pub socket_request_max_bytes: i32,
    /// `socket.send.buffer.bytes` and `socket.receive.buffer.bytes`: the listeners' SO_SNDBUF and
    /// SO_RCVBUF (-1: the operating system's).
    pub socket_send_buffer_bytes: i32,
    pub socket_receive_buffer_bytes: i32,
    /// `socket.listen.backlog.size`: each listener's accept queue.
    pub socket_listen_backlog_size: i32,
    /// Accepted for compatibility: Strand's runtime sizes its own threads.
    pub num_network_threads: i32,
    /// Accepted for compatibility: Strand's runtime sizes its own threads.
    pub num_io_threads: i32,
    /// `connections.max.idle.ms`: a connection with nothing in flight and no bytes either way for
    /// this long is closed; negative (Kafka's -1) is never.
    pub connections_max_idle_ms: i64,
    /// `connection.failed.authentication.delay.ms`: only checked against the idle timeout (Strand
    /// has no authentication yet).
    pub connection_failed_authentication_delay_ms: i32,
    /// `max.connections`: client connections across the broker listeners (see `connection`).
    pub max_connections: i32,
    /// `max.connections.per.ip`, and `max.connections.per.ip.overrides` by host as written
    /// (resolved when the node starts, as Kafka resolves them).
    pub max_connections_per_ip: i32,
    pub max_connections_per_ip_overrides: BTreeMap<String, i32>,
    /// `max.connection.creation.rate`: new client connections per second, broker-wide.
    pub max_connection_creation_rate: i32,
    /// `quota.window.num` and `quota.window.size.seconds`: the windows client quotas are measured over.
    pub quota_window_num: i32,
    pub quota_window_size_seconds: i32,
    /// `controller.quota.window.num` and `controller.quota.window.size.seconds`: the window of
    /// the controller mutation quota (KIP-599).
    pub controller_quota_window_num: i32,
    pub controller_quota_window_size_seconds: i32,
    /// `replication.quota.window.num` and `replication.quota.window.size.seconds`: the window of
    /// the replication throttles (KIP-73).
    pub replication_quota_window_num: i32,
    pub replication_quota_window_size_seconds: i32,
    /// `queued.max.requests`: caps each connection's pipeline of unanswered requests.
    pub queued_max_requests: i32,
    /// `queued.max.request.bytes`: the memory pool of requests in flight; -1 (or any value up to
    /// 0) is unbounded, as in Kafka.
    pub queued_max_request_bytes: i64,
    pub max_incremental_fetch_session_cache_slots: i32,
    /// `fetch.max.bytes`: the cap on a Fetch response's record bytes.
    pub fetch_max_bytes: i32,
    pub offsets_topic_num_partitions: i32,
    pub offsets_topic_replication_factor: i16,
    pub offsets_topic_segment_bytes: i32,
    pub transaction_state_log_num_partitions: i32,
    pub transaction_state_log_replication_factor: i16,
    pub transaction_state_log_min_isr: i32,
    pub transaction_state_log_segment_bytes: i32,
    pub transaction_max_timeout_ms: i32,
    pub add_partitions_to_txn_retry_backoff_ms: i32,
    pub add_partitions_to_txn_retry_backoff_max_ms: i32,
    pub transactional_id_expiration_ms: i32,
    pub transaction_abort_timed_out_transaction_cleanup_interval_ms: i32,
    pub transaction_remove_expired_transaction_cleanup_interval_ms: i32,
    pub group_initial_rebalance_delay_ms: i32,
    pub group_min_session_timeout_ms: i32,
    pub group_max_session_timeout_ms: i32,
    pub group_max_size: i32,
    pub group_consumer_session_timeout_ms: i32,
    pub group_consumer_min_session_timeout_ms: i32,
    pub group_consumer_max_session_timeout_ms: i32,
    pub group_consumer_heartbeat_interval_ms: i32,
    pub group_consumer_min_heartbeat_interval_ms: i32,
    pub group_consumer_max_heartbeat_interval_ms: i32,
    pub group_consumer_max_size: i32,
    /// `group.consumer.assignors` by Strand's short names (`uniform`, `range`), in order.
    pub group_consumer_assignors: Vec<String>,
    pub group_consumer_migration_policy: strand_coordinator::MigrationPolicy,
    pub group_consumer_regex_refresh_interval_ms: i32,
    pub group_streams_session_timeout_ms: i32,
    pub group_streams_heartbeat_interval_ms: i32,
    pub group_streams_max_size: i32,
    pub group_streams_num_standby_replicas: i32,
    pub offsets_retention_minutes: i32,
    pub offsets_retention_check_interval_ms: i64,
    pub offset_metadata_max_bytes: i32,
    pub producer_id_expiration_ms: i32,
    pub producer_id_expiration_check_interval_ms: i32,
    pub transaction_partition_verification_enable: bool,
    /// `http.listeners` and `http.metrics.topics.max` (Strand settings, `http.rs`).
    pub http: http::HttpSettings,
    /// The TLS settings of every listener this node serves or dials with TLS, by listener name.
    pub tls: BTreeMap<String, tls::TlsSettings>,
    /// The TLS settings of the `https://` entries of `http.listeners` (`ssl.*`, overridden by
    /// `listener.name.http.ssl.*`); `None` without one.
    pub http_tls: Option<tls::TlsSettings>,
    /// `authorizer.class.name=...StandardAuthorizer`'s `super.users` and
    /// `allow.everyone.if.no.acl.found`; `None` without an authorizer (everything allowed).
    pub authorizer: Option<strand_metadata::authorizer::AuthorizerSettings>,
    /// `delegation.token.*` when `delegation.token.secret.key` is set; `None`: tokens disabled.
    pub delegation_tokens: Option<strand_security::delegation_token::DelegationTokenSettings>,
    /// Every key (known keys at least at their default, unknown keys as given) with its text and
    /// source, for DescribeConfigs.
    pub entries: BTreeMap<String, ConfigValue>,
    /// What the caller should log as warnings (unknown keys, ignored settings).
    pub warnings: Vec<String>,
}

/// The name `https://` HTTP listeners' TLS settings go by (`listener.name.http.ssl.*`).
pub const HTTP_TLS_LISTENER: &str = "HTTP";

impl ServerConfig {
    /// Loads `file` (Kafka's `server.properties`) if given, else the embedded one-node defaults,
    /// then applies `overrides` in order.
    pub fn load(file: Option<&Path>, overrides: &[(String, String)]) -> Result<ServerConfig, ConfigError> {
        let properties = file.map(read_properties_file).transpose()?;
        ServerConfig::from_properties(properties.as_deref(), overrides)
    }

    /// As [`ServerConfig::load`], from already-read properties: `file` is `None` when no file was
    /// given (the embedded defaults apply), `Some` (possibly empty) otherwise.
    pub fn from_properties(
        file: Option<&[(String, String)]>,
        overrides: &[(String, String)],
    ) -> Result<ServerConfig, ConfigError> {
        let mut entries = keys::default_entries();
        let mut warnings = Vec::new();
        if file.is_none() {
            for (key, value) in EMBEDDED_DEFAULTS {
                set_entry(&mut entries, key, value, ConfigSource::StrandDefault);
            }
        }
        let given = file.unwrap_or_default().iter().map(|pair| (pair, ConfigSource::File));
        for ((key, value), source) in given.chain(overrides.iter().map(|pair| (pair, ConfigSource::Override))) {
            let key = key.trim();
            // A TLS key is either implemented (`tls`) or refused there, never silently unknown.
            // `super.users` admits peers to an SSL CONTROLLER listener (`inter_node::listener`);
            // it and `allow.everyone.if.no.acl.found` configure the authorizer (`security.rs`).
            // A SASL listener reads its own `listener.name.NAME[.MECHANISM].KEY` forms (`sasl`).
            let known = is_known_key(key)
                || tls::ssl_base(key).is_some()
                || security::is_authorizer_key(key)
                || sasl::is_listener_key(key);
            if !known {
                let warning = format!("The configuration '{key}' was supplied but isn't a known config.");
                if !warnings.contains(&warning) {
                    warnings.push(warning);
                }
            }
            set_entry(&mut entries, key, value.trim(), source);
        }
        mirror_node_id(&mut entries);
        validate_values(&entries)?;
        let mut config = ServerConfig::from_entries(entries.clone())?;
        if config.is_sole_voter() && lower_for_sole_voter(&mut entries) {
            config = ServerConfig::from_entries(entries)?;
        }
        rules::check(&config, &mut warnings)?;
        security::check(&config)?;
        unimplemented::check(&config)?;
        config.tls = tls::read(&config)?;
        if config.http.listeners.iter().any(|l| l.tls) {
            config.http_tls = Some(tls::listener_settings_with(&config, HTTP_TLS_LISTENER, true, &BTreeMap::new())?);
        }
        config.authorizer = security::authorizer(&config)?;
        config.delegation_tokens = security::delegation_tokens(&config)?;
        config.warnings = warnings;
        Ok(config)
    }

    /// Whether this node is its quorum's only voter: it has the controller role and
    /// `controller.quorum.voters` lists only itself, or is empty and so is
    /// `controller.quorum.bootstrap.servers` or every bootstrap server is this node's own
    /// controller listener (Kafka's stock single-node file points at `localhost:9093`).
    pub fn is_sole_voter(&self) -> bool {
        if !self.process_roles.controller {
            return false;
        }
        if !self.controller_quorum_voters.is_empty() {
            return self.controller_quorum_voters.iter().all(|voter| voter.id == self.node_id);
        }
        self.controller_quorum_bootstrap_servers.iter().all(|server| self.is_own_controller_address(server))
    }

    /// Every directory that holds a `meta.properties`: the log dirs and the metadata log dir.
    pub fn all_log_dirs(&self) -> Vec<PathBuf> {
        let mut dirs = self.log_dirs.clone();
        if !dirs.contains(&self.metadata_log_dir) {
            dirs.push(self.metadata_log_dir.clone());
        }
        dirs
    }

    /// The log settings topics start from (Kafka's broker `log.*` defaults of the topic configs).
    pub fn log_config(&self) -> strand_log::LogConfig {
        // Validation bounds these below (segment ≥ 1 MiB, index size ≥ 4, interval ≥ 0).
        let unsigned = |value: i32| u64::try_from(value).unwrap_or(0);
        strand_log::LogConfig {
            segment_bytes: unsigned(self.log_segment_bytes),
            segment_ms: self.log_roll_ms,
            segment_jitter_ms: self.log_roll_jitter_ms,
            segment_index_bytes: unsigned(self.log_index_size_max_bytes),
            index_interval_bytes: unsigned(self.log_index_interval_bytes),
            flush_interval_messages: self.log_flush_interval_messages,
            flush_interval_ms: self.log_flush_interval_ms,
            preallocate: self.log_preallocate,
            retention_ms: self.log_retention_ms,
            retention_bytes: self.log_retention_bytes,
            delete_enabled: self.log_cleanup_policy.delete,
            compact_enabled: self.log_cleanup_policy.compact,
            delete_retention_ms: self.get_long("log.cleaner.delete.retention.ms").unwrap_or(86_400_000),
            min_compaction_lag_ms: self.get_long("log.cleaner.min.compaction.lag.ms").unwrap_or(0),
            min_cleanable_dirty_ratio: self.log_cleaner_min_cleanable_ratio,
            max_compaction_lag_ms: self.get_long("log.cleaner.max.compaction.lag.ms").unwrap_or(i64::MAX),
            log_append_time: self.log_message_timestamp_type == TimestampType::LogAppendTime,
            producer_state: strand_log::producer_state::ProducerStateConfig {
                producer_id_expiration_ms: i64::from(self.producer_id_expiration_ms),
                max_transaction_timeout_ms: i64::from(self.transaction_max_timeout_ms),
                transaction_verification_enabled: self.transaction_partition_verification_enable,
            },
        }
    }

    /// `key`'s value as a validated integer (its type was checked when the config was read).
    fn get_long(&self, key: &str) -> Option<i64> {
        self.get(key)?.value.as_deref()?.trim().parse().ok()
    }

    /// The value and source of `key`, if it is known or was given.
    pub fn get(&self, key: &str) -> Option<&ConfigValue> {
        self.entries.get(key)
    }

    /// The listeners controllers are reached on (those named in `controller.listener.names`).
    pub fn controller_listeners(&self) -> impl Iterator<Item = &Endpoint> {
        self.listeners.iter().filter(|l| self.controller_listener_names.contains(&l.listener_name))
    }

    /// The replication settings of node `node_id`.
    pub fn replication_config(&self) -> strand_replication::ReplicationConfig {
        let mut config = strand_replication::ReplicationConfig::new(strand_base::BrokerId(self.node_id));
        config.flush_on_acks_all = self.log_flush_on_acks_all;
        config.replica_lag_time_max_ms = self.replica_lag_time_max_ms;
        config.num_replica_fetchers = usize::try_from(self.num_replica_fetchers).unwrap_or(1).max(1);
        config.replica_fetch_max_bytes = self.replica_fetch_max_bytes;
        config.replica_fetch_response_max_bytes = self.replica_fetch_response_max_bytes;
        config.replica_fetch_wait_max_ms = self.replica_fetch_wait_max_ms;
        config.replica_fetch_min_bytes = self.replica_fetch_min_bytes;
        config.replica_fetch_backoff_ms = u64::try_from(self.replica_fetch_backoff_ms).unwrap_or(0);
        config.replication_quota_window_num = u32::try_from(self.replication_quota_window_num).unwrap_or(1).max(1);
        config.replication_quota_window_size_seconds =
            u32::try_from(self.replication_quota_window_size_seconds).unwrap_or(1).max(1);
        config
    }

    /// The advertised listeners clients and brokers use (all but the controller listeners).
    pub fn advertised_broker_listeners(&self) -> impl Iterator<Item = &Endpoint> {
        self.advertised_listeners.iter().filter(|l| !self.controller_listener_names.contains(&l.listener_name))
    }

    fn is_own_controller_address(&self, server: &HostPort) -> bool {
        self.controller_listeners().any(|listener| {
            listener.port == server.port
                && (listener.host.eq_ignore_ascii_case(&server.host)
                    || (listeners::is_loopback(&server.host)
                        && (listener.host.is_empty() || listeners::is_loopback(&listener.host))))
        })
    }

    /// Reads the typed settings from validated entries (values, not yet cross-key rules).
    fn from_entries(entries: BTreeMap<String, ConfigValue>) -> Result<ServerConfig, ConfigError> {
        let read = Reader { entries: &entries };
        let quorum = read.quorum()?;
        let log_dirs = read.log_dirs()?;
        let metadata_log_dir = match read.text("metadata.log.dir") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => log_dirs.first().cloned().unwrap_or_default(),
        };
        Ok(ServerConfig {
            node_id: quorum.node_id,
            broker_rack: read.text("broker.rack").map(str::to_owned),
            replica_selector: read.replica_selector()?,
            share: share::read(&read)?,
            dlq_topic_name_prefix: read.text("errors.deadletterqueue.topic.name.prefix").unwrap_or("dlq.").to_owned(),
            process_roles: quorum.process_roles,
            cluster_id: read.cluster_id()?,
            http: http::read(&read)?,
            listeners: quorum.listeners,
            advertised_listeners: quorum.advertised_listeners,
            listener_security_protocol_map: quorum.protocol_map,
            inter_broker_listener_name: quorum.inter_broker_listener_name,
            controller_listener_names: quorum.controller_listener_names,
            controller_quorum_voters: quorum.voters,
            controller_quorum_bootstrap_servers: quorum.bootstrap_servers,
            controller_quorum_auto_join_enable: read.bool("controller.quorum.auto.join.enable")?,
            controller_quorum_election_timeout_ms: read.int("controller.quorum.election.timeout.ms")?,
            controller_quorum_fetch_timeout_ms: read.int("controller.quorum.fetch.timeout.ms")?,
            controller_quorum_request_timeout_ms: read.int("controller.quorum.request.timeout.ms")?,
            metadata_log_max_record_bytes_between_snapshots: read
                .long("metadata.log.max.record.bytes.between.snapshots")?,
            metadata_log_max_snapshot_interval_ms: read.long("metadata.log.max.snapshot.interval.ms")?,
            request_timeout_ms: read.int("request.timeout.ms")?,
            broker_heartbeat_interval_ms: read.int("broker.heartbeat.interval.ms")?,
            broker_session_timeout_ms: read.int("broker.session.timeout.ms")?,
            replica_lag_time_max_ms: read.long("replica.lag.time.max.ms")?,
            num_replica_fetchers: read.int("num.replica.fetchers")?,
            replica_fetch_max_bytes: read.int("replica.fetch.max.bytes")?,
            replica_fetch_response_max_bytes: read.int("replica.fetch.response.max.bytes")?,
            replica_fetch_wait_max_ms: read.int("replica.fetch.wait.max.ms")?,
            replica_fetch_min_bytes: read.int("replica.fetch.min.bytes")?,
            replica_fetch_backoff_ms: read.int("replica.fetch.backoff.ms")?,
            replica_socket_timeout_ms: read.int("replica.socket.timeout.ms")?,
            replica_high_watermark_checkpoint_interval_ms: read
                .long("replica.high.watermark.checkpoint.interval.ms")?,
            auto_leader_rebalance_enable: read.bool("auto.leader.rebalance.enable")?,
            controlled_shutdown_enable: read.bool("controlled.shutdown.enable")?,
            leader_imbalance_check_interval_seconds: read.int("leader.imbalance.check.interval.seconds")?,
            log_dirs,
            metadata_log_dir,
            num_partitions: read.int("num.partitions")?,
            default_replication_factor: read.int("default.replication.factor")?,
            auto_create_topics_enable: read.bool("auto.create.topics.enable")?,
            delete_topic_enable: read.bool("delete.topic.enable")?,
            log_segment_bytes: read.int("log.segment.bytes")?,
            log_roll_ms: read.roll_ms()?,
            log_roll_jitter_ms: read.roll_jitter_ms()?,
            log_index_interval_bytes: read.int("log.index.interval.bytes")?,
            log_index_size_max_bytes: read.int("log.index.size.max.bytes")?,
            log_retention_ms: read.retention_ms()?,
            log_retention_bytes: read.long("log.retention.bytes")?,
            log_retention_check_interval_ms: read.long("log.retention.check.interval.ms")?,
            log_cleaner_enable: read.bool("log.cleaner.enable")?,
            log_cleaner_dedupe_buffer_size: read.long("log.cleaner.dedupe.buffer.size")?,
            log_cleaner_io_buffer_load_factor: read.double("log.cleaner.io.buffer.load.factor")?,
            log_cleaner_backoff_ms: read.long("log.cleaner.backoff.ms")?,
            log_cleaner_min_cleanable_ratio: read.double("log.cleaner.min.cleanable.ratio")?,
            log_cleanup_policy: read.cleanup_policy()?,
            log_flush_interval_messages: read.long("log.flush.interval.messages")?,
            log_flush_interval_ms: read.flush_interval_ms()?,
            log_flush_on_acks_all: read.bool("log.flush.on.acks.all")?,
            log_preallocate: read.bool("log.preallocate")?,
            log_message_timestamp_type: read.timestamp_type()?,
            log_message_timestamp_before_max_ms: read.long("log.message.timestamp.before.max.ms")?,
            log_message_timestamp_after_max_ms: read.long("log.message.timestamp.after.max.ms")?,
            message_max_bytes: read.int("message.max.bytes")?,
            compression_type: read.compression_type()?,
            min_insync_replicas: read.int("min.insync.replicas")?,
            unclean_leader_election_enable: read.bool("unclean.leader.election.enable")?,
            socket_request_max_bytes: read.int("socket.request.max.bytes")?,
            socket_send_buffer_bytes: read.int("socket.send.buffer.bytes")?,
            socket_receive_buffer_bytes: read.int("socket.receive.buffer.bytes")?,
            socket_listen_backlog_size: read.int("socket.listen.backlog.size")?,
            num_network_threads: read.int("num.network.threads")?,
            num_io_threads: read.int("num.io.threads")?,
            connections_max_idle_ms: read.long("connections.max.idle.ms")?,
            connection_failed_authentication_delay_ms: read.int("connection.failed.authentication.delay.ms")?,
            max_connections: read.int("max.connections")?,
            max_connections_per_ip: read.int("max.connections.per.ip")?,
            max_connections_per_ip_overrides: read.connections_per_ip_overrides()?,
            max_connection_creation_rate: read.int("max.connection.creation.rate")?,
            quota_window_num: read.int("quota.window.num")?,
            quota_window_size_seconds: read.int("quota.window.size.seconds")?,
            controller_quota_window_num: read.int("controller.quota.window.num")?,
            controller_quota_window_size_seconds: read.int("controller.quota.window.size.seconds")?,
            replication_quota_window_num: read.int("replication.quota.window.num")?,
            replication_quota_window_size_seconds: read.int("replication.quota.window.size.seconds")?,
            queued_max_requests: read.int("queued.max.requests")?,
            queued_max_request_bytes: read.long("queued.max.request.bytes")?,
            max_incremental_fetch_session_cache_slots: read.int("max.incremental.fetch.session.cache.slots")?,
            fetch_max_bytes: read.int("fetch.max.bytes")?,
            offsets_topic_num_partitions: read.int("offsets.topic.num.partitions")?,
            offsets_topic_replication_factor: read.short("offsets.topic.replication.factor")?,
            offsets_topic_segment_bytes: read.int("offsets.topic.segment.bytes")?,
            transaction_state_log_num_partitions: read.int("transaction.state.log.num.partitions")?,
            transaction_state_log_replication_factor: read.short("transaction.state.log.replication.factor")?,
            transaction_state_log_min_isr: read.int("transaction.state.log.min.isr")?,
            transaction_state_log_segment_bytes: read.int("transaction.state.log.segment.bytes")?,
            transaction_max_timeout_ms: read.int("transaction.max.timeout.ms")?,
            add_partitions_to_txn_retry_backoff_ms: read.int("add.partitions.to.txn.retry.backoff.ms")?,
            add_partitions_to_txn_retry_backoff_max_ms: read.int("add.partitions.to.txn.retry.backoff.max.ms")?,
            transactional_id_expiration_ms: read.int("transactional.id.expiration.ms")?,
            transaction_abort_timed_out_transaction_cleanup_interval_ms: read
                .int("transaction.abort.timed.out.transaction.cleanup.interval.ms")?,
            transaction_remove_expired_transaction_cleanup_interval_ms: read
                .int("transaction.remove.expired.transaction.cleanup.interval.ms")?,
            group_initial_rebalance_delay_ms: read.int("group.initial.rebalance.delay.ms")?,
            group_min_session_timeout_ms: read.int("group.min.session.timeout.ms")?,
            group_max_session_timeout_ms: read.int("group.max.session.timeout.ms")?,
            group_max_size: read.int("group.max.size")?,
            group_consumer_session_timeout_ms: read.int("group.consumer.session.timeout.ms")?,
            group_consumer_min_session_timeout_ms: read.int("group.consumer.min.session.timeout.ms")?,
            group_consumer_max_session_timeout_ms: read.int("group.consumer.max.session.timeout.ms")?,
            group_consumer_heartbeat_interval_ms: read.int("group.consumer.heartbeat.interval.ms")?,
            group_consumer_min_heartbeat_interval_ms: read.int("group.consumer.min.heartbeat.interval.ms")?,
            group_consumer_max_heartbeat_interval_ms: read.int("group.consumer.max.heartbeat.interval.ms")?,
            group_consumer_max_size: read.int("group.consumer.max.size")?,
            group_consumer_assignors: read.consumer_group_assignors()?,
            group_consumer_migration_policy: read.consumer_group_migration_policy()?,
            group_consumer_regex_refresh_interval_ms: read.int("group.consumer.regex.refresh.interval.ms")?,
            group_streams_session_timeout_ms: read.int("group.streams.session.timeout.ms")?,
            group_streams_heartbeat_interval_ms: read.int("group.streams.heartbeat.interval.ms")?,
            group_streams_max_size: read.int("group.streams.max.size")?,
            group_streams_num_standby_replicas: read.int("group.streams.num.standby.replicas")?,
            offsets_retention_minutes: read.int("offsets.retention.minutes")?,
            offsets_retention_check_interval_ms: read.long("offsets.retention.check.interval.ms")?,
            offset_metadata_max_bytes: read.int("offset.metadata.max.bytes")?,
            producer_id_expiration_ms: read.int("producer.id.expiration.ms")?,
            producer_id_expiration_check_interval_ms: read.int("producer.id.expiration.check.interval.ms")?,
            transaction_partition_verification_enable: read.bool("transaction.partition.verification.enable")?,
            tls: BTreeMap::new(),
            http_tls: None,
            authorizer: None,
            delegation_tokens: None,
            entries,
            warnings: Vec::new(),
        })
    }
}

/// Parses one `--override` argument, `key=value` (the value may be empty or contain `=`).
pub fn parse_override(text: &str) -> Result<(String, String), ConfigError> {
    match text.split_once('=') {
        Some((key, value)) if !key.trim().is_empty() => Ok((key.trim().to_owned(), value.to_owned())),
        _ => Err(ConfigError::Override(text.to_owned())),
    }
}

/// Reads a Java properties file (ISO-8859-1 with `\uXXXX` escapes, as `Properties.load`), in
/// file order; a key given twice keeps its last value when applied.
pub fn read_properties_file(path: &Path) -> Result<Vec<(String, String)>, ConfigError> {
    let file = std::fs::File::open(path).map_err(|source| ConfigError::Read { path: path.to_owned(), source })?;
    let mut pairs = Vec::new();
    java_properties::PropertiesIter::new(std::io::BufReader::new(file))
        .read_into(|key, value| pairs.push((key, value)))
        .map_err(|e| ConfigError::Syntax { path: path.to_owned(), message: e.to_string() })?;
    Ok(pairs)
}

fn set_entry(entries: &mut BTreeMap<String, ConfigValue>, key: &str, value: &str, source: ConfigSource) {
    let sensitive = !is_known_key(key) && keys::looks_sensitive(key);
    entries.insert(key.to_owned(), ConfigValue { value: Some(value.to_owned()), source, sensitive });
}

/// `node.id` and `broker.id` are synonyms: the one the user set fills the other (Kafka's
/// `populateSynonyms`); without either, the embedded `node.id` fills `broker.id`.
fn mirror_node_id(entries: &mut BTreeMap<String, ConfigValue>) {
    let source = |key: &str| entries.get(key).map(|entry| entry.source);
    let user_set = |key: &str| matches!(source(key), Some(ConfigSource::File | ConfigSource::Override));
    let copy = match (user_set("node.id"), user_set("broker.id")) {
        (true, false) => Some(("node.id", "broker.id")),
        (false, true) => Some(("broker.id", "node.id")),
        (false, false) if source("node.id") == Some(ConfigSource::StrandDefault) => Some(("node.id", "broker.id")),
        _ => None,
    };
    if let Some((from, to)) = copy
        && let Some(entry) = entries.get(from).cloned()
    {
        entries.insert(to.to_owned(), entry);
    }
}

/// Checks every known key's value against its type and validator, so that a bad value of a key
/// Strand does not use yet is refused too, as Kafka would.
fn validate_values(entries: &BTreeMap<String, ConfigValue>) -> Result<(), ConfigError> {
    for (key, entry) in entries {
        if let (Some(def), Some(value)) = (keys::lookup(key), &entry.value) {
            keys::check(def.kind, value).map_err(|reason| invalid(key, value, reason))?;
        }
    }
    Ok(())
}

/// Lowers the sole voter's internal-topic settings that are still at Kafka's default; returns
/// whether anything changed.
fn lower_for_sole_voter(entries: &mut BTreeMap<String, ConfigValue>) -> bool {
    let mut changed = false;
    for (key, value) in SOLE_VOTER_DEFAULTS {
        if entries.get(*key).is_some_and(|entry| entry.source == ConfigSource::Default) {
            set_entry(entries, key, value, ConfigSource::StrandDefault);
            changed = true;
        }
    }
    changed
}

pub(crate) fn invalid(key: &str, value: &str, reason: impl Into<String>) -> ConfigError {
    ConfigError::InvalidValue { key: key.to_owned(), value: value.to_owned(), reason: reason.into() }
}
