//! The `strand` binary: one executable for the node and the operator's tools, with Kafka's
//! command names, flags and output so `bin/kafka-*.sh` habits carry over.
//!
//! - `strand server [FILE] [--override key=value]...` ([`server`]): Kafka's
//!   `kafka-server-start.sh`. Without FILE, a one-node cluster with embedded defaults.
//! - `strand storage random-uuid | format -t ID -c FILE [--ignore-formatted] [--add-scram ...]`
//!   ([`storage`], [`add_scram`]): Kafka's `kafka-storage.sh`; [`storage`] also holds the
//!   first-start formatting `server` uses.
//!
//! - `strand topics ...` ([`topics`]): Kafka's `kafka-topics.sh`, its flags and output, over
//!   `strand-client` ([`tool`] holds what every such tool shares); `strand console-producer`
//!   and `strand console-consumer` ([`console_producer`], [`console_consumer`]) and
//!   `strand configs` ([`configs`], Kafka's `kafka-configs.sh`) and `strand consumer-groups`
//!   ([`groups`], Kafka's `kafka-consumer-groups.sh`), `strand get-offsets` ([`get_offsets`])
//!   and `strand delete-records` ([`delete_records`]), `strand cluster` ([`cluster`]) and
//!   `strand features` ([`features`]), `strand metadata-quorum` ([`metadata_quorum`]),
//!   `strand log-dirs` ([`log_dirs`]), `strand leader-election` ([`leader_election`]),
//!   `strand reassign-partitions` ([`reassign`]), `strand dump-log` ([`dump_log`], reading
//!   files, no cluster), `strand producer-perf-test` ([`producer_perf`]),
//!   `strand consumer-perf-test` ([`consumer_perf`]), `strand e2e-latency` ([`e2e_latency`]) and
//!   `strand transactions` ([`transactions`]) and `strand acls` ([`acls`]) likewise, and the
//!   system-test tools `strand verifiable-producer` ([`verifiable_producer`]) and
//!   `strand verifiable-consumer` ([`verifiable_consumer`]).
//! - `strand dev cluster ...` ([`dev`]): a local cluster of `strand server` children in one
//!   command, its nodes killed and restarted from another terminal.
//! - `strand completions bash|zsh|fish|elvish|powershell`: the shell's completion script
//!   (`clap_complete`), every subcommand and flag.
//!
//! A build with failpoints (the binary Cargo builds for this package's tests, where the
//! `fail/failpoints` dev-dependency feature unifies in) sets them from `FAILPOINTS` and, while
//! once it appears, from the file `STRAND_FAILPOINTS_FILE` names; a release build reads neither.
//!
//! What it is not: the broker. Everything that runs a node lives in `strand-server`; this crate
//! parses arguments, sets up logging and the runtime, prepares storage and reports failures
//! (a message on stderr, exit code 1).

mod acls;
mod add_scram;
mod client_properties;
mod cluster;
mod configs;
mod console_consumer;
mod console_producer;
mod consumer_perf;
mod delete_records;
mod dev;
mod dump_log;
mod e2e_latency;
mod features;
mod get_offsets;
mod groups;
mod leader_election;
mod log_dirs;
mod metadata_quorum;
mod producer_perf;
mod reassign;
mod server;
mod storage;
mod tool;
mod topics;
mod transactions;
mod verifiable_consumer;
mod verifiable_producer;

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
    #[command(
        subcommand,
        after_help = "Examples:
  strand storage random-uuid
  strand storage format -t $(strand storage random-uuid) -c server.properties"
    )]
    Storage(storage::StorageCommand),
    /// Create, delete, describe, or change a topic (Kafka's kafka-topics.sh).
    Topics(topics::TopicsArgs),
    /// Describe or change configs and quotas (Kafka's kafka-configs.sh).
    Configs(configs::ConfigsArgs),
    /// Read lines from stdin and produce them (Kafka's kafka-console-producer.sh).
    ConsoleProducer(console_producer::ConsoleProducerArgs),
    /// Print records of a topic (Kafka's kafka-console-consumer.sh).
    ConsoleConsumer(console_consumer::ConsoleConsumerArgs),
    /// List, describe and delete consumer groups, reset their offsets (Kafka's kafka-consumer-groups.sh).
    ConsumerGroups(groups::GroupsArgs),
    /// Print the offsets of topic partitions for a time (Kafka's kafka-get-offsets.sh).
    GetOffsets(get_offsets::GetOffsetsArgs),
    /// Delete the records of partitions before an offset (Kafka's kafka-delete-records.sh).
    DeleteRecords(delete_records::DeleteRecordsArgs),
    /// The cluster's id, endpoints and API versions; unregister nodes (Kafka's kafka-cluster.sh).
    Cluster(cluster::ClusterArgs),
    /// Describe and change feature levels (Kafka's kafka-features.sh).
    Features(features::FeaturesArgs),
    /// Describe the KRaft metadata quorum, remove controllers (Kafka's kafka-metadata-quorum.sh).
    MetadataQuorum(metadata_quorum::MetadataQuorumArgs),
    /// Describe the brokers' log directories and the replicas in them (Kafka's kafka-log-dirs.sh).
    LogDirs(log_dirs::LogDirsArgs),
    /// Elect preferred or unclean leaders (Kafka's kafka-leader-election.sh).
    LeaderElection(leader_election::LeaderElectionArgs),
    /// Move partitions between brokers and log dirs (Kafka's kafka-reassign-partitions.sh).
    ReassignPartitions(reassign::ReassignArgs),
    /// Dump log segments, indexes and snapshots (Kafka's kafka-dump-log.sh).
    DumpLog(dump_log::DumpLogArgs),
    /// Measure producer throughput and latency (Kafka's kafka-producer-perf-test.sh).
    ProducerPerfTest(producer_perf::ProducerPerfArgs),
    /// Measure consumer throughput (Kafka's kafka-consumer-perf-test.sh).
    ConsumerPerfTest(consumer_perf::ConsumerPerfArgs),
    /// Measure end-to-end latency, produce to fetch (Kafka's kafka-e2e-latency.sh).
    E2eLatency(e2e_latency::E2eLatencyArgs),
    /// List, describe and abort transactions (Kafka's kafka-transactions.sh).
    Transactions(transactions::TransactionsArgs),
    /// Add, remove and list ACLs (Kafka's kafka-acls.sh).
    Acls(acls::AclsArgs),
    /// Produce increasing integers, print each send's result as JSON (Kafka's kafka-verifiable-producer.sh).
    VerifiableProducer(verifiable_producer::VerifiableProducerArgs),
    /// Consume in a group, print its events as JSON (Kafka's kafka-verifiable-consumer.sh).
    VerifiableConsumer(verifiable_consumer::VerifiableConsumerArgs),
    /// Run a local cluster for development and demonstrations.
    #[command(
        subcommand,
        after_help = "Example:
  strand dev cluster --nodes 3"
    )]
    Dev(dev::DevCommand),
    /// Print a shell's completion script for strand.
    #[command(after_help = "Example:\n  source <(strand completions bash)")]
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return bad_command_line(&error),
    };
    let result = match cli.command {
        Command::Server(args) => server::run(args),
        Command::Storage(command) => storage::run(command),
        Command::Topics(args) => return topics::run(args),
        Command::Configs(args) => return configs::run(args),
        Command::ConsoleProducer(args) => return console_producer::run(args),
        Command::ConsoleConsumer(args) => return console_consumer::run(args),
        Command::ConsumerGroups(args) => return groups::run(args),
        Command::GetOffsets(args) => return get_offsets::run(args),
        Command::DeleteRecords(args) => return delete_records::run(args),
        Command::Cluster(args) => return cluster::run(args),
        Command::Features(args) => return features::run(args),
        Command::MetadataQuorum(args) => return metadata_quorum::run(args),
        Command::LogDirs(args) => return log_dirs::run(args),
        Command::LeaderElection(args) => return leader_election::run(args),
        Command::ReassignPartitions(args) => return reassign::run(args),
        Command::DumpLog(args) => return dump_log::run(args),
        Command::ProducerPerfTest(args) => return producer_perf::run(args),
        Command::ConsumerPerfTest(args) => return consumer_perf::run(args),
        Command::E2eLatency(args) => return e2e_latency::run(args),
        Command::Transactions(args) => return transactions::run(args),
        Command::Acls(args) => return acls::run(args),
        Command::VerifiableProducer(args) => return verifiable_producer::run(args),
        Command::VerifiableConsumer(args) => return verifiable_consumer::run(args),
        Command::Dev(command) => return dev::run(command),
        Command::Completions { shell } => {
            clap_complete::generate(
                shell,
                &mut <Cli as clap::CommandFactory>::command(),
                "strand",
                &mut std::io::stdout(),
            );
            return ExitCode::SUCCESS;
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Prints clap's message; help and version exit 0. A wrong command line of one of Kafka's tools
/// exits 1, as Kafka's do; of `server`, `storage`, `dev` and `completions`, clap's 2.
fn bad_command_line(error: &clap::Error) -> ExitCode {
    let _ = error.print();
    if !error.use_stderr() {
        return ExitCode::SUCCESS;
    }
    let kafka_tool = std::env::args()
        .nth(1)
        .is_some_and(|command| !matches!(command.as_str(), "server" | "storage" | "dev" | "completions"));
    ExitCode::from(if kafka_tool { 1 } else { 2 })
}
