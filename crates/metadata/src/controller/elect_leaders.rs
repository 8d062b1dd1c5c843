//! Leader elections an operator or a periodic task asks for: ElectLeaders (KIP-460, preferred and
//! unclean), as Kafka's `ReplicationControlManager.electLeaders`; the automatic moves back to
//! preferred leaders (`auto.leader.rebalance.enable`, Kafka's `maybeBalancePartitionLeaders`);
//! and the periodic unclean elections for leaderless partitions of topics that allow them
//! (`maybeElectUncleanLeaders`).
//!
//! What it is not: the schedule. The caller runs the periodic ones every
//! `leader.imbalance.check.interval.seconds` (and again at once while a call returns as many
//! records as it may), and decides each on the image that includes the previous one's records.

use std::collections::BTreeMap;

use strand_base::{BrokerId, Uuid};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::elect_leaders_response::{PartitionResult, ReplicaElectionResult};
use strand_protocol::messages::{ElectLeadersRequest, ElectLeadersResponse, PartitionChangeRecord};

use super::broker_lifecycle::partition_record;
use super::partition_change::{
    Election, ElrRules, PartitionChange, acceptable_leader, unclean_leader_election_enabled,
};
use super::{ApiError, ApiMessageAndVersion, ControllerDefaults, ControllerResult};
use crate::image::{MetadataImage, NO_LEADER, PartitionImage, TopicImage};

/// The most elections one periodic call decides (Kafka's `MAX_ELECTIONS_PER_IMBALANCE`).
pub const ELECTIONS_PER_CALL_MAX: usize = 1_000;

/// ElectLeaders' election types (KIP-460).
const PREFERRED: i8 = 0;
const UNCLEAN: i8 = 1;

/// How automatic rebalancing picks partitions ([`preferred_leader_moves`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaderRebalance {
    /// `leader.imbalance.per.broker.percentage`: a broker's partitions move back to it only once
    /// more than this share of the partitions it prefers are led by others (the ZooKeeper
    /// controller's rule). Kafka's KRaft controller ignores the setting and moves every
    /// partition whose preferred replica can lead: pass 0 for that.
    pub imbalance_per_broker_percentage: u32,
    /// The most elections per call, [`ELECTIONS_PER_CALL_MAX`] as Kafka.
    pub elections_max: usize,
}

/// Elects preferred (`election_type` 0, also for version 0) or unclean (1) leaders for the
/// listed partitions, or with a null list for every partition (leaving out those that need no
/// election). A `PartitionChangeRecord` per election; per partition NONE, or
/// UNKNOWN_TOPIC_OR_PARTITION, ELECTION_NOT_NEEDED (the preferred replica already leads, or for
/// unclean the partition has a leader), PREFERRED_LEADER_NOT_AVAILABLE or
/// ELIGIBLE_LEADERS_NOT_AVAILABLE. An unknown election type fails the request with
/// INVALID_REQUEST. An unclean election takes an ISR member if one can lead, else any active
/// replica, whatever the topic's `unclean.leader.election.enable`.
pub fn elect_leaders(
    image: &MetadataImage,
    request: &ElectLeadersRequest,
    defaults: &ControllerDefaults,
) -> ControllerResult<ElectLeadersResponse> {
    let election = match request.election_type {
        PREFERRED => Election::Preferred,
        UNCLEAN => Election::Unclean,
        other => return unknown_election_type(request, other),
    };
    let mut elections = Elections { image, defaults, election, records: Vec::new(), changed: BTreeMap::new() };
    let results = match &request.topic_partitions {
        None => image.topics().iter().map(|topic| elections.all(topic)).collect(),
        Some(topics) => topics
            .iter()
            .map(|t| ReplicaElectionResult {
                topic: t.topic.clone(),
                partition_result: t.partitions.iter().map(|p| elections.named(&t.topic, *p)).collect(),
                ..Default::default()
            })
            .collect(),
    };
    let response = ElectLeadersResponse { replica_election_results: results, ..ElectLeadersResponse::default() };
    ControllerResult { records: elections.records, response }
}

/// Moves leaderships back to preferred replicas (the first of each partition's replicas), for
/// `auto.leader.rebalance.enable`: a preferred election for each partition whose leader is not its
/// preferred replica, among the brokers over `rebalance.imbalance_per_broker_percentage`, at most
/// `rebalance.elections_max` records. Partitions whose preferred replica cannot lead stay as they
/// are (a leaderless one may get another ISR member).
pub fn preferred_leader_moves(
    image: &MetadataImage,
    rebalance: &LeaderRebalance,
    defaults: &ControllerDefaults,
) -> Vec<ApiMessageAndVersion> {
    let imbalanced = imbalanced_brokers(image, rebalance.imbalance_per_broker_percentage);
    let mut records = Vec::new();
    for topic in image.topics().iter() {
        for (index, partition) in &topic.partitions {
            if records.len() >= rebalance.elections_max {
                return records;
            }
            let preferred = partition.replicas.first().copied().unwrap_or(NO_LEADER);
            if partition.leader != preferred && imbalanced.contains(&preferred) {
                let rules = ElrRules::for_topic(image, topic, defaults);
                let record = elect(image, topic.id, *index, partition, Election::Preferred, rules);
                records.extend(record.map(partition_record));
            }
        }
    }
    records
}

/// Unclean elections for the leaderless partitions of topics whose `unclean.leader.election.enable`
/// is true (it may have been turned on after they lost their leader): at most `elections_max`
/// records. `defaults` supplies the static value of the setting.
pub fn unclean_leader_moves(
    image: &MetadataImage,
    defaults: &ControllerDefaults,
    elections_max: usize,
) -> Vec<ApiMessageAndVersion> {
    let mut records = Vec::new();
    for topic in image.topics().iter() {
        if !unclean_leader_election_enabled(image, &topic.name, defaults) {
            continue;
        }
        for (index, partition) in topic.partitions.iter().filter(|(_, p)| p.leader == NO_LEADER) {
            if records.len() >= elections_max {
                return records;
            }
            let rules = ElrRules::for_topic(image, topic, defaults);
            records.extend(elect(image, topic.id, *index, partition, Election::Unclean, rules).map(partition_record));
        }
    }
    records
}

/// One ElectLeaders request's progress: its records, and the partitions they changed (a repeated
/// partition is judged on its new state).
struct Elections<'a> {
    image: &'a MetadataImage,
    defaults: &'a ControllerDefaults,
    election: Election,
    records: Vec<ApiMessageAndVersion>,
    changed: BTreeMap<(Uuid, i32), PartitionImage>,
}

impl Elections<'_> {
    /// Every partition of `topic`, leaving out those that need no election (as Kafka does).
    fn all(&mut self, topic: &TopicImage) -> ReplicaElectionResult {
        let partition_result = topic
            .partitions
            .keys()
            .map(|index| (*index, self.elect(topic, *index)))
            .filter(|(_, error)| error.code != ErrorCode::ElectionNotNeeded)
            .map(|(index, error)| result(index, &error))
            .collect();
        ReplicaElectionResult { topic: topic.name.clone(), partition_result, ..Default::default() }
    }

    fn named(&mut self, name: &str, index: i32) -> PartitionResult {
        let unknown = |message: String| ApiError::new(ErrorCode::UnknownTopicOrPartition, message);
        let error = match self.image.topics().by_name(name) {
            None => unknown(format!("No such topic as {name}")),
            Some(topic) if !topic.partitions.contains_key(&index) => {
                unknown(format!("No such partition as {name}-{index}"))
            }
            Some(topic) => self.elect(topic, index),
        };
        result(index, &error)
    }

    /// Kafka's `electLeader` for a partition of `topic` that exists.
    fn elect(&mut self, topic: &TopicImage, index: i32) -> ApiError {
        let Some(partition) = self.changed.get(&(topic.id, index)).or_else(|| topic.partitions.get(&index)).cloned()
        else {
            return ApiError::with_default_message(ErrorCode::UnknownTopicOrPartition);
        };
        let not_needed = match self.election {
            Election::Preferred => partition.replicas.first() == Some(&partition.leader),
            _ => partition.has_leader(),
        };
        if not_needed {
            return ApiError::with_default_message(ErrorCode::ElectionNotNeeded);
        }
        let rules = ElrRules::for_topic(self.image, topic, self.defaults);
        let Some(record) = elect(self.image, topic.id, index, &partition, self.election, rules) else {
            return ApiError::with_default_message(match self.election {
                Election::Preferred => ErrorCode::PreferredLeaderNotAvailable,
                _ => ErrorCode::EligibleLeadersNotAvailable,
            });
        };
        if let Ok(next) = partition.merge(&record) {
            self.changed.insert((topic.id, index), next);
        }
        self.records.push(partition_record(record));
        ApiError::bare(ErrorCode::None)
    }
}

/// The record of an election among the replicas that may lead, if it changes anything.
fn elect(
    image: &MetadataImage,
    topic_id: Uuid,
    index: i32,
    partition: &PartitionImage,
    election: Election,
    rules: ElrRules,
) -> Option<PartitionChangeRecord> {
    let change = PartitionChange::new(partition, topic_id, index, rules).election(election);
    change.record(&|b| acceptable_leader(image, partition, b, |b| image.cluster().is_active(b)))
}

/// The brokers more than `percentage` percent of whose preferred partitions another broker leads
/// (every broker with one such partition when `percentage` is 0).
fn imbalanced_brokers(image: &MetadataImage, percentage: u32) -> Vec<BrokerId> {
    let mut counts: BTreeMap<BrokerId, (u64, u64)> = BTreeMap::new();
    for partition in image.topics().iter().flat_map(|t| t.partitions.values()) {
        if let Some(preferred) = partition.replicas.first() {
            let (preferred_count, led_by_others) = counts.entry(*preferred).or_default();
            *preferred_count += 1;
            *led_by_others += u64::from(partition.leader != *preferred);
        }
    }
    counts
        .into_iter()
        .filter(|(_, (total, others))| others.saturating_mul(100) > u64::from(percentage).saturating_mul(*total))
        .map(|(broker, _)| broker)
        .collect()
}

/// Kafka's `ElectLeadersRequest.getErrorResponse`: the error at the top and on every listed
/// partition.
fn unknown_election_type(request: &ElectLeadersRequest, election_type: i8) -> ControllerResult<ElectLeadersResponse> {
    let error = ApiError::new(ErrorCode::InvalidRequest, format!("Unknown election type {election_type}"));
    let results = request
        .topic_partitions
        .iter()
        .flatten()
        .map(|t| ReplicaElectionResult {
            topic: t.topic.clone(),
            partition_result: t.partitions.iter().map(|p| result(*p, &error)).collect(),
            ..Default::default()
        })
        .collect();
    let response = ElectLeadersResponse {
        error_code: error.code.code(),
        replica_election_results: results,
        ..ElectLeadersResponse::default()
    };
    ControllerResult { records: Vec::new(), response }
}

fn result(index: i32, error: &ApiError) -> PartitionResult {
    PartitionResult {
        partition_id: index,
        error_code: error.code.code(),
        error_message: error.message.clone(),
        ..Default::default()
    }
}
