//! A streams group's topology and what the cluster makes of it (Kafka's `StreamsTopology`,
//! `InternalTopicManager.configureTopics`): how many tasks each subtopology has, the internal
//! topics (repartition and changelog) to create with their partition counts and configs, and the
//! statuses a member is told while the topology cannot run.
//!
//! Partition counts, as Kafka Streams' classic assignor worked them out and KIP-1071 keeps:
//! - a source topic must exist (else MISSING_SOURCE_TOPICS, and nothing more is worked out);
//! - a repartition topic has the partitions its topology asks for, else as many as the largest
//!   task count of the subtopologies writing to it (resolved until nothing changes);
//! - topics of a copartition group must agree: repartition topics without an explicit count
//!   take the group's source topics' count; source topics that differ are
//!   INCORRECTLY_PARTITIONED_TOPICS;
//! - a subtopology has as many tasks as its largest source or repartition source topic, and each
//!   of its changelog topics has that many partitions.

use std::collections::{BTreeMap, BTreeSet};

use regex::Regex;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::streams_group_heartbeat_request::{TopicInfo, Topology as RequestTopology};

use crate::group::metadata::TopicMetadata;

/// Kafka's status codes in StreamsGroupHeartbeat responses.
pub const STATUS_STALE_TOPOLOGY: i8 = 0;
pub const STATUS_MISSING_SOURCE_TOPICS: i8 = 1;
pub const STATUS_INCORRECTLY_PARTITIONED_TOPICS: i8 = 2;
pub const STATUS_MISSING_INTERNAL_TOPICS: i8 = 3;
pub const STATUS_SHUTDOWN_APPLICATION: i8 = 4;

/// The most tasks a streams group's topology may have, summed over its subtopologies (a
/// Strand limit: the assignor holds every task, and a repartition topic may ask for any count).
pub const TASKS_MAX: i32 = 100_000;

/// A topology as a member sent it.
pub type Topology = RequestTopology;

/// An internal topic the broker should create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InternalTopic {
    pub name: String,
    pub partitions: i32,
    /// -1: the broker's default.
    pub replication_factor: i16,
    pub configs: BTreeMap<String, String>,
}

/// The topology against the cluster's topics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfiguredTopology {
    /// Tasks per subtopology (only when every count could be worked out).
    pub tasks: BTreeMap<String, i32>,
    /// Statuses to report, `(code, detail)`; none when the topology can run.
    pub statuses: Vec<(i8, String)>,
    /// Internal topics missing from the cluster.
    pub missing_internal: Vec<InternalTopic>,
}

impl ConfiguredTopology {
    /// Whether tasks can be assigned.
    pub fn is_ready(&self) -> bool {
        self.statuses.is_empty()
    }
}

/// The topics a topology reads from the outside (not repartition topics), regexes resolved.
pub fn source_topics(topology: &Topology, metadata: &TopicMetadata) -> BTreeSet<String> {
    let mut topics = BTreeSet::new();
    for subtopology in &topology.subtopologies {
        topics.extend(subtopology.source_topics.iter().cloned());
        for regex in &subtopology.source_topic_regex {
            topics.extend(resolve_regex(regex, metadata));
        }
    }
    topics
}

/// Every topic name a topology mentions, for the metadata hash.
pub fn all_topics(topology: &Topology, metadata: &TopicMetadata) -> BTreeSet<String> {
    let mut topics = source_topics(topology, metadata);
    for subtopology in &topology.subtopologies {
        topics.extend(subtopology.repartition_source_topics.iter().map(|t| t.name.clone()));
        topics.extend(subtopology.state_changelog_topics.iter().map(|t| t.name.clone()));
    }
    topics
}

fn resolve_regex(regex: &str, metadata: &TopicMetadata) -> Vec<String> {
    match Regex::new(&format!("^(?:{regex})$")) {
        Ok(re) => metadata.names().filter(|name| re.is_match(name)).map(str::to_owned).collect(),
        Err(_) => Vec::new(),
    }
}

/// Kafka's checks of a topology's shape (STREAMS_INVALID_TOPOLOGY).
pub fn validate(topology: &Topology) -> Result<(), (ErrorCode, String)> {
    let invalid = |message: String| Err((ErrorCode::StreamsInvalidTopology, message));
    let mut ids = BTreeSet::new();
    let mut repartition_sources = BTreeSet::new();
    for subtopology in &topology.subtopologies {
        if !ids.insert(subtopology.subtopology_id.as_str()) {
            return invalid(format!("Duplicate subtopology ID {}.", subtopology.subtopology_id));
        }
        repartition_sources.extend(subtopology.repartition_source_topics.iter().map(|t| t.name.as_str()));
        for info in subtopology.repartition_source_topics.iter().chain(&subtopology.state_changelog_topics) {
            if info.partitions > TASKS_MAX {
                return invalid(format!(
                    "Topic {} asks for {} partitions, more than the {TASKS_MAX} tasks a streams group may have.",
                    info.name, info.partitions
                ));
            }
        }
        for regex in &subtopology.source_topic_regex {
            if Regex::new(regex).is_err() {
                return invalid(format!("Source topic regex {regex} is not a valid regular expression."));
            }
        }
    }
    for subtopology in &topology.subtopologies {
        for sink in &subtopology.repartition_sink_topics {
            if !repartition_sources.contains(sink.as_str()) {
                return invalid(format!(
                    "Subtopology {} has repartition sink topic {sink} that is not a repartition source topic.",
                    subtopology.subtopology_id
                ));
            }
        }
        let sources = subtopology.source_topics.len();
        let repartitions = subtopology.repartition_source_topics.len();
        for group in &subtopology.copartition_groups {
            let bad = group.source_topics.iter().any(|&i| i < 0 || i as usize >= sources)
                || group.repartition_source_topics.iter().any(|&i| i < 0 || i as usize >= repartitions)
                || group
                    .source_topic_regex
                    .iter()
                    .any(|&i| i < 0 || i as usize >= subtopology.source_topic_regex.len());
            if bad {
                return invalid(format!(
                    "Subtopology {} has a copartition group with an index out of range.",
                    subtopology.subtopology_id
                ));
            }
        }
    }
    Ok(())
}

/// Works out the topology against `metadata`.
pub fn configure(topology: &Topology, metadata: &TopicMetadata) -> ConfiguredTopology {
    let existing = |name: &str| metadata.topic(name).map(|t| t.partitions);
    // Source topics first: without them nothing can be counted.
    let mut missing: BTreeSet<String> = BTreeSet::new();
    for subtopology in &topology.subtopologies {
        missing.extend(subtopology.source_topics.iter().filter(|t| existing(t).is_none()).cloned());
    }
    if !missing.is_empty() {
        let names: Vec<&str> = missing.iter().map(String::as_str).collect();
        let detail = format!("Source topics {} are missing.", names.join(", "));
        return ConfiguredTopology { statuses: vec![(STATUS_MISSING_SOURCE_TOPICS, detail)], ..Default::default() };
    }
    let mut repartition: BTreeMap<String, i32> = BTreeMap::new();
    let mut infos: BTreeMap<String, &TopicInfo> = BTreeMap::new();
    for subtopology in &topology.subtopologies {
        for info in &subtopology.repartition_source_topics {
            infos.insert(info.name.clone(), info);
            if info.partitions > 0 {
                repartition.insert(info.name.clone(), info.partitions);
            }
        }
    }
    // Repartition counts from the writers' task counts, until nothing changes.
    let source_count = |subtopology: &strand_protocol::messages::streams_group_heartbeat_request::Subtopology,
                        repartition: &BTreeMap<String, i32>| {
        let mut count: Option<i32> = None;
        for topic in &subtopology.source_topics {
            count = count.max(existing(topic));
        }
        for regex in &subtopology.source_topic_regex {
            for topic in resolve_regex(regex, metadata) {
                count = count.max(existing(&topic));
            }
        }
        for info in &subtopology.repartition_source_topics {
            count = count.max(repartition.get(&info.name).copied());
        }
        count
    };
    for _ in 0..=topology.subtopologies.len() {
        let mut changed = false;
        for name in infos.keys() {
            if infos[name].partitions > 0 {
                continue;
            }
            let writers = topology.subtopologies.iter().filter(|s| s.repartition_sink_topics.contains(name));
            let count = writers.filter_map(|s| source_count(s, &repartition)).max();
            if let Some(count) = count
                && repartition.get(name) != Some(&count)
            {
                repartition.insert(name.clone(), count);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut statuses = Vec::new();
    // Copartition groups.
    for subtopology in &topology.subtopologies {
        for group in &subtopology.copartition_groups {
            let sources: BTreeSet<i32> = group
                .source_topics
                .iter()
                .filter_map(|&i| subtopology.source_topics.get(i as usize))
                .filter_map(|t| existing(t))
                .collect();
            if sources.len() > 1 {
                let names: Vec<&str> = group
                    .source_topics
                    .iter()
                    .filter_map(|&i| subtopology.source_topics.get(i as usize).map(String::as_str))
                    .collect();
                statuses.push((
                    STATUS_INCORRECTLY_PARTITIONED_TOPICS,
                    format!("Following topics do not have the same number of partitions: [{}]", names.join(", ")),
                ));
                continue;
            }
            let target = sources.iter().next().copied().or_else(|| {
                group
                    .repartition_source_topics
                    .iter()
                    .filter_map(|&i| subtopology.repartition_source_topics.get(i as usize))
                    .filter_map(|t| repartition.get(&t.name).copied())
                    .max()
            });
            if let Some(target) = target {
                for &i in &group.repartition_source_topics {
                    if let Some(info) = subtopology.repartition_source_topics.get(i as usize)
                        && info.partitions <= 0
                    {
                        repartition.insert(info.name.clone(), target);
                    }
                }
            }
        }
    }
    let mut tasks = BTreeMap::new();
    let mut internal: Vec<(&TopicInfo, i32)> = Vec::new();
    for subtopology in &topology.subtopologies {
        let Some(count) = source_count(subtopology, &repartition) else {
            statuses.push((
                STATUS_MISSING_SOURCE_TOPICS,
                format!("The number of tasks of subtopology {} cannot be worked out.", subtopology.subtopology_id),
            ));
            continue;
        };
        tasks.insert(subtopology.subtopology_id.clone(), count);
        for info in &subtopology.repartition_source_topics {
            internal.push((info, repartition.get(&info.name).copied().unwrap_or(count)));
        }
        for info in &subtopology.state_changelog_topics {
            internal.push((info, count));
        }
    }
    let total: i64 = tasks.values().map(|n: &i32| i64::from(*n)).sum();
    if total > i64::from(TASKS_MAX) {
        let detail = format!("The topology has {total} tasks, more than the {TASKS_MAX} a streams group may have.");
        statuses.push((STATUS_INCORRECTLY_PARTITIONED_TOPICS, detail));
        return ConfiguredTopology { statuses, ..Default::default() };
    }
    let mut missing_internal = Vec::new();
    let mut wrong = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for (info, partitions) in internal {
        if !seen.insert(info.name.clone()) {
            continue;
        }
        match existing(&info.name) {
            None => missing_internal.push(InternalTopic {
                name: info.name.clone(),
                partitions,
                replication_factor: if info.replication_factor == 0 { -1 } else { info.replication_factor },
                configs: info.topic_configs.iter().map(|kv| (kv.key.clone(), kv.value.clone())).collect(),
            }),
            Some(found) if found != partitions => {
                wrong.insert(info.name.clone());
            }
            Some(_) => {}
        }
    }
    if !wrong.is_empty() {
        let names: Vec<&str> = wrong.iter().map(String::as_str).collect();
        statuses.push((
            STATUS_INCORRECTLY_PARTITIONED_TOPICS,
            format!("Internal topics {} have the wrong number of partitions.", names.join(", ")),
        ));
    }
    if !missing_internal.is_empty() {
        let names: Vec<&str> = missing_internal.iter().map(|t| t.name.as_str()).collect();
        statuses.push((STATUS_MISSING_INTERNAL_TOPICS, format!("Internal topics are missing: [{}]", names.join(", "))));
    }
    ConfiguredTopology { tasks, statuses, missing_internal }
}
