//! Per-link TCP proxies on 127.0.0.1 that the harness controls. Every connection through a proxy
//! runs from a source (a node, or a client) to one node's listener; each direction of it is
//! governed by its link's mode: bytes from the source by `(source, node)`, the answers by
//! `(node, source)`. A controller proxy serves one ordered pair of nodes (each node's
//! `controller.quorum.voters` names its own proxies); a replication proxy is shared by every
//! follower of its node, and tells them apart by the connecting socket's owner (`/proc`); a client
//! proxy's source is always the clients.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

/// Who is at either end of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum End {
    Node(u8),
    Clients,
}

/// What a link does with the bytes sent over it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Pass,
    /// Read and discarded; a connection that lost bytes is closed when its links heal (its stream
    /// is broken, as a real one would be reset after its retransmissions timed out).
    Drop,
    /// Forwarded this much later, in order.
    Delay(Duration),
    /// Neither read nor forwarded (nothing is lost); new connections are accepted and left
    /// unanswered.
    Stall,
}

/// Chunks read but not yet written, per direction of a connection (a delayed link holds up to
/// this many).
const CHUNKS_IN_FLIGHT_MAX: usize = 1024;
const CHUNK_BYTES: usize = 64 * 1024;

/// The links' modes, shared by every proxy; a change wakes every connection.
#[derive(Debug)]
pub struct Net {
    modes: Mutex<HashMap<(End, End), Mode>>,
    changed: watch::Sender<u64>,
    /// Each running node's process id, for telling followers apart.
    pub pids: Mutex<HashMap<u8, u32>>,
}

impl Net {
    pub fn new() -> Arc<Net> {
        Arc::new(Net {
            modes: Mutex::new(HashMap::new()),
            changed: watch::channel(0).0,
            pids: Mutex::new(HashMap::new()),
        })
    }

    pub fn mode(&self, from: End, to: End) -> Mode {
        self.modes.lock().map(|m| m.get(&(from, to)).copied().unwrap_or(Mode::Pass)).unwrap_or(Mode::Pass)
    }

    /// Sets the links `from → to` to `mode`.
    pub fn set(&self, links: &[(End, End)], mode: Mode) {
        if let Ok(mut modes) = self.modes.lock() {
            for link in links {
                modes.insert(*link, mode);
            }
        }
        self.changed.send_modify(|g| *g += 1);
    }

    /// Every link back to `Pass`.
    pub fn heal(&self) {
        if let Ok(mut modes) = self.modes.lock() {
            modes.clear();
        }
        self.changed.send_modify(|g| *g += 1);
    }
}

/// Where a proxy's connections come from.
#[derive(Clone, Copy, Debug)]
pub enum Source {
    Fixed(End),
    /// One of the nodes, found by which process owns the connecting socket.
    AnyNode,
}

/// Starts a proxy on a free 127.0.0.1 port forwarding to `target` (node `node`'s listener);
/// returns its port.
pub async fn start(net: Arc<Net>, node: u8, source: Source, target: SocketAddr) -> std::io::Result<u16> {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
    let port = listener.local_addr()?.port();
    tokio::spawn(async move {
        loop {
            let Ok((inbound, peer)) = listener.accept().await else { continue };
            let net = net.clone();
            tokio::spawn(async move {
                let from = match source {
                    Source::Fixed(end) => end,
                    Source::AnyNode => {
                        let pids = net.pids.lock().map(|p| p.clone()).unwrap_or_default();
                        let found = tokio::task::spawn_blocking(move || owner(peer.port(), port, &pids)).await;
                        match found {
                            Ok(Some(id)) => End::Node(id),
                            // Gone already, or not a node: such a connection goes through unfaulted.
                            _ => End::Clients,
                        }
                    }
                };
                serve(net, inbound, from, End::Node(node), target).await;
            });
        }
    });
    Ok(port)
}

async fn serve(net: Arc<Net>, inbound: TcpStream, from: End, to: End, target: SocketAddr) {
    let mut changed = net.changed.subscribe();
    // A new connection over a link that is not passing is accepted and left unanswered.
    while let (Mode::Stall | Mode::Drop, _) | (_, Mode::Stall) = (net.mode(from, to), net.mode(to, from)) {
        if changed.changed().await.is_err() {
            return;
        }
    }
    let Ok(outbound) = TcpStream::connect(target).await else {
        // The node is down: reset the connection, as a refused one would be, rather than close
        // it (a client takes a clean close at once for a TLS mismatch and gives up).
        let _ = inbound.set_zero_linger();
        return;
    };
    let _ = inbound.set_nodelay(true);
    let _ = outbound.set_nodelay(true);
    let (in_read, in_write) = inbound.into_split();
    let (out_read, out_write) = outbound.into_split();
    let (kill, killed) = watch::channel(false);
    let kill = Arc::new(kill);
    let up = pump(net.clone(), (from, to), in_read, out_write, kill.clone(), killed.clone());
    let down = pump(net, (to, from), out_read, in_write, kill, killed);
    tokio::join!(up, down);
}

/// Forwards one direction of a connection under its link's mode until either side closes or
/// the connection is killed.
async fn pump(
    net: Arc<Net>,
    link: (End, End),
    mut reader: tokio::net::tcp::OwnedReadHalf,
    mut writer: tokio::net::tcp::OwnedWriteHalf,
    kill: Arc<watch::Sender<bool>>,
    mut killed: watch::Receiver<bool>,
) {
    let (chunks, mut pending) = mpsc::channel::<(Instant, Vec<u8>)>(CHUNKS_IN_FLIGHT_MAX);
    let mut writer_killed = killed.clone();
    let write = async move {
        loop {
            tokio::select! {
                next = pending.recv() => {
                    let Some((due, chunk)) = next else { break };
                    tokio::time::sleep_until(due).await;
                    if writer.write_all(&chunk).await.is_err() {
                        break;
                    }
                }
                _ = dead(&mut writer_killed) => break,
            }
        }
        let _ = writer.shutdown().await;
    };
    let read_kill = kill.clone();
    let read = async move {
        let mut changed = net.changed.subscribe();
        let mut lost_bytes = false;
        let mut buf = vec![0u8; CHUNK_BYTES];
        loop {
            let mode = net.mode(link.0, link.1);
            if lost_bytes && mode != Mode::Drop && net.mode(link.1, link.0) != Mode::Drop {
                let _ = read_kill.send(true); // healed: the broken stream is closed
                return;
            }
            if mode == Mode::Stall {
                tokio::select! {
                    r = changed.changed() => if r.is_err() { return },
                    _ = dead(&mut killed) => return,
                }
                continue;
            }
            tokio::select! {
                read = reader.read(&mut buf) => {
                    let n = match read {
                        Ok(0) | Err(_) => return, // the writer then closes its side
                        Ok(n) => n,
                    };
                    let due = match net.mode(link.0, link.1) {
                        Mode::Drop => { lost_bytes = true; continue }
                        Mode::Delay(d) => Instant::now() + d,
                        Mode::Pass | Mode::Stall => Instant::now(),
                    };
                    if chunks.send((due, buf[..n].to_vec())).await.is_err() {
                        let _ = read_kill.send(true);
                        return;
                    }
                }
                r = changed.changed() => if r.is_err() { return },
                _ = dead(&mut killed) => return,
            }
        }
    };
    tokio::join!(read, write);
    let _ = kill.send(true);
}

/// Returns once the connection is killed.
async fn dead(killed: &mut watch::Receiver<bool>) {
    let _ = killed.wait_for(|k| *k).await;
}

/// The node whose process owns the socket connected from 127.0.0.1:`peer_port` to the proxy on
/// `proxy_port` (`/proc/net/tcp` gives the socket's inode, a process's `fd` directory its owner).
fn owner(peer_port: u16, proxy_port: u16, pids: &HashMap<u8, u32>) -> Option<u8> {
    let table = std::fs::read_to_string("/proc/net/tcp").ok()?;
    let port_of = |field: &str| field.rsplit(':').next().and_then(|p| u16::from_str_radix(p, 16).ok());
    let inode = table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let matches = fields.len() > 9
            && port_of(fields[1]) == Some(peer_port)
            && port_of(fields[2]) == Some(proxy_port)
            && fields[1].starts_with("0100007F");
        matches.then(|| fields[9].to_owned())
    })?;
    let wanted = format!("socket:[{inode}]");
    pids.iter().find_map(|(id, pid)| {
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?;
        fds.flatten()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l.as_os_str() == wanted.as_str()))
            .then_some(*id)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An echo server on a free loopback port.
    async fn echo() -> SocketAddr {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.expect("bind");
        let address = listener.local_addr().expect("address");
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let (mut r, mut w) = socket.split();
                    let _ = tokio::io::copy(&mut r, &mut w).await;
                });
            }
        });
        address
    }

    async fn round_trip(stream: &mut TcpStream, within: Duration) -> Option<Vec<u8>> {
        stream.write_all(b"ping").await.expect("write");
        let mut buf = [0u8; 4];
        match tokio::time::timeout(within, stream.read_exact(&mut buf)).await {
            Ok(Ok(_)) => Some(buf.to_vec()),
            _ => None,
        }
    }

    /// How long a test waits to be sure nothing arrives.
    const QUIET: Duration = Duration::from_millis(300);
    const PATIENCE: Duration = Duration::from_secs(10);
    const LINK: (End, End) = (End::Clients, End::Node(1));

    async fn proxied(net: &Arc<Net>) -> TcpStream {
        let port = start(net.clone(), 1, Source::Fixed(End::Clients), echo().await).await.expect("proxy");
        TcpStream::connect(("127.0.0.1", port)).await.expect("connect")
    }

    #[tokio::test]
    async fn a_dropped_link_loses_bytes_and_its_connection_closes_at_the_heal() {
        let net = Net::new();
        let mut stream = proxied(&net).await;
        assert_eq!(round_trip(&mut stream, PATIENCE).await.as_deref(), Some(&b"ping"[..]));
        net.set(&[LINK], Mode::Drop);
        assert_eq!(round_trip(&mut stream, QUIET).await, None);
        net.heal();
        let mut buf = [0u8; 1];
        let closed = tokio::time::timeout(PATIENCE, stream.read(&mut buf)).await.expect("closed within patience");
        assert!(matches!(closed, Ok(0) | Err(_)), "the broken connection was closed: {closed:?}");
    }

    #[tokio::test]
    async fn a_stalled_link_holds_bytes_and_delivers_them_at_the_heal() {
        let net = Net::new();
        let mut stream = proxied(&net).await;
        net.set(&[LINK], Mode::Stall);
        assert_eq!(round_trip(&mut stream, QUIET).await, None);
        net.heal();
        let mut buf = [0u8; 4];
        tokio::time::timeout(PATIENCE, stream.read_exact(&mut buf)).await.expect("in time").expect("read");
        assert_eq!(&buf, b"ping");
        // A connection made during a stall is accepted and answered only after the heal.
        net.set(&[(End::Node(1), End::Clients)], Mode::Stall);
        let port = start(net.clone(), 1, Source::Fixed(End::Clients), echo().await).await.expect("proxy");
        let mut late = TcpStream::connect(("127.0.0.1", port)).await.expect("accepted during the stall");
        assert_eq!(round_trip(&mut late, QUIET).await, None);
        net.heal();
        let mut buf = [0u8; 4];
        tokio::time::timeout(PATIENCE, late.read_exact(&mut buf)).await.expect("in time").expect("read");
    }

    #[tokio::test]
    async fn a_delayed_link_forwards_later() {
        let net = Net::new();
        let mut stream = proxied(&net).await;
        let delay = Duration::from_millis(200);
        net.set(&[LINK, (End::Node(1), End::Clients)], Mode::Delay(delay));
        let sent = Instant::now();
        assert!(round_trip(&mut stream, PATIENCE).await.is_some());
        assert!(sent.elapsed() >= 2 * delay, "answered after {:?}", sent.elapsed());
    }

    #[test]
    fn a_connection_is_traced_to_the_process_that_owns_its_socket() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("address").port();
        let stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
        let local = stream.local_addr().expect("address").port();
        let mine = HashMap::from([(2, 1), (7, std::process::id())]); // pid 1 owns no such socket
        assert_eq!(owner(local, port, &mine), Some(7));
        assert_eq!(owner(local, port, &HashMap::from([(2, 1)])), None);
    }
}
