//! `strand dev cluster`: a local KRaft cluster in one command, for trying Strand and replaying
//! Kafka's walkthroughs (a leader killed, the ISR shrinking and growing back) without writing a
//! `server.properties` per node.
//!
//! - `strand dev cluster [--nodes N | --controllers C --brokers B] [--dir DIR] [--port P]
//!   [--override KEY=VALUE]...` ([`supervisor`]): starts the nodes as child `strand server`
//!   processes on 127.0.0.1 (free ports, or brokers on P, P+1, ..., controllers on P+100, ...,
//!   each broker's console on P+200, ...), every node's data under `DIR/node-ID`, prints each
//!   node's log lines behind its name, then the bootstrap string once every broker is
//!   registered, and stops the brokers, then the controllers, on Ctrl-C or SIGTERM.
//! - `strand dev cluster --kill N | --restart N [--dir DIR]` ([`control`]): from another
//!   terminal, kills node N (SIGKILL, as a crash) or stops and starts it again, through the
//!   running cluster's control socket `DIR/control.sock`.
//!
//! The cluster's shape, id and ports are written to `DIR/cluster.layout` on its first start, and
//! every later start in the same DIR reuses them (and the data): a layout flag that disagrees is
//! refused. `--clean` removes DIR first.
//!
//! What it is not: a deployment tool. Nodes listen on loopback only, with PLAINTEXT listeners
//! and no security; a node that dies is reported, not restarted.

mod control;
mod layout;
mod supervisor;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

/// `strand dev ...`.
#[derive(Debug, Subcommand)]
pub enum DevCommand {
    /// Run a local cluster, or kill and restart one of its nodes from another terminal.
    #[command(after_help = EXAMPLES)]
    Cluster(DevClusterArgs),
}

const EXAMPLES: &str = "Examples:
  strand dev cluster --nodes 3
  strand dev cluster --controllers 3 --brokers 4 --dir /tmp/demo --port 19092
  strand dev cluster --kill 2        (from another terminal)
  strand dev cluster --restart 2";

/// The flags of `strand dev cluster`.
#[derive(Debug, Args)]
pub struct DevClusterArgs {
    /// Nodes that are each broker and controller (KRaft combined mode); 3 when no layout is
    /// given and DIR holds none.
    #[arg(long, value_name = "N", conflicts_with_all = ["controllers", "brokers"])]
    nodes: Option<u16>,
    /// Controller-only nodes (ids 1..C), with --brokers.
    #[arg(long, value_name = "C", requires = "brokers")]
    controllers: Option<u16>,
    /// Broker-only nodes (ids after the controllers'), with --controllers.
    #[arg(long, value_name = "B", requires = "controllers")]
    brokers: Option<u16>,
    /// The directory of the cluster's data, layout and control socket.
    #[arg(long, value_name = "DIR", default_value_os_t = default_dir())]
    dir: PathBuf,
    /// Brokers listen on P, P+1, ...; controllers on P+100, ...; consoles on P+200, ...
    /// (free ports when absent).
    #[arg(long, value_name = "P")]
    port: Option<u16>,
    /// A node setting for every node (repeatable; after the cluster's own).
    #[arg(long = "override", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// Remove DIR (data and layout) before starting.
    #[arg(long)]
    clean: bool,
    /// Kill node N of the cluster running in DIR (SIGKILL, as a crash).
    #[arg(long, value_name = "N", conflicts_with_all = ["nodes", "controllers", "brokers", "port", "overrides", "clean", "restart"])]
    kill: Option<i32>,
    /// Stop node N of the cluster running in DIR and start it again.
    #[arg(long, value_name = "N", conflicts_with_all = ["nodes", "controllers", "brokers", "port", "overrides", "clean"])]
    restart: Option<i32>,
}

/// Where a cluster lives when `--dir` is not given: one place each of the user's terminals finds.
fn default_dir() -> PathBuf {
    std::env::temp_dir().join(format!("strand-dev-cluster-{}", rustix::process::geteuid().as_raw()))
}

pub fn run(command: DevCommand) -> ExitCode {
    let DevCommand::Cluster(args) = command;
    let outcome = match (args.kill, args.restart) {
        (Some(node), _) => control::send(&args.dir, control::Order::Kill(node)),
        (None, Some(node)) => control::send(&args.dir, control::Order::Restart(node)),
        (None, None) => supervisor::run(&args),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
