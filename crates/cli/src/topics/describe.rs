//! `strand topics --describe`: Kafka's `TopicService.describeTopic`. The same calls in the same
//! order (list, DescribeTopicPartitions, DescribeConfigs, DescribeCluster, the reassignments in
//! progress), the topics printed in the order Kafka's `HashMap`s give them, and each line as
//! Kafka's `TopicDescription` and `PartitionDescription` print it:
//!
//! ```text
//! Topic: t<TAB>TopicId: id<TAB>PartitionCount: 3<TAB>ReplicationFactor: 1<TAB>Configs: k=v,...
//! <TAB>Topic: t<TAB>Partition: 0<TAB>Leader: 1<TAB>Replicas: 1<TAB>Isr: 1<TAB>Elr: <TAB>LastKnownElr:
//! ```
//!
//! `--output json` prints the same selection as one JSON array instead.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::json;
use strand_base::Uuid;
use strand_client::Admin;
use strand_client::admin::{
    ConfigEntry, DESCRIBE_PARTITIONS_PER_RESPONSE_MAX, PartitionInfo, RESOURCE_TOPIC, Reassignment, TopicDescription,
};

use super::{Output, TopicsArgs, ensure_exists, matching_topics};
use crate::tool::{Failure, java_hash_map_order};

/// Which lines `--describe` prints: Kafka's `DescribeOptions`.
struct Selection {
    /// The topic line (no partition report asked for).
    topic_lines: bool,
    /// Partition lines (not `--topics-with-overrides`).
    partition_lines: bool,
    under_replicated: bool,
    unavailable: bool,
    under_min_isr: bool,
    at_min_isr: bool,
    only_overridden: bool,
    live_brokers: BTreeSet<i32>,
}

pub async fn run(admin: &Admin, args: &TopicsArgs) -> Result<(), Failure> {
    let topic_id = args.topic_id.as_deref().map(parse_topic_id).transpose()?.filter(|id| *id != Uuid::ZERO);
    let described = match topic_id {
        Some(id) => {
            let listings = admin.list_topics(!args.exclude_internal).await?;
            let found: Vec<String> = listings.into_iter().filter(|l| l.topic_id == id).map(|l| l.name).collect();
            if found.is_empty() && !args.if_exists {
                return Err(Failure::Operation(format!("TopicId '{id}' does not exist as expected")));
            }
            admin.describe_topics_through_metadata(&found).await?
        }
        None => {
            let topics = matching_topics(admin, args.topic.as_deref(), args.exclude_internal).await?;
            ensure_exists(&topics, args.topic.as_deref(), !args.if_exists)?;
            let limit = args.partition_size_limit_per_response.unwrap_or(DESCRIBE_PARTITIONS_PER_RESPONSE_MAX);
            if topics.is_empty() { Vec::new() } else { admin.describe_topics_paged(&topics, limit).await? }
        }
    };
    // Kafka collects the descriptions in a HashMap of futures, then in another of results.
    let count = described.len();
    let described = java_hash_map_order(java_hash_map_order(described.into_iter().map(Named).collect(), count), count);
    let described: Vec<TopicDescription> = described.into_iter().map(|named| named.0).collect();
    let resources: Vec<(i8, String)> = described.iter().map(|d| (RESOURCE_TOPIC, d.name.clone())).collect();
    let configs = if resources.is_empty() { Vec::new() } else { admin.describe_configs(&resources).await? };
    let live_brokers = if args.unavailable_partitions {
        admin.describe_cluster().await?.nodes.iter().map(|n| n.id).collect()
    } else {
        BTreeSet::new()
    };
    let partitions: Vec<(String, i32)> =
        described.iter().flat_map(|d| d.partitions.iter().map(|p| (d.name.clone(), p.partition))).collect();
    let reassignments =
        if partitions.is_empty() { BTreeMap::new() } else { admin.list_partition_reassignments(&partitions).await? };
    let reports = args.unavailable_partitions
        || args.under_replicated_partitions
        || args.under_min_isr_partitions
        || args.at_min_isr_partitions;
    let selection = Selection {
        topic_lines: !reports,
        partition_lines: !args.topics_with_overrides,
        under_replicated: args.under_replicated_partitions,
        unavailable: args.unavailable_partitions,
        under_min_isr: args.under_min_isr_partitions,
        at_min_isr: args.at_min_isr_partitions,
        only_overridden: args.topics_with_overrides,
        live_brokers,
    };
    let mut text = String::new();
    let mut documents = Vec::new();
    for (topic, configs) in described.iter().zip(&configs) {
        match args.output {
            Output::Text => print_topic(&mut text, &selection, topic, configs, &reassignments),
            Output::Json => documents.extend(json_topic(&selection, topic, configs, &reassignments)),
        }
    }
    match args.output {
        Output::Text => print!("{text}"),
        Output::Json => println!("{}", serde_json::Value::from(documents)),
    }
    Ok(())
}

/// A description keyed, for the HashMap order, by its topic's name.
struct Named(TopicDescription);

impl AsRef<str> for Named {
    fn as_ref(&self) -> &str {
        &self.0.name
    }
}

/// Kafka's `Uuid.fromString`: 22 characters of URL-safe base64.
fn parse_topic_id(text: &str) -> Result<Uuid, Failure> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(text)
        .map_err(|e| Failure::Operation(format!("Illegal base64 character in '{text}': {e}")))?;
    let array: [u8; 16] = bytes.as_slice().try_into().map_err(|_| {
        Failure::Operation(format!(
            "Input string `{text}` decoded as {} bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID",
            bytes.len()
        ))
    })?;
    Ok(Uuid(array))
}

/// The replication factor Kafka reports: the replicas, less those being added by a
/// reassignment in progress.
fn replication_factor(partition: &PartitionInfo, reassignment: Option<&Reassignment>) -> usize {
    match reassignment {
        Some(r) if partition.replicas.iter().any(|id| r.adding.contains(id) || r.removing.contains(id)) => {
            r.replicas.len().saturating_sub(r.adding.len())
        }
        _ => partition.replicas.len(),
    }
}

impl Selection {
    /// Kafka's `shouldPrintTopicPartition`.
    fn shows(&self, partition: &PartitionInfo, reassignment: Option<&Reassignment>, min_isr: Option<usize>) -> bool {
        let isr = partition.isr.len();
        let leader_live = partition.leader.is_some_and(|leader| self.live_brokers.contains(&leader));
        self.topic_lines
            || (self.under_replicated && replication_factor(partition, reassignment) > isr)
            || (self.unavailable && !leader_live)
            || (self.under_min_isr && (partition.leader.is_none() || min_isr.is_some_and(|min| isr < min)))
            || (self.at_min_isr && min_isr == Some(isr))
    }
}

fn min_isr(configs: &[ConfigEntry]) -> Option<usize> {
    configs.iter().find(|c| c.name == "min.insync.replicas").and_then(|c| c.value.as_deref()?.parse().ok())
}

fn joined(ids: &[i32]) -> String {
    ids.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
}

/// The overridden configs in the order Kafka's `Config` (a `HashMap` of every entry) gives them.
fn overrides(configs: &[ConfigEntry]) -> impl Iterator<Item = &ConfigEntry> {
    java_hash_map_order(configs.iter().map(Entry).collect(), configs.len())
        .into_iter()
        .map(|e| e.0)
        .filter(|c| !c.is_default())
}

/// A config entry keyed, for the HashMap order, by its name.
struct Entry<'a>(&'a ConfigEntry);

impl AsRef<str> for Entry<'_> {
    fn as_ref(&self) -> &str {
        &self.0.name
    }
}

fn print_topic(
    out: &mut String,
    selection: &Selection,
    topic: &TopicDescription,
    configs: &[ConfigEntry],
    reassignments: &BTreeMap<(String, i32), Reassignment>,
) {
    let reassignment = |p: &PartitionInfo| reassignments.get(&(topic.name.clone(), p.partition));
    let overridden: Vec<String> =
        overrides(configs).map(|c| format!("{}={}", c.name, c.value.as_deref().unwrap_or("null"))).collect();
    if selection.topic_lines && (!selection.only_overridden || !overridden.is_empty()) {
        let factor = topic.partitions.first().map_or(0, |p| replication_factor(p, reassignment(p)));
        let _ = write!(out, "Topic: {}", topic.name);
        if topic.topic_id != Uuid::ZERO {
            let _ = write!(out, "\tTopicId: {}", topic.topic_id);
        }
        let _ = writeln!(
            out,
            "\tPartitionCount: {}\tReplicationFactor: {factor}\tConfigs: {}",
            topic.partitions.len(),
            overridden.join(",")
        );
    }
    if !selection.partition_lines {
        return;
    }
    let min_isr = min_isr(configs);
    for partition in &topic.partitions {
        let reassignment = reassignment(partition);
        if !selection.shows(partition, reassignment, min_isr) {
            continue;
        }
        let leader = partition.leader.map_or_else(|| "none".to_owned(), |l| l.to_string());
        let _ = write!(
            out,
            "\tTopic: {}\tPartition: {}\tLeader: {leader}\tReplicas: {}\tIsr: {}",
            topic.name,
            partition.partition,
            joined(&partition.replicas),
            joined(&partition.isr)
        );
        if let Some(r) = reassignment {
            let _ = write!(out, "\tAdding Replicas: {}\tRemoving Replicas: {}", joined(&r.adding), joined(&r.removing));
        }
        let or_na = |ids: &Option<Vec<i32>>| ids.as_deref().map_or_else(|| "N/A".to_owned(), joined);
        let _ = writeln!(out, "\tElr: {}\tLastKnownElr: {}", or_na(&partition.elr), or_na(&partition.last_known_elr));
    }
}

fn json_topic(
    selection: &Selection,
    topic: &TopicDescription,
    configs: &[ConfigEntry],
    reassignments: &BTreeMap<(String, i32), Reassignment>,
) -> Option<serde_json::Value> {
    let overridden: serde_json::Map<String, serde_json::Value> =
        overrides(configs).map(|c| (c.name.clone(), json!(c.value))).collect();
    if selection.only_overridden && overridden.is_empty() {
        return None;
    }
    let reassignment = |p: &PartitionInfo| reassignments.get(&(topic.name.clone(), p.partition));
    let min_isr = min_isr(configs);
    let partitions: Vec<serde_json::Value> = topic
        .partitions
        .iter()
        .filter(|p| selection.partition_lines && selection.shows(p, reassignment(p), min_isr))
        .map(|p| {
            let mut document = json!({
                "partition": p.partition,
                "leader": p.leader,
                "replicas": p.replicas,
                "isr": p.isr,
                "elr": p.elr,
                "lastKnownElr": p.last_known_elr,
            });
            if let (Some(r), Some(fields)) = (reassignment(p), document.as_object_mut()) {
                fields.insert("addingReplicas".into(), json!(r.adding));
                fields.insert("removingReplicas".into(), json!(r.removing));
            }
            document
        })
        .collect();
    if !selection.topic_lines && partitions.is_empty() {
        return None;
    }
    let factor = topic.partitions.first().map_or(0, |p| replication_factor(p, reassignment(p)));
    Some(json!({
        "topic": topic.name,
        "topicId": (topic.topic_id != Uuid::ZERO).then(|| topic.topic_id.to_string()),
        "partitionCount": topic.partitions.len(),
        "replicationFactor": factor,
        "configs": overridden,
        "partitions": partitions,
    }))
}
