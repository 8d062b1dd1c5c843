//! The settings the request handlers apply ([`BrokerSettings`]), from the node's configuration.

use std::time::Duration;

use strand_base::BrokerId;
use strand_broker::{BrokerSettings, InternalTopicSettings};
use strand_metadata::controller::ControllerDefaults;

use super::{ServerConfig, static_topic_configs};

pub(crate) fn broker_settings(config: &ServerConfig) -> BrokerSettings {
    use crate::config::{config_type, synonym_chain};

    let static_topic_configs = static_topic_configs(config);
    let broker_configs = config
        .entries
        .iter()
        .map(|(name, entry)| strand_broker::BrokerConfigEntry {
            name: name.clone(),
            value: entry.value.clone(),
            source: entry.source.kafka_id(),
            sensitive: entry.sensitive,
            synonyms: synonym_chain(name),
            config_type: config_type(name).map_or(0, |t| t.kafka_id()),
        })
        .collect();
    BrokerSettings {
        auto_create_topics: config.auto_create_topics_enable,
        controller_defaults: ControllerDefaults {
            num_partitions: config.num_partitions,
            default_replication_factor: i16::try_from(config.default_replication_factor).unwrap_or(i16::MAX),
            static_topic_configs,
            node_id: Some(BrokerId(config.node_id)),
        },
        delete_topic_enable: config.delete_topic_enable,
        broker_configs,
        quota_window: strand_broker::quotas::QuotaWindow {
            samples: u32::try_from(config.quota_window_num).unwrap_or(1),
            sample_ms: i64::from(config.quota_window_size_seconds) * 1000,
        },
        controller_quota_window: strand_broker::quotas::QuotaWindow {
            samples: u32::try_from(config.controller_quota_window_num).unwrap_or(1),
            sample_ms: i64::from(config.controller_quota_window_size_seconds) * 1000,
        },
        fetch_session_slots: usize::try_from(config.max_incremental_fetch_session_cache_slots).unwrap_or(0),
        fetch_max_bytes: config.fetch_max_bytes,
        txn_add_retry: strand_broker::TxnAddRetry {
            backoff: Duration::from_millis(u64::try_from(config.add_partitions_to_txn_retry_backoff_ms).unwrap_or(0)),
            max: Duration::from_millis(u64::try_from(config.add_partitions_to_txn_retry_backoff_max_ms).unwrap_or(0)),
        },
        offsets_topic: InternalTopicSettings {
            partitions: config.offsets_topic_num_partitions,
            replication_factor: config.offsets_topic_replication_factor,
            segment_bytes: config.offsets_topic_segment_bytes,
            min_insync_replicas: None,
        },
        transaction_topic: InternalTopicSettings {
            partitions: config.transaction_state_log_num_partitions,
            replication_factor: config.transaction_state_log_replication_factor,
            segment_bytes: config.transaction_state_log_segment_bytes,
            min_insync_replicas: Some(config.transaction_state_log_min_isr),
        },
        replica_selector: config.replica_selector,
        metrics_topics_max: config.http.metrics_topics_max,
        dlq_topic_prefix: config.dlq_topic_name_prefix.clone(),
        share: strand_broker::ShareSettings {
            session_timeout_ms: i64::from(config.share.session_timeout_ms),
            heartbeat_interval_ms: config.share.heartbeat_interval_ms,
            max_size: usize::try_from(config.share.max_size).unwrap_or(1),
            record_lock_duration_ms: config.share.record_lock_duration_ms,
            delivery_count_limit: i16::try_from(config.share.delivery_count_limit).unwrap_or(i16::MAX),
            partition_max_record_locks: i64::from(config.share.partition_max_record_locks),
            max_share_sessions: usize::try_from(config.share.max_share_sessions).unwrap_or(1),
            state_topic: InternalTopicSettings {
                partitions: config.share.state_topic_num_partitions,
                replication_factor: config.share.state_topic_replication_factor,
                segment_bytes: config.share.state_topic_segment_bytes,
                min_insync_replicas: Some(i32::from(config.share.state_topic_min_isr)),
            },
        },
    }
}
