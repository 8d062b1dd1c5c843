//! The controller quorum: Kafka metadata records committed through Raft (openraft) and stored in
//! the `__cluster_metadata-0` partition by Strand's own [`strand_log::Log`], in Kafka's KRaft
//! layout, so Kafka's `DumpLogSegments --cluster-metadata-decoder` reads it.
//!
//! Today the quorum has one voter, this node, but it is a real Raft quorum from the first day:
//! a vote in `quorum-state`, a membership entry (`VotersRecord`), a leader-change entry per
//! election, commits through openraft. Adding voters later (the cluster issue) changes the
//! membership and the network, not the data.
//!
//! - [`Quorum`]: open (and elect itself), [`Quorum::append`] records and wait for their commit,
//!   [`Quorum::subscribe`] to every committed record from an offset (replay and live alike),
//!   leadership, epoch, high watermark, shutdown.
//! - `entry`: one Raft entry ↔ one record batch (metadata records framed as Kafka's
//!   `MetadataRecordSerde`; `LeaderChangeMessage`, `KRaftVersionRecord`, `VotersRecord` control
//!   records); the openraft type configuration.
//! - `log_store`: openraft's log storage over [`strand_log::Log`]; the Raft index ↔ offset table;
//!   appends acknowledged to openraft only once synced.
//! - `quorum_state`: the vote in Kafka's `quorum-state` JSON file, written atomically.
//! - `state_machine`: last applied entry, membership, the high watermark; snapshots off.
//! - `network`: a lone voter's network, where every RPC is unreachable.
//! - `subscriber`: the committed-batch feed.
//!
//! What it is not: it decides nothing about the cluster (the controller does) and holds no image
//! (the broker replays the records into one). No openraft type appears in its public API: openraft
//! is pre-1.0 and stays replaceable behind [`Quorum`].
//!
//! openraft runs its own tasks and timers on the tokio runtime (its election timer draws from the
//! thread RNG, design §8); [`Quorum::open`] and [`Quorum::subscribe`] must be called within a
//! tokio runtime. The log reads time through the [`Clock`] it is given (batch timestamps, segment
//! rolls).

mod entry;
mod log_store;
mod network;
mod quorum_state;
mod state_machine;
mod subscriber;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use openraft::error::{ClientWriteError, RaftError};
use openraft::{Raft, RaftMetrics, ServerState, SnapshotPolicy};
use strand_base::Clock;
use strand_protocol::messages::records::MetadataRecord;
use tokio::sync::{mpsc, watch};

use self::entry::{MetadataFrames, TypeConfig, VoterNode, encode_frame, node_id_to_wire};
use self::log_store::{LogStore, MetadataLog, SharedLog, lock};
use self::network::LoneVoterNetwork;
use self::state_machine::StateMachine;
pub use self::subscriber::SUBSCRIBER_BATCHES_MAX;

/// The most records one [`Quorum::append`] may hold (Kafka's `MAX_RECORDS_PER_USER_OP`).
pub const APPEND_RECORDS_MAX: usize = 10_000;
/// The most bytes of framed records one [`Quorum::append`] may hold (KRaft's batch size limit).
pub const APPEND_BYTES_MAX: usize = 8 * 1024 * 1024;
/// `controller.quorum.election.timeout.ms`: a follower that hears no leader for this long (plus
/// up to as much again, at random) stands for election. A lone voter elects itself at once.
pub const ELECTION_TIMEOUT_MS: u64 = 1_000;
/// How often a leader heartbeats its followers (none while it is the only voter).
pub const HEARTBEAT_INTERVAL_MS: u64 = 500;
/// How long [`Quorum::open`] waits for the lone voter to lead and apply its log.
pub const OPEN_WAIT_MS_MAX: u64 = 30_000;

/// A batch of metadata records the quorum has committed, as a subscriber receives it.
#[derive(Debug, Clone, PartialEq)]
pub struct CommittedBatch {
    pub base_offset: i64,
    /// The offset of the batch's last record.
    pub last_offset: i64,
    /// The leader epoch (Raft term) it was appended in.
    pub epoch: i32,
    /// When the leader appended it (the batch's max timestamp).
    pub append_time_ms: i64,
    /// Each record with its version, in offset order.
    pub records: Vec<(MetadataRecord, i16)>,
}

/// What can go wrong in the quorum.
#[derive(Debug, thiserror::Error)]
pub enum QuorumError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Log(#[from] strand_log::LogError),
    #[error("corrupt metadata log: {0}")]
    CorruptLog(String),
    #[error("cannot encode: {0}")]
    Encode(String),
    #[error("metadata record type {api_key} has no version {version}")]
    UnsupportedRecordVersion { api_key: i16, version: i16 },
    #[error("an append needs at least one record")]
    EmptyAppend,
    #[error(
        "an append of {records} records in {bytes} bytes exceeds {APPEND_RECORDS_MAX} records or {APPEND_BYTES_MAX} bytes"
    )]
    AppendTooLarge { records: usize, bytes: usize },
    #[error("node id {0} is not a valid voter id")]
    InvalidNodeId(i32),
    #[error("the metadata log's voters are {voters:?}; node {node_id} can only open a quorum it is the lone voter of")]
    NotLoneVoter { node_id: i32, voters: Vec<i32> },
    #[error("not the leader (leader: {leader_id:?})")]
    NotLeader { leader_id: Option<i32> },
    #[error("raft: {0}")]
    Raft(String),
    #[error("not supported yet: {0}")]
    Unsupported(String),
}

impl QuorumError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> QuorumError {
        QuorumError::Io { path: path.to_owned(), source }
    }

    fn raft(error: impl fmt::Display) -> QuorumError {
        QuorumError::Raft(error.to_string())
    }
}

/// A running member of the controller quorum. Cheap to share behind an `Arc`; every method takes
/// `&self` except [`Quorum::shutdown`].
pub struct Quorum {
    raft: Raft<TypeConfig>,
    log: SharedLog,
    high_watermark: watch::Receiver<i64>,
    metrics: watch::Receiver<RaftMetrics<u64, VoterNode>>,
    node_id: i32,
}

impl fmt::Debug for Quorum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Quorum")
            .field("node_id", &self.node_id)
            .field("leader_epoch", &self.leader_epoch())
            .field("high_watermark", &self.high_watermark())
            .finish_non_exhaustive()
    }
}

impl Quorum {
    /// Opens (or creates) the quorum of a lone voter in `dir` (the `__cluster_metadata-0`
    /// directory), and returns once this voter leads a new epoch and has committed everything
    /// in its log (so [`Quorum::high_watermark`] covers what was committed before).
    ///
    /// A fresh directory is initialized with this node as the only voter. A directory whose
    /// voters are others is refused.
    pub async fn open(
        dir: &Path,
        node_id: i32,
        cluster_id: &str,
        clock: Arc<dyn Clock>,
    ) -> Result<Quorum, QuorumError> {
        let voter = u64::try_from(node_id).map_err(|_| QuorumError::InvalidNodeId(node_id))?;
        let metadata_log = MetadataLog::open(dir, clock)?;
        let fresh = metadata_log.is_fresh();
        match metadata_log.voters() {
            None if !fresh => return Err(QuorumError::CorruptLog("a vote but no voters in the log".into())),
            Some(voters) if voters[..] != [voter] => {
                let voters = voters.into_iter().map(node_id_to_wire).collect();
                return Err(QuorumError::NotLoneVoter { node_id, voters });
            }
            _ => {}
        }
        let log: SharedLog = Arc::new(Mutex::new(metadata_log));
        let (high_watermark_tx, high_watermark) = watch::channel(0);
        let state_machine = StateMachine::new(Arc::clone(&log), Arc::new(high_watermark_tx));
        let log_store = LogStore::new(Arc::clone(&log));
        let raft = Raft::new(voter, raft_config(cluster_id)?, LoneVoterNetwork, log_store, state_machine)
            .await
            .map_err(QuorumError::raft)?;
        let metrics = raft.metrics();
        let quorum = Quorum { raft, log, high_watermark, metrics, node_id };
        if let Err(e) = quorum.elect_self(voter, fresh).await {
            // The Raft task runs until told to stop; a failed open must not leave it behind.
            if let Err(shutdown) = quorum.raft.shutdown().await {
                tracing::warn!("stopping the metadata quorum after a failed open: {shutdown}");
            }
            return Err(e);
        }
        tracing::info!(
            "metadata quorum of cluster {cluster_id}: node {node_id} leads epoch {}, high watermark {}",
            quorum.leader_epoch(),
            quorum.high_watermark()
        );
        Ok(quorum)
    }

    /// Makes the lone voter lead: initializes a fresh quorum (which elects at once), or stands
    /// for election in a new term; then waits until everything in the log is applied.
    async fn elect_self(&self, voter: u64, fresh: bool) -> Result<(), QuorumError> {
        if fresh {
            let members = BTreeMap::from([(voter, VoterNode::default())]);
            self.raft.initialize(members).await.map_err(QuorumError::raft)?;
        } else {
            self.raft.trigger().elect().await.map_err(QuorumError::raft)?;
        }
        let leads_and_applied = |m: &RaftMetrics<u64, VoterNode>| {
            m.state == ServerState::Leader
                && m.last_log_index.is_some()
                && m.last_applied.map(|id| id.index) == m.last_log_index
        };
        let wait = self.raft.wait(Some(Duration::from_millis(OPEN_WAIT_MS_MAX)));
        wait.metrics(leads_and_applied, "the lone voter leads and has applied its log")
            .await
            .map_err(QuorumError::raft)?;
        Ok(())
    }

    /// Proposes `records` (each with the version to write it at) as one batch; resolves once
    /// they are committed, durably, and applied, with the offset of the last one. The batch is
    /// atomic: all of its records commit or none.
    pub async fn append(&self, records: Vec<(MetadataRecord, i16)>) -> Result<i64, QuorumError> {
        if records.is_empty() {
            return Err(QuorumError::EmptyAppend);
        }
        let frames =
            records.iter().map(|(record, version)| encode_frame(record, *version)).collect::<Result<Vec<_>, _>>()?;
        let bytes = frames.iter().map(Vec::len).sum();
        if records.len() > APPEND_RECORDS_MAX || bytes > APPEND_BYTES_MAX {
            return Err(QuorumError::AppendTooLarge { records: records.len(), bytes });
        }
        match self.raft.client_write(MetadataFrames(frames)).await {
            Ok(response) => Ok(response.data.last_offset),
            Err(RaftError::APIError(ClientWriteError::ForwardToLeader(forward))) => {
                Err(QuorumError::NotLeader { leader_id: forward.leader_id.map(node_id_to_wire) })
            }
            Err(e) => Err(QuorumError::raft(e)),
        }
    }

    /// Every committed metadata record from the batch holding `from_offset` on, batch by
    /// batch, in order: those committed before this quorum opened (a restart replays them),
    /// then each new commit. Control batches (leader changes, voters) come as batches without
    /// records, so the subscriber's position (and its image's offset) moves past them. At most
    /// [`SUBSCRIBER_BATCHES_MAX`] batches wait in the channel; the feed waits for the
    /// subscriber. The channel closes after a shutdown once everything committed was sent, or if
    /// the log cannot be read (logged).
    pub fn subscribe(&self, from_offset: i64) -> mpsc::Receiver<CommittedBatch> {
        subscriber::spawn(Arc::clone(&self.log), self.high_watermark.clone(), from_offset)
    }

    pub fn is_leader(&self) -> bool {
        self.metrics.borrow().state == ServerState::Leader
    }

    /// The current leader epoch: the Raft term.
    pub fn leader_epoch(&self) -> i32 {
        i32::try_from(self.metrics.borrow().current_term).unwrap_or(i32::MAX)
    }

    /// The offset after the last committed (and applied) batch, as Kafka's high watermark.
    pub fn high_watermark(&self) -> i64 {
        *self.high_watermark.borrow()
    }

    /// Stops Raft, then syncs and closes the log.
    pub async fn shutdown(self) -> Result<(), QuorumError> {
        self.raft.shutdown().await.map_err(QuorumError::raft)?;
        lock(&self.log).close()
    }
}

/// openraft's settings: Kafka's election timeout, randomized up to twice it as Kafka's backoff
/// is, and no snapshots (see `state_machine`).
fn raft_config(cluster_id: &str) -> Result<Arc<openraft::Config>, QuorumError> {
    let config = openraft::Config {
        cluster_name: cluster_id.to_owned(),
        election_timeout_min: ELECTION_TIMEOUT_MS,
        election_timeout_max: 2 * ELECTION_TIMEOUT_MS,
        heartbeat_interval: HEARTBEAT_INTERVAL_MS,
        snapshot_policy: SnapshotPolicy::Never,
        ..openraft::Config::default()
    };
    Ok(Arc::new(config.validate().map_err(QuorumError::raft)?))
}
