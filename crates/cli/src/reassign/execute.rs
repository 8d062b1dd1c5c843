//! `--execute` and `--cancel`, as Kafka's `executeAssignment` and `cancelAssignment`: the
//! current assignment printed for rollback (with each replica's log dir), the throttles set
//! (the moving partitions' source and destination replicas listed on their topics, the rates
//! on every broker involved), the reassignments started or cancelled, and moves between log
//! dirs started, retried while a new replica does not exist yet.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use strand_client::admin::{RESOURCE_BROKER, RESOURCE_TOPIC, Reassignment};
use strand_client::admin_configs::AlterOp;
use strand_client::admin_groups::TopicPartition;
use strand_client::admin_reassign::TopicPartitionReplica;
use strand_client::{Admin, ClientError};
use strand_protocol::error::ErrorCode;

use super::plan::{self, format_plan};
use super::verify::{self, LogDirMove, clear_all_throttles, plural};
use super::{Failure, admin_command_failed, broker_ids, error, failed_call, terse};
use crate::tool::{java_hash_map_order_by, partition_hash};

const CANNOT_EXECUTE_BECAUSE_OF_EXISTING: &str = "Cannot execute because there is an existing partition assignment.  \
     Use --additional to override this and create a new partition assignment in addition to the existing one. The \
     --additional flag can also be used to change the throttle by resubmitting the current reassignment.";
const RUN_VERIFY_PERIODICALLY: &str =
    "Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed.";
/// How often a log dir move that cannot start yet is asked again (Kafka's 100 ms).
const LOG_DIR_MOVE_RETRY: Duration = Duration::from_millis(100);

/// What `--execute` was given beside the plan.
#[derive(Debug, Clone, Copy)]
pub struct ExecuteOptions {
    pub additional: bool,
    /// Bytes a second between brokers; negative: no throttle.
    pub throttle: i64,
    /// Bytes a second between a broker's log dirs; negative: no throttle.
    pub log_dir_throttle: i64,
    pub timeout_ms: i64,
    pub allow_replication_factor_change: bool,
}

/// A partition's move: the replicas it is copied from and those it is copied to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct PartitionMove {
    sources: BTreeSet<i32>,
    destinations: BTreeSet<i32>,
}

type MoveMap = BTreeMap<String, BTreeMap<i32, PartitionMove>>;

/// `--execute`.
pub async fn execute(admin: &Admin, text: &str, options: &ExecuteOptions) -> Result<(), Failure> {
    let plan = plan::parse_plan(text)?;
    let proposed = plan::check_executable(&plan)?;
    let ongoing = admin.list_all_partition_reassignments().await.map_err(failed_call)?;
    if !options.additional && !ongoing.is_empty() {
        return Err(terse(CANNOT_EXECUTE_BECAUSE_OF_EXISTING.to_owned()));
    }
    let live = broker_ids(admin).await?;
    let wanted: Vec<i32> = verify::distinct(proposed.values().flatten().copied().collect());
    if let Some(unknown) = java_hash_map_order_by(wanted, 16, |id| *id).into_iter().find(|id| !live.contains(id)) {
        return Err(admin_command_failed(&format!("Unknown broker id {unknown}")));
    }
    let current = current_replicas(admin, &proposed).await?;
    let dirs = replica_log_dirs(admin, &current, &live).await?;
    println!(
        "Current partition replica assignment\n\n{}\n\nSave this to use as the --reassignment-json-file option during \
         rollback",
        format_plan(&current, &dirs)
    );
    if options.throttle >= 0 || options.log_dir_throttle >= 0 {
        println!("{RUN_VERIFY_PERIODICALLY}");
        if options.throttle >= 0 {
            let moves = proposed_moves(&ongoing, &proposed, &current);
            set_replication_throttles(admin, &moves, options.throttle).await?;
        }
        if options.log_dir_throttle >= 0 {
            let brokers: BTreeSet<i32> = plan.log_dirs.keys().map(|(_, _, broker)| *broker).collect();
            let rate = options.log_dir_throttle.to_string();
            for broker in brokers {
                let ops =
                    [("replica.alter.log.dirs.io.max.bytes.per.second".to_owned(), AlterOp::Set, Some(rate.clone()))];
                admin
                    .incremental_alter_config(RESOURCE_BROKER, &broker.to_string(), &ops)
                    .await
                    .map_err(failed_call)?;
            }
            println!("The replica-alter-dir throttle limit was set to {rate} B/s");
        }
    }
    let targets: Vec<(TopicPartition, Option<Vec<i32>>)> =
        proposed.iter().map(|(tp, replicas)| (tp.clone(), Some(replicas.clone()))).collect();
    let outcomes = admin
        .alter_partition_reassignments(&targets, options.allow_replication_factor_change)
        .await
        .map_err(failed_call)?;
    let errors = failures(outcomes);
    if !errors.is_empty() {
        return Err(terse(format!("Error reassigning partition(s):\n{}", errors.join("\n"))));
    }
    let names: Vec<String> = proposed.keys().map(|(t, p)| format!("{t}-{p}")).collect();
    println!("Successfully started partition reassignment{} for {}", plural(names.len()), names.join(","));
    if !plan.log_dirs.is_empty() {
        start_log_dir_moves(admin, plan.log_dirs, options.timeout_ms).await?;
    }
    Ok(())
}

/// `--cancel`: the plan's reassignments in progress (but those only adding replicas, which
/// Kafka's tool leaves) cancelled, its active log dir moves sent back to their current dirs,
/// then every throttle cleared (unless `preserve_throttles`).
pub async fn cancel(admin: &Admin, text: &str, preserve_throttles: bool, timeout_ms: i64) -> Result<(), Failure> {
    let plan = plan::parse_plan(text)?;
    let targets: Vec<TopicPartition> = plan.partitions.iter().map(|(tp, _)| tp.clone()).collect();
    let ongoing = admin.list_partition_reassignments(&targets).await.map_err(failed_call)?;
    let cancelling: Vec<TopicPartition> = ongoing
        .iter()
        .filter(|(_, r)| r.adding.is_empty() || !r.removing.is_empty())
        .map(|(tp, _)| tp.clone())
        .collect();
    if cancelling.is_empty() {
        println!("None of the specified partition reassignments are active.");
    } else {
        let cancels: Vec<(TopicPartition, Option<Vec<i32>>)> = cancelling.iter().map(|tp| (tp.clone(), None)).collect();
        let outcomes = admin.alter_partition_reassignments(&cancels, true).await.map_err(failed_call)?;
        let errors = failures(outcomes);
        if !errors.is_empty() {
            let s = plural(errors.len());
            return Err(terse(format!("Error cancelling partition reassignment{s} for:\n{}", errors.join("\n"))));
        }
        let names: Vec<String> = cancelling.iter().map(|(t, p)| format!("{t}-{p}")).collect();
        println!("Successfully cancelled partition reassignment{} for: {}", plural(names.len()), names.join(","));
    }
    let moving: BTreeMap<TopicPartitionReplica, String> = verify::log_dir_moves(admin, &plan.log_dirs)
        .await?
        .into_iter()
        .filter_map(|(replica, state)| match state {
            LogDirMove::Active { current, .. } => Some((replica, current)),
            _ => None,
        })
        .collect();
    if moving.is_empty() {
        // Kafka's tool ends this line with no newline.
        print!("None of the specified partition moves are active.");
    } else {
        start_log_dir_moves(admin, moving, timeout_ms).await?;
    }
    if !preserve_throttles {
        clear_all_throttles(admin, &plan.partitions).await?;
    }
    Ok(())
}

/// The failed outcomes as Kafka lists them: `topic-partition: message`, in partition order.
fn failures(outcomes: Vec<(TopicPartition, Result<(), ClientError>)>) -> Vec<String> {
    let failed: BTreeMap<TopicPartition, ClientError> =
        outcomes.into_iter().filter_map(|(tp, outcome)| outcome.err().map(|e| (tp, e))).collect();
    failed.into_iter().map(|((t, p), e)| format!("{t}-{p}: {e}")).collect()
}

/// The replicas of each planned partition now (Kafka's `getReplicasForPartitions`).
async fn current_replicas(
    admin: &Admin,
    proposed: &BTreeMap<TopicPartition, Vec<i32>>,
) -> Result<BTreeMap<TopicPartition, Vec<i32>>, Failure> {
    let topics = verify::distinct(proposed.keys().map(|(t, _)| t.clone()).collect());
    let mut current = BTreeMap::new();
    for topic in crate::tool::java_hash_map_order(topics, 16) {
        let described = match admin.describe_topics(std::slice::from_ref(&topic)).await {
            Ok(described) => described,
            Err(e) if e.code() == Some(ErrorCode::UnknownTopicOrPartition) => {
                let cause = format!(
                    "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Topic {topic} not found."
                );
                return Err(error("java.util.concurrent.ExecutionException", &cause));
            }
            Err(e) => return Err(failed_call(e)),
        };
        for partition in described.into_iter().flat_map(|t| t.partitions) {
            let tp = (topic.clone(), partition.partition);
            if proposed.contains_key(&tp) {
                current.insert(tp, partition.replicas);
            }
        }
    }
    let missing: Vec<TopicPartition> = proposed.keys().filter(|tp| !current.contains_key(*tp)).cloned().collect();
    if !missing.is_empty() {
        let capacity = ((proposed.len() as f32 / 0.75) as usize + 1).max(16);
        let names: Vec<String> =
            java_hash_map_order_by(missing, capacity, partition_hash).iter().map(|(t, p)| format!("{t}-{p}")).collect();
        let cause = format!(
            "org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Unable to find partition: {}",
            names.join(",")
        );
        return Err(error("java.util.concurrent.ExecutionException", &cause));
    }
    Ok(current)
}

/// The log dir of each replica of `assignment` on a live broker that holds it (Kafka's
/// `getReplicaToLogDir`), for the rollback plan.
pub async fn replica_log_dirs(
    admin: &Admin,
    assignment: &BTreeMap<TopicPartition, Vec<i32>>,
    live: &[i32],
) -> Result<BTreeMap<TopicPartitionReplica, String>, Failure> {
    let replicas: Vec<TopicPartitionReplica> = assignment
        .iter()
        .flat_map(|((topic, partition), replicas)| replicas.iter().map(move |r| (topic.clone(), *partition, *r)))
        .filter(|(_, _, broker)| live.contains(broker))
        .collect();
    if replicas.is_empty() {
        return Ok(BTreeMap::new());
    }
    let dirs = admin.describe_replica_log_dirs(&replicas).await.map_err(failed_call)?;
    Ok(dirs.into_iter().filter_map(|(replica, dir)| dir.current.map(|d| (replica, d))).collect())
}

/// Kafka's `calculateProposedMoveMap`: the moves in progress, then each proposed partition's,
/// its sources those of a move in progress or else its current replicas.
fn proposed_moves(
    ongoing: &BTreeMap<TopicPartition, Reassignment>,
    proposed: &BTreeMap<TopicPartition, Vec<i32>>,
    current: &BTreeMap<TopicPartition, Vec<i32>>,
) -> MoveMap {
    let mut moves: MoveMap = BTreeMap::new();
    for ((topic, partition), r) in ongoing {
        let sources = r.replicas.iter().copied().filter(|id| !r.adding.contains(id)).collect();
        let destinations = r.adding.iter().copied().collect();
        moves.entry(topic.clone()).or_default().insert(*partition, PartitionMove { sources, destinations });
    }
    for ((topic, partition), replicas) in proposed {
        let moves = moves.entry(topic.clone()).or_default();
        let sources: BTreeSet<i32> = match moves.get(partition) {
            Some(m) => m.sources.clone(),
            None => current.get(&(topic.clone(), *partition)).into_iter().flatten().copied().collect(),
        };
        let destinations = replicas.iter().copied().filter(|id| !sources.contains(id)).collect();
        moves.insert(*partition, PartitionMove { sources, destinations });
    }
    moves
}

/// Kafka's `modifyReassignmentThrottle`: each moving topic's leader (`partition:source`) and
/// follower (`partition:destination`) throttled replicas lists, then the rate on every broker
/// involved.
async fn set_replication_throttles(admin: &Admin, moves: &MoveMap, rate: i64) -> Result<(), Failure> {
    for (topic, partitions) in moves {
        // A TreeSet of strings: "10:1" sorts before "2:1", as in Kafka.
        let mut leaders = BTreeSet::new();
        let mut followers = BTreeSet::new();
        for (partition, m) in partitions {
            leaders.extend(m.sources.iter().map(|s| format!("{partition}:{s}")));
            followers
                .extend(m.destinations.iter().filter(|d| !m.sources.contains(d)).map(|d| format!("{partition}:{d}")));
        }
        let join = |set: BTreeSet<String>| set.into_iter().collect::<Vec<_>>().join(",");
        let ops = [
            ("leader.replication.throttled.replicas".to_owned(), AlterOp::Set, Some(join(leaders))),
            ("follower.replication.throttled.replicas".to_owned(), AlterOp::Set, Some(join(followers))),
        ];
        admin.incremental_alter_config(RESOURCE_TOPIC, topic, &ops).await.map_err(failed_call)?;
    }
    let brokers: BTreeSet<i32> = moves
        .values()
        .flat_map(|p| p.values())
        .flat_map(|m| m.sources.iter().chain(&m.destinations).copied())
        .collect();
    for broker in brokers {
        let ops = [
            ("leader.replication.throttled.rate".to_owned(), AlterOp::Set, Some(rate.to_string())),
            ("follower.replication.throttled.rate".to_owned(), AlterOp::Set, Some(rate.to_string())),
        ];
        admin.incremental_alter_config(RESOURCE_BROKER, &broker.to_string(), &ops).await.map_err(failed_call)?;
    }
    println!("The inter-broker throttle limit was set to {rate} B/s");
    Ok(())
}

/// Kafka's `executeMoves`: asks each broker to move its replicas' logs, again every 100 ms for
/// a replica that does not exist yet, until all have started or `timeout_ms` passed.
async fn start_log_dir_moves(
    admin: &Admin,
    mut pending: BTreeMap<TopicPartitionReplica, String>,
    timeout_ms: i64,
) -> Result<(), Failure> {
    let started = tokio::time::Instant::now();
    let timeout = Duration::from_millis(u64::try_from(timeout_ms).unwrap_or(0));
    loop {
        let moves: Vec<(TopicPartitionReplica, String)> = pending.iter().map(|(r, d)| (r.clone(), d.clone())).collect();
        let outcomes = admin.alter_replica_log_dirs(&moves).await.map_err(failed_call)?;
        let mut done = Vec::new();
        for (replica, outcome) in outcomes {
            match outcome {
                Ok(()) => done.push(replica),
                Err(e) if e.code() == Some(ErrorCode::ReplicaNotAvailable) => {}
                Err(_) => {
                    let (topic, partition, broker) = &replica;
                    return Err(admin_command_failed(&format!("Failed to alter dir for {topic}-{partition}-{broker}")));
                }
            }
        }
        done.sort_by(|(t1, p1, b1), (t2, p2, b2)| (b1, t1, p1).cmp(&(b2, t2, p2)));
        for replica in done {
            if let Some(dir) = pending.remove(&replica) {
                let (topic, partition, broker) = replica;
                println!(
                    "Successfully started moving log directory to {dir} for replica {topic}-{partition} with broker {broker} "
                );
            }
        }
        if pending.is_empty() {
            return Ok(());
        }
        if started.elapsed() >= timeout {
            let mut names: Vec<&TopicPartitionReplica> = pending.keys().collect();
            names.sort_by(|(t1, p1, b1), (t2, p2, b2)| (b1, t1, p1).cmp(&(b2, t2, p2)));
            let names: Vec<String> = names.iter().map(|(t, p, b)| format!("{t}-{p}-{b}")).collect();
            return Err(terse(format!(
                "Timed out before log directory move{} could be started for: {}",
                plural(names.len()),
                names.join(",")
            )));
        }
        tokio::time::sleep(LOG_DIR_MOVE_RETRY).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A move in progress keeps its sources; a new one's sources are its current replicas and
    /// its destinations the replicas it gains.
    #[test]
    fn moves_are_computed_as_kafka_computes_them() {
        let tp = |p: i32| ("t".to_owned(), p);
        let ongoing =
            BTreeMap::from([(tp(0), Reassignment { replicas: vec![1, 2, 3], adding: vec![3], removing: vec![1] })]);
        let proposed = BTreeMap::from([(tp(0), vec![3, 4]), (tp(1), vec![2, 3])]);
        let current = BTreeMap::from([(tp(0), vec![1, 2, 3]), (tp(1), vec![1, 2])]);
        let moves = proposed_moves(&ongoing, &proposed, &current);
        let set = |ids: &[i32]| ids.iter().copied().collect::<BTreeSet<i32>>();
        assert_eq!(moves["t"][&0], PartitionMove { sources: set(&[1, 2]), destinations: set(&[3, 4]) });
        assert_eq!(moves["t"][&1], PartitionMove { sources: set(&[1, 2]), destinations: set(&[3]) });
    }
}
