//! Writing a response frame to a client: [`FrameSink`]. A PLAINTEXT socket sends its record sets
//! straight from the segment files with `sendfile(2)` ([`PlainSink`]); TLS must encrypt them in
//! user space, so [`CopyingSink`] gathers the frame, its byte chunks and its file regions' bytes
//! alike, into pieces of [`COPY_CHUNK_BYTES_MAX`] and writes each piece through the TLS stream in
//! one write: full-size TLS records (16 KiB) and one `writev` per piece, where writing chunk by
//! chunk made a small record and a syscall of each header between the record sets. A region's
//! bytes are read from the page cache on the connection's own thread when they are there
//! (`preadv2` with `RWF_NOWAIT`), and on a blocking thread only when the read would wait for the
//! disk.
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

/// The most bytes of a response a TLS connection gathers before writing them, and so the most
/// of a file region it holds in memory at once: four full TLS records.
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

/// A writer that must see every byte (TLS): the frame is gathered into pieces of at most
/// [`COPY_CHUNK_BYTES_MAX`], file regions read into them, and each piece written in one go.
#[derive(Debug)]
pub struct CopyingSink<W>(pub W);

impl<W: AsyncWrite + Unpin + Send> FrameSink for CopyingSink<W> {
    async fn write_frame<'a>(&'a mut self, frame: &'a ResponseFrame) -> io::Result<()> {
        let mut piece = Vec::with_capacity(frame.len().min(COPY_CHUNK_BYTES_MAX));
        for chunk in &frame.chunks {
            match chunk {
                FrameChunk::Bytes(bytes) => {
                    let mut rest = &bytes[..];
                    while !rest.is_empty() {
                        let take = rest.len().min(COPY_CHUNK_BYTES_MAX - piece.len());
                        piece.extend_from_slice(&rest[..take]);
                        rest = &rest[take..];
                        self.write_if_full(&mut piece).await?;
                    }
                }
                FrameChunk::File(region) => {
                    let mut position = region.position;
                    let end = region.position + u64::from(region.len);
                    while position < end {
                        let want = usize::try_from(end - position).unwrap_or(usize::MAX);
                        let want = want.min(COPY_CHUNK_BYTES_MAX - piece.len());
                        let read;
                        (piece, read) = read_into(piece, &region.file, position, want).await;
                        match read? {
                            0 => return Err(truncated(position, end)),
                            n => position += n as u64,
                        }
                        self.write_if_full(&mut piece).await?;
                    }
                }
            }
        }
        if !piece.is_empty() {
            self.0.write_all(&piece).await?;
        }
        // TLS buffers a record until flushed.
        self.0.flush().await
    }
}

impl<W: AsyncWrite + Unpin + Send> CopyingSink<W> {
    /// Writes `piece` and empties it once it holds [`COPY_CHUNK_BYTES_MAX`] bytes.
    async fn write_if_full(&mut self, piece: &mut Vec<u8>) -> io::Result<()> {
        if piece.len() >= COPY_CHUNK_BYTES_MAX {
            self.0.write_all(piece).await?;
            piece.clear();
        }
        Ok(())
    }
}

/// Appends up to `want` bytes of `file` from `position` to `buffer`: at once from the page cache
/// when they are all there, else (the read would wait for the disk) on a blocking thread. The
/// buffer comes back with what was read appended, and the count (0: the file ends there).
async fn read_into(
    mut buffer: Vec<u8>,
    file: &Arc<std::fs::File>,
    position: u64,
    want: usize,
) -> (Vec<u8>, io::Result<usize>) {
    let start = buffer.len();
    buffer.resize(start + want, 0);
    let cached = rustix::io::preadv2(
        &**file,
        &mut [io::IoSliceMut::new(&mut buffer[start..])],
        position,
        rustix::io::ReadWriteFlags::NOWAIT,
    );
    match cached {
        // A short read may be the page cache's end, not the file's: the blocking read decides.
        Ok(n) if n == want => return (buffer, Ok(n)),
        // EAGAIN (not all cached), or a file system without RWF_NOWAIT: read it the slow way.
        Ok(_) | Err(_) => {}
    }
    let file = Arc::clone(file);
    let blocking = tokio::task::spawn_blocking(move || {
        use std::os::unix::fs::FileExt;
        let read = file.read_at(&mut buffer[start..], position);
        buffer.truncate(start + *read.as_ref().unwrap_or(&0));
        (buffer, read)
    })
    .await;
    match blocking {
        Ok(done) => done,
        Err(e) => (Vec::new(), Err(io::Error::other(e))),
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

    /// Takes every write whole and records its size.
    #[derive(Default)]
    struct CountingWriter {
        writes: Vec<usize>,
        bytes: Vec<u8>,
    }

    impl AsyncWrite for CountingWriter {
        fn poll_write(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &[u8],
        ) -> std::task::Poll<io::Result<usize>> {
            let this = self.get_mut();
            this.writes.push(buf.len());
            this.bytes.extend_from_slice(buf);
            std::task::Poll::Ready(Ok(buf.len()))
        }

        fn poll_flush(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }

        fn poll_shutdown(
            self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
        ) -> std::task::Poll<io::Result<()>> {
            std::task::Poll::Ready(Ok(()))
        }
    }

    /// Each write to a TLS stream is encrypted into records of its own and sent with a syscall of
    /// its own, so the copying sink gathers a frame into pieces of COPY_CHUNK_BYTES_MAX: a
    /// Fetch-shaped frame (a header, then eight partitions, each a header and 4 KiB of records
    /// from the file) goes in one write, not seventeen (a small TLS record per header); a 1 MiB
    /// region with headers around it in full pieces and one remainder.
    #[tokio::test]
    async fn a_frame_is_written_in_full_pieces() {
        let records: Vec<u8> = (0..8 * 4096u32).map(|i| (i % 241) as u8).collect();
        let mut chunks = vec![FrameChunk::Bytes(Bytes::from_static(b"response header"))];
        let mut expected = b"response header".to_vec();
        for partition in 0..8 {
            chunks.push(FrameChunk::Bytes(Bytes::from_static(b"partition header")));
            let part = &records[partition * 4096..(partition + 1) * 4096];
            chunks.push(FrameChunk::File(region(part, 0, 4096)));
            expected.extend_from_slice(b"partition header");
            expected.extend_from_slice(part);
        }
        let mut sink = CopyingSink(CountingWriter::default());
        sink.write_frame(&ResponseFrame { chunks }).await.expect("written");
        assert_eq!(sink.0.writes, [expected.len()], "one write");
        assert!(sink.0.bytes == expected, "the bytes differ");

        let (frame, expected) = big_frame();
        let mut sink = CopyingSink(CountingWriter::default());
        sink.write_frame(&frame).await.expect("written");
        let full = expected.len() / COPY_CHUNK_BYTES_MAX;
        assert_eq!(sink.0.writes.len(), full + 1, "{:?}", sink.0.writes);
        assert!(sink.0.writes[..full].iter().all(|&n| n == COPY_CHUNK_BYTES_MAX), "{:?}", sink.0.writes);
        assert!(sink.0.bytes == expected, "the bytes differ");
    }
}
