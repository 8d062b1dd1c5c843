//! Serving the CONTROLLER listener: Raft RPCs from the other voters, brokers' requests to this
//! node's controller, and observers' fetches of the committed metadata log. Each connection answers its requests in order, one at a time (a peer
//! keeps one connection per purpose, so Raft traffic never waits behind a controller decision).
//! Anything that is not a Strand request, and any Raft RPC the quorum refuses (another cluster's,
//! one not from another voter, one with a term no Kafka epoch holds, ...: see
//! `strand_metadata::quorum::Quorum::handle_rpc`), closes the connection with one WARN line, at
//! most [`REFUSALS_LOGGED_MAX`] of them per [`REFUSALS_WINDOW`] (the rest are counted).
//!
//! An SSL CONTROLLER listener runs the TLS handshake first (a failure is one line and a closed
//! connection), then admits only the principals of `super.users` when it is set: Kafka's
//! controllers authorize their peers' RPCs as CLUSTER_ACTION on the cluster, which Kafka's
//! brokers and controllers get by being super users. Without `super.users` every peer whose
//! certificate the trust store accepts is admitted, as Kafka does without an authorizer.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Buf, Bytes};
use strand_metadata::quorum::{Quorum, RaftRpc};
use strand_metadata::quorum_controller::{ControllerError, QuorumController};
use strand_protocol::messages::api::ApiKey;
use strand_security::KafkaPrincipal;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tracing::{debug, info, warn};

use super::controller::NOT_CONTROLLER;
use super::peers::{LogBudget, PeerHealth};
use super::wire::{self, RpcKind, RpcRequest};
use crate::connection::acceptor::HANDSHAKE_MAX_DEFAULT;
use crate::connection::{ConnectionLimits, read_frame};
use crate::tls::ListenerTls;

/// Who may reach the CONTROLLER listener.
#[derive(Debug, Clone, Default)]
pub struct ControllerAccess {
    /// The listener's TLS when it is SSL.
    pub tls: Option<ListenerTls>,
    /// `super.users`; empty admits every peer TLS accepted.
    pub super_users: Vec<KafkaPrincipal>,
}

/// How long a metadata fetch waits for something new to be committed before answering empty.
const METADATA_FETCH_WAIT: Duration = Duration::from_millis(500);

/// Accepts peers' connections until aborted; the connections end with it.
pub async fn serve_controller_listener(
    listener: TcpListener,
    quorum: Arc<Quorum>,
    controller: Arc<QuorumController>,
    limits: ConnectionLimits,
    peers: Arc<PeerHealth>,
    access: ControllerAccess,
) {
    let access = Arc::new(access);
    let mut connections = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let node = Node { quorum: quorum.clone(), controller: controller.clone(), peers: peers.clone() };
                    connections.spawn(admit(stream, peer, node, limits, access.clone()));
                }
                Err(e) => {
                    warn!("accept failed on the controller listener: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
}

/// The most connections refused with a WARN line per [`REFUSALS_WINDOW`]; a sender provoking
/// more gets them counted in the next line.
const REFUSALS_LOGGED_MAX: u32 = 10;
const REFUSALS_WINDOW: Duration = Duration::from_secs(30);
static REFUSALS: LogBudget = LogBudget::new(REFUSALS_LOGGED_MAX, REFUSALS_WINDOW);

/// Closes a connection with one WARN line (within [`REFUSALS`]' budget).
fn refuse(peer: SocketAddr, reason: &str) {
    match REFUSALS.take(tokio::time::Instant::now()) {
        Some(0) => warn!(%peer, "closing controller connection: {reason}"),
        Some(left_out) => {
            warn!(%peer, "closing controller connection: {reason} ({left_out} more refused since the last line)");
        }
        None => debug!(%peer, "closing controller connection: {reason}"),
    }
}

/// What a connection's requests reach.
struct Node {
    quorum: Arc<Quorum>,
    controller: Arc<QuorumController>,
    /// A voter whose Raft RPC is let through is there: told to [`PeerHealth`].
    peers: Arc<PeerHealth>,
}

/// Runs an SSL listener's handshake and admission, then serves the connection.
async fn admit(
    stream: TcpStream,
    peer: SocketAddr,
    node: Node,
    limits: ConnectionLimits,
    access: Arc<ControllerAccess>,
) {
    if let Err(e) = stream.set_nodelay(true) {
        debug!(%peer, "could not set TCP_NODELAY: {e}");
    }
    let Some(tls) = &access.tls else { return serve(stream, peer, node, limits).await };
    let handshake_max = limits.request_arrival_max.unwrap_or(HANDSHAKE_MAX_DEFAULT);
    let (stream, session) = match tls.accept(stream, peer, handshake_max).await {
        Ok(accepted) => accepted,
        Err(reason) => return refuse(peer, &reason),
    };
    if !access.super_users.is_empty() && !access.super_users.contains(&session.principal) {
        let reason = format!("{} is not in super.users (CLUSTER_ACTION)", session.principal);
        return refuse(peer, &reason);
    }
    serve(stream, peer, node, limits).await;
}

async fn serve<S: AsyncRead + AsyncWrite + Unpin>(stream: S, peer: SocketAddr, node: Node, limits: ConnectionLimits) {
    let (mut reader, mut writer) = tokio::io::split(stream);
    loop {
        let frame = match read_frame(&mut reader, limits).await {
            Ok(Some(frame)) => frame,
            Ok(None) => return,
            Err(reason) => {
                info!(%peer, "closing controller connection: {reason}");
                return;
            }
        };
        if !wire::is_strand_rpc(&frame) {
            refuse(peer, "only Strand's node-to-node requests are served here");
            return;
        }
        let request = match wire::decode_request(frame) {
            Ok(request) => request,
            Err(reason) => {
                refuse(peer, &reason);
                return;
            }
        };
        let correlation_id = request.correlation_id;
        let (answer, refused) = match answer(request, &node).await {
            Answer::Reply(answer) => (answer, None),
            Answer::Refuse { reply, reason } => (Ok(reply), Some(reason)),
        };
        let reply = match &answer {
            Ok(payload) => wire::encode_reply(correlation_id, Ok(payload)),
            Err(message) => wire::encode_reply(correlation_id, Err(message)),
        };
        let written = match reply {
            Ok(reply) => match writer.write_all(&reply).await {
                // TLS holds a record until flushed.
                Ok(()) => writer.flush().await.map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            },
            Err(e) => Err(e),
        };
        if let Some(reason) = refused {
            refuse(peer, &reason);
            return;
        }
        if let Err(e) = written {
            debug!(%peer, "closing controller connection: {e}");
            return;
        }
    }
}

/// What a request gets.
enum Answer {
    /// The answer, or the error to send back; the connection stays open.
    Reply(Result<Bytes, String>),
    /// A Raft RPC the quorum refused (see `strand_metadata::quorum::Quorum::handle_rpc`), or one
    /// that does not decode: `reply` (the refusal, or empty) goes back, then the connection
    /// closes, with one line.
    Refuse { reply: Bytes, reason: String },
}

async fn answer(request: RpcRequest, node: &Node) -> Answer {
    let (quorum, controller) = (&*node.quorum, &*node.controller);
    match request.kind {
        RpcKind::Raft => {
            let rpc = match RaftRpc::decode(&request.payload) {
                Ok(rpc) => rpc,
                Err(e) => return Answer::Refuse { reply: Bytes::new(), reason: e.to_string() },
            };
            let source = rpc.source();
            let reply = quorum.handle_rpc(rpc).await;
            let encoded = reply.encode().map(Bytes::from).map_err(|e| e.to_string());
            match (reply.refusal(), encoded) {
                (Some(reason), Ok(reply)) => {
                    Answer::Refuse { reply, reason: format!("a raft rpc claiming to be from node {source}: {reason}") }
                }
                (None, encoded) => {
                    node.peers.reached(source);
                    Answer::Reply(encoded)
                }
                (Some(_), Err(e)) => Answer::Reply(Err(e)),
            }
        }
        RpcKind::MetadataFetch => Answer::Reply(metadata_fetch(request.payload, quorum).await),
        RpcKind::Controller => Answer::Reply(controller_request(request.payload, quorum, controller).await),
    }
}

async fn metadata_fetch(mut payload: Bytes, quorum: &Quorum) -> Result<Bytes, String> {
    if payload.len() < 8 {
        return Err("a metadata fetch shorter than its offset".into());
    }
    let from_offset = payload.get_i64();
    let read = quorum.read_committed(from_offset, METADATA_FETCH_WAIT).await.map_err(|e| e.to_string())?;
    let leadership = *quorum.leadership().borrow();
    Ok(wire::encode_metadata_answer(leadership.epoch, leadership.leader_id, &read))
}

async fn controller_request(
    mut payload: Bytes,
    quorum: &Quorum,
    controller: &QuorumController,
) -> Result<Bytes, String> {
    if payload.len() < 4 {
        return Err("a controller request shorter than its api key and version".into());
    }
    let key = payload.get_i16();
    let version = payload.get_i16();
    let api = ApiKey::from_i16(key).ok_or_else(|| format!("unknown api key {key}"))?;
    match controller.handle_encoded(api, version, payload).await {
        Ok((response, offset)) => Ok(wire::encode_controller_answer(offset, &response)),
        Err(ControllerError::NotController { leader_id }) => {
            Err(format!("{NOT_CONTROLLER}: node {} does not lead; leader {leader_id:?}", quorum.node_id()))
        }
        Err(e) => Err(e.to_string()),
    }
}
