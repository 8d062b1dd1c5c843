//! The controller quorum: Kafka metadata records committed through Raft (openraft) and stored in
//! the `__cluster_metadata-0` partition by Strand's own [`strand_log::Log`], in Kafka's KRaft
//! layout, so Kafka's `DumpLogSegments --cluster-metadata-decoder` reads it.
//!
//! A quorum is a static set of voters (Kafka's `controller.quorum.voters`), or a dynamic one
//! (KIP-853, `QuorumConfig::dynamic`, or a static one after its `kraft.version` upgrade,
//! `kraft_upgrade`) whose voters change through openraft's membership changes
//! (`voters`); a one-node cluster is a quorum of one, the same code. Every voter stores the whole log, votes, and fsyncs what it
//! appends before acknowledging it; a leader (one per epoch) appends, and a batch commits once a
//! majority of voters has it durably.
//!
//! - [`Quorum`]: open, [`Quorum::append`] records (leader only) and wait for their commit,
//!   [`Quorum::subscribe`] to every committed record from an offset (replay and live alike, on
//!   every voter), [`Quorum::leadership`] (epoch and leader), the high watermark,
//!   [`Quorum::handle_rpc`] for requests from other voters, shutdown.
//! - `config`: [`QuorumConfig`], [`QuorumVoters`] (`id@host:port` parsing), the timeouts' mapping.
//! - `transport`: the [`QuorumTransport`] trait the server implements over its CONTROLLER
//!   listener, the [`RaftRpc`]/[`RaftReply`] messages and their bounded byte encoding, openraft's
//!   network over it; [`LoneVoterTransport`] for a quorum of one.
//! - `admission`: what an RPC from the network must be to reach openraft (another voter, terms
//!   that fit Kafka's epoch, entries and snapshots this voter can apply and start from).
//! - `entry`: one Raft entry ↔ one record batch (metadata records framed as Kafka's
//!   `MetadataRecordSerde`; `LeaderChangeMessage`, `KRaftVersionRecord`, `VotersRecord` control
//!   records); the openraft type configuration.
//! - `log_store`: openraft's log storage over [`strand_log::Log`]; the Raft index ↔ offset table;
//!   appends acknowledged to openraft only once synced.
//! - `quorum_state`: the vote in Kafka's `quorum-state` JSON file, written atomically.
//! - `state_machine`: the image as of the last applied entry, membership, the high watermark;
//!   building and installing snapshots.
//! - `snapshot`: Kafka's `<offset>-<epoch>.checkpoint` snapshot files.
//! - `bootstrap`: `bootstrap.checkpoint`, the records `strand storage format` chose for the
//!   first leader to commit ([`write_bootstrap`], [`read_bootstrap`]).
//! - `subscriber`: the committed-batch feed.
//! - `voters`: a dynamic quorum's voter changes (AddRaftVoter, RemoveRaftVoter).
//! - `kraft_upgrade`: a static quorum made dynamic (`kraft.version` 0 to 1).
//!
//! **Forming a quorum.** Every voter whose log has no membership yet initializes it with the
//! configured voter set: a first entry (index 0, epoch 0) holding `KRaftVersionRecord` and
//! `VotersRecord`. openraft 0.9 documents that initializing several nodes with the *same*
//! membership is safe: each writes the identical entry at the same log id, so the logs agree, and
//! an election then needs a majority as always; a node that has already heard from a candidate
//! or leader is "initialized" and skips it (it then gets the entry by replication). All voters
//! may therefore start at once, in any order, and no voter is special. Different voter sets on
//! different nodes would split the cluster: a voter whose log names other voters than its
//! configuration refuses to open, until the quorum is upgraded to `kraft.version` 1
//! (`kraft_upgrade`): from then on the log's voters rule, as in a dynamic quorum.
//!
//! **Epochs and offsets.** Kafka's leader epoch is openraft's term (`single-term-leader`: at most
//! one leader per term); offsets are Kafka's, a batch per Raft entry (see `log_store`).
//!
//! **Snapshots.** Every voter snapshots its own image as Kafka does (`state_machine`: after
//! `metadata.log.max.record.bytes.between.snapshots` bytes or `metadata.log.max.snapshot.interval.ms`),
//! in Kafka's format (`snapshot`), and then purges the log it holds (`log_store`). A voter whose
//! log starts after the entries a lagging voter needs sends it the snapshot instead; a
//! subscriber or an observer reading from before the log start gets the snapshot as one
//! [`CommittedBatch`] marked `snapshot`, which replaces its image.
//!
//! **Observers** (brokers that are not voters) are not Raft members (design §4): they follow the
//! committed log through [`observe`], which fetches it from voters with [`Quorum::read_committed`]
//! (over a transport the server provides) and feeds the same [`CommittedBatch`]es a voter's
//! subscriber gets. They keep no copy on disk: a restarted observer reads the voters' newest
//! snapshot and the log after it again.
//!
//! What it is not: it decides nothing about the cluster (the controller does), and its image
//! (the state machine's, for snapshots) is not the broker's: the broker replays the records into
//! its own. No openraft type appears in its public API: openraft
//! is pre-1.0 and stays replaceable behind [`Quorum`].
//!
//! openraft runs its own tasks and timers on the tokio runtime, and so does `election`, Strand's
//! election timer (it draws from the thread RNG, design §8); [`Quorum::open`] and [`Quorum::subscribe`] must be called within a
//! tokio runtime. The log reads time through the [`Clock`] it is given (batch timestamps, segment
//! rolls).

mod admission;
mod bootstrap;
mod config;
mod describe;
mod election;
mod entry;
mod kraft_upgrade;
mod log_store;
mod observer;
mod pre_vote;
mod progress;
mod quorum_state;
mod snapshot;
mod snapshot_trigger;
mod state_machine;
mod subscriber;
mod transport;
mod voters;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use openraft::error::{ClientWriteError, InitializeError, RaftError};
use openraft::{Raft, RaftMetrics, ServerState, SnapshotPolicy};
use std::sync::atomic::AtomicU64;
use strand_base::Clock;
use strand_protocol::messages::records::MetadataRecord;
use tokio::sync::{mpsc, watch};

use self::admission::Admission;
pub use self::bootstrap::{
    BOOTSTRAP_FILE, Bootstrap, decode_bootstrap, encode_bootstrap, read_bootstrap, write_bootstrap,
};
pub use self::config::{
    ELECTION_TIMEOUT_MS_DEFAULT, FETCH_TIMEOUT_MS_DEFAULT, QuorumConfig, QuorumVoter, QuorumVoters,
    SNAPSHOT_ENTRIES_KEPT_DEFAULT, SNAPSHOT_INTERVAL_MS_DEFAULT, SNAPSHOT_MAX_BYTES_BETWEEN_DEFAULT, SnapshotSettings,
    VOTERS_MAX,
};
use self::entry::{MetadataFrames, TypeConfig, VoterNode, encode_frame, node_id_to_wire};
use self::log_store::{LogStore, MetadataLog, SharedLog, lock};
pub use self::observer::{MetadataFetch, MetadataFetcher, ObserverError, observe};
pub use self::progress::{OBSERVER_SESSION_TIMEOUT_MS, OBSERVERS_MAX};
use self::snapshot::{MetadataSnapshot, SnapshotId};
use self::state_machine::StateMachine;
pub use self::subscriber::SUBSCRIBER_BATCHES_MAX;
use self::transport::QuorumNetwork;
pub use self::transport::{
    LoneVoterTransport, QuorumTransport, RAFT_RPC_BYTES_MAX, RaftReply, RaftRpc, TransportError, TransportFuture,
};
pub use self::voters::{CurrentVoter, NewVoter, VoterChangeError};

/// The most records one [`Quorum::append`] may hold (Kafka's `MAX_RECORDS_PER_USER_OP`).
pub const APPEND_RECORDS_MAX: usize = 10_000;
/// The most bytes of framed records one [`Quorum::append`] may hold (KRaft's batch size limit).
pub const APPEND_BYTES_MAX: usize = 8 * 1024 * 1024;
/// The most snapshot bytes one InstallSnapshot request carries to a lagging voter.
const SNAPSHOT_CHUNK_BYTES: u64 = 1024 * 1024;
/// How long [`Quorum::open`] waits for a lone voter to lead and apply its log.
pub const OPEN_WAIT_MS_MAX: u64 = 30_000;

/// A batch of metadata records the quorum has committed, as a subscriber receives it.
#[derive(Debug, Clone, PartialEq)]
pub struct CommittedBatch {
    pub base_offset: i64,
    /// The offset of the batch's last record.
    pub last_offset: i64,
    /// The leader epoch (Raft term) it was appended in.
    pub epoch: i32,
    /// When the leader appended it (the batch's max timestamp). The same on every voter for data
    /// batches; a control batch carries the clock of the voter that wrote it.
    pub append_time_ms: i64,
    /// Each record with its version, in offset order.
    pub records: Vec<(MetadataRecord, i16)>,
    /// A snapshot rather than a batch: `records` recreate the whole image as of `last_offset`
    /// from an empty one (the subscriber's image is replaced, not changed), and `base_offset` is 0.
    pub snapshot: bool,
}

/// What [`Quorum::read_committed`] found for an observer.
#[derive(Debug, Clone, PartialEq)]
pub enum CommittedRead {
    /// Whole committed batches as stored (none when nothing was committed in time).
    Batches(Vec<Bytes>),
    /// The log no longer holds the offset asked for: the newest snapshot's file, whose records
    /// hold everything below `end_offset` (the last written in `epoch`).
    Snapshot { end_offset: i64, epoch: i32, bytes: Bytes },
}

impl CommittedRead {
    /// A snapshot's file bytes as the batch a subscriber receives.
    pub fn snapshot_batch(end_offset: i64, epoch: i32, bytes: Bytes) -> Result<CommittedBatch, QuorumError> {
        let snapshot = MetadataSnapshot::decode(SnapshotId { end_offset, epoch }, bytes)?;
        Ok(subscriber::snapshot_batch(snapshot))
    }
}

/// Who leads, as this voter knows it: Kafka's leader epoch (the Raft term, which a candidate
/// raises when it stands) and the leader of that epoch once one is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Leadership {
    pub epoch: i32,
    pub leader_id: Option<i32>,
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
    #[error("invalid controller.quorum.voters: {0}")]
    InvalidVoters(String),
    #[error("node {node_id} is not one of the voters {voters:?} (observers are not supported yet)")]
    NotAVoter { node_id: i32, voters: Vec<i32> },
    #[error("the metadata log's voters are {logged:?}, but node {node_id} is configured with voters {configured:?}")]
    VotersMismatch { node_id: i32, configured: Vec<i32>, logged: Vec<i32> },
    #[error("not the leader (leader: {leader_id:?})")]
    NotLeader { leader_id: Option<i32> },
    #[error("a raft rpc of {bytes} bytes exceeds {RAFT_RPC_BYTES_MAX} bytes")]
    RpcTooLarge { bytes: usize },
    #[error("invalid raft rpc: {0}")]
    InvalidRpc(String),
    #[error(
        "the saved vote is at epoch {epoch}: no epoch a voter accepts follows it, so this voter could never \
         stand for election again (voters refuse epochs of 2^31-1 and up)"
    )]
    EpochsExhausted { epoch: u64 },
    #[error("raft: {0}")]
    Raft(String),
    #[error("the metadata log in {} failed: {reason}", dir.display())]
    Failed { dir: PathBuf, reason: String },
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

/// A running voter of the controller quorum. Cheap to share behind an `Arc`; every method takes
/// `&self`.
pub struct Quorum {
    raft: Raft<TypeConfig>,
    log: SharedLog,
    high_watermark: watch::Receiver<i64>,
    metrics: watch::Receiver<RaftMetrics<u64, VoterNode>>,
    leadership: watch::Receiver<Leadership>,
    /// Why Raft stopped on an error, once it did.
    failure: watch::Receiver<Option<String>>,
    node_id: i32,
    /// Formatted as a dynamic quorum (KIP-853); a static one becomes dynamic by its upgrade
    /// (`Quorum::is_dynamic`).
    formatted_dynamic: bool,
    /// What the voters told this leader of themselves while the quorum is static (`kraft_upgrade`).
    reported: Mutex<kraft_upgrade::ReportedVoters>,
    /// What other voters' RPCs must be to reach Raft.
    admission: Admission,
    /// How long a voter keeps following a leader it no longer hears (the fetch timeout): it
    /// grants no Pre-Vote before.
    leader_silence: Duration,
    clock: Arc<dyn Clock>,
    /// Each replica's fetches as this voter, when it leads, saw them (DescribeQuorum).
    progress: Arc<describe::QuorumProgress>,
    shut_down: AtomicBool,
    /// Strand's election timer (`election`); it holds a handle to Raft, so it is stopped with
    /// the quorum.
    election_timer: tokio::task::JoinHandle<()>,
    /// The snapshot trigger (`snapshot_trigger`), stopped with the quorum too.
    snapshot_trigger: tokio::task::JoinHandle<()>,
}

impl fmt::Debug for Quorum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Quorum")
            .field("node_id", &self.node_id)
            .field("leadership", &*self.leadership.borrow())
            .field("high_watermark", &self.high_watermark())
            .finish_non_exhaustive()
    }
}

impl Quorum {
    /// Opens (or creates) this voter's quorum log in `dir` (the `__cluster_metadata-0`
    /// directory) and starts taking part in the quorum, reaching other voters through
    /// `transport`.
    ///
    /// A voter whose log has no membership yet initializes it with `config.voters` (see the
    /// module doc: safe when every voter does so at once). A lone voter then elects itself and
    /// `open` returns once it leads a new epoch and has committed everything in its log (so
    /// [`Quorum::high_watermark`] covers what was committed before). With other voters, `open`
    /// returns at once: elections and catching up happen as the voters reach each other; watch
    /// [`Quorum::leadership`] and [`Quorum::high_watermark`].
    ///
    /// Refused: a node that is not a voter, and a log whose voters differ from the configured ones
    /// (unless its quorum was upgraded to `kraft.version` 1: then the log's voters rule).
    pub async fn open(
        dir: &Path,
        config: QuorumConfig,
        transport: Arc<dyn QuorumTransport>,
        clock: Arc<dyn Clock>,
    ) -> Result<Quorum, QuorumError> {
        let (voter, members) = membership(&config)?;
        let metadata_log = MetadataLog::open(dir, Arc::clone(&clock))?;
        let logged = metadata_log.voters();
        let saved_term = metadata_log.vote_term().unwrap_or_default();
        // A static quorum upgraded to kraft.version 1 is dynamic: its log's voters rule.
        let log_rules = config.dynamic || metadata_log.kraft_version() >= entry::KRAFT_VERSION;
        // A lone voter stands at every start; others may still follow a leader of the last term.
        // A dynamic quorum's voters are the log's, once it has some.
        let lone = match &logged {
            Some(logged) if log_rules => logged.iter().eq([&voter]),
            _ => config.is_lone_voter(),
        };
        let last_term = if lone { admission::TERM_MAX - 1 } else { admission::TERM_MAX };
        if saved_term > last_term {
            return Err(QuorumError::EpochsExhausted { epoch: saved_term });
        }
        let never_voted = metadata_log.vote_term().is_none();
        if let Some(logged) = &logged
            && !log_rules
            && !logged.iter().eq(members.keys())
        {
            return Err(QuorumError::VotersMismatch {
                node_id: config.node_id,
                configured: config.voters.ids().collect(),
                logged: logged.iter().copied().map(node_id_to_wire).collect(),
            });
        }
        let log: SharedLog = Arc::new(Mutex::new(metadata_log));
        let (high_watermark_tx, high_watermark) = watch::channel(0);
        let bytes_since_snapshot = Arc::new(AtomicU64::new(0));
        let state_machine =
            StateMachine::open(Arc::clone(&log), Arc::new(high_watermark_tx), Arc::clone(&bytes_since_snapshot))?;
        let log_store = LogStore::new(Arc::clone(&log));
        let backoff = Duration::from_millis(config.heartbeat_interval_ms());
        let progress = Arc::new(describe::QuorumProgress::new(Arc::clone(&log), Arc::clone(&clock)));
        let timeouts = config.election_timeouts(never_voted);
        let pre_voter = pre_vote::PreVoter {
            transport: Arc::clone(&transport),
            cluster_id: config.cluster_id.clone(),
            node_id: config.node_id,
            log: Arc::clone(&log),
            timeout: timeouts.election,
        };
        let network = QuorumNetwork::new(transport, &config.cluster_id, config.node_id, backoff, Arc::clone(&progress));
        let raft = Raft::new(voter, raft_config(&config)?, network, log_store, state_machine)
            .await
            .map_err(QuorumError::raft)?;
        let metrics = raft.metrics();
        let (leadership, failure) = leadership_feed(metrics.clone(), Arc::clone(&log));
        let election_timer = election::spawn(raft.clone(), timeouts, pre_voter);
        let snapshot_trigger = snapshot_trigger::spawn(raft.clone(), config.snapshots, bytes_since_snapshot);
        let quorum = Quorum {
            raft,
            log,
            high_watermark,
            metrics,
            leadership,
            failure,
            node_id: config.node_id,
            formatted_dynamic: config.dynamic,
            reported: kraft_upgrade::no_reports(),
            admission: Admission::new(
                &config.cluster_id,
                config.node_id,
                (!config.dynamic).then(|| members.keys().copied().collect()),
            )
            .with_directory_id(config.directory_id.0),
            leader_silence: timeouts.leader_silence,
            clock,
            progress,
            shut_down: AtomicBool::new(false),
            election_timer,
            snapshot_trigger,
        };
        let start = Start { lone, initialized: logged.is_some(), saved_term };
        if let Err(e) = quorum.start(members, start).await {
            // The Raft task runs until told to stop; a failed open must not leave it behind.
            if let Err(shutdown) = quorum.raft.shutdown().await {
                tracing::warn!("stopping the metadata quorum after a failed open: {shutdown}");
            }
            return Err(e);
        }
        tracing::info!(
            "metadata quorum of cluster {}: node {} of voters {:?} (kraft.version {}), {:?}, high watermark {}",
            config.cluster_id,
            config.node_id,
            quorum.current_voters().iter().map(|v| v.id).collect::<Vec<_>>(),
            quorum.kraft_version(),
            *quorum.leadership().borrow(),
            quorum.high_watermark()
        );
        Ok(quorum)
    }

    /// Waits for Raft to have loaded the saved vote (so [`Quorum::leadership`] starts from it),
    /// initializes the membership if the log has none; a lone voter then leads (electing itself
    /// in a new term after a restart) and waits until everything in its log is applied.
    /// A dynamic quorum's node that is not one of the initial voters initializes nothing: it
    /// learns the membership from the leader once it is added.
    async fn start(&self, members: BTreeMap<u64, VoterNode>, start: Start) -> Result<(), QuorumError> {
        let Start { lone, initialized, saved_term } = start;
        let wait = || self.raft.wait(Some(Duration::from_millis(OPEN_WAIT_MS_MAX)));
        let loaded = |m: &RaftMetrics<u64, VoterNode>| m.current_term >= saved_term;
        wait().metrics(loaded, "raft has loaded the saved vote").await.map_err(QuorumError::raft)?;
        let member = u64::try_from(self.node_id).is_ok_and(|id| members.contains_key(&id));
        if !initialized && member {
            match self.raft.initialize(members).await {
                Ok(()) => {}
                // Another voter's candidate or leader reached this one first: the membership
                // comes by replication.
                Err(RaftError::APIError(InitializeError::NotAllowed(_))) if !lone => {}
                Err(RaftError::APIError(InitializeError::NotAllowed(_))) => {
                    return Err(QuorumError::CorruptLog("a vote but no voters in the log".into()));
                }
                Err(e) => return Err(QuorumError::raft(e)),
            }
        } else if lone {
            self.raft.trigger().elect().await.map_err(QuorumError::raft)?;
        }
        if !lone {
            return Ok(());
        }
        let leads_and_applied = |m: &RaftMetrics<u64, VoterNode>| {
            m.state == ServerState::Leader
                && m.last_log_index.is_some()
                && m.last_applied.map(|id| id.index) == m.last_log_index
        };
        wait()
            .metrics(leads_and_applied, "the lone voter leads and has applied its log")
            .await
            .map_err(QuorumError::raft)?;
        Ok(())
    }

    /// Proposes `records` (each with the version to write it at) as one batch; resolves once
    /// they are committed (durable on a majority of voters) and applied here, with the offset of
    /// the last one. The batch is atomic: all of its records commit or none. Only the leader
    /// appends: elsewhere this is [`QuorumError::NotLeader`] with the leader if known (for
    /// Kafka's NOT_CONTROLLER, or to forward). A leader cut off from a majority never commits:
    /// its append waits until it learns of a new leader (then fails) or the caller gives up.
    pub async fn append(&self, records: Vec<(MetadataRecord, i16)>) -> Result<i64, QuorumError> {
        self.submit(records).await?.await
    }

    /// [`Quorum::append`] in two steps: hands the batch to Raft (batches are logged in the order
    /// of the calls that return) and returns what resolves once it is committed and applied. The
    /// controller decides its next request meanwhile.
    pub async fn submit(
        &self,
        records: Vec<(MetadataRecord, i16)>,
    ) -> Result<impl Future<Output = Result<i64, QuorumError>> + Send + 'static, QuorumError> {
        if records.is_empty() {
            return Err(QuorumError::EmptyAppend);
        }
        let frames =
            records.iter().map(|(record, version)| encode_frame(record, *version)).collect::<Result<Vec<_>, _>>()?;
        let bytes = frames.iter().map(Vec::len).sum();
        if records.len() > APPEND_RECORDS_MAX || bytes > APPEND_BYTES_MAX {
            return Err(QuorumError::AppendTooLarge { records: records.len(), bytes });
        }
        let payload = MetadataFrames { append_time_ms: self.clock.now_ms(), frames };
        let committed = self.raft.client_write_ff(payload).await.map_err(QuorumError::raft)?;
        Ok(async move {
            match committed.await {
                Ok(Ok(response)) => Ok(response.data.last_offset),
                Ok(Err(ClientWriteError::ForwardToLeader(forward))) => {
                    Err(QuorumError::NotLeader { leader_id: forward.leader_id.map(node_id_to_wire) })
                }
                Ok(Err(e)) => Err(QuorumError::raft(e)),
                // Raft stopped (shut down or failed) before it answered.
                Err(_) => Err(QuorumError::NotLeader { leader_id: None }),
            }
        })
    }

    /// Every committed metadata record from the batch holding `from_offset` on, batch by
    /// batch, in order: those committed before this quorum opened (a restart replays them),
    /// then each new commit. Control batches (leader changes, voters) come as batches without
    /// records, so the subscriber's position (and its image's offset) moves past them. At most
    /// [`SUBSCRIBER_BATCHES_MAX`] batches wait in the channel; the feed waits for the
    /// subscriber. The channel closes after a shutdown once everything committed was sent, or if
    /// the log cannot be read (logged). Followers' feeds carry the same records at the same
    /// offsets as the leader's.
    pub fn subscribe(&self, from_offset: i64) -> mpsc::Receiver<CommittedBatch> {
        subscriber::spawn(Arc::clone(&self.log), self.high_watermark.clone(), from_offset)
    }

    /// Committed batches for an observer (a broker that is not a voter): whole batches from the
    /// one holding `from_offset`, about a megabyte of them (at least one), none at or past the
    /// high watermark, as stored; waits up to `wait` for one when there is none yet. Empty when
    /// nothing was committed in time. When the log no longer holds `from_offset`, the newest
    /// snapshot instead.
    pub async fn read_committed(&self, from_offset: i64, wait: Duration) -> Result<CommittedRead, QuorumError> {
        let mut high_watermark = self.high_watermark.clone();
        let committed = tokio::time::timeout(wait, high_watermark.wait_for(|hw| *hw > from_offset)).await;
        let Ok(Ok(committed)) = committed.map(|r| r.map(|hw| *hw)) else {
            return Ok(CommittedRead::Batches(Vec::new()));
        };
        let from_offset = from_offset.max(0);
        let snapshot = {
            let log = lock(&self.log);
            let snapshot = log.snapshot().filter(|s| s.id.end_offset > from_offset).map(|s| s.id);
            let batches = if from_offset >= log.log_start_offset() {
                log.read_batches(from_offset, Some(committed))?
            } else {
                Vec::new()
            };
            if !batches.is_empty() {
                return Ok(CommittedRead::Batches(batches.into_iter().map(|b| b.into_bytes()).collect()));
            }
            snapshot.map(|id| (log.dir().join(id.file_name()), id))
        };
        let Some((path, id)) = snapshot else { return Ok(CommittedRead::Batches(Vec::new())) };
        let bytes = std::fs::read(&path).map_err(|e| QuorumError::io(&path, e))?;
        Ok(CommittedRead::Snapshot { end_offset: id.end_offset, epoch: id.epoch, bytes: Bytes::from(bytes) })
    }

    /// Snapshots the metadata log now, whatever the settings say, and waits until the snapshot
    /// covers everything applied when it was asked (at most `timeout`). Returns the snapshot's
    /// end offset: the log is purged below it soon after (see [`Quorum::wait_for_log_start`]).
    pub async fn snapshot(&self, timeout: Duration) -> Result<i64, QuorumError> {
        let applied = self.metrics.borrow().last_applied;
        self.raft.trigger().snapshot().await.map_err(QuorumError::raft)?;
        self.raft
            .wait(Some(timeout))
            .metrics(|m| m.snapshot >= applied, "the snapshot covers what was applied")
            .await
            .map_err(QuorumError::raft)?;
        Ok(lock(&self.log).snapshot().map_or(0, |s| s.id.end_offset))
    }

    /// Waits (at most `timeout`) until this voter has a snapshot ending at `end_offset` or later,
    /// however it came (the trigger, [`Quorum::snapshot`], or one installed from the leader);
    /// returns its end offset.
    pub async fn wait_for_snapshot(&self, end_offset: i64, timeout: Duration) -> Result<i64, QuorumError> {
        let snapshot_end = || lock(&self.log).snapshot().map(|s| s.id.end_offset).filter(|end| *end >= end_offset);
        self.wait_on_metrics(timeout, snapshot_end, || format!("no snapshot to offset {end_offset}")).await
    }

    /// Waits (at most `timeout`) until this voter's log starts at `offset` or later: openraft
    /// purges what a snapshot holds after it is built, and a leader only once no replication
    /// still reads it. Returns the log start offset.
    pub async fn wait_for_log_start(&self, offset: i64, timeout: Duration) -> Result<i64, QuorumError> {
        let start = || Some(self.log_start_offset()).filter(|start| *start >= offset);
        self.wait_on_metrics(timeout, start, || format!("the log did not start at {offset}")).await
    }

    /// Checks `found` now and after every change of Raft's metrics (which follow every apply,
    /// snapshot and purge), for at most `timeout`; `missing` says what did not happen.
    async fn wait_on_metrics<T>(
        &self,
        timeout: Duration,
        found: impl Fn() -> Option<T>,
        missing: impl Fn() -> String,
    ) -> Result<T, QuorumError> {
        let mut metrics = self.metrics.clone();
        let waited = async {
            loop {
                metrics.borrow_and_update();
                if let Some(value) = found() {
                    return Ok(value);
                }
                if metrics.changed().await.is_err() {
                    return Err(QuorumError::Raft("the quorum stopped".into()));
                }
            }
        };
        tokio::time::timeout(timeout, waited)
            .await
            .unwrap_or_else(|_| Err(QuorumError::Raft(format!("{} in {timeout:?}", missing()))))
    }

    /// The first offset this voter's log still holds (later than 0 once a snapshot replaced
    /// what came before).
    pub fn log_start_offset(&self) -> i64 {
        lock(&self.log).log_start_offset()
    }

    /// Answers a Raft request another voter sent through its [`QuorumTransport`] (the server's
    /// CONTROLLER listener calls this). Requests of another cluster, for another node, from a
    /// node that is not another voter, or that no voter of this cluster would send (see
    /// `admission`) are refused in the reply ([`RaftReply::is_refused`]) before Raft sees them.
    pub async fn handle_rpc(&self, rpc: RaftRpc) -> RaftReply {
        let current_voters: std::collections::BTreeSet<u64> = if self.is_dynamic() {
            self.metrics.borrow().membership_config.membership().voter_ids().collect()
        } else {
            std::collections::BTreeSet::new()
        };
        transport::handle(&self.raft, &self.admission, rpc, (&self.log, self.leader_silence), &current_voters).await
    }

    pub fn node_id(&self) -> i32 {
        self.node_id
    }

    pub fn is_leader(&self) -> bool {
        self.metrics.borrow().state == ServerState::Leader
    }

    /// The current leader epoch: the Raft term.
    pub fn leader_epoch(&self) -> i32 {
        // Raft's own metrics, not the leadership feed: the feed's task may not have caught up
        // with them yet (just after `open`, the saved vote is loaded but not yet published).
        i32::try_from(self.metrics.borrow().current_term).unwrap_or(i32::MAX)
    }

    /// The leader of the current epoch, if known.
    pub fn leader_id(&self) -> Option<i32> {
        voting_leader(&self.metrics.borrow())
    }

    /// Epoch and leader now, and each change after (the channel closes after a shutdown).
    pub fn leadership(&self) -> watch::Receiver<Leadership> {
        self.leadership.clone()
    }

    /// On the leader, waits (at most `timeout`) until everything in its log is committed and
    /// applied, so the high watermark it then returns covers every record committed in any
    /// epoch: a decision made on an image that reaches it misses nothing a previous leader
    /// committed. Elsewhere (or if leadership is lost meanwhile) [`QuorumError::NotLeader`].
    pub async fn leader_caught_up(&self, timeout: Duration) -> Result<i64, QuorumError> {
        let not_leader = || QuorumError::NotLeader { leader_id: self.leader_id().filter(|id| *id != self.node_id) };
        let mut metrics = self.metrics.clone();
        let caught_up = async {
            loop {
                {
                    let m = metrics.borrow_and_update();
                    if m.state != ServerState::Leader {
                        return Err(not_leader());
                    }
                    if m.last_applied.map(|id| id.index) == m.last_log_index {
                        return Ok(self.high_watermark());
                    }
                }
                if metrics.changed().await.is_err() {
                    return Err(not_leader());
                }
            }
        };
        tokio::time::timeout(timeout, caught_up).await.unwrap_or_else(|_| Err(not_leader()))
    }

    /// Resolves once this voter can no longer take part in the quorum because its storage
    /// failed (a write or sync of its log, its `quorum-state` or a snapshot, or a read; Raft
    /// stops on any such error): [`QuorumError::Failed`] naming the directory and the first
    /// error. Nothing written after the failure is acknowledged (the log's directory is offline
    /// from then on, so nothing is synced again), and the node must stop (Kafka halts): a restart
    /// recovers the log from what is on disk. Never resolves otherwise, nor after a shutdown.
    pub async fn failed(&self) -> QuorumError {
        let mut failure = self.failure.clone();
        let reason = failure.wait_for(Option::is_some).await.map(|reason| reason.clone().unwrap_or_default());
        match reason {
            Ok(reason) => QuorumError::Failed { dir: lock(&self.log).dir().to_owned(), reason },
            Err(_) => std::future::pending().await,
        }
    }

    /// The offset after the last committed (and applied) batch, as Kafka's high watermark.
    pub fn high_watermark(&self) -> i64 {
        *self.high_watermark.borrow()
    }

    /// Stops Raft, then syncs and closes the log. Later calls do nothing; after it, RPCs are
    /// answered with errors and appends fail.
    pub async fn shutdown(&self) -> Result<(), QuorumError> {
        if self.shut_down.swap(true, Ordering::SeqCst) {
            return Ok(());
        }
        self.election_timer.abort();
        self.snapshot_trigger.abort();
        self.raft.shutdown().await.map_err(QuorumError::raft)?;
        lock(&self.log).close()
    }
}

impl Drop for Quorum {
    fn drop(&mut self) {
        self.election_timer.abort();
        self.snapshot_trigger.abort();
    }
}

/// How [`Quorum::start`] begins: whether this voter is the only one (it elects itself), whether
/// its log has a membership already, and the term of its saved vote.
struct Start {
    lone: bool,
    initialized: bool,
    saved_term: u64,
}

/// This node's Raft id and the initial membership, checked against the config: a static
/// quorum's node must be one of its voters; a dynamic quorum's need not (it waits to be added).
fn membership(config: &QuorumConfig) -> Result<(u64, BTreeMap<u64, VoterNode>), QuorumError> {
    let voter = u64::try_from(config.node_id).map_err(|_| QuorumError::InvalidNodeId(config.node_id))?;
    if !config.dynamic && !config.voters.contains(config.node_id) {
        return Err(QuorumError::NotAVoter { node_id: config.node_id, voters: config.voters.ids().collect() });
    }
    Ok((voter, entry::voter_nodes(&config.voters)?))
}

/// The leader openraft's metrics name, if it is a voter. openraft names the node its committed
/// vote is for, even once that node is no longer a voter: a removed leader, still running, went
/// on naming itself at its last epoch, and observers that asked it followed it and its frozen log
/// instead of the new leader.
fn voting_leader(m: &RaftMetrics<u64, VoterNode>) -> Option<i32> {
    let leader = m.current_leader?;
    m.membership_config.membership().voter_ids().any(|voter| voter == leader).then(|| node_id_to_wire(leader))
}

/// Follows openraft's metrics and publishes the epoch and leader whenever they change; if Raft's
/// core stops on an error, publishes why (the first storage error the log kept, else Raft's own
/// words) as the second channel and says so once, at ERROR, naming the metadata log's directory
/// (openraft's own lines are off by default, see the crate's map). The task ends when Raft stops
/// (its metrics close) or nobody watches any more.
fn leadership_feed(
    mut metrics: watch::Receiver<RaftMetrics<u64, VoterNode>>,
    log: SharedLog,
) -> (watch::Receiver<Leadership>, watch::Receiver<Option<String>>) {
    let leadership_of = |m: &RaftMetrics<u64, VoterNode>| Leadership {
        epoch: i32::try_from(m.current_term).unwrap_or(i32::MAX),
        leader_id: voting_leader(m),
    };
    let (tx, rx) = watch::channel(leadership_of(&metrics.borrow_and_update()));
    let (failure_tx, failure_rx) = watch::channel(None);
    tokio::spawn(async move {
        let mut reported = false;
        loop {
            tokio::select! {
                changed = metrics.changed() => if changed.is_err() { return },
                () = tx.closed() => return,
            }
            let (now, fatal) = {
                let m = metrics.borrow_and_update();
                let fatal = match &m.running_state {
                    Err(openraft::error::Fatal::Stopped) | Ok(()) => None,
                    Err(fatal) => Some(fatal.to_string()),
                };
                (leadership_of(&m), fatal)
            };
            if let Some(fatal) = fatal.filter(|_| !reported) {
                let (dir, reason) = {
                    let log = lock(&log);
                    (log.dir().to_owned(), log.failure().map_or(fatal, str::to_owned))
                };
                tracing::error!(
                    "the metadata log in {} failed: {reason}; this node stops, and recovers the log from what \
                     is on disk when it starts again",
                    dir.display()
                );
                failure_tx.send_replace(Some(reason));
                reported = true;
            }
            tx.send_if_modified(|current| {
                let moved = *current != now;
                *current = now;
                moved
            });
        }
    });
    (rx, failure_rx)
}

/// openraft's settings from Kafka's timeouts (see `config`), its election timer off (see
/// `election`), and its snapshot policy off (`snapshot_trigger` decides).
fn raft_config(config: &QuorumConfig) -> Result<Arc<openraft::Config>, QuorumError> {
    let raft_config = openraft::Config {
        cluster_name: config.cluster_id.clone(),
        election_timeout_min: config.election_timeout_min_ms(),
        election_timeout_max: config.election_timeout_max_ms(),
        heartbeat_interval: config.heartbeat_interval_ms(),
        // Strand's own timer decides when to stand (`election`).
        enable_elect: false,
        snapshot_policy: SnapshotPolicy::Never,
        max_in_snapshot_log_to_keep: config.snapshots.entries_kept,
        // A chunk travels as JSON (up to four bytes per byte): well within `RAFT_RPC_BYTES_MAX`.
        snapshot_max_chunk_size: SNAPSHOT_CHUNK_BYTES,
        ..openraft::Config::default()
    };
    Ok(Arc::new(raft_config.validate().map_err(QuorumError::raft)?))
}
