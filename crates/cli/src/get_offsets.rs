//! `strand get-offsets`: Kafka's `kafka-get-offsets.sh` (`GetOffsetShell`). The partitions are
//! chosen as Kafka's tool chooses them (`--topic` as a regular expression matched whole, with
//! `--partitions`; or `--topic-partitions` rules such as `orders:0-3,^audit.*:5-`), internal
//! topics included unless `--exclude-internal-topics`; their offsets for `--time` (`latest`,
//! `earliest`, `max-timestamp`, `earliest-local`, `latest-tiered`, `earliest-pending-upload`,
//! their numbers -1 to -6, or a time in ms) are asked of their leaders and printed as
//! `topic:partition:offset`, sorted as Kafka sorts them (by the text `topic-partition`), leaving
//! out partitions with no such offset.
//!
//! As Kafka's tool: a failure prints `Error occurred: <reason>` on stderr and exits 1; a
//! partition whose lookup fails is skipped with a line on stderr.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use regex::Regex;
use strand_client::admin_offsets::OffsetSpec;

use crate::tool::{self, Failure, Output};

const EXAMPLES: &str = "Examples:
  strand get-offsets --bootstrap-server localhost:9092 --topic orders
  strand get-offsets --bootstrap-server localhost:9092 --topic-partitions 'orders:0-2,audit' --time earliest";

/// The flags of `kafka-get-offsets.sh`.
#[derive(Debug, Args)]
#[command(
    about = "An interactive shell for getting topic-partition offsets (Kafka's kafka-get-offsets.sh).",
    after_help = EXAMPLES,
    infer_long_args = true
)]
pub struct GetOffsetsArgs {
    /// REQUIRED. The server(s) to connect to in the form HOST1:PORT1,HOST2:PORT2.
    #[arg(long)]
    bootstrap_server: Option<String>,
    /// Comma separated list of topic-partition patterns to get the offsets for, with the format
    /// of 'TOPIC_REGEX:PARTITIONS' where PARTITIONS is a number, 'N-M' (upper exclusive), 'N-',
    /// '-M' or omitted for all.
    #[arg(long)]
    topic_partitions: Option<String>,
    /// The topic to get the offsets for. It also accepts a regular expression. If not present,
    /// all authorized topics are queried.
    #[arg(long)]
    topic: Option<String>,
    /// Comma separated list of partition ids to get the offsets for.
    #[arg(long)]
    partitions: Option<String>,
    /// <timestamp> / -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local
    /// / -5 or latest-tiered / -6 or earliest-pending-upload.
    #[arg(long, default_value = "latest", allow_hyphen_values = true)]
    time: String,
    /// Property file containing configs to be passed to Admin Client.
    #[arg(long)]
    command_config: Option<PathBuf>,
    /// By default, internal topics are included. If specified, internal topics are excluded.
    #[arg(long)]
    exclude_internal_topics: bool,
    /// Print Kafka's TOPIC:PARTITION:OFFSET lines, or one JSON array of {topic, partition,
    /// offset, timestamp, leaderEpoch} (Strand's, for scripts).
    #[arg(long, value_enum, default_value_t = Output::Text)]
    output: Output,
}

/// Which partitions of a topic a rule takes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Partitions {
    /// Any of these (all when empty): `--partitions`.
    Set(Vec<i32>),
    /// From the lower bound to below the upper one: a rule's `N`, `N-M`, `N-`, `-M`.
    Range(i32, i32),
}

impl Partitions {
    fn allows(&self, partition: i32) -> bool {
        match self {
            Partitions::Set(set) => set.is_empty() || set.contains(&partition),
            Partitions::Range(low, high) => (*low..*high).contains(&partition),
        }
    }
}

/// A topic pattern and the partitions it takes.
#[derive(Debug)]
struct Rule {
    topic: Regex,
    partitions: Partitions,
}

pub fn run(args: GetOffsetsArgs) -> ExitCode {
    match execute(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(reason) | Failure::Operation(reason)) => {
            eprintln!("Error occurred: {reason}");
            ExitCode::FAILURE
        }
    }
}

fn execute(args: &GetOffsetsArgs) -> Result<(), Failure> {
    let bootstrap = args
        .bootstrap_server
        .as_deref()
        .ok_or_else(|| Failure::Usage("Missing required argument \"[bootstrap-server]\"".into()))?;
    if args.topic_partitions.is_some() && (args.topic.is_some() || args.partitions.is_some()) {
        return Err(Failure::Usage("--topic-partitions cannot be used with --topic or --partitions".into()));
    }
    let spec = offset_spec(&args.time)?;
    let rules = match &args.topic_partitions {
        Some(list) => list.split(',').map(rule).collect::<Result<Vec<_>, _>>()?,
        None => vec![Rule {
            topic: topic_regex(args.topic.as_deref().unwrap_or(".*"))?,
            partitions: Partitions::Set(partition_set(args.partitions.as_deref())?),
        }],
    };
    let config = tool::client_config(bootstrap, args.command_config.as_deref())?;
    let (exclude_internal, output) = (args.exclude_internal_topics, args.output);
    tool::block_on(async move {
        let admin = tool::admin(config).await?;
        let mut names: Vec<String> = admin
            .list_topics(!exclude_internal)
            .await?
            .into_iter()
            .map(|t| t.name)
            .filter(|name| rules.iter().any(|r| r.topic.is_match(name)))
            .collect();
        names.sort();
        let mut partitions = Vec::new();
        for topic in admin.describe_topics(&names).await? {
            for p in &topic.partitions {
                let allowed = rules.iter().any(|r| r.topic.is_match(&topic.name) && r.partitions.allows(p.partition));
                if allowed {
                    partitions.push((topic.name.clone(), p.partition));
                }
            }
        }
        if partitions.is_empty() {
            return Err(Failure::Operation("Could not match any topic-partitions with the specified filters".into()));
        }
        let answers = admin.list_offsets(&partitions, spec, 0).await?;
        let mut found = Vec::new();
        for ((topic, partition), answer) in partitions.iter().zip(answers) {
            match answer {
                Ok(listed) if listed.offset != -1 => {
                    found.push((format!("{topic}-{partition}"), topic, partition, listed))
                }
                Ok(_) => {}
                Err(error) => {
                    eprintln!("Skip getting offsets for topic-partition {topic}-{partition} due to error: {error}")
                }
            }
        }
        // Kafka's order: by the "topic-partition" text.
        found.sort_by(|a, b| a.0.cmp(&b.0));
        match output {
            Output::Text => {
                for (_, topic, partition, listed) in found {
                    println!("{topic}:{partition}:{}", listed.offset);
                }
            }
            Output::Json => {
                let documents: Vec<serde_json::Value> = found
                    .into_iter()
                    .map(|(_, topic, partition, listed)| {
                        serde_json::json!({
                            "topic": topic,
                            "partition": partition,
                            "offset": listed.offset,
                            "timestamp": (listed.timestamp >= 0).then_some(listed.timestamp),
                            "leaderEpoch": (listed.leader_epoch >= 0).then_some(listed.leader_epoch),
                        })
                    })
                    .collect();
                println!("{}", serde_json::Value::from(documents));
            }
        }
        Ok(())
    })
}

/// `--time` as Kafka's `parseOffsetSpec` reads it.
fn offset_spec(time: &str) -> Result<OffsetSpec, Failure> {
    Ok(match time {
        "earliest" | "-2" => OffsetSpec::Earliest,
        "latest" | "-1" => OffsetSpec::Latest,
        "max-timestamp" | "-3" => OffsetSpec::MaxTimestamp,
        "earliest-local" | "-4" => OffsetSpec::EarliestLocal,
        "latest-tiered" | "-5" => OffsetSpec::LatestTiered,
        "earliest-pending-upload" | "-6" => OffsetSpec::EarliestPendingUpload,
        other => OffsetSpec::Timestamp(other.parse().map_err(|_| {
            Failure::Usage(format!(
                "Malformed time argument {other}. Please use -1 or latest / -2 or earliest / -3 or max-timestamp / \
                 -4 or earliest-local / -5 or latest-tiered / -6 or earliest-pending-upload, or a specified long \
                 format timestamp"
            ))
        })?),
    })
}

/// A topic pattern as Kafka's `IncludeList` reads it (commas are alternatives, spaces and
/// surrounding quotes dropped), matched against the whole name.
fn topic_regex(raw: &str) -> Result<Regex, Failure> {
    let cleaned = raw.trim().replace(',', "|").replace(' ', "");
    let cleaned = cleaned.trim_start_matches(['"', '\'']).trim_end_matches(['"', '\'']);
    Regex::new(&format!("^(?:{cleaned})$")).map_err(|_| Failure::Usage(format!("{cleaned} is an invalid regex.")))
}

/// `--partitions`: a comma-separated list of ids (none: all).
fn partition_set(list: Option<&str>) -> Result<Vec<i32>, Failure> {
    let Some(list) = list.filter(|l| !l.is_empty()) else { return Ok(Vec::new()) };
    list.split(',').map(|id| id.parse()).collect::<Result<_, _>>().map_err(|_| {
        Failure::Usage(format!(
            "--partitions expects a comma separated list of numeric partition ids, but received: {list}"
        ))
    })
}

/// One `--topic-partitions` rule: `TOPIC_REGEX`, optionally `:N`, `:N-M`, `:N-` or `:-M`.
fn rule(spec: &str) -> Result<Rule, Failure> {
    let invalid = || Failure::Usage(format!("Invalid rule specification: {spec}"));
    let (topic, partitions) = match spec.split_once(':') {
        Some((topic, partitions)) => (topic, Some(partitions)),
        None => (spec, None),
    };
    let number = |text: &str| -> Result<Option<i32>, Failure> {
        if text.is_empty() {
            return Ok(None);
        }
        if !text.bytes().all(|b| b.is_ascii_digit()) {
            return Err(invalid());
        }
        text.parse().map(Some).map_err(|_| invalid())
    };
    let partitions = match partitions {
        None | Some("") => Partitions::Range(0, i32::MAX),
        Some(text) => match text.split_once('-') {
            None => match number(text)? {
                Some(only) => Partitions::Set(vec![only]),
                None => Partitions::Range(0, i32::MAX),
            },
            Some((low, high)) => Partitions::Range(number(low)?.unwrap_or(0), number(high)?.unwrap_or(i32::MAX)),
        },
    };
    let topic = if topic.is_empty() { ".*" } else { topic };
    Ok(Rule { topic: topic_regex(topic)?, partitions })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(spec: &str, topic: &str, partitions: std::ops::Range<i32>) -> Vec<i32> {
        let rule = rule(spec).expect("a valid rule");
        partitions.filter(|&p| rule.topic.is_match(topic) && rule.partitions.allows(p)).collect()
    }

    /// Kafka's rule forms: a number, N-M (upper exclusive), N-, -M, none; the topic a regex
    /// matched whole, empty for any.
    #[test]
    fn rules_take_the_partitions_kafka_s_do() {
        assert_eq!(allowed("orders:1", "orders", 0..5), [1]);
        assert_eq!(allowed("orders:1-3", "orders", 0..5), [1, 2]);
        assert_eq!(allowed("orders:3-", "orders", 0..5), [3, 4]);
        assert_eq!(allowed("orders:-2", "orders", 0..5), [0, 1]);
        assert_eq!(allowed("orders", "orders", 0..3), [0, 1, 2]);
        assert_eq!(allowed(":0", "anything", 0..3), [0]);
        assert_eq!(allowed("ord.*", "orders", 0..1), [0]);
        assert!(allowed("ord", "orders", 0..3).is_empty(), "a pattern matches the whole name");
        assert!(matches!(rule("orders:x"), Err(Failure::Usage(m)) if m == "Invalid rule specification: orders:x"));
        assert!(matches!(rule("orders:1-2-3"), Err(Failure::Usage(_))));
    }

    #[test]
    fn times_are_read_as_kafka_reads_them() {
        assert_eq!(offset_spec("latest").ok(), Some(OffsetSpec::Latest));
        assert_eq!(offset_spec("-2").ok(), Some(OffsetSpec::Earliest));
        assert_eq!(offset_spec("-3").ok(), Some(OffsetSpec::MaxTimestamp));
        assert_eq!(offset_spec("1700000000000").ok(), Some(OffsetSpec::Timestamp(1_700_000_000_000)));
        assert!(
            matches!(offset_spec("yesterday"), Err(Failure::Usage(m)) if m.starts_with("Malformed time argument yesterday."))
        );
        assert_eq!(topic_regex(" 'a, b' ").map(|r| r.is_match("b")).ok(), Some(true));
        assert!(matches!(partition_set(Some("1,x")), Err(Failure::Usage(_))));
    }
}
