//! `strand reassign-partitions`: Kafka's `kafka-reassign-partitions.sh`
//! (`ReassignPartitionsCommand`, 4.4), its flags, checks, output and exit codes.
//!
//! - This file: the flags (clap; long options abbreviable as joptsimple allows), Kafka's
//!   `validateAndParseArgs` (a wrong command line: the reason on stderr, exit 1), and how a
//!   failure is printed.
//! - [`plan`]: the JSON files, read and printed as Kafka does.
//! - [`generate`]: `--generate`, a proposal from Kafka's striped placer (random, as Kafka's).
//! - [`execute`]: `--execute` (throttles, log-dir moves) and `--cancel`.
//! - [`verify`]: `--verify` (clearing the throttles once everything is done) and `--list`.
//!
//! Kafka's tool prints a failed operation on stdout and exits 1: a `TerseException`'s message as
//! it is, anything else as `Error: <message>` and the exception's stack trace. Strand prints the
//! exception's class and message where the trace starts; the golden comparison masks the trace.

mod execute;
mod generate;
mod plan;
mod verify;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use strand_client::{Admin, ClientError};

use crate::tool::{self, Failure};

const EXAMPLES: &str = "Examples:
  strand reassign-partitions --bootstrap-server localhost:9092 --generate --topics-to-move-json-file topics.json --broker-list 1,2,3
  strand reassign-partitions --bootstrap-server localhost:9092 --execute --reassignment-json-file plan.json --throttle 10000000
  strand reassign-partitions --bootstrap-server localhost:9092 --verify --reassignment-json-file plan.json";

/// How long `--execute` and `--cancel` wait for log dir moves to start (Kafka's `--timeout`
/// default).
const TIMEOUT_MS_DEFAULT: i64 = 10_000;

/// The flags of `kafka-reassign-partitions.sh`.
#[derive(Debug, Args)]
#[command(
    about = "Move topic partitions between replicas (Kafka's kafka-reassign-partitions.sh).",
    after_help = EXAMPLES,
    infer_long_args = true
)]
pub struct ReassignArgs {
    /// Verify if the reassignment completed as specified by the --reassignment-json-file option; removes the throttles once it has.
    #[arg(long)]
    verify: bool,
    /// Generate a candidate partition reassignment configuration (it does not execute it).
    #[arg(long)]
    generate: bool,
    /// Kick off the reassignment as specified by the --reassignment-json-file option.
    #[arg(long)]
    execute: bool,
    /// Cancel an active reassignment.
    #[arg(long)]
    cancel: bool,
    /// List all active partition reassignments.
    #[arg(long)]
    list: bool,
    /// The server(s) to use for bootstrapping.
    #[arg(long, value_name = "Server(s) to use for bootstrapping")]
    bootstrap_server: Option<String>,
    /// The controller to use for reassignment (--cancel and --list).
    #[arg(long, value_name = "bootstrap controller to connect to")]
    bootstrap_controller: Option<String>,
    /// Property file containing configs to be passed to Admin Client.
    #[arg(long, value_name = "Admin client property file")]
    command_config: Option<PathBuf>,
    /// The JSON file with the partition reassignment configuration.
    #[arg(long, value_name = "manual assignment json file path")]
    reassignment_json_file: Option<PathBuf>,
    /// The JSON file of the topics whose partitions --generate moves to --broker-list.
    #[arg(long, value_name = "topics to reassign json file path")]
    topics_to_move_json_file: Option<PathBuf>,
    /// The brokers to which the partitions need to be reassigned, in the form "0,1,2".
    #[arg(long, value_name = "brokerlist")]
    broker_list: Option<String>,
    /// Disable rack aware replica assignment.
    #[arg(long)]
    disable_rack_aware: bool,
    /// The throttle of moves between brokers, bytes a second (--execute; change it with --additional).
    #[arg(long, value_name = "throttle", allow_hyphen_values = true)]
    throttle: Option<i64>,
    /// The throttle of moves between a broker's log dirs, bytes a second.
    #[arg(long, value_name = "replicaAlterLogDirsThrottle", allow_hyphen_values = true)]
    replica_alter_log_dirs_throttle: Option<i64>,
    /// The maximum time in ms to wait for log directory replica assignment to begin.
    #[arg(long, value_name = "timeout", allow_hyphen_values = true)]
    timeout: Option<i64>,
    /// Execute this reassignment in addition to any other ongoing ones (or change the throttle of one).
    #[arg(long)]
    additional: bool,
    /// Do not modify broker or topic throttles.
    #[arg(long)]
    preserve_throttles: bool,
    /// Refuse a reassignment that changes a partition's replication factor.
    #[arg(long)]
    disallow_replication_factor_change: bool,
}

/// The action a command line asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Verify,
    Generate,
    Execute,
    Cancel,
    List,
}

impl Action {
    fn name(self) -> &'static str {
        match self {
            Action::Verify => "verify",
            Action::Generate => "generate",
            Action::Execute => "execute",
            Action::Cancel => "cancel",
            Action::List => "list",
        }
    }
}

pub fn run(args: ReassignArgs) -> ExitCode {
    match execute_command(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(reason)) => {
            eprintln!("{reason}");
            eprintln!("(see strand reassign-partitions --help)");
            ExitCode::FAILURE
        }
        Err(Failure::Operation(text)) => {
            println!("{text}");
            ExitCode::FAILURE
        }
    }
}

fn execute_command(args: &ReassignArgs) -> Result<(), Failure> {
    let action = check(args)?;
    let config = tool::client_config_either(
        args.bootstrap_server.as_deref(),
        args.bootstrap_controller.as_deref(),
        args.command_config.as_deref(),
    )
    .map_err(|failure| match failure {
        Failure::Usage(reason) | Failure::Operation(reason) => error("org.apache.kafka.common.KafkaException", &reason),
    })?;
    tool::block_on(async {
        let admin = tool::admin(config).await.map_err(|failure| match failure {
            Failure::Usage(reason) | Failure::Operation(reason) => {
                error("org.apache.kafka.common.KafkaException", &reason)
            }
        })?;
        let file = |path: &Option<PathBuf>| read(path.as_deref());
        match action {
            Action::Verify => {
                verify::verify(&admin, &file(&args.reassignment_json_file)?, args.preserve_throttles).await
            }
            Action::Generate => {
                let topics = file(&args.topics_to_move_json_file)?;
                let brokers = args.broker_list.as_deref().unwrap_or_default();
                generate::generate(&admin, &topics, brokers, !args.disable_rack_aware).await
            }
            Action::Execute => {
                let options = execute::ExecuteOptions {
                    additional: args.additional,
                    throttle: args.throttle.unwrap_or(-1),
                    log_dir_throttle: args.replica_alter_log_dirs_throttle.unwrap_or(-1),
                    timeout_ms: args.timeout.unwrap_or(TIMEOUT_MS_DEFAULT),
                    allow_replication_factor_change: !args.disallow_replication_factor_change,
                };
                execute::execute(&admin, &file(&args.reassignment_json_file)?, &options).await
            }
            Action::Cancel => {
                let text = file(&args.reassignment_json_file)?;
                execute::cancel(&admin, &text, args.preserve_throttles, args.timeout.unwrap_or(TIMEOUT_MS_DEFAULT))
                    .await
            }
            Action::List => verify::list(&admin).await,
        }
    })
}

/// Kafka's `validateAndParseArgs`: exactly one action, one way to bootstrap, the action's
/// required options, and no option the action does not take.
fn check(args: &ReassignArgs) -> Result<Action, Failure> {
    let usage = |message: String| Err(Failure::Usage(message));
    let given = [
        (args.generate, Action::Generate),
        (args.execute, Action::Execute),
        (args.verify, Action::Verify),
        (args.cancel, Action::Cancel),
        (args.list, Action::List),
    ];
    let mut actions = given.iter().filter(|(on, _)| *on).map(|(_, action)| *action);
    let (Some(action), None) = (actions.next(), actions.next()) else {
        return usage(
            "Command must include exactly one action: --generate, --execute, --verify, --cancel, --list".to_owned(),
        );
    };
    match (&args.bootstrap_server, &args.bootstrap_controller) {
        (Some(_), Some(_)) => {
            return usage("Please don't specify both --bootstrap-server and --bootstrap-controller".into());
        }
        (None, None) => return usage("Please specify either --bootstrap-server or --bootstrap-controller".into()),
        _ => {}
    }
    let required: &[(&str, bool)] = match action {
        Action::Verify | Action::Execute | Action::Cancel => {
            &[("reassignment-json-file", args.reassignment_json_file.is_some())]
        }
        Action::Generate => &[
            ("topics-to-move-json-file", args.topics_to_move_json_file.is_some()),
            ("broker-list", args.broker_list.is_some()),
        ],
        Action::List => &[],
    };
    if let Some((name, _)) = required.iter().find(|(_, present)| !present) {
        return usage(format!("Missing required argument \"[{name}]\""));
    }
    let by_server = args.bootstrap_server.is_some();
    // Each option given, with the actions that take it (beside the action's required ones).
    let options: &[(&str, bool, &[Action])] = &[
        (
            "bootstrap-server",
            by_server,
            &[Action::Verify, Action::Generate, Action::Execute, Action::Cancel, Action::List],
        ),
        ("bootstrap-controller", !by_server, &[Action::Cancel, Action::List]),
        (
            "command-config",
            args.command_config.is_some(),
            &[Action::Verify, Action::Generate, Action::Execute, Action::Cancel, Action::List],
        ),
        (
            "reassignment-json-file",
            args.reassignment_json_file.is_some(),
            &[Action::Verify, Action::Execute, Action::Cancel],
        ),
        ("topics-to-move-json-file", args.topics_to_move_json_file.is_some(), &[Action::Generate]),
        ("broker-list", args.broker_list.is_some(), &[Action::Generate]),
        ("disable-rack-aware", args.disable_rack_aware, &[Action::Generate]),
        ("throttle", args.throttle.is_some(), &[Action::Execute]),
        ("replica-alter-log-dirs-throttle", args.replica_alter_log_dirs_throttle.is_some(), &[Action::Execute]),
        ("timeout", args.timeout.is_some(), &[Action::Execute, Action::Cancel]),
        ("additional", args.additional, &[Action::Execute]),
        ("preserve-throttles", args.preserve_throttles, &[Action::Verify, Action::Cancel]),
        ("disallow-replication-factor-change", args.disallow_replication_factor_change, &[Action::Execute]),
    ];
    if let Some((name, _, _)) = options.iter().find(|(_, given, takers)| *given && !takers.contains(&action)) {
        return usage(format!("Option \"[{name}]\" can't be used with action \"[{}]\"", action.name()));
    }
    Ok(action)
}

/// A file's text, or Kafka's failure reading it (`Utils.readFileAsString`).
fn read(path: Option<&Path>) -> Result<String, Failure> {
    let path = path.unwrap_or_else(|| Path::new(""));
    std::fs::read_to_string(path).map_err(|_| error("java.nio.file.NoSuchFileException", &path.display().to_string()))
}

/// A failure Kafka's tool prints as it is (a `TerseException`).
fn terse(message: String) -> Failure {
    Failure::Operation(message)
}

/// A failure Kafka's tool prints as `Error: <message>` then the stack trace of the exception
/// (`class`), whose first line Strand prints in its place.
fn error(class: &str, message: &str) -> Failure {
    Failure::Operation(format!("Error: {message}\n{class}: {message}"))
}

/// Kafka's `AdminCommandFailedException`.
fn admin_command_failed(message: &str) -> Failure {
    error("org.apache.kafka.server.common.AdminCommandFailedException", message)
}

/// Kafka's `AdminOperationException`.
fn admin_operation(message: &str) -> Failure {
    error("org.apache.kafka.tools.AdminOperationException", message)
}

/// A failed admin call: Kafka's `ExecutionException` around the client's exception.
fn failed_call(e: ClientError) -> Failure {
    let cause = tool::exception(e);
    error("java.util.concurrent.ExecutionException", &cause)
}

/// The ids of the cluster's brokers (`describeCluster().nodes()`).
async fn broker_ids(admin: &Admin) -> Result<Vec<i32>, Failure> {
    Ok(admin.describe_cluster().await.map_err(failed_call)?.nodes.iter().map(|n| n.id).collect())
}
