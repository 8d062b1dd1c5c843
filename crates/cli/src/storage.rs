//! Log-directory formatting and cluster ids, as Kafka's `kafka-storage.sh` does them.
//!
//! - `strand storage random-uuid`: prints a new Kafka uuid (22 characters of URL-safe base64).
//! - `strand storage format -t ID -c FILE [--ignore-formatted] [--add-scram CREDENTIAL]...`
//!   ([`format()`]): writes `meta.properties` (version 1, `cluster.id`, `node.id`, a random
//!   `directory.id`) into every log dir and the metadata log dir, printing Kafka's `Formatting
//!   ...` lines, and the bootstrap records (the finalized features, then one
//!   `UserScramCredentialRecord` per `--add-scram`, see [`crate::add_scram`]) into the metadata log
//!   dir's `bootstrap.checkpoint`, which the first leader commits before anything else; an
//!   already formatted dir is refused unless `--ignore-formatted`. `--standalone`,
//!   `--initial-controllers` and `--no-initial-controllers` format a dynamic quorum (KIP-853):
//!   `kraft.version` 1 and the initial voters' `VotersRecord` in the bootstrap file.
//! - [`ensure_formatted`]: what `strand server` does first (design §1). All dirs empty: format
//!   them with `cluster.id`, or with a fresh random id if the node is its quorum's sole voter;
//!   otherwise refuse and say how to set one. Formatted: every dir must name the same cluster
//!   and node, and the cluster `cluster.id` names if it is set.
//!
//! The checks follow Kafka's `Formatter.doFormat`, `MetaPropertiesEnsemble.verify` and
//! `KafkaRaftServer.initializeLogDirs`. Randomness comes from `/dev/urandom` (Linux and the BSDs),
//! here in the binary, never in the crates below it.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::{Args, Subcommand};
use strand_base::Uuid;
use strand_log::dir::MetaProperties;
use strand_metadata::controller::{BootstrapFeatures, bootstrap_records};
use strand_metadata::quorum::{Bootstrap, QuorumVoters};
use strand_protocol::messages::records::MetadataRecord;
use strand_server::config::ServerConfig;

/// The `metadata.version` Strand finalizes, Kafka 4.4's (printed as `kafka-storage.sh` does).
pub const METADATA_VERSION: &str = "4.4-IV2";

#[derive(Debug, Subcommand)]
pub enum StorageCommand {
    /// Print a random UUID, for a cluster id.
    RandomUuid,
    /// Format the log directories of a node.
    Format(FormatArgs),
}

#[derive(Debug, Args)]
pub struct FormatArgs {
    /// The cluster id to use.
    #[arg(short = 't', long = "cluster-id")]
    cluster_id: String,
    /// The server.properties of the node.
    #[arg(short = 'c', long = "config")]
    config: PathBuf,
    /// Skip directories that are already formatted rather than failing.
    #[arg(short = 'g', long = "ignore-formatted")]
    ignore_formatted: bool,
    /// Used to initialize a controller as a single-node dynamic quorum. When setting this flag,
    /// the controller.quorum.voters config must not be set, and controller.quorum.bootstrap.servers
    /// is set instead.
    #[arg(short = 's', long = "standalone", conflicts_with_all = ["initial_controllers", "no_initial_controllers"])]
    standalone: bool,
    /// Used to initialize a server without specifying a dynamic quorum. When setting this flag,
    /// the controller.quorum.voters config should not be set, and
    /// controller.quorum.bootstrap.servers is set instead.
    #[arg(short = 'N', long = "no-initial-controllers", conflicts_with = "initial_controllers")]
    no_initial_controllers: bool,
    /// Used to initialize a server with the specified dynamic quorum: a comma-separated list of
    /// id@hostname:port:directory, the same on every node. When setting this flag, the
    /// controller.quorum.voters config must not be set, and controller.quorum.bootstrap.servers
    /// is set instead.
    #[arg(short = 'I', long = "initial-controllers")]
    initial_controllers: Option<String>,
    /// A SCRAM credential to write into the metadata log, e.g.
    /// 'SCRAM-SHA-256=[name=alice,password=alice-secret]' or
    /// 'SCRAM-SHA-512=[name=alice,iterations=8192,salt="N3E=",saltedpassword="YCE="]'.
    #[arg(short = 'S', long = "add-scram")]
    add_scram: Vec<String>,
}

pub fn run(command: StorageCommand) -> anyhow::Result<()> {
    match command {
        StorageCommand::RandomUuid => {
            println!("{}", random_uuid()?);
            Ok(())
        }
        StorageCommand::Format(args) => {
            let config = ServerConfig::load(Some(&args.config), &[])?;
            let dynamic_voters = dynamic_voters(&config, &args)?;
            let features = BootstrapFeatures {
                kraft_version: if dynamic_voters.is_some() { 1 } else { 0 },
                ..BootstrapFeatures::default()
            };
            let mut random_salt = || Ok(crate::add_scram::salt_from_random(random_bytes()?));
            let mut records: Vec<(MetadataRecord, i16)> =
                bootstrap_records(&features).into_iter().map(|r| (r.record, r.version)).collect();
            for argument in &args.add_scram {
                let record = crate::add_scram::parse(argument, &mut random_salt)?;
                records.push((MetadataRecord::UserScramCredentialRecord(record), 0));
            }
            let out = &mut std::io::stdout().lock();
            let bootstrap = Bootstrap { records, dynamic_voters };
            format(&config, &args.cluster_id, args.ignore_formatted, &bootstrap, out)
        }
    }
}

/// The dynamic quorum `--standalone`, `--initial-controllers` or `--no-initial-controllers` asks
/// for (`None`: a static quorum), with Kafka's `StorageTool` refusals.
fn dynamic_voters(config: &ServerConfig, args: &FormatArgs) -> anyhow::Result<Option<QuorumVoters>> {
    let static_voters = !config.controller_quorum_voters.is_empty();
    if static_voters && (args.initial_controllers.is_some() || args.standalone) {
        bail!(
            "You cannot specify controller.quorum.voters and format the node with --initial-controllers or \
             --standalone. If you want to use dynamic quorum, please remove controller.quorum.voters and specify \
             controller.quorum.bootstrap.servers instead."
        );
    }
    let listener_name = config.controller_listener_names.first().cloned().unwrap_or_default();
    let mut voters = match &args.initial_controllers {
        Some(text) => Some(QuorumVoters::parse_dynamic(text, &listener_name).map_err(anyhow::Error::msg)?),
        None => None,
    };
    if args.standalone {
        voters = Some(standalone_voter(config, &listener_name)?);
    }
    // Strand's one-node cluster names no quorum at all (design §1): it stays static, as Kafka
    // refuses such a configuration outright.
    let quorum_named = static_voters || !config.controller_quorum_bootstrap_servers.is_empty();
    if !args.no_initial_controllers
        && config.process_roles.controller
        && quorum_named
        && !static_voters
        && voters.is_none()
    {
        bail!(
            "Because controller.quorum.voters is not set on this controller, you must specify one of the following: \
             --standalone, --initial-controllers, or --no-initial-controllers."
        );
    }
    if args.no_initial_controllers && !static_voters {
        return Ok(Some(QuorumVoters::none(&listener_name)));
    }
    Ok(voters)
}

/// Kafka's `createStandaloneDynamicVoters`: this controller at its first advertised controller
/// listener (`localhost` for an empty host), with a new directory id.
fn standalone_voter(config: &ServerConfig, listener_name: &str) -> anyhow::Result<QuorumVoters> {
    if !config.process_roles.controller {
        bail!("You can only use --standalone on a controller.");
    }
    let advertised =
        config.advertised_listeners.iter().filter(|l| config.controller_listener_names.contains(&l.listener_name));
    let Some(listener) = advertised.chain(config.controller_listeners()).next() else {
        bail!("No controller listeners found.");
    };
    let host = if listener.host.is_empty() { "localhost".to_owned() } else { listener.host.clone() };
    let mut voters = QuorumVoters::none(listener_name);
    voters.insert(config.node_id, Some((host, listener.port)), random_uuid()?);
    Ok(voters)
}

/// `N` bytes from `/dev/urandom`.
pub(crate) fn random_bytes<const N: usize>() -> anyhow::Result<[u8; N]> {
    let mut urandom = File::open("/dev/urandom").context("cannot open /dev/urandom")?;
    let mut bytes = [0u8; N];
    urandom.read_exact(&mut bytes).context("cannot read /dev/urandom")?;
    Ok(bytes)
}

/// A new random Kafka uuid: 16 random bytes with the version-4 and variant bits Java's
/// `UUID.randomUUID` sets, redrawn while reserved (all-zero high half: Kafka's `ZERO`, `ONE` and
/// reserved directory ids) or printing with a leading `-` (Kafka's `Uuid.randomUuid` rule, so
/// the id is never read as a command-line flag).
pub fn random_uuid() -> anyhow::Result<Uuid> {
    loop {
        let mut bytes: [u8; 16] = random_bytes()?;
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        let id = Uuid(bytes);
        if bytes[..8] != [0; 8] && !id.to_string().starts_with('-') {
            return Ok(id);
        }
    }
}

/// `kafka-storage.sh format`: writes `meta.properties` with `cluster_id` into every empty log dir
/// of `config`, printing one `Formatting ...` line per directory to `out`, and `bootstrap` as the
/// metadata log dir's `bootstrap.checkpoint` if that dir is one of them. A dynamic quorum's
/// initial voter takes the directory id `--initial-controllers` gave it for its metadata log dir.
pub fn format(
    config: &ServerConfig,
    cluster_id: &str,
    ignore_formatted: bool,
    bootstrap: &Bootstrap,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if cluster_id.is_empty() {
        bail!("You must specify the cluster id.");
    }
    if let Some(configured) = config.cluster_id.as_deref().filter(|configured| *configured != cluster_id) {
        bail!("the cluster id {cluster_id} differs from cluster.id={configured} in the configuration");
    }
    let dirs = read_dirs(&config.all_log_dirs())?;
    verify(config, Some(Expected { cluster_id, origin: Origin::Argument }), &dirs)?;
    if let Some(formatted) = dirs.iter().find(|dir| dir.meta.is_some())
        && !ignore_formatted
    {
        bail!(
            "Log directory {} is already formatted. Use --ignore-formatted to ignore this directory and format the \
             others.",
            formatted.path.display()
        );
    }
    let empty: Vec<&LogDir> = dirs.iter().filter(|dir| dir.meta.is_none()).collect();
    if empty.is_empty() {
        writeln!(out, "All of the log directories are already formatted.")?;
        return Ok(());
    }
    for dir in empty {
        let voter_directory_id = bootstrap
            .dynamic_voters
            .as_ref()
            .filter(|voters| dir.path == config.metadata_log_dir && voters.contains(config.node_id))
            .map(|voters| voters.directory_id(config.node_id));
        let kind = match (&bootstrap.dynamic_voters, voter_directory_id) {
            (_, Some(_)) => "dynamic metadata voter directory",
            (Some(voters), None) if !voters.is_empty() && dir.path == config.metadata_log_dir => {
                "dynamic metadata directory"
            }
            _ => dir_kind(config, &dir.path),
        };
        writeln!(out, "Formatting {kind} {} with metadata.version {METADATA_VERSION}.", dir.path.display())?;
        if dir.path == config.metadata_log_dir {
            // Before meta.properties, which marks the dir formatted: a failure here leaves it not.
            std::fs::create_dir_all(&dir.path)
                .with_context(|| format!("cannot create log directory {}", dir.path.display()))?;
            let now_ms = strand_base::Clock::now_ms(&strand_base::SystemClock);
            strand_metadata::quorum::write_bootstrap(&dir.path, bootstrap, now_ms)
                .with_context(|| format!("cannot write the bootstrap metadata into {}", dir.path.display()))?;
        }
        write_meta_properties(&dir.path, cluster_id, config.node_id, &dirs, voter_directory_id)?;
    }
    Ok(())
}

/// Prepares the log dirs for `strand server` and returns the node's cluster id: formats them on
/// first start (all empty), checks them otherwise. `preflight` runs just before a first start
/// formats: what it refuses leaves the dirs unformatted. The `unusable` dirs (they could not be
/// locked), and data dirs whose `meta.properties` cannot be read, are left out: the node runs
/// without them (Kafka's `MetaPropertiesEnsemble` keeps them as error dirs); the metadata log
/// dir must be readable.
pub fn ensure_formatted(
    config: &ServerConfig,
    unusable: &[PathBuf],
    preflight: impl FnOnce(&ServerConfig) -> anyhow::Result<()>,
) -> anyhow::Result<String> {
    let paths: Vec<PathBuf> = config.all_log_dirs().into_iter().filter(|dir| !unusable.contains(dir)).collect();
    let dirs = read_readable_dirs(config, &paths)?;
    let expected = config.cluster_id.as_deref().map(|cluster_id| Expected { cluster_id, origin: Origin::Config });
    if let Some(cluster_id) = verify(config, expected, &dirs)? {
        if let Some(empty) = dirs.iter().find(|dir| dir.meta.is_none()) {
            bail!(
                "No `meta.properties` found in {} while the other log directories are formatted for cluster \
                 {cluster_id}. Format it with `strand storage format -t {cluster_id} -c <server.properties> \
                 --ignore-formatted`.",
                empty.path.display()
            );
        }
        return Ok(cluster_id);
    }
    let cluster_id = match &config.cluster_id {
        Some(cluster_id) => cluster_id.clone(),
        None if config.is_sole_voter() => random_uuid()?.to_string(),
        None => bail!(
            "The log directories ({}) are not formatted, and this node is not its quorum's only voter, so it \
             cannot choose a cluster id alone. Make one with `strand storage random-uuid`, then either run \
             `strand storage format -t <cluster-id> -c <server.properties>` on every node, or set \
             cluster.id=<cluster-id> (the same on every node).",
            list_paths(&dirs)
        ),
    };
    preflight(config)?;
    for dir in &dirs {
        write_meta_properties(&dir.path, &cluster_id, config.node_id, &dirs, None)?;
        tracing::info!(
            "Formatted {} {} for cluster {cluster_id} (first start)",
            dir_kind(config, &dir.path),
            dir.path.display()
        );
    }
    Ok(cluster_id)
}

/// A log dir and its `meta.properties`, `None` when it has none (unformatted, or not there yet).
#[derive(Debug)]
struct LogDir {
    path: PathBuf,
    meta: Option<MetaProperties>,
}

/// The cluster id the formatted dirs must name, and who asked for it (for the message).
#[derive(Debug, Clone, Copy)]
struct Expected<'a> {
    cluster_id: &'a str,
    origin: Origin,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// `format -t`.
    Argument,
    /// `cluster.id` in the configuration.
    Config,
    /// Another log dir's `meta.properties`.
    LogDir,
}

/// [`read_dirs`], leaving out the data dirs whose `meta.properties` cannot be read.
fn read_readable_dirs(config: &ServerConfig, paths: &[PathBuf]) -> anyhow::Result<Vec<LogDir>> {
    let mut dirs = Vec::new();
    for path in paths {
        match MetaProperties::read(path) {
            Ok(meta) => dirs.push(LogDir { path: path.clone(), meta }),
            Err(_) if *path != config.metadata_log_dir => {}
            Err(e) => return Err(e).with_context(|| format!("cannot read log directory {}", path.display())),
        }
    }
    Ok(dirs)
}

fn read_dirs(paths: &[PathBuf]) -> anyhow::Result<Vec<LogDir>> {
    paths
        .iter()
        .map(|path| {
            let meta =
                MetaProperties::read(path).with_context(|| format!("cannot read log directory {}", path.display()))?;
            Ok(LogDir { path: path.clone(), meta })
        })
        .collect()
}

/// Kafka's `MetaPropertiesEnsemble.verify`: every formatted dir names one cluster (the expected
/// one, if any) and this node. Returns the cluster id the formatted dirs name, if any is.
fn verify<'a>(
    config: &ServerConfig,
    mut expected: Option<Expected<'a>>,
    dirs: &'a [LogDir],
) -> anyhow::Result<Option<String>> {
    for dir in dirs {
        let Some(meta) = &dir.meta else { continue };
        let file = dir.path.join(strand_log::dir::META_PROPERTIES_FILE);
        let Some(read) = meta.cluster_id.as_deref() else {
            bail!("cluster.id was not specified in {}", file.display());
        };
        match expected {
            None => expected = Some(Expected { cluster_id: read, origin: Origin::LogDir }),
            Some(Expected { cluster_id, origin }) if cluster_id != read => {
                bail!("{}", cluster_mismatch(&file, cluster_id, origin, read))
            }
            Some(_) => {}
        }
        if let Some(stored) = meta.node_id.filter(|stored| *stored != config.node_id) {
            bail!(
                "Stored node id {stored} doesn't match previous node id {} in {}. If you moved your data, make sure \
                 your configured node id matches. If you intend to create a new node, you should remove all data in \
                 your data directories.",
                config.node_id,
                file.display()
            );
        }
    }
    let formatted = dirs.iter().any(|dir| dir.meta.is_some());
    Ok(expected.filter(|_| formatted).map(|expected| expected.cluster_id.to_owned()))
}

fn cluster_mismatch(file: &Path, expected: &str, origin: Origin, read: &str) -> String {
    match origin {
        Origin::Config => format!(
            "Refusing to start: {} names cluster {read}, but cluster.id is {expected}, so this node's data belongs \
             to another cluster. To join cluster {expected}, point log.dirs at empty directories; to keep cluster \
             {read}, remove cluster.id or set it to {read}.",
            file.display()
        ),
        Origin::Argument | Origin::LogDir => {
            format!("Invalid cluster.id in: {}. Expected {expected}, but read {read}", file.display())
        }
    }
}

/// Writes version-1 `meta.properties` into `dir` (created if missing), with `directory_id` or a
/// random directory id no other dir of the node has.
fn write_meta_properties(
    dir: &Path,
    cluster_id: &str,
    node_id: i32,
    dirs: &[LogDir],
    directory_id: Option<Uuid>,
) -> anyhow::Result<()> {
    let taken: Vec<Uuid> = dirs.iter().filter_map(|d| d.meta.as_ref().and_then(|meta| meta.directory_id)).collect();
    let mut directory_id = match directory_id {
        Some(id) => id,
        None => random_uuid()?,
    };
    while taken.contains(&directory_id) {
        directory_id = random_uuid()?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create log directory {}", dir.display()))?;
    MetaProperties::v1(cluster_id, node_id, directory_id)
        .write(dir)
        .with_context(|| format!("Error while writing meta.properties file {}", dir.display()))
}

/// Kafka's names for the directory kinds in its `Formatting ...` lines.
fn dir_kind(config: &ServerConfig, dir: &Path) -> &'static str {
    if dir == config.metadata_log_dir { "metadata directory" } else { "data directory" }
}

fn list_paths(dirs: &[LogDir]) -> String {
    dirs.iter().map(|dir| dir.path.display().to_string()).collect::<Vec<_>>().join(", ")
}
