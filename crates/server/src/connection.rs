//! One client connection: frames in, frames out, in order.
//!
//! A frame's size is checked against `socket.request.max.bytes` before anything is read, and the
//! frame buffer grows only as its bytes arrive, so a client that declares a large frame and sends
//! little makes the broker hold little. A connection idle for `connections.max.idle.ms` is closed.
//!
//! Two halves run side by side. The reader handles requests one at a time, in arrival order, so
//! appends from one connection keep their order (idempotent producers depend on it). A request
//! is handled until it is answered or, for an acks=all Produce, appended and waiting for its
//! replicas and its sync ([`Handled::Waiting`]); then the reader goes on to the next request. The
//! writer takes the handled requests in the same order, awaits each one's wait, and writes its
//! response, so responses come back in request order. Kafka instead mutes a connection until its
//! response is sent; reading on lets a producer's pipelined acks=all batches of one partition
//! share one `fdatasync` (group commit) instead of syncing one request at a time. At most
//! [`PIPELINED_REQUESTS_MAX`] handled requests wait for the writer (then the reader waits, and
//! further requests wait in the socket's buffer); a frame is dropped once handled, so the bytes a
//! connection holds stay bounded by one frame of `socket.request.max.bytes` and that many
//! responses.
//!
//! Responses are written chunk by chunk: the encoded bytes with `write`, and the record sets of a
//! Fetch from their segment files with `sendfile`, so record bytes never pass through user space.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use std::future::Future;

use bytes::{Bytes, BytesMut};
use strand_broker::{Broker, Handled, Outcome};
use strand_protocol::codec::FileRegion;
use strand_protocol::frame::{FrameChunk, ResponseFrame, SIZE_PREFIX_BYTES, frame_size};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt, Interest};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::mpsc;
use tracing::{debug, info, warn};

/// The most bytes read from the socket in one go while a frame arrives: the buffer grows by at
/// most this much beyond what was actually received.
const READ_CHUNK_BYTES_MAX: usize = 64 * 1024;

/// The most requests of one connection handled and not yet answered: responses waiting for the
/// writer or for their replicas. More than a Java producer's `max.in.flight.requests.per.connection`
/// (5), so its acks=all batches all share the syncs.
pub const PIPELINED_REQUESTS_MAX: usize = 8;

/// Limits on one connection.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// `socket.request.max.bytes`.
    pub request_bytes_max: usize,
    /// `connections.max.idle.ms`.
    pub idle_max: Duration,
}

/// Serves one connection until the client closes it, it idles out, or it sends something the
/// broker cannot answer.
pub async fn serve(stream: TcpStream, peer: SocketAddr, broker: Arc<Broker>, limits: ConnectionLimits) {
    // Kafka disables Nagle too: a response's small chunks must not wait for the client's ACK.
    if let Err(e) = stream.set_nodelay(true) {
        debug!(%peer, "could not set TCP_NODELAY: {e}");
    }
    let (reader, writer) = stream.into_split();
    let handle = |frame| {
        let broker = Arc::clone(&broker);
        async move { broker.handle_pipelined(frame, peer).await }
    };
    pipeline(reader, writer, peer, limits, handle).await;
}

/// Runs the reader and the writer (see the module doc) until both are done: the reader stops at
/// the client's end of stream, a bad frame, a request that closes the connection, or a writer that
/// stopped; the writer stops after the last response or at the first failed write or close.
async fn pipeline<H, F>(
    reader: OwnedReadHalf,
    writer: OwnedWriteHalf,
    peer: SocketAddr,
    limits: ConnectionLimits,
    handle: H,
) where
    H: FnMut(Bytes) -> F,
    F: Future<Output = Handled>,
{
    let (handled, answers) = mpsc::channel(PIPELINED_REQUESTS_MAX);
    tokio::join!(read_requests(reader, peer, limits, handle, handled), write_responses(writer, peer, answers));
}

/// Reads and handles requests in order, passing each to the writer.
async fn read_requests<H, F>(
    mut reader: OwnedReadHalf,
    peer: SocketAddr,
    limits: ConnectionLimits,
    mut handle: H,
    handled: mpsc::Sender<Handled>,
) where
    H: FnMut(Bytes) -> F,
    F: Future<Output = Handled>,
{
    loop {
        let frame = tokio::select! {
            // The writer stopped: nothing read from now on would be answered.
            () = handled.closed() => return,
            frame = read_frame(&mut reader, limits) => frame,
        };
        let frame = match frame {
            Ok(Some(frame)) => frame,
            Ok(None) => {
                debug!(%peer, "connection closed by the client");
                return;
            }
            Err(reason) => {
                info!(%peer, "closing connection: {reason}");
                return;
            }
        };
        let request = handle(frame).await;
        let closes = matches!(request, Handled::Done(Outcome::Close(_)));
        if handled.send(request).await.is_err() || closes {
            return;
        }
    }
}

/// Answers the handled requests in order, each once its wait (if any) is over.
async fn write_responses(mut writer: OwnedWriteHalf, peer: SocketAddr, mut handled: mpsc::Receiver<Handled>) {
    while let Some(request) = handled.recv().await {
        let outcome = match request {
            Handled::Done(outcome) => outcome,
            Handled::Waiting(wait) => wait.await,
        };
        match outcome {
            Outcome::Respond(response) => {
                if let Err(e) = write_frame(&mut writer, &response).await {
                    debug!(%peer, "closing connection: write failed: {e}");
                    return;
                }
            }
            Outcome::NoResponse => {}
            Outcome::Close(reason) => {
                warn!(%peer, "closing connection: {reason}");
                return;
            }
        }
    }
}

/// Writes a response frame: bytes with `write`, file regions with `sendfile`.
async fn write_frame(writer: &mut OwnedWriteHalf, frame: &ResponseFrame) -> io::Result<()> {
    for chunk in &frame.chunks {
        match chunk {
            FrameChunk::Bytes(bytes) => writer.write_all(bytes).await?,
            FrameChunk::File(region) => send_file(writer.as_ref(), region).await?,
        }
    }
    Ok(())
}

/// Sends a file region to the socket from the page cache, waiting whenever the socket is full.
/// A file that ends before the region does (truncated since the read) fails the connection: the
/// frame's size prefix has promised those bytes.
async fn send_file(socket: &TcpStream, region: &FileRegion) -> io::Result<()> {
    let mut position = region.position;
    let end = region.position + u64::from(region.len);
    while position < end {
        socket.writable().await?;
        let left = usize::try_from(end - position).unwrap_or(usize::MAX);
        let sent = socket.try_io(Interest::WRITABLE, || {
            rustix::fs::sendfile(socket, &*region.file, Some(&mut position), left).map_err(io::Error::from)
        });
        match sent {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("the segment file ends at {position}, before the {end} this response promised"),
                ));
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Reads one frame (without its size prefix). `None` when the client closed the connection
/// between frames.
pub(crate) async fn read_frame<R: AsyncRead + Unpin>(
    reader: &mut R,
    limits: ConnectionLimits,
) -> Result<Option<Bytes>, String> {
    let mut prefix = [0u8; SIZE_PREFIX_BYTES];
    match tokio::time::timeout(limits.idle_max, reader.read_exact(&mut prefix)).await {
        Err(_) => return Err(format!("idle for {} ms (connections.max.idle.ms)", limits.idle_max.as_millis())),
        Ok(Err(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Ok(Err(e)) => return Err(format!("read failed: {e}")),
        Ok(Ok(_)) => {}
    }
    let size = frame_size(prefix, limits.request_bytes_max).map_err(|e| e.to_string())?;
    let mut frame = BytesMut::with_capacity(size.min(READ_CHUNK_BYTES_MAX));
    while frame.len() < size {
        let want = (size - frame.len()).min(READ_CHUNK_BYTES_MAX);
        frame.reserve(want);
        let read = tokio::time::timeout(limits.idle_max, (&mut *reader).take(want as u64).read_buf(&mut frame)).await;
        match read {
            Err(_) => return Err("timed out in the middle of a frame".into()),
            Ok(Err(e)) => return Err(format!("read failed: {e}")),
            Ok(Ok(0)) => return Err(format!("frame cut short: {} of {size} bytes", frame.len())),
            Ok(Ok(_)) => {}
        }
    }
    Ok(Some(frame.freeze()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> ConnectionLimits {
        ConnectionLimits { request_bytes_max: 1024, idle_max: Duration::from_secs(5) }
    }

    /// A connected pair of loopback sockets: (server side, client side).
    #[allow(clippy::disallowed_methods)] // A test's own loopback listener.
    async fn socket_pair() -> (TcpStream, TcpStream) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let client = TcpStream::connect(listener.local_addr().expect("address"));
        let (client, accepted) = tokio::join!(client, listener.accept());
        (accepted.expect("accept").0, client.expect("connect"))
    }

    fn region(contents: &[u8], position: u64, len: u32) -> FileRegion {
        use std::io::Write;
        let mut file = tempfile::tempfile().expect("temp file");
        file.write_all(contents).expect("write");
        FileRegion { file: Arc::new(file), position, len }
    }

    /// A frame's file regions arrive between its byte chunks, in order, byte for byte, also when
    /// the region is larger than the socket's buffer (sendfile resumes where it stopped).
    #[tokio::test]
    async fn file_regions_are_sent_from_the_file() {
        let (server, mut client) = socket_pair().await;
        let big: Vec<u8> = (0..4 * 1024 * 1024u32).map(|i| (i % 251) as u8).collect();
        let frame = ResponseFrame {
            chunks: vec![
                FrameChunk::Bytes(Bytes::from_static(b"head")),
                FrameChunk::File(region(&big, 3, big.len() as u32 - 10)),
                FrameChunk::Bytes(Bytes::from_static(b"tail")),
            ],
        };
        let expected = [&b"head"[..], &big[3..big.len() - 7], b"tail"].concat();
        let (_read, mut writer) = server.into_split();
        let send = async move { write_frame(&mut writer, &frame).await };
        let mut received = vec![0u8; expected.len()];
        let (sent, read) = tokio::join!(send, client.read_exact(&mut received));
        sent.expect("sent");
        read.expect("received");
        assert!(received == expected, "the bytes differ");
    }

    /// A file truncated below its region fails the write instead of sending a short frame.
    #[tokio::test]
    async fn a_truncated_file_fails_the_write() {
        let (server, _client) = socket_pair().await;
        let frame = ResponseFrame { chunks: vec![FrameChunk::File(region(b"short", 0, 100))] };
        let (_read, mut writer) = server.into_split();
        let err = write_frame(&mut writer, &frame).await.expect_err("the file is too short");
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof, "{err}");
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
        tokio::spawn(pipeline(reader, writer, peer, limits(), handle))
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
}
