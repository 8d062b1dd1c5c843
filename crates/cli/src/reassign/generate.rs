//! `--generate`, as Kafka 4.4's `generateAssignment`: the topics' current assignment (with each
//! replica's log dir) and a proposal placing each topic's partitions, at their replication
//! factor, on the `--broker-list` brokers with the controller's striped placer
//! (`place_striped`), racks considered unless `--disable-rack-aware`. Kafka's placer draws its
//! starting points at random; so does this, from a fresh seed each run.

use std::collections::BTreeMap;

use strand_base::BrokerId;
use strand_client::Admin;
use strand_client::admin_groups::TopicPartition;
use strand_metadata::controller::place_striped;
use strand_protocol::error::ErrorCode;

use super::execute::replica_log_dirs;
use super::plan::{self, duplicates, format_plan, java_list};
use super::{Failure, admin_command_failed, admin_operation, error, failed_call};
use crate::tool::{java_hash_map_order, java_hash_map_order_by, partition_hash};

/// `--generate`.
pub async fn generate(admin: &Admin, topics_json: &str, broker_list: &str, rack_aware: bool) -> Result<(), Failure> {
    let brokers = parse_broker_list(broker_list)?;
    let topics = plan::parse_topics(topics_json)?;
    let twice = duplicates(&topics);
    if !twice.is_empty() {
        let twice = java_hash_map_order(twice, 16);
        return Err(admin_command_failed(&format!(
            "List of topics to reassign contains duplicate entries: {}",
            java_list(&twice)
        )));
    }
    let current = topics_replicas(admin, &topics).await?;
    let cluster = admin.describe_cluster().await.map_err(failed_call)?;
    let live: Vec<i32> = cluster.nodes.iter().map(|n| n.id).collect();
    let dirs = replica_log_dirs(admin, &current, &live).await?;
    let usable: Vec<(BrokerId, Option<String>)> = cluster
        .nodes
        .iter()
        .filter(|n| brokers.contains(&n.id))
        .map(|n| (BrokerId(n.id), n.rack.clone().filter(|_| rack_aware)))
        .collect();
    let rackless = usable.iter().filter(|(_, rack)| rack.is_none()).count();
    if rack_aware && rackless != 0 && rackless != usable.len() {
        return Err(admin_operation(
            "Not all brokers have rack information. Add --disable-rack-aware in command line to make replica \
             assignment without rack information.",
        ));
    }
    let proposed = propose(&current, &usable, rand::random())?;
    print!("Current partition replica assignment\n{}\n\n", format_plan(&current, &dirs));
    println!("Proposed partition reassignment configuration\n{}", format_plan(&proposed, &BTreeMap::new()));
    Ok(())
}

/// Kafka's parsing of `--broker-list`: comma-separated ids, none twice.
fn parse_broker_list(list: &str) -> Result<Vec<i32>, Failure> {
    let brokers: Vec<i32> = list
        .split(',')
        .map(|id| {
            id.parse::<i32>()
                .map_err(|_| error("java.lang.NumberFormatException", &format!("For input string: \"{id}\"")))
        })
        .collect::<Result<_, _>>()?;
    let mut twice = duplicates(&brokers);
    if !twice.is_empty() {
        twice.sort_unstable();
        return Err(admin_command_failed(&format!("Broker list contains duplicate entries: {}", java_list(&twice))));
    }
    Ok(brokers)
}

/// Every partition of the topics with its replicas; the first topic missing fails, as
/// Kafka's `describeTopics` over a `HashSet` of the names.
async fn topics_replicas(admin: &Admin, topics: &[String]) -> Result<BTreeMap<TopicPartition, Vec<i32>>, Failure> {
    let mut current = BTreeMap::new();
    for topic in java_hash_map_order(topics.to_vec(), 16) {
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
            current.insert((topic.clone(), partition.partition), partition.replicas);
        }
    }
    Ok(current)
}

/// Kafka's `calculateAssignment`: each topic's partitions placed anew at the replication
/// factor of its first partition in a `HashMap`'s order.
fn propose(
    current: &BTreeMap<TopicPartition, Vec<i32>>,
    brokers: &[(BrokerId, Option<String>)],
    seed: u64,
) -> Result<BTreeMap<TopicPartition, Vec<i32>>, Failure> {
    let mut by_topic: BTreeMap<String, Vec<TopicPartition>> = BTreeMap::new();
    for tp in java_hash_map_order_by(current.keys().cloned().collect(), 16, partition_hash) {
        by_topic.entry(tp.0.clone()).or_default().push(tp);
    }
    let mut proposed = BTreeMap::new();
    for (index, (topic, partitions)) in by_topic.into_iter().enumerate() {
        let first = partitions.first().and_then(|tp| current.get(tp)).map_or(0, Vec::len);
        let replication_factor = i16::try_from(first).unwrap_or(i16::MAX);
        let count = i32::try_from(partitions.len()).unwrap_or(i32::MAX);
        let placed = place_striped(brokers, count, replication_factor, seed.wrapping_add(index as u64))
            .map_err(|message| error("org.apache.kafka.common.errors.InvalidReplicationFactorException", &message))?;
        for (partition, replicas) in (0..).zip(placed) {
            proposed.insert((topic.clone(), partition), replicas.iter().map(|b| b.0).collect());
        }
    }
    Ok(proposed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every proposed partition has the topic's replication factor, on distinct brokers of the
    /// list; a replication factor above the brokers is the placer's refusal.
    #[test]
    fn proposals_are_valid_placements() {
        let current = BTreeMap::from([
            (("a".to_owned(), 0), vec![1, 2]),
            (("a".to_owned(), 1), vec![2, 3]),
            (("b".to_owned(), 0), vec![1]),
        ]);
        let brokers: Vec<(BrokerId, Option<String>)> = [4, 5, 6].map(|id| (BrokerId(id), None)).into();
        for seed in 0..20 {
            let proposed = propose(&current, &brokers, seed).expect("placed");
            assert_eq!(proposed.keys().collect::<Vec<_>>(), current.keys().collect::<Vec<_>>());
            for ((topic, _), replicas) in &proposed {
                assert_eq!(replicas.len(), if topic == "a" { 2 } else { 1 });
                assert!(replicas.iter().all(|r| [4, 5, 6].contains(r)), "{replicas:?}");
                assert_eq!(plan::duplicates(replicas), Vec::<i32>::new());
            }
        }
        let Err(Failure::Operation(text)) = propose(&current, &brokers[..1], 1) else { panic!("placed on one broker") };
        assert!(text.starts_with(
            "Error: The target replication factor of 2 cannot be reached because only 1 broker(s) are registered or \
             some brokers have all their log directories cordoned.\n"
        ));
    }

    /// Kafka's checks of `--broker-list`.
    #[test]
    fn broker_lists_are_checked() {
        assert_eq!(parse_broker_list("3,1,2").expect("ids"), [3, 1, 2]);
        let text = |list: &str| match parse_broker_list(list) {
            Err(Failure::Operation(text) | Failure::Usage(text)) => text,
            Ok(ids) => panic!("{ids:?}"),
        };
        assert!(text("1,x").starts_with("Error: For input string: \"x\"\n"));
        assert!(text("2,1,2,1").starts_with("Error: Broker list contains duplicate entries: [1, 2]\n"));
    }
}
