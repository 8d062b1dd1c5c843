//! Writing a response frame to a client: [`FrameSink`]. A PLAINTEXT socket sends its record sets
//! straight from the segment files with `sendfile(2)` ([`PlainSink`]); TLS must encrypt them in
//! user space, so [`CopyingSink`] reads each file region in chunks of [`COPY_CHUNK_BYTES_MAX`]
//! (on a blocking thread) and writes them through the TLS stream.
//!
//! Either way a file that ends before its region does (truncated since the read) fails the
//! connection: the frame's size prefix has promised those bytes.

use std::future::Future;
use std::io;
use std::sync::Arc;

use strand_protocol::codec::FileRegion;
use strand_protocol::frame::{FrameChunk, ResponseFrame};
use tokio::io::{AsyncWrite, AsyncWriteExt, Interest};
use tokio::net::TcpStream;
use tokio::net::tcp::OwnedWriteHalf;

/// The most bytes of a file region a TLS connection holds in memory at once.
pub const COPY_CHUNK_BYTES_MAX: usize = 64 * 1024;

/// Where a connection's responses go.
pub trait FrameSink: Send {
    /// Writes one response frame whole.
    fn write_frame<'a>(&'a mut self, frame: &'a ResponseFrame) -> impl Future<Output = io::Result<()>> + Send + 'a;
}

/// A PLAINTEXT connection's writing half: bytes with `write`, file regions with `sendfile`.
#[derive(Debug)]
pub struct PlainSink(pub OwnedWriteHalf);

impl FrameSink for PlainSink {
    async fn write_frame<'a>(&'a mut self, frame: &'a ResponseFrame) -> io::Result<()> {
        for chunk in &frame.chunks {
            match chunk {
                FrameChunk::Bytes(bytes) => self.0.write_all(bytes).await?,
                FrameChunk::File(region) => send_file(self.0.as_ref(), region).await?,
            }
        }
        Ok(())
    }
}

/// A writer that must see every byte (TLS): file regions are read and written through it.
#[derive(Debug)]
pub struct CopyingSink<W>(pub W);

impl<W: AsyncWrite + Unpin + Send> FrameSink for CopyingSink<W> {
    async fn write_frame<'a>(&'a mut self, frame: &'a ResponseFrame) -> io::Result<()> {
        for chunk in &frame.chunks {
            match chunk {
                FrameChunk::Bytes(bytes) => self.0.write_all(bytes).await?,
                FrameChunk::File(region) => copy_file(&mut self.0, region).await?,
            }
        }
        // TLS buffers a record until flushed.
        self.0.flush().await
    }
}

/// Sends a file region to the socket from the page cache, waiting whenever the socket is full.
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
            Ok(0) => return Err(truncated(position, end)),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Reads a file region chunk by chunk on a blocking thread and writes each through `writer`.
async fn copy_file<W: AsyncWrite + Unpin>(writer: &mut W, region: &FileRegion) -> io::Result<()> {
    let mut position = region.position;
    let end = region.position + u64::from(region.len);
    let mut buffer = Vec::new();
    while position < end {
        let want = usize::try_from(end - position).unwrap_or(usize::MAX).min(COPY_CHUNK_BYTES_MAX);
        let file = Arc::clone(&region.file);
        let read = tokio::task::spawn_blocking(move || {
            use std::os::unix::fs::FileExt;
            buffer.resize(want, 0);
            let read = file.read_at(&mut buffer, position);
            (buffer, read)
        })
        .await
        .map_err(io::Error::other)?;
        buffer = read.0;
        match read.1? {
            0 => return Err(truncated(position, end)),
            n => {
                writer.write_all(&buffer[..n]).await?;
                position += n as u64;
            }
        }
    }
    Ok(())
}

fn truncated(position: u64, end: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("the segment file ends at {position}, before the {end} this response promised"),
    )
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use tokio::io::AsyncReadExt;

    use super::*;

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

    /// A frame with a 4 MiB region between two byte chunks, and what the client must receive.
    fn big_frame() -> (ResponseFrame, Vec<u8>) {
        let big: Vec<u8> = (0..4 * 1024 * 1024u32).map(|i| (i % 251) as u8).collect();
        let frame = ResponseFrame {
            chunks: vec![
                FrameChunk::Bytes(Bytes::from_static(b"head")),
                FrameChunk::File(region(&big, 3, big.len() as u32 - 10)),
                FrameChunk::Bytes(Bytes::from_static(b"tail")),
            ],
        };
        (frame, [&b"head"[..], &big[3..big.len() - 7], b"tail"].concat())
    }

    /// A frame's file regions arrive between its byte chunks, in order, byte for byte, also when
    /// the region is larger than the socket's buffer (sendfile resumes where it stopped).
    #[tokio::test]
    async fn file_regions_are_sent_from_the_file() {
        let (server, mut client) = socket_pair().await;
        let (frame, expected) = big_frame();
        let (_read, writer) = server.into_split();
        let mut sink = PlainSink(writer);
        let send = async move { sink.write_frame(&frame).await };
        let mut received = vec![0u8; expected.len()];
        let (sent, read) = tokio::join!(send, client.read_exact(&mut received));
        sent.expect("sent");
        read.expect("received");
        assert!(received == expected, "the bytes differ");
    }

    /// Through a copying sink (TLS's), the region is read in bounded chunks and arrives whole,
    /// in order, through a pipe far smaller than it.
    #[tokio::test]
    async fn file_regions_are_copied_in_chunks() {
        let (frame, expected) = big_frame();
        let (writer, mut reader) = tokio::io::duplex(4096);
        let mut sink = CopyingSink(writer);
        let send = async move { sink.write_frame(&frame).await };
        let mut received = vec![0u8; expected.len()];
        let (sent, read) = tokio::join!(send, reader.read_exact(&mut received));
        sent.expect("sent");
        read.expect("received");
        assert!(received == expected, "the bytes differ");
    }

    /// A file truncated below its region fails the write instead of sending a short frame, both
    /// ways.
    #[tokio::test]
    async fn a_truncated_file_fails_the_write() {
        let (server, _client) = socket_pair().await;
        let frame = ResponseFrame { chunks: vec![FrameChunk::File(region(b"short", 0, 100))] };
        let (_read, writer) = server.into_split();
        let err = PlainSink(writer).write_frame(&frame).await.expect_err("the file is too short");
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof, "{err}");
        let (writer, _reader) = tokio::io::duplex(1 << 20);
        let err = CopyingSink(writer).write_frame(&frame).await.expect_err("the file is too short");
        assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof, "{err}");
    }
}
