//! Idempotent and transactional producers' state in one partition, and its `.snapshot` files.
//!
//! For each producer id the partition remembers its epoch, the sequence and offset ranges of its
//! last [`NUM_BATCHES_TO_RETAIN`] batches (so a retried batch is recognized and answered with its
//! original offsets instead of being written twice), the epoch of the transaction coordinator
//! that last ended one of its transactions, and the first offset of its open transaction. The
//! open transactions bound the last stable offset that `read_committed` consumers may read to.
//!
//! - [`ProducerStateManager`]: the state of one partition. An append is two steps:
//!   [`ProducerStateManager::check_and_prepare`] validates the batches against the state (epoch
//!   fencing, sequence order, transaction state) without changing it, and
//!   [`ProducerStateManager::update`] applies the result once the batches are in the log. Then,
//!   for each transaction a marker ended, the log writes the transaction index and calls
//!   [`ProducerStateManager::complete_txn`].
//! - [`ProducerBatch`]: the header fields the state reads from one batch; [`ProducerStateEntry`]
//!   and [`BatchMetadata`]: one producer's state.
//! - Snapshots: `<20-digit offset>.snapshot` files in the partition directory hold the state
//!   as of that offset (exclusive), so recovery replays only the segments after it. The layout
//!   is Kafka's `ProducerSnapshot` message, version 1, big-endian:
//!   ```text
//!   version i16 (1) | crc u32 (CRC-32C of everything after this field) | count i32
//!   | count x (producerId i64 | epoch i16 | lastSequence i32 | lastOffset i64 | offsetDelta i32
//!              | timestamp i64 | coordinatorEpoch i32 | currentTxnFirstOffset i64 (-1: none))
//!   ```
//!   Only the last batch of each producer is kept in a snapshot, as Kafka does.
//!
//! What it is not: it reads no clock (times are passed in as milliseconds), writes no log data
//! and no transaction index, and knows nothing of requests; mapping its errors to Produce error
//! codes is the broker's job.
//!
//! Checked against Apache Kafka's `storage/.../log/ProducerStateManager.java`,
//! `ProducerAppendInfo.java`, `ProducerStateEntry.java`, `BatchMetadata.java`,
//! `VerificationStateEntry.java`, `UnifiedLog.analyzeAndValidateProducerState` and
//! `storage/src/main/resources/message/ProducerSnapshot.json`.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

use strand_base::{Offset, ProducerId};
use strand_protocol::records::{EndTxnMarker, RecordBatch, TransactionResult};

use crate::file::write_atomically;
use crate::{LogError, Result};

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
/// The producer snapshot format version written and read.
pub const SNAPSHOT_VERSION: i16 = 1;
/// The suffix of producer snapshot files.
pub const SNAPSHOT_SUFFIX: &str = ".snapshot";
/// The suffix a snapshot file gets when it is scheduled for deletion with its segment.
pub const DELETED_SUFFIX: &str = ".deleted";

const SNAPSHOT_CRC_AT: usize = 2;
const SNAPSHOT_ENTRIES_AT: usize = 6;
const SNAPSHOT_HEADER_BYTES: usize = 10;
const SNAPSHOT_ENTRY_BYTES: usize = 46;

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

/// How much of an append is validated, after Kafka's `AppendOrigin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppendOrigin {
    /// Written by a producer: epoch, sequence and transaction state are all checked, and
    /// retried batches are recognized as duplicates.
    Client,
    /// Written by a coordinator (offset commits, markers): no sequences, so only epochs and
    /// transaction state are checked.
    Coordinator,
    /// Copied from another log (a leader's, or this log's own segments on recovery), already
    /// validated there: older producer and coordinator epochs are accepted.
    Replication,
}

/// How one append is to be validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppendContext {
    pub origin: AppendOrigin,
    /// The guard the request's transaction verification obtained, or
    /// [`VerificationGuard::SENTINEL`].
    pub verification_guard: VerificationGuard,
    /// For transaction markers written by the coordinator, the transaction version of the
    /// WriteTxnMarkers entry (KIP-1228: from version 2 a marker must carry a bumped epoch);
    /// [`TV_UNKNOWN`] otherwise. Not stored in the batch, so replicated markers are checked as
    /// version 0, which is more lenient.
    pub transaction_version: i16,
}

impl AppendContext {
    /// A producer's append, with the guard its verification obtained (or the sentinel).
    pub fn client(verification_guard: VerificationGuard) -> Self {
        AppendContext { origin: AppendOrigin::Client, verification_guard, transaction_version: TV_UNKNOWN }
    }

    /// A coordinator's append; `transaction_version` matters for markers.
    pub fn coordinator(transaction_version: i16) -> Self {
        AppendContext {
            origin: AppendOrigin::Coordinator,
            verification_guard: VerificationGuard::SENTINEL,
            transaction_version,
        }
    }

    /// Batches copied from a leader, or replayed from this log's segments on recovery.
    pub fn replication() -> Self {
        AppendContext {
            origin: AppendOrigin::Replication,
            verification_guard: VerificationGuard::SENTINEL,
            transaction_version: TV_UNKNOWN,
        }
    }
}

/// What a control batch holds, for the producer state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxnMarker {
    pub result: TransactionResult,
    pub coordinator_epoch: i32,
    /// The marker record's timestamp.
    pub timestamp: i64,
}

/// The kind of batch, as the producer state sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchKind {
    Data,
    TransactionalData,
    /// A control batch: its transaction marker, or `None` if the cleaner emptied it.
    Control(Option<TxnMarker>),
}

/// The header fields of one batch that the producer state reads, with offsets already assigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerBatch {
    pub producer_id: ProducerId,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub last_sequence: i32,
    pub base_offset: Offset,
    pub last_offset: Offset,
    pub max_timestamp: i64,
    pub kind: BatchKind,
}

impl ProducerBatch {
    /// Reads a stored batch's header. A control batch's one record is decoded to read its
    /// marker: an exception to "never decode records" that Kafka makes too, for batches the
    /// transaction coordinator wrote, never for producers' data.
    pub fn from_batch(batch: &RecordBatch) -> std::result::Result<ProducerBatch, ProducerStateError> {
        let attributes = batch.attributes();
        let kind = if attributes.is_control() && batch.producer_id().0 >= 0 {
            BatchKind::Control(read_marker(batch)?)
        } else if attributes.is_control() {
            // KRaft's own control records carry no producer id; the producer state ignores them.
            BatchKind::Control(None)
        } else if attributes.is_transactional() {
            BatchKind::TransactionalData
        } else {
            BatchKind::Data
        };
        Ok(ProducerBatch {
            producer_id: batch.producer_id(),
            producer_epoch: batch.producer_epoch(),
            base_sequence: batch.base_sequence(),
            last_sequence: batch.last_sequence(),
            base_offset: batch.base_offset(),
            last_offset: batch.last_offset(),
            max_timestamp: batch.max_timestamp(),
            kind,
        })
    }

    fn is_transactional(&self) -> bool {
        !matches!(self.kind, BatchKind::Data)
    }
}

fn read_marker(batch: &RecordBatch) -> std::result::Result<Option<TxnMarker>, ProducerStateError> {
    let invalid = |e: strand_protocol::records::RecordsError| ProducerStateError::InvalidControlBatch(e.to_string());
    // A marker is a few dozen bytes; a control batch that inflates past this is corrupt.
    const CONTROL_RECORDS_BYTES_MAX: usize = 64 * 1024;
    let records = batch.records_with_limit(CONTROL_RECORDS_BYTES_MAX).map_err(invalid)?;
    let Some(record) = records.iter().next() else { return Ok(None) };
    let record = record.map_err(invalid)?;
    let (result, marker) = EndTxnMarker::from_record(&record).map_err(invalid)?;
    let timestamp = batch.record_timestamp(&record);
    Ok(Some(TxnMarker { result, coordinator_epoch: marker.coordinator_epoch, timestamp }))
}

/// One appended batch of a producer, as remembered for duplicate detection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchMetadata {
    pub last_seq: i32,
    pub last_offset: Offset,
    /// `last_offset - first_offset`, which is also `last_seq - first_seq` (modulo wrapping).
    pub offset_delta: i32,
    /// The batch's max timestamp.
    pub timestamp: i64,
}

impl BatchMetadata {
    pub fn first_seq(&self) -> i32 {
        decrement_sequence(self.last_seq, self.offset_delta)
    }

    pub fn first_offset(&self) -> Offset {
        self.last_offset - i64::from(self.offset_delta)
    }
}

/// One producer's state (Kafka's `ProducerStateEntry`). Changed only by the manager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProducerStateEntry {
    producer_id: ProducerId,
    producer_epoch: i16,
    coordinator_epoch: i32,
    last_timestamp: i64,
    current_txn_first_offset: Option<Offset>,
    /// Oldest first, at most [`NUM_BATCHES_TO_RETAIN`], all of `producer_epoch`.
    batches: VecDeque<BatchMetadata>,
}

impl ProducerStateEntry {
    /// A producer not seen before.
    pub fn empty(producer_id: ProducerId) -> Self {
        ProducerStateEntry {
            producer_id,
            producer_epoch: NO_PRODUCER_EPOCH,
            coordinator_epoch: -1,
            last_timestamp: -1,
            current_txn_first_offset: None,
            batches: VecDeque::new(),
        }
    }

    pub fn producer_id(&self) -> ProducerId {
        self.producer_id
    }

    pub fn producer_epoch(&self) -> i16 {
        self.producer_epoch
    }

    pub fn coordinator_epoch(&self) -> i32 {
        self.coordinator_epoch
    }

    /// The max timestamp of its last batch, or the timestamp of its last marker.
    pub fn last_timestamp(&self) -> i64 {
        self.last_timestamp
    }

    /// The first offset of its open transaction, if any.
    pub fn current_txn_first_offset(&self) -> Option<Offset> {
        self.current_txn_first_offset
    }

    /// Its remembered batches, oldest first.
    pub fn batches(&self) -> impl Iterator<Item = &BatchMetadata> {
        self.batches.iter()
    }

    /// The last sequence written, or [`NO_SEQUENCE`].
    pub fn last_seq(&self) -> i32 {
        self.batches.back().map_or(NO_SEQUENCE, |b| b.last_seq)
    }

    /// The last offset of its last batch, or -1.
    pub fn last_data_offset(&self) -> Offset {
        self.batches.back().map_or(-1, |b| b.last_offset)
    }

    /// The remembered batch with exactly this epoch and sequence range: a retry of it.
    pub fn find_duplicate(&self, epoch: i16, first_seq: i32, last_seq: i32) -> Option<BatchMetadata> {
        if epoch != self.producer_epoch {
            return None;
        }
        self.batches.iter().find(|b| b.first_seq() == first_seq && b.last_seq == last_seq).copied()
    }

    fn maybe_update_epoch(&mut self, epoch: i16) {
        if self.producer_epoch != epoch {
            self.batches.clear();
            self.producer_epoch = epoch;
        }
    }

    fn add_batch(&mut self, epoch: i16, batch: BatchMetadata) {
        self.maybe_update_epoch(epoch);
        self.push_batch(batch);
        self.last_timestamp = batch.timestamp;
    }

    fn push_batch(&mut self, batch: BatchMetadata) {
        if self.batches.len() == NUM_BATCHES_TO_RETAIN {
            self.batches.pop_front();
        }
        self.batches.push_back(batch);
    }

    /// Takes over `next`, the state an append computed from this one (Kafka's `update`).
    fn merge(&mut self, next: ProducerStateEntry) {
        self.maybe_update_epoch(next.producer_epoch);
        for batch in next.batches {
            self.push_batch(batch);
        }
        self.coordinator_epoch = next.coordinator_epoch;
        self.current_txn_first_offset = next.current_txn_first_offset;
        self.last_timestamp = next.last_timestamp;
    }

    /// The state after a transaction marker: the transaction is over.
    fn end_txn(&mut self, epoch: i16, coordinator_epoch: i32, timestamp: i64) {
        self.maybe_update_epoch(epoch);
        self.coordinator_epoch = coordinator_epoch;
        self.current_txn_first_offset = None;
        self.last_timestamp = timestamp;
    }

    fn is_expired(&self, now_ms: i64, producer_id_expiration_ms: i64) -> bool {
        self.current_txn_first_offset.is_none()
            && now_ms.saturating_sub(self.last_timestamp) >= producer_id_expiration_ms
    }

    /// The entry as a snapshot stores it: its last batch only.
    pub fn to_snapshot_entry(&self) -> ProducerSnapshotEntry {
        let last = self.batches.back();
        ProducerSnapshotEntry {
            producer_id: self.producer_id,
            epoch: self.producer_epoch,
            last_sequence: self.last_seq(),
            last_offset: self.last_data_offset(),
            offset_delta: last.map_or(0, |b| b.offset_delta),
            timestamp: self.last_timestamp,
            coordinator_epoch: self.coordinator_epoch,
            current_txn_first_offset: self.current_txn_first_offset.unwrap_or(-1),
        }
    }

    /// The entry a snapshot entry restores: one batch if `last_offset >= 0`.
    pub fn from_snapshot_entry(entry: &ProducerSnapshotEntry) -> Self {
        let batch = (entry.last_offset >= 0).then_some(BatchMetadata {
            last_seq: entry.last_sequence,
            last_offset: entry.last_offset,
            offset_delta: entry.offset_delta,
            timestamp: entry.timestamp,
        });
        ProducerStateEntry {
            producer_id: entry.producer_id,
            producer_epoch: entry.epoch,
            coordinator_epoch: entry.coordinator_epoch,
            last_timestamp: entry.timestamp,
            current_txn_first_offset: (entry.current_txn_first_offset >= 0).then_some(entry.current_txn_first_offset),
            batches: batch.into_iter().collect(),
        }
    }
}

/// A transaction ended by a marker (Kafka's `CompletedTxn`): the log writes it to the
/// transaction index (if aborted) and then passes it to [`ProducerStateManager::complete_txn`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompletedTxn {
    pub producer_id: ProducerId,
    pub first_offset: Offset,
    /// The offset of the marker.
    pub last_offset: Offset,
    pub is_aborted: bool,
}

/// An open or recently completed transaction, by the offset it began at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TxnMetadata {
    producer_id: ProducerId,
    first_offset: Offset,
    /// The marker's offset, once completed.
    last_offset: Option<Offset>,
}

/// The token of a KIP-890 transaction verification: handed out when the broker asks the
/// coordinator whether a partition is in the producer's transaction, and required by the first
/// transactional append, so a marker written in between (which drops the token) fails the append.
/// [`VerificationGuard::SENTINEL`] verifies nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VerificationGuard(u64);

impl VerificationGuard {
    pub const SENTINEL: VerificationGuard = VerificationGuard(0);

    /// Whether `request` is this very guard (and not the sentinel).
    pub fn verify(self, request: VerificationGuard) -> bool {
        request != Self::SENTINEL && request == self
    }

    /// The guard as a number, for layers that carry it without knowing the log (the group
    /// coordinator's `PartitionWriter` hands it from its verification to its append); 0 is the
    /// sentinel.
    pub fn to_raw(self) -> u64 {
        self.0
    }

    /// A guard carried as [`VerificationGuard::to_raw`] gave it. A number no verification handed
    /// out verifies nothing: guards are compared, never trusted.
    pub fn from_raw(raw: u64) -> Self {
        VerificationGuard(raw)
    }
}

/// A verification in progress: its guard and the lowest sequence seen while verifying, which
/// later batches of the same epoch may not skip ahead of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct VerificationStateEntry {
    timestamp_ms: i64,
    guard: VerificationGuard,
    lowest_sequence: i32,
    epoch: i16,
    /// The producer uses transactions V2 (a new epoch per transaction).
    supports_epoch_bump: bool,
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

/// What [`ProducerStateManager::check_and_prepare`] decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppendOutcome {
    /// The batches are new: append them, then pass this to [`ProducerStateManager::update`].
    Append(ProducerAppend),
    /// A batch repeats one of its producer's remembered batches (a retry): append nothing and
    /// answer success with this original batch's offsets and timestamp.
    Duplicate(BatchMetadata),
}

/// The producer-state effects of one validated append, to apply after it is in the log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProducerAppend {
    entries: BTreeMap<ProducerId, ProducerStateEntry>,
    started_txns: Vec<TxnMetadata>,
    completed_txns: Vec<CompletedTxn>,
    /// Producers whose verification this append ends.
    verified_producers: BTreeSet<ProducerId>,
}

impl ProducerAppend {
    /// The transactions this append's markers end, in batch order.
    pub fn completed_txns(&self) -> &[CompletedTxn] {
        &self.completed_txns
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
        Ok(ProducerStateManager {
            dir: dir.to_owned(),
            config,
            producers: BTreeMap::new(),
            verifications: BTreeMap::new(),
            ongoing_txns: BTreeMap::new(),
            unreplicated_txns: BTreeMap::new(),
            snapshots: list_snapshots(dir)?.into_iter().collect(),
            map_end_offset: 0,
            last_snap_offset: 0,
            last_guard: 0,
        })
    }

    pub fn config(&self) -> ProducerStateConfig {
        self.config
    }

    /// Applies changed settings (they are dynamic broker settings in Kafka).
    pub fn set_config(&mut self, config: ProducerStateConfig) {
        self.config = config;
    }

    /// Validates the batches of one append (offsets assigned, not yet written) against the
    /// state, as Kafka's `analyzeAndValidateProducerState` and `ProducerAppendInfo` do, without
    /// changing it. Batches without a producer id are ignored.
    pub fn check_and_prepare(
        &self,
        batches: &[ProducerBatch],
        context: AppendContext,
    ) -> std::result::Result<AppendOutcome, ProducerStateError> {
        let mut infos: BTreeMap<ProducerId, AppendInfo<'_>> = BTreeMap::new();
        let mut append = ProducerAppend::default();
        for batch in batches.iter().filter(|b| b.producer_id.0 >= 0) {
            let producer_id = batch.producer_id;
            if context.origin == AppendOrigin::Client {
                let current = self.producers.get(&producer_id);
                let duplicate = current
                    .and_then(|e| e.find_duplicate(batch.producer_epoch, batch.base_sequence, batch.last_sequence));
                if let Some(original) = duplicate {
                    return Ok(AppendOutcome::Duplicate(original));
                }
            }
            if context.origin != AppendOrigin::Replication {
                self.check_txn_verified(batch, context.verification_guard)?;
            }
            let info = infos.entry(producer_id).or_insert_with(|| self.prepare_update(producer_id, context));
            if let Some(completed) = info.append(batch, &mut append.started_txns)? {
                append.completed_txns.push(completed);
            }
            if batch.is_transactional() && !self.next_v2_txn_started(batch) {
                append.verified_producers.insert(producer_id);
            }
        }
        append.entries = infos.into_iter().map(|(id, info)| (id, info.updated)).collect();
        Ok(AppendOutcome::Append(append))
    }

    /// Applies a validated append once its batches are in the log. Returns the transactions its
    /// markers ended: for each, the log computes [`ProducerStateManager::last_stable_offset`],
    /// writes the transaction index, then calls [`ProducerStateManager::complete_txn`]. The log
    /// also calls [`ProducerStateManager::update_map_end_offset`] after every append.
    pub fn update(&mut self, append: ProducerAppend) -> Vec<CompletedTxn> {
        for (producer_id, next) in append.entries {
            match self.producers.get_mut(&producer_id) {
                Some(current) => current.merge(next),
                None => {
                    self.producers.insert(producer_id, next);
                    self.evict_beyond_limit(producer_id);
                }
            }
        }
        for txn in append.started_txns {
            self.ongoing_txns.insert(txn.first_offset, txn);
        }
        // The transaction has begun (or ended): the verification has served its purpose.
        for producer_id in append.verified_producers {
            self.verifications.remove(&producer_id);
        }
        append.completed_txns
    }

    /// The last stable offset to record with `txn` in the transaction index: the first offset of
    /// the earliest other open transaction, or the offset after the marker.
    pub fn last_stable_offset(&self, txn: &CompletedTxn) -> Offset {
        let next_open = self.ongoing_txns.values().find(|open| open.producer_id != txn.producer_id);
        next_open.map_or(txn.last_offset + 1, |open| open.first_offset)
    }

    /// Marks `txn` complete. It still bounds the first unstable offset until the high watermark
    /// passes its marker. Panics if `txn` was not open: completed transactions only come from
    /// [`ProducerStateManager::update`].
    pub fn complete_txn(&mut self, txn: &CompletedTxn) {
        let open = self.ongoing_txns.remove(&txn.first_offset);
        let Some(mut open) = open else { panic!("completing transaction {txn:?}, which was not open") };
        open.last_offset = Some(txn.last_offset);
        self.unreplicated_txns.insert(txn.first_offset, open);
    }

    /// Forgets completed transactions whose markers are now below the high watermark, so the
    /// first unstable offset can advance past them.
    pub fn on_high_watermark_updated(&mut self, high_watermark: Offset) {
        self.unreplicated_txns.retain(|_, txn| txn.last_offset.is_none_or(|last| last >= high_watermark));
    }

    /// The first offset that is not stable: the start of the earliest transaction that is open,
    /// or completed with its marker not yet replicated. The log's last stable offset is the
    /// smaller of this and the high watermark.
    pub fn first_unstable_offset(&self) -> Option<Offset> {
        let unreplicated = self.unreplicated_txns.keys().next();
        let undecided = self.ongoing_txns.keys().next();
        unreplicated.into_iter().chain(undecided).min().copied()
    }

    /// The start of the earliest open transaction, whatever the replication state.
    pub fn first_undecided_offset(&self) -> Option<Offset> {
        self.ongoing_txns.keys().next().copied()
    }

    /// Whether the producer has a transaction open here in `epoch` (with a newer epoch, the
    /// open one may have ended already).
    pub fn has_ongoing_transaction(&self, producer_id: ProducerId, epoch: i16) -> bool {
        self.producers
            .get(&producer_id)
            .is_some_and(|e| e.current_txn_first_offset.is_some() && e.producer_epoch == epoch)
    }

    /// Whether the earliest open transaction's producer has been silent for longer than any
    /// transaction may last: a hanging transaction.
    pub fn has_late_transaction(&self, now_ms: i64) -> bool {
        let oldest = self.ongoing_txns.values().next().and_then(|txn| self.producers.get(&txn.producer_id));
        let last_timestamp = oldest.map_or(-1, |e| e.last_timestamp);
        last_timestamp > 0
            && now_ms.saturating_sub(last_timestamp)
                > self.config.max_transaction_timeout_ms + LATE_TRANSACTION_BUFFER_MS
    }

    /// Starts (or continues) verifying that the partition is in the producer's transaction and
    /// returns the guard the append must present; [`VerificationGuard::SENTINEL`] when the
    /// transaction is already open here and needs no verification. An epoch older than the
    /// producer's is fenced at once. `supports_epoch_bump`: the producer uses transactions V2.
    pub fn maybe_start_txn_verification(
        &mut self,
        producer_id: ProducerId,
        sequence: i32,
        epoch: i16,
        supports_epoch_bump: bool,
        now_ms: i64,
    ) -> std::result::Result<VerificationGuard, ProducerStateError> {
        if let Some(current) = self.producers.get(&producer_id)
            && epoch < current.producer_epoch
        {
            return Err(ProducerStateError::InvalidProducerEpoch {
                producer_id,
                offset: -1,
                epoch,
                current_epoch: current.producer_epoch,
            });
        }
        if self.has_ongoing_transaction(producer_id, epoch) {
            return Ok(VerificationGuard::SENTINEL);
        }
        let entry = match self.verifications.entry(producer_id) {
            Entry::Occupied(existing) => existing.into_mut(),
            Entry::Vacant(vacant) => {
                self.last_guard += 1;
                let guard = VerificationGuard(self.last_guard);
                let lowest_sequence = sequence;
                vacant.insert(VerificationStateEntry {
                    timestamp_ms: now_ms,
                    guard,
                    lowest_sequence,
                    epoch,
                    supports_epoch_bump,
                })
            }
        };
        *entry = lower_verified_sequence(*entry, sequence, epoch);
        Ok(entry.guard)
    }

    /// The guard of the producer's verification in progress, or the sentinel.
    pub fn verification_guard(&self, producer_id: ProducerId) -> VerificationGuard {
        self.verifications.get(&producer_id).map_or(VerificationGuard::SENTINEL, |v| v.guard)
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

    /// A transactional batch of a producer with no transaction open here in its epoch must be
    /// part of a verified transaction; a stale epoch is fenced first.
    fn check_txn_verified(
        &self,
        batch: &ProducerBatch,
        request_guard: VerificationGuard,
    ) -> std::result::Result<(), ProducerStateError> {
        let producer_id = batch.producer_id;
        if !batch.is_transactional() || self.has_ongoing_transaction(producer_id, batch.producer_epoch) {
            return Ok(());
        }
        if let Some(current) = self.producers.get(&producer_id)
            && batch.producer_epoch < current.producer_epoch
        {
            return Err(ProducerStateError::InvalidProducerEpoch {
                producer_id,
                offset: batch.base_offset,
                epoch: batch.producer_epoch,
                current_epoch: current.producer_epoch,
            });
        }
        let needs_guard = self.config.transaction_verification_enabled && batch.kind == BatchKind::TransactionalData;
        if needs_guard && !self.verification_guard(producer_id).verify(request_guard) {
            let reason = "transactional write without an ongoing or verified transaction";
            return Err(ProducerStateError::InvalidTxnState { producer_id, offset: batch.base_offset, reason });
        }
        Ok(())
    }

    /// Whether `batch` is a transactions-V2 marker of the epoch being verified: the producer's
    /// next transaction is already being verified, so its verification must survive the marker.
    fn next_v2_txn_started(&self, batch: &ProducerBatch) -> bool {
        let verification = self.verifications.get(&batch.producer_id);
        matches!(batch.kind, BatchKind::Control(_))
            && verification.is_some_and(|v| v.supports_epoch_bump && v.epoch == batch.producer_epoch)
    }

    fn prepare_update(&self, producer_id: ProducerId, context: AppendContext) -> AppendInfo<'_> {
        let current = self.producers.get(&producer_id);
        let mut updated = current.cloned().unwrap_or_else(|| ProducerStateEntry::empty(producer_id));
        updated.batches.clear();
        let verification = self.verifications.get(&producer_id).copied();
        AppendInfo { producer_id, context, current, verification, updated }
    }
}

/// Snapshot files and truncation.
impl ProducerStateManager {
    /// Writes a snapshot at the map end offset, unless one exists at or above it. Returns the
    /// file written.
    pub fn take_snapshot(&mut self) -> Result<Option<PathBuf>> {
        if self.map_end_offset <= self.last_snap_offset {
            return Ok(None);
        }
        let path = snapshot_path(&self.dir, self.map_end_offset);
        write_snapshot(&path, self.producers.values())?;
        self.snapshots.insert(self.map_end_offset);
        self.last_snap_offset = self.map_end_offset;
        Ok(Some(path))
    }

    /// The offsets of the snapshot files, ascending.
    pub fn snapshot_offsets(&self) -> impl Iterator<Item = Offset> + '_ {
        self.snapshots.iter().copied()
    }

    pub fn latest_snapshot_offset(&self) -> Option<Offset> {
        self.snapshots.last().copied()
    }

    pub fn oldest_snapshot_offset(&self) -> Option<Offset> {
        self.snapshots.first().copied()
    }

    /// Brings the state in line with a log that now spans `[log_start_offset, log_end_offset)`
    /// (Kafka's `truncateAndReload`): deletes snapshots outside `(log_start_offset,
    /// log_end_offset]`; then, unless the state already ends at `log_end_offset`, reloads it from
    /// the latest remaining snapshot (corrupt ones are deleted and the next older one tried), or
    /// starts empty at `log_start_offset`. The log then replays its batches from
    /// [`ProducerStateManager::map_end_offset`] to `log_end_offset` with
    /// [`AppendOrigin::Replication`].
    pub fn truncate_and_reload(&mut self, log_start_offset: Offset, log_end_offset: Offset, now_ms: i64) -> Result<()> {
        let out_of_range: Vec<Offset> =
            self.snapshots.iter().copied().filter(|&o| o > log_end_offset || o <= log_start_offset).collect();
        for offset in out_of_range {
            self.remove_and_delete_snapshot(offset)?;
        }
        if log_end_offset == self.map_end_offset {
            self.on_log_start_offset_incremented(log_start_offset);
            return Ok(());
        }
        self.producers.clear();
        self.ongoing_txns.clear();
        self.unreplicated_txns.clear();
        self.load_from_latest_snapshot(log_start_offset, now_ms)
    }

    /// Empties the state, deletes every snapshot, and starts over at `offset`.
    pub fn truncate_fully_and_start_at(&mut self, offset: Offset) -> Result<()> {
        self.producers.clear();
        self.ongoing_txns.clear();
        self.unreplicated_txns.clear();
        let all: Vec<Offset> = self.snapshots.iter().copied().collect();
        for snapshot in all {
            self.remove_and_delete_snapshot(snapshot)?;
        }
        self.last_snap_offset = 0;
        self.map_end_offset = offset;
        Ok(())
    }

    /// After the log start offset advanced: forgets completed transactions below it and moves
    /// the map end offset up to it if behind.
    pub fn on_log_start_offset_incremented(&mut self, log_start_offset: Offset) {
        self.on_high_watermark_updated(log_start_offset);
        self.map_end_offset = self.map_end_offset.max(log_start_offset);
        self.last_snap_offset = self.latest_snapshot_offset().unwrap_or(log_start_offset);
    }

    /// Deletes the snapshot files below `offset`.
    pub fn delete_snapshots_before(&mut self, offset: Offset) -> Result<()> {
        let below: Vec<Offset> = self.snapshots.range(..offset).copied().collect();
        for snapshot in below {
            self.remove_and_delete_snapshot(snapshot)?;
        }
        Ok(())
    }

    /// Renames the snapshot at `offset` to `<name>.deleted`, for deletion later with its segment.
    /// Returns the new path, or `None` if there was no such snapshot (already deleted).
    pub fn remove_and_mark_snapshot_for_deletion(&mut self, offset: Offset) -> Result<Option<PathBuf>> {
        if !self.snapshots.remove(&offset) {
            return Ok(None);
        }
        let path = snapshot_path(&self.dir, offset);
        let mut renamed = path.clone().into_os_string();
        renamed.push(DELETED_SUFFIX);
        let renamed = PathBuf::from(renamed);
        match std::fs::rename(&path, &renamed) {
            Ok(()) => Ok(Some(renamed)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(LogError::io(&path, e)),
        }
    }

    /// Deletes snapshots with no segment starting at their offset, except the latest such one
    /// if it is above every segment's base offset (written at a clean shutdown). Kafka's
    /// `removeStraySnapshots`, run when the log is loaded.
    pub fn remove_stray_snapshots(&mut self, segment_base_offsets: &[Offset]) -> Result<()> {
        let bases: BTreeSet<Offset> = segment_base_offsets.iter().copied().collect();
        self.snapshots = list_snapshots(&self.dir)?.into_iter().collect();
        let strays: Vec<Offset> = self.snapshots.iter().copied().filter(|o| !bases.contains(o)).collect();
        let Some((&latest, older)) = strays.split_last() else { return Ok(()) };
        for &stray in older {
            self.remove_and_delete_snapshot(stray)?;
        }
        if bases.last().is_some_and(|&max_base| latest < max_base) {
            self.remove_and_delete_snapshot(latest)?;
        }
        Ok(())
    }

    /// Moves the manager to a renamed partition directory (deletion and future replicas rename it).
    pub fn update_parent_dir(&mut self, dir: &Path) {
        self.dir = dir.to_owned();
    }

    fn load_from_latest_snapshot(&mut self, log_start_offset: Offset, now_ms: i64) -> Result<()> {
        while let Some(offset) = self.latest_snapshot_offset() {
            let path = snapshot_path(&self.dir, offset);
            match read_snapshot(&path).and_then(|entries| check_loadable(&path, entries)) {
                Ok(entries) => {
                    let expiration_ms = self.config.producer_id_expiration_ms;
                    for entry in entries.into_iter().filter(|e| !e.is_expired(now_ms, expiration_ms)) {
                        self.load_producer_entry(entry);
                    }
                    self.last_snap_offset = offset;
                    self.map_end_offset = offset;
                    return Ok(());
                }
                Err(LogError::Corrupt { .. }) => self.remove_and_delete_snapshot(offset)?,
                Err(e) => return Err(e),
            }
        }
        self.last_snap_offset = log_start_offset;
        self.map_end_offset = log_start_offset;
        Ok(())
    }

    fn load_producer_entry(&mut self, entry: ProducerStateEntry) {
        if let Some(first_offset) = entry.current_txn_first_offset {
            let txn = TxnMetadata { producer_id: entry.producer_id, first_offset, last_offset: None };
            self.ongoing_txns.insert(first_offset, txn);
        }
        self.producers.insert(entry.producer_id, entry);
    }

    fn remove_and_delete_snapshot(&mut self, offset: Offset) -> Result<()> {
        self.snapshots.remove(&offset);
        let path = snapshot_path(&self.dir, offset);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(LogError::io(&path, e)),
        }
    }
}

/// A loaded snapshot must not have two producers claim the same open transaction start, or
/// completing one would find the other's.
fn check_loadable(path: &Path, entries: Vec<ProducerStateEntry>) -> Result<Vec<ProducerStateEntry>> {
    let mut starts = BTreeSet::new();
    for start in entries.iter().filter_map(|e| e.current_txn_first_offset) {
        if !starts.insert(start) {
            return Err(LogError::corrupt(path, format!("two producers' transactions start at offset {start}")));
        }
    }
    Ok(entries)
}

/// Kafka's `VerificationStateEntry.maybeUpdateLowestSequenceAndEpoch`: a lower sequence of the
/// same epoch lowers the bar; a higher epoch resets it.
fn lower_verified_sequence(mut entry: VerificationStateEntry, sequence: i32, epoch: i16) -> VerificationStateEntry {
    if epoch == entry.epoch && sequence < entry.lowest_sequence {
        entry.lowest_sequence = sequence;
    }
    if epoch > entry.epoch {
        entry.epoch = epoch;
        entry.lowest_sequence = sequence;
    }
    entry
}

/// One producer's validation across the batches of one append (Kafka's `ProducerAppendInfo`):
/// each batch is checked against `updated`, the state after the batches before it.
#[derive(Debug)]
struct AppendInfo<'a> {
    producer_id: ProducerId,
    context: AppendContext,
    /// The state before this append, if the producer is known.
    current: Option<&'a ProducerStateEntry>,
    verification: Option<VerificationStateEntry>,
    /// The current state without its batches, plus this append's batches.
    updated: ProducerStateEntry,
}

impl AppendInfo<'_> {
    fn append(
        &mut self,
        batch: &ProducerBatch,
        started: &mut Vec<TxnMetadata>,
    ) -> std::result::Result<Option<CompletedTxn>, ProducerStateError> {
        match batch.kind {
            BatchKind::Control(None) => Ok(None),
            BatchKind::Control(Some(marker)) => self.append_marker(marker, batch.producer_epoch, batch.base_offset),
            BatchKind::Data | BatchKind::TransactionalData => self.append_data(batch, started).map(|()| None),
        }
    }

    fn append_data(
        &mut self,
        batch: &ProducerBatch,
        started: &mut Vec<TxnMetadata>,
    ) -> std::result::Result<(), ProducerStateError> {
        let first_offset = batch.base_offset;
        self.check_epoch(batch.producer_epoch, first_offset, TV_UNKNOWN)?;
        if self.context.origin == AppendOrigin::Client {
            self.check_sequence(batch.producer_epoch, batch.base_sequence, first_offset)?;
        }
        // Java's `(int)` of the offset span, which the batch's i32 last offset delta bounds.
        let offset_delta = (batch.last_offset - first_offset) as i32;
        let metadata = BatchMetadata {
            last_seq: batch.last_sequence,
            last_offset: batch.last_offset,
            offset_delta,
            timestamp: batch.max_timestamp,
        };
        self.updated.add_batch(batch.producer_epoch, metadata);
        let transactional = batch.kind == BatchKind::TransactionalData;
        match (self.updated.current_txn_first_offset, transactional) {
            (Some(_), false) => Err(ProducerStateError::InvalidTxnState {
                producer_id: self.producer_id,
                offset: first_offset,
                reason: "non-transactional write while a transaction is open",
            }),
            (None, true) => {
                self.updated.current_txn_first_offset = Some(first_offset);
                started.push(TxnMetadata { producer_id: self.producer_id, first_offset, last_offset: None });
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn append_marker(
        &mut self,
        marker: TxnMarker,
        epoch: i16,
        offset: Offset,
    ) -> std::result::Result<Option<CompletedTxn>, ProducerStateError> {
        let transaction_version = match (self.context.transaction_version, self.context.origin) {
            (TV_UNKNOWN, AppendOrigin::Replication) => 0,
            (TV_UNKNOWN, AppendOrigin::Client) => {
                return Err(ProducerStateError::InvalidControlBatch(
                    "clients may not write transaction markers".into(),
                ));
            }
            (TV_UNKNOWN, AppendOrigin::Coordinator) => panic!("a coordinator's marker needs its transaction version"),
            (version, _) => version,
        };
        self.check_epoch(epoch, offset, transaction_version)?;
        let current = self.updated.coordinator_epoch;
        if current > marker.coordinator_epoch && self.context.origin != AppendOrigin::Replication {
            return Err(ProducerStateError::TransactionCoordinatorFenced {
                producer_id: self.producer_id,
                offset,
                coordinator_epoch: marker.coordinator_epoch,
                current,
            });
        }
        // A marker of a transaction that wrote nothing here changes no stable offset.
        let completed = self.updated.current_txn_first_offset.map(|first_offset| CompletedTxn {
            producer_id: self.producer_id,
            first_offset,
            last_offset: offset,
            is_aborted: marker.result == TransactionResult::Abort,
        });
        self.updated.end_txn(epoch, marker.coordinator_epoch, marker.timestamp);
        Ok(completed)
    }

    /// Kafka's `checkProducerEpoch`: an older epoch is fenced (accepted from replication). From
    /// transactions V2 a marker must carry a newer epoch than the producer's, except a retried
    /// marker of a transaction already ended (same epoch, none open, or the epoch is exhausted).
    fn check_epoch(
        &self,
        epoch: i16,
        offset: Offset,
        transaction_version: i16,
    ) -> std::result::Result<(), ProducerStateError> {
        let current_epoch = self.updated.producer_epoch;
        let v2 = transaction_version >= 2;
        let fenced = if v2 { epoch <= current_epoch } else { epoch < current_epoch };
        if !fenced || self.context.origin == AppendOrigin::Replication {
            return Ok(());
        }
        let marker_retry =
            v2 && epoch == current_epoch && (self.updated.current_txn_first_offset.is_none() || epoch == i16::MAX);
        if marker_retry {
            return Ok(());
        }
        Err(ProducerStateError::InvalidProducerEpoch { producer_id: self.producer_id, offset, epoch, current_epoch })
    }

    /// Kafka's `checkSequence`: a new epoch starts at sequence 0 (unless the producer was
    /// unknown); within an epoch each batch continues the last (wrapping at `i32::MAX`); a
    /// producer whose state was lost (no epoch) may continue anywhere, except a transactions-V2
    /// producer being verified, which must start at 0; and while a transaction is being
    /// verified, no batch may skip ahead of the lowest sequence seen.
    fn check_sequence(
        &self,
        epoch: i16,
        first_seq: i32,
        offset: Offset,
    ) -> std::result::Result<(), ProducerStateError> {
        let out_of_order = |reason: String| ProducerStateError::OutOfOrderSequence {
            producer_id: self.producer_id,
            offset,
            sequence: first_seq,
            reason,
        };
        let no_batches = self.current.is_none_or(|c| c.batches.is_empty());
        if let Some(verification) = self.verification
            && verification.supports_epoch_bump
            && first_seq != 0
            && no_batches
        {
            return Err(out_of_order("a transactions V2 producer with no state must start at sequence 0".to_owned()));
        }
        if let Some(verification) = self.verification
            && first_seq > verification.lowest_sequence
        {
            return Err(out_of_order(format!(
                "earliest sequence seen while verifying is {}",
                verification.lowest_sequence
            )));
        }
        let current_epoch = self.current.map_or(NO_PRODUCER_EPOCH, |c| c.producer_epoch);
        if epoch != self.updated.producer_epoch {
            if first_seq != 0 && self.updated.producer_epoch != NO_PRODUCER_EPOCH {
                return Err(out_of_order(format!("new epoch {epoch} must start at sequence 0")));
            }
            return Ok(());
        }
        let last_seq = if !self.updated.batches.is_empty() {
            self.updated.last_seq()
        } else if epoch == current_epoch {
            self.current.map_or(NO_SEQUENCE, |c| c.last_seq())
        } else {
            NO_SEQUENCE
        };
        if current_epoch != NO_PRODUCER_EPOCH && !in_sequence(last_seq, first_seq) {
            return Err(out_of_order(format!("expected the sequence after {last_seq}")));
        }
        Ok(())
    }
}

fn in_sequence(last_seq: i32, next_seq: i32) -> bool {
    i64::from(next_seq) == i64::from(last_seq) + 1 || (next_seq == 0 && last_seq == i32::MAX)
}

/// Kafka's `DefaultRecordBatch.decrementSequence`: sequences wrap from 0 back to `i32::MAX`.
fn decrement_sequence(sequence: i32, decrement: i32) -> i32 {
    let previous = i64::from(sequence) - i64::from(decrement);
    // Wrapping keeps a corrupt (negative) delta from overflowing, as Java's int arithmetic does.
    if previous < 0 { (previous + i64::from(i32::MAX) + 1) as i32 } else { previous as i32 }
}

/// One producer as a snapshot file stores it (the `ProducerEntry` of Kafka's `ProducerSnapshot`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerSnapshotEntry {
    pub producer_id: ProducerId,
    pub epoch: i16,
    pub last_sequence: i32,
    /// -1 when the producer has no remembered batch.
    pub last_offset: Offset,
    pub offset_delta: i32,
    pub timestamp: i64,
    pub coordinator_epoch: i32,
    /// -1 when no transaction is open.
    pub current_txn_first_offset: Offset,
}

/// The path of the snapshot at `offset` in `dir`: `<offset, 20 digits>.snapshot`.
pub fn snapshot_path(dir: &Path, offset: Offset) -> PathBuf {
    dir.join(format!("{offset:020}{SNAPSHOT_SUFFIX}"))
}

/// The offsets of the snapshot files in `dir`, ascending; none if `dir` does not exist. A file
/// ending in `.snapshot` whose name does not start with an offset is corrupt.
pub fn list_snapshots(dir: &Path) -> Result<Vec<Offset>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(LogError::io(dir, e)),
    };
    let mut offsets = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| LogError::io(dir, e))?;
        let file_type = entry.file_type().map_err(|e| LogError::io(&entry.path(), e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !file_type.is_file() || !name.ends_with(SNAPSHOT_SUFFIX) {
            continue;
        }
        let prefix = name.split('.').next().unwrap_or_default();
        let offset = prefix.parse().map_err(|_| LogError::corrupt(&entry.path(), "snapshot name is not an offset"))?;
        offsets.push(offset);
    }
    offsets.sort_unstable();
    Ok(offsets)
}

/// Writes `entries` (in producer id order if they come from the manager) as a snapshot file,
/// atomically.
pub fn write_snapshot<'a>(path: &Path, entries: impl IntoIterator<Item = &'a ProducerStateEntry>) -> Result<()> {
    let entries: Vec<ProducerSnapshotEntry> = entries.into_iter().map(ProducerStateEntry::to_snapshot_entry).collect();
    write_atomically(path, &encode_snapshot(&entries)).map_err(|e| LogError::io(path, e))
}

/// Reads a snapshot file's producers.
pub fn read_snapshot(path: &Path) -> Result<Vec<ProducerStateEntry>> {
    let bytes = std::fs::read(path).map_err(|e| LogError::io(path, e))?;
    let entries = decode_snapshot(path, &bytes)?;
    Ok(entries.iter().map(ProducerStateEntry::from_snapshot_entry).collect())
}

/// The bytes of a version-1 snapshot of `entries`.
pub fn encode_snapshot(entries: &[ProducerSnapshotEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(SNAPSHOT_HEADER_BYTES + SNAPSHOT_ENTRY_BYTES * entries.len());
    out.extend_from_slice(&SNAPSHOT_VERSION.to_be_bytes());
    out.extend_from_slice(&[0; 4]);
    assert!(i32::try_from(entries.len()).is_ok(), "{} producers do not fit a snapshot", entries.len());
    out.extend_from_slice(&(entries.len() as i32).to_be_bytes());
    for e in entries {
        out.extend_from_slice(&e.producer_id.0.to_be_bytes());
        out.extend_from_slice(&e.epoch.to_be_bytes());
        out.extend_from_slice(&e.last_sequence.to_be_bytes());
        out.extend_from_slice(&e.last_offset.to_be_bytes());
        out.extend_from_slice(&e.offset_delta.to_be_bytes());
        out.extend_from_slice(&e.timestamp.to_be_bytes());
        out.extend_from_slice(&e.coordinator_epoch.to_be_bytes());
        out.extend_from_slice(&e.current_txn_first_offset.to_be_bytes());
    }
    let crc = crc32c::crc32c(&out[SNAPSHOT_ENTRIES_AT..]);
    out[SNAPSHOT_CRC_AT..SNAPSHOT_ENTRIES_AT].copy_from_slice(&crc.to_be_bytes());
    out
}

/// Parses a snapshot's bytes; `path` only names the file in errors. The version, the CRC and
/// the exact length are checked; any mismatch is [`LogError::Corrupt`].
pub fn decode_snapshot(path: &Path, bytes: &[u8]) -> Result<Vec<ProducerSnapshotEntry>> {
    let corrupt = |reason: String| LogError::corrupt(path, reason);
    if bytes.len() < SNAPSHOT_HEADER_BYTES {
        return Err(corrupt(format!("{} bytes is shorter than a snapshot header", bytes.len())));
    }
    let mut reader = FieldReader { bytes, at: 0 };
    let version = reader.i16();
    if version != SNAPSHOT_VERSION {
        return Err(corrupt(format!("unknown snapshot version {version}")));
    }
    let stored_crc = reader.i32() as u32;
    let computed_crc = crc32c::crc32c(&bytes[SNAPSHOT_ENTRIES_AT..]);
    if stored_crc != computed_crc {
        return Err(corrupt(format!("stored crc {stored_crc:#010x}, computed {computed_crc:#010x}")));
    }
    let count = reader.i32();
    let expected_len = usize::try_from(count)
        .ok()
        .and_then(|n| n.checked_mul(SNAPSHOT_ENTRY_BYTES))
        .and_then(|n| n.checked_add(SNAPSHOT_HEADER_BYTES));
    if expected_len != Some(bytes.len()) {
        return Err(corrupt(format!("{count} entries do not fit the file's {} bytes", bytes.len())));
    }
    let entries = (0..count)
        .map(|_| ProducerSnapshotEntry {
            producer_id: ProducerId(reader.i64()),
            epoch: reader.i16(),
            last_sequence: reader.i32(),
            last_offset: reader.i64(),
            offset_delta: reader.i32(),
            timestamp: reader.i64(),
            coordinator_epoch: reader.i32(),
            current_txn_first_offset: reader.i64(),
        })
        .collect();
    Ok(entries)
}

/// Big-endian fields from a buffer whose length the caller has checked.
struct FieldReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl FieldReader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut field = [0; N];
        field.copy_from_slice(&self.bytes[self.at..self.at + N]);
        self.at += N;
        field
    }

    fn i16(&mut self) -> i16 {
        i16::from_be_bytes(self.take())
    }

    fn i32(&mut self) -> i32 {
        i32::from_be_bytes(self.take())
    }

    fn i64(&mut self) -> i64 {
        i64::from_be_bytes(self.take())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PID: ProducerId = ProducerId(7);

    fn data(epoch: i16, base_seq: i32, count: i32, base_offset: Offset) -> ProducerBatch {
        ProducerBatch {
            producer_id: PID,
            producer_epoch: epoch,
            base_sequence: base_seq,
            last_sequence: base_seq + count - 1,
            base_offset,
            last_offset: base_offset + i64::from(count) - 1,
            max_timestamp: 1_000 + base_offset,
            kind: BatchKind::Data,
        }
    }

    fn apply(
        manager: &mut ProducerStateManager,
        batch: ProducerBatch,
    ) -> std::result::Result<AppendOutcome, ProducerStateError> {
        let outcome = manager.check_and_prepare(&[batch], AppendContext::client(VerificationGuard::SENTINEL))?;
        if let AppendOutcome::Append(append) = &outcome {
            for txn in manager.update(append.clone()) {
                manager.complete_txn(&txn);
            }
            manager.update_map_end_offset(batch.last_offset + 1);
        }
        Ok(outcome)
    }

    fn manager() -> std::result::Result<ProducerStateManager, LogError> {
        ProducerStateManager::open(Path::new("/nonexistent-strand-test-dir"), ProducerStateConfig::default())
    }

    type TestResult = std::result::Result<(), Box<dyn std::error::Error>>;

    /// Sequences wrap between `i32::MAX` and 0 in both directions, as Kafka's helpers do.
    #[test]
    fn sequences_wrap_at_i32_max() {
        assert_eq!(decrement_sequence(2, 5), i32::MAX - 2);
        assert_eq!(decrement_sequence(9, 5), 4);
        assert!(in_sequence(i32::MAX, 0));
        assert!(!in_sequence(i32::MAX, i32::MIN));
        let wrapped = BatchMetadata { last_seq: 1, last_offset: 100, offset_delta: 3, timestamp: 0 };
        assert_eq!((wrapped.first_seq(), wrapped.first_offset()), (i32::MAX - 1, 97));
    }

    /// A known producer must continue its sequence; a gap or a replay of an unremembered batch is
    /// out of order, and the state is unchanged by a failed check.
    #[test]
    fn gaps_are_out_of_order() -> TestResult {
        let mut m = manager()?;
        apply(&mut m, data(0, 0, 3, 0))?;
        let gap = apply(&mut m, data(0, 4, 1, 3));
        assert!(matches!(gap, Err(ProducerStateError::OutOfOrderSequence { sequence: 4, .. })));
        assert_eq!(m.last_entry(PID).map(|e| e.last_seq()), Some(2));
        assert!(matches!(apply(&mut m, data(0, 3, 1, 3))?, AppendOutcome::Append(_)));
        Ok(())
    }

    /// A retry of any of the last five batches is a duplicate answered with its original offsets;
    /// the sixth-oldest is forgotten.
    #[test]
    fn last_five_batches_are_duplicates() -> TestResult {
        let mut m = manager()?;
        for i in 0..6 {
            apply(&mut m, data(0, i * 2, 2, i64::from(i) * 10))?;
        }
        let retry = data(0, 2, 2, 999);
        let expected = BatchMetadata { last_seq: 3, last_offset: 11, offset_delta: 1, timestamp: 1_010 };
        assert_eq!(apply(&mut m, retry)?, AppendOutcome::Duplicate(expected));
        assert!(matches!(apply(&mut m, data(0, 0, 2, 999)), Err(ProducerStateError::OutOfOrderSequence { .. })));
        Ok(())
    }

    /// Epoch fencing: an older epoch is rejected for clients and accepted from replication; a
    /// new epoch must start at 0.
    #[test]
    fn epochs_fence_and_reset_sequences() -> TestResult {
        let mut m = manager()?;
        apply(&mut m, data(3, 0, 1, 0))?;
        assert!(matches!(apply(&mut m, data(2, 1, 1, 1)), Err(ProducerStateError::InvalidProducerEpoch { .. })));
        let old = m.check_and_prepare(&[data(2, 1, 1, 1)], AppendContext::replication());
        assert!(matches!(old, Ok(AppendOutcome::Append(_))));
        assert!(matches!(apply(&mut m, data(4, 5, 1, 1)), Err(ProducerStateError::OutOfOrderSequence { .. })));
        apply(&mut m, data(4, 0, 1, 1))?;
        assert_eq!(m.last_entry(PID).map(|e| (e.producer_epoch(), e.batches().count())), Some((4, 1)));
        Ok(())
    }

    /// An unknown producer may start at any sequence (its state may have been expired or
    /// truncated away), as Kafka accepts since KIP-360.
    #[test]
    fn unknown_producer_starts_anywhere() -> TestResult {
        let mut m = manager()?;
        assert!(matches!(apply(&mut m, data(0, 42, 1, 0))?, AppendOutcome::Append(_)));
        Ok(())
    }

    /// Verification guards: a first transactional write needs the current guard; a marker in
    /// between drops it, so a stale guard fails.
    #[test]
    fn transactional_writes_need_verification() -> TestResult {
        let mut m = manager()?;
        let txn_batch = ProducerBatch { kind: BatchKind::TransactionalData, ..data(0, 0, 1, 0) };
        let unverified = m.check_and_prepare(&[txn_batch], AppendContext::client(VerificationGuard::SENTINEL));
        assert!(matches!(unverified, Err(ProducerStateError::InvalidTxnState { .. })));
        let guard = m.maybe_start_txn_verification(PID, 0, 0, false, 0)?;
        assert_ne!(guard, VerificationGuard::SENTINEL);
        assert_eq!(m.maybe_start_txn_verification(PID, 0, 0, false, 0)?, guard);
        let AppendOutcome::Append(append) = m.check_and_prepare(&[txn_batch], AppendContext::client(guard))? else {
            return Err("expected an append".into());
        };
        m.update(append);
        assert_eq!(m.verification_guard(PID), VerificationGuard::SENTINEL);
        assert!(m.has_ongoing_transaction(PID, 0));
        assert_eq!(m.maybe_start_txn_verification(PID, 1, 0, false, 0)?, VerificationGuard::SENTINEL);
        Ok(())
    }
}
