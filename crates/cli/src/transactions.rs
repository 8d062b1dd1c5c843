//! `strand transactions`: Kafka's `kafka-transactions.sh` (`TransactionsCommand`): `list`
//! (every broker's transactions, `--duration-filter`), `describe --transactional-id`,
//! `describe-producers --topic --partition [--broker-id]` and `abort` (by `--start-offset`, or
//! `--producer-id`, `--producer-epoch` and `--coordinator-epoch`), their tables and messages as
//! Kafka's tool prints them.
//!
//! What it is not (yet): `find-hanging` and `forceTerminateTransaction` are refused in one line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use strand_base::Clock;
use strand_client::ClientError;
use strand_protocol::error::ErrorCode;

use crate::tool::{self, Failure};

const EXAMPLES: &str = "Examples:
  strand transactions --bootstrap-server localhost:9092 list
  strand transactions --bootstrap-server localhost:9092 describe-producers --topic orders --partition 0";

/// The flags of `kafka-transactions.sh`.
#[derive(Debug, Args)]
#[command(
    about = "Analyze the transactional state of producers in the cluster (Kafka's kafka-transactions.sh).",
    after_help = EXAMPLES
)]
pub struct TransactionsArgs {
    /// Property file containing configs to be passed to admin client.
    #[arg(long)]
    command_config: Option<PathBuf>,
    /// Hostname and port for the broker to connect to, in the form `host:port`.
    #[arg(long, required = true)]
    bootstrap_server: String,
    #[command(subcommand)]
    command: TransactionsCommand,
}

#[derive(Debug, Subcommand)]
enum TransactionsCommand {
    /// List transactions.
    List {
        /// Duration (in millis) to filter by: if < 0, all transactions will be returned.
        #[arg(long, allow_hyphen_values = true)]
        duration_filter: Option<i64>,
    },
    /// Describe the state of an active transactional-id.
    Describe {
        /// Transactional id.
        #[arg(long)]
        transactional_id: String,
    },
    /// Describe the states of active producers for a topic partition.
    DescribeProducers {
        /// Optional broker id to describe the producer state on a specific replica.
        #[arg(long)]
        broker_id: Option<i32>,
        /// Topic name.
        #[arg(long)]
        topic: String,
        /// Partition number.
        #[arg(long)]
        partition: i32,
    },
    /// Abort a hanging transaction (requires administrative privileges).
    Abort {
        /// Topic name.
        #[arg(long)]
        topic: String,
        /// Partition number.
        #[arg(long)]
        partition: i32,
        /// Start offset of the transaction to abort.
        #[arg(long)]
        start_offset: Option<i64>,
        /// Producer id of the transaction to abort (brokers before 3.0).
        #[arg(long)]
        producer_id: Option<i64>,
        /// Producer epoch of the transaction to abort (brokers before 3.0).
        #[arg(long)]
        producer_epoch: Option<i16>,
        /// Coordinator epoch of the transaction to abort (brokers before 3.0).
        #[arg(long, allow_hyphen_values = true)]
        coordinator_epoch: Option<i32>,
    },
    /// Find hanging transactions (not supported by this version of Strand).
    FindHanging,
    /// Force abort an ongoing transaction on transactionalId (not supported by this version of Strand).
    #[command(name = "forceTerminateTransaction")]
    ForceTerminateTransaction,
}

pub fn run(args: TransactionsArgs) -> ExitCode {
    tool::report_plain(execute(args))
}

/// Kafka's `printErrorAndExit(message, cause)`.
fn failed_because(message: &str, cause: &ClientError) -> Failure {
    Failure::Operation(format!("{message}: {cause}. Enable debug logging for additional detail."))
}

fn execute(args: TransactionsArgs) -> Result<(), Failure> {
    let unsupported = |name: &str| Failure::Operation(format!("{name} is not supported by this version of Strand"));
    match &args.command {
        TransactionsCommand::FindHanging => return Err(unsupported("find-hanging")),
        TransactionsCommand::ForceTerminateTransaction => return Err(unsupported("forceTerminateTransaction")),
        TransactionsCommand::Abort { start_offset: None, producer_id: None, .. } => {
            return Err(Failure::Operation(
                "The transaction to abort must be identified either with --start-offset (for brokers on 3.0 or above) \
                 or with --producer-id, --producer-epoch, and --coordinator-epoch (for older brokers)"
                    .into(),
            ));
        }
        _ => {}
    }
    let config = tool::client_config(&args.bootstrap_server, args.command_config.as_deref())?;
    tool::block_on(async move {
        let admin = tool::admin(config).await?;
        match args.command {
            TransactionsCommand::List { duration_filter } => {
                let listed = admin
                    .list_transactions(duration_filter.unwrap_or(-1))
                    .await
                    .map_err(|e| failed_because("Failed to list transactions", &e))?;
                let rows: Vec<Vec<String>> = listed
                    .into_iter()
                    .flat_map(|(broker, listings)| {
                        listings.into_iter().map(move |l| {
                            vec![l.transactional_id, broker.to_string(), l.producer_id.to_string(), l.state]
                        })
                    })
                    .collect();
                let headers = ["TransactionalId", "Coordinator", "ProducerId", "TransactionState"];
                print!("{}", tool::pretty_table(&headers, &rows));
            }
            TransactionsCommand::Describe { transactional_id } => {
                let described = admin.describe_transaction(&transactional_id).await.map_err(|e| {
                    let e = if e.code() == Some(ErrorCode::TransactionalIdNotFound) {
                        ClientError::Config(format!(
                            "DescribeTransactions request for transactionalId `{transactional_id}` failed because the ID \
                             could not be found"
                        ))
                    } else {
                        e
                    };
                    failed_because(&format!("Failed to describe transaction state of transactional-id `{transactional_id}`"), &e)
                })?;
                let (start, duration) = if described.start_time_ms >= 0 {
                    let now = strand_base::SystemClock.now_ms();
                    (described.start_time_ms.to_string(), (now - described.start_time_ms).to_string())
                } else {
                    ("None".to_owned(), "None".to_owned())
                };
                let partitions: Vec<String> = described.partitions.iter().map(|(t, p)| format!("{t}-{p}")).collect();
                let row = vec![
                    described.coordinator_id.to_string(),
                    transactional_id,
                    described.producer_id.to_string(),
                    described.producer_epoch.to_string(),
                    described.state,
                    described.timeout_ms.to_string(),
                    start,
                    duration,
                    partitions.join(","),
                ];
                let headers = [
                    "CoordinatorId",
                    "TransactionalId",
                    "ProducerId",
                    "ProducerEpoch",
                    "TransactionState",
                    "TransactionTimeoutMs",
                    "CurrentTransactionStartTimeMs",
                    "TransactionDurationMs",
                    "TopicPartitions",
                ];
                print!("{}", tool::pretty_table(&headers, &[row]));
            }
            TransactionsCommand::DescribeProducers { broker_id, topic, partition } => {
                let where_ = broker_id.map_or_else(|| "leader".to_owned(), |b| format!("broker {b}"));
                let tp = (topic, partition);
                let producers = admin.describe_producers(&tp, broker_id).await.map_err(|e| {
                    failed_because(
                        &format!("Failed to describe producers for partition {}-{} on {where_}", tp.0, tp.1),
                        &e,
                    )
                })?;
                let rows: Vec<Vec<String>> = producers
                    .into_iter()
                    .map(|p| {
                        let start = if p.current_txn_start_offset >= 0 {
                            p.current_txn_start_offset.to_string()
                        } else {
                            "None".to_owned()
                        };
                        vec![
                            p.producer_id.to_string(),
                            p.producer_epoch.to_string(),
                            p.coordinator_epoch.to_string(),
                            p.last_sequence.to_string(),
                            p.last_timestamp.to_string(),
                            start,
                        ]
                    })
                    .collect();
                let headers = [
                    "ProducerId",
                    "ProducerEpoch",
                    "LatestCoordinatorEpoch",
                    "LastSequence",
                    "LastTimestamp",
                    "CurrentTransactionStartOffset",
                ];
                print!("{}", tool::pretty_table(&headers, &rows));
            }
            TransactionsCommand::Abort {
                topic,
                partition,
                start_offset,
                producer_id,
                producer_epoch,
                coordinator_epoch,
            } => {
                let tp = (topic, partition);
                let name = format!("{}-{}", tp.0, tp.1);
                let (producer_id, producer_epoch, coordinator_epoch) = match (start_offset, producer_id) {
                    (Some(start), _) => {
                        let producers = admin.describe_producers(&tp, None).await.map_err(|e| {
                            failed_because(&format!("Failed to validate producer state for partition {name}"), &e)
                        })?;
                        let found = producers.into_iter().find(|p| p.current_txn_start_offset == start).ok_or_else(|| {
                            Failure::Operation(format!(
                                "Could not find any open transactions starting at offset {start} on partition {name}"
                            ))
                        })?;
                        (found.producer_id, found.producer_epoch as i16, found.coordinator_epoch.max(0))
                    }
                    (None, Some(id)) => {
                        let epoch = producer_epoch
                            .ok_or_else(|| Failure::Operation("Missing required argument --producer-epoch".into()))?;
                        let coordinator = coordinator_epoch.ok_or_else(|| {
                            Failure::Operation("Missing required argument --coordinator-epoch".into())
                        })?;
                        (id, epoch, coordinator.max(0))
                    }
                    (None, None) => unreachable!("refused above"),
                };
                admin.abort_transaction(&tp, producer_id, producer_epoch, coordinator_epoch).await.map_err(|e| {
                    failed_because(
                        &format!(
                            "Failed to abort transaction AbortTransactionSpec(topicPartition={name}, producerId={producer_id}, \
                             producerEpoch={producer_epoch}, coordinatorEpoch={coordinator_epoch})"
                        ),
                        &e,
                    )
                })?;
            }
            TransactionsCommand::FindHanging | TransactionsCommand::ForceTerminateTransaction => {}
        }
        Ok(())
    })
}
