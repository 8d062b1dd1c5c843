//! Kafka's connection limits against a real `strand` over raw sockets: `max.connections` holds
//! the next connection until one closes, `max.connections.per.ip` (and its overrides) closes the
//! connection past it, `max.connection.creation.rate` spaces new connections, a sender trickling
//! into a frame is cut off (`request.timeout.ms`), `connections.max.idle.ms=-1` never closes an
//! idle connection, `queued.max.request.bytes` makes a large frame wait while small requests are
//! served, and many connections sending into 100 MiB frames leave resident memory within the pool.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use common::{Server, WAIT_MAX};
use strand_base::{Clock, SystemClock};
use strand_protocol::frame::{SIZE_PREFIX_BYTES, encode_request};
use strand_protocol::messages::api::RequestBody;
use strand_protocol::messages::{ApiVersionsRequest, DeleteTopicsRequest};

/// How long a test waits to see that something does not happen (an answer held back).
const HELD_BACK: Duration = Duration::from_millis(1500);

/// The time on the monotonic clock.
fn now() -> Duration {
    Duration::from_nanos(SystemClock.monotonic_ns())
}

/// An ApiVersions v3 request frame, padded with `padding` bytes after its body (a broker ignores
/// bytes after a body, as Kafka does), so that it can be made as large as a test needs.
fn api_versions_frame(padding: usize) -> Vec<u8> {
    let body = RequestBody::ApiVersions(ApiVersionsRequest {
        client_software_name: "e2e".into(),
        client_software_version: "1".into(),
        ..Default::default()
    });
    let mut frame = encode_request(1, Some("e2e"), &body, 3).expect("encode").to_vec();
    frame.resize(frame.len() + padding, 0);
    let size = i32::try_from(frame.len() - SIZE_PREFIX_BYTES).expect("a test frame fits");
    frame[..SIZE_PREFIX_BYTES].copy_from_slice(&size.to_be_bytes());
    frame
}

#[allow(clippy::disallowed_methods)] // End-to-end tests are clients of a real server.
fn connect(address: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(address).expect("connect");
    stream.set_read_timeout(Some(WAIT_MAX)).expect("timeout");
    stream
}

/// A connection from the loopback address `source` (127.0.0.0/8 is all loopback on Linux).
fn connect_from(source: &str, address: SocketAddr) -> TcpStream {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_io().build().expect("runtime");
    let stream = runtime
        .block_on(async {
            let socket = tokio::net::TcpSocket::new_v4()?;
            socket.bind(format!("{source}:0").parse().expect("source address"))?;
            socket.connect(address).await
        })
        .expect("connect from the source address");
    let stream = stream.into_std().expect("std stream");
    stream.set_nonblocking(false).expect("blocking");
    stream.set_read_timeout(Some(WAIT_MAX)).expect("timeout");
    stream
}

/// Reads one response frame within `limit`: `Some(size)`, or `None` if nothing came in time.
/// Panics if the server closed the connection instead.
fn answer_within(stream: &mut TcpStream, limit: Duration) -> Option<usize> {
    stream.set_read_timeout(Some(limit)).expect("timeout");
    let mut prefix = [0u8; SIZE_PREFIX_BYTES];
    let read = stream.read_exact(&mut prefix);
    stream.set_read_timeout(Some(WAIT_MAX)).expect("timeout");
    match read {
        Ok(()) => {}
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => return None,
        Err(e) => panic!("the server closed the connection: {e}"),
    }
    let size = usize::try_from(i32::from_be_bytes(prefix)).expect("a size");
    let mut body = vec![0u8; size];
    stream.read_exact(&mut body).expect("the whole response");
    Some(size)
}

/// Sends an ApiVersions request and waits for its answer.
fn api_versions(stream: &mut TcpStream) {
    stream.write_all(&api_versions_frame(0)).expect("send");
    assert!(answer_within(stream, WAIT_MAX).is_some(), "ApiVersions answered");
}

/// Whether an ApiVersions request on `stream` is answered (rather than the connection closed).
fn is_served(stream: &mut TcpStream) -> bool {
    if stream.write_all(&api_versions_frame(0)).is_err() {
        return false;
    }
    let mut prefix = [0u8; SIZE_PREFIX_BYTES];
    stream.read_exact(&mut prefix).is_ok()
}

/// Whether the server closed the connection (end of stream or reset) within `limit`.
fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    stream.set_read_timeout(Some(limit)).expect("timeout");
    let mut byte = [0u8; 1];
    match stream.read(&mut byte) {
        Ok(0) => true,
        Ok(_) => panic!("unexpected bytes from the server"),
        Err(e) => !matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut),
    }
}

fn start(overrides: &[&str]) -> Server {
    Server::start_with(tempfile::tempdir().expect("temp dir"), overrides)
}

/// At `max.connections` the next connection is not served (it waits in the listen backlog, as
/// Kafka's acceptor blocks) until one of the open ones closes; then it is.
#[test]
fn max_connections_holds_the_next_connection_until_one_closes() {
    let _serial = common::serial();
    let server = start(&["max.connections=3"]);
    let mut open: Vec<TcpStream> = (0..3).map(|_| connect(server.address)).collect();
    for stream in &mut open {
        api_versions(stream);
    }
    let mut fourth = connect(server.address);
    fourth.write_all(&api_versions_frame(0)).expect("send");
    assert_eq!(answer_within(&mut fourth, HELD_BACK), None, "the fourth connection is held back");
    drop(open.pop());
    assert!(answer_within(&mut fourth, WAIT_MAX).is_some(), "served once a connection closed");
}

/// Past `max.connections.per.ip` a connection is accepted and closed at once; an override gives
/// its address its own maximum; a closed connection gives its place back.
#[test]
fn per_ip_maximum_and_overrides() {
    let _serial = common::serial();
    let server = start(&["max.connections.per.ip=2", "max.connections.per.ip.overrides=127.0.0.2:4"]);
    let mut local: Vec<TcpStream> = (0..2).map(|_| connect(server.address)).collect();
    for stream in &mut local {
        api_versions(stream);
    }
    let mut third = connect(server.address);
    assert!(closed_within(&mut third, WAIT_MAX), "the third connection from 127.0.0.1 is closed");
    let mut overridden: Vec<TcpStream> = (0..4).map(|_| connect_from("127.0.0.2", server.address)).collect();
    for stream in &mut overridden {
        api_versions(stream);
    }
    let mut fifth = connect_from("127.0.0.2", server.address);
    assert!(closed_within(&mut fifth, WAIT_MAX), "the fifth connection from 127.0.0.2 is closed");
    drop(local.pop());
    // The server counts the closed connection down when it sees the close; until then a new one
    // may still be refused, so retry until one is served.
    let deadline = now() + WAIT_MAX;
    while !is_served(&mut connect(server.address)) {
        assert!(now() < deadline, "a connection from 127.0.0.1 is served again");
    }
}

/// `max.connection.creation.rate` spaces new connections: twelve at 4 per second take about two
/// seconds (a burst of one second's worth, then a quarter second each).
#[test]
fn creation_rate_spaces_new_connections() {
    let _serial = common::serial();
    let server = start(&["max.connection.creation.rate=4"]);
    let start = now();
    let mut open = Vec::new();
    for _ in 0..12 {
        let mut stream = connect(server.address);
        api_versions(&mut stream);
        open.push(stream);
    }
    let elapsed = now() - start;
    assert!(elapsed >= Duration::from_millis(1500), "twelve connections at 4/s took only {elapsed:?}");
}

/// A sender trickling a byte every 100 ms into a 1 MiB frame (each byte well within the idle
/// time) is cut off once the frame has not arrived within `request.timeout.ms`.
#[test]
fn a_trickling_sender_is_cut_off() {
    let _serial = common::serial();
    let server = start(&["request.timeout.ms=2000", "connections.max.idle.ms=60000"]);
    let mut stream = connect(server.address);
    stream.write_all(&(1i32 << 20).to_be_bytes()).expect("size");
    let mut writer = stream.try_clone().expect("clone");
    let start = now();
    let trickler = std::thread::spawn(move || {
        for _ in 0..600 {
            std::thread::sleep(Duration::from_millis(100));
            if writer.write_all(&[0]).is_err() {
                return;
            }
        }
    });
    assert!(closed_within(&mut stream, WAIT_MAX), "the trickling sender is still connected after {WAIT_MAX:?}");
    let elapsed = now() - start;
    assert!(elapsed >= Duration::from_millis(1500), "closed before the bound: {elapsed:?}");
    drop(stream);
    trickler.join().expect("trickler");
    let log = server.log.lock().map(|l| l.join("\n")).unwrap_or_default();
    assert!(log.contains("request.timeout.ms"), "one log line names the bound:\n{log}");
}

/// A silent connection is closed after `connections.max.idle.ms`; with -1 it never is (it used to
/// become 1 ms).
#[test]
fn idle_connections_close_unless_idle_is_never() {
    let _serial = common::serial();
    let server = start(&["connections.max.idle.ms=1000"]);
    let mut silent = connect(server.address);
    assert!(closed_within(&mut silent, WAIT_MAX), "an idle connection is closed");
    drop(server);
    let server = start(&["connections.max.idle.ms=-1"]);
    let mut silent = connect(server.address);
    assert!(!closed_within(&mut silent, HELD_BACK), "connections.max.idle.ms=-1 closed an idle connection");
    api_versions(&mut silent);
}

/// With `queued.max.request.bytes` held by one large frame still arriving, a second large frame
/// waits, its bytes unread, while a small request on a third connection is served; once the first
/// frame completes, both are answered.
#[test]
fn a_large_frame_waits_for_the_pool_while_small_requests_are_served() {
    let _serial = common::serial();
    let server = start(&["socket.request.max.bytes=4194304", "queued.max.request.bytes=8388608"]);
    let large = api_versions_frame(3 << 20);
    let mut first = connect(server.address);
    first.write_all(&large[..1 << 20]).expect("the first part of the first frame");
    // The first frame's reservation is admitted once the server reads its size; a small request
    // on the same connection cannot show it, so a small request elsewhere answered afterwards does.
    let mut small = connect(server.address);
    api_versions(&mut small);
    let mut second = connect(server.address);
    let mut second_writer = second.try_clone().expect("clone");
    let second_frame = large.clone();
    let sending = std::thread::spawn(move || second_writer.write_all(&second_frame).is_ok());
    assert_eq!(answer_within(&mut second, HELD_BACK), None, "the second large frame waits for the pool");
    api_versions(&mut small);
    first.write_all(&large[1 << 20..]).expect("the rest of the first frame");
    assert!(answer_within(&mut first, WAIT_MAX).is_some(), "the first frame is answered");
    assert!(answer_within(&mut second, WAIT_MAX).is_some(), "then the second");
    assert!(sending.join().expect("sender"), "the second frame was sent whole");
}

/// Eighty connections each declaring a 100 MiB frame and sending 4 MiB of it at once: only what
/// the pool admits is read, so resident memory stays within the pool (before, every connection
/// read what it was sent: 320 MiB); a normal client is served meanwhile.
#[test]
fn frames_arriving_on_many_connections_stay_within_the_pool() {
    let _serial = common::serial();
    let pool_mib = 128;
    let server = start(&[&format!("queued.max.request.bytes={}", pool_mib << 20)]);
    let mut normal = connect(server.address);
    api_versions(&mut normal);
    let before = server.rss_kib();
    let mut senders = Vec::new();
    for _ in 0..80 {
        let mut stream = connect(server.address);
        senders.push(std::thread::spawn(move || {
            let mut chunk = vec![0u8; 4 << 20];
            chunk[..SIZE_PREFIX_BYTES].copy_from_slice(&(100i32 << 20).to_be_bytes());
            let _ = stream.write_all(&chunk);
            stream
        }));
    }
    let mut peak = before;
    let watch_until = now() + Duration::from_secs(4);
    while now() < watch_until {
        peak = peak.max(server.rss_kib());
        std::thread::sleep(Duration::from_millis(50));
    }
    api_versions(&mut normal);
    let grown_mib = (peak.saturating_sub(before)) >> 10;
    assert!(grown_mib < pool_mib, "resident memory grew by {grown_mib} MiB (pool {pool_mib} MiB)");
    drop(server);
    for sender in senders {
        let _ = sender.join();
    }
}

/// A DeleteTopics v5 frame of about `frame_bytes` holding `name` over and over. Each empty name is
/// one byte on the wire and a 24-byte `String` once decoded, the most a request's bytes can
/// amplify before anything is allocated; each one-character name, two bytes and 24 + 32 (its
/// heap chunk), the most a decoder builds before its budget stops it.
fn names_frame(name: &str, frame_bytes: usize) -> Vec<u8> {
    let body = RequestBody::DeleteTopics(DeleteTopicsRequest {
        topic_names: vec![name.to_owned(); frame_bytes / (1 + name.len())],
        timeout_ms: 30_000,
        ..Default::default()
    });
    encode_request(1, Some("e2e"), &body, 5).expect("encode").to_vec()
}

/// Sends `frame` on `connections` new connections at once; returns by how much the server's
/// resident memory grew at most meanwhile (MiB) and how many connections the server closed
/// (rather than answered).
fn flood(server: &Server, frame: Vec<u8>, connections: usize) -> (u64, usize) {
    let frame = std::sync::Arc::new(frame);
    let before = server.rss_kib();
    let senders: Vec<_> = (0..connections)
        .map(|_| {
            let mut stream = connect(server.address);
            let frame = std::sync::Arc::clone(&frame);
            std::thread::spawn(move || {
                let sent = stream.write_all(&frame).is_ok();
                let mut byte = [0u8; 1];
                // Closed (end of stream or reset), or answered.
                sent && !matches!(stream.read(&mut byte), Ok(n) if n > 0)
            })
        })
        .collect();
    let mut peak = before;
    while !senders.iter().all(|sender| sender.is_finished()) {
        peak = peak.max(server.rss_kib());
        std::thread::sleep(Duration::from_millis(20));
    }
    peak = peak.max(server.rss_kib());
    let closed = senders.into_iter().map(|s| s.join().expect("sender")).filter(|c| *c).count();
    ((peak.saturating_sub(before)) >> 10, closed)
}

/// Sixteen connections each sending a 1 MiB DeleteTopics v5 of empty names (24 MiB of slots once
/// decoded), then sixteen of one-character names (28 MiB): each decoding stops at its allocation
/// budget, the connection is closed with one log line, a normal client is served, and resident
/// memory stays within the pool (before the budget, every frame was decoded and answered and
/// memory grew far past the pool).
#[test]
fn amplifying_frames_stay_within_the_pool() {
    let _serial = common::serial();
    let pool_mib = 32;
    let pool = format!("queued.max.request.bytes={}", pool_mib << 20);
    // No deletion: a request that decoded would be answered at once, without the controller.
    let server = start(&[&pool, "socket.request.max.bytes=2097152", "delete.topic.enable=false"]);
    let mut normal = connect(server.address);
    api_versions(&mut normal);
    for name in ["", "a"] {
        let (grown_mib, closed) = flood(&server, names_frame(name, 1 << 20), 16);
        api_versions(&mut normal);
        println!("names {name:?}: resident memory grew by {grown_mib} MiB (pool {pool_mib} MiB)");
        assert!(grown_mib < pool_mib, "names {name:?}: resident memory grew by {grown_mib} MiB (pool {pool_mib} MiB)");
        assert_eq!(closed, 16, "names {name:?}: every amplifying frame closes its connection");
    }
    let log = server.log.lock().map(|l| l.clone()).unwrap_or_default();
    let refusals = log.iter().filter(|line| line.contains("allocation budget")).count();
    assert_eq!(refusals, 32, "one line per refused frame:\n{}", log.join("\n"));
}
