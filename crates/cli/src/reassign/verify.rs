//! `--verify` and `--list`, and the clearing of every throttle once a reassignment is done
//! (also `--cancel`'s last step), as Kafka's `verifyAssignment`, `curReassignmentsToString`
//! and `clearAllThrottles`.

use std::collections::BTreeMap;

use strand_client::Admin;
use strand_client::admin::RESOURCE_TOPIC;
use strand_client::admin_configs::AlterOp;
use strand_client::admin_groups::TopicPartition;
use strand_client::admin_reassign::TopicPartitionReplica;

use super::plan::{self, Plan};
use super::{Failure, broker_ids, error, failed_call};
use crate::tool::{java_hash_map_order, java_hash_map_order_by};

/// The broker configs a reassignment's throttles set.
pub const BROKER_THROTTLES: [&str; 3] = [
    "leader.replication.throttled.rate",
    "follower.replication.throttled.rate",
    "replica.alter.log.dirs.io.max.bytes.per.second",
];
/// The topic configs a reassignment's throttles set.
pub const TOPIC_THROTTLES: [&str; 2] =
    ["leader.replication.throttled.replicas", "follower.replication.throttled.replicas"];

/// Where one partition of a plan stands (Kafka's `PartitionReassignmentState`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct PartitionState {
    current: Vec<i32>,
    target: Vec<i32>,
    /// No reassignment of it is in progress.
    done: bool,
}

/// Where one replica's move between log dirs stands (Kafka's `LogDirMoveState`s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogDirMove {
    /// The broker does not hold the replica in a live dir.
    MissingLogDir,
    /// Being moved: (current dir, target dir, future dir).
    Active {
        current: String,
        target: String,
        future: String,
    },
    /// Not moving, and not in the target dir.
    Cancelled {
        current: String,
        target: String,
    },
    Completed,
}

/// `--verify`: the partitions' states, the log dir moves' states, then, when nothing is in
/// progress in the cluster, every throttle cleared (unless `preserve_throttles`).
pub async fn verify(admin: &Admin, text: &str, preserve_throttles: bool) -> Result<(), Failure> {
    let plan = plan::parse_plan(text)?;
    let (states, partitions_moving) = partition_states(admin, &plan).await?;
    println!("{}", states_text(&states));
    let moves = log_dir_moves(admin, &plan.log_dirs).await?;
    println!("{}", moves_text(&moves));
    let dirs_moving = moves.values().any(|m| matches!(m, LogDirMove::Active { .. }));
    if !partitions_moving && !dirs_moving && !preserve_throttles {
        clear_all_throttles(admin, &plan.partitions).await?;
    }
    Ok(())
}

/// `--list`: every reassignment in progress.
pub async fn list(admin: &Admin) -> Result<(), Failure> {
    let current = admin.list_all_partition_reassignments().await.map_err(failed_call)?;
    if current.is_empty() {
        println!("No partition reassignments found.");
        return Ok(());
    }
    println!("Current partition reassignments:");
    let lines: Vec<String> = current
        .iter()
        .map(|((topic, partition), r)| {
            let joined = |ids: &[i32]| ids.iter().map(i32::to_string).collect::<Vec<_>>().join(",");
            let adding = if r.adding.is_empty() { String::new() } else { format!(" adding: {}.", joined(&r.adding)) };
            let removing =
                if r.removing.is_empty() { String::new() } else { format!(" removing: {}.", joined(&r.removing)) };
            format!("{topic}-{partition}: replicas: {}.{adding}{removing}", joined(&r.replicas))
        })
        .collect();
    println!("{}", lines.join("\n"));
    Ok(())
}

/// Each planned partition's state, and whether any reassignment at all is in progress.
async fn partition_states(
    admin: &Admin,
    plan: &Plan,
) -> Result<(BTreeMap<TopicPartition, PartitionState>, bool), Failure> {
    let current = admin.list_all_partition_reassignments().await.map_err(failed_call)?;
    let mut states = BTreeMap::new();
    let mut described: BTreeMap<String, Option<Vec<Vec<i32>>>> = BTreeMap::new();
    for (tp, target) in &plan.partitions {
        if let Some(reassignment) = current.get(tp) {
            let state = PartitionState { current: reassignment.replicas.clone(), target: target.clone(), done: false };
            states.insert(tp.clone(), state);
            continue;
        }
        let (topic, partition) = tp;
        if !described.contains_key(topic) {
            described.insert(topic.clone(), topic_replicas(admin, topic).await?);
        }
        let replicas = match described.get(topic).and_then(Option::as_ref) {
            // Kafka's check is `size < partition`: the partition just past the end fails below.
            Some(partitions) if partitions.len() >= usize::try_from(*partition).unwrap_or(0) => {
                let index = usize::try_from(*partition).unwrap_or(usize::MAX);
                let length = partitions.len();
                partitions.get(index).cloned().ok_or_else(|| {
                    let message = format!("Index {partition} out of bounds for length {length}");
                    error("java.lang.IndexOutOfBoundsException", &message)
                })?
            }
            _ => Vec::new(),
        };
        states.insert(tp.clone(), PartitionState { current: replicas, target: target.clone(), done: true });
    }
    Ok((states, !current.is_empty()))
}

/// The replicas of each partition of `topic`, in partition order; `None` if it does not exist.
async fn topic_replicas(admin: &Admin, topic: &str) -> Result<Option<Vec<Vec<i32>>>, Failure> {
    match admin.describe_topics(&[topic.to_owned()]).await {
        Ok(topics) => Ok(topics.into_iter().next().map(|t| t.partitions.into_iter().map(|p| p.replicas).collect())),
        Err(e) if e.code() == Some(strand_protocol::error::ErrorCode::UnknownTopicOrPartition) => Ok(None),
        Err(e) => Err(failed_call(e)),
    }
}

/// Kafka's `partitionReassignmentStatesToString`.
fn states_text(states: &BTreeMap<TopicPartition, PartitionState>) -> String {
    let joined = |ids: &[i32]| ids.iter().map(i32::to_string).collect::<Vec<_>>().join(",");
    let mut lines = vec!["Status of partition reassignment:".to_owned()];
    for ((topic, partition), state) in states {
        lines.push(match state {
            PartitionState { done: false, .. } => {
                format!("Reassignment of partition {topic}-{partition} is still in progress.")
            }
            PartitionState { current, target, .. } if current == target => {
                format!("Reassignment of partition {topic}-{partition} is completed.")
            }
            PartitionState { current, target, .. } => format!(
                "There is no active reassignment of partition {topic}-{partition}, but replica set is {} rather than {}.",
                joined(current),
                joined(target)
            ),
        });
    }
    lines.join("\n")
}

/// Each planned log dir move's state (Kafka's `findLogDirMoveStates`).
pub async fn log_dir_moves(
    admin: &Admin,
    targets: &BTreeMap<TopicPartitionReplica, String>,
) -> Result<BTreeMap<TopicPartitionReplica, LogDirMove>, Failure> {
    if targets.is_empty() {
        return Ok(BTreeMap::new());
    }
    let replicas: Vec<TopicPartitionReplica> = targets.keys().cloned().collect();
    let dirs = admin.describe_replica_log_dirs(&replicas).await.map_err(failed_call)?;
    Ok(targets
        .iter()
        .map(|(replica, target)| {
            let info = dirs.get(replica).cloned().unwrap_or_default();
            let state = match (info.current, info.future) {
                (None, _) => LogDirMove::MissingLogDir,
                (Some(current), None) if &current == target => LogDirMove::Completed,
                (Some(current), None) => LogDirMove::Cancelled { current, target: target.clone() },
                (Some(current), Some(future)) => LogDirMove::Active { current, target: target.clone(), future },
            };
            (replica.clone(), state)
        })
        .collect())
}

/// Kafka's `replicaMoveStatesToString`: by broker, then topic and partition.
fn moves_text(moves: &BTreeMap<TopicPartitionReplica, LogDirMove>) -> String {
    let mut sorted: Vec<(&TopicPartitionReplica, &LogDirMove)> = moves.iter().collect();
    sorted.sort_by(|((t1, p1, b1), _), ((t2, p2, b2), _)| (b1, t1, p1).cmp(&(b2, t2, p2)));
    let lines: Vec<String> = sorted
        .into_iter()
        .map(|((topic, partition, broker), state)| match state {
            LogDirMove::MissingLogDir => format!(
                "Partition {topic}-{partition} is not found in any live log dir on broker {broker}. There is likely \
                 an offline log directory on the broker."
            ),
            LogDirMove::Active { target, future, .. } if target == future => {
                format!("Reassignment of replica {topic}-{partition}-{broker} is still in progress.")
            }
            LogDirMove::Active { target, future, .. } => format!(
                "Partition {topic}-{partition} on broker {broker} is being moved to log dir {future} instead of \
                 {target}."
            ),
            LogDirMove::Cancelled { current, target } => format!(
                "Partition {topic}-{partition} on broker {broker} is not being moved from log dir {current} to \
                 {target}."
            ),
            LogDirMove::Completed => {
                format!("Reassignment of replica {topic}-{partition}-{broker} completed successfully.")
            }
        })
        .collect();
    lines.join("\n")
}

/// Kafka's `clearAllThrottles`: the throttle rates of every broker of the cluster and of the
/// plan, and the throttled replicas lists of the plan's topics, each named in a `HashSet`'s
/// order.
pub async fn clear_all_throttles(admin: &Admin, partitions: &[(TopicPartition, Vec<i32>)]) -> Result<(), Failure> {
    let mut brokers = broker_ids(admin).await?;
    brokers.extend(partitions.iter().flat_map(|(_, replicas)| replicas.iter().copied()));
    let brokers = java_hash_map_order_by(distinct(brokers), 16, |id| *id);
    let names: Vec<String> = brokers.iter().map(i32::to_string).collect();
    println!("Clearing broker-level throttles on broker{} {}", plural(names.len()), names.join(","));
    let deletes = |keys: &[&str]| keys.iter().map(|k| ((*k).to_owned(), AlterOp::Delete, None)).collect::<Vec<_>>();
    for broker in &names {
        let resource = strand_client::admin::RESOURCE_BROKER;
        admin.incremental_alter_config(resource, broker, &deletes(&BROKER_THROTTLES)).await.map_err(failed_call)?;
    }
    let topics = java_hash_map_order(distinct(partitions.iter().map(|((t, _), _)| t.clone()).collect()), 16);
    println!("Clearing topic-level throttles on topic{} {}", plural(topics.len()), topics.join(","));
    for topic in &topics {
        admin.incremental_alter_config(RESOURCE_TOPIC, topic, &deletes(&TOPIC_THROTTLES)).await.map_err(failed_call)?;
    }
    Ok(())
}

/// `items` without repeats, first occurrences in order.
pub fn distinct<T: PartialEq>(items: Vec<T>) -> Vec<T> {
    let mut kept: Vec<T> = Vec::with_capacity(items.len());
    for item in items {
        if !kept.contains(&item) {
            kept.push(item);
        }
    }
    kept
}

/// Kafka's `size == 1 ? "" : "s"`.
pub fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The status lines Kafka prints, partitions in order.
    #[test]
    fn states_print_as_kafka_prints_them() {
        let state = |current: &[i32], target: &[i32], done| PartitionState {
            current: current.to_vec(),
            target: target.to_vec(),
            done,
        };
        let states = BTreeMap::from([
            (("b".to_owned(), 0), state(&[1, 2], &[1, 2], true)),
            (("a".to_owned(), 10), state(&[1, 2, 3], &[2, 3], false)),
            (("a".to_owned(), 2), state(&[1], &[2, 3], true)),
        ]);
        assert_eq!(
            states_text(&states),
            "Status of partition reassignment:\n\
             There is no active reassignment of partition a-2, but replica set is 1 rather than 2,3.\n\
             Reassignment of partition a-10 is still in progress.\n\
             Reassignment of partition b-0 is completed."
        );
    }

    /// Replica moves are listed by broker first.
    #[test]
    fn moves_print_by_broker() {
        let moves = BTreeMap::from([
            (("a".to_owned(), 0, 2), LogDirMove::Completed),
            (("b".to_owned(), 1, 1), LogDirMove::Cancelled { current: "/x".into(), target: "/y".into() }),
        ]);
        assert_eq!(
            moves_text(&moves),
            "Partition b-1 on broker 1 is not being moved from log dir /x to /y.\n\
             Reassignment of replica a-0-2 completed successfully."
        );
    }
}
