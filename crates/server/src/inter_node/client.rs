//! The calling side of node-to-node requests (Strand's own frames, and Kafka requests such as a
//! follower's Fetch): one connection per peer address, reused, one call in flight on it at a time
//! (callers to the same peer queue on its lock), reopened after any failure. Each pool serves one
//! purpose (Raft, controller requests, replica fetches), so a slow controller request never
//! delays a Raft heartbeat.
//!
//! A pool built with a [`ListenerTls`] dials every peer over TLS (the peer's listener is SSL):
//! its trust store, its key store as the client certificate, host name verification per
//! `ssl.endpoint.identification.algorithm`, the handshake within the connect timeout. One built
//! with a [`NodeLogin`] (the listener is SASL) logs in on every new connection (`login`), within
//! the connect timeout too, and replaces a connection whose session is near its end (KIP-368).
//!
//! What it is not: no retries (Raft retries on its own schedule; controller callers decide) and
//! no address book (callers pass the address).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::config::sasl::NodeLogin;

use strand_protocol::frame::{decode_response, encode_request};
use strand_protocol::messages::api::{RequestBody, ResponseBody};

use super::Link;
use super::login::{LoginError, log_in, renew_after};
use super::wire::{self, RpcKind};

/// The client id of this node's requests to other brokers.
const CLIENT_ID: &str = "strand-broker";

/// Why a call brought no answer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CallError {
    /// No connection could be made: the peer is down or not listening yet.
    #[error("cannot connect to {address}: {reason}")]
    Unreachable { address: String, reason: String },
    /// The connection failed midway, timed out, or the reply made no sense.
    #[error("call to {address} failed: {reason}")]
    Failed { address: String, reason: String },
    /// The peer answered with an error.
    #[error("{address} answered: {message}")]
    Refused { address: String, message: String },
    /// The peer refused this node's SASL login: a configuration to fix. Names the mechanism and
    /// the user, never the password.
    #[error("SASL login to {address} with {mechanism} as '{user}' failed: {reason}")]
    Authentication { address: String, mechanism: &'static str, user: String, reason: String },
}

/// A pool of connections to peers, one per address.
#[derive(Debug)]
pub struct NodeClient {
    connections: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<Connection>>>>>,
    /// How long a connection attempt may take.
    connect_timeout: Duration,
    /// The largest reply accepted.
    reply_bytes_max: usize,
    /// The peers' listener's TLS and this node's login there.
    link: Link,
}

/// A connection to a peer: TCP, or TLS over it.
trait PeerStream: AsyncRead + AsyncWrite + Unpin + Send + Sync + std::fmt::Debug {}

impl<T: AsyncRead + AsyncWrite + Unpin + Send + Sync + std::fmt::Debug> PeerStream for T {}

#[derive(Debug)]
struct Connection {
    stream: Box<dyn PeerStream>,
    next_correlation_id: i32,
    /// When its SASL session is near its end and the connection is replaced.
    renew_at: Option<Instant>,
}

impl Connection {
    fn is_renewable(&self) -> bool {
        self.renew_at.is_some_and(|at| at <= Instant::now())
    }
}

impl NodeClient {
    /// A pool dialling plain TCP, or TLS and logging in as `link` says.
    pub fn new(connect_timeout: Duration, reply_bytes_max: usize, link: Link) -> NodeClient {
        NodeClient { connections: Mutex::new(HashMap::new()), connect_timeout, reply_bytes_max, link }
    }

    /// Sends one Strand request to `address` (`host:port`) and waits at most `timeout` for its
    /// answer.
    pub async fn call(
        &self,
        address: &str,
        kind: RpcKind,
        payload: &[u8],
        timeout: Duration,
    ) -> Result<Bytes, CallError> {
        let failed = |reason: String| CallError::Failed { address: address.to_owned(), reason };
        let reply = self
            .exchange(address, timeout, |correlation_id| wire::encode_request(correlation_id, kind, payload))
            .await?;
        let (_, answer) = wire::decode_reply(reply).map_err(failed)?;
        answer.map_err(|message| CallError::Refused { address: address.to_owned(), message })
    }

    /// Sends one Kafka request to `address` (another broker's listener) at `version` and waits at
    /// most `timeout` for its response.
    pub async fn call_kafka(
        &self,
        address: &str,
        body: &RequestBody,
        version: i16,
        timeout: Duration,
    ) -> Result<ResponseBody, CallError> {
        let failed = |reason: String| CallError::Failed { address: address.to_owned(), reason };
        let reply = self
            .exchange(address, timeout, |correlation_id| {
                encode_request(correlation_id, Some(CLIENT_ID), body, version).map_err(|e| e.to_string())
            })
            .await?;
        let (_, response) = decode_response(body.api_key(), version, reply).map_err(|e| failed(e.to_string()))?;
        Ok(response)
    }

    /// Writes the frame `encode` makes for the next correlation id and reads one reply frame.
    /// The connection is out of the pool while the call runs and goes back only after a reply to
    /// this very request (both Kafka's and Strand's replies start with the correlation id): a
    /// failure of any kind, a reply to another request, or a caller that gives up midway (a
    /// dropped future) closes it, so no later call can read an earlier call's reply. A connection
    /// kept from earlier calls may have been closed by the peer meanwhile (a restart, an idle
    /// timeout): if it fails, the call is tried once more on a new one.
    async fn exchange(
        &self,
        address: &str,
        timeout: Duration,
        encode: impl Fn(i32) -> Result<Bytes, String>,
    ) -> Result<Bytes, CallError> {
        let slot = {
            let mut connections = self.connections.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            connections.entry(address.to_owned()).or_default().clone()
        };
        let mut slot = slot.lock().await;
        let failed = |reason: String| CallError::Failed { address: address.to_owned(), reason };
        loop {
            let (mut connection, reused) = match slot.take().filter(|kept| !kept.is_renewable()) {
                Some(kept) => (kept, true),
                None => (self.connect(address).await?, false),
            };
            let correlation_id = connection.next_correlation_id;
            connection.next_correlation_id = correlation_id.wrapping_add(1);
            let request = encode(correlation_id).map_err(failed)?;
            let exchange = async {
                connection.stream.write_all(&request).await.map_err(|e| format!("write: {e}"))?;
                // TLS holds a record until flushed.
                connection.stream.flush().await.map_err(|e| format!("write: {e}"))?;
                read_reply(&mut connection.stream, self.reply_bytes_max).await
            };
            match tokio::time::timeout(timeout, exchange).await {
                Ok(Ok(reply)) => {
                    let answered = reply.get(..4).map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]));
                    if answered != Some(correlation_id) {
                        return Err(failed(format!("answer to request {answered:?}, expected {correlation_id}")));
                    }
                    *slot = Some(connection);
                    return Ok(reply);
                }
                Ok(Err(reason)) if reused => {
                    tracing::debug!("a kept connection to {address} failed ({reason}); trying a new one");
                }
                Ok(Err(reason)) => return Err(failed(reason)),
                Err(_) => return Err(failed(format!("no answer within {} ms", timeout.as_millis()))),
            }
        }
    }

    async fn connect(&self, address: &str) -> Result<Connection, CallError> {
        let unreachable = |reason: String| CallError::Unreachable { address: address.to_owned(), reason };
        #[allow(clippy::disallowed_methods)] // The process shell opens the node's own connections.
        let connecting = TcpStream::connect(address);
        let stream = match tokio::time::timeout(self.connect_timeout, connecting).await {
            Ok(Ok(stream)) => stream,
            Ok(Err(e)) => return Err(unreachable(e.to_string())),
            Err(_) => return Err(unreachable(format!("no connection within {} ms", self.connect_timeout.as_millis()))),
        };
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!("could not set TCP_NODELAY towards {address}: {e}");
        }
        let stream: Box<dyn PeerStream> = match &self.link.tls {
            None => Box::new(stream),
            Some(tls) => {
                let host = address.rsplit_once(':').map_or(address, |(host, _)| host);
                let host = host.trim_start_matches('[').trim_end_matches(']');
                Box::new(tls.connect(stream, host, self.connect_timeout).await.map_err(unreachable)?)
            }
        };
        let mut connection = Connection { stream, next_correlation_id: 0, renew_at: None };
        if let Some(login) = &self.link.login {
            let lifetime = self.log_in(address, login, &mut connection).await?;
            connection.renew_at = lifetime.map(|lifetime| Instant::now() + renew_after(lifetime));
        }
        Ok(connection)
    }

    /// Logs in on a new connection within the connect timeout: the session's lifetime.
    async fn log_in(
        &self,
        address: &str,
        login: &NodeLogin,
        connection: &mut Connection,
    ) -> Result<Option<Duration>, CallError> {
        let logging_in =
            log_in(&mut connection.stream, login, self.reply_bytes_max, &mut connection.next_correlation_id);
        let broken = |reason: String| CallError::Unreachable { address: address.to_owned(), reason };
        match tokio::time::timeout(self.connect_timeout, logging_in).await {
            Ok(Ok(lifetime)) => Ok(lifetime),
            Ok(Err(LoginError::Refused(reason))) => Err(CallError::Authentication {
                address: address.to_owned(),
                mechanism: login.mechanism.name(),
                user: login.user().to_owned(),
                reason,
            }),
            Ok(Err(LoginError::Broken(reason))) => Err(broken(reason)),
            Err(_) => Err(broken(format!("no SASL login within {} ms", self.connect_timeout.as_millis()))),
        }
    }
}

/// Reads one reply frame (without its size prefix), refusing one over `bytes_max`.
pub(super) async fn read_reply<S: AsyncRead + Unpin + ?Sized>(
    stream: &mut S,
    bytes_max: usize,
) -> Result<Bytes, String> {
    let mut prefix = [0u8; 4];
    stream.read_exact(&mut prefix).await.map_err(|e| format!("read: {e}"))?;
    let size = strand_protocol::frame::frame_size(prefix, bytes_max).map_err(|e| e.to_string())?;
    let mut frame = BytesMut::zeroed(size);
    stream.read_exact(&mut frame).await.map_err(|e| format!("read: {e}"))?;
    Ok(frame.freeze())
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use tokio::io::AsyncReadExt;

    use super::*;

    /// A peer that echoes each Strand request's payload, holding back its very first answer.
    #[allow(clippy::disallowed_methods)] // The test's own loopback peer.
    async fn echo_peer(first_delay: Duration) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address").to_string();
        let first = Arc::new(AtomicBool::new(true));
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let first = first.clone();
                tokio::spawn(async move {
                    loop {
                        let mut prefix = [0u8; 4];
                        if stream.read_exact(&mut prefix).await.is_err() {
                            return;
                        }
                        let mut frame = vec![0u8; i32::from_be_bytes(prefix) as usize];
                        if stream.read_exact(&mut frame).await.is_err() {
                            return;
                        }
                        let request = wire::decode_request(Bytes::from(frame)).expect("a strand request");
                        if first.swap(false, Ordering::SeqCst) {
                            tokio::time::sleep(first_delay).await;
                        }
                        let reply = wire::encode_reply(request.correlation_id, Ok(&request.payload)).expect("reply");
                        if stream.write_all(&reply).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        address
    }

    /// A caller that gives up on a call (its future dropped, as openraft drops a late RPC) leaves
    /// no reply behind on the pooled connection: the next call gets its own answer.
    #[tokio::test]
    async fn a_dropped_call_never_leaves_its_reply_for_the_next() {
        let address = echo_peer(Duration::from_millis(300)).await;
        let client = NodeClient::new(Duration::from_secs(5), 1 << 20, Link::default());
        let long = Duration::from_secs(5);
        let dropped =
            tokio::time::timeout(Duration::from_millis(50), client.call(&address, RpcKind::Raft, b"first", long)).await;
        assert!(dropped.is_err(), "the first call was meant to be given up on");
        for payload in [&b"second"[..], b"third"] {
            let answer = client.call(&address, RpcKind::Raft, payload, long).await.expect("answered");
            assert_eq!(&answer[..], payload);
        }
    }

    /// A peer running the client listeners' SASL exchange (PLAIN, `node` / `node-secret`, with
    /// `lifetime` as `connections.max.reauth.ms`) before echoing each Strand request's payload;
    /// it counts its connections.
    #[allow(clippy::disallowed_methods)] // The test's own loopback peer.
    async fn sasl_echo_peer(lifetime: Option<Duration>) -> (String, Arc<std::sync::atomic::AtomicUsize>) {
        use crate::connection::authenticate::{SaslListener, authenticate};
        use crate::connection::{ClientLimits, ConnectionLimits, CopyingSink, MemoryPool};
        use strand_security::sasl::SaslServer;
        use strand_security::sasl::plain::{PlainServer, PlainUsers};
        let users = Arc::new(PlainUsers::from_pairs([("node", "node-secret")]));
        let listener = Arc::new(SaslListener {
            mechanisms: vec!["PLAIN".to_owned()],
            new_server: Arc::new(move |name| {
                (name == "PLAIN").then(|| Box::new(PlainServer::new(users.clone())) as Box<dyn SaslServer>)
            }),
            reauth_max: lifetime.into_iter().map(|max| ("PLAIN".to_owned(), max)).collect(),
            failed_delay: Duration::ZERO,
            receive_bytes_max: 1 << 16,
        });
        let socket = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = socket.local_addr().expect("address").to_string();
        let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = accepted.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = socket.accept().await {
                counted.fetch_add(1, Ordering::SeqCst);
                let listener = listener.clone();
                tokio::spawn(async move {
                    let (mut reader, writer) = tokio::io::split(stream);
                    let mut writer = CopyingSink(writer);
                    let connection =
                        ConnectionLimits { request_bytes_max: 1 << 20, idle_max: None, request_arrival_max: None };
                    let limits = ClientLimits { connection, pipelined_requests_max: 1, pool: MemoryPool::new(None) };
                    let no_versions = |_| async { strand_broker::Outcome::Close("no ApiVersions".into()) };
                    if authenticate(&mut reader, &mut writer, &listener, &limits, no_versions).await.is_err() {
                        return;
                    }
                    let mut stream = reader.unsplit(writer.0);
                    while let Ok(frame) = read_reply(&mut stream, 1 << 20).await {
                        let request = wire::decode_request(frame).expect("a strand request");
                        let reply = wire::encode_reply(request.correlation_id, Ok(&request.payload)).expect("reply");
                        if stream.write_all(&reply).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        (address, accepted)
    }

    fn plain_login(password: &str) -> Link {
        let jaas = format!(
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"node\" password=\"{password}\";"
        );
        let entry = strand_security::sasl::jaas::parse_single(&jaas).expect("jaas");
        let login = NodeLogin::new("CONTROLLER", strand_security::sasl::Mechanism::Plain, entry).expect("login");
        Link { tls: None, login: Some(login) }
    }

    /// A link to a SASL listener logs in before its first request; a wrong password is an
    /// authentication failure naming the mechanism and the user, never the password.
    #[tokio::test]
    async fn a_link_logs_in_and_a_refused_login_names_no_secret() {
        let (address, _) = sasl_echo_peer(None).await;
        let long = Duration::from_secs(5);
        let client = NodeClient::new(long, 1 << 20, plain_login("node-secret"));
        let answer = client.call(&address, RpcKind::Raft, b"after login", long).await.expect("answered");
        assert_eq!(&answer[..], b"after login");

        let refused = NodeClient::new(long, 1 << 20, plain_login("wrong-secret"));
        let error = refused.call(&address, RpcKind::Raft, b"x", long).await.expect_err("refused");
        assert!(matches!(error, CallError::Authentication { mechanism: "PLAIN", .. }), "{error:?}");
        let text = error.to_string();
        assert!(text.contains("'node'") && text.contains("SASL_AUTHENTICATION_FAILED"), "{text}");
        assert!(!text.contains("wrong-secret"), "{text}");
    }

    /// KIP-368: a session the peer bounds is not used past 85% of its lifetime; the next call
    /// goes over a new connection that logs in again, and the peer never sees an expired session.
    #[tokio::test]
    async fn a_link_replaces_its_connection_before_the_session_expires() {
        let lifetime = Duration::from_millis(400);
        let (address, accepted) = sasl_echo_peer(Some(lifetime)).await;
        let long = Duration::from_secs(5);
        let client = NodeClient::new(long, 1 << 20, plain_login("node-secret"));
        client.call(&address, RpcKind::Raft, b"one", long).await.expect("answered");
        client.call(&address, RpcKind::Raft, b"two", long).await.expect("answered");
        assert_eq!(accepted.load(Ordering::SeqCst), 1, "one connection while the session lasts");
        tokio::time::sleep(lifetime * 9 / 10).await;
        client.call(&address, RpcKind::Raft, b"three", long).await.expect("answered");
        assert_eq!(accepted.load(Ordering::SeqCst), 2, "a new connection past 85% of the session");
    }
}
