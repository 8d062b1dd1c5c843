//! The `strand` binary: one executable for the node and the operator's tools, with Kafka's
//! command names, flags and output so `bin/kafka-*.sh` habits carry over.
//!
//! - `strand server [FILE] [--override key=value]...` ([`server`]): Kafka's
//!   `kafka-server-start.sh`. Without FILE, a one-node cluster with embedded defaults.
//! - `strand storage random-uuid | format -t ID -c FILE [--ignore-formatted] [--add-scram ...]`
//!   ([`storage`], [`add_scram`]): Kafka's `kafka-storage.sh`; [`storage`] also holds the
//!   first-start formatting `server` uses.
//!
//! A build with failpoints (the binary Cargo builds for this package's tests, where the
//! `fail/failpoints` dev-dependency feature unifies in) sets them from `FAILPOINTS` and, while
//! once it appears, from the file `STRAND_FAILPOINTS_FILE` names; a release build reads neither.
//!
//! What it is not: the broker. Everything that runs a node lives in `strand-server`; this crate
//! parses arguments, sets up logging and the runtime, prepares storage and reports failures
//! (a message on stderr, exit code 1).

mod add_scram;
mod server;
mod storage;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// A Kafka-compatible event streaming platform.
#[derive(Debug, Parser)]
#[command(name = "strand", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a node (Kafka's kafka-server-start.sh).
    Server(server::ServerArgs),
    /// Format log directories and make cluster ids (Kafka's kafka-storage.sh).
    #[command(subcommand)]
    Storage(storage::StorageCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Server(args) => server::run(args),
        Command::Storage(command) => storage::run(command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}
