//! One client connection: frames in, frames out, in order, within the node's limits.
//!
//! A frame's size is checked against `socket.request.max.bytes` before anything is read; then the
//! frame's memory is reserved in the node's [`MemoryPool`] (`queued.max.request.bytes`), and the
//! connection reads nothing more until it is; then the body is read, its buffer growing only as
//! its bytes arrive, so a client that declares a large frame and sends little makes the broker
//! hold little. Two clocks close a connection:
//! - **idle** (`connections.max.idle.ms`, per connection, not per read): nothing in flight and no
//!   complete frame read nor response written for that long, which includes waiting that long
//!   for the pool (Kafka's muted connection idles out the same way); negative is never, as in
//!   Kafka. A response the client does not take within it closes the connection too.
//! - **request arrival** (`request.timeout.ms`): a frame must arrive whole within it of its first
//!   byte (its body: of the pool's admission). Kafka has no such bound (a sender trickling a
//!   byte a second into a 100 MiB frame keeps it forever); a client's own `request.timeout.ms`
//!   (30 s, as the broker's) has given up on a request by then. Non-positive is never.
//!
//! Two halves run side by side. The reader handles requests one at a time, in arrival order, so
//! appends from one connection keep their order (idempotent producers depend on it). A request
//! is handled until it is answered or, for an acks=all Produce, appended and waiting for its
//! replicas and its sync ([`Handled::Waiting`]); then the reader goes on to the next request. The
//! writer takes the handled requests in the same order, awaits each one's wait, and writes its
//! response, so responses come back in request order. Kafka instead mutes a connection until its
//! response is sent; reading on lets a producer's pipelined acks=all batches of one partition
//! share one `fdatasync` (group commit) instead of syncing one request at a time. At most
//! `min(queued.max.requests, `[`PIPELINED_REQUESTS_MAX`]`)` requests are read and not yet answered;
//! then the reader stops reading (further requests wait in the socket's buffer). Kafka's
//! `queued.max.requests` bounds the queue between its network and I/O threads; Strand has no such
//! queue (each connection handles its own requests, and a long-polling Fetch waits inside its
//! handler, where Kafka's purgatory would hold it outside the queue), so the per-connection
//! pipeline is the queue it bounds. A frame and its reservation are dropped once handled, so a
//! connection holds one frame being handled and that many responses.
//!
//! Responses are written chunk by chunk ([`write`]): the encoded bytes with `write`, and the record
//! sets of a Fetch from their segment files with `sendfile` on PLAINTEXT, so record bytes never
//! pass through user space; TLS gathers a frame into 64 KiB pieces, each encrypted and written in
//! one go. The pipeline is the same for both: generic over the reading half and the [`FrameSink`].
//!
//! Submodules: [`acceptor`] (the broker listeners' accept loops, TLS handshakes), [`quotas`]
//! (Kafka's `ConnectionQuotas`), [`memory_pool`] (Kafka's `MemoryPool`), [`write`], `activity`.

pub mod acceptor;
mod activity;
pub mod authenticate;
pub mod memory_pool;
pub mod quotas;
pub mod write;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use bytes::Bytes;
use strand_broker::{Broker, Handled, Outcome};
use strand_protocol::frame::{SIZE_PREFIX_BYTES, frame_size};
use strand_security::Session;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::time::Instant;
use tracing::{debug, info, warn};

use crate::config::ServerConfig;
use activity::Activity;
use authenticate::{Gate, SaslListener};
pub use memory_pool::MemoryPool;
use memory_pool::Reservation;
pub use write::{CopyingSink, FrameSink, PlainSink};

/// The most bytes read from the socket in one go while a frame arrives: the buffer grows by at
/// most this much beyond what was actually received.
const READ_CHUNK_BYTES_MAX: usize = 64 * 1024;

/// The most requests of one connection read and not yet answered: being handled, or handled and
/// waiting for the writer or for their replicas. More than a Java producer's
/// `max.in.flight.requests.per.connection` (5), so its acks=all batches all share the syncs.
/// `queued.max.requests` lowers it.
pub const PIPELINED_REQUESTS_MAX: usize = 8;

/// Limits on one connection, the CONTROLLER listener's included.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// `socket.request.max.bytes`.
    pub request_bytes_max: usize,
    /// `connections.max.idle.ms`; `None` (negative) is never.
    pub idle_max: Option<Duration>,
    /// `request.timeout.ms`: how long a frame may take to arrive; `None` (non-positive) is never.
    pub request_arrival_max: Option<Duration>,
}

impl ConnectionLimits {
    pub fn from_config(config: &ServerConfig) -> ConnectionLimits {
        let millis = |ms: i64| u64::try_from(ms).ok().map(Duration::from_millis);
        ConnectionLimits {
            request_bytes_max: usize::try_from(config.socket_request_max_bytes).unwrap_or(0),
            idle_max: millis(config.connections_max_idle_ms),
            request_arrival_max: millis(i64::from(config.request_timeout_ms)).filter(|d| !d.is_zero()),
        }
    }
}

/// What every client connection of a node works within: its own limits, its pipeline's depth,
/// and the node's memory pool.
#[derive(Debug, Clone)]
pub struct ClientLimits {
    pub connection: ConnectionLimits,
    /// `min(queued.max.requests, PIPELINED_REQUESTS_MAX)`, at least 1.
    pub pipelined_requests_max: usize,
    pub pool: Arc<MemoryPool>,
}

impl ClientLimits {
    pub fn from_config(config: &ServerConfig) -> ClientLimits {
        let queued = usize::try_from(config.queued_max_requests).unwrap_or(1);
        ClientLimits {
            connection: ConnectionLimits::from_config(config),
            pipelined_requests_max: queued.clamp(1, PIPELINED_REQUESTS_MAX),
            pool: MemoryPool::from_setting(config.queued_max_request_bytes),
        }
    }
}

/// Serves one PLAINTEXT connection until the client closes it, it idles out, or it sends
/// something the broker cannot answer; on a SASL listener (`sasl`), once it authenticated.
pub async fn serve(
    stream: TcpStream,
    session: Session,
    broker: Arc<Broker>,
    limits: ClientLimits,
    sasl: Option<Arc<SaslListener>>,
) {
    set_nodelay(&stream, session.peer);
    let (reader, writer) = stream.into_split();
    serve_halves(reader, PlainSink(writer), session, broker, limits, sasl).await;
}

/// Serves one TLS connection whose handshake settled `session`, as [`serve`].
pub async fn serve_tls(
    stream: crate::tls::ServerStream,
    session: Session,
    broker: Arc<Broker>,
    limits: ClientLimits,
    sasl: Option<Arc<SaslListener>>,
) {
    let (reader, writer) = tokio::io::split(stream);
    serve_halves(reader, CopyingSink(writer), session, broker, limits, sasl).await;
}

/// Kafka disables Nagle too: a response's small chunks must not wait for the client's ACK.
pub(crate) fn set_nodelay(stream: &TcpStream, peer: SocketAddr) {
    if let Err(e) = stream.set_nodelay(true) {
        debug!(%peer, "could not set TCP_NODELAY: {e}");
    }
}

/// Serves a connection's requests; on a SASL listener it first authenticates
/// ([`authenticate`]) and its session takes the principal it proved, which every request then
/// carries, re-authentication and expiry checked before each ([`Gate`]).
async fn serve_halves<R, W>(
    mut reader: R,
    mut writer: W,
    mut session: Session,
    broker: Arc<Broker>,
    limits: ClientLimits,
    sasl: Option<Arc<SaslListener>>,
) where
    R: AsyncRead + Unpin,
    W: FrameSink,
{
    let peer = session.peer;
    let auth = match sasl {
        Some(listener) => {
            let api_versions = |frame| {
                let (broker, session) = (Arc::clone(&broker), session.clone());
                async move { broker.handle(frame, &session).await }
            };
            match authenticate::authenticate(&mut reader, &mut writer, &listener, &limits, api_versions).await {
                Ok(auth) => {
                    session.principal = auth.principal().clone();
                    Some(Mutex::new(auth))
                }
                Err(reason) if reason == authenticate::CLOSED_DURING_AUTHENTICATION => {
                    debug!(%peer, listener = %session.listener, "{reason}");
                    return;
                }
                Err(reason) => {
                    info!(%peer, listener = %session.listener, "closing connection: {reason}");
                    return;
                }
            }
        }
        None => None,
    };
    let (session, auth) = (&session, auth.as_ref());
    let handle = |frame: Bytes| {
        let broker = Arc::clone(&broker);
        async move {
            let gate =
                auth.map_or(Gate::Serve, |auth| auth.lock().unwrap_or_else(PoisonError::into_inner).gate(&frame));
            match gate {
                Gate::Serve => broker.handle_pipelined(frame, session).await,
                Gate::Answer(outcome) => Handled::Done(outcome),
                Gate::FailAfter(delay, outcome) => {
                    tokio::time::sleep(delay).await;
                    Handled::Done(outcome)
                }
            }
        }
    };
    pipeline(reader, writer, peer, limits, handle).await;
}

/// A handled request on its way to the writer, with its place in the pipeline.
type Answer = (Handled, OwnedSemaphorePermit);

/// Runs the reader and the writer (see the module doc) until both are done: the reader stops at
/// the client's end of stream, a bad frame, a request that closes the connection, a writer that
/// stopped, or a clock; the writer stops after the last response or at the first failed write or
/// close.
async fn pipeline<R, W, H, F>(reader: R, writer: W, peer: SocketAddr, limits: ClientLimits, handle: H)
where
    R: AsyncRead + Unpin,
    W: FrameSink,
    H: FnMut(Bytes) -> F,
    F: Future<Output = Handled>,
{
    let (handled, answers) = mpsc::channel(limits.pipelined_requests_max);
    let activity = Activity::new();
    tokio::join!(
        read_requests(reader, peer, &limits, &activity, handle, handled),
        write_responses(writer, peer, limits.connection.idle_max, &activity, answers)
    );
}

/// Reads and handles requests in order, passing each to the writer.
async fn read_requests<R, H, F>(
    mut reader: R,
    peer: SocketAddr,
    limits: &ClientLimits,
    activity: &Activity,
    mut handle: H,
    handled: mpsc::Sender<Answer>,
) where
    R: AsyncRead + Unpin,
    H: FnMut(Bytes) -> F,
    F: Future<Output = Handled>,
{
    let places = Arc::new(Semaphore::new(limits.pipelined_requests_max));
    loop {
        activity.unmuted().await;
        let (place, read) = tokio::select! {
            // The writer stopped: nothing read from now on would be answered.
            () = handled.closed() => return,
            read = next_request(&mut reader, limits, activity, &places) => read,
        };
        let (frame, reservation) = match read {
            Ok(Some(request)) => request,
            Ok(None) => {
                debug!(%peer, "connection closed by the client");
                return;
            }
            Err(reason) => {
                info!(%peer, "closing connection: {reason}");
                return;
            }
        };
        // A mute may have begun while the frame arrived (a waited answer's throttle).
        activity.unmuted().await;
        let request = handle(frame).await;
        drop(reservation);
        let closes = matches!(request, Handled::Done(Outcome::Close(_) | Outcome::RespondAndClose(..)));
        activity.mute_after(&request);
        activity.unanswered.fetch_add(1, Ordering::AcqRel);
        if handled.send((request, place)).await.is_err() || closes {
            return;
        }
    }
}

/// Waits for a place in the pipeline, then reads the next request into it.
async fn next_request<R: AsyncRead + Unpin>(
    reader: &mut R,
    limits: &ClientLimits,
    activity: &Activity,
    places: &Arc<Semaphore>,
) -> (OwnedSemaphorePermit, Result<Option<(Bytes, Reservation)>, String>) {
    // The semaphore is never closed.
    #[allow(clippy::expect_used)]
    let place = Arc::clone(places).acquire_owned().await.expect("the pipeline's places are never closed");
    let read = read_request(reader, &limits.connection, &limits.pool, activity).await;
    (place, read)
}

/// Answers the handled requests in order, each once its wait (if any) is over.
async fn write_responses<W: FrameSink>(
    mut writer: W,
    peer: SocketAddr,
    idle_max: Option<Duration>,
    activity: &Activity,
    mut handled: mpsc::Receiver<Answer>,
) {
    while let Some((request, place)) = handled.recv().await {
        let outcome = match request {
            Handled::Done(outcome) => outcome,
            Handled::Waiting(wait) => wait.await,
        };
        let response = match outcome {
            Outcome::Respond(response) => Some(response),
            Outcome::NoResponse => None,
            Outcome::Throttled(response, throttle) => {
                // An acks=all Produce's throttle reaches the writer alone: the mute starts here.
                activity.mute(throttle);
                response
            }
            Outcome::Close(reason) => {
                warn!(%peer, "closing connection: {reason}");
                return;
            }
            Outcome::RespondAndClose(response, reason) => {
                // The connection closes either way: a failed write changes nothing.
                let _ = within(idle_max, writer.write_frame(&response)).await;
                warn!(%peer, "closing connection: {reason}");
                return;
            }
        };
        if let Some(response) = response {
            match within(idle_max, writer.write_frame(&response)).await {
                Some(Ok(())) => {}
                Some(Err(e)) => {
                    debug!(%peer, "closing connection: write failed: {e}");
                    return;
                }
                None => {
                    info!(%peer, "closing connection: the client took no response for connections.max.idle.ms");
                    return;
                }
            }
        }
        activity.touch();
        activity.unanswered.fetch_sub(1, Ordering::AcqRel);
        drop(place);
    }
}

/// `work`, or `None` if it does not finish within `limit` (`None`: no limit).
async fn within<T>(limit: Option<Duration>, work: impl Future<Output = T>) -> Option<T> {
    match limit {
        Some(limit) => tokio::time::timeout(limit, work).await.ok(),
        None => Some(work.await),
    }
}

/// `work`, or `None` if it does not finish by `deadline` (`None`: no deadline).
async fn by<T>(deadline: Option<Instant>, work: impl Future<Output = T>) -> Option<T> {
    match deadline {
        Some(deadline) => tokio::time::timeout_at(deadline, work).await.ok(),
        None => Some(work.await),
    }
}

/// Reads one frame (without its size prefix) on the CONTROLLER listener: no memory pool, the
/// idle clock counted from the call. `None` when the peer closed the connection between frames.
pub(crate) async fn read_frame<R: AsyncRead + Unpin>(
    reader: &mut R,
    limits: ConnectionLimits,
) -> Result<Option<Bytes>, String> {
    let unbounded = MemoryPool::new(None);
    let read = read_request(reader, &limits, &unbounded, &Activity::new()).await?;
    Ok(read.map(|(frame, _)| frame))
}

/// Reads one request frame (without its size prefix) and its reservation in `pool`, within the
/// clocks of the module doc. `None` when the client closed the connection between frames.
async fn read_request<R: AsyncRead + Unpin>(
    reader: &mut R,
    limits: &ConnectionLimits,
    pool: &Arc<MemoryPool>,
    activity: &Activity,
) -> Result<Option<(Bytes, Reservation)>, String> {
    let Some(size) = read_size(reader, limits, activity).await? else {
        return Ok(None);
    };
    // The API key (the body's first two bytes) decides what decoding may allocate beside it.
    let mut api_key = [0u8; 2];
    let keyed = size >= api_key.len();
    let key_started = Instant::now();
    if keyed {
        let deadline = limits.request_arrival_max.map(|limit| key_started + limit);
        match by(deadline, reader.read_exact(&mut api_key)).await {
            None => return Err(arrival_error(limits.request_arrival_max, 0, size)),
            Some(Err(e)) => return Err(format!("frame cut short before its api key: {e}")),
            Some(Ok(_)) => {}
        }
    }
    let key_took = key_started.elapsed();
    let reserved = match keyed {
        true => MemoryPool::request_reservation_bytes(i16::from_be_bytes(api_key), size),
        false => MemoryPool::reservation_bytes(size),
    };
    let reservation = tokio::select! {
        reservation = pool.reserve(reserved) => reservation,
        idle = activity.idle(limits.idle_max) => {
            return Err(format!(
                "a frame of {size} bytes waited {} ms for request memory (connections.max.idle.ms; \
                 queued.max.request.bytes)",
                idle.as_millis()
            ));
        }
    };
    // The arrival clock counts the time spent reading bytes, the API key's included, not the
    // wait for the pool (the idle clock bounds that).
    let started = if keyed { &api_key[..] } else { &[] };
    let frame = read_body(reader, size, started, limits.request_arrival_max, key_took).await?;
    activity.touch();
    Ok(Some((frame, reservation)))
}

/// Reads a frame's size prefix: idle until its first byte, then the rest within the arrival
/// bound; checked against `socket.request.max.bytes`.
async fn read_size<R: AsyncRead + Unpin>(
    reader: &mut R,
    limits: &ConnectionLimits,
    activity: &Activity,
) -> Result<Option<usize>, String> {
    let mut prefix = [0u8; SIZE_PREFIX_BYTES];
    // `read` is cancel safe: when the idle clock wins, nothing was read.
    let first = tokio::select! {
        read = reader.read(&mut prefix) => read,
        idle = activity.idle(limits.idle_max) => {
            return Err(format!("idle for {} ms (connections.max.idle.ms)", idle.as_millis()));
        }
    };
    let mut filled = match first {
        Ok(0) => return Ok(None),
        // A TLS client that closes its socket without close_notify, between frames: a close.
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Ok(read) => read,
        Err(e) => return Err(format!("read failed: {e}")),
    };
    let deadline = limits.request_arrival_max.map(|limit| Instant::now() + limit);
    while filled < SIZE_PREFIX_BYTES {
        match by(deadline, reader.read(&mut prefix[filled..])).await {
            None => return Err(arrival_error(limits.request_arrival_max, filled, SIZE_PREFIX_BYTES)),
            Some(Ok(0)) => return Err(format!("frame cut short: {filled} of {SIZE_PREFIX_BYTES} size bytes")),
            Some(Ok(read)) => filled += read,
            Some(Err(e)) => return Err(format!("read failed: {e}")),
        }
    }
    activity.touch();
    frame_size(prefix, limits.request_bytes_max).map(Some).map_err(|e| e.to_string())
}

/// Reads the rest of a frame's body of `size` bytes, of which `started` came already in `spent`,
/// within `arrival_max` in all, growing its buffer only as bytes arrive and never past `size`.
async fn read_body<R: AsyncRead + Unpin>(
    reader: &mut R,
    size: usize,
    started: &[u8],
    arrival_max: Option<Duration>,
    spent: Duration,
) -> Result<Bytes, String> {
    let deadline = arrival_max.map(|limit| Instant::now() + limit.saturating_sub(spent));
    let mut frame: Vec<u8> = started.to_vec();
    while frame.len() < size {
        let want = (size - frame.len()).min(READ_CHUNK_BYTES_MAX);
        if frame.capacity() - frame.len() < want {
            // Doubling, as a `Vec` would, but exact and capped at the frame's size.
            let target = frame.capacity().saturating_mul(2).max(frame.len() + want).min(size);
            frame.reserve_exact(target - frame.len());
        }
        let read = by(deadline, (&mut *reader).take(want as u64).read_buf(&mut frame)).await;
        match read {
            None => return Err(arrival_error(arrival_max, frame.len(), size)),
            Some(Err(e)) => return Err(format!("read failed: {e}")),
            Some(Ok(0)) => return Err(format!("frame cut short: {} of {size} bytes", frame.len())),
            Some(Ok(_)) => {}
        }
    }
    Ok(Bytes::from(frame))
}

fn arrival_error(arrival_max: Option<Duration>, received: usize, expected: usize) -> String {
    let limit = arrival_max.unwrap_or_default().as_millis();
    format!("a frame did not arrive within {limit} ms (request.timeout.ms): {received} of {expected} bytes")
}

#[cfg(test)]
mod tests {
    use strand_protocol::frame::{FrameChunk, ResponseFrame};
    use tokio::io::AsyncWriteExt;

    use super::*;

    fn limits() -> ConnectionLimits {
        ConnectionLimits {
            request_bytes_max: 1024,
            idle_max: Some(Duration::from_secs(5)),
            request_arrival_max: Some(Duration::from_secs(1)),
        }
    }

    pub(super) fn client_limits() -> ClientLimits {
        ClientLimits {
            connection: limits(),
            pipelined_requests_max: PIPELINED_REQUESTS_MAX,
            pool: MemoryPool::new(None),
        }
    }

    /// A connected pair of loopback sockets: (server side, client side).
    #[allow(clippy::disallowed_methods)] // A test's own loopback listener.
    async fn socket_pair() -> (TcpStream, TcpStream) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let client = TcpStream::connect(listener.local_addr().expect("address"));
        let (client, accepted) = tokio::join!(client, listener.accept());
        (accepted.expect("accept").0, client.expect("connect"))
    }

    /// A one-byte request frame holding `tag`.
    fn request(tag: u8) -> [u8; 5] {
        [0, 0, 0, 1, tag]
    }

    /// A response frame (size prefix included) holding `tag`.
    fn response(tag: u8) -> Outcome {
        Outcome::Respond(ResponseFrame { chunks: vec![FrameChunk::Bytes(Bytes::from(request(tag).to_vec()))] })
    }

    /// Serves `server` with `handle` until the connection ends.
    fn serve_with<H, F>(server: TcpStream, handle: H) -> tokio::task::JoinHandle<()>
    where
        H: FnMut(Bytes) -> F + Send + 'static,
        F: Future<Output = Handled> + Send + 'static,
    {
        let peer = server.peer_addr().expect("peer");
        let (reader, writer) = server.into_split();
        tokio::spawn(pipeline(reader, PlainSink(writer), peer, client_limits(), handle))
    }

    /// Pipelined requests are all handled while the first still waits, and answered in request
    /// order although their waits end in the reverse order.
    #[tokio::test]
    async fn responses_keep_request_order_while_later_requests_are_handled() {
        let (server, mut client) = socket_pair().await;
        let (handled_tx, mut handled_rx) = mpsc::unbounded_channel();
        let mut releases = Vec::new();
        let mut waits = Vec::new();
        for _ in 0..3 {
            let (release, wait) = tokio::sync::oneshot::channel::<()>();
            releases.push(release);
            waits.push(Some(wait));
        }
        let served = serve_with(server, move |frame: Bytes| {
            let tag = frame[0];
            let wait = waits[usize::from(tag)].take().expect("each request once");
            handled_tx.send(tag).expect("the test listens");
            async move {
                Handled::Waiting(Box::pin(async move {
                    let _ = wait.await;
                    response(tag)
                }))
            }
        });
        client.write_all(&[request(0), request(1), request(2)].concat()).await.expect("send");
        for expected in 0..3 {
            assert_eq!(handled_rx.recv().await, Some(expected), "handled before any wait ended");
        }
        for release in releases.into_iter().rev() {
            release.send(()).expect("waiting");
        }
        let mut answers = [0u8; 15];
        client.read_exact(&mut answers).await.expect("three answers");
        assert_eq!(answers, [request(0), request(1), request(2)].concat()[..], "in request order");
        drop(client);
        served.await.expect("the connection ends");
    }

    /// A throttled answer is sent at once, then nothing more is read from the client for the
    /// throttle's time (KIP-219); a throttle a wait returns mutes from its answer on.
    #[tokio::test]
    async fn a_throttled_answer_mutes_the_connection() {
        const THROTTLE: Duration = Duration::from_millis(300);
        let (server, mut client) = socket_pair().await;
        let (handled_tx, mut handled_rx) = mpsc::unbounded_channel();
        let served = serve_with(server, move |frame: Bytes| {
            let tag = frame[0];
            handled_tx.send(Instant::now()).expect("the test listens");
            async move {
                let frame = ResponseFrame { chunks: vec![FrameChunk::Bytes(Bytes::from(request(tag).to_vec()))] };
                match tag {
                    0 => Handled::Done(Outcome::Throttled(Some(frame), THROTTLE)),
                    1 => Handled::Waiting(Box::pin(async move { Outcome::Throttled(Some(frame), THROTTLE) })),
                    _ => Handled::Done(response(tag)),
                }
            }
        });
        let mut answer = [0u8; 5];
        for throttled in 0..2 {
            let sent = Instant::now();
            client.write_all(&request(throttled)).await.expect("send");
            client.read_exact(&mut answer).await.expect("the throttled answer");
            assert_eq!(answer, request(throttled));
            assert!(sent.elapsed() < THROTTLE, "a throttled answer is not held back");
            client.write_all(&request(2)).await.expect("send");
            client.read_exact(&mut answer).await.expect("the next answer");
            assert_eq!(answer, request(2));
            let (first, next) = (handled_rx.recv().await.expect("handled"), handled_rx.recv().await.expect("handled"));
            assert!(next - first >= THROTTLE, "muted after answer {throttled}");
        }
        drop((client, served));
    }

    /// A request that closes the connection is answered after the requests before it (their
    /// waits included), and nothing after it is handled.
    #[tokio::test]
    async fn a_closing_request_ends_the_connection_after_earlier_answers() {
        let (server, mut client) = socket_pair().await;
        let (handled_tx, mut handled_rx) = mpsc::unbounded_channel();
        let served = serve_with(server, move |frame: Bytes| {
            let tag = frame[0];
            handled_tx.send(tag).expect("the test listens");
            async move {
                match tag {
                    0 => Handled::Waiting(Box::pin(async move {
                        tokio::task::yield_now().await;
                        response(0)
                    })),
                    _ => Handled::Done(Outcome::Close("refused".into())),
                }
            }
        });
        client.write_all(&[request(0), request(1), request(2)].concat()).await.expect("send");
        let mut answer = [0u8; 5];
        client.read_exact(&mut answer).await.expect("the first answer");
        assert_eq!(answer, request(0));
        let mut rest = Vec::new();
        client.read_to_end(&mut rest).await.expect("closed");
        assert!(rest.is_empty(), "nothing after the closing request: {rest:?}");
        served.await.expect("the connection ends");
        let mut handled = Vec::new();
        while let Ok(tag) = handled_rx.try_recv() {
            handled.push(tag);
        }
        assert_eq!(handled, [0, 1], "the request after the closing one is not handled");
    }

    /// A client that stops sending (end of stream) still gets the answers of what it sent.
    #[tokio::test]
    async fn answers_follow_the_clients_end_of_stream() {
        let (server, mut client) = socket_pair().await;
        let served = serve_with(server, |frame: Bytes| async move {
            let tag = frame[0];
            Handled::Waiting(Box::pin(async move {
                tokio::task::yield_now().await;
                response(tag)
            }))
        });
        client.write_all(&[request(7), request(8)].concat()).await.expect("send");
        client.shutdown().await.expect("end of stream");
        let mut answers = Vec::new();
        client.read_to_end(&mut answers).await.expect("answers, then the close");
        assert_eq!(answers, [request(7), request(8)].concat());
        served.await.expect("the connection ends");
    }

    /// A frame arrives whole; an oversized declared size is refused before any read of the body;
    /// a frame cut short is an error, not a hang.
    #[tokio::test]
    async fn frames_are_read_within_limits() {
        let mut input: &[u8] = &[0, 0, 0, 3, 1, 2, 3];
        assert_eq!(read_frame(&mut input, limits()).await, Ok(Some(Bytes::from_static(&[1, 2, 3]))));
        let mut empty: &[u8] = &[];
        assert_eq!(read_frame(&mut empty, limits()).await, Ok(None));
        let mut huge: &[u8] = &[0x7f, 0xff, 0xff, 0xff];
        let err = read_frame(&mut huge, limits()).await.err().unwrap_or_default();
        assert!(err.contains("exceeds the limit"), "{err}");
        let mut short: &[u8] = &[0, 0, 0, 9, 1, 2];
        let err = read_frame(&mut short, limits()).await.err().unwrap_or_default();
        assert!(err.contains("cut short"), "{err}");
    }

    /// A sender trickling bytes into a frame, each byte well within the idle time, is cut off
    /// once the frame has not arrived within the arrival bound (before, each read restarted the
    /// idle clock and the frame was read to its end however slowly it came).
    #[tokio::test(start_paused = true)]
    async fn a_trickling_frame_is_cut_off() {
        let (mut client, mut server) = tokio::io::duplex(64);
        let trickle = tokio::spawn(async move {
            client.write_all(&[0, 0, 0, 100]).await.expect("size");
            for _ in 0..100 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                if client.write_all(&[1]).await.is_err() {
                    return;
                }
            }
        });
        let start = Instant::now();
        let read = read_request(&mut server, &limits(), &MemoryPool::new(None), &Activity::new()).await;
        let err = read.err().unwrap_or_default();
        assert!(err.contains("request.timeout.ms"), "{err}");
        assert!(start.elapsed() <= Duration::from_millis(1100), "cut at the bound: {:?}", start.elapsed());
        drop(server);
        trickle.await.expect("trickler");
    }

    /// Without an idle limit (`connections.max.idle.ms` negative) a silent connection waits for
    /// its next frame however long; with one, it is closed after it.
    #[tokio::test(start_paused = true)]
    async fn the_idle_clock_can_be_off() {
        let (_client, mut server) = tokio::io::duplex(64);
        let never = ConnectionLimits { idle_max: None, ..limits() };
        let pool = MemoryPool::new(None);
        let waited = tokio::time::timeout(
            Duration::from_secs(24 * 3600),
            read_request(&mut server, &never, &pool, &Activity::new()),
        )
        .await;
        assert!(waited.is_err(), "still waiting after a day: {:?}", waited.map(|r| r.map(|f| f.map(|f| f.0))));
        let err = read_request(&mut server, &limits(), &pool, &Activity::new()).await.err().unwrap_or_default();
        assert!(err.contains("idle for 5000 ms"), "{err}");
    }

    /// A frame whose reservation does not fit waits without reading its body until another
    /// request's reservation is released, and is then read whole.
    #[tokio::test(start_paused = true)]
    async fn a_frame_waits_for_room_in_the_pool() {
        // Room for the 100-byte frame's reservation (the frame and its decoding budget) only once
        // the 200 bytes held are released.
        let pool = MemoryPool::new(Some(MemoryPool::reservation_bytes(100) + 100));
        let held = pool.try_reserve(200).expect("room");
        let (mut client, mut server) = tokio::io::duplex(1024);
        client.write_all(&[0, 0, 0, 100]).await.expect("size");
        client.write_all(&[7; 100]).await.expect("body");
        let reading = tokio::spawn(async move {
            let limits = ConnectionLimits { idle_max: None, ..limits() };
            read_request(&mut server, &limits, &pool, &Activity::new()).await.map(|r| r.map(|(frame, _)| frame.len()))
        });
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert!(!reading.is_finished(), "no room for the frame's reservation beside 200 bytes");
        drop(held);
        assert_eq!(reading.await.expect("read"), Ok(Some(100)));
    }

    /// The reservation follows the request's API, read from the body's first two bytes before
    /// anything is reserved: a Produce, whose records stay slices of its frame, reserves far less
    /// beside its frame than a request decoded into many small objects.
    #[tokio::test]
    async fn a_frame_reserves_what_its_api_may_decode() {
        use strand_protocol::frame::{DECODE_ALLOCATION_SLACK_BYTES, PRODUCE_DECODE_ALLOCATION_PER_FRAME_BYTE};
        const SIZE: usize = 1 << 20;
        let produce = SIZE + SIZE * PRODUCE_DECODE_ALLOCATION_PER_FRAME_BYTE + DECODE_ALLOCATION_SLACK_BYTES;
        for (api_key, expected) in [(0i16, produce), (20, MemoryPool::reservation_bytes(SIZE))] {
            let pool = MemoryPool::new(Some(64 << 20));
            let (mut client, mut server) = tokio::io::duplex(1 << 16);
            client.write_all(&(SIZE as u32).to_be_bytes()).await.expect("size");
            client.write_all(&api_key.to_be_bytes()).await.expect("api key");
            let reading = {
                let pool = pool.clone();
                tokio::spawn(async move {
                    let limits = ConnectionLimits { request_bytes_max: SIZE, ..limits() };
                    let read = read_request(&mut server, &limits, &pool, &Activity::new()).await;
                    read.map(|r| r.map(|(frame, reservation)| (frame.len(), reservation.bytes())))
                })
            };
            while pool.reserved_bytes() == 0 && !reading.is_finished() {
                tokio::task::yield_now().await;
            }
            assert_eq!(pool.reserved_bytes(), expected, "api {api_key}: reserved before the body is read");
            client.write_all(&vec![0; SIZE - 2]).await.expect("body");
            assert_eq!(reading.await.expect("read"), Ok(Some((SIZE, expected))));
        }
        assert!(produce * 3 < MemoryPool::reservation_bytes(SIZE), "a Produce reserves a third or less");
    }

    /// A connection whose response is still owed is not idle, however long the wait: after an
    /// answer that took four idle times, the connection still takes and answers a request.
    #[tokio::test(start_paused = true)]
    async fn a_connection_owed_a_response_is_not_idle() {
        let (server, mut client) = socket_pair().await;
        let served = serve_with(server, |frame: Bytes| async move {
            let tag = frame[0];
            Handled::Waiting(Box::pin(async move {
                if tag == 0 {
                    tokio::time::sleep(Duration::from_secs(20)).await;
                }
                response(tag)
            }))
        });
        client.write_all(&request(0)).await.expect("send");
        let mut answer = [0u8; 5];
        client.read_exact(&mut answer).await.expect("the slow answer");
        client.write_all(&request(1)).await.expect("send again");
        client.read_exact(&mut answer).await.expect("the connection still reads");
        assert_eq!(answer, request(1));
        drop(client);
        served.await.expect("the connection ends");
    }
}
