//! One client connection: frames in, frames out, in order.
//!
//! A frame's size is checked against `socket.request.max.bytes` before anything is read, and the
//! frame buffer grows only as its bytes arrive, so a client that declares a large frame and sends
//! little makes the broker hold little. Requests are handled one at a time, as Kafka does (it mutes
//! a connection until its response is sent): responses come back in request order, and appends
//! from one connection keep their order. A connection idle for `connections.max.idle.ms` is closed.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use strand_broker::{Broker, Outcome};
use strand_protocol::frame::{SIZE_PREFIX_BYTES, frame_size};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tracing::{debug, info, warn};

/// The most bytes read from the socket in one go while a frame arrives: the buffer grows by at
/// most this much beyond what was actually received.
const READ_CHUNK_BYTES_MAX: usize = 64 * 1024;

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
pub async fn serve<S>(stream: S, peer: SocketAddr, broker: Arc<Broker>, limits: ConnectionLimits)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let (mut reader, mut writer) = tokio::io::split(stream);
    loop {
        let frame = match read_frame(&mut reader, limits).await {
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
        match broker.handle(frame).await {
            Outcome::Respond(response) => {
                if let Err(e) = writer.write_all(&response).await {
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

/// Reads one frame (without its size prefix). `None` when the client closed the connection
/// between frames.
async fn read_frame<R: AsyncRead + Unpin>(reader: &mut R, limits: ConnectionLimits) -> Result<Option<Bytes>, String> {
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
