//! Binding a listener with Kafka's socket settings: `socket.send.buffer.bytes` and
//! `socket.receive.buffer.bytes` (SO_SNDBUF and SO_RCVBUF of the listening socket, which accepted
//! connections inherit; -1 leaves the operating system's default) and `socket.listen.backlog.size`
//! (the queue of connections not yet accepted).

use std::io;
use std::net::SocketAddr;

use tokio::net::{TcpListener, TcpSocket};

use crate::config::ServerConfig;

/// Kafka's value for "the operating system's default buffer size".
const OS_DEFAULT: i32 = -1;

/// The socket settings of every listener of the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SocketSettings {
    /// `socket.send.buffer.bytes`.
    pub send_buffer_bytes: i32,
    /// `socket.receive.buffer.bytes`.
    pub receive_buffer_bytes: i32,
    /// `socket.listen.backlog.size`.
    pub backlog: u32,
}

impl SocketSettings {
    pub fn of(config: &ServerConfig) -> SocketSettings {
        SocketSettings {
            send_buffer_bytes: config.socket_send_buffer_bytes,
            receive_buffer_bytes: config.socket_receive_buffer_bytes,
            backlog: u32::try_from(config.socket_listen_backlog_size).unwrap_or(1).max(1),
        }
    }
}

/// Listens on `host:port` (the first of its addresses that binds) with `settings`.
pub async fn bind(host: &str, port: u16, settings: SocketSettings) -> io::Result<TcpListener> {
    let mut last = io::Error::new(io::ErrorKind::AddrNotAvailable, format!("{host} resolves to no address"));
    for address in tokio::net::lookup_host((host, port)).await? {
        match bind_one(address, settings) {
            Ok(listener) => return Ok(listener),
            Err(e) => last = e,
        }
    }
    Err(last)
}

fn bind_one(address: SocketAddr, settings: SocketSettings) -> io::Result<TcpListener> {
    let socket = if address.is_ipv4() { TcpSocket::new_v4()? } else { TcpSocket::new_v6()? };
    // As tokio's `TcpListener::bind`: a restarted node takes its port back at once.
    socket.set_reuseaddr(true)?;
    if settings.send_buffer_bytes != OS_DEFAULT {
        socket.set_send_buffer_size(u32::try_from(settings.send_buffer_bytes).unwrap_or(1))?;
    }
    if settings.receive_buffer_bytes != OS_DEFAULT {
        socket.set_recv_buffer_size(u32::try_from(settings.receive_buffer_bytes).unwrap_or(1))?;
    }
    socket.bind(address)?;
    socket.listen(settings.backlog)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The buffers of a connection accepted on a listener bound with `settings`: (send, receive).
    async fn accepted_buffers(settings: SocketSettings) -> (u32, u32) {
        let listener = bind("127.0.0.1", 0, settings).await.expect("bind");
        let address = listener.local_addr().expect("address");
        let (accepted, client) = tokio::join!(listener.accept(), tokio::net::TcpStream::connect(address));
        let _client = client.expect("connect");
        let stream = accepted.expect("accept").0.into_std().expect("std stream");
        let socket = TcpSocket::from_std_stream(stream);
        (socket.send_buffer_size().expect("SO_SNDBUF"), socket.recv_buffer_size().expect("SO_RCVBUF"))
    }

    /// Accepted connections get the configured buffers (Linux reports twice what was set, its
    /// bookkeeping included); -1 leaves the kernel's own sizes.
    #[tokio::test]
    async fn accepted_connections_get_the_configured_buffers() {
        let set = SocketSettings { send_buffer_bytes: 24_576, receive_buffer_bytes: 28_672, backlog: 50 };
        let (send, receive) = accepted_buffers(set).await;
        assert!((24_576..=2 * 24_576).contains(&send), "SO_SNDBUF {send}");
        assert!((28_672..=2 * 28_672).contains(&receive), "SO_RCVBUF {receive}");
        let default = SocketSettings { send_buffer_bytes: OS_DEFAULT, receive_buffer_bytes: OS_DEFAULT, backlog: 50 };
        let (send, receive) = accepted_buffers(default).await;
        assert!(send != 2 * 24_576 && receive != 2 * 28_672, "the kernel's defaults: {send}, {receive}");
    }
}
