//! `strand log-dirs`: Kafka's `kafka-log-dirs.sh` (`LogDirsCommand`): `--describe` each log
//! directory of the brokers (`--broker-list`, all by default) and the replicas in it (those of
//! `--topic-list`, all by default), printed as the same JSON, its keys and arrays in the order
//! Kafka's tool prints them (the iteration order of the `HashMap`s it gathers them in).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde_json::Value;
use strand_client::admin_cluster::{LogDirDescription, ReplicaInfo};
use strand_protocol::error::ErrorCode;

use crate::tool::{self, Failure, exception, java_hash, java_hash_map_order_by};

const EXAMPLES: &str = "Example:
  strand log-dirs --bootstrap-server localhost:9092 --describe --topic-list orders";

/// The flags of `kafka-log-dirs.sh`.
#[derive(Debug, Args)]
#[command(
    about = "This tool helps to query log directory usage on the specified brokers (Kafka's kafka-log-dirs.sh).",
    after_help = EXAMPLES,
    infer_long_args = true
)]
pub struct LogDirsArgs {
    /// REQUIRED: the server(s) to use for bootstrapping.
    #[arg(long)]
    bootstrap_server: Option<String>,
    /// Describe the specified log directories on the specified brokers.
    #[arg(long)]
    describe: bool,
    /// The list of brokers to be queried in the form "0,1,2" (all when not given).
    #[arg(long, default_value = "")]
    broker_list: String,
    /// The list of topics to be queried in the form "topic1,topic2,topic3" (all when not given).
    #[arg(long, default_value = "")]
    topic_list: String,
    /// Property file containing configs to be passed to Admin Client.
    #[arg(long)]
    command_config: Option<PathBuf>,
}

pub fn run(args: LogDirsArgs) -> ExitCode {
    tool::report_plain(execute(&args))
}

fn execute(args: &LogDirsArgs) -> Result<(), Failure> {
    let bootstrap = args
        .bootstrap_server
        .as_deref()
        .ok_or_else(|| Failure::Usage("Missing required argument \"[bootstrap-server]\"".into()))?;
    if !args.describe {
        return Err(Failure::Usage("Missing required argument \"[describe]\"".into()));
    }
    let topics: Vec<&str> = args.topic_list.split(',').filter(|t| !t.is_empty()).collect();
    let asked: Vec<i32> = args
        .broker_list
        .split(',')
        .filter(|b| !b.is_empty())
        .map(|b| b.trim().parse().map_err(|_| Failure::Usage(format!("Invalid broker id in --broker-list: {b}"))))
        .collect::<Result<_, _>>()?;
    let config = tool::client_config(bootstrap, args.command_config.as_deref())?;
    tool::block_on(async move {
        let admin = tool::admin(config).await?;
        let failed = |e| Failure::Operation(exception(e));
        let cluster: Vec<i32> = admin.describe_cluster().await.map_err(failed)?.nodes.iter().map(|n| n.id).collect();
        let missing: Vec<i32> = asked.iter().copied().filter(|b| !cluster.contains(b)).collect();
        if !missing.is_empty() {
            return Err(Failure::Operation(format!(
                "ERROR: The given brokers do not exist from --broker-list: {}. Current existent brokers: {}",
                id_set(missing),
                id_set(cluster)
            )));
        }
        let brokers = if asked.is_empty() { cluster } else { asked };
        let brokers = java_hash_map_order_by(dedup(brokers), 16, |b| *b);
        println!("Querying brokers for log directories information");
        let mut described = Vec::new();
        for &broker in &brokers {
            described.push((broker, admin.describe_log_dirs(broker).await.map_err(failed)?));
        }
        println!("Received log directory information from brokers {}", id_set(brokers));
        println!("{}", json(described, &topics));
        Ok(())
    })
}

fn dedup(mut ids: Vec<i32>) -> Vec<i32> {
    let mut seen = std::collections::HashSet::new();
    ids.retain(|id| seen.insert(*id));
    ids
}

/// A `HashSet<Integer>` joined with commas, in its iteration order.
fn id_set(ids: Vec<i32>) -> String {
    let ids = java_hash_map_order_by(dedup(ids), 16, |b| *b);
    ids.iter().map(i32::to_string).collect::<Vec<_>>().join(",")
}

/// Kafka's `formatAsJson`: `{"brokers":[{"broker":N,"logDirs":[{"partitions":[...],"error":...,
/// "logDir":"..."}]}],"version":1}`.
fn json(brokers: Vec<(i32, Vec<LogDirDescription>)>, topics: &[&str]) -> String {
    let brokers: Vec<String> = java_hash_map_order_by(brokers, 16, |(id, _)| *id)
        .into_iter()
        .map(|(broker, dirs)| {
            let expected = dirs.len();
            let dirs: Vec<String> = java_hash_map_order_by(dirs, expected, |d| java_hash(&d.path))
                .iter()
                .map(|d| dir_json(d, topics))
                .collect();
            format!("{{\"broker\":{broker},\"logDirs\":[{}]}}", dirs.join(","))
        })
        .collect();
    format!("{{\"brokers\":[{}],\"version\":1}}", brokers.join(","))
}

fn dir_json(dir: &LogDirDescription, topics: &[&str]) -> String {
    let hash = |r: &&ReplicaInfo| 31i32.wrapping_mul(31i32.wrapping_add(r.partition)).wrapping_add(java_hash(&r.topic));
    let replicas: Vec<&ReplicaInfo> = dir.replicas.iter().collect();
    let kept: Vec<&ReplicaInfo> = java_hash_map_order_by(replicas, 16, hash)
        .into_iter()
        .filter(|r| topics.is_empty() || topics.contains(&r.topic.as_str()))
        .collect();
    let partitions: Vec<String> = java_hash_map_order_by(kept, 16, hash)
        .into_iter()
        .map(|r| {
            format!(
                "{{\"partition\":{},\"size\":{},\"offsetLag\":{},\"isFuture\":{}}}",
                Value::from(format!("{}-{}", r.topic, r.partition)),
                r.size,
                r.offset_lag,
                r.is_future
            )
        })
        .collect();
    let error = match ErrorCode::from_code(dir.error_code) {
        None | Some(ErrorCode::None) => "null".to_owned(),
        Some(ErrorCode::KafkaStorageError) => "\"org.apache.kafka.common.errors.KafkaStorageException\"".to_owned(),
        Some(code) => format!("\"org.apache.kafka.common.errors.{code:?}Exception\""),
    };
    format!(
        "{{\"partitions\":[{}],\"error\":{error},\"logDir\":{}}}",
        partitions.join(","),
        Value::from(dir.path.as_str())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replica(topic: &str, partition: i32) -> ReplicaInfo {
        ReplicaInfo { topic: topic.into(), partition, size: 10, offset_lag: 0, is_future: false }
    }

    /// As Kafka 4.4's tool printed a two-partition topic: the partitions in HashMap order.
    #[test]
    fn the_json_is_kafka_s() {
        let dir =
            LogDirDescription { path: "/d".into(), error_code: 0, replicas: vec![replica("ld", 0), replica("ld", 1)] };
        assert_eq!(
            json(vec![(1, vec![dir.clone()])], &[]),
            "{\"brokers\":[{\"broker\":1,\"logDirs\":[{\"partitions\":[{\"partition\":\"ld-1\",\"size\":10,\"offsetLag\":0,\
             \"isFuture\":false},{\"partition\":\"ld-0\",\"size\":10,\"offsetLag\":0,\"isFuture\":false}],\"error\":null,\
             \"logDir\":\"/d\"}]}],\"version\":1}"
        );
        assert!(json(vec![(1, vec![dir])], &["other"]).contains("\"partitions\":[]"));
    }
}
