//! The control socket of a running dev cluster, `DIR/control.sock` (owner-only): one order a
//! connection, one line each way.
//!
//! An order is `kill N` or `restart N`; the answer `ok MESSAGE` once it is carried out (the
//! node is dead, or serves again) or `error MESSAGE`. [`send`] is the other terminal's side;
//! the running cluster's is [`super::supervisor`], which reads orders with [`read_order`].

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use tokio::io::AsyncReadExt;

/// The socket's file name under the cluster's directory.
pub const SOCKET_FILE: &str = "control.sock";

/// The longest order line read.
const ORDER_BYTES_MAX: u64 = 64;

/// How long a connection may take to send its order.
const ORDER_WAIT_MAX: Duration = Duration::from_secs(5);

/// How long [`send`] waits for the answer: a restart waits for the node to serve again.
const ANSWER_WAIT_MAX: Duration = Duration::from_secs(180);

/// What another terminal asks of a running cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Kill node N with SIGKILL.
    Kill(i32),
    /// Stop node N (SIGTERM) if it runs, then start it.
    Restart(i32),
}

impl Order {
    pub fn node(self) -> i32 {
        match self {
            Order::Kill(node) | Order::Restart(node) => node,
        }
    }

    fn to_line(self) -> String {
        match self {
            Order::Kill(node) => format!("kill {node}\n"),
            Order::Restart(node) => format!("restart {node}\n"),
        }
    }

    fn parse(line: &str) -> Option<Order> {
        let (verb, node) = line.trim().split_once(' ')?;
        let node = node.trim().parse().ok()?;
        match verb {
            "kill" => Some(Order::Kill(node)),
            "restart" => Some(Order::Restart(node)),
            _ => None,
        }
    }
}

/// The control socket of the cluster in `dir`.
pub fn socket_path(dir: &Path) -> PathBuf {
    dir.join(SOCKET_FILE)
}

/// Sends `order` to the cluster running in `dir` and prints its answer; an `error` answer, or
/// no cluster there, is an error.
pub fn send(dir: &Path, order: Order) -> anyhow::Result<()> {
    let path = socket_path(dir);
    let mut stream = UnixStream::connect(&path).with_context(|| {
        format!("no dev cluster runs in {} (start one with: strand dev cluster --dir {0})", dir.display())
    })?;
    stream.set_read_timeout(Some(ANSWER_WAIT_MAX)).context("cannot set the socket's timeout")?;
    stream.write_all(order.to_line().as_bytes()).context("cannot send the order")?;
    let mut answer = String::new();
    BufReader::new(stream).read_line(&mut answer).context("no answer from the cluster")?;
    match answer.trim_end().split_once(' ') {
        Some(("ok", message)) => {
            println!("{message}");
            Ok(())
        }
        Some(("error", message)) => bail!("{message}"),
        _ => bail!("the cluster answered {answer:?}"),
    }
}

/// Reads one order from a control connection: `None` for anything else, or nothing within
/// [`ORDER_WAIT_MAX`].
pub async fn read_order(stream: &mut tokio::net::UnixStream) -> Option<Order> {
    let mut line = Vec::new();
    let mut bounded = stream.take(ORDER_BYTES_MAX);
    let read = async {
        let mut byte = [0u8; 1];
        while bounded.read(&mut byte).await.ok()? == 1 && byte[0] != b'\n' {
            line.push(byte[0]);
        }
        Some(())
    };
    tokio::time::timeout(ORDER_WAIT_MAX, read).await.ok()??;
    Order::parse(std::str::from_utf8(&line).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_round_trip_and_nothing_else_parses() {
        for order in [Order::Kill(2), Order::Restart(14)] {
            assert_eq!(Order::parse(&order.to_line()), Some(order));
        }
        for line in ["", "kill", "kill x", "stop 1", "kill 1 2", "restart -"] {
            assert_eq!(Order::parse(line), None, "{line:?}");
        }
    }
}
