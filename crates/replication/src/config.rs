//! The replication settings, by their Kafka names, with Kafka's defaults.

use strand_base::BrokerId;

/// Replication settings (Kafka's names in the field docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicationConfig {
    /// `node.id`: who this node is in partition states. `BrokerId::NONE` for a standalone
    /// replica manager, which leads every partition alone and takes no partition state.
    pub broker_id: BrokerId,
    /// `log.flush.on.acks.all` (Strand, default true): the leader syncs before acknowledging
    /// `acks=all` and followers sync what they fetched before fetching again (design §6).
    pub flush_on_acks_all: bool,
    /// `replica.lag.time.max.ms` (30 s): a follower not caught up for this long leaves the ISR.
    pub replica_lag_time_max_ms: i64,
    /// `num.replica.fetchers` (1): fetcher tasks per source broker.
    pub num_replica_fetchers: usize,
    /// `replica.fetch.max.bytes` (1 MiB): per partition and fetch (the first batch goes whole).
    pub replica_fetch_max_bytes: i32,
    /// `replica.fetch.response.max.bytes` (10 MiB): per fetch.
    pub replica_fetch_response_max_bytes: i32,
    /// `replica.fetch.wait.max.ms` (500): how long the leader may hold a fetch with no new data.
    pub replica_fetch_wait_max_ms: i32,
    /// `replica.fetch.min.bytes` (1).
    pub replica_fetch_min_bytes: i32,
    /// `replica.fetch.backoff.ms` (1000): the pause after a failed fetch or a partition error.
    pub replica_fetch_backoff_ms: u64,
    /// `replication.quota.window.num` (11): samples of the replication throttles' rates.
    pub replication_quota_window_num: u32,
    /// `replication.quota.window.size.seconds` (1): each sample's span.
    pub replication_quota_window_size_seconds: u32,
}

impl ReplicationConfig {
    /// Kafka's defaults for node `broker_id`.
    pub fn new(broker_id: BrokerId) -> Self {
        ReplicationConfig {
            broker_id,
            flush_on_acks_all: true,
            replica_lag_time_max_ms: 30_000,
            num_replica_fetchers: 1,
            replica_fetch_max_bytes: 1024 * 1024,
            replica_fetch_response_max_bytes: 10 * 1024 * 1024,
            replica_fetch_wait_max_ms: 500,
            replica_fetch_min_bytes: 1,
            replica_fetch_backoff_ms: 1000,
            replication_quota_window_num: 11,
            replication_quota_window_size_seconds: 1,
        }
    }

    /// A node without peers (`ReplicaManager::new`).
    pub fn standalone(flush_on_acks_all: bool) -> Self {
        ReplicationConfig { flush_on_acks_all, ..ReplicationConfig::new(BrokerId::NONE) }
    }

    pub fn is_standalone(&self) -> bool {
        self.broker_id == BrokerId::NONE
    }
}
