//! [`GroupConfig`]: the group coordinator's settings, under Kafka's names and with Kafka's
//! defaults. The server fills it from `server.properties`; tests build it by hand.

/// The broker settings the group coordinator obeys. Field docs give Kafka's key and default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupConfig {
    /// `group.min.session.timeout.ms`, default 6000: a JoinGroup with a shorter session timeout
    /// gets INVALID_SESSION_TIMEOUT.
    pub min_session_timeout_ms: i32,
    /// `group.max.session.timeout.ms`, default 1800000 (30 minutes): a JoinGroup with a longer
    /// session timeout gets INVALID_SESSION_TIMEOUT.
    pub max_session_timeout_ms: i32,
    /// `group.initial.rebalance.delay.ms`, default 3000: how long the first rebalance of an empty
    /// group waits for more members, extended by this much (up to the rebalance timeout) while
    /// members keep joining.
    pub initial_rebalance_delay_ms: i32,
    /// `group.max.size`, default `i32::MAX`: more members get GROUP_MAX_SIZE_REACHED.
    pub max_size: i32,
    /// `offsets.retention.minutes`, default 10080 (7 days): how long committed offsets of a group
    /// without members (or of a topic the group no longer subscribes to) are kept.
    pub offsets_retention_minutes: i64,
    /// `offsets.retention.check.interval.ms`, default 600000 (10 minutes): how often expired
    /// offsets are looked for.
    pub offsets_retention_check_interval_ms: i64,
    /// `offset.metadata.max.bytes`, default 4096: a committed offset's metadata string longer than
    /// this (in UTF-16 code units, as Java's `String.length`) gets OFFSET_METADATA_TOO_LARGE.
    pub offset_metadata_max_bytes: usize,
    /// `message.max.bytes` (what Kafka reads as the `__consumer_offsets` topic's
    /// `max.message.bytes`), default 1048588: a client operation whose records would make a
    /// larger batch is not written and fails as Kafka's coordinator fails it (RecordTooLarge,
    /// answered UNKNOWN_SERVER_ERROR). Timer cleanups are not bound by it (Kafka splits them).
    pub batch_bytes_max: usize,
    /// `offsets.topic.num.partitions`, default 50: the partitions of `__consumer_offsets`, which
    /// decide a group's coordinator. Must never change once the topic exists.
    pub offsets_topic_partitions: i32,
    /// Kafka's internal constant (not a setting) of 5 minutes: a new member's JoinGroup is parked
    /// at most this long before the member is dropped, since it cannot heartbeat yet.
    pub new_member_join_timeout_ms: i32,
    /// `group.consumer.session.timeout.ms`, default 45000: a consumer group member that sends no
    /// heartbeat for this long is fenced.
    pub consumer_session_timeout_ms: i32,
    /// `group.consumer.min.session.timeout.ms`, default 45000 (the bound of per-group overrides).
    pub consumer_min_session_timeout_ms: i32,
    /// `group.consumer.max.session.timeout.ms`, default 60000 (the bound of per-group overrides).
    pub consumer_max_session_timeout_ms: i32,
    /// `group.consumer.heartbeat.interval.ms`, default 5000: what members are told to heartbeat at.
    pub consumer_heartbeat_interval_ms: i32,
    /// `group.consumer.min.heartbeat.interval.ms`, default 5000.
    pub consumer_min_heartbeat_interval_ms: i32,
    /// `group.consumer.max.heartbeat.interval.ms`, default 15000.
    pub consumer_max_heartbeat_interval_ms: i32,
    /// `group.consumer.max.size`, default `i32::MAX`: more members get GROUP_MAX_SIZE_REACHED.
    pub consumer_max_size: i32,
    /// `group.consumer.assignors`, default `uniform,range`: the server-side assignors members may
    /// ask for; the first is the default. Kafka takes class names too; Strand knows these two names.
    pub consumer_assignors: Vec<String>,
    /// `group.consumer.migration.policy`, default `bidirectional`.
    pub consumer_migration_policy: MigrationPolicy,
    /// `group.consumer.regex.refresh.interval.ms`, default 600000: how often subscription regexes
    /// are resolved again even without new topics.
    pub consumer_regex_refresh_interval_ms: i32,
    /// `group.streams.session.timeout.ms`, default 45000: a streams group member that sends no
    /// heartbeat for this long is fenced.
    pub streams_session_timeout_ms: i32,
    /// `group.streams.heartbeat.interval.ms`, default 5000: what streams members are told to
    /// heartbeat at.
    pub streams_heartbeat_interval_ms: i32,
    /// `group.streams.max.size`, default `i32::MAX`: more members get GROUP_MAX_SIZE_REACHED.
    pub streams_max_size: i32,
    /// `group.streams.num.standby.replicas`, default 0: standby tasks per active task.
    pub streams_num_standby_replicas: usize,
}

/// `group.consumer.migration.policy`: whether a classic group with members may become a consumer
/// group when a ConsumerGroupHeartbeat joins it (upgrade), and whether a consumer group left with
/// classic members only becomes a classic group again (downgrade). Classic members may join a
/// consumer group with members under every policy, as in Kafka.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MigrationPolicy {
    Disabled,
    Upgrade,
    Downgrade,
    Bidirectional,
}

impl MigrationPolicy {
    /// Kafka's names (case-insensitive).
    pub fn from_name(name: &str) -> Option<MigrationPolicy> {
        match name.trim().to_ascii_lowercase().as_str() {
            "disabled" => Some(MigrationPolicy::Disabled),
            "upgrade" => Some(MigrationPolicy::Upgrade),
            "downgrade" => Some(MigrationPolicy::Downgrade),
            "bidirectional" => Some(MigrationPolicy::Bidirectional),
            _ => None,
        }
    }

    /// `upgrade` or `bidirectional`.
    pub fn is_upgrade_enabled(self) -> bool {
        matches!(self, MigrationPolicy::Upgrade | MigrationPolicy::Bidirectional)
    }

    /// `downgrade` or `bidirectional`.
    pub fn is_downgrade_enabled(self) -> bool {
        matches!(self, MigrationPolicy::Downgrade | MigrationPolicy::Bidirectional)
    }

    pub fn name(self) -> &'static str {
        match self {
            MigrationPolicy::Disabled => "disabled",
            MigrationPolicy::Upgrade => "upgrade",
            MigrationPolicy::Downgrade => "downgrade",
            MigrationPolicy::Bidirectional => "bidirectional",
        }
    }
}

impl Default for GroupConfig {
    fn default() -> Self {
        GroupConfig {
            min_session_timeout_ms: 6_000,
            max_session_timeout_ms: 1_800_000,
            initial_rebalance_delay_ms: 3_000,
            max_size: i32::MAX,
            offsets_retention_minutes: 10_080,
            offsets_retention_check_interval_ms: 600_000,
            offset_metadata_max_bytes: 4_096,
            batch_bytes_max: strand_base::limits::MESSAGE_BYTES_MAX,
            offsets_topic_partitions: 50,
            new_member_join_timeout_ms: 300_000,
            consumer_session_timeout_ms: 45_000,
            consumer_min_session_timeout_ms: 45_000,
            consumer_max_session_timeout_ms: 60_000,
            consumer_heartbeat_interval_ms: 5_000,
            consumer_min_heartbeat_interval_ms: 5_000,
            consumer_max_heartbeat_interval_ms: 15_000,
            consumer_max_size: i32::MAX,
            consumer_assignors: vec!["uniform".to_owned(), "range".to_owned()],
            consumer_migration_policy: MigrationPolicy::Bidirectional,
            consumer_regex_refresh_interval_ms: 600_000,
            streams_session_timeout_ms: 45_000,
            streams_heartbeat_interval_ms: 5_000,
            streams_max_size: i32::MAX,
            streams_num_standby_replicas: 0,
        }
    }
}

impl GroupConfig {
    /// `offsets.retention.minutes` in milliseconds.
    pub fn offsets_retention_ms(&self) -> i64 {
        self.offsets_retention_minutes.saturating_mul(60_000)
    }
}
