//! [`TxnConfig`]: the transaction coordinator's settings, with Kafka's names and defaults. The
//! server fills it from `server.properties`.

/// Kafka's settings for the transaction coordinator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnConfig {
    /// `transaction.state.log.num.partitions`: partitions of `__transaction_state`.
    pub transaction_state_log_partitions: i32,
    /// `transaction.max.timeout.ms`: the largest `transaction.timeout.ms` a producer may ask for.
    pub transaction_max_timeout_ms: i32,
    /// `transactional.id.expiration.ms`: how long an id may stay idle (Empty or Complete*)
    /// before it is removed.
    pub transactional_id_expiration_ms: i64,
    /// `transaction.abort.timed.out.transaction.cleanup.interval.ms`: how often timed-out
    /// transactions are looked for (and aborted).
    pub abort_timed_out_transactions_interval_ms: i64,
    /// `transaction.remove.expired.transaction.cleanup.interval.ms`: how often expired ids are
    /// looked for (and removed).
    pub remove_expired_transactional_ids_interval_ms: i64,
    /// `offsets.topic.num.partitions`: AddOffsetsToTxn adds the group's `__consumer_offsets`
    /// partition, found as the group coordinator finds it.
    pub offsets_topic_partitions: i32,
    /// The finalized `transaction.version` feature level: from 1 on, values are written at
    /// `TransactionLogValue` version 1 (flexible, with tagged fields); from 2 on, the
    /// coordinator's own aborts (fencing, timeouts) use transactions V2's epoch bump.
    pub transaction_version: i16,
}

impl Default for TxnConfig {
    fn default() -> Self {
        TxnConfig {
            transaction_state_log_partitions: 50,
            transaction_max_timeout_ms: 900_000,
            transactional_id_expiration_ms: 604_800_000,
            abort_timed_out_transactions_interval_ms: 10_000,
            remove_expired_transactional_ids_interval_ms: 3_600_000,
            offsets_topic_partitions: 50,
            transaction_version: 2,
        }
    }
}

impl TxnConfig {
    /// Whether `timeout_ms` is a transaction timeout a producer may ask for (Kafka's
    /// `validateTransactionTimeoutMs`).
    pub fn is_valid_timeout(&self, timeout_ms: i32) -> bool {
        timeout_ms > 0 && timeout_ms <= self.transaction_max_timeout_ms
    }

    /// The `TransactionLogValue` version written (Kafka's `transactionLogValueVersion`).
    pub fn log_value_version(&self) -> i16 {
        if self.transaction_version >= 1 { 1 } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's defaults, and its timeout bounds (positive, at most the maximum).
    #[test]
    fn defaults_and_timeout_bounds_are_kafkas() {
        let config = TxnConfig::default();
        assert_eq!(config.transaction_state_log_partitions, 50);
        assert_eq!(config.transaction_max_timeout_ms, 900_000);
        assert_eq!(config.transactional_id_expiration_ms, 604_800_000);
        assert_eq!(config.abort_timed_out_transactions_interval_ms, 10_000);
        assert_eq!(config.remove_expired_transactional_ids_interval_ms, 3_600_000);
        for (timeout, valid) in [(0, false), (-1, false), (1, true), (900_000, true), (900_001, false)] {
            assert_eq!(config.is_valid_timeout(timeout), valid, "{timeout}");
        }
        assert_eq!(config.log_value_version(), 1);
        assert_eq!(TxnConfig { transaction_version: 0, ..config }.log_value_version(), 0);
    }
}
