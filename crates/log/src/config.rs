//! A log's settings, with Kafka's topic-config names and defaults.

/// The settings one partition's log runs with (Kafka's topic configs; broker `log.*` defaults).
#[derive(Debug, Clone, PartialEq)]
pub struct LogConfig {
    /// `segment.bytes`: roll when the active segment would grow past this (default 1 GiB).
    pub segment_bytes: u64,
    /// `segment.ms`: roll when the active segment's first batch is older than this (7 days).
    pub segment_ms: i64,
    /// `segment.jitter.ms`: the most subtracted from `segment.ms` per segment, to spread rolls.
    pub segment_jitter_ms: i64,
    /// `segment.index.bytes`: an index file's preallocated size; full means roll (10 MiB).
    pub segment_index_bytes: u64,
    /// `index.interval.bytes`: bytes appended between two offset-index entries (4096).
    pub index_interval_bytes: u64,
    /// `flush.messages`: fsync after this many records (Kafka: never by count, `i64::MAX`).
    pub flush_interval_messages: i64,
    /// `flush.ms`: fsync when the oldest unflushed append is this old (Kafka: never, `i64::MAX`).
    pub flush_interval_ms: i64,
    /// `preallocate`: whether segment files are preallocated (Kafka default false).
    pub preallocate: bool,
    /// `retention.ms`: a segment whose newest record is older than this is deleted (7 days);
    /// -1 keeps data forever. Applies only with `delete_enabled`.
    pub retention_ms: i64,
    /// `retention.bytes`: the oldest segments are deleted while the partition is larger than this
    /// by at least a whole segment (-1: no limit). Applies only with `delete_enabled`.
    pub retention_bytes: i64,
    /// Whether `cleanup.policy` includes `delete` (the default); a `compact`-only log loses
    /// segments to retention only below its log start offset (DeleteRecords).
    pub delete_enabled: bool,
    /// Whether `cleanup.policy` includes `compact` (Kafka's default policy is `delete` alone):
    /// the log cleaner ([`crate::cleaner::Cleaner`]) keeps only the latest record per key.
    pub compact_enabled: bool,
    /// `delete.retention.ms`: how long a tombstone (a record with a null value) and a transaction
    /// marker with nothing left to mark survive compaction after the cleaner first retained them
    /// (1 day).
    pub delete_retention_ms: i64,
    /// `min.compaction.lag.ms`: a record is never compacted before its segment's newest record is
    /// this old (0: as soon as it leaves the active segment).
    pub min_compaction_lag_ms: i64,
    /// `min.cleanable.dirty.ratio`: the cleaner takes the log once this share of its cleanable
    /// bytes is dirty (0.5).
    pub min_cleanable_dirty_ratio: f64,
    /// `max.compaction.lag.ms`: a record stays uncompacted at most this long; past it the cleaner
    /// takes the log whatever its dirty share (Kafka: no limit, `i64::MAX`).
    pub max_compaction_lag_ms: i64,
    /// `message.timestamp.type` is `LogAppendTime`: the copies delayed delivery appends are
    /// stamped with the time they are delivered, as a produce's records are with theirs.
    pub log_append_time: bool,
    /// The broker's producer-state settings (`producer.id.expiration.ms`,
    /// `transaction.max.timeout.ms`, `transaction.partition.verification.enable`).
    pub producer_state: crate::producer_state::ProducerStateConfig,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig {
            segment_bytes: 1024 * 1024 * 1024,
            segment_ms: 7 * 24 * 60 * 60 * 1000,
            segment_jitter_ms: 0,
            segment_index_bytes: 10 * 1024 * 1024,
            index_interval_bytes: 4096,
            flush_interval_messages: i64::MAX,
            flush_interval_ms: i64::MAX,
            preallocate: false,
            retention_ms: 7 * 24 * 60 * 60 * 1000,
            retention_bytes: -1,
            delete_enabled: true,
            compact_enabled: false,
            delete_retention_ms: 24 * 60 * 60 * 1000,
            min_compaction_lag_ms: 0,
            min_cleanable_dirty_ratio: 0.5,
            max_compaction_lag_ms: i64::MAX,
            log_append_time: false,
            producer_state: crate::producer_state::ProducerStateConfig::default(),
        }
    }
}
