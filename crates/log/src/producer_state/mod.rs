//! Idempotent and transactional producers' state in one partition, and its `.snapshot` files.
//!
//! For each producer id the partition remembers its epoch, the sequence and offset ranges of its
//! last [`NUM_BATCHES_TO_RETAIN`] batches (so a retried batch is recognized and answered with its
//! original offsets instead of being written twice), the epoch of the transaction coordinator
//! that last ended one of its transactions, and the first offset of its open transaction. The
//! open transactions bound the last stable offset that `read_committed` consumers may read to.
//!
//! [`ProducerStateManager`] is the state of one partition; this file holds it, its settings and
//! its bookkeeping (expiration, the producer bound). Its parts:
//!
//! - `entry`: [`ProducerBatch`], the header fields the state reads from one batch, and
//!   [`ProducerStateEntry`] with its [`BatchMetadata`]: one producer's state.
//! - `append`: the rules. An append is two steps: [`ProducerStateManager::check_and_prepare`]
//!   validates the batches against the state (epoch fencing, sequence order, transaction state)
//!   without changing it, and [`ProducerStateManager::update`] applies the result once the
//!   batches are in the log.
//! - `verification`: KIP-890's [`VerificationGuard`], which a first transactional write must
//!   present.
//! - `transactions`: the open and completed transactions, for the transaction index and the
//!   last stable offset. For each transaction a marker ended, the log writes the transaction
//!   index and calls [`ProducerStateManager::complete_txn`].
//! - `snapshot`: the `.snapshot` file format (Kafka's `ProducerSnapshot`, version 1);
//!   `reload`: the manager's snapshot files, taken, deleted with segments, and reloaded from
//!   when the log is loaded or truncated.
//!
//! What it is not: it reads no clock (times are passed in as milliseconds), writes no log data
//! and no transaction index, and knows nothing of requests; mapping its errors to Produce error
//! codes is the broker's job.
//!
//! Checked against Apache Kafka's `storage/.../log/ProducerStateManager.java`,
//! `ProducerAppendInfo.java`, `ProducerStateEntry.java`, `BatchMetadata.java`,
//! `VerificationStateEntry.java`, `UnifiedLog.analyzeAndValidateProducerState` and
//! `storage/src/main/resources/message/ProducerSnapshot.json`.

mod append;
mod entry;
mod reload;
mod snapshot;
mod transactions;
mod verification;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use strand_base::{Offset, ProducerId};

use crate::Result;

pub use append::{AppendContext, AppendOrigin, AppendOutcome, ProducerAppend};
pub use entry::{BatchKind, BatchMetadata, ProducerBatch, ProducerStateEntry, TxnMarker};
pub use snapshot::{
    DELETED_SUFFIX, ProducerSnapshotEntry, SNAPSHOT_SUFFIX, SNAPSHOT_VERSION, decode_snapshot, encode_snapshot,
    list_snapshots, read_snapshot, snapshot_path, write_snapshot,
};
pub use transactions::CompletedTxn;
pub use verification::VerificationGuard;

use transactions::TxnMetadata;
use verification::VerificationStateEntry;

/// How many of a producer's latest batches are remembered for duplicate detection (Kafka's
/// `NUM_BATCHES_TO_RETAIN`, matching the producer's `max.in.flight.requests.per.connection` cap).
pub const NUM_BATCHES_TO_RETAIN: usize = 5;
/// The epoch of a producer that has none yet (`RecordBatch.NO_PRODUCER_EPOCH`).
pub const NO_PRODUCER_EPOCH: i16 = -1;
/// The sequence of a batch that has none (`RecordBatch.NO_SEQUENCE`).
pub const NO_SEQUENCE: i32 = -1;
/// How much longer than `transaction.max.timeout.ms` a transaction may stay open before it is
/// reported as hanging (Kafka's `LATE_TRANSACTION_BUFFER_MS`).
pub const LATE_TRANSACTION_BUFFER_MS: i64 = 5 * 60 * 1000;
/// The transaction version of appends that carry none (`TransactionVersion.TV_UNKNOWN`): data
/// batches, and everything copied from another log.
pub const TV_UNKNOWN: i16 = -1;

/// Why a producer's batch cannot be appended. Each variant names the Produce error code Kafka
/// answers with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProducerStateError {
    /// `INVALID_PRODUCER_EPOCH`: a zombie producer with an older epoch.
    #[error("producer {producer_id} at offset {offset}: epoch {epoch} is older than the current epoch {current_epoch}")]
    InvalidProducerEpoch { producer_id: ProducerId, offset: Offset, epoch: i16, current_epoch: i16 },
    /// `OUT_OF_ORDER_SEQUENCE_NUMBER`: a gap or a reordering in the producer's sequence.
    #[error("producer {producer_id} at offset {offset}: sequence {sequence} out of order ({reason})")]
    OutOfOrderSequence { producer_id: ProducerId, offset: Offset, sequence: i32, reason: String },
    /// `INVALID_TXN_STATE`: a write that does not fit the producer's transaction state.
    #[error("producer {producer_id} at offset {offset}: invalid transaction state ({reason})")]
    InvalidTxnState { producer_id: ProducerId, offset: Offset, reason: &'static str },
    /// `TRANSACTION_COORDINATOR_FENCED`: a marker from an older transaction coordinator.
    #[error("producer {producer_id} at offset {offset}: coordinator epoch {coordinator_epoch} is older than {current}")]
    TransactionCoordinatorFenced { producer_id: ProducerId, offset: Offset, coordinator_epoch: i32, current: i32 },
    /// `CORRUPT_MESSAGE`: a control batch whose record is not a readable transaction marker.
    #[error("invalid control batch: {0}")]
    InvalidControlBatch(String),
}

/// The most producers a partition keeps state for (Kafka has no such bound): beyond it the one
/// idle the longest is forgotten early, so random idempotent producer ids cannot grow a
/// partition's memory and snapshots without bound. At a few hundred bytes a producer, about
/// 3 MiB a partition.
pub const PRODUCERS_PER_PARTITION_MAX: usize = 10_000;

/// Settings of the producer state (Kafka's broker settings of the same names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerStateConfig {
    /// `producer.id.expiration.ms`: how long an idle producer without an open transaction is kept.
    pub producer_id_expiration_ms: i64,
    /// `transaction.max.timeout.ms`: with [`LATE_TRANSACTION_BUFFER_MS`], when an open
    /// transaction counts as hanging.
    pub max_transaction_timeout_ms: i64,
    /// `transaction.partition.verification.enable`: first transactional writes need a guard.
    pub transaction_verification_enabled: bool,
}

impl Default for ProducerStateConfig {
    fn default() -> Self {
        ProducerStateConfig {
            producer_id_expiration_ms: 86_400_000,
            max_transaction_timeout_ms: 900_000,
            transaction_verification_enabled: true,
        }
    }
}

/// The producer state of one partition and its snapshot files in the partition directory.
/// Owned by the partition's log, which serializes all calls (under its append lock).
#[derive(Debug)]
pub struct ProducerStateManager {
    dir: PathBuf,
    config: ProducerStateConfig,
    producers: BTreeMap<ProducerId, ProducerStateEntry>,
    verifications: BTreeMap<ProducerId, VerificationStateEntry>,
    /// Open transactions, by first offset.
    ongoing_txns: BTreeMap<Offset, TxnMetadata>,
    /// Completed transactions whose marker is not yet below the high watermark, by first offset.
    unreplicated_txns: BTreeMap<Offset, TxnMetadata>,
    /// Offsets of the snapshot files in `dir`.
    snapshots: BTreeSet<Offset>,
    /// The offset the state is up to (exclusive).
    map_end_offset: Offset,
    /// The offset of the latest snapshot taken or loaded.
    last_snap_offset: Offset,
    /// The last verification guard handed out; guards are unique per manager.
    last_guard: u64,
}

impl ProducerStateManager {
    /// The manager of the partition directory `dir`, with no producers and the snapshot files
    /// found there (not yet read: see [`ProducerStateManager::truncate_and_reload`]).
    pub fn open(dir: &Path, config: ProducerStateConfig) -> Result<ProducerStateManager> {
        let snapshots = list_snapshots(dir)?.into_iter().collect();
        Ok(ProducerStateManager { snapshots, ..Self::empty(dir, config) })
    }

    /// The manager of a partition directory just created: no snapshot to look for.
    pub(crate) fn empty(dir: &Path, config: ProducerStateConfig) -> ProducerStateManager {
        ProducerStateManager {
            dir: dir.to_owned(),
            config,
            producers: BTreeMap::new(),
            verifications: BTreeMap::new(),
            ongoing_txns: BTreeMap::new(),
            unreplicated_txns: BTreeMap::new(),
            snapshots: Default::default(),
            map_end_offset: 0,
            last_snap_offset: 0,
            last_guard: 0,
        }
    }

    pub fn config(&self) -> ProducerStateConfig {
        self.config
    }

    /// Applies changed settings (they are dynamic broker settings in Kafka).
    pub fn set_config(&mut self, config: ProducerStateConfig) {
        self.config = config;
    }

    /// Keeps at most [`PRODUCERS_PER_PARTITION_MAX`] producers: past it, the one idle the longest
    /// without an open transaction (not `newest`) is forgotten early, as if it had expired.
    fn evict_beyond_limit(&mut self, newest: ProducerId) {
        if self.producers.len() <= PRODUCERS_PER_PARTITION_MAX {
            return;
        }
        let oldest = self
            .producers
            .iter()
            .filter(|(id, entry)| **id != newest && entry.current_txn_first_offset.is_none())
            .min_by_key(|(_, entry)| entry.last_timestamp)
            .map(|(id, _)| *id);
        if let Some(oldest) = oldest {
            self.producers.remove(&oldest);
        }
    }

    /// How many producers this partition has state for.
    pub fn producer_count(&self) -> usize {
        self.producers.len()
    }

    /// Forgets producers idle for `producer.id.expiration.ms` without an open transaction, and
    /// verifications started that long ago.
    pub fn remove_expired_producers(&mut self, now_ms: i64) {
        let expiration_ms = self.config.producer_id_expiration_ms;
        self.producers.retain(|_, entry| !entry.is_expired(now_ms, expiration_ms));
        self.verifications.retain(|_, v| now_ms.saturating_sub(v.timestamp_ms) < expiration_ms);
    }

    pub fn last_entry(&self, producer_id: ProducerId) -> Option<&ProducerStateEntry> {
        self.producers.get(&producer_id)
    }

    pub fn active_producers(&self) -> &BTreeMap<ProducerId, ProducerStateEntry> {
        &self.producers
    }

    pub fn is_empty(&self) -> bool {
        self.producers.is_empty() && self.unreplicated_txns.is_empty()
    }

    /// The offset the state covers the log up to (exclusive).
    pub fn map_end_offset(&self) -> Offset {
        self.map_end_offset
    }

    /// Records that the state now covers the log up to `end_offset` (exclusive): after every
    /// append, idempotent or not, so a snapshot names the right offset.
    pub fn update_map_end_offset(&mut self, end_offset: Offset) {
        self.map_end_offset = end_offset;
    }
}
