//! `strand configs`: Kafka's `kafka-configs.sh` (`ConfigCommand`), with its flags, checks,
//! output and exit codes, over `strand-client`'s admin API.
//!
//! - This file: the flags (clap, long options abbreviable as joptsimple allows), the entity
//!   types and names they make (`--entity-type`/`--entity-name`/`--entity-default` or the
//!   shortcuts `--topic`, `--broker-defaults`, ...), and Kafka's checks of their combinations.
//! - [`run`]: `--describe` and `--alter` of topic, broker and group configs, client quotas
//!   (users, clients, ips) and users' SCRAM credentials.
//!
//! As Kafka's tool: a wrong command line or a refused value prints the reason on stderr and
//! exits 1; a failed call prints "Error while executing config command with args '...'" and the
//! cause on stderr and exits 1; nothing reaches stdout but what succeeded.
//!
//! What it is not (yet): `--bootstrap-controller` and the `client-metrics` and
//! `broker-loggers` entity types are refused with a message saying so.

mod run;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgAction, Args};

use crate::tool::{self, Failure};

pub const TOPICS: &str = "topics";
pub const CLIENTS: &str = "clients";
pub const USERS: &str = "users";
pub const BROKERS: &str = "brokers";
pub const IPS: &str = "ips";
pub const BROKER_LOGGERS: &str = "broker-loggers";
pub const GROUPS: &str = "groups";
/// Kafka's `BROKER_SUPPORTED_CONFIG_TYPES`, in its order.
const ENTITY_TYPES: [&str; 8] = [BROKER_LOGGERS, TOPICS, CLIENTS, USERS, BROKERS, IPS, "client-metrics", GROUPS];

const EXAMPLES: &str = "Examples:
  strand configs --bootstrap-server localhost:9092 --entity-type topics --entity-name orders --alter --add-config retention.ms=86400000
  strand configs --bootstrap-server localhost:9092 --entity-type users --entity-name alice --describe";

/// The flags of `kafka-configs.sh`.
#[derive(Debug, Args)]
#[command(
    about = "Describe or change the configs of topics, brokers, clients, users and ips (Kafka's kafka-configs.sh).",
    after_help = EXAMPLES,
    infer_long_args = true
)]
pub struct ConfigsArgs {
    /// The Kafka servers to connect to.
    #[arg(long, value_name = "server to connect to")]
    bootstrap_server: Option<String>,
    /// The Kafka controllers to connect to (not supported by strand configs yet).
    #[arg(long, value_name = "controller to connect to")]
    bootstrap_controller: Option<String>,
    /// Property file containing configs to be passed to Admin Client.
    #[arg(long, value_name = "command config property file")]
    command_config: Option<PathBuf>,
    /// Alter the configuration for the entity.
    #[arg(long)]
    alter: bool,
    /// List configs for the given entity.
    #[arg(long)]
    describe: bool,
    /// List all configs for the given entity, including static configs if available.
    #[arg(long)]
    all: bool,
    /// Type of entity (topics/clients/users/brokers/broker-loggers/ips/client-metrics/groups).
    #[arg(long)]
    entity_type: Vec<String>,
    /// Name of entity (topic name/client id/user principal name/broker id/ip).
    #[arg(long)]
    entity_name: Vec<String>,
    /// Default entity name for clients/users/brokers/ips (applies to corresponding entity type).
    #[arg(long, action = ArgAction::Count)]
    entity_default: u8,
    /// Key Value pairs of configs to add. Square brackets can be used to group values which contain commas: 'k1=v1,k2=[v1,v2,v2],k3=v3'.
    #[arg(long, allow_hyphen_values = true)]
    add_config: Option<String>,
    /// Path to a properties file with configs to add.
    #[arg(long)]
    add_config_file: Option<PathBuf>,
    /// config keys to remove 'k1,k2'.
    #[arg(long, value_delimiter = ',')]
    delete_config: Vec<String>,
    /// Suppress console prompts.
    #[arg(long)]
    force: bool,
    /// The topic's name.
    #[arg(long)]
    topic: Option<String>,
    /// The client's ID.
    #[arg(long)]
    client: Option<String>,
    /// The config defaults for all clients.
    #[arg(long)]
    client_defaults: bool,
    /// The user's principal name.
    #[arg(long)]
    user: Option<String>,
    /// The config defaults for all users.
    #[arg(long)]
    user_defaults: bool,
    /// The broker's ID.
    #[arg(long)]
    broker: Option<String>,
    /// The config defaults for all brokers.
    #[arg(long)]
    broker_defaults: bool,
    /// The broker's ID for its logger config.
    #[arg(long)]
    broker_logger: Option<String>,
    /// The IP address.
    #[arg(long)]
    ip: Option<String>,
    /// The config defaults for all IPs.
    #[arg(long)]
    ip_defaults: bool,
}

/// A shortcut flag's entity: its type and name ("" for a default).
type Shortcut = (&'static str, String);

impl ConfigsArgs {
    /// The shortcut flags given, as (entity type, name; "" for a default), in Kafka's order.
    fn shortcuts(&self) -> (Vec<Shortcut>, Vec<Shortcut>) {
        let named = [
            (TOPICS, &self.topic),
            (CLIENTS, &self.client),
            (USERS, &self.user),
            (BROKERS, &self.broker),
            (BROKER_LOGGERS, &self.broker_logger),
            (IPS, &self.ip),
        ];
        let named = named.into_iter().filter_map(|(t, name)| name.clone().map(|n| (t, n))).collect();
        let defaults = [
            (CLIENTS, self.client_defaults),
            (USERS, self.user_defaults),
            (BROKERS, self.broker_defaults),
            (IPS, self.ip_defaults),
        ];
        let defaults = defaults.into_iter().filter(|(_, on)| *on).map(|(t, _)| (t, String::new())).collect();
        (named, defaults)
    }

    /// Kafka's `entityTypes`: `--entity-type`s, then the shortcuts' types.
    pub fn entity_types(&self) -> Vec<String> {
        let (named, defaults) = self.shortcuts();
        let shortcuts = named.iter().chain(&defaults).map(|(t, _)| (*t).to_owned());
        self.entity_type.iter().cloned().chain(shortcuts).collect()
    }

    /// Kafka's `entityNames`: `--entity-name`s and `--entity-default`s ("") in the order given
    /// on the command line (`order`: true for a name), then the shortcuts' names.
    pub fn entity_names(&self, order: &[bool]) -> Vec<String> {
        let mut names = self.entity_name.iter();
        let mut out: Vec<String> = order
            .iter()
            .map(|&is_name| if is_name { names.next().cloned().unwrap_or_default() } else { String::new() })
            .collect();
        let (named, defaults) = self.shortcuts();
        out.extend(named.into_iter().chain(defaults).map(|(_, n)| n));
        out
    }
}

/// Where `--entity-name` (true) and `--entity-default` (false) appear among `args`, in order
/// (joptsimple's `specs()`, which Kafka's tool pairs with the entity types); abbreviations as
/// clap accepts them.
pub fn name_order(args: &[String]) -> Vec<bool> {
    let mut order = Vec::new();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        let Some(flag) = arg.strip_prefix("--") else { continue };
        let (flag, inline) = match flag.split_once('=') {
            Some((flag, _)) => (flag, true),
            None => (flag, false),
        };
        if flag.len() >= "entity-n".len() && "entity-name".starts_with(flag) {
            order.push(true);
            if !inline {
                args.next();
            }
        } else if flag.len() >= "entity-d".len() && "entity-default".starts_with(flag) {
            order.push(false);
        }
    }
    order
}

/// Runs `strand configs` as Kafka's `kafka-configs.sh` would.
pub fn run(args: ConfigsArgs) -> ExitCode {
    let raw: Vec<String> = std::env::args().collect();
    let order = name_order(raw.get(2..).unwrap_or_default());
    match check(&args, &order).and_then(|command| tool::block_on(run::execute(&args, command))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(reason)) => {
            eprintln!("{reason}");
            ExitCode::FAILURE
        }
        Err(Failure::Operation(reason)) => {
            eprintln!(
                "Error while executing config command with args '{}'",
                raw.get(2..).unwrap_or_default().join(" ")
            );
            eprintln!("{reason}");
            ExitCode::FAILURE
        }
    }
}

/// What the command line asks, once checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub types: Vec<String>,
    pub names: Vec<String>,
}

fn usage(message: impl Into<String>) -> Failure {
    Failure::Usage(message.into())
}

/// Kafka's `checkArgs` and `processCommand`'s first check.
fn check(args: &ConfigsArgs, order: &[bool]) -> Result<Command, Failure> {
    if usize::from(args.alter) + usize::from(args.describe) != 1 {
        return Err(usage("Command must include exactly one action: --describe, --alter"));
    }
    if args.describe {
        let given = [("add-config", args.add_config.is_some()), ("delete-config", !args.delete_config.is_empty())];
        if let Some((option, _)) = given.iter().find(|(_, given)| *given) {
            return Err(usage(format!("Option \"[describe]\" can't be used with option \"[{option}]\"")));
        }
    }
    let types = args.entity_types();
    let names = args.entity_names(order);
    let duplicates: Vec<&str> =
        types.iter().enumerate().filter(|(i, t)| types[..*i].contains(t)).map(|(_, t)| t.as_str()).collect();
    if !duplicates.is_empty() {
        return Err(usage(format!("Duplicate entity type(s) specified: {}", duplicates.join(","))));
    }
    if let Some(bad) = types.iter().find(|t| !ENTITY_TYPES.contains(&t.as_str())) {
        return Err(usage(format!(
            "Invalid entity type {bad}, the entity type must be one of {} with a --bootstrap-server or --bootstrap-controller argument",
            ENTITY_TYPES.join(", ")
        )));
    }
    if types.is_empty() {
        return Err(usage("At least one entity type must be specified"));
    }
    let user_and_client = types.len() == 2 && types.iter().all(|t| t == USERS || t == CLIENTS);
    if types.len() > 1 && !user_and_client {
        return Err(usage("Only 'users' and 'clients' entity types may be specified together"));
    }
    let (named, defaults) = args.shortcuts();
    let generic = !args.entity_name.is_empty() || !args.entity_type.is_empty() || args.entity_default > 0;
    if generic && (!named.is_empty() || !defaults.is_empty()) {
        return Err(usage("--entity-{type,name,default} should not be used in conjunction with specific entity flags"));
    }
    match (&args.bootstrap_server, &args.bootstrap_controller) {
        (None, None) => {
            return Err(usage(
                "One of the required --bootstrap-server, --boostrap-controller, or --zookeeper arguments must be specified",
            ));
        }
        (Some(_), Some(_)) => {
            return Err(usage(
                "Only one of --bootstrap-server, --boostrap-controller, and --zookeeper can be specified",
            ));
        }
        (None, Some(_)) => {
            return Err(usage("strand configs does not support --bootstrap-controller yet: use --bootstrap-server"));
        }
        (Some(_), None) => {}
    }
    let has_name = names.iter().any(|n| !n.is_empty());
    let has_default = names.iter().any(String::is_empty);
    if has_name && (types.iter().any(|t| t == BROKERS || t == BROKER_LOGGERS)) {
        let given = args.entity_name.iter().chain(&args.broker).chain(&args.broker_logger);
        if let Some(bad) = given.clone().find(|id| id.parse::<i32>().is_err()) {
            return Err(usage(format!(
                "The entity name for {} must be a valid integer broker id, but it is: {bad}",
                types[0]
            )));
        }
    }
    let unresolvable = || args.entity_name.iter().chain(&args.ip).find(|ip| !run::resolvable(ip));
    if has_name
        && types.iter().any(|t| t == IPS)
        && let Some(bad) = unresolvable()
    {
        return Err(usage(format!(
            "The entity name for {} must be a valid IP or resolvable host, but it is: {bad}",
            types[0]
        )));
    }
    let takes_default = types.iter().any(|t| [USERS, CLIENTS, BROKERS, IPS].contains(&t.as_str()));
    if args.describe {
        if !takes_default && args.entity_default > 0 {
            return Err(usage(format!(
                "--entity-default must not be specified with --describe of {}",
                types.join(",")
            )));
        }
        if types.iter().any(|t| t == BROKER_LOGGERS) && !has_name {
            return Err(usage(format!("An entity name must be specified with --describe of {}", types.join(","))));
        }
    }
    if args.alter {
        if takes_default {
            if !has_name && !has_default {
                return Err(usage(
                    "An entity-name or default entity must be specified with --alter of users, clients, brokers or ips",
                ));
            }
        } else if !has_name {
            return Err(usage(format!("An entity name must be specified with --alter of {}", types.join(","))));
        }
        if args.add_config.is_some() && args.add_config_file.is_some() {
            return Err(usage("Only one of --add-config or --add-config-file must be specified"));
        }
        if args.add_config.is_none() && args.add_config_file.is_none() && args.delete_config.is_empty() {
            return Err(usage(
                "At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter",
            ));
        }
        if types.len() != names.len() {
            return Err(usage("An entity name must be specified for every entity type"));
        }
    }
    if let Some(unsupported) = types.iter().find(|t| matches!(t.as_str(), "client-metrics" | BROKER_LOGGERS)) {
        return Err(usage(format!("strand configs does not support the entity type {unsupported} yet")));
    }
    Ok(Command { types, names })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn names_and_defaults_keep_their_command_line_order() {
        let args = strings(&[
            "--entity-type",
            "users",
            "--entity-default",
            "--entity-type",
            "clients",
            "--entity-name",
            "app",
        ]);
        assert_eq!(name_order(&args), [false, true]);
        let args = strings(&["--entity-n=carol", "--entity-d", "--describe"]);
        assert_eq!(name_order(&args), [true, false]);
        // A value that looks like the flag is the name's value, not a flag.
        let args = strings(&["--entity-name", "--entity-default"]);
        assert_eq!(name_order(&args), [true]);
    }
}
