//! How voters reach each other, without this crate opening a socket: the [`QuorumTransport`]
//! trait (implemented by the server over its CONTROLLER listener, and by tests in process), the
//! messages it carries ([`RaftRpc`] out, [`RaftReply`] back) with their byte encoding, and
//! openraft's network over it.
//!
//! - Outgoing: openraft asks `QuorumNetwork` for a client per voter; each RPC (append entries,
//!   vote, install snapshot) becomes a [`RaftRpc`] handed to [`QuorumTransport::call`].
//! - Incoming: whoever receives a [`RaftRpc`] (the server's listener, decoding it with
//!   [`RaftRpc::decode`]) passes it to [`super::Quorum::handle_rpc`] and sends back the
//!   [`RaftReply`], encoded.
//!
//! **Encoding.** JSON (serde, as openraft's types define it), one message a buffer: the
//! transport frames buffers itself (a size prefix, as Kafka's frames have). Record frames inside
//! entries are hex strings, not JSON arrays of numbers. Decoding refuses anything over
//! [`RAFT_RPC_BYTES_MAX`] before parsing; JSON carries no lengths to trust, so a decoder never
//! allocates more than a small multiple of its input. An append-entries request that would
//! encode larger than the limit is refused locally with a hint to openraft to send fewer
//! entries (one entry is at most [`super::APPEND_BYTES_MAX`] of frames, which fits).
//!
//! **Checks.** Every RPC carries the cluster id and its target's node id; a member refuses RPCs
//! of another cluster (Kafka's INCONSISTENT_CLUSTER_ID) or meant for another node.
//!
//! [`LoneVoterTransport`] is the network of a one-voter quorum: no peers, every call unreachable
//! (openraft never calls it: its lone voter votes for itself and replicates to no one).

use std::collections::BTreeSet;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use openraft::error::{
    InstallSnapshotError, NetworkError, PayloadTooLarge, RPCError, RaftError, RemoteError, SnapshotMismatch,
    Unreachable,
};
use openraft::network::{Backoff, RPCOption};
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, InstallSnapshotResponse, VoteRequest,
    VoteResponse,
};
use openraft::{Raft, RaftNetwork, RaftNetworkFactory, Snapshot, SnapshotSegmentId};
use serde::{Deserialize, Serialize};

use super::QuorumError;
use super::admission::{Admission, SnapshotChunk};
use super::describe::QuorumProgress;
use super::entry::{TypeConfig, VoterNode, node_id_to_wire};
use super::log_store::SharedLog;
use super::state_machine::check_received;

/// The largest encoded [`RaftRpc`] or [`RaftReply`] accepted (and sent).
pub const RAFT_RPC_BYTES_MAX: usize = 32 * 1024 * 1024;

/// The future a [`QuorumTransport::call`] returns.
pub type TransportFuture<'a> = Pin<Box<dyn Future<Output = Result<RaftReply, TransportError>> + Send + 'a>>;

/// Carries Raft RPCs from this voter to another and brings back the reply. Implementations
/// map the target's node id to its CONTROLLER listener address (from their own copy of
/// `controller.quorum.voters`; the log's `VotersRecord` holds the same), send
/// [`RaftRpc::encode`]'s bytes, and decode the answer with [`RaftReply::decode`]. openraft bounds
/// each call with its own timeout (the heartbeat interval for appends, the election timeout for
/// votes) and retries; a call need not retry.
pub trait QuorumTransport: Send + Sync + fmt::Debug + 'static {
    fn call(&self, target: i32, rpc: RaftRpc) -> TransportFuture<'_>;

    /// [`QuorumTransport::call`] with the target's CONTROLLER endpoint as the voter set in the
    /// log names it (a dynamic quorum's voters and learners are known only there).
    fn call_at(&self, target: i32, _endpoint: Option<(&str, u16)>, rpc: RaftRpc) -> TransportFuture<'_> {
        self.call(target, rpc)
    }
}

/// Why a [`QuorumTransport::call`] brought no reply.
#[derive(Debug, Clone, thiserror::Error)]
pub enum TransportError {
    /// The voter cannot be reached (no connection, refused, unknown address): openraft backs off
    /// before trying it again.
    #[error("voter {target} is unreachable: {reason}")]
    Unreachable { target: i32, reason: String },
    /// The call failed midway (connection lost, bad reply): openraft retries at its next turn.
    #[error("rpc to voter {target} failed: {reason}")]
    Failed { target: i32, reason: String },
}

/// A Raft request from one voter to another. Opaque but for its routing fields; built by the
/// quorum, carried by a [`QuorumTransport`], answered by [`super::Quorum::handle_rpc`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RaftRpc {
    cluster_id: String,
    source: i32,
    target: i32,
    /// The metadata log directory id the sender's voter set names for the target (KIP-853's
    /// replica key); all zeros when it names none (a static quorum). A node formatted anew under
    /// the same id (a replaced disk) refuses RPCs meant for its old directory, so a leader never
    /// mistakes its empty log for the old voter's.
    #[serde(default)]
    pub(crate) target_directory_id: [u8; 16],
    body: RpcBody,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) enum RpcBody {
    AppendEntries(AppendEntriesRequest<TypeConfig>),
    Vote(VoteRequest<u64>),
    InstallSnapshot(InstallSnapshotRequest<TypeConfig>),
    /// KIP-996's Pre-Vote (`pre_vote`): the vote the sender would ask for in its next term.
    PreVote(VoteRequest<u64>),
}

/// The answer to a [`RaftRpc`].
#[derive(Debug, Serialize, Deserialize)]
pub struct RaftReply {
    body: ReplyBody,
}

#[derive(Debug, Serialize, Deserialize)]
enum ReplyBody {
    AppendEntries(Result<AppendEntriesResponse<u64>, RaftError<u64>>),
    Vote(Result<VoteResponse<u64>, RaftError<u64>>),
    InstallSnapshot(Result<InstallSnapshotResponse<u64>, RaftError<u64, InstallSnapshotError>>),
    /// Whether the receiver would grant the vote asked in a Pre-Vote.
    PreVote(bool),
    /// Not handled: another cluster's RPC, or one meant for another node.
    Refused(String),
}

impl RaftRpc {
    #[cfg(test)]
    pub(crate) fn new(cluster_id: &str, source: i32, target: i32, body: RpcBody) -> RaftRpc {
        RaftRpc { cluster_id: cluster_id.to_owned(), source, target, target_directory_id: [0; 16], body }
    }

    /// The node id of the voter that sent it.
    pub fn source(&self) -> i32 {
        self.source
    }

    /// The node id of the voter it is for.
    pub fn target(&self) -> i32 {
        self.target
    }

    pub fn cluster_id(&self) -> &str {
        &self.cluster_id
    }

    /// See the field's doc.
    pub(crate) fn target_directory_id(&self) -> [u8; 16] {
        self.target_directory_id
    }

    pub(crate) fn body(&self) -> &RpcBody {
        &self.body
    }

    /// A Pre-Vote from `source` to `target`, whose directory the voter set names
    /// `target_directory_id`.
    pub(crate) fn pre_vote(
        cluster_id: &str,
        source: i32,
        (target, target_directory_id): (i32, [u8; 16]),
        request: VoteRequest<u64>,
    ) -> RaftRpc {
        RaftRpc {
            cluster_id: cluster_id.to_owned(),
            source,
            target,
            target_directory_id,
            body: RpcBody::PreVote(request),
        }
    }

    pub fn encode(&self) -> Result<Vec<u8>, QuorumError> {
        encode(self)
    }

    /// Reads an encoded request, refusing more than [`RAFT_RPC_BYTES_MAX`] bytes.
    pub fn decode(bytes: &[u8]) -> Result<RaftRpc, QuorumError> {
        decode(bytes)
    }
}

impl RaftReply {
    pub fn encode(&self) -> Result<Vec<u8>, QuorumError> {
        encode(self)
    }

    /// Reads an encoded reply, refusing more than [`RAFT_RPC_BYTES_MAX`] bytes.
    pub fn decode(bytes: &[u8]) -> Result<RaftReply, QuorumError> {
        decode(bytes)
    }

    /// Whether this answers a Pre-Vote with a grant.
    pub(crate) fn grants_pre_vote(&self) -> bool {
        matches!(self.body, ReplyBody::PreVote(true))
    }

    /// Whether the receiver refused the request (see [`super::Quorum::handle_rpc`]).
    pub fn is_refused(&self) -> bool {
        matches!(self.body, ReplyBody::Refused(_))
    }

    /// Why the receiver refused the request, if it did.
    pub fn refusal(&self) -> Option<&str> {
        match &self.body {
            ReplyBody::Refused(reason) => Some(reason),
            _ => None,
        }
    }
}

fn encode(message: &impl Serialize) -> Result<Vec<u8>, QuorumError> {
    let bytes = serde_json::to_vec(message).map_err(|e| QuorumError::Encode(e.to_string()))?;
    if bytes.len() > RAFT_RPC_BYTES_MAX {
        return Err(QuorumError::RpcTooLarge { bytes: bytes.len() });
    }
    Ok(bytes)
}

fn decode<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, QuorumError> {
    if bytes.len() > RAFT_RPC_BYTES_MAX {
        return Err(QuorumError::RpcTooLarge { bytes: bytes.len() });
    }
    serde_json::from_slice(bytes).map_err(|e| QuorumError::InvalidRpc(e.to_string()))
}

/// Answers `rpc` through `raft`, after `admission` let it through (see `admission`): anything it
/// refuses is answered [`RaftReply::is_refused`] without openraft seeing it.
/// A Pre-Vote is answered by `pre_vote::answer`, from `log` and `leader_silence`.
pub(crate) async fn handle(
    raft: &Raft<TypeConfig>,
    admission: &Admission,
    rpc: RaftRpc,
    (log, leader_silence): (&SharedLog, Duration),
    current_voters: &BTreeSet<u64>,
) -> RaftReply {
    if let Err(reason) = admission.check(&rpc, current_voters) {
        return RaftReply { body: ReplyBody::Refused(reason) };
    }
    let body = match rpc.body {
        RpcBody::AppendEntries(request) => ReplyBody::AppendEntries(raft.append_entries(request).await),
        RpcBody::Vote(request) => ReplyBody::Vote(raft.vote(request).await),
        RpcBody::InstallSnapshot(request) => match receive_snapshot(raft, admission, request).await {
            Ok(reply) => ReplyBody::InstallSnapshot(reply),
            Err(reason) => ReplyBody::Refused(reason),
        },
        RpcBody::PreVote(request) => {
            ReplyBody::PreVote(super::pre_vote::answer(raft, log, &request, leader_silence).await)
        }
    };
    RaftReply { body }
}

type SnapshotReply = Result<InstallSnapshotResponse<u64>, RaftError<u64, InstallSnapshotError>>;

/// One chunk of a snapshot from the leader: assembled by `admission`, and once complete and
/// valid, installed whole by openraft (which never sees the chunks). A sender with a vote older
/// than this voter's is answered with the newer vote, as openraft answers it.
async fn receive_snapshot(
    raft: &Raft<TypeConfig>,
    admission: &Admission,
    request: InstallSnapshotRequest<TypeConfig>,
) -> Result<SnapshotReply, String> {
    let vote = match raft.with_raft_state(|state| *state.vote_ref()).await {
        Ok(vote) => vote,
        Err(fatal) => return Ok(Err(RaftError::Fatal(fatal))),
    };
    if request.vote < vote {
        return Ok(Ok(InstallSnapshotResponse { vote }));
    }
    let bytes = match admission.receive_chunk(&request)? {
        SnapshotChunk::Partial => return Ok(Ok(InstallSnapshotResponse { vote: request.vote })),
        SnapshotChunk::Mismatch { expected_offset } => {
            let segment = |offset| SnapshotSegmentId { id: request.meta.snapshot_id.clone(), offset };
            let mismatch = SnapshotMismatch { expect: segment(expected_offset), got: segment(request.offset) };
            return Ok(Err(RaftError::APIError(InstallSnapshotError::SnapshotMismatch(mismatch))));
        }
        SnapshotChunk::Complete(bytes) => bytes,
    };
    check_received(&request.meta, bytes.clone()).map_err(|e| e.to_string())?;
    let snapshot = Snapshot { meta: request.meta, snapshot: Box::new(std::io::Cursor::new(bytes.to_vec())) };
    Ok(raft
        .install_full_snapshot(request.vote, snapshot)
        .await
        .map(|response| InstallSnapshotResponse { vote: response.vote })
        .map_err(RaftError::Fatal))
}

/// The transport of a one-voter quorum: there is no one to call.
#[derive(Debug, Default, Clone, Copy)]
pub struct LoneVoterTransport;

impl QuorumTransport for LoneVoterTransport {
    fn call(&self, target: i32, _rpc: RaftRpc) -> TransportFuture<'_> {
        let reason = "a lone voter has no transport to other voters".to_owned();
        Box::pin(std::future::ready(Err(TransportError::Unreachable { target, reason })))
    }
}

/// openraft's network factory over a [`QuorumTransport`].
pub(crate) struct QuorumNetwork {
    transport: Arc<dyn QuorumTransport>,
    cluster_id: String,
    source: i32,
    /// How long openraft waits before calling an unreachable voter again.
    backoff: Duration,
    /// Where followers' acknowledgements are recorded, for DescribeQuorum.
    progress: Arc<QuorumProgress>,
}

impl QuorumNetwork {
    pub(crate) fn new(
        transport: Arc<dyn QuorumTransport>,
        cluster_id: &str,
        source: i32,
        backoff: Duration,
        progress: Arc<QuorumProgress>,
    ) -> Self {
        QuorumNetwork { transport, cluster_id: cluster_id.to_owned(), source, backoff, progress }
    }
}

/// openraft's connection to one voter: the transport and the target.
pub(crate) struct VoterClient {
    transport: Arc<dyn QuorumTransport>,
    cluster_id: String,
    source: i32,
    target: i32,
    /// The target's first endpoint in the membership, if it has one.
    endpoint: Option<(String, u16)>,
    /// The target's directory id in the membership.
    directory_id: [u8; 16],
    backoff: Duration,
    progress: Arc<QuorumProgress>,
}

impl RaftNetworkFactory<TypeConfig> for QuorumNetwork {
    type Network = VoterClient;

    async fn new_client(&mut self, target: u64, node: &VoterNode) -> VoterClient {
        VoterClient {
            endpoint: node.endpoints.first().map(|e| (e.host.clone(), e.port)),
            directory_id: node.directory_id,
            transport: Arc::clone(&self.transport),
            cluster_id: self.cluster_id.clone(),
            source: self.source,
            target: node_id_to_wire(target),
            backoff: self.backoff,
            progress: Arc::clone(&self.progress),
        }
    }
}

/// What went wrong with one call, as openraft's error with the remote error type `E`.
type CallError<E> = RPCError<u64, VoterNode, E>;

impl VoterClient {
    fn rpc(&self, body: RpcBody) -> RaftRpc {
        RaftRpc {
            cluster_id: self.cluster_id.clone(),
            source: self.source,
            target: self.target,
            target_directory_id: self.directory_id,
            body,
        }
    }

    /// Sends `rpc` and returns the reply's body, or the error openraft should see.
    async fn call<E: std::error::Error>(&self, rpc: RaftRpc) -> Result<ReplyBody, CallError<E>> {
        let endpoint = self.endpoint.as_ref().map(|(host, port)| (host.as_str(), *port));
        match self.transport.call_at(self.target, endpoint, rpc).await {
            Ok(RaftReply { body: ReplyBody::Refused(reason) }) => {
                let refused = TransportError::Unreachable { target: self.target, reason };
                Err(RPCError::Unreachable(Unreachable::new(&refused)))
            }
            Ok(reply) => Ok(reply.body),
            Err(e @ TransportError::Unreachable { .. }) => Err(RPCError::Unreachable(Unreachable::new(&e))),
            Err(e @ TransportError::Failed { .. }) => Err(RPCError::Network(NetworkError::new(&e))),
        }
    }

    fn unexpected<E: std::error::Error>(&self, body: &ReplyBody) -> CallError<E> {
        let kind = match body {
            ReplyBody::AppendEntries(_) => "append-entries",
            ReplyBody::Vote(_) => "vote",
            ReplyBody::InstallSnapshot(_) => "install-snapshot",
            ReplyBody::PreVote(_) => "pre-vote",
            ReplyBody::Refused(_) => "refusal",
        };
        let e = TransportError::Failed { target: self.target, reason: format!("unexpected {kind} reply") };
        RPCError::Network(NetworkError::new(&e))
    }

    fn remote<E: std::error::Error>(&self, e: RaftError<u64, E>) -> RPCError<u64, VoterNode, RaftError<u64, E>> {
        RPCError::RemoteError(RemoteError::new(u64::try_from(self.target).unwrap_or_default(), e))
    }
}

impl RaftNetwork<TypeConfig> for VoterClient {
    async fn append_entries(
        &mut self,
        request: AppendEntriesRequest<TypeConfig>,
        _option: RPCOption,
    ) -> Result<AppendEntriesResponse<u64>, CallError<RaftError<u64>>> {
        let entries = request.entries.len() as u64;
        // What the follower holds once it accepts, and what the leader held when it was sent.
        let term = request.vote.leader_id.term;
        let sent_up_to = request.entries.last().map(|entry| entry.log_id).or(request.prev_log_id);
        let leader_end = self.progress.leader_end_offset();
        let rpc = self.rpc(RpcBody::AppendEntries(request));
        if entries > 1 {
            // Cheaper to find out here than to have the receiver refuse it.
            if let Err(QuorumError::RpcTooLarge { .. }) = rpc.encode() {
                return Err(RPCError::PayloadTooLarge(PayloadTooLarge::new_entries_hint(entries / 2)));
            }
        }
        let reply = match self.call(rpc).await? {
            ReplyBody::AppendEntries(reply) => reply.map_err(|e| self.remote(e))?,
            other => return Err(self.unexpected(&other)),
        };
        let matched = match &reply {
            AppendEntriesResponse::Success => Some(sent_up_to),
            AppendEntriesResponse::PartialSuccess(matched) => Some(*matched),
            AppendEntriesResponse::Conflict | AppendEntriesResponse::HigherVote(_) => None,
        };
        if let Some(matched) = matched {
            self.progress.voter_acked(term, self.target, matched.map(|id| id.index), leader_end);
        }
        Ok(reply)
    }

    async fn install_snapshot(
        &mut self,
        request: InstallSnapshotRequest<TypeConfig>,
        _option: RPCOption,
    ) -> Result<InstallSnapshotResponse<u64>, CallError<RaftError<u64, InstallSnapshotError>>> {
        match self.call(self.rpc(RpcBody::InstallSnapshot(request))).await? {
            ReplyBody::InstallSnapshot(reply) => reply.map_err(|e| self.remote(e)),
            other => Err(self.unexpected(&other)),
        }
    }

    async fn vote(
        &mut self,
        request: VoteRequest<u64>,
        _option: RPCOption,
    ) -> Result<VoteResponse<u64>, CallError<RaftError<u64>>> {
        match self.call(self.rpc(RpcBody::Vote(request))).await? {
            ReplyBody::Vote(reply) => reply.map_err(|e| self.remote(e)),
            other => Err(self.unexpected(&other)),
        }
    }

    fn backoff(&self) -> Backoff {
        Backoff::new(std::iter::repeat(self.backoff))
    }
}

#[cfg(test)]
mod tests {
    use openraft::{CommittedLeaderId, Entry, EntryPayload, LogId, Vote};

    use super::*;
    use crate::quorum::entry::MetadataFrames;

    fn append_entries(frames: Vec<Vec<u8>>) -> RaftRpc {
        let entry = Entry {
            log_id: LogId::new(CommittedLeaderId::new(3, 0), 7),
            payload: EntryPayload::Normal(MetadataFrames { append_time_ms: 1_234, frames }),
        };
        let request = AppendEntriesRequest {
            vote: Vote::new_committed(3, 1),
            prev_log_id: Some(LogId::new(CommittedLeaderId::new(2, 0), 6)),
            entries: vec![entry],
            leader_commit: None,
        };
        RaftRpc {
            cluster_id: "c".into(),
            source: 1,
            target: 2,
            target_directory_id: [0; 16],
            body: RpcBody::AppendEntries(request),
        }
    }

    /// Requests and replies survive their encoding, routing fields included.
    #[test]
    fn rpcs_round_trip() {
        let rpc = append_entries(vec![vec![1, 2, 0, 255], vec![]]);
        let bytes = rpc.encode().expect("encodes");
        let decoded = RaftRpc::decode(&bytes).expect("decodes");
        assert_eq!((decoded.source(), decoded.target(), decoded.cluster_id()), (1, 2, "c"));
        assert_eq!(decoded.encode().expect("encodes"), bytes);
        let RpcBody::AppendEntries(request) = decoded.body else { panic!("an append") };
        let RpcBody::AppendEntries(original) = rpc.body else { panic!("an append") };
        assert_eq!(request.entries, original.entries);
        let reply = RaftReply { body: ReplyBody::Vote(Ok(VoteResponse::new(Vote::new(4, 2), None, true))) };
        let decoded = RaftReply::decode(&reply.encode().expect("encodes")).expect("decodes");
        assert!(matches!(decoded.body, ReplyBody::Vote(Ok(VoteResponse { vote_granted: true, .. }))));
    }

    /// Oversized inputs are refused before parsing; garbage and truncations are errors, never
    /// panics.
    #[test]
    fn decoding_is_bounded_and_total() {
        let oversized = vec![b' '; RAFT_RPC_BYTES_MAX + 1];
        assert!(matches!(RaftRpc::decode(&oversized), Err(QuorumError::RpcTooLarge { .. })));
        assert!(matches!(RaftReply::decode(&oversized), Err(QuorumError::RpcTooLarge { .. })));
        let bytes = append_entries(vec![vec![9; 100]]).encode().expect("encodes");
        for cut in 0..bytes.len() {
            assert!(RaftRpc::decode(&bytes[..cut]).is_err(), "a cut at {cut} decodes");
        }
        let deep = "[".repeat(100_000);
        assert!(RaftRpc::decode(deep.as_bytes()).is_err());
        assert!(RaftReply::decode(b"{\"body\":{\"Refused\":7}}").is_err());
    }

    /// An entry too large to encode is refused on the sending side.
    #[test]
    fn oversized_rpcs_are_not_encoded() {
        let rpc = append_entries(vec![vec![0; RAFT_RPC_BYTES_MAX / 2 + 1]]);
        assert!(matches!(rpc.encode(), Err(QuorumError::RpcTooLarge { .. })));
    }
}
