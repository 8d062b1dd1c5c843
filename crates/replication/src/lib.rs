//! Replication: the partitions this node hosts, as leader or follower, and the rules of their
//! offsets (Kafka's `ReplicaManager`, `Partition`, `ReplicaFetcherThread` and produce
//! purgatory).
//!
//! - [`ReplicaManager`] (`manager.rs`): the node's replicas: hosting, partition states from
//!   metadata (leader or follower), appends with `acks`, consumer reads bounded by the high
//!   watermark (or the last stable offset), ISR shrinking, retention and compaction passes,
//!   checkpoints (high watermarks in `replication-offset-checkpoint`).
//!   A replica whose log cannot be opened or created is kept offline with why (KAFKA_STORAGE_ERROR,
//!   Kafka's `HostedPartition.Offline`) until a later state hosts it; `keep_offline` leaves one
//!   unhosted when its log may be in an offline dir; `handle_log_dir_failures` takes the
//!   partitions of a dir a failed sync took offline out of service (fetchers stopped, no new
//!   states, no ISR proposals) and returns the offline dirs for the heartbeat.
//! - `partition/`: one hosted partition: its log, its replica state behind a lock taken before
//!   the log's (a leadership change never lands inside an append), and the progress that parked
//!   produces watch. The leader's rules: becoming leader or follower (`role.rs`), appends,
//!   `min.insync.replicas`, reads and followers' fetches (`serve.rs`), the high watermark as the
//!   lowest log end offset over the (maximal) ISR, ISR expansion and shrinking and AlterPartition
//!   answers (`isr_changes.rs`).
//! - `replica.rs`: that state as plain data and pure transitions ([`ReplicaRole`] for the
//!   outside), tested without I/O.
//! - `leader.rs`: serving followers: [`ReplicaManager::fetch_for_follower`] and the whole-request
//!   [`ReplicaManager::replica_fetch`] the broker's Fetch handler calls for replica fetches.
//! - `follower.rs` and `fetcher.rs`: the follower's fetchers (`num.replica.fetchers` tasks per
//!   leader) over a [`ReplicaTransport`], appending, syncing before the next fetch, truncating
//!   only where the leader reports a diverging epoch.
//! - `isr.rs`: ISR changes through an [`IsrChannel`] to the controller (AlterPartition), one in
//!   flight per partition.
//! - `delayed_produce.rs`: [`DelayedProduce`], an `acks=all` append waiting for the ISR.
//! - `delayed_fetch.rs`: [`DelayedFetch`], the one wait of every Fetch (a consumer's and a
//!   follower's), woken through a [`FetchWatch`] only by changes of the partitions it reads.
//! - `state.rs`, `config.rs`, `error.rs`: [`PartitionState`], [`BrokerStatus`], [`RoleChange`],
//!   [`PartitionStatus`]; [`ReplicationConfig`]; [`ReplicaError`] and its Kafka error codes.
//!
//! Durability (design §6): an `acks=all` append is acknowledged once every ISR member has it on
//! stable storage: the leader syncs before acknowledging (one `Log::flush_to` serves every
//! append before it), and followers sync what they fetched before fetching again, so the offset a
//! follower fetches from is durable on it and the high watermark never passes what some ISR
//! member could lose. `log.flush.on.acks.all=false` turns both syncs off.
//!
//! Invariants: the high watermark never decreases except by truncation; followers never truncate
//! by high watermark alone, only where the leader reports a diverging epoch; consumers read only
//! from leaders (no KIP-392 yet). Tests: `tests/cluster.rs` (three managers over an in-memory
//! transport, every Fetch encoded at v17), `tests/simulation.rs` (seeded, with the real
//! controller decisions, crashes and partitions).
//!
//! What it is not: it decodes no requests but replica Fetch, knows no metadata records (the
//! server turns the image into [`PartitionState`]s and [`BrokerStatus`]es), and opens no sockets
//! (the server implements [`ReplicaTransport`] and [`IsrChannel`]). It reads no wall clock of its
//! own: times come from the [`strand_base::Clock`] it is given or as `now_ms` arguments.

mod config;
mod delayed_fetch;
mod delayed_produce;
mod error;
mod fetcher;
mod follower;
mod isr;
mod leader;
mod manager;
mod partition;
mod replica;
mod state;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use strand_base::{Offset, TopicPartition};
use strand_log::segment::SegmentSlice;

pub use config::ReplicationConfig;
pub use delayed_fetch::{DelayedFetch, FetchWatch};
pub use delayed_produce::DelayedProduce;
pub use error::ReplicaError;
pub use fetcher::{REPLICA_FETCH_VERSION, ReplicaTransport, TransportError};
pub use isr::{AlterPartitionItem, IsrChannel, IsrMember, LeaderAndIsr};
pub use leader::{
    FollowerFetch, FollowerRead, REPLICA_FETCH_WAIT_MS_MAX, failed as failed_fetch_partition, fetch_replica,
    file_records,
};
pub use manager::{ReplicaLinks, ReplicaManager};
pub use partition::Appended;
pub use state::{BrokerStatus, FollowerStatus, PartitionState, PartitionStatus, ReplicaRole, RoleChange};

/// A boxed future, as trait objects need.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How many replicas must have a produce before it is acknowledged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acks {
    /// `acks=0`: no response at all.
    None,
    /// `acks=1`: the leader has it (in its page cache).
    Leader,
    /// `acks=all` (-1): every ISR member has it on stable storage.
    All,
}

impl Acks {
    /// Kafka's wire values; anything else is INVALID_REQUIRED_ACKS.
    pub fn from_wire(acks: i16) -> Option<Acks> {
        match acks {
            0 => Some(Acks::None),
            1 => Some(Acks::Leader),
            -1 => Some(Acks::All),
            _ => None,
        }
    }
}

/// Whether a consumer may see uncommitted transactional records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    ReadUncommitted,
    ReadCommitted,
}

/// How a read treats a first batch larger than its byte limit (KIP-74): a fetch returns the first
/// batch of the first partition with data whole, so that a consumer always progresses, and cuts
/// every later partition at its limit (a client drops a batch cut short), so that the response
/// stays within `fetch.max.bytes` and each `partition_max_bytes` but for that one batch, as
/// Kafka's `ReplicaManager.readFromLog` does with its `minOneMessage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstBatch {
    /// Whole even past the limit: nothing has been read for the request yet.
    Whole,
    /// Cut at the limit like any other bytes; a limit of 0 reads nothing.
    Limited,
}

impl FirstBatch {
    /// `slice` as this rule allows it under `max_bytes` (the log returns its first batch whole);
    /// `None` when nothing is left.
    pub fn apply(self, slice: Option<SegmentSlice>, max_bytes: u64) -> Option<SegmentSlice> {
        let slice = match self {
            FirstBatch::Whole => slice,
            FirstBatch::Limited => slice.map(|s| SegmentSlice { len: s.len.min(max_bytes), ..s }),
        };
        slice.filter(|s| s.len > 0)
    }
}

/// What a read returned for one partition.
#[derive(Debug, Clone)]
pub struct PartitionRead {
    /// Whole batches (the last one possibly cut by the size limit), as stored: where they lie in a
    /// segment file, for the connection to send from the file. `None`: nothing to read.
    pub records: Option<SegmentSlice>,
    pub high_watermark: Offset,
    pub last_stable_offset: Offset,
    pub log_start_offset: Offset,
    /// Aborted transactions overlapping the read (read_committed only).
    pub aborted: Vec<strand_log::index::AbortedTxn>,
}

impl PartitionRead {
    /// The bytes read.
    pub fn len(&self) -> u64 {
        self.records.as_ref().map_or(0, |slice| slice.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What one maintenance pass (retention, compaction) did.
#[derive(Debug)]
pub struct PassReport<T> {
    /// The partitions the pass changed, with what it did to each.
    pub changed: Vec<(TopicPartition, T)>,
    /// Partitions where the pass failed, and why.
    pub failed: Vec<(TopicPartition, ReplicaError)>,
    /// Why the checkpoints could not be written after the changes, if they could not.
    pub checkpoint_failed: Option<ReplicaError>,
}

/// The offsets a ListOffsets answers from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartitionOffsets {
    pub log_start_offset: Offset,
    pub high_watermark: Offset,
    pub last_stable_offset: Offset,
}

/// Shared between the handlers.
pub type SharedReplicaManager = Arc<ReplicaManager>;
