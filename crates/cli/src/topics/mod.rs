//! `strand topics`: Kafka's `kafka-topics.sh` (`TopicCommand`), with its flags, checks, output
//! and exit codes, over `strand-client`'s admin API.
//!
//! - This file: the flags (clap, long options abbreviable as joptsimple allows), Kafka's checks
//!   of their combinations (a wrong combination: the reason on stderr, exit 1), and `--create`,
//!   `--alter`, `--delete`, `--list`.
//! - [`describe`]: `--describe` and its report filters, as text or `--output json`.
//!
//! As in Kafka: `--topic` is a regular expression (a comma separates alternatives) except for
//! `--create`; internal topics are listed unless `--exclude-internal`; a topic missing without
//! `--if-exists` fails with "Topic 'x' does not exist as expected".
//!
//! What it is not (yet): no client-side validation of `--config` values (Kafka's
//! `LogConfig.validate`): the broker refuses a bad one, with its own message.

mod describe;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use strand_client::Admin;
use strand_client::admin::{NewTopic, PartitionIncrease};

use crate::tool::{self, Failure, Output};

const EXAMPLES: &str = "Examples:
  strand topics --bootstrap-server localhost:9092 --create --topic orders --partitions 3 --replication-factor 1
  strand topics --bootstrap-server localhost:9092 --describe --topic orders --output json";

/// The flags of `kafka-topics.sh`.
#[derive(Debug, Args)]
#[command(
    about = "Create, delete, describe, or change a topic (Kafka's kafka-topics.sh).",
    after_help = EXAMPLES,
    infer_long_args = true
)]
pub struct TopicsArgs {
    /// REQUIRED: The Kafka server to connect to.
    #[arg(long, value_name = "server to connect to")]
    bootstrap_server: Option<String>,
    /// Property file containing configs to be passed to Admin Client.
    #[arg(long, value_name = "command config property file")]
    command_config: Option<PathBuf>,
    /// List all available topics.
    #[arg(long)]
    list: bool,
    /// Create a new topic.
    #[arg(long)]
    create: bool,
    /// Delete a topic.
    #[arg(long)]
    delete: bool,
    /// Alter the number of partitions and replica assignment.
    #[arg(long)]
    alter: bool,
    /// List details for the given topics.
    #[arg(long)]
    describe: bool,
    /// The topic to create, alter, describe or delete. It also accepts a regular expression, except for --create.
    #[arg(long)]
    topic: Option<String>,
    /// The topic-id to describe.
    #[arg(long)]
    topic_id: Option<String>,
    /// A topic configuration override for the topic being created.
    #[arg(long, value_name = "name=value")]
    config: Vec<String>,
    /// No longer supported (since Kafka 4.0).
    #[arg(long, value_name = "name")]
    delete_config: Vec<String>,
    /// The number of partitions for the topic being created or altered.
    #[arg(long, value_name = "# of partitions", allow_hyphen_values = true)]
    partitions: Option<i32>,
    /// The replication factor for each partition in the topic being created.
    #[arg(long, value_name = "replication factor", allow_hyphen_values = true)]
    replication_factor: Option<i32>,
    /// Manual partition-to-broker assignments: b1:b2,b1:b2,...
    #[arg(long, value_name = "broker_id_for_part1_replica1 : broker_id_for_part1_replica2 , ...")]
    replica_assignment: Option<String>,
    /// If set when describing topics, only show under-replicated partitions.
    #[arg(long)]
    under_replicated_partitions: bool,
    /// If set when describing topics, only show partitions whose leader is not available.
    #[arg(long)]
    unavailable_partitions: bool,
    /// If set when describing topics, only show partitions whose isr count is less than the configured minimum.
    #[arg(long)]
    under_min_isr_partitions: bool,
    /// If set when describing topics, only show partitions whose isr count is equal to the configured minimum.
    #[arg(long)]
    at_min_isr_partitions: bool,
    /// If set when describing topics, only show topics that have overridden configs.
    #[arg(long)]
    topics_with_overrides: bool,
    /// If set when altering or deleting or describing topics, the action will only execute if the topic exists.
    #[arg(long)]
    if_exists: bool,
    /// If set when creating topics, the create request will not fail if the topic already exists.
    #[arg(long)]
    if_not_exists: bool,
    /// Exclude internal topics when listing or describing topics.
    #[arg(long)]
    exclude_internal: bool,
    /// The maximum partition size to be included in one DescribeTopicPartitions response.
    #[arg(long, value_name = "maximum number of partitions per response")]
    partition_size_limit_per_response: Option<i32>,
    /// Print --list or --describe as text (Kafka's) or JSON.
    #[arg(long, value_enum, default_value_t = Output::Text)]
    output: Output,
}

pub fn run(args: TopicsArgs) -> ExitCode {
    tool::report("topic", execute(&args), "strand topics")
}

fn execute(args: &TopicsArgs) -> Result<(), Failure> {
    check(args)?;
    let bootstrap = args.bootstrap_server.as_deref().unwrap_or_default();
    let config = tool::client_config(bootstrap, args.command_config.as_deref())?;
    tool::block_on(async {
        let admin = tool::admin(config).await?;
        if args.create {
            create(&admin, args).await
        } else if args.alter {
            alter(&admin, args).await
        } else if args.list {
            list(&admin, args).await
        } else if args.describe {
            describe::run(&admin, args).await
        } else {
            delete(&admin, args).await
        }
    })
}

/// Kafka's `TopicCommandOptions.checkArgs`, with its messages.
fn check(args: &TopicsArgs) -> Result<(), Failure> {
    let usage = |message: &str| Err(Failure::Usage(message.to_owned()));
    let actions = [args.create, args.list, args.alter, args.describe, args.delete];
    if actions.iter().filter(|a| **a).count() != 1 {
        return usage("Command must include exactly one action: --list, --describe, --create, --alter or --delete");
    }
    if !args.delete_config.is_empty() {
        eprintln!(
            "delete-config option is no longer supported and deprecated since version 4.0. The config will be fully removed in future releases."
        );
    }
    if args.bootstrap_server.is_none() {
        return usage("--bootstrap-server must be specified");
    }
    if args.describe && args.if_exists {
        if args.topic.is_none() && args.topic_id.is_none() {
            return usage("--topic or --topic-id is required to describe a topic");
        }
        if args.topic.is_some() && args.topic_id.is_some() {
            println!(
                "Only topic id will be used when both --topic and --topic-id are specified and topicId is not Uuid.ZERO_UUID"
            );
        }
    }
    if !args.list && !args.describe && args.topic.is_none() {
        return usage("Missing required argument \"[topic]\"");
    }
    if args.alter {
        if !args.config.is_empty() {
            return usage(
                "Option combination \"[bootstrap-server],[config]\" can't be used with option \"[alter]\" (To alter topic configurations, the kafka-configs tool can be used.)",
            );
        }
        if args.partitions.is_none() {
            return usage("Missing required argument \"[partitions]\"");
        }
    }
    check_combinations(args)
}

/// Kafka's `checkInvalidArgs`: options that only some actions take.
fn check_combinations(args: &TopicsArgs) -> Result<(), Failure> {
    let action = [
        (args.alter, "alter"),
        (args.create, "create"),
        (args.describe, "describe"),
        (args.list, "list"),
        (args.delete, "delete"),
    ]
    .into_iter()
    .find_map(|(set, name)| set.then_some(name))
    .unwrap_or("list");
    let reports = [
        (args.under_replicated_partitions, "under-replicated-partitions"),
        (args.under_min_isr_partitions, "under-min-isr-partitions"),
        (args.at_min_isr_partitions, "at-min-isr-partitions"),
        (args.unavailable_partitions, "unavailable-partitions"),
    ];
    let only = |used: bool, option: &str, allowed: &[&str]| -> Result<(), Failure> {
        if used && !allowed.contains(&action) {
            return Err(Failure::Usage(format!("Option \"[{option}]\" can't be used with option \"[{action}]\"")));
        }
        Ok(())
    };
    only(!args.config.is_empty(), "config", &["alter", "create"])?;
    only(args.partitions.is_some(), "partitions", &["alter", "create"])?;
    only(args.replication_factor.is_some(), "replication-factor", &["create"])?;
    only(args.replica_assignment.is_some(), "replica-assignment", &["alter", "create"])?;
    if args.create && args.replica_assignment.is_some() {
        for (used, option) in
            [(args.partitions.is_some(), "partitions"), (args.replication_factor.is_some(), "replication-factor")]
        {
            if used {
                return Err(Failure::Usage(format!(
                    "Option \"[replica-assignment]\" can't be used with option \"[{option}]\""
                )));
            }
        }
    }
    for (used, option) in reports {
        only(used, option, &["describe"])?;
        if used && args.topics_with_overrides {
            return Err(Failure::Usage(format!(
                "Option \"[{option}]\" can't be used with option \"[topics-with-overrides]\""
            )));
        }
    }
    only(args.topics_with_overrides, "topics-with-overrides", &["describe"])?;
    only(args.if_exists, "if-exists", &["alter", "delete", "describe"])?;
    only(args.if_not_exists, "if-not-exists", &["create"])?;
    only(args.exclude_internal, "exclude-internal", &["list", "describe"])?;
    if args.output == Output::Json && !args.list && !args.describe {
        return Err(Failure::Usage("--output json is only for --list and --describe".into()));
    }
    Ok(())
}

/// Kafka's `parseReplicaAssignment`: `1:2,2:3` is partition 0 on brokers 1 and 2, and so on.
fn parse_replica_assignment(text: &str) -> Result<BTreeMap<i32, Vec<i32>>, Failure> {
    let mut assignment = BTreeMap::new();
    let mut factor = None;
    for (partition, replicas) in (0..).zip(java_split(text, ',')) {
        let brokers = java_split(replicas, ':')
            .into_iter()
            .map(|id| {
                id.trim().parse::<i32>().map_err(|_| Failure::Operation(format!("For input string: \"{}\"", id.trim())))
            })
            .collect::<Result<Vec<i32>, Failure>>()?;
        let mut seen = std::collections::BTreeSet::new();
        let duplicates: Vec<String> =
            brokers.iter().filter(|b| !seen.insert(**b)).map(ToString::to_string).collect::<Vec<_>>();
        if !duplicates.is_empty() {
            let mut duplicates = duplicates;
            duplicates.dedup();
            return Err(Failure::Operation(format!(
                "Partition replica lists may not contain duplicate entries: {}",
                duplicates.join(",")
            )));
        }
        if *factor.get_or_insert(brokers.len()) != brokers.len() {
            let listed = brokers.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
            return Err(Failure::Operation(format!(
                "Partition {partition} has different replication factor: [{listed}]"
            )));
        }
        assignment.insert(partition, brokers);
    }
    Ok(assignment)
}

/// Java's `String.split(sep)`: trailing empty strings dropped.
fn java_split(text: &str, separator: char) -> Vec<&str> {
    let mut parts: Vec<&str> = text.split(separator).collect();
    while parts.len() > 1 && parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts
}

/// Kafka's `parseTopicConfigsToBeAdded`: each `--config` is `key=value`, spaces around `=` trimmed.
fn parse_configs(configs: &[String]) -> Result<Vec<(String, String)>, Failure> {
    let separator = regex::Regex::new(r"\s*=\s*").map_err(|e| Failure::Operation(e.to_string()))?;
    let mut parsed = BTreeMap::new();
    for config in configs {
        let mut parts: Vec<&str> = separator.split(config).collect();
        while parts.len() > 1 && parts.last().is_some_and(|p| p.is_empty()) {
            parts.pop();
        }
        let [key, value] = parts[..] else {
            return Err(Failure::Operation(
                "requirement failed: Invalid topic config: all configs to be added must be in the format \"key=val\"."
                    .into(),
            ));
        };
        parsed.insert(key.trim().to_owned(), value.trim().to_owned());
    }
    Ok(parsed.into_iter().collect())
}

async fn create(admin: &Admin, args: &TopicsArgs) -> Result<(), Failure> {
    let name = args.topic.clone().unwrap_or_default();
    let assignments = match args.replica_assignment.as_deref().filter(|a| !a.is_empty()) {
        Some(text) => parse_replica_assignment(text)?,
        None => BTreeMap::new(),
    };
    let configs = parse_configs(&args.config)?;
    if name.contains('.') || name.contains('_') {
        println!(
            "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both."
        );
    }
    if args.replication_factor.is_some_and(|rf| !(1..=i32::from(i16::MAX)).contains(&rf)) {
        return Err(Failure::Operation("The replication factor must be between 1 and 32767 inclusive".into()));
    }
    if args.partitions.is_some_and(|p| p < 1) {
        return Err(Failure::Operation("The partitions must be greater than 0".into()));
    }
    let topic = NewTopic {
        name: name.clone(),
        partitions: args.partitions.unwrap_or(-1),
        replication_factor: args.replication_factor.and_then(|rf| i16::try_from(rf).ok()).unwrap_or(-1),
        assignments,
        configs,
    };
    let outcome = admin.create_topics(std::slice::from_ref(&topic), false).await?;
    match outcome.into_iter().next().unwrap_or(Ok(())) {
        Ok(()) => {
            println!("Created topic {name}.");
            Ok(())
        }
        Err(e) if args.if_not_exists && e.code() == Some(strand_protocol::error::ErrorCode::TopicAlreadyExists) => {
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

async fn alter(admin: &Admin, args: &TopicsArgs) -> Result<(), Failure> {
    let topics = matching_topics(admin, args.topic.as_deref(), args.exclude_internal).await?;
    ensure_exists(&topics, args.topic.as_deref(), !args.if_exists)?;
    if topics.is_empty() {
        return Ok(());
    }
    let count = args.partitions.unwrap_or_default();
    let assignment = match args.replica_assignment.as_deref().filter(|a| !a.is_empty()) {
        Some(text) => Some(parse_replica_assignment(text)?),
        None => None,
    };
    let mut increases = Vec::new();
    let described = match assignment {
        Some(_) => admin.describe_topics(&topics).await?,
        None => Vec::new(),
    };
    for topic in &topics {
        let new_replicas = assignment.as_ref().map(|assignment| {
            let existing = described.iter().find(|d| &d.name == topic).map_or(0, |d| d.partitions.len());
            assignment.values().skip(existing).cloned().collect::<Vec<_>>()
        });
        increases.push(PartitionIncrease { topic: topic.clone(), total_count: count, assignments: new_replicas });
    }
    for outcome in admin.create_partitions(&increases).await? {
        outcome?;
    }
    Ok(())
}

async fn list(admin: &Admin, args: &TopicsArgs) -> Result<(), Failure> {
    let topics = matching_topics(admin, args.topic.as_deref(), args.exclude_internal).await?;
    match args.output {
        Output::Text => println!("{}", topics.join("\n")),
        Output::Json => println!("{}", serde_json::Value::from(topics)),
    }
    Ok(())
}

async fn delete(admin: &Admin, args: &TopicsArgs) -> Result<(), Failure> {
    let topics = matching_topics(admin, args.topic.as_deref(), args.exclude_internal).await?;
    ensure_exists(&topics, args.topic.as_deref(), !args.if_exists)?;
    for outcome in admin.delete_topics(&topics).await? {
        outcome?;
    }
    Ok(())
}

/// Kafka's `getTopics`: every topic (internal ones unless `exclude_internal`), sorted, kept if
/// `--topic`'s regular expression matches the whole name.
async fn matching_topics(admin: &Admin, pattern: Option<&str>, exclude_internal: bool) -> Result<Vec<String>, Failure> {
    let mut names: Vec<String> =
        admin.list_topics(!exclude_internal).await?.into_iter().map(|listing| listing.name).collect();
    names.sort();
    let internal = |name: &str| exclude_internal && strand_base::topic::is_internal(name);
    let Some(pattern) = pattern else {
        return Ok(names.into_iter().filter(|name| !internal(name)).collect());
    };
    let include = include_list(pattern)?;
    Ok(names.into_iter().filter(|name| include.is_match(name) && !internal(name)).collect())
}

/// Kafka's `IncludeList`: commas are alternatives, spaces and surrounding quotes dropped,
/// whole-name match.
fn include_list(pattern: &str) -> Result<regex::Regex, Failure> {
    let cleaned = pattern.trim().replace(',', "|").replace(' ', "");
    let cleaned = cleaned.trim_start_matches(['"', '\'']).trim_end_matches(['"', '\'']);
    regex::Regex::new(&format!("^(?:{cleaned})$"))
        .map_err(|_| Failure::Operation(format!("{cleaned} is an invalid regex.")))
}

/// Kafka's `ensureTopicExists`.
fn ensure_exists(found: &[String], requested: Option<&str>, required: bool) -> Result<(), Failure> {
    match requested {
        Some(topic) if !topic.is_empty() && required && found.is_empty() => {
            Err(Failure::Operation(format!("Topic '{topic}' does not exist as expected")))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replica assignments and configs parse, and fail, with Kafka's messages.
    #[test]
    fn assignments_and_configs_parse_as_kafka_s() {
        let parsed = parse_replica_assignment("1:2, 2:3").map_err(|e| format!("{e:?}")).expect("parsed");
        assert_eq!(parsed, BTreeMap::from([(0, vec![1, 2]), (1, vec![2, 3])]));
        for (text, expected) in [
            ("1:1", "Partition replica lists may not contain duplicate entries: 1"),
            ("1:2,3", "Partition 1 has different replication factor: [3]"),
            ("1:x", "For input string: \"x\""),
        ] {
            let Err(Failure::Operation(message)) = parse_replica_assignment(text) else { panic!("{text} parsed") };
            assert_eq!(message, expected);
        }
        let configs = parse_configs(&["a = 1".into(), "b=2".into()]).map_err(|e| format!("{e:?}")).expect("parsed");
        assert_eq!(configs, [("a".to_owned(), "1".to_owned()), ("b".to_owned(), "2".to_owned())]);
        for bad in ["a", "a=", "a=b=c"] {
            assert!(parse_configs(&[bad.to_owned()]).is_err(), "{bad}");
        }
    }

    /// `--topic` is a whole-name regular expression; commas separate alternatives.
    #[test]
    fn topic_patterns_match_whole_names() {
        let include = include_list("orders,pay.*").map_err(|e| format!("{e:?}")).expect("pattern");
        assert!(include.is_match("orders") && include.is_match("payments"));
        assert!(!include.is_match("orders-2") && !include.is_match("xpayments"));
    }
}
