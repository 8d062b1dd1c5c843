//! `strand features`: Kafka's `kafka-features.sh` (`FeatureCommand`), through the brokers
//! (`--bootstrap-server`) or the controllers (`--bootstrap-controller`): `describe`, `upgrade`
//! and `downgrade` (`--feature NAME=LEVEL`, `--metadata VERSION`, or `--release-version
//! VERSION` for every feature at once; `--dry-run`, `--unsafe`), `disable`, and the offline
//! `version-mapping` and `feature-dependencies`. Each feature's outcome is printed as Kafka's
//! tool prints it, by name; a refused one makes the exit code 1.
//!
//! Release versions are Kafka 4.4's (`MetadataVersion`, 3.3-IV3 to 4.5-IV0) and each feature's
//! default level for them (`Features.defaultValue`), as `kafka-features version-mapping` prints.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use strand_client::admin_features::UpgradeType;

use crate::tool::{self, Failure, exception};

const EXAMPLES: &str = "Examples:
  strand features --bootstrap-server localhost:9092 describe
  strand features --bootstrap-controller localhost:9093 upgrade --feature transaction.version=2 --dry-run";

/// Kafka 4.4's metadata versions, by feature level from 7 (`MetadataVersion.VERSIONS`).
const METADATA_VERSIONS: [&str; 28] = [
    "3.3-IV3", "3.4-IV0", "3.5-IV0", "3.5-IV1", "3.5-IV2", "3.6-IV0", "3.6-IV1", "3.6-IV2", "3.7-IV0", "3.7-IV1",
    "3.7-IV2", "3.7-IV3", "3.7-IV4", "3.8-IV0", "3.9-IV0", "4.0-IV0", "4.0-IV1", "4.0-IV2", "4.0-IV3", "4.1-IV0",
    "4.1-IV1", "4.2-IV0", "4.2-IV1", "4.3-IV0", "4.4-IV0", "4.4-IV1", "4.4-IV2", "4.5-IV0",
];
/// The level of [`METADATA_VERSIONS`]' first entry.
const METADATA_VERSION_MIN: i16 = 7;
/// `MetadataVersion.LATEST_PRODUCTION`: 4.4-IV2.
const METADATA_VERSION_LATEST_PRODUCTION: i16 = 33;

/// Kafka 4.4's production features other than metadata.version, in `Features.PRODUCTION_FEATURES`
/// order, each with the metadata version from which each of its levels is the default.
const PRODUCTION_FEATURES: [(&str, &[(i16, i16)]); 6] = [
    ("kraft.version", &[(1, 21)]),
    ("transaction.version", &[(2, 24)]),
    ("group.version", &[(1, 22)]),
    ("eligible.leader.replicas.version", &[(1, 26)]),
    ("share.version", &[(1, 28), (2, 31)]),
    ("streams.version", &[(1, 29)]),
];
/// The levels known for each production feature, and what each requires (Kafka 4.4's
/// `FeatureVersion.dependencies`): only ELR 1 requires something, metadata.version 4.0-IV1.
const FEATURE_LEVELS_MAX: [(&str, i16); 6] = [
    ("kraft.version", 1),
    ("transaction.version", 2),
    ("group.version", 1),
    ("eligible.leader.replicas.version", 1),
    ("share.version", 2),
    ("streams.version", 1),
];

/// The flags of `kafka-features.sh`.
#[derive(Debug, Args)]
#[command(about = "This tool manages feature flags in Kafka (Kafka's kafka-features.sh).", after_help = EXAMPLES)]
pub struct FeaturesArgs {
    /// A comma-separated list of host:port pairs to use for establishing the connection to the Kafka cluster.
    #[arg(long)]
    bootstrap_server: Option<String>,
    /// A comma-separated list of host:port pairs to use for establishing the connection to the KRaft quorum.
    #[arg(long)]
    bootstrap_controller: Option<String>,
    /// Property file containing configs to be passed to Admin Client.
    #[arg(long)]
    command_config: Option<PathBuf>,
    #[command(subcommand)]
    command: FeaturesCommand,
}

#[derive(Debug, Subcommand)]
enum FeaturesCommand {
    /// Describes the current active feature flags.
    Describe,
    /// Upgrade one or more feature flags.
    Upgrade(Change),
    /// Downgrade one or more feature flags.
    Downgrade(Change),
    /// Disable one or more feature flags. This is the same as downgrading the version to zero.
    Disable(Disable),
    /// Look up the corresponding features for a given metadata version.
    VersionMapping {
        /// The release version to use for the corresponding feature mapping (default 4.4-IV2).
        #[arg(long)]
        release_version: Option<String>,
    },
    /// Look up dependencies for a given feature version.
    FeatureDependencies {
        /// The feature and version to look up dependencies for, in feature=version format.
        #[arg(long, required = true)]
        feature: Vec<String>,
    },
}

#[derive(Debug, Args)]
struct Change {
    /// DEPRECATED -- The level of metadata.version, for example 3.3-IV3.
    #[arg(long)]
    metadata: Option<String>,
    /// The release version to update all features to, for example 3.9-IV0.
    #[arg(long)]
    release_version: Option<String>,
    /// A feature update, in feature=level format, for example `metadata.version=5`.
    #[arg(long)]
    feature: Vec<String>,
    /// Perform this downgrade even if it may irreversibly destroy metadata.
    #[arg(long)]
    r#unsafe: bool,
    /// Validate this change, but do not perform it.
    #[arg(long)]
    dry_run: bool,
}

#[derive(Debug, Args)]
struct Disable {
    /// A feature flag to disable.
    #[arg(long)]
    feature: Vec<String>,
    /// Disable this feature flag even if it may irreversibly destroy metadata.
    #[arg(long)]
    r#unsafe: bool,
    /// Perform a dry-run of this disable operation.
    #[arg(long)]
    dry_run: bool,
}

pub fn run(args: FeaturesArgs) -> ExitCode {
    tool::report_plain(execute(args))
}

fn execute(args: FeaturesArgs) -> Result<(), Failure> {
    match &args.command {
        FeaturesCommand::VersionMapping { release_version } => return version_mapping(release_version.as_deref()),
        FeaturesCommand::FeatureDependencies { feature } => return feature_dependencies(feature),
        _ => {}
    }
    let config = tool::client_config_either(
        args.bootstrap_server.as_deref(),
        args.bootstrap_controller.as_deref(),
        args.command_config.as_deref(),
    )?;
    let (op, updates, dry_run) = match &args.command {
        FeaturesCommand::Describe => ("describe", BTreeMap::new(), false),
        FeaturesCommand::Upgrade(change) => ("upgrade", change_updates(change, UpgradeType::Upgrade)?, change.dry_run),
        FeaturesCommand::Downgrade(change) => {
            ("downgrade", change_updates(change, downgrade_type(change.r#unsafe))?, change.dry_run)
        }
        FeaturesCommand::Disable(disable) => ("disable", disable_updates(disable)?, disable.dry_run),
        FeaturesCommand::VersionMapping { .. } | FeaturesCommand::FeatureDependencies { .. } => unreachable!(),
    };
    if op != "describe" && updates.is_empty() {
        return Err(Failure::Operation(format!("You must specify at least one feature to {op}")));
    }
    tool::block_on(async move {
        let admin = tool::admin(config).await?;
        if op == "describe" {
            return describe(&admin).await;
        }
        let outcomes = admin.update_features(&updates, dry_run).await.map_err(|e| Failure::Operation(exception(e)))?;
        let mut failures = 0;
        for (name, outcome) in &outcomes {
            let level = updates.get(name).map_or(0, |(level, _)| *level);
            match outcome {
                Err(error) => {
                    failures += 1;
                    let helper = if dry_run { "Can not" } else { "Could not" };
                    let what =
                        if op == "disable" { format!("disable {name}") } else { format!("{op} {name} to {level}") };
                    println!("{helper} {what}. {error}");
                }
                Ok(()) => {
                    let verb = if dry_run { "can be" } else { "was" };
                    let what = if op == "disable" { "disabled.".to_owned() } else { format!("{op}d to {level}.") };
                    println!("{name} {verb} {what}");
                }
            }
        }
        if failures > 0 {
            return Err(Failure::Operation(format!("{failures} out of {} operation(s) failed.", updates.len())));
        }
        Ok(())
    })
}

async fn describe(admin: &strand_client::Admin) -> Result<(), Failure> {
    let features = admin.describe_features().await.map_err(|e| Failure::Operation(exception(e)))?;
    let epoch = if features.epoch >= 0 { features.epoch.to_string() } else { "-".to_owned() };
    for (name, &(min, max)) in &features.supported {
        let finalized = features.finalized.get(name).copied().unwrap_or(0);
        println!(
            "Feature: {name:<42}SupportedMinVersion: {:<17}SupportedMaxVersion: {:<17}FinalizedVersionLevel: {:<17}Epoch: {epoch}",
            level_text(name, min),
            level_text(name, max),
            level_text(name, finalized)
        );
    }
    Ok(())
}

/// A level as Kafka's tool prints it: metadata.version's by its name.
fn level_text(feature: &str, level: i16) -> String {
    if feature != "metadata.version" {
        return level.to_string();
    }
    metadata_version_name(level).map_or_else(|| format!("UNKNOWN {level}"), str::to_owned)
}

fn metadata_version_name(level: i16) -> Option<&'static str> {
    usize::try_from(level - METADATA_VERSION_MIN).ok().and_then(|i| METADATA_VERSIONS.get(i)).copied()
}

/// `MetadataVersion.fromVersionString`: a full name, or `x.y` for that release's last version.
fn metadata_version_level(text: &str) -> Option<i16> {
    let found = METADATA_VERSIONS.iter().rposition(|name| *name == text || name.split('-').next() == Some(text))?;
    Some(METADATA_VERSION_MIN + found as i16)
}

fn unknown_metadata_version(text: &str) -> Failure {
    Failure::Operation(format!(
        "Unknown metadata.version '{text}'. Supported metadata.version are: {}",
        METADATA_VERSIONS.join(", ")
    ))
}

fn downgrade_type(unsafe_: bool) -> UpgradeType {
    if unsafe_ { UpgradeType::UnsafeDowngrade } else { UpgradeType::SafeDowngrade }
}

/// The default level of each production feature at metadata version `level`.
fn defaults_at(level: i16) -> impl Iterator<Item = (&'static str, i16)> {
    PRODUCTION_FEATURES.into_iter().map(move |(name, levels)| {
        (name, levels.iter().filter(|(_, from)| *from <= level).map(|(l, _)| *l).max().unwrap_or(0))
    })
}

/// Kafka's `parseNameAndLevel`.
fn name_and_level(text: &str) -> Result<(String, i16), Failure> {
    let (name, level) = text.split_once('=').ok_or_else(|| {
        Failure::Operation(format!("Can't parse feature=level string {text}: equals sign not found."))
    })?;
    let level = level.trim().parse().map_err(|_| {
        Failure::Operation(format!(
            "Can't parse feature=level string {text}: unable to parse {} as a short.",
            level.trim()
        ))
    })?;
    Ok((name.trim().to_owned(), level))
}

fn change_updates(change: &Change, kind: UpgradeType) -> Result<BTreeMap<String, (i16, UpgradeType)>, Failure> {
    let mut updates = BTreeMap::new();
    if let Some(release) = &change.release_version {
        if change.metadata.is_some() || !change.feature.is_empty() {
            return Err(Failure::Operation("Can not specify `release-version` with other feature flags.".into()));
        }
        let level = metadata_version_level(release).ok_or_else(|| unknown_metadata_version(release))?;
        updates.insert("metadata.version".to_owned(), (level, kind));
        for (name, default) in defaults_at(level) {
            // An upgrade never sends a feature to level 0.
            if kind != UpgradeType::Upgrade || default > 0 {
                updates.insert(name.to_owned(), (default, kind));
            }
        }
        return Ok(updates);
    }
    if let Some(metadata) = &change.metadata {
        println!(" `metadata` flag is deprecated and may be removed in a future release.");
        let level = metadata_version_level(metadata).ok_or_else(|| unknown_metadata_version(metadata))?;
        updates.insert("metadata.version".to_owned(), (level, kind));
    }
    for feature in &change.feature {
        let (name, level) = name_and_level(feature)?;
        if updates.insert(name.clone(), (level, kind)).is_some() {
            return Err(Failure::Operation(format!("Feature {name} was specified more than once.")));
        }
    }
    Ok(updates)
}

fn disable_updates(disable: &Disable) -> Result<BTreeMap<String, (i16, UpgradeType)>, Failure> {
    let mut updates = BTreeMap::new();
    for name in &disable.feature {
        if updates.insert(name.clone(), (0, downgrade_type(disable.r#unsafe))).is_some() {
            return Err(Failure::Operation(format!("Feature {name} was specified more than once.")));
        }
    }
    Ok(updates)
}

fn version_mapping(release: Option<&str>) -> Result<(), Failure> {
    let (text, level) = match release {
        Some(text) => (text, metadata_version_level(text).ok_or_else(|| unknown_metadata_version(text))?),
        None => (
            metadata_version_name(METADATA_VERSION_LATEST_PRODUCTION).unwrap_or_default(),
            METADATA_VERSION_LATEST_PRODUCTION,
        ),
    };
    println!("metadata.version={level} ({text})");
    for (name, default) in defaults_at(level) {
        println!("{name}={default}");
    }
    Ok(())
}

fn feature_dependencies(features: &[String]) -> Result<(), Failure> {
    for feature in features {
        let (name, level) = name_and_level(feature)?;
        if name == "metadata.version" {
            let version = metadata_version_name(level)
                .ok_or_else(|| Failure::Operation(format!("Unknown metadata.version {level}")))?;
            println!("{name}={level} ({version}) has no dependencies.");
            continue;
        }
        let max = FEATURE_LEVELS_MAX
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, max)| *max)
            .ok_or_else(|| Failure::Operation(format!("Unknown feature: {name}")))?;
        if !(0..=max).contains(&level) {
            return Err(Failure::Operation(format!("No feature:{name} with feature level {level}")));
        }
        if name == "eligible.leader.replicas.version" && level >= 1 {
            println!("{name}={level} requires:");
            println!("    metadata.version=23 (4.0-IV1)");
        } else {
            println!("{name}={level} has no dependencies.");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_versions_are_kafka_s() {
        assert_eq!(metadata_version_level("3.3-IV3"), Some(7));
        assert_eq!(metadata_version_level("4.4-IV2"), Some(33));
        assert_eq!(metadata_version_level("3.5"), Some(11), "a release alone is its last version");
        assert_eq!(metadata_version_level("2.8"), None);
        assert_eq!(level_text("metadata.version", 34), "4.5-IV0");
        assert_eq!(level_text("metadata.version", 3), "UNKNOWN 3");
        assert_eq!(level_text("group.version", 1), "1");
    }

    /// `kafka-features version-mapping` as Kafka 4.4 prints it for 3.9-IV0 and 4.4-IV0.
    #[test]
    fn release_defaults_are_kafka_s() {
        let at = |level| defaults_at(level).collect::<Vec<_>>();
        assert_eq!(
            at(21),
            [
                ("kraft.version", 1),
                ("transaction.version", 0),
                ("group.version", 0),
                ("eligible.leader.replicas.version", 0),
                ("share.version", 0),
                ("streams.version", 0)
            ]
        );
        assert_eq!(at(31).iter().map(|(_, l)| *l).collect::<Vec<_>>(), [1, 2, 1, 1, 2, 1]);
        assert_eq!(at(28).iter().find(|(n, _)| *n == "share.version"), Some(&("share.version", 1)));
    }
}
