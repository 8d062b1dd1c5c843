//! `strand delete-records`: Kafka's `kafka-delete-records.sh` (`DeleteRecordsCommand`). The
//! `--offset-json-file` names each partition's new start (`{"partitions": [{"topic": "orders",
//! "partition": 0, "offset": 10}], "version": 1}`; offset -1: the high watermark); each leader
//! is asked once, and each partition's new low watermark (or its error) is printed as Kafka's
//! tool prints it, sorted by partition (Kafka's order is an immutable map's, which changes from
//! run to run).
//!
//! As Kafka's tool: a file it cannot read or use prints the reason on stderr and exits 1.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde_json::Value;
use strand_client::admin_groups::TopicPartition;

use crate::tool::{self, Failure, exception};

const EXAMPLES: &str = "Example:
  echo '{\"partitions\": [{\"topic\": \"orders\", \"partition\": 0, \"offset\": 10}], \"version\": 1}' > trim.json
  strand delete-records --bootstrap-server localhost:9092 --offset-json-file trim.json";

/// The flags of `kafka-delete-records.sh`.
#[derive(Debug, Args)]
#[command(
    about = "Delete the records of partitions before an offset (Kafka's kafka-delete-records.sh).",
    after_help = EXAMPLES,
    infer_long_args = true
)]
pub struct DeleteRecordsArgs {
    /// REQUIRED: The server to connect to.
    #[arg(long)]
    bootstrap_server: Option<String>,
    /// REQUIRED: The JSON file with offset per partition.
    #[arg(long)]
    offset_json_file: Option<PathBuf>,
    /// A property file containing configs to be passed to Admin Client.
    #[arg(long)]
    command_config: Option<PathBuf>,
}

pub fn run(args: DeleteRecordsArgs) -> ExitCode {
    tool::report_plain(execute(&args))
}

fn execute(args: &DeleteRecordsArgs) -> Result<(), Failure> {
    let missing = |name: &str| Failure::Usage(format!("Missing required argument \"[{name}]\""));
    let bootstrap = args.bootstrap_server.as_deref().ok_or_else(|| missing("bootstrap-server"))?;
    let file = args.offset_json_file.as_deref().ok_or_else(|| missing("offset-json-file"))?;
    let text = std::fs::read_to_string(file).map_err(|_| Failure::Operation(file.display().to_string()))?;
    let before = offsets(&text)?;
    let config = tool::client_config(bootstrap, args.command_config.as_deref())?;
    tool::block_on(async move {
        let admin = tool::admin(config).await?;
        println!("Executing records delete operation");
        let answers = admin.delete_records(&before).await?;
        println!("Records delete operation completed:");
        let mut results: Vec<_> = before.iter().map(|(tp, _)| tp).zip(answers).collect();
        results.sort_by_key(|(tp, _)| *tp);
        for ((topic, partition), answer) in results {
            match answer {
                Ok(low_watermark) => println!("partition: {topic}-{partition}\tlow_watermark: {low_watermark}"),
                Err(error) => println!("partition: {topic}-{partition}\terror: {}", exception(error)),
            }
        }
        Ok(())
    })
}

/// The file's partitions and offsets, as Kafka's `parseOffsetJsonStringWithoutDedup` reads
/// them (version 1 only), refusing a partition named twice.
fn offsets(text: &str) -> Result<Vec<(TopicPartition, i64)>, Failure> {
    let failed = |message: &str| Failure::Operation(message.to_owned());
    let json: Value = serde_json::from_str(text).map_err(|_| failed("The input string is not a valid JSON"))?;
    let version = match json.get("version") {
        None => 1,
        Some(version) => version.as_i64().ok_or_else(|| failed("Expected `version` to be an int"))?,
    };
    if version != 1 {
        return Err(failed(&format!("Not supported version field value {version}")));
    }
    let partitions = json.get("partitions").ok_or_else(|| failed("Missing partitions field"))?;
    let partitions = partitions.as_array().ok_or_else(|| failed("Expected `partitions` to be an array"))?;
    let mut named: BTreeMap<TopicPartition, Vec<i64>> = BTreeMap::new();
    let mut order = Vec::new();
    for entry in partitions {
        let field = |name: &str| entry.get(name).ok_or_else(|| failed(&format!("No such field exists: `{name}`")));
        let topic = field("topic")?.as_str().ok_or_else(|| failed("Expected `topic` to be a string"))?;
        let partition = field("partition")?.as_i64().and_then(|p| i32::try_from(p).ok());
        let partition = partition.ok_or_else(|| failed("Expected `partition` to be an int"))?;
        let offset = field("offset")?.as_i64().ok_or_else(|| failed("Expected `offset` to be a long"))?;
        let key = (topic.to_owned(), partition);
        if !named.contains_key(&key) {
            order.push(key.clone());
        }
        named.entry(key).or_default().push(offset);
    }
    let duplicates: Vec<String> =
        named.iter().filter(|(_, offsets)| offsets.len() > 1).map(|((t, p), _)| format!("{t}-{p}")).collect();
    if !duplicates.is_empty() {
        return Err(failed(&format!("Offset json file contains duplicate topic partitions: {}", duplicates.join(","))));
    }
    Ok(order
        .into_iter()
        .map(|key| {
            let offset = named[&key][0];
            (key, offset)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(text: &str) -> String {
        match offsets(text) {
            Err(Failure::Operation(message)) => message,
            other => panic!("{text}: not refused: {other:?}"),
        }
    }

    #[test]
    fn the_file_is_read_as_kafka_reads_it() {
        let read = offsets(r#"{"partitions": [{"topic": "a", "partition": 1, "offset": -1}]}"#).ok();
        assert_eq!(read, Some(vec![(("a".to_owned(), 1), -1)]));
        assert_eq!(refusal("{"), "The input string is not a valid JSON");
        assert_eq!(refusal(r#"{"version": 2, "partitions": []}"#), "Not supported version field value 2");
        assert_eq!(refusal(r#"{"version": 1}"#), "Missing partitions field");
        let twice = r#"{"partitions": [{"topic": "a", "partition": 0, "offset": 1}, {"topic": "a", "partition": 0, "offset": 2}]}"#;
        assert_eq!(refusal(twice), "Offset json file contains duplicate topic partitions: a-0");
    }
}
