//! Serving the CONTROLLER listener: Raft RPCs from the other voters, brokers' requests to this
//! node's controller, and observers' fetches of the committed metadata log. Each connection answers its requests in order, one at a time (a peer
//! keeps one connection per purpose, so Raft traffic never waits behind a controller decision).
//! Anything that is not a Strand request closes the connection with a log line.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Buf, Bytes};
use strand_metadata::quorum::{Quorum, RaftRpc};
use strand_metadata::quorum_controller::{ControllerError, QuorumController};
use strand_protocol::messages::api::ApiKey;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tracing::{debug, info, warn};

use super::controller::NOT_CONTROLLER;
use super::wire::{self, RpcKind, RpcRequest};
use crate::connection::{ConnectionLimits, read_frame};

/// How long a metadata fetch waits for something new to be committed before answering empty.
const METADATA_FETCH_WAIT: Duration = Duration::from_millis(500);

/// Accepts peers' connections until aborted; the connections end with it.
pub async fn serve_controller_listener(
    listener: TcpListener,
    quorum: Arc<Quorum>,
    controller: Arc<QuorumController>,
    limits: ConnectionLimits,
) {
    let mut connections = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    connections.spawn(serve(stream, peer, quorum.clone(), controller.clone(), limits));
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

async fn serve(
    stream: TcpStream,
    peer: SocketAddr,
    quorum: Arc<Quorum>,
    controller: Arc<QuorumController>,
    limits: ConnectionLimits,
) {
    if let Err(e) = stream.set_nodelay(true) {
        debug!(%peer, "could not set TCP_NODELAY: {e}");
    }
    let (mut reader, mut writer) = stream.into_split();
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
            warn!(%peer, "closing controller connection: only Strand's node-to-node requests are served here");
            return;
        }
        let request = match wire::decode_request(frame) {
            Ok(request) => request,
            Err(reason) => {
                warn!(%peer, "closing controller connection: {reason}");
                return;
            }
        };
        let correlation_id = request.correlation_id;
        let answer = answer(request, &quorum, &controller).await;
        let reply = match &answer {
            Ok(payload) => wire::encode_reply(correlation_id, Ok(payload)),
            Err(message) => wire::encode_reply(correlation_id, Err(message)),
        };
        let written = match reply {
            Ok(reply) => writer.write_all(&reply).await.map_err(|e| e.to_string()),
            Err(e) => Err(e),
        };
        if let Err(e) = written {
            debug!(%peer, "closing controller connection: {e}");
            return;
        }
    }
}

async fn answer(request: RpcRequest, quorum: &Quorum, controller: &QuorumController) -> Result<Bytes, String> {
    match request.kind {
        RpcKind::Raft => {
            let rpc = RaftRpc::decode(&request.payload).map_err(|e| e.to_string())?;
            let reply = quorum.handle_rpc(rpc).await;
            reply.encode().map(Bytes::from).map_err(|e| e.to_string())
        }
        RpcKind::MetadataFetch => {
            let mut payload = request.payload;
            if payload.len() < 8 {
                return Err("a metadata fetch shorter than its offset".into());
            }
            let from_offset = payload.get_i64();
            let read = quorum.read_committed(from_offset, METADATA_FETCH_WAIT).await.map_err(|e| e.to_string())?;
            let leadership = *quorum.leadership().borrow();
            Ok(wire::encode_metadata_answer(leadership.epoch, leadership.leader_id, &read))
        }
        RpcKind::Controller => {
            let mut payload = request.payload;
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
    }
}
