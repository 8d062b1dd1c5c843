//! `strand metadata-quorum`: Kafka's `kafka-metadata-quorum.sh` (`MetadataQuorumCommand`)
//! through the brokers (`--bootstrap-server`) or the controllers (`--bootstrap-controller`):
//! `describe --status` (Kafka's summary lines) or `describe --replication [--human-readable]`
//! (Kafka's tab-separated table), either as one JSON document with `--output json` (Strand's),
//! and `remove-controller` (KIP-853; `--dry-run`, `--unregister`).
//!
//! What it is not (yet): `add-controller`, which reads the new controller's own properties and
//! log directory, is refused in one line.

use std::path::PathBuf;
use std::process::ExitCode;

use base64::Engine;
use clap::{Args, Subcommand};
use serde_json::json;
use strand_base::Uuid;
use strand_client::admin_quorum::{QuorumInfo, ReplicaState};

use crate::tool::{self, Failure, Output, exception};

const EXAMPLES: &str = "Examples:
  strand metadata-quorum --bootstrap-server localhost:9092 describe --status
  strand metadata-quorum --bootstrap-controller localhost:9093 describe --replication --human-readable";

/// The flags of `kafka-metadata-quorum.sh`.
#[derive(Debug, Args)]
#[command(about = "This tool describes kraft metadata quorum status (Kafka's kafka-metadata-quorum.sh).", after_help = EXAMPLES)]
pub struct MetadataQuorumArgs {
    /// A comma-separated list of host:port pairs to use for establishing the connection to the Kafka cluster.
    #[arg(long)]
    bootstrap_server: Option<String>,
    /// A comma-separated list of host:port pairs to use for establishing the connection to the Kafka controllers.
    #[arg(long)]
    bootstrap_controller: Option<String>,
    /// Property file containing configs to be passed to Admin Client.
    #[arg(long)]
    command_config: Option<PathBuf>,
    #[command(subcommand)]
    command: QuorumCommand,
}

#[derive(Debug, Subcommand)]
enum QuorumCommand {
    /// Describe the metadata quorum info.
    Describe {
        /// A short summary of the quorum status.
        #[arg(long)]
        status: bool,
        /// Detailed information about the status of replication.
        #[arg(long)]
        replication: bool,
        /// Human-readable output.
        #[arg(long)]
        human_readable: bool,
        /// Print Kafka's text or one JSON document (Strand's, for scripts).
        #[arg(long, value_enum, default_value_t = Output::Text)]
        output: Output,
    },
    /// Add a controller to the KRaft controller cluster (not supported by this version of Strand).
    AddController {
        /// True if we should print what would be done, but not do it.
        #[arg(long)]
        dry_run: bool,
    },
    /// Remove a controller from the KRaft controller cluster.
    RemoveController {
        /// The id of the controller to remove.
        #[arg(long, short = 'i', allow_hyphen_values = true)]
        controller_id: i32,
        /// The directory ID of the controller to remove.
        #[arg(long, short = 'd')]
        controller_directory_id: String,
        /// True if we should print what would be done, but not do it.
        #[arg(long)]
        dry_run: bool,
        /// If set, also unregister the controller after successfully removing it from the voter set.
        #[arg(long)]
        unregister: bool,
    },
}

pub fn run(args: MetadataQuorumArgs) -> ExitCode {
    tool::report_plain(execute(args))
}

fn execute(args: MetadataQuorumArgs) -> Result<(), Failure> {
    let failed = |message: &str| Failure::Operation(message.to_owned());
    if let QuorumCommand::Describe { status, replication, human_readable, .. } = &args.command {
        if *human_readable && !*replication {
            return Err(failed("The option --human-readable is only supported along with --replication"));
        }
        match (status, replication) {
            (false, false) => {
                return Err(failed("One of --status or --replication must be specified with describe sub-command"));
            }
            (true, true) => {
                return Err(failed(
                    "Only one of --status or --replication should be specified with describe sub-command",
                ));
            }
            _ => {}
        }
    }
    if matches!(args.command, QuorumCommand::AddController { .. }) {
        return Err(failed("add-controller is not supported by this version of Strand's metadata-quorum"));
    }
    let config = tool::client_config_either(
        args.bootstrap_server.as_deref(),
        args.bootstrap_controller.as_deref(),
        args.command_config.as_deref(),
    )?;
    tool::block_on(async move {
        let admin = tool::admin(config).await?;
        let call = |e| Failure::Operation(exception(e));
        match args.command {
            QuorumCommand::Describe { status: true, output, .. } => {
                let cluster_id = admin.describe_cluster().await.map_err(call)?.cluster_id;
                let quorum = admin.describe_metadata_quorum().await.map_err(call)?;
                match output {
                    Output::Text => print!("{}", status_text(&cluster_id, &quorum)?),
                    Output::Json => println!("{}", status_json(&cluster_id, &quorum)?),
                }
            }
            QuorumCommand::Describe { human_readable, output, .. } => {
                let quorum = admin.describe_metadata_quorum().await.map_err(call)?;
                match output {
                    Output::Text => print!("{}", replication_table(&quorum, human_readable.then(now_ms))?),
                    Output::Json => println!("{}", replication_json(&quorum)?),
                }
            }
            QuorumCommand::RemoveController { controller_id, controller_directory_id, dry_run, unregister } => {
                if controller_id < 0 {
                    return Err(failed(&format!("Invalid negative --controller-id: {controller_id}")));
                }
                let directory_id = parse_uuid(&controller_directory_id)
                    .map_err(|e| failed(&format!("Failed to parse --controller-directory-id: {e}")))?;
                if !dry_run {
                    admin.remove_raft_voter(controller_id, directory_id).await.map_err(call)?;
                    if unregister {
                        admin.unregister_controller(controller_id).await.map_err(call)?;
                    }
                }
                let what = if dry_run { "DRY RUN of removing" } else { "Removed" };
                println!("{what} KRaft controller {controller_id} with directory id {directory_id}");
            }
            QuorumCommand::AddController { .. } => {}
        }
        Ok(())
    })
}

fn now_ms() -> i64 {
    strand_base::Clock::now_ms(&strand_base::SystemClock)
}

/// Kafka's `Uuid.fromString`: URL-safe base64 of 16 bytes (decoded as leniently as Java's
/// decoder: padding optional, stray low bits of the last symbol ignored).
fn parse_uuid(text: &str) -> Result<Uuid, String> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    let config = GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent);
    let bytes = GeneralPurpose::new(&base64::alphabet::URL_SAFE, config)
        .decode(text)
        .map_err(|e| format!("Input string `{text}` is not a base64-encoded UUID: {e}"))?;
    let bytes: [u8; 16] = bytes.as_slice().try_into().map_err(|_| {
        format!(
            "Input string `{text}` decoded as {} bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID",
            bytes.len()
        )
    })?;
    Ok(Uuid(bytes))
}

fn leader_of(quorum: &QuorumInfo) -> Result<&ReplicaState, Failure> {
    quorum
        .voters
        .iter()
        .find(|v| v.id == quorum.leader_id)
        .ok_or_else(|| Failure::Operation(format!("No voter is the quorum's leader {}", quorum.leader_id)))
}

/// The leader, and how far the furthest-behind voter lags it: in offsets, and in time (-1 when
/// a caught-up time is unknown), as Kafka's `handleDescribeStatus` computes them.
fn follower_lag(quorum: &QuorumInfo) -> Result<(&ReplicaState, i64, i64), Failure> {
    let leader = leader_of(quorum)?;
    let laggard = quorum.voters.iter().min_by_key(|v| v.log_end_offset).unwrap_or(leader);
    let lag_time = if laggard.id == leader.id {
        0
    } else if leader.last_caught_up_timestamp >= 0 && laggard.last_caught_up_timestamp >= 0 {
        leader.last_caught_up_timestamp - laggard.last_caught_up_timestamp
    } else {
        -1
    };
    Ok((leader, leader.log_end_offset - laggard.log_end_offset, lag_time))
}

/// `describe --status`, as Kafka's `handleDescribeStatus` prints it.
fn status_text(cluster_id: &str, quorum: &QuorumInfo) -> Result<String, Failure> {
    let (_, lag, lag_time) = follower_lag(quorum)?;
    Ok(format!(
        "ClusterId:              {cluster_id}\nLeaderId:               {}\nLeaderEpoch:            {}\n\
         HighWatermark:          {}\nMaxFollowerLag:         {}\nMaxFollowerLagTimeMs:   {lag_time}\n\
         CurrentVoters:          {}\nCurrentObservers:       {}\n",
        quorum.leader_id,
        quorum.leader_epoch,
        quorum.high_watermark,
        lag,
        replicas_text(quorum, &quorum.voters),
        replicas_text(quorum, &quorum.observers),
    ))
}

/// Kafka's `[{"id": 1, "directoryId": "...", "endpoints": ["CONTROLLER://host:port"]}, ...]`,
/// the directory left out when unknown and the endpoints when none.
fn replicas_text(quorum: &QuorumInfo, replicas: &[ReplicaState]) -> String {
    let nodes: Vec<String> = replicas
        .iter()
        .map(|r| {
            let mut text = format!("{{\"id\": {}", r.id);
            if r.directory_id != Uuid::ZERO {
                text += &format!(", \"directoryId\": \"{}\"", r.directory_id);
            }
            if let Some(endpoints) = quorum.endpoints.get(&r.id).filter(|e| !e.is_empty()) {
                let quoted: Vec<String> = endpoints.iter().map(|e| format!("\"{e}\"")).collect();
                text += &format!(", \"endpoints\": [{}]", quoted.join(", "));
            }
            text + "}"
        })
        .collect();
    format!("[{}]", nodes.join(", "))
}

/// `describe --status --output json`: the same fields, camelCase, the replicas as objects.
fn status_json(cluster_id: &str, quorum: &QuorumInfo) -> Result<serde_json::Value, Failure> {
    let (_, lag, lag_time) = follower_lag(quorum)?;
    let replicas = |replicas: &[ReplicaState]| -> Vec<serde_json::Value> {
        let endpoints = |id: i32| quorum.endpoints.get(&id).cloned().unwrap_or_default();
        let directory = |r: &ReplicaState| (r.directory_id != Uuid::ZERO).then(|| r.directory_id.to_string());
        replicas
            .iter()
            .map(|r| json!({"id": r.id, "directoryId": directory(r), "endpoints": endpoints(r.id)}))
            .collect()
    };
    Ok(json!({
        "clusterId": cluster_id,
        "leaderId": quorum.leader_id,
        "leaderEpoch": quorum.leader_epoch,
        "highWatermark": quorum.high_watermark,
        "maxFollowerLag": lag,
        "maxFollowerLagTimeMs": lag_time,
        "currentVoters": replicas(&quorum.voters),
        "currentObservers": replicas(&quorum.observers),
    }))
}

/// The leader, the other voters and the observers, each with its status, in Kafka's order.
fn replication_rows(quorum: &QuorumInfo) -> Result<Vec<(&ReplicaState, &'static str)>, Failure> {
    let leader = leader_of(quorum)?;
    let mut rows = vec![(leader, "Leader")];
    rows.extend(quorum.voters.iter().filter(|v| v.id != leader.id).map(|v| (v, "Follower")));
    rows.extend(quorum.observers.iter().map(|o| (o, "Observer")));
    Ok(rows)
}

/// `describe --replication --output json`: one object a replica, times in epoch milliseconds.
fn replication_json(quorum: &QuorumInfo) -> Result<serde_json::Value, Failure> {
    let leader = leader_of(quorum)?;
    let rows = replication_rows(quorum)?.into_iter().map(|(r, status)| {
        json!({
            "nodeId": r.id,
            "directoryId": (r.directory_id != Uuid::ZERO).then(|| r.directory_id.to_string()),
            "logEndOffset": r.log_end_offset,
            "lag": leader.log_end_offset - r.log_end_offset,
            "lastFetchTimestamp": r.last_fetch_timestamp,
            "lastCaughtUpTimestamp": r.last_caught_up_timestamp,
            "status": status,
        })
    });
    Ok(rows.collect())
}

/// `describe --replication`: the leader, the other voters, the observers, in Kafka's
/// `prettyPrintTable` (each cell padded to its column's widest, each followed by a tab);
/// times relative to `now` when human-readable.
fn replication_table(quorum: &QuorumInfo, now: Option<i64>) -> Result<String, Failure> {
    let leader = leader_of(quorum)?;
    let time = |t: i64| match (t, now) {
        (-1, _) => "-1".to_owned(),
        (t, Some(now)) => format!("{} ms ago", now.saturating_sub(t).max(0)),
        (t, None) => t.to_string(),
    };
    let row = |r: &ReplicaState, status: &str| {
        vec![
            r.id.to_string(),
            r.directory_id.to_string(),
            r.log_end_offset.to_string(),
            (leader.log_end_offset - r.log_end_offset).to_string(),
            time(r.last_fetch_timestamp),
            time(r.last_caught_up_timestamp),
            status.to_owned(),
        ]
    };
    let headers =
        ["NodeId", "DirectoryId", "LogEndOffset", "Lag", "LastFetchTimestamp", "LastCaughtUpTimestamp", "Status"];
    let rows: Vec<Vec<String>> = replication_rows(quorum)?.into_iter().map(|(r, status)| row(r, status)).collect();
    let table = tool::pretty_table(&headers, &rows);
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replica(id: i32, end: i64, caught_up: i64) -> ReplicaState {
        ReplicaState {
            id,
            directory_id: Uuid::ZERO,
            log_end_offset: end,
            last_fetch_timestamp: 1_000,
            last_caught_up_timestamp: caught_up,
        }
    }

    fn quorum() -> QuorumInfo {
        QuorumInfo {
            leader_id: 2,
            leader_epoch: 4,
            high_watermark: 40,
            voters: vec![replica(1, 35, 900), replica(2, 40, 1_000)],
            observers: vec![ReplicaState { directory_id: Uuid([1; 16]), ..replica(7, 40, -1) }],
            endpoints: [(1, vec!["CONTROLLER://h:1".to_owned()]), (2, vec!["CONTROLLER://h:2".to_owned()])].into(),
        }
    }

    #[test]
    fn status_reads_as_kafka_s() {
        let text = status_text("id", &quorum()).ok();
        let expected = "ClusterId:              id\nLeaderId:               2\nLeaderEpoch:            4\n\
                        HighWatermark:          40\nMaxFollowerLag:         5\nMaxFollowerLagTimeMs:   100\n\
                        CurrentVoters:          [{\"id\": 1, \"endpoints\": [\"CONTROLLER://h:1\"]}, {\"id\": 2, \
                        \"endpoints\": [\"CONTROLLER://h:2\"]}]\n\
                        CurrentObservers:       [{\"id\": 7, \"directoryId\": \"AQEBAQEBAQEBAQEBAQEBAQ\"}]\n";
        assert_eq!(text.as_deref(), Some(expected));
    }

    #[test]
    fn replication_is_kafka_s_table() {
        let table = replication_table(&quorum(), Some(1_500)).ok().unwrap_or_default();
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(
            lines[0],
            "NodeId\tDirectoryId           \tLogEndOffset\tLag\tLastFetchTimestamp\tLastCaughtUpTimestamp\tStatus  \t"
        );
        assert_eq!(
            lines[1],
            "2     \tAAAAAAAAAAAAAAAAAAAAAA\t40          \t0  \t500 ms ago        \t500 ms ago           \tLeader  \t"
        );
        assert!(lines[2].ends_with("\t5  \t500 ms ago        \t600 ms ago           \tFollower\t"), "{}", lines[2]);
        assert!(lines[3].contains("\t-1                   \tObserver\t"), "{}", lines[3]);
        assert_eq!(
            parse_uuid("pqsDeZ4yR1y2LHAaIyqkkQ").map(|u| u.to_string()).ok().as_deref(),
            Some("pqsDeZ4yR1y2LHAaIyqkkQ")
        );
        assert!(parse_uuid("xyz").is_err_and(|e| e.contains("decoded as 2 bytes")));
    }
}
