//! Serving the CONTROLLER listener: Raft RPCs from the other voters, brokers' requests to this
//! node's controller, and observers' fetches of the committed metadata log; and beside them the
//! Kafka requests a controller serves to admin clients (KIP-919, `strand_broker::controller_apis`).
//! Each connection answers its requests in order, one at a time (a peer
//! keeps one connection per purpose, so Raft traffic never waits behind a controller decision).
//! A frame neither Strand's nor a served Kafka API, and any Raft RPC the quorum refuses (another cluster's,
//! one not from another voter, one with a term no Kafka epoch holds, ...: see
//! `strand_metadata::quorum::Quorum::handle_rpc`), closes the connection with one WARN line, at
//! most [`REFUSALS_LOGGED_MAX`] of them per [`REFUSALS_WINDOW`] (the rest are counted).
//!
//! An SSL or SASL_SSL CONTROLLER listener runs the TLS handshake first, a SASL one then the SASL
//! exchange of client listeners (`connection::authenticate`, Kafka's SaslHandshake and
//! SaslAuthenticate before any other frame but ApiVersions, KIP-368 sessions); a failure of either
//! is one line and a closed connection. With an authorizer, Strand's frames are then served only
//! to a principal (the SASL one on a SASL listener, the certificate's otherwise) it allows
//! CLUSTER_ACTION on the cluster, as Kafka's controllers authorize their peers' RPCs: `super.users`
//! (as Kafka's brokers and controllers usually are) or a principal an ACL grants it, decided when
//! the connection is made; a Strand frame from anyone else closes the connection. Without an
//! authorizer, `super.users` alone decides when set (stricter than Kafka, which ignores it
//! then), and every peer that authenticated is served when not, as Kafka does. Kafka requests are
//! authorized one by one, by the ACLs.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Buf, Bytes};
use strand_broker::Outcome;
use strand_broker::controller_apis::ControllerApis;
use strand_metadata::quorum::{Quorum, RaftRpc};
use strand_metadata::quorum_controller::{ControllerError, QuorumController};
use strand_protocol::frame::ResponseFrame;
use strand_protocol::messages::api::ApiKey;
use strand_security::acl::{AclOperation, Action, Authorizer, CLUSTER_NAME, ResourceType};
use strand_security::{KafkaPrincipal, SecurityProtocol, Session};
use tokio::io::{AsyncRead, AsyncWrite, ReadHalf, WriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tracing::{debug, info, warn};

use super::controller::NOT_CONTROLLER;
use super::peers::{LogBudget, PeerHealth};
use super::wire::{self, RpcKind, RpcRequest};
use crate::connection::acceptor::HANDSHAKE_MAX_DEFAULT;
use crate::connection::authenticate::{CLOSED_DURING_AUTHENTICATION, Gate, SaslListener, SessionAuth, authenticate};
use crate::connection::{ClientLimits, ConnectionLimits, CopyingSink, FrameSink, MemoryPool, read_frame};
use crate::tls::ListenerTls;

/// Who may reach the CONTROLLER listener.
#[derive(Debug, Clone)]
pub struct ControllerAccess {
    /// The listener's TLS when it is SSL or SASL_SSL.
    pub tls: Option<ListenerTls>,
    /// The listener's SASL exchange when it is SASL.
    pub sasl: Option<Arc<SaslListener>>,
    /// `authorizer.class.name`'s authorizer: Strand's frames need CLUSTER_ACTION on the cluster
    /// (which `super.users` have).
    pub authorizer: Option<Arc<dyn Authorizer>>,
    /// `super.users`, which alone decide without an authorizer; empty admits every peer that
    /// authenticated.
    pub super_users: Vec<KafkaPrincipal>,
    /// The listener's name and protocol, for Kafka requests' sessions.
    pub listener_name: String,
    pub protocol: SecurityProtocol,
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
    apis: Arc<ControllerApis>,
) {
    let access = Arc::new(access);
    let mut connections = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let node = Node {
                        quorum: quorum.clone(),
                        controller: controller.clone(),
                        peers: peers.clone(),
                        apis: apis.clone(),
                    };
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
    /// Kafka's requests.
    apis: Arc<ControllerApis>,
}

/// Who is on the other end of a connection, once authenticated.
struct Peer {
    session: Session,
    /// May send Strand's frames (`super.users`, or every peer without it).
    node: bool,
}

/// Runs the listener's TLS handshake and SASL exchange, if any, and admission, then serves the
/// connection.
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
    let Some(tls) = &access.tls else {
        return authenticate_and_serve(stream, KafkaPrincipal::anonymous(), peer, node, limits, &access).await;
    };
    let handshake_max = limits.request_arrival_max.unwrap_or(HANDSHAKE_MAX_DEFAULT);
    match tls.accept(stream, peer, handshake_max).await {
        Ok((stream, session)) => {
            authenticate_and_serve(stream, session.principal, peer, node, limits, &access).await;
        }
        Err(reason) => refuse(peer, &reason),
    }
}

/// A connection's reading half, and its writing half with every frame flushed (TLS).
type Halves<S> = (ReadHalf<S>, CopyingSink<WriteHalf<S>>);

/// Runs the SASL exchange on a SASL listener, then admits `super.users` only (the SASL principal,
/// or `tls_principal` without SASL) and serves.
async fn authenticate_and_serve<S: AsyncRead + AsyncWrite + Unpin + Send>(
    stream: S,
    tls_principal: KafkaPrincipal,
    peer: SocketAddr,
    node: Node,
    limits: ConnectionLimits,
    access: &ControllerAccess,
) {
    let (mut reader, writer) = tokio::io::split(stream);
    let mut writer = CopyingSink(writer);
    let mut session =
        Session { principal: tls_principal, peer, listener: access.listener_name.clone(), protocol: access.protocol };
    let sasl_session = match &access.sasl {
        None => None,
        Some(sasl) => {
            let limits = ClientLimits { connection: limits, pipelined_requests_max: 1, pool: MemoryPool::new(None) };
            // Strand's nodes send no ApiVersions; Kafka clients do, before their SASL handshake.
            let (apis, unauthenticated) = (&node.apis, &session);
            let versions = |frame| apis.handle(frame, unauthenticated);
            match authenticate(&mut reader, &mut writer, sasl, &limits, versions).await {
                Ok(session) => Some(session),
                Err(reason) if reason == CLOSED_DURING_AUTHENTICATION => return debug!(%peer, "{reason}"),
                Err(reason) => return refuse(peer, &reason),
            }
        }
    };
    if let Some(sasl_session) = &sasl_session {
        session.principal = sasl_session.principal().clone();
    }
    let is_node = match &access.authorizer {
        Some(authorizer) => {
            let action = Action::new(AclOperation::ClusterAction, ResourceType::Cluster, CLUSTER_NAME);
            authorizer.authorize(&session, &action)
        }
        None => access.super_users.is_empty() || access.super_users.contains(&session.principal),
    };
    serve((reader, writer), sasl_session, Peer { session, node: is_node }, node, limits).await;
}

async fn serve<S: AsyncRead + AsyncWrite + Unpin + Send>(
    (mut reader, mut writer): Halves<S>,
    mut session: Option<SessionAuth>,
    who: Peer,
    node: Node,
    limits: ConnectionLimits,
) {
    let peer = who.session.peer;
    loop {
        let frame = match read_frame(&mut reader, limits).await {
            Ok(Some(frame)) => frame,
            Ok(None) => return,
            Err(reason) => {
                info!(%peer, "closing controller connection: {reason}");
                return;
            }
        };
        // KIP-368: a re-authentication, or a request after the session expired.
        let gate = session.as_mut().map_or(Gate::Serve, |session| session.gate(&frame));
        let outcome = match gate {
            Gate::Serve => None,
            Gate::Answer(outcome) => Some(outcome),
            Gate::FailAfter(delay, outcome) => {
                tokio::time::sleep(delay).await;
                Some(outcome)
            }
        };
        let goes_on = match outcome {
            Some(outcome) => conclude(&mut writer, outcome, peer).await,
            None if wire::is_strand_rpc(&frame) && !who.node => {
                let principal = &who.session.principal;
                refuse(peer, &format!("{principal} may not CLUSTER_ACTION on the cluster (super.users or an ACL)"));
                false
            }
            None if wire::is_strand_rpc(&frame) => serve_request(frame, &mut writer, peer, &node).await,
            None => {
                let outcome = node.apis.handle(frame, &who.session).await;
                conclude(&mut writer, outcome, peer).await
            }
        };
        if !goes_on {
            return;
        }
    }
}

/// Carries out what the SASL session decided on a frame; whether the connection goes on.
async fn conclude<W: FrameSink>(writer: &mut W, outcome: Outcome, peer: SocketAddr) -> bool {
    match outcome {
        Outcome::Respond(response) => write(writer, &response, peer).await,
        // Nodes' links are never throttled: client quotas do not apply to them.
        Outcome::Throttled(Some(response), _) => write(writer, &response, peer).await,
        Outcome::NoResponse | Outcome::Throttled(None, _) => true,
        Outcome::Close(reason) => {
            refuse(peer, &reason);
            false
        }
        Outcome::RespondAndClose(response, reason) => {
            write(writer, &response, peer).await;
            refuse(peer, &reason);
            false
        }
    }
}

async fn write<W: FrameSink>(writer: &mut W, frame: &ResponseFrame, peer: SocketAddr) -> bool {
    match writer.write_frame(frame).await {
        Ok(()) => true,
        Err(e) => {
            debug!(%peer, "closing controller connection: {e}");
            false
        }
    }
}

/// Answers one Strand request; whether the connection goes on.
async fn serve_request<W: FrameSink>(frame: Bytes, writer: &mut W, peer: SocketAddr, node: &Node) -> bool {
    let request = match wire::decode_request(frame) {
        Ok(request) => request,
        Err(reason) => {
            refuse(peer, &reason);
            return false;
        }
    };
    let correlation_id = request.correlation_id;
    let (answer, refused) = match answer(request, node).await {
        Answer::Reply(answer) => (answer, None),
        Answer::Refuse { reply, reason } => (Ok(reply), Some(reason)),
    };
    let reply = match &answer {
        Ok(payload) => wire::encode_reply(correlation_id, Ok(payload)),
        Err(message) => wire::encode_reply(correlation_id, Err(message)),
    };
    let written = match reply {
        Ok(reply) => write(writer, &ResponseFrame::from(reply), peer).await,
        Err(e) => {
            debug!(%peer, "closing controller connection: {e}");
            false
        }
    };
    if let Some(reason) = refused {
        refuse(peer, &reason);
        return false;
    }
    written
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
    if payload.len() >= 4 + 16 {
        let replica_id = payload.get_i32();
        let mut directory_id = [0; 16];
        payload.copy_to_slice(&mut directory_id);
        quorum.observer_fetched(replica_id, strand_base::Uuid(directory_id), from_offset);
    }
    let read = quorum.read_committed(from_offset, METADATA_FETCH_WAIT).await.map_err(|e| e.to_string())?;
    let leadership = *quorum.leadership().borrow();
    Ok(wire::encode_metadata_answer(leadership.epoch, leadership.leader_id, &read))
}

async fn controller_request(payload: Bytes, quorum: &Quorum, controller: &QuorumController) -> Result<Bytes, String> {
    let (key, version, requester, body) = wire::decode_controller_request(payload)?;
    let api = ApiKey::from_i16(key).ok_or_else(|| format!("unknown api key {key}"))?;
    match controller.handle_forwarded(api, version, body, requester.as_ref()).await {
        Ok((response, offset)) => Ok(wire::encode_controller_answer(offset, &response)),
        Err(ControllerError::NotController { leader_id }) => {
            Err(format!("{NOT_CONTROLLER}: node {} does not lead; leader {leader_id:?}", quorum.node_id()))
        }
        Err(e) => Err(e.to_string()),
    }
}
