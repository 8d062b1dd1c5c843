//! The coordinators' settings ([`strand_coordinator::GroupConfig`],
//! [`strand_coordinator::TxnConfig`]) from the node's configuration.

use super::ServerConfig;

impl ServerConfig {
    /// The group coordinator's settings.
    pub fn group_config(&self) -> strand_coordinator::GroupConfig {
        strand_coordinator::GroupConfig {
            min_session_timeout_ms: self.group_min_session_timeout_ms,
            max_session_timeout_ms: self.group_max_session_timeout_ms,
            initial_rebalance_delay_ms: self.group_initial_rebalance_delay_ms,
            max_size: self.group_max_size,
            offsets_retention_minutes: i64::from(self.offsets_retention_minutes),
            offsets_retention_check_interval_ms: self.offsets_retention_check_interval_ms,
            offset_metadata_max_bytes: usize::try_from(self.offset_metadata_max_bytes).unwrap_or(0),
            batch_bytes_max: usize::try_from(self.message_max_bytes).unwrap_or(0),
            offsets_topic_partitions: self.offsets_topic_num_partitions,
            consumer_session_timeout_ms: self.group_consumer_session_timeout_ms,
            consumer_min_session_timeout_ms: self.group_consumer_min_session_timeout_ms,
            consumer_max_session_timeout_ms: self.group_consumer_max_session_timeout_ms,
            consumer_heartbeat_interval_ms: self.group_consumer_heartbeat_interval_ms,
            consumer_min_heartbeat_interval_ms: self.group_consumer_min_heartbeat_interval_ms,
            consumer_max_heartbeat_interval_ms: self.group_consumer_max_heartbeat_interval_ms,
            consumer_max_size: self.group_consumer_max_size,
            consumer_assignors: self.group_consumer_assignors.clone(),
            consumer_migration_policy: self.group_consumer_migration_policy,
            consumer_regex_refresh_interval_ms: self.group_consumer_regex_refresh_interval_ms,
            streams_session_timeout_ms: self.group_streams_session_timeout_ms,
            streams_heartbeat_interval_ms: self.group_streams_heartbeat_interval_ms,
            streams_max_size: self.group_streams_max_size,
            streams_num_standby_replicas: usize::try_from(self.group_streams_num_standby_replicas).unwrap_or(0),
            ..strand_coordinator::GroupConfig::default()
        }
    }

    /// The transaction coordinator's settings (`transaction.*`, `transactional.id.*`).
    pub fn txn_config(&self) -> strand_coordinator::TxnConfig {
        strand_coordinator::TxnConfig {
            transaction_state_log_partitions: self.transaction_state_log_num_partitions,
            transaction_max_timeout_ms: self.transaction_max_timeout_ms,
            transactional_id_expiration_ms: i64::from(self.transactional_id_expiration_ms),
            abort_timed_out_transactions_interval_ms: i64::from(
                self.transaction_abort_timed_out_transaction_cleanup_interval_ms,
            ),
            remove_expired_transactional_ids_interval_ms: i64::from(
                self.transaction_remove_expired_transaction_cleanup_interval_ms,
            ),
            offsets_topic_partitions: self.offsets_topic_num_partitions,
            ..strand_coordinator::TxnConfig::default()
        }
    }
}
