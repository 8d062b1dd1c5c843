//! `strand acls`: Kafka's `kafka-acls.sh` (`AclCommand`) through the brokers or the controllers:
//! `--add`, `--remove` and `--list` of bindings on topics, groups, the cluster, transactional
//! ids, delegation tokens and users, with `--resource-pattern-type`, allow/deny principals and
//! hosts, `--operation`, the `--producer` (with `--idempotent`) and `--consumer` shortcuts,
//! `--principal` for listing and `--force`; printed as Kafka's tool prints them (resources and
//! their bindings in a stable order where Kafka's follow its hash sets).

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use strand_client::Admin;
use strand_client::admin_acls::{AccessControlEntry, AclBinding, ResourcePattern};
use strand_security::acl::{AclOperation, AclPermissionType, CLUSTER_NAME, PatternType, ResourceType, WILDCARD_HOST};

use crate::tool::{self, Failure};

const EXAMPLES: &str = "Examples:
  strand acls --bootstrap-server localhost:9092 --add --allow-principal User:alice --operation Read --topic orders
  strand acls --bootstrap-server localhost:9092 --list --topic orders";

/// The flags of `kafka-acls.sh`.
#[derive(Debug, Args)]
#[command(about = "Add, remove and list ACLs (Kafka's kafka-acls.sh).", after_help = EXAMPLES, infer_long_args = true)]
pub struct AclsArgs {
    /// A list of host/port pairs to use for establishing the connection to the Kafka cluster.
    #[arg(long)]
    bootstrap_server: Option<String>,
    /// A list of host/port pairs to use for establishing the connection to the Kafka controllers.
    #[arg(long)]
    bootstrap_controller: Option<String>,
    /// A property file containing configs to be passed to Admin Client.
    #[arg(long)]
    command_config: Option<PathBuf>,
    /// Indicates you are trying to add ACLs.
    #[arg(long)]
    add: bool,
    /// Indicates you are trying to remove ACLs.
    #[arg(long)]
    remove: bool,
    /// List ACLs for the specified resource.
    #[arg(long)]
    list: bool,
    /// topic to which ACLs should be added or removed.
    #[arg(long)]
    topic: Vec<String>,
    /// Add/Remove cluster ACLs.
    #[arg(long)]
    cluster: bool,
    /// Consumer Group to which the ACLs should be added or removed.
    #[arg(long)]
    group: Vec<String>,
    /// The transactionalId to which ACLs should be added or removed.
    #[arg(long)]
    transactional_id: Vec<String>,
    /// Delegation token to which ACLs should be added or removed.
    #[arg(long)]
    delegation_token: Vec<String>,
    /// Specifies a user principal as a resource in relation with the operation.
    #[arg(long)]
    user_principal: Vec<String>,
    /// The type of the resource pattern or pattern filter: literal, prefixed, any, match.
    #[arg(long, default_value = "LITERAL")]
    resource_pattern_type: String,
    /// Principal to which the ACLs apply, in PrincipalType:name format.
    #[arg(long)]
    allow_principal: Vec<String>,
    /// Principal to which the ACLs are denied, in PrincipalType:name format.
    #[arg(long)]
    deny_principal: Vec<String>,
    /// List ACLs for the specified principal (with --list).
    #[arg(long)]
    principal: Vec<String>,
    /// Host from which the allowed principals may access (default *).
    #[arg(long)]
    allow_host: Vec<String>,
    /// Host from which the denied principals may not access (default *).
    #[arg(long)]
    deny_host: Vec<String>,
    /// Operation that is being allowed or denied (Read, Write, Create, Delete, Alter, Describe, ...; default All).
    #[arg(long)]
    operation: Vec<String>,
    /// Convenience option to add/remove ACLs for the producer role.
    #[arg(long)]
    producer: bool,
    /// Convenience option to add/remove ACLs for the consumer role.
    #[arg(long)]
    consumer: bool,
    /// Enable idempotence for the producer (with --producer).
    #[arg(long)]
    idempotent: bool,
    /// Assume Yes to all queries and do not prompt.
    #[arg(long)]
    force: bool,
}

pub fn run(args: AclsArgs) -> ExitCode {
    match execute(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(reason)) => {
            eprintln!("{reason}");
            ExitCode::FAILURE
        }
        Err(Failure::Operation(message)) => {
            println!("Error while executing ACL command: {message}");
            ExitCode::FAILURE
        }
    }
}

fn usage(message: &str) -> Failure {
    Failure::Usage(message.to_owned())
}

fn execute(args: &AclsArgs) -> Result<(), Failure> {
    if [args.add, args.remove, args.list].iter().filter(|a| **a).count() != 1 {
        return Err(usage("Command must include exactly one action: --list, --add, --remove. "));
    }
    if args.list
        && (args.producer || args.consumer || !args.allow_principal.is_empty() || !args.deny_principal.is_empty())
    {
        return Err(usage(
            "Option \"[list]\" can't be used with option \"[producer]\", \"[consumer]\", \"[allow-principal]\" or \"[deny-principal]\"",
        ));
    }
    if args.producer && args.topic.is_empty() && args.transactional_id.is_empty() {
        return Err(usage("With --producer you must specify a --topic or --transactional-id"));
    }
    if args.idempotent && !args.producer {
        return Err(usage("The --idempotent option is only available if --producer is set"));
    }
    if args.consumer
        && (args.topic.is_empty()
            || args.group.is_empty()
            || (!args.producer && (args.cluster || !args.transactional_id.is_empty())))
    {
        return Err(usage(
            "With --consumer you must specify a --topic and a --group and no --cluster or --transactional-id option should be specified.",
        ));
    }
    let pattern_type =
        PatternType::parse(&args.resource_pattern_type).filter(|p| !matches!(p, PatternType::Unknown)).ok_or_else(
            || usage(&format!("Invalid value {} for --resource-pattern-type", args.resource_pattern_type)),
        )?;
    let config = tool::client_config_either(
        args.bootstrap_server.as_deref(),
        args.bootstrap_controller.as_deref(),
        args.command_config.as_deref(),
    )?;
    let failed = |e: strand_client::ClientError| Failure::Operation(tool::exception(e));
    if args.list {
        let filters = resource_filters(args, pattern_type);
        let principals = principals(&args.principal)?;
        return tool::block_on(async move {
            let admin = tool::admin(config).await?;
            let bindings = list(&admin, &filters).await.map_err(failed)?;
            if principals.is_empty() {
                print_resources("Current ACLs for resource", &bindings);
            }
            for principal in principals {
                println!("ACLs for principal `{principal}`");
                let theirs: BTreeMap<_, BTreeSet<_>> = bindings
                    .iter()
                    .map(|(p, entries)| {
                        (
                            p.clone(),
                            entries.iter().filter(|e| e.principal.as_deref() == Some(&principal)).cloned().collect(),
                        )
                    })
                    .filter(|(_, entries): &(_, BTreeSet<_>)| !entries.is_empty())
                    .collect();
                print_resources("Current ACLs for resource", &theirs);
            }
            Ok(())
        });
    }
    if args.add && matches!(pattern_type, PatternType::Any | PatternType::Match) {
        return Err(usage(&format!(
            "A '--resource-pattern-type' value of '{}' is not valid when adding acls.",
            pattern_type.name()
        )));
    }
    let to_change = resources_to_entries(args, pattern_type)?;
    if args.add && to_change.values().any(BTreeSet::is_empty) {
        return Err(usage("You must specify one of: --allow-principal, --deny-principal when trying to add ACLs."));
    }
    let force = args.force;
    let add = args.add;
    tool::block_on(async move {
        let admin = tool::admin(config).await?;
        for (pattern, entries) in &to_change {
            if add {
                print_resources("Adding ACLs for resource", &BTreeMap::from([(pattern.clone(), entries.clone())]));
                let bindings: Vec<AclBinding> = entries.iter().map(|e| (pattern.clone(), e.clone())).collect();
                for outcome in admin.create_acls(&bindings).await.map_err(failed)? {
                    outcome.map_err(failed)?;
                }
                continue;
            }
            let question = if entries.is_empty() {
                format!(
                    "Are you sure you want to delete all ACLs for resource filter `{}`? (y/n)",
                    filter_text(pattern)
                )
            } else {
                let lines: Vec<String> = entries.iter().map(|e| format!("\t{}", entry_text(e))).collect();
                format!(
                    "Are you sure you want to remove ACLs: \n {} \n from resource filter `{}`? (y/n)",
                    lines.join("\n"),
                    filter_text(pattern)
                )
            };
            if !force && !confirmed(&question) {
                continue;
            }
            let any = AccessControlEntry {
                principal: None,
                host: None,
                operation: AclOperation::Any,
                permission: AclPermissionType::Any,
            };
            let filters: Vec<AclBinding> = if entries.is_empty() {
                vec![(pattern.clone(), any)]
            } else {
                entries.iter().map(|e| (pattern.clone(), e.clone())).collect()
            };
            for outcome in admin.delete_acls(&filters).await.map_err(failed)? {
                outcome.map_err(failed)?;
            }
        }
        Ok(())
    })
}

/// Kafka's `confirmAction`: the question on stdout, `y` on stdin.
fn confirmed(question: &str) -> bool {
    println!("{question}");
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer).is_ok() && answer.trim().eq_ignore_ascii_case("y")
}

/// The bindings each filter matches (every binding without one), by pattern.
async fn list(
    admin: &Admin,
    filters: &[ResourcePattern],
) -> Result<BTreeMap<ResourcePattern, BTreeSet<AccessControlEntry>>, strand_client::ClientError> {
    let any_entry = AccessControlEntry {
        principal: None,
        host: None,
        operation: AclOperation::Any,
        permission: AclPermissionType::Any,
    };
    let any_pattern = ResourcePattern { resource_type: ResourceType::Any, name: None, pattern_type: PatternType::Any };
    let filters = if filters.is_empty() { vec![any_pattern] } else { filters.to_vec() };
    let mut found: BTreeMap<ResourcePattern, BTreeSet<AccessControlEntry>> = BTreeMap::new();
    for filter in filters {
        for (pattern, entry) in admin.describe_acls(&(filter, any_entry.clone())).await? {
            found.entry(pattern).or_default().insert(entry);
        }
    }
    Ok(found)
}

fn pattern_text(p: &ResourcePattern) -> String {
    format!(
        "ResourcePattern(resourceType={}, name={}, patternType={})",
        p.resource_type.name(),
        p.name.as_deref().unwrap_or("null"),
        p.pattern_type.name()
    )
}

fn filter_text(p: &ResourcePattern) -> String {
    format!(
        "ResourcePatternFilter(resourceType={}, name={}, patternType={})",
        p.resource_type.name(),
        p.name.as_deref().unwrap_or("<any>"),
        p.pattern_type.name()
    )
}

fn entry_text(e: &AccessControlEntry) -> String {
    format!(
        "(principal={}, host={}, operation={}, permissionType={})",
        e.principal.as_deref().unwrap_or("<any>"),
        e.host.as_deref().unwrap_or("<any>"),
        e.operation.name(),
        e.permission.name()
    )
}

/// Kafka's `s"$title `$resource`: $Newline ${acls.map("\t" + _).mkString(Newline)} $Newline"`.
fn print_resources(title: &str, resources: &BTreeMap<ResourcePattern, BTreeSet<AccessControlEntry>>) {
    for (pattern, entries) in resources {
        let lines: Vec<String> = entries.iter().map(|e| format!("\t{}", entry_text(e))).collect();
        println!("{title} `{}`: \n {} \n", pattern_text(pattern), lines.join("\n"));
    }
}

/// The resource filters the options name, with the pattern type given.
fn resource_filters(args: &AclsArgs, pattern_type: PatternType) -> Vec<ResourcePattern> {
    let named = |resource_type: ResourceType, names: &[String]| -> Vec<ResourcePattern> {
        names.iter().map(|n| ResourcePattern { resource_type, name: Some(n.trim().to_owned()), pattern_type }).collect()
    };
    let mut filters = named(ResourceType::Topic, &args.topic);
    if pattern_type == PatternType::Literal && (args.cluster || args.idempotent) {
        filters.push(cluster());
    }
    filters.extend(named(ResourceType::Group, &args.group));
    filters.extend(named(ResourceType::TransactionalId, &args.transactional_id));
    filters.extend(named(ResourceType::DelegationToken, &args.delegation_token));
    filters.extend(named(ResourceType::User, &args.user_principal));
    filters
}

fn cluster() -> ResourcePattern {
    ResourcePattern {
        resource_type: ResourceType::Cluster,
        name: Some(CLUSTER_NAME.to_owned()),
        pattern_type: PatternType::Literal,
    }
}

/// Kafka's `getResourceFilterToAcls`: each resource and the entries to add or remove on it.
fn resources_to_entries(
    args: &AclsArgs,
    pattern_type: PatternType,
) -> Result<BTreeMap<ResourcePattern, BTreeSet<AccessControlEntry>>, Failure> {
    let filters = resource_filters(args, pattern_type);
    if filters.is_empty() {
        return Err(usage(
            "You must provide at least one resource: --topic <topic> or --cluster or --group <group> or --delegation-token <Delegation Token ID>",
        ));
    }
    let mut map: BTreeMap<ResourcePattern, BTreeSet<AccessControlEntry>> = BTreeMap::new();
    let of = |kind: ResourceType| filters.iter().filter(move |f| f.resource_type == kind);
    if !args.producer && !args.consumer {
        let operations = if args.operation.is_empty() {
            vec![AclOperation::All]
        } else {
            args.operation.iter().map(|o| operation(o)).collect::<Result<_, _>>()?
        };
        let entries = entries(args, &operations)?;
        for filter in &filters {
            map.insert(filter.clone(), entries.clone());
        }
    }
    if args.producer {
        let topic = entries(args, &[AclOperation::Write, AclOperation::Describe, AclOperation::Create])?;
        let transactional = entries(args, &[AclOperation::Write, AclOperation::Describe])?;
        of(ResourceType::Topic).for_each(|f| {
            map.insert(f.clone(), topic.clone());
        });
        of(ResourceType::TransactionalId).for_each(|f| {
            map.insert(f.clone(), transactional.clone());
        });
        if args.idempotent {
            map.insert(cluster(), entries(args, &[AclOperation::IdempotentWrite])?);
        }
    }
    if args.consumer {
        let topic = entries(args, &[AclOperation::Read, AclOperation::Describe])?;
        let group = entries(args, &[AclOperation::Read])?;
        of(ResourceType::Topic).for_each(|f| map.entry(f.clone()).or_default().extend(topic.iter().cloned()));
        of(ResourceType::Group).for_each(|f| map.entry(f.clone()).or_default().extend(group.iter().cloned()));
    }
    for (pattern, entries) in &map {
        let supported = supported_operations(pattern.resource_type);
        if entries.iter().any(|e| !supported.contains(&e.operation)) {
            let names: Vec<&str> = supported.iter().map(|o| o.name()).collect();
            return Err(usage(&format!(
                "ResourceType {} only supports operations {}",
                pattern.resource_type.name(),
                names.join(",")
            )));
        }
    }
    Ok(map)
}

/// Kafka's `AclEntry.supportedOperations`.
fn supported_operations(resource_type: ResourceType) -> Vec<AclOperation> {
    use AclOperation::*;
    match resource_type {
        ResourceType::Topic => vec![Read, Write, Create, Describe, Delete, Alter, DescribeConfigs, AlterConfigs, All],
        ResourceType::Group => vec![Read, Describe, Delete, DescribeConfigs, AlterConfigs, All],
        ResourceType::Cluster => {
            vec![Create, ClusterAction, DescribeConfigs, AlterConfigs, IdempotentWrite, Alter, Describe, All]
        }
        ResourceType::TransactionalId => vec![Describe, Write, All],
        ResourceType::DelegationToken => vec![Describe, All],
        ResourceType::User => vec![CreateTokens, DescribeTokens, All],
        _ => vec![],
    }
}

/// `Read`, `ClusterAction`, `IDEMPOTENT_WRITE`...: Kafka's `SecurityUtils.operation`.
fn operation(text: &str) -> Result<AclOperation, Failure> {
    let mut snake = String::new();
    for (i, c) in text.trim().chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 && !text.contains('_') {
            snake.push('_');
        }
        snake.push(c.to_ascii_uppercase());
    }
    AclOperation::parse(&snake)
        .filter(|o| !matches!(o, AclOperation::Unknown | AclOperation::Any))
        .ok_or_else(|| usage(&format!("Unknown operation: {text}")))
}

fn principals(texts: &[String]) -> Result<Vec<String>, Failure> {
    texts
        .iter()
        .map(|p| {
            let p = p.trim();
            match p.split_once(':') {
                Some((kind, name)) if !kind.is_empty() && !name.is_empty() => Ok(p.to_owned()),
                _ => Err(usage(&format!("expected a string in format principalType:principalName but got {p}"))),
            }
        })
        .collect()
}

/// Kafka's `getAcl`: every allowed principal × operation × allowed host, and the denied ones.
fn entries(args: &AclsArgs, operations: &[AclOperation]) -> Result<BTreeSet<AccessControlEntry>, Failure> {
    let mut entries = BTreeSet::new();
    for (principals_, hosts, permission) in [
        (&args.allow_principal, &args.allow_host, AclPermissionType::Allow),
        (&args.deny_principal, &args.deny_host, AclPermissionType::Deny),
    ] {
        let hosts: Vec<String> = if hosts.is_empty() {
            vec![WILDCARD_HOST.to_owned()]
        } else {
            hosts.iter().map(|h| h.trim().to_owned()).collect()
        };
        for principal in principals(principals_)? {
            for &operation in operations {
                for host in &hosts {
                    entries.insert(AccessControlEntry {
                        principal: Some(principal.clone()),
                        host: Some(host.clone()),
                        operation,
                        permission,
                    });
                }
            }
        }
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_read_as_kafka_reads_them() {
        assert_eq!(operation("Read").ok(), Some(AclOperation::Read));
        assert_eq!(operation("ClusterAction").ok(), Some(AclOperation::ClusterAction));
        assert_eq!(operation("IDEMPOTENT_WRITE").ok(), Some(AclOperation::IdempotentWrite));
        assert_eq!(operation("all").ok(), Some(AclOperation::All));
        assert!(operation("Fly").is_err());
    }
}
