//! Share groups' broker settings (KIP-932): Kafka 4.4's `group.share.*` and
//! `share.coordinator.state.topic.*` keys with Kafka's defaults, read into [`ShareConfig`] and
//! checked against each other as Kafka's `ShareGroupConfig` and `GroupCoordinatorConfig` check
//! them (each default within its min and max). The keys share groups do not act on yet are in
//! `unimplemented.rs`.

use super::reader::Reader;
use super::{ConfigError, invalid};

/// The share-group settings the broker applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShareConfig {
    /// `group.share.session.timeout.ms`.
    pub session_timeout_ms: i32,
    /// `group.share.heartbeat.interval.ms`.
    pub heartbeat_interval_ms: i32,
    /// `group.share.max.size`.
    pub max_size: i32,
    /// `group.share.record.lock.duration.ms`.
    pub record_lock_duration_ms: i32,
    /// `group.share.delivery.count.limit`.
    pub delivery_count_limit: i32,
    /// `group.share.partition.max.record.locks`.
    pub partition_max_record_locks: i32,
    /// `group.share.max.share.sessions`.
    pub max_share_sessions: i32,
    /// `share.coordinator.state.topic.num.partitions`.
    pub state_topic_num_partitions: i32,
    /// `share.coordinator.state.topic.replication.factor`.
    pub state_topic_replication_factor: i16,
    /// `share.coordinator.state.topic.min.isr`.
    pub state_topic_min_isr: i16,
    /// `share.coordinator.state.topic.segment.bytes`.
    pub state_topic_segment_bytes: i32,
}

/// Reads the share-group settings and checks each against its bounds.
pub(super) fn read(read: &Reader<'_>) -> Result<ShareConfig, ConfigError> {
    let config = ShareConfig {
        session_timeout_ms: bounded(read, "group.share.session.timeout.ms")?,
        heartbeat_interval_ms: bounded(read, "group.share.heartbeat.interval.ms")?,
        max_size: read.int("group.share.max.size")?,
        record_lock_duration_ms: bounded(read, "group.share.record.lock.duration.ms")?,
        delivery_count_limit: bounded(read, "group.share.delivery.count.limit")?,
        partition_max_record_locks: bounded(read, "group.share.partition.max.record.locks")?,
        max_share_sessions: read.int("group.share.max.share.sessions")?,
        state_topic_num_partitions: read.int("share.coordinator.state.topic.num.partitions")?,
        state_topic_replication_factor: read.short("share.coordinator.state.topic.replication.factor")?,
        state_topic_min_isr: read.short("share.coordinator.state.topic.min.isr")?,
        state_topic_segment_bytes: read.int("share.coordinator.state.topic.segment.bytes")?,
    };
    if config.max_size > 1000 {
        return Err(invalid("group.share.max.size", &config.max_size.to_string(), "Value must be no more than 1000"));
    }
    if config.heartbeat_interval_ms >= config.session_timeout_ms {
        return Err(invalid(
            "group.share.heartbeat.interval.ms",
            &config.heartbeat_interval_ms.to_string(),
            "must be less than group.share.session.timeout.ms",
        ));
    }
    Ok(config)
}

/// `group.share.<name>`, which must lie within `group.share.min.<name>` and
/// `group.share.max.<name>` (and those within Kafka's absolute bounds, from the key table).
fn bounded(read: &Reader<'_>, key: &str) -> Result<i32, ConfigError> {
    let name = key.trim_start_matches("group.share.");
    let value = read.int(key)?;
    let min_key = format!("group.share.min.{name}");
    let max_key = format!("group.share.max.{name}");
    let (min, max) = (read.int(&min_key)?, read.int(&max_key)?);
    if min > max {
        return Err(invalid(&min_key, &min.to_string(), format!("must be no more than {max_key} ({max})")));
    }
    if value < min || value > max {
        return Err(invalid(
            key,
            &value.to_string(),
            format!("must be between {min_key} ({min}) and {max_key} ({max})"),
        ));
    }
    Ok(value)
}
