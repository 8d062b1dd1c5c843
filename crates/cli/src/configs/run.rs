//! `--describe` and `--alter`, as Kafka 4.4's `ConfigCommand.describeConfig` and `alterConfig`
//! do them, with their lines, messages and orders (Java's `HashMap`s reproduced where Kafka
//! prints from one).

use std::collections::BTreeMap;
use std::net::ToSocketAddrs;

use strand_client::Admin;
use strand_client::admin::{RESOURCE_BROKER, RESOURCE_TOPIC};

/// ConfigResource type GROUP (KIP-848).
const RESOURCE_GROUP: i8 = 32;
/// DescribeConfigs' `GROUP_CONFIG` source: a group's own value.
const GROUP_CONFIG: i8 = 8;
use strand_client::admin_configs::{AlterOp, QuotaEntity, QuotaMatch, ScramUpsertion};
use strand_client::config::ClientConfig;
use strand_security::scram::ScramMechanism;

use super::{BROKERS, CLIENTS, Command, ConfigsArgs, GROUPS, IPS, TOPICS, USERS};
use crate::tool::{self, Failure, java_hash, java_hash_map_order, java_hash_map_order_by};

/// Kafka's client and user quota keys (`QuotaConfig.isClientOrUserQuotaConfig`).
const CLIENT_QUOTAS: [&str; 4] =
    ["producer_byte_rate", "consumer_byte_rate", "request_percentage", "controller_mutation_rate"];
/// Kafka's IP quota keys.
const IP_QUOTAS: [&str; 1] = ["connection_creation_rate"];
/// Kafka's `DEFAULT_SCRAM_ITERATIONS`.
const SCRAM_ITERATIONS_DEFAULT: i32 = 4096;
/// RESOURCE_NOT_FOUND: a described user without credentials, left out as Kafka's `users()` does.
const RESOURCE_NOT_FOUND: i16 = 91;

fn usage(message: impl Into<String>) -> Failure {
    Failure::Usage(message.into())
}

/// Connects and runs the checked command.
pub async fn execute(args: &ConfigsArgs, command: Command) -> Result<(), Failure> {
    let bootstrap = args.bootstrap_server.as_deref().unwrap_or_default();
    let config: ClientConfig = tool::client_config(bootstrap, args.command_config.as_deref())?;
    let admin = tool::admin(config).await?;
    if args.alter { alter(&admin, args, &command).await } else { describe(&admin, args.all, &command).await }
}

/// Whether `host` is an IP address or a name that resolves (Kafka's `isValidIpEntity`).
pub fn resolvable(host: &str) -> bool {
    (host, 0).to_socket_addrs().is_ok_and(|mut found| found.next().is_some())
}

// --- describe ------------------------------------------------------------------------------

async fn describe(admin: &Admin, all: bool, command: &Command) -> Result<(), Failure> {
    let entity_type = command.types[0].as_str();
    match entity_type {
        TOPICS | BROKERS | GROUPS => describe_resources(admin, entity_type, command.names.first(), all).await,
        USERS | CLIENTS => {
            describe_quotas(admin, command).await?;
            let is_default = command.names.iter().any(String::is_empty);
            if !command.types.iter().any(|t| t == CLIENTS) && !is_default {
                describe_scram(admin, &command.names).await?;
            }
            Ok(())
        }
        _ => describe_quotas(admin, command).await,
    }
}

async fn describe_resources(admin: &Admin, entity_type: &str, name: Option<&String>, all: bool) -> Result<(), Failure> {
    if let (Some(name), false) = (name, all) {
        let exists = if entity_type == TOPICS {
            validate_topic(name)?;
            admin.list_topics(true).await?.iter().any(|t| &t.name == name)
        } else if entity_type == GROUPS {
            // A group, or a name with configs of its own (Kafka's ListConfigResources).
            admin.list_groups(&[], &[]).await?.iter().any(|g| &g.group_id == name)
                || admin.describe_config(RESOURCE_GROUP, name).await?.iter().any(|c| c.entry.source == GROUP_CONFIG)
        } else {
            name.is_empty() || admin.describe_cluster().await?.nodes.iter().any(|n| n.id.to_string() == *name)
        };
        if !exists {
            println!("The {} '{name}' doesn't exist and doesn't have dynamic config.", singular(entity_type));
            return Ok(());
        }
    }
    let entities: Vec<String> = match name {
        Some(name) => vec![name.clone()],
        None if entity_type == TOPICS => {
            java_hash_map_order(admin.list_topics(true).await?.into_iter().map(|t| t.name).collect(), 16)
        }
        None if entity_type == GROUPS => admin.list_groups(&[], &[]).await?.into_iter().map(|g| g.group_id).collect(),
        None => {
            let mut ids: Vec<String> = admin.describe_cluster().await?.nodes.iter().map(|n| n.id.to_string()).collect();
            ids.push(String::new());
            ids
        }
    };
    for entity in &entities {
        let (resource_type, dynamic_source) = match (entity_type, entity.is_empty()) {
            (TOPICS, _) => (RESOURCE_TOPIC, 1),
            (GROUPS, _) => (RESOURCE_GROUP, GROUP_CONFIG),
            (_, true) => (RESOURCE_BROKER, 3),
            (_, false) => (RESOURCE_BROKER, 2),
        };
        if entity_type == TOPICS {
            validate_topic(entity)?;
        }
        let mut configs = admin.describe_config(resource_type, entity).await?;
        configs.retain(|c| all || c.entry.source == dynamic_source);
        configs.sort_by(|a, b| a.entry.name.cmp(&b.entry.name));
        if entity.is_empty() {
            println!("Default configs for {entity_type} in the cluster are:");
        } else {
            println!("{} configs for {} {entity} are:", if all { "All" } else { "Dynamic" }, singular(entity_type));
        }
        for config in configs {
            let synonyms: Vec<String> = config
                .synonyms
                .iter()
                .map(|s| format!("{}:{}={}", source_name(s.source), s.name, s.value.as_deref().unwrap_or("null")))
                .collect();
            let entry = &config.entry;
            let value = entry.value.as_deref().unwrap_or("null");
            println!("  {}={value} sensitive={} synonyms={{{}}}", entry.name, entry.sensitive, synonyms.join(", "));
        }
    }
    Ok(())
}

/// The quota filter of the command's types and names (Kafka's `getAllClientQuotasConfigs`).
fn quota_components(command: &Command) -> Result<Vec<(String, QuotaMatch)>, Failure> {
    if command.names.len() > command.types.len() {
        return Err(usage("More entity names specified than entity types"));
    }
    Ok(command
        .types
        .iter()
        .enumerate()
        .map(|(i, entity_type)| {
            let matching = match command.names.get(i) {
                None => QuotaMatch::Any,
                Some(name) if name.is_empty() => QuotaMatch::Default,
                Some(name) => QuotaMatch::Exact(name.clone()),
            };
            (quota_type(entity_type).to_owned(), matching)
        })
        .collect())
}

async fn describe_quotas(admin: &Admin, command: &Command) -> Result<(), Failure> {
    let found = admin.describe_client_quotas(&quota_components(command)?).await?;
    let count = found.len();
    // DescribeClientQuotasResponse fills a HashMap keyed by entity (`ClientQuotaEntity.hashCode`
    // is `Objects.hash(entries)`: 31 plus the map's hash, the sum over its entries of key hash ^
    // value hash), each entity's values a HashMap of their own.
    let entity_hash = |(entity, _): &(QuotaEntity, Vec<(String, f64)>)| {
        let entries =
            entity.iter().fold(0i32, |sum, (t, n)| sum.wrapping_add(java_hash(t) ^ n.as_deref().map_or(0, java_hash)));
        entries.wrapping_add(31)
    };
    for (entity, values) in java_hash_map_order_by(found, count, entity_hash) {
        let describe = |label: &str, name: &Option<String>| match name.as_deref() {
            None | Some("") => format!("the default {label}"),
            Some(name) => format!("{label} '{name}'"),
        };
        let parts: Vec<String> = [("user", "user-principal"), ("client-id", "client-id"), ("ip", "ip")]
            .into_iter()
            .filter_map(|(key, label)| entity.iter().find(|(t, _)| t == key).map(|(_, name)| describe(label, name)))
            .collect();
        let size = values.len();
        let entries: Vec<String> = java_hash_map_order_by(values, size, |(key, _)| java_hash(key))
            .into_iter()
            .map(|(key, value)| format!("{key}={}", java_double(value)))
            .collect();
        println!("Quota configs for {} are {}", parts.join(", "), entries.join(", "));
    }
    Ok(())
}

async fn describe_scram(admin: &Admin, users: &[String]) -> Result<(), Failure> {
    for (user, described) in admin.describe_user_scram_credentials(users).await? {
        match described {
            Ok(credentials) => {
                let text: Vec<String> = credentials
                    .iter()
                    .map(|(mechanism, iterations)| {
                        let name = ScramMechanism::from_id(*mechanism).map_or("UNKNOWN", ScramMechanism::name);
                        format!("{name}=iterations={iterations}")
                    })
                    .collect();
                println!("SCRAM credential configs for user-principal '{user}' are {}", text.join(", "));
            }
            Err(e) if e.code().is_some_and(|c| c.code() == RESOURCE_NOT_FOUND) => {}
            Err(e) => println!("Error retrieving SCRAM credential configs for user-principal '{user}': {e}"),
        }
    }
    Ok(())
}

// --- alter ---------------------------------------------------------------------------------

async fn alter(admin: &Admin, args: &ConfigsArgs, command: &Command) -> Result<(), Failure> {
    let (entity_type, entity_name) = (command.types[0].as_str(), command.names[0].as_str());
    let added = configs_to_add(args)?;
    let deleted: Vec<String> = args.delete_config.iter().map(|k| k.trim().to_owned()).collect();
    match entity_type {
        TOPICS | BROKERS | GROUPS => {
            let resource_type = match entity_type {
                TOPICS => RESOURCE_TOPIC,
                GROUPS => RESOURCE_GROUP,
                _ => RESOURCE_BROKER,
            };
            let deletes = deleted.iter().map(|k| (k.clone(), AlterOp::Delete, Some(String::new())));
            let sets = added.iter().map(|(k, v)| (k.clone(), AlterOp::Set, Some(v.clone())));
            let ops: Vec<_> = deletes.chain(sets).collect();
            admin.incremental_alter_config(resource_type, entity_name, &ops).await?;
        }
        USERS | CLIENTS => alter_user_or_client(admin, command, &added, &deleted).await?,
        _ => {
            let unknown: Vec<&str> =
                added.keys().chain(&deleted).map(String::as_str).filter(|k| !IP_QUOTAS.contains(k)).collect();
            if !unknown.is_empty() {
                return Err(usage(format!(
                    "Only connection quota configs can be added for '{IPS}' using --bootstrap-server. Unexpected config names: {}",
                    java_hash_map_order(unknown, 16).join(", ")
                )));
            }
            alter_quotas(admin, command, &added, &deleted).await?;
        }
    }
    if entity_name.is_empty() {
        println!("Completed updating default config for {entity_type} in the cluster.");
    } else {
        println!("Completed updating config for {} {entity_name}.", singular(entity_type));
    }
    Ok(())
}

async fn alter_user_or_client(
    admin: &Admin,
    command: &Command,
    added: &BTreeMap<String, String>,
    deleted: &[String],
) -> Result<(), Failure> {
    let is_scram = |k: &str| ScramMechanism::from_name(k).is_some();
    let is_quota = |k: &str| CLIENT_QUOTAS.contains(&k);
    let unknown = |keys: Vec<&str>| -> Vec<String> {
        java_hash_map_order(keys.into_iter().filter(|k| !is_scram(k) && !is_quota(k)).map(str::to_owned).collect(), 16)
    };
    let (unknown_added, unknown_deleted) =
        (unknown(added.keys().map(String::as_str).collect()), unknown(deleted.iter().map(String::as_str).collect()));
    let scram_added: Vec<&String> = added.keys().filter(|k| is_scram(k)).collect();
    let scram_deleted: Vec<&String> = deleted.iter().filter(|k| is_scram(k)).collect();
    let quotas = added.keys().any(|k| is_quota(k)) || deleted.iter().any(|k| is_quota(k));
    if command.types[0] == CLIENTS || command.types.len() == 2 {
        let join = |mut names: Vec<String>, scram: &[&String]| {
            names.extend(scram.iter().map(|s| (*s).clone()));
            java_hash_map_order(names, 16).join(",")
        };
        if !unknown_added.is_empty() || !scram_added.is_empty() {
            let names = join(unknown_added, &scram_added);
            return Err(usage(format!(
                "Only quota configs can be added for '{CLIENTS}' using --bootstrap-server. Unexpected config names: {names}"
            )));
        }
        if !unknown_deleted.is_empty() || !scram_deleted.is_empty() {
            let names = join(unknown_deleted, &scram_deleted);
            return Err(usage(format!(
                "Only quota configs can be deleted for '{CLIENTS}' using --bootstrap-server. Unexpected config names: {names}"
            )));
        }
    } else {
        if !unknown_added.is_empty() {
            return Err(usage(format!(
                "Only quota and SCRAM credential configs can be added for '{USERS}' using --bootstrap-server. Unexpected config names: {}",
                unknown_added.join(",")
            )));
        }
        if !unknown_deleted.is_empty() {
            return Err(usage(format!(
                "Only quota and SCRAM credential configs can be deleted for '{USERS}' using --bootstrap-server. Unexpected config names: {}",
                unknown_deleted.join(",")
            )));
        }
        if !scram_added.is_empty() || !scram_deleted.is_empty() {
            if command.names.iter().any(String::is_empty) {
                return Err(usage(
                    "The use of --entity-default or --user-defaults is not allowed with User SCRAM Credentials using --bootstrap-server.",
                ));
            }
            if quotas {
                return Err(usage(format!(
                    "Cannot alter both quota and SCRAM credential configs simultaneously for '{USERS}' using --bootstrap-server."
                )));
            }
        }
    }
    if quotas {
        return alter_quotas(admin, command, added, deleted).await;
    }
    alter_scram(admin, &command.names[0], added, &scram_deleted).await
}

async fn alter_quotas(
    admin: &Admin,
    command: &Command,
    added: &BTreeMap<String, String>,
    deleted: &[String],
) -> Result<(), Failure> {
    if command.types.len() != command.names.len() {
        return Err(usage("Exactly one entity name must be specified for every entity type"));
    }
    let found = admin.describe_client_quotas(&quota_components(command)?).await?;
    let old: Vec<String> =
        found.into_iter().next().map(|(_, values)| values.into_iter().map(|(k, _)| k).collect()).unwrap_or_default();
    let invalid: Vec<&str> = deleted.iter().map(String::as_str).filter(|k| !old.iter().any(|o| o == k)).collect();
    if !invalid.is_empty() {
        return Err(usage(format!("Invalid config(s): {}", invalid.join(","))));
    }
    let entity: QuotaEntity = command
        .types
        .iter()
        .zip(&command.names)
        .map(|(t, n)| (quota_type(t).to_owned(), (!n.is_empty()).then(|| n.clone())))
        .collect();
    let mut ops = Vec::new();
    for (key, value) in added {
        let parsed = value
            .trim()
            .parse::<f64>()
            .map_err(|_| usage(format!("Cannot parse quota configuration value for {key}: {value}")))?;
        ops.push((key.clone(), Some(parsed)));
    }
    ops.extend(deleted.iter().map(|k| (k.clone(), None)));
    admin.alter_client_quotas(&entity, &ops).await?;
    Ok(())
}

async fn alter_scram(
    admin: &Admin,
    user: &str,
    added: &BTreeMap<String, String>,
    deleted: &[&String],
) -> Result<(), Failure> {
    let mut deletions = Vec::new();
    for name in deleted {
        let mechanism =
            ScramMechanism::from_name(name).ok_or_else(|| usage(format!("Unknown SCRAM mechanism {name}")))?;
        deletions.push((user.to_owned(), mechanism.id()));
    }
    let mut upsertions = Vec::new();
    for (name, credential) in added {
        let Some(mechanism) = ScramMechanism::from_name(name) else { continue };
        let (iterations, password) = parse_credential(mechanism, credential)?;
        let random = crate::storage::random_bytes().map_err(|e| Failure::Operation(format!("{e:#}")))?;
        let salt = crate::add_scram::salt_from_random(random);
        let rounds = u32::try_from(iterations).unwrap_or(u32::MAX);
        let salted_password = mechanism.salted_password(password.as_bytes(), &salt, rounds);
        upsertions.push(ScramUpsertion {
            user: user.to_owned(),
            mechanism: mechanism.id(),
            iterations,
            salt,
            salted_password,
        });
    }
    admin.alter_user_scram_credentials(&deletions, &upsertions).await?;
    Ok(())
}

/// `[iterations=N,]password=P`, as Kafka's `parseIterationsAndPasswordBytes` reads it.
fn parse_credential(mechanism: ScramMechanism, credential: &str) -> Result<(i32, String), Failure> {
    let invalid = || usage(format!("Invalid credential property {}={credential}", mechanism.name()));
    let (iterations, rest) = match credential.strip_prefix("iterations=") {
        Some(after) => {
            let (digits, rest) = after.split_once(',').ok_or_else(invalid)?;
            let digits_only = digits.strip_prefix('-').unwrap_or(digits).chars().all(|c| c.is_ascii_digit());
            if !digits_only {
                return Err(invalid());
            }
            (Some(digits), rest)
        }
        None => (None, credential),
    };
    let password = rest.strip_prefix("password=").ok_or_else(invalid)?;
    let iterations = match iterations {
        None | Some("-1") => SCRAM_ITERATIONS_DEFAULT,
        Some(digits) => digits.parse::<i32>().map_err(|_| usage(format!("For input string: \"{digits}\"")))?,
    };
    let minimum = ScramMechanism::ITERATIONS_MIN;
    if i64::from(iterations) < i64::from(minimum) {
        return Err(usage(format!(
            "Iterations {iterations} is less than the minimum {minimum} required for {}",
            mechanism.name()
        )));
    }
    Ok((iterations, password.to_owned()))
}

/// `--add-config-file`'s properties, then `--add-config`'s pairs (Kafka's `parseConfigsToBeAdded`).
fn configs_to_add(args: &ConfigsArgs) -> Result<BTreeMap<String, String>, Failure> {
    let mut configs = match &args.add_config_file {
        Some(path) => ClientConfig::read_properties(path).map_err(|e| Failure::Operation(e.to_string()))?,
        None => BTreeMap::new(),
    };
    if let Some(text) = &args.add_config {
        for pair in split_outside_brackets(text, ',') {
            let parts = split_outside_brackets(&pair, '=');
            let [key, value] = &parts[..] else {
                return Err(usage(
                    "Invalid entity config: all configs to be added must be in the format \"key=val\" or  \"key=[val1,val2]\" to group values which contain commas.",
                ));
            };
            let value: String = value.chars().filter(|c| *c != '[' && *c != ']').collect();
            configs.insert(key.trim().to_owned(), value.trim().to_owned());
        }
    }
    if let Some(bad) = configs.keys().find(|k| !k.chars().all(|c| c.is_ascii_alphanumeric() || "$._-".contains(c))) {
        return Err(usage(format!("Invalid character found for config key: {bad}")));
    }
    Ok(configs)
}

/// Splits `text` at each `separator` not inside square brackets (Kafka's look-ahead: the next
/// bracket after it is an opening one, or there is none), keeping empty trailing parts.
fn split_outside_brackets(text: &str, separator: char) -> Vec<String> {
    let mut parts = vec![String::new()];
    for (at, c) in text.char_indices() {
        let inside = text[at..].chars().find(|c| *c == '[' || *c == ']') == Some(']');
        if c == separator && !inside {
            parts.push(String::new());
        } else if let Some(last) = parts.last_mut() {
            last.push(c);
        }
    }
    parts
}

/// Kafka's `Topic.validate`, with its messages.
fn validate_topic(name: &str) -> Result<(), Failure> {
    let invalid = |message: String| {
        Err(Failure::Operation(format!("org.apache.kafka.common.errors.InvalidTopicException: {message}")))
    };
    if name.is_empty() {
        return invalid("Topic name is illegal, it can't be empty".into());
    }
    if name == "." || name == ".." {
        return invalid("Topic name cannot be \".\" or \"..\"".into());
    }
    if name.len() > 249 {
        return invalid(format!("Topic name is illegal, it can't be longer than 249 characters, topic name: {name}"));
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)) {
        return invalid(format!(
            "Topic name \"{name}\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'"
        ));
    }
    Ok(())
}

/// The quota entity type of a command-line entity type.
fn quota_type(entity_type: &str) -> &'static str {
    match entity_type {
        USERS => "user",
        CLIENTS => "client-id",
        _ => "ip",
    }
}

/// `entityType.substring(0, length - 1)`.
fn singular(entity_type: &str) -> &str {
    &entity_type[..entity_type.len().saturating_sub(1)]
}

/// Kafka's `ConfigEntry.ConfigSource` names by wire id.
fn source_name(source: i8) -> &'static str {
    match source {
        1 => "DYNAMIC_TOPIC_CONFIG",
        2 => "DYNAMIC_BROKER_CONFIG",
        3 => "DYNAMIC_DEFAULT_BROKER_CONFIG",
        4 => "STATIC_BROKER_CONFIG",
        5 => "DEFAULT_CONFIG",
        6 => "DYNAMIC_BROKER_LOGGER_CONFIG",
        7 => "DYNAMIC_CLIENT_METRICS_CONFIG",
        8 => "DYNAMIC_GROUP_CONFIG",
        _ => "UNKNOWN",
    }
}

/// Java's `Double.toString`: plain with at least one decimal from 10^-3 up to 10^7, else
/// computerized scientific notation (`1.048576E7`).
pub fn java_double(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    let magnitude = value.abs();
    if value == 0.0 || (1e-3..1e7).contains(&magnitude) {
        return format!("{value:?}");
    }
    let scientific = format!("{value:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let mantissa = if mantissa.contains('.') { mantissa.to_owned() } else { format!("{mantissa}.0") };
    format!("{mantissa}E{exponent}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_print_as_java_prints_them() {
        assert_eq!(java_double(1024.0), "1024.0");
        assert_eq!(java_double(0.5), "0.5");
        assert_eq!(java_double(10_485_760.0), "1.048576E7");
        assert_eq!(java_double(1e7), "1.0E7");
        assert_eq!(java_double(0.0001), "1.0E-4");
        assert_eq!(java_double(100_000.0), "100000.0");
    }

    #[test]
    fn add_config_splits_outside_brackets() {
        assert_eq!(split_outside_brackets("a=1,b=[x,y],c=", ','), ["a=1", "b=[x,y]", "c="]);
        assert_eq!(split_outside_brackets("k=[a=b]", '='), ["k", "[a=b]"]);
        assert_eq!(split_outside_brackets("k=v=w", '='), ["k", "v", "w"]);
    }

    #[test]
    fn credentials_parse_as_kafka_s() {
        let sha512 = ScramMechanism::Sha512;
        assert_eq!(parse_credential(sha512, "password=p").ok(), Some((4096, "p".to_owned())));
        assert_eq!(parse_credential(sha512, "iterations=8192,password=a,b").ok(), Some((8192, "a,b".to_owned())));
        assert!(
            matches!(parse_credential(sha512, "iterations=100,password=p"), Err(Failure::Usage(m)) if m.contains("less than the minimum 4096"))
        );
        assert!(
            matches!(parse_credential(sha512, "secret"), Err(Failure::Usage(m)) if m == "Invalid credential property SCRAM-SHA-512=secret")
        );
    }
}
