//! The segmented commit log: each partition stored the way Kafka stores it, byte for byte, so
//! Kafka's own `kafka-dump-log.sh` reads Strand's files and a `kill -9` at any moment leaves a log
//! that recovers to its last valid batch.
//!
//! - [`Log`] (`log/`, a file per concern): one partition's log: segments, log end offset, log
//!   start offset, recovery point; append, read, roll, flush, truncate, recover.
//! - [`segment::Segment`]: a `.log` file of magic-2 batches and its indexes.
//! - [`index`]: [`index::OffsetIndex`], [`index::TimeIndex`], [`index::TxnIndex`], in Kafka's
//!   layouts.
//! - [`epoch_cache::LeaderEpochCache`]: the leader epochs, kept in `leader-epoch-checkpoint`.
//! - [`producer_state`]: idempotent producers' state and `.snapshot` files.
//! - [`cleaner::Cleaner`]: compaction (`cleanup.policy=compact`): the latest record per key,
//!   tombstones until `delete.retention.ms`, segments swapped in crash-safely.
//! - [`delayed::DelayedIndex`]: delayed delivery's pending records not yet delivered, kept from
//!   the log by every replica.
//! - [`LogManager`]: every partition's log in the node's `log.dirs`, with the per-directory
//!   checkpoints, `meta.properties` and the clean-shutdown marker.
//! - [`future_log`]: moving a partition's log to another log dir (AlterReplicaLogDirs): a
//!   `-future` log copied in steps, swapped in under the partition's lock, crash-safely.
//! - [`checkpoint`]: Kafka's text checkpoint files; [`dir`]: `meta.properties`,
//!   `partition.metadata`, the clean-shutdown marker.
//! - [`mod@file`]: the one door for writes and syncs: [`file::SegmentFile`] (positioned reads and
//!   appends, `fdatasync`, truncation, preallocation), `write_atomically` (tmp, fsync, rename,
//!   directory fsync) for checkpoints and state files, `SyncTarget` (with the `log::sync` and
//!   `log::sync_metadata` failpoints); every sync passes one function (the `log::sync_skipped`
//!   failpoint, the tests' sync watcher), `DirHealth` (a failed sync takes the directory offline
//!   until a restart, Kafka's `LogDirFailureChannel`) and `DirLock` (Kafka's `.lock`). Other
//!   modules use `std::fs` directly only to read small files whole, list, create and remove
//!   directories, and rename or remove files.
//!   Descriptors are held only while needed: an index's for one write, the active segment's
//!   `.log` until it rolls, a cold `.log` through a process-wide cache of
//!   `COLD_SEGMENT_FILES_MAX` (128); a fetch's slice shares its descriptor, so a close or a
//!   deletion never cuts a response short.
//! - [`time_lookup`]: ListOffsets by timestamp, taken under the log's lock and run without it.
//!
//! A deleted segment's `.log` is renamed `.deleted` first, then it and its indexes are removed;
//! readers hold their descriptor, so removal never cuts a fetch short and `file.delete.delay.ms`
//! has no use here. Opening a log removes `.deleted` leftovers of a crash. For
//! replicas, [`Log`] offers `append_as_follower` (the leader's offsets and epochs kept),
//! `truncate_to` and `truncate_fully_and_start_at`: offsets and epochs only, no notion of who
//! leads.
//!
//! What it is not: it knows offsets and batches only, nothing of requests, roles or replication.
//! It runs no threads and no async runtime, and reads time only through the [`strand_base::Clock`]
//! it is given, so tests drive it deterministically.

pub mod checkpoint;
pub mod cleaner;
pub mod config;
pub mod delayed;
pub mod dir;
pub mod epoch_cache;
pub mod file;
pub mod future_log;
pub mod index;
pub mod log;
pub mod manager;
pub mod producer_state;
pub mod segment;
pub mod time_lookup;

pub use config::LogConfig;
pub use log::Log;
pub use manager::{LogDirContents, LogManager, NodeIdentity};

/// What can go wrong in the log. I/O errors carry the file they concern.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("{path}: {source}")]
    Io { path: std::path::PathBuf, source: std::io::Error },
    #[error("{path}: corrupt: {reason}")]
    Corrupt { path: std::path::PathBuf, reason: String },
    #[error("offset {offset} is out of range [{start}, {end})")]
    OffsetOutOfRange { offset: i64, start: i64, end: i64 },
    #[error("invalid record batch: {0}")]
    InvalidBatch(String),
    #[error("{0}")]
    Invalid(String),
    #[error("{path}: the log directory is offline ({reason})")]
    DirOffline { path: std::path::PathBuf, reason: String },
    #[error(transparent)]
    ProducerState(#[from] producer_state::ProducerStateError),
}

impl LogError {
    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: &std::path::Path, source: std::io::Error) -> LogError {
        LogError::Io { path: path.to_owned(), source }
    }

    pub fn corrupt(path: &std::path::Path, reason: impl Into<String>) -> LogError {
        LogError::Corrupt { path: path.to_owned(), reason: reason.into() }
    }
}

pub type Result<T, E = LogError> = std::result::Result<T, E>;
