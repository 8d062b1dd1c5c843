//! `strand leader-election`: Kafka's `kafka-leader-election.sh` (`LeaderElectionCommand`):
//! `--election-type preferred|unclean` for `--topic` and `--partition`, `--all-topic-partitions`
//! or the partitions of `--path-to-json-file` (`{"partitions": [{"topic": "t", "partition":
//! 0}]}`), asked of the controller; the partitions elected, those that needed no election and
//! those that failed are printed as Kafka's tool prints them (in its `HashSet`s' order), a failure
//! making the exit code 1.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde_json::Value;
use strand_client::ClientError;
use strand_client::admin_groups::TopicPartition;
use strand_protocol::error::ErrorCode;

use crate::tool::{self, Failure, exception, java_hash_map_order_by, partition_hash};

const EXAMPLES: &str = "Example:
  strand leader-election --bootstrap-server localhost:9092 --election-type preferred --all-topic-partitions";

/// The flags of `kafka-leader-election.sh`.
#[derive(Debug, Args)]
#[command(
    about = "Elect the preferred or an unclean leader for partitions (Kafka's kafka-leader-election.sh).",
    after_help = EXAMPLES,
    infer_long_args = true
)]
pub struct LeaderElectionArgs {
    /// A hostname and port for the broker to connect to, in the form host:port.
    #[arg(long)]
    bootstrap_server: Option<String>,
    /// Configuration properties files to pass to the admin client.
    #[arg(long = "admin.config", alias = "command-config")]
    admin_config: Option<PathBuf>,
    /// The JSON file with the list of partitions for which leader elections should be performed.
    #[arg(long)]
    path_to_json_file: Option<PathBuf>,
    /// Name of topic for which to perform an election (requires --partition).
    #[arg(long)]
    topic: Option<String>,
    /// Partition id for which to perform an election (requires --topic).
    #[arg(long)]
    partition: Option<i32>,
    /// Perform election on all of the eligible topic partitions.
    #[arg(long)]
    all_topic_partitions: bool,
    /// Type of election to attempt: preferred or unclean.
    #[arg(long)]
    election_type: Option<String>,
}

pub fn run(args: LeaderElectionArgs) -> ExitCode {
    tool::report_plain(execute(&args))
}

fn execute(args: &LeaderElectionArgs) -> Result<(), Failure> {
    let failed = |message: String| Failure::Operation(message);
    let bootstrap = args
        .bootstrap_server
        .as_deref()
        .ok_or_else(|| failed("Missing required option(s): bootstrap-server".into()))?;
    let sources = [args.topic.is_some(), args.all_topic_partitions, args.path_to_json_file.is_some()];
    if sources.iter().filter(|given| **given).count() != 1 {
        return Err(failed(
            "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file"
                .into(),
        ));
    }
    let (election_type, name) = match args.election_type.as_deref().map(str::to_ascii_uppercase).as_deref() {
        None => return Err(failed("Missing required option(s): election-type".into())),
        Some("PREFERRED") => (0, "PREFERRED"),
        Some("UNCLEAN") => (1, "UNCLEAN"),
        Some(other) => return Err(failed(format!("Unknown election type: {other}"))),
    };
    let partitions: Option<Vec<TopicPartition>> = match (&args.topic, args.partition, &args.path_to_json_file) {
        (Some(topic), Some(partition), _) => Some(vec![(topic.clone(), partition)]),
        (Some(_), None, _) => return Err(failed("Missing required option(s): partition".into())),
        (None, _, Some(path)) => Some(election_file(path)?),
        (None, _, None) => None,
    };
    let config = tool::client_config(bootstrap, args.admin_config.as_deref())?;
    tool::block_on(async move {
        let admin = tool::admin(config).await?;
        let results = match admin.elect_leaders(election_type, partitions.as_deref()).await {
            Ok(results) => results,
            Err(ClientError::Timeout(_)) => {
                println!("Timeout waiting for election results");
                return Err(failed("Timeout waiting for election results".into()));
            }
            Err(e) if e.code() == Some(ErrorCode::ClusterAuthorizationFailed) => {
                println!("Not authorized to perform leader election");
                return Err(failed("Not authorized to perform leader election".into()));
            }
            Err(e) => return Err(failed(exception(e))),
        };
        // The results' HashMap, then a HashSet or HashMap of each kind.
        let results = java_hash_map_order_by(results, 16, |(tp, _)| partition_hash(tp));
        let (mut elected, mut noop, mut errors) = (Vec::new(), Vec::new(), Vec::new());
        for (partition, outcome) in results {
            match outcome {
                Ok(()) => elected.push((partition, ())),
                Err(e) if e.code() == Some(ErrorCode::ElectionNotNeeded) => noop.push((partition, ())),
                Err(e) => errors.push((partition, e)),
            }
        }
        let names = |set: Vec<(TopicPartition, ())>| {
            let ordered = java_hash_map_order_by(set, 16, |(tp, _)| partition_hash(tp));
            ordered.iter().map(|((t, p), _)| format!("{t}-{p}")).collect::<Vec<_>>().join(", ")
        };
        if !elected.is_empty() {
            println!("Successfully completed leader election ({name}) for partitions {}", names(elected));
        }
        if !noop.is_empty() {
            println!("Valid replica already elected for partitions {}", names(noop));
        }
        if !errors.is_empty() {
            let count = errors.len();
            for ((topic, partition), error) in java_hash_map_order_by(errors, 16, |(tp, _)| partition_hash(tp)) {
                println!(
                    "Error completing leader election ({name}) for partition: {topic}-{partition}: {}",
                    exception(error)
                );
            }
            return Err(failed(format!("{count} replica(s) could not be elected")));
        }
        Ok(())
    })
}

/// The partitions of an election file, refusing one named twice, as Kafka's `topicPartitions`.
fn election_file(path: &std::path::Path) -> Result<Vec<TopicPartition>, Failure> {
    let failed = |message: String| Failure::Operation(message);
    let text = std::fs::read_to_string(path).map_err(|e| failed(format!("{}: {e}", path.display())))?;
    let json: Value = serde_json::from_str(&text).map_err(|_| failed("Replica election data is empty".into()))?;
    let entries = json
        .get("partitions")
        .and_then(Value::as_array)
        .ok_or_else(|| failed("Replica election data is missing \"partitions\" field".into()))?;
    let mut partitions = Vec::new();
    let mut duplicates = Vec::new();
    for entry in entries {
        let topic = entry.get("topic").and_then(Value::as_str);
        let partition = entry.get("partition").and_then(Value::as_i64).and_then(|p| i32::try_from(p).ok());
        let (Some(topic), Some(partition)) = (topic, partition) else {
            return Err(failed(format!("Invalid partition in replica election data: {entry}")));
        };
        let key = (topic.to_owned(), partition);
        if partitions.contains(&key) {
            duplicates.push(format!("{topic}-{partition}"));
        } else {
            partitions.push(key);
        }
    }
    if !duplicates.is_empty() {
        return Err(failed(format!("Replica election data contains duplicate partitions: {}", duplicates.join(","))));
    }
    Ok(partitions)
}
