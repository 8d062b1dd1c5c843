//! `strand consumer-groups`: Kafka's `kafka-consumer-groups.sh` (`ConsumerGroupCommand`), with
//! its flags, output and exit codes, over `strand-client`'s group admin calls.
//!
//! - This file: the flags, Kafka's checks of their combinations, `--list`, `--delete` and
//!   `--delete-offsets`, and how a failed call is printed (`Error: ...` on stdout, exit 0, as
//!   Kafka's tool does).
//! - [`describe`]: `--describe` with `--offsets` (the default), `--members` and `--state`.
//! - [`reset`]: `--reset-offsets` with each of Kafka's scenarios, `--dry-run` (the default) or
//!   `--execute`.
//!
//! What it is not (yet): `--from-file`, `--export` and `--validate-regex` are refused with a
//! line saying so.

mod describe;
mod reset;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use strand_client::{Admin, ClientError};
use strand_protocol::error::ErrorCode;

use crate::tool::{self, Failure, Output, exception};

const EXAMPLES: &str = "Examples:
  strand consumer-groups --bootstrap-server localhost:9092 --describe --group orders-app
  strand consumer-groups --bootstrap-server localhost:9092 --reset-offsets --group orders-app --topic orders --to-earliest --execute";

/// The flags of `kafka-consumer-groups.sh`.
#[derive(Debug, Args)]
#[command(
    about = "List, describe, delete consumer groups and reset their offsets (Kafka's kafka-consumer-groups.sh).",
    after_help = EXAMPLES,
    infer_long_args = true
)]
pub struct GroupsArgs {
    /// REQUIRED: The server(s) to connect to.
    #[arg(long, value_name = "server to connect to")]
    bootstrap_server: Option<String>,
    /// Property file containing configs to be passed to Admin Client and Consumer.
    #[arg(long, value_name = "command config property file")]
    command_config: Option<PathBuf>,
    /// List all consumer groups.
    #[arg(long)]
    list: bool,
    /// Describe consumer group and list offset lag (number of messages not yet processed) related to given group.
    #[arg(long)]
    describe: bool,
    /// Pass in groups to delete topic partition offsets and ownership information over the entire consumer group.
    #[arg(long)]
    delete: bool,
    /// Reset offsets of consumer group.
    #[arg(long)]
    reset_offsets: bool,
    /// Delete offsets of consumer group.
    #[arg(long)]
    delete_offsets: bool,
    /// Validate that the syntax of the provided regular expression is valid.
    #[arg(long, value_name = "regex")]
    validate_regex: Option<String>,
    /// The consumer group we wish to act on.
    #[arg(long, value_name = "consumer group")]
    group: Vec<String>,
    /// Apply to all consumer groups.
    #[arg(long)]
    all_groups: bool,
    /// The topic whose consumer group information should be deleted or topic which should be included in the reset offset process.
    #[arg(long, value_name = "topic")]
    topic: Vec<String>,
    /// Consider all topics assigned to a group in the `reset-offsets` process.
    #[arg(long)]
    all_topics: bool,
    /// Describe members of the group.
    #[arg(long)]
    members: bool,
    /// Describe the group and list all topic partitions in the group along with their offset information.
    #[arg(long)]
    offsets: bool,
    /// When specified with '--describe', includes the state of the group. With '--list', the state filter.
    #[arg(long, value_name = "state", num_args = 0..=1, default_missing_value = "")]
    state: Option<String>,
    /// When specified with '--list', the type filter (classic, consumer).
    #[arg(long = "type", value_name = "type", num_args = 0..=1, default_missing_value = "")]
    group_type: Option<String>,
    /// Provide additional information, if any, when describing the group.
    #[arg(long)]
    verbose: bool,
    /// Only show results without executing changes on Consumer Groups (the default).
    #[arg(long)]
    dry_run: bool,
    /// Execute operation.
    #[arg(long)]
    execute: bool,
    /// Reset offsets to a specific offset.
    #[arg(long, value_name = "offset", allow_hyphen_values = true)]
    to_offset: Option<i64>,
    /// Reset offsets to offset from datetime. Format: 'YYYY-MM-DDThh:mm:ss.sss'.
    #[arg(long, value_name = "datetime")]
    to_datetime: Option<String>,
    /// Reset offsets to offset by duration from current timestamp. Format: 'PnDTnHnMnS'.
    #[arg(long, value_name = "duration")]
    by_duration: Option<String>,
    /// Reset offsets to earliest offset.
    #[arg(long)]
    to_earliest: bool,
    /// Reset offsets to latest offset.
    #[arg(long)]
    to_latest: bool,
    /// Reset offsets to current offset.
    #[arg(long)]
    to_current: bool,
    /// Reset offsets shifting current offset by 'n', where 'n' can be positive or negative.
    #[arg(long, value_name = "number-of-offsets", allow_hyphen_values = true)]
    shift_by: Option<i64>,
    /// Reset offsets to values defined in CSV file (not supported by this version of Strand).
    #[arg(long, value_name = "path to CSV file")]
    from_file: Option<PathBuf>,
    /// Export operation execution to a CSV file (not supported by this version of Strand).
    #[arg(long)]
    export: bool,
    /// The timeout that can be set for some use cases.
    #[arg(long, value_name = "timeout (ms)", default_value_t = 5000)]
    timeout: i64,
    /// Print --describe as Kafka's text or as one JSON array (Strand's, for scripts).
    #[arg(long, value_enum, default_value_t = Output::Text)]
    output: Output,
}

pub fn run(args: GroupsArgs) -> ExitCode {
    match execute(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(reason)) => {
            eprintln!("{reason}");
            eprintln!("(see strand consumer-groups --help)");
            ExitCode::FAILURE
        }
        // Kafka's tool prints a failed operation and exits 0.
        Err(Failure::Operation(message)) => {
            print_error(&format!("Executing consumer group command failed due to {message}"));
            ExitCode::SUCCESS
        }
    }
}

/// Kafka's `printError`: an empty line, then the message, on stdout.
fn print_error(message: &str) {
    println!("\nError: {message}");
}

fn execute(args: &GroupsArgs) -> Result<(), Failure> {
    check(args)?;
    let bootstrap = args.bootstrap_server.as_deref().unwrap_or_default();
    let config = tool::client_config(bootstrap, args.command_config.as_deref())?;
    tool::block_on(async {
        let admin = tool::admin(config).await?;
        if args.list {
            list(&admin, args).await
        } else if args.describe {
            describe::run(&admin, args).await
        } else if args.delete {
            delete(&admin, args).await
        } else if args.reset_offsets {
            reset::run(&admin, args).await
        } else {
            delete_offsets(&admin, args).await
        }
    })
}

/// Kafka's `ConsumerGroupCommandOptions.checkArgs`, with its messages.
fn check(args: &GroupsArgs) -> Result<(), Failure> {
    let usage = |message: &str| Err(Failure::Usage(message.to_owned()));
    let actions =
        [args.list, args.describe, args.delete, args.reset_offsets, args.delete_offsets, args.validate_regex.is_some()];
    if actions.iter().filter(|a| **a).count() != 1 {
        return usage(
            "Command must include exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets, --validate-regex",
        );
    }
    if args.validate_regex.is_some() || args.from_file.is_some() || args.export {
        return Err(Failure::Operation(
            "--validate-regex, --from-file and --export are not supported by this version of Strand".into(),
        ));
    }
    if args.bootstrap_server.is_none() {
        return usage("Missing required argument \"[bootstrap-server]\"");
    }
    let groups_given = !args.group.is_empty() || args.all_groups;
    if (args.describe || args.delete || args.reset_offsets) && !groups_given {
        let action = if args.describe {
            "describe"
        } else if args.delete {
            "delete"
        } else {
            "reset-offsets"
        };
        return usage(&format!("Option [{action}] takes one of these options: [all-groups], [group]"));
    }
    if args.output == Output::Json && !args.describe {
        return usage("--output json is only for --describe");
    }
    if !args.group.is_empty() && args.all_groups {
        return usage("Option [group] can't be used with option [all-groups]");
    }
    if args.delete_offsets {
        if args.group.len() != 1 {
            return usage("Option [delete-offsets] takes the following options: [group]");
        }
        if args.topic.is_empty() {
            return usage("Option [delete-offsets] takes the following options: [topic]");
        }
    }
    if args.reset_offsets {
        if args.dry_run && args.execute {
            return usage("Option [reset-offsets] only accepts one of [execute], [dry-run]");
        }
        let scenarios = [
            args.to_offset.is_some(),
            args.to_datetime.is_some(),
            args.by_duration.is_some(),
            args.to_earliest,
            args.to_latest,
            args.to_current,
            args.shift_by.is_some(),
        ];
        if scenarios.iter().filter(|s| **s).count() != 1 {
            return usage(
                "Option [reset-offsets] takes exactly one of these options: [to-offset], [to-datetime], [by-duration], [to-earliest], [to-latest], [to-current], [shift-by], [from-file]",
            );
        }
        if !args.all_topics && args.topic.is_empty() {
            return usage("One of the reset scopes should be defined: --all-topics, --topic.");
        }
        if args.all_topics && !args.topic.is_empty() {
            return usage("Option [all-topics] can't be used with option [topic]");
        }
    }
    if args.describe && [args.members, args.offsets, args.state.is_some()].iter().filter(|s| **s).count() > 1 {
        return usage("Option [describe] takes at most one of these options: [members], [offsets], [state]");
    }
    if args.verbose && !args.describe {
        return usage(
            "Option [verbose] can't be used with option [list], [delete], [reset-offsets] or [delete-offsets]",
        );
    }
    if args.group_type.is_some() && !args.list {
        return usage("Option [type] can only be used with option [list]");
    }
    Ok(())
}

/// The groups' ids, or a table with their type and state when `--type` or `--state` is given.
async fn list(admin: &Admin, args: &GroupsArgs) -> Result<(), Failure> {
    let states = filter_values(args.state.as_deref(), STATES, "state")?;
    let types = filter_values(args.group_type.as_deref(), &["classic", "consumer"], "types")?;
    let consumer_types = if types.is_empty() { vec!["classic".to_owned(), "consumer".to_owned()] } else { types };
    let groups = admin.list_groups(&states, &consumer_types).await.map_err(failed)?;
    // Kafka lists consumer groups: classic ones of protocol type `consumer` (or none), and
    // consumer groups.
    let groups: Vec<_> = groups
        .into_iter()
        .filter(|g| g.group_type != "classic" || g.protocol_type.is_empty() || g.protocol_type == "consumer")
        .collect();
    if args.state.is_none() && args.group_type.is_none() {
        for group in &groups {
            println!("{}", group.group_id);
        }
        return Ok(());
    }
    let width = groups.iter().map(|g| g.group_id.chars().count().max(15)).max().unwrap_or(15) + 10;
    let mut header = format!("{:<width$}", "GROUP");
    let mut rows: Vec<String> = groups.iter().map(|g| format!("{:<width$}", g.group_id)).collect();
    if args.group_type.is_some() {
        header.push_str(&format!(" {:<20}", "TYPE"));
        for (row, group) in rows.iter_mut().zip(&groups) {
            row.push_str(&format!(" {:<20}", capitalised(&group.group_type)));
        }
    }
    if args.state.is_some() {
        header.push_str(&format!(" {:<20}", "STATE"));
        for (row, group) in rows.iter_mut().zip(&groups) {
            row.push_str(&format!(" {:<20}", group.state));
        }
    }
    println!("{header}");
    for row in rows {
        println!("{row}");
    }
    Ok(())
}

/// The group states `--state` takes (Kafka's `GroupState` names for consumer groups).
const STATES: &[&str] =
    &["PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty", "Assigning", "Reconciling"];

/// `--state` or `--type` values (comma-separated, case-insensitive) as Kafka's names.
fn filter_values(value: Option<&str>, valid: &[&str], what: &str) -> Result<Vec<String>, Failure> {
    let Some(value) = value.filter(|v| !v.is_empty()) else { return Ok(Vec::new()) };
    value
        .split(',')
        .map(|v| {
            let v = v.trim();
            valid.iter().find(|known| known.eq_ignore_ascii_case(v)).map(|known| (*known).to_owned()).ok_or_else(|| {
                Failure::Usage(format!(
                    "Invalid {what} list '{value}'. Valid {what} are: {}",
                    valid.iter().map(|v| capitalised(v)).collect::<Vec<_>>().join(", ")
                ))
            })
        })
        .collect()
}

/// Kafka's `GroupType.toString`: `Classic`, `Consumer`.
fn capitalised(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

/// The groups named, or every consumer group with `--all-groups`.
async fn groups(admin: &Admin, args: &GroupsArgs) -> Result<Vec<String>, Failure> {
    if !args.all_groups {
        return Ok(args.group.clone());
    }
    let all = admin.list_groups(&[], &["classic".to_owned(), "consumer".to_owned()]).await.map_err(failed)?;
    Ok(all
        .into_iter()
        .filter(|g| g.group_type != "classic" || g.protocol_type.is_empty() || g.protocol_type == "consumer")
        .map(|g| g.group_id)
        .collect())
}

async fn delete(admin: &Admin, args: &GroupsArgs) -> Result<(), Failure> {
    let groups = groups(admin, args).await?;
    let mut deleted = Vec::new();
    let mut failed = Vec::new();
    for group in groups {
        match admin.delete_group(&group).await {
            Ok(()) => deleted.push(group),
            Err(e) => failed.push((group, e)),
        }
    }
    let quoted = |groups: &[String]| groups.iter().map(|g| format!("'{g}'")).collect::<Vec<_>>().join(", ");
    if failed.is_empty() {
        println!("Deletion of requested consumer groups ({}) was successful.", quoted(&deleted));
        return Ok(());
    }
    print_error("Deletion of some consumer groups failed:");
    for (group, error) in &failed {
        println!("* Group '{group}' could not be deleted due to: {}", exception(error.clone()));
    }
    if !deleted.is_empty() {
        println!("\nThese consumer groups were deleted successfully: {}", quoted(&deleted));
    }
    Ok(())
}

async fn delete_offsets(admin: &Admin, args: &GroupsArgs) -> Result<(), Failure> {
    let group = &args.group[0];
    let mut partitions = Vec::new();
    let mut outcomes: BTreeMap<(String, i32), Option<String>> = BTreeMap::new();
    for topic in &args.topic {
        match topic.split_once(':') {
            Some((name, list)) => {
                for p in list.split(',') {
                    let p = p.trim().parse::<i32>().map_err(|_| {
                        Failure::Usage(format!("Invalid partition '{p}' specified in topic arg '{topic}''"))
                    })?;
                    partitions.push((name.to_owned(), p));
                }
            }
            None => match admin.describe_topics(std::slice::from_ref(topic)).await {
                Ok(described) => {
                    for t in described {
                        partitions.extend(t.partitions.iter().map(|p| (t.name.clone(), p.partition)));
                    }
                }
                Err(e) => {
                    outcomes.insert((topic.clone(), -1), Some(exception(e)));
                }
            },
        }
    }
    let result =
        if partitions.is_empty() { Ok(BTreeMap::new()) } else { admin.delete_group_offsets(group, &partitions).await };
    match result {
        Ok(per_partition) => {
            let any_error = per_partition.values().any(Option::is_some) || !outcomes.is_empty();
            for (partition, error) in per_partition {
                outcomes.insert(partition, error.map(exception));
            }
            if any_error {
                print_error("Encountered some partition-level error, see the follow-up details.");
            } else {
                println!("Request succeeded for deleting offsets from group {group}.");
            }
        }
        Err(e) => {
            match e.code() {
                Some(
                    ErrorCode::InvalidGroupId
                    | ErrorCode::GroupIdNotFound
                    | ErrorCode::GroupAuthorizationFailed
                    | ErrorCode::NonEmptyGroup,
                ) => print_error(&e.to_string()),
                _ => print_error(&format!("Encountered some unknown error: {e}")),
            }
            for partition in &partitions {
                outcomes.insert(partition.clone(), Some(exception(e.clone())));
            }
        }
    }
    let width = outcomes.keys().map(|(t, _)| t.chars().count()).max().unwrap_or(0).max(15);
    print!("\n{:<width$} {:<10} {:<15}", "TOPIC", "PARTITION", "STATUS");
    let mut rows: Vec<_> = outcomes.into_iter().collect();
    // Kafka sorts by topic and partition concatenated as a string.
    rows.sort_by(|((ta, pa), _), ((tb, pb), _)| format!("{ta}{pa}").cmp(&format!("{tb}{pb}")));
    for ((topic, partition), error) in rows {
        let partition = if partition >= 0 { partition.to_string() } else { "-".to_owned() };
        let status = error.map_or_else(|| "Successful".to_owned(), |e| format!("Error: {e}"));
        print!("\n{topic:<width$} {partition:<10} {status:<15}");
    }
    println!();
    Ok(())
}

/// Reports `failure` of a call as Kafka's tool reports an exception it did not expect.
fn failed(error: ClientError) -> Failure {
    Failure::Operation(exception(error))
}
