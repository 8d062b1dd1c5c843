//! The plain values the modules pass each other and the crate's callers: how many replicas must
//! have a produce ([`Acks`]), what a consumer may see ([`Isolation`]) and from which replica
//! ([`ReadFrom`]), how a read treats its first batch ([`FirstBatch`]), what a read returns ([`PartitionRead`], [`PartitionOffsets`]), a
//! follower's fetch of one partition and its answer ([`FollowerFetch`], [`FollowerRead`]), and
//! what a maintenance pass did ([`PassReport`]).
//!
//! What it is not: it holds no state and does no I/O; every other module may use it, and it uses
//! none of them but `error`.

use std::future::Future;
use std::pin::Pin;

use strand_base::{BrokerId, LeaderEpoch, Offset, TopicPartition};
use strand_log::segment::SegmentSlice;

use crate::error::ReplicaError;

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

/// Which replica may serve a consumer's read (Kafka's `FetchParams.fetchOnlyLeader`): a Fetch
/// from v11 on (which carries the client's rack, KIP-392) may read from an in-sync follower too,
/// up to that follower's high watermark; an older one only from the leader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadFrom {
    Leader,
    /// The leader or a follower.
    AnyReplica,
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
    /// Served by a follower (KIP-392), not the leader.
    pub by_follower: bool,
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

/// One follower's fetch of one partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FollowerFetch {
    pub replica_id: BrokerId,
    /// The follower's broker epoch (`ReplicaState.ReplicaEpoch`, v15+); -1 when not sent.
    pub broker_epoch: i64,
    /// The leader epoch the follower follows; -1 skips the check.
    pub current_leader_epoch: LeaderEpoch,
    pub fetch_offset: Offset,
    /// The epoch of the follower's last batch; -1 skips the divergence check.
    pub last_fetched_epoch: LeaderEpoch,
    pub log_start_offset: Offset,
    /// At most this many bytes (the first batch whole); 0 reads nothing but still records the
    /// fetch (the response's byte budget is spent).
    pub max_bytes: u64,
}

/// What a follower's fetch of one partition returned.
#[derive(Debug, Clone)]
pub struct FollowerRead {
    /// Whole batches from the fetch offset toward the log end; `None`: nothing.
    pub records: Option<SegmentSlice>,
    /// Set when the follower must truncate: the leader's (epoch, end offset) at or below its
    /// last fetched epoch.
    pub diverging_epoch: Option<(LeaderEpoch, Offset)>,
    pub high_watermark: Offset,
    pub last_stable_offset: Offset,
    pub log_start_offset: Offset,
    pub log_end_offset: Offset,
}

impl FollowerRead {
    pub(crate) fn new(
        records: Option<SegmentSlice>,
        diverging_epoch: Option<(LeaderEpoch, Offset)>,
        offsets: PartitionOffsets,
        log_end_offset: Offset,
    ) -> Self {
        FollowerRead {
            records,
            diverging_epoch,
            high_watermark: offsets.high_watermark,
            last_stable_offset: offsets.last_stable_offset,
            log_start_offset: offsets.log_start_offset,
            log_end_offset,
        }
    }

    pub fn len(&self) -> u64 {
        self.records.as_ref().map_or(0, |slice| slice.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
