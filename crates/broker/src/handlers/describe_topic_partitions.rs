//! DescribeTopicPartitions (KIP-966): topics with their partitions' leader, leader epoch,
//! replicas, ISR, eligible leader replicas, last known ELR and offline replicas, paged. Kafka 4's
//! `kafka-topics --describe` uses it.
//!
//! Paging, as Kafka's `KRaftMetadataCache.getTopicMetadataForDescribeTopicResponse`: topics in
//! name order, from the `cursor`'s topic and partition on, at most `response_partition_limit`
//! partitions (capped at [`PARTITIONS_PER_RESPONSE_MAX`], at least 1); `next_cursor` names where
//! the next page starts when the limit cut the answer short. An empty `topics` list means every
//! topic; a named topic that does not exist is UNKNOWN_TOPIC_OR_PARTITION (INVALID_TOPIC_EXCEPTION
//! if the name is not legal). A cursor whose topic is not among the named ones, or whose partition
//! is negative, fails the whole request with INVALID_REQUEST.

use std::collections::BTreeSet;

use strand_base::topic::is_internal;
use strand_base::{BrokerId, Uuid};
use strand_metadata::controller::topic_name::validate_topic_name;
use strand_metadata::image::{
    BrokerRegistration, DIRECTORY_LOST, DIRECTORY_MIGRATING, DIRECTORY_UNASSIGNED, MetadataImage, PartitionImage,
    TopicImage,
};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::describe_topic_partitions_response::{
    Cursor, DescribeTopicPartitionsResponsePartition, DescribeTopicPartitionsResponseTopic,
};
use strand_protocol::messages::{DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse};

use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use crate::Broker;

/// Kafka's `max.request.partition.size.limit` default: the most partitions one response holds.
pub const PARTITIONS_PER_RESPONSE_MAX: i32 = 2000;

/// Topics the session may not DESCRIBE are left out of "every topic"; named, they answer
/// TOPIC_AUTHORIZATION_FAILED after the page, without id or partitions (Kafka's
/// `DescribeTopicPartitionsRequestHandler`). Each topic answered reports the session's operations.
pub fn handle(
    broker: &Broker,
    request: DescribeTopicPartitionsRequest,
    session: &Session,
) -> DescribeTopicPartitionsResponse {
    let image = broker.image();
    let every_topic = request.topics.is_empty();
    let selected = match selected_topics(&image, &request) {
        Ok(topics) => topics,
        Err(code) => return all_failed(&request, code),
    };
    let describable = broker.authorized_names(
        session,
        AclOperation::Describe,
        ResourceType::Topic,
        selected.iter().map(String::as_str),
    );
    let (topics, denied): (Vec<String>, Vec<String>) = selected.into_iter().partition(|t| describable.contains(t));
    let page = Page {
        image: &image,
        listener: &session.listener,
        cursor: request.cursor.as_ref().map(|c| (c.topic_name.as_str(), c.partition_index)),
        every_topic,
    };
    let mut response = page.build(topics, request.response_partition_limit.clamp(1, PARTITIONS_PER_RESPONSE_MAX));
    for topic in &mut response.topics {
        let name = topic.name.as_deref().unwrap_or_default();
        topic.topic_authorized_operations = broker.authorized_operations(session, ResourceType::Topic, name);
    }
    if !every_topic {
        response.topics.extend(denied.into_iter().map(|name| DescribeTopicPartitionsResponseTopic {
            error_code: ErrorCode::TopicAuthorizationFailed.code(),
            name: Some(name),
            ..DescribeTopicPartitionsResponseTopic::default()
        }));
    }
    response
}

/// The topic names to describe, in name order, none before the cursor's topic.
fn selected_topics(image: &MetadataImage, request: &DescribeTopicPartitionsRequest) -> Result<Vec<String>, ErrorCode> {
    let from = request.cursor.as_ref().map_or("", |c| c.topic_name.as_str());
    let topics: BTreeSet<String> = if request.topics.is_empty() {
        image.topics().names().keys().filter(|name| name.as_str() >= from).cloned().collect()
    } else {
        let named: BTreeSet<String> =
            request.topics.iter().map(|t| t.name.clone()).filter(|name| name.as_str() >= from).collect();
        if request.cursor.as_ref().is_some_and(|c| !named.contains(&c.topic_name)) {
            return Err(ErrorCode::InvalidRequest);
        }
        named
    };
    if request.cursor.as_ref().is_some_and(|c| c.partition_index < 0) {
        return Err(ErrorCode::InvalidRequest);
    }
    Ok(topics.into_iter().collect())
}

/// One response page over the image.
struct Page<'a> {
    image: &'a MetadataImage,
    listener: &'a str,
    cursor: Option<(&'a str, i32)>,
    every_topic: bool,
}

impl Page<'_> {
    fn build(&self, topics: Vec<String>, limit: i32) -> DescribeTopicPartitionsResponse {
        let mut response = DescribeTopicPartitionsResponse::default();
        let mut remaining = limit;
        for name in topics {
            if remaining == 0 {
                // The previous topic ended exactly at the limit: the next page starts here.
                response.next_cursor = Some(cursor(&name, 0));
                break;
            }
            let Some(topic) = self.image.topics().by_name(&name) else {
                if !self.every_topic {
                    response.topics.push(unknown_topic(name));
                }
                continue;
            };
            let start = match self.cursor {
                Some((cursor_topic, partition)) if cursor_topic == name => partition,
                _ => 0,
            };
            let (entry, next) = self.topic(topic, start, remaining);
            remaining -= i32::try_from(entry.partitions.len()).unwrap_or(remaining);
            response.topics.push(entry);
            if let Some(next) = next {
                response.next_cursor = Some(cursor(&name, next));
                break;
            }
        }
        response
    }

    /// Partitions `[start, start + count)` of `topic`, and where the next page starts if some
    /// are left.
    fn topic(&self, topic: &TopicImage, start: i32, count: i32) -> (DescribeTopicPartitionsResponseTopic, Option<i32>) {
        let total = i32::try_from(topic.partitions.len()).unwrap_or(i32::MAX);
        let end = total.min(start.saturating_add(count));
        let next = (end < total).then_some(end);
        let partitions = (start..end).filter_map(|i| topic.partitions.get(&i).map(|p| self.partition(i, p))).collect();
        let entry = DescribeTopicPartitionsResponseTopic {
            error_code: 0,
            name: Some(topic.name.clone()),
            topic_id: topic.id,
            is_internal: is_internal(&topic.name),
            partitions,
            ..DescribeTopicPartitionsResponseTopic::default()
        };
        (entry, next)
    }

    fn partition(&self, index: i32, p: &PartitionImage) -> DescribeTopicPartitionsResponsePartition {
        let leader_alive = self.reachable(p.leader).is_some();
        DescribeTopicPartitionsResponsePartition {
            error_code: 0,
            partition_index: index,
            leader_id: if leader_alive { p.leader } else { BrokerId(-1) },
            leader_epoch: p.leader_epoch,
            replica_nodes: p.replicas.clone(),
            isr_nodes: p.isr.clone(),
            eligible_leader_replicas: Some(p.elr.clone()),
            last_known_elr: Some(p.last_known_elr.clone()),
            offline_replicas: self.offline_replicas(p),
            ..DescribeTopicPartitionsResponsePartition::default()
        }
    }

    /// The broker, if it is registered, unfenced and has an endpoint on the client's listener.
    fn reachable(&self, id: BrokerId) -> Option<&BrokerRegistration> {
        self.image.cluster().broker(id).filter(|b| !b.fenced && b.endpoints.iter().any(|e| e.name == self.listener))
    }

    fn offline_replicas(&self, p: &PartitionImage) -> Vec<BrokerId> {
        offline_replicas(self.image, p, self.listener)
    }
}

/// Replicas whose broker is unknown, fenced, not on the client's `listener`, or whose log dir
/// is offline (Kafka's `KRaftMetadataCache.getOfflineReplicas`, for Metadata too).
pub(crate) fn offline_replicas(image: &MetadataImage, p: &PartitionImage, listener: &str) -> Vec<BrokerId> {
    p.replicas
        .iter()
        .zip(p.directories.iter().copied().chain(std::iter::repeat(DIRECTORY_MIGRATING)))
        .filter(|&(&id, directory)| match image.cluster().broker(id) {
            None => true,
            Some(b) => b.fenced || !b.endpoints.iter().any(|e| e.name == listener) || !is_online(b, directory),
        })
        .map(|(&id, _)| id)
        .collect()
}

/// Kafka's `DirectoryId.isOnline`: unassigned and untracked directories count as online, a lost
/// one does not, and a broker that reported no directories is trusted.
fn is_online(broker: &BrokerRegistration, directory: Uuid) -> bool {
    if directory == DIRECTORY_UNASSIGNED || directory == DIRECTORY_MIGRATING {
        return true;
    }
    directory != DIRECTORY_LOST && (broker.log_dirs.is_empty() || broker.log_dirs.contains(&directory))
}

fn unknown_topic(name: String) -> DescribeTopicPartitionsResponseTopic {
    let code = if validate_topic_name(&name).is_ok() {
        ErrorCode::UnknownTopicOrPartition
    } else {
        ErrorCode::InvalidTopicException
    };
    DescribeTopicPartitionsResponseTopic {
        error_code: code.code(),
        is_internal: is_internal(&name),
        name: Some(name),
        topic_id: Uuid::ZERO,
        partitions: Vec::new(),
        ..DescribeTopicPartitionsResponseTopic::default()
    }
}

fn cursor(topic: &str, partition: i32) -> Cursor {
    Cursor { topic_name: topic.to_owned(), partition_index: partition, ..Cursor::default() }
}

/// Every requested topic with `code` (Kafka's `getErrorResponse`).
fn all_failed(request: &DescribeTopicPartitionsRequest, code: ErrorCode) -> DescribeTopicPartitionsResponse {
    let topics = request
        .topics
        .iter()
        .map(|t| DescribeTopicPartitionsResponseTopic {
            error_code: code.code(),
            name: Some(t.name.clone()),
            ..DescribeTopicPartitionsResponseTopic::default()
        })
        .collect();
    DescribeTopicPartitionsResponse { topics, ..DescribeTopicPartitionsResponse::default() }
}
