//! ListOffsets: the earliest offset (-2, and -4 the earliest local one: the same without tiered
//! storage), the latest (-1: the high watermark, or the last stable offset under read_committed),
//! the offset of the largest timestamp (-3), the latest tiered offset (-5) and the earliest one
//! pending upload (-6, KIP-1023) (none, -1, without tiered storage), or the first record at or
//! after a timestamp.
//!
//! As Kafka's `KafkaApis` builds the answer: the topics the session may DESCRIBE, a topic named
//! twice answered as one and a partition named twice answered once (Kafka keys its answers by
//! partition); then the others, each partition as named TOPIC_AUTHORIZATION_FAILED.
//! Per partition, in Kafka's order (`ReplicaManager.fetchOffset`, `Partition.fetchOffsetForTimestamp`):
//! - a partition named more than once: INVALID_REQUEST (once);
//! - a negative timestamp the version does not know: UNSUPPORTED_VERSION (-3 from v7, -4 from v8,
//!   -5 from v9, -6 from v11, any other never);
//! - a partition the image does not know: UNKNOWN_TOPIC_OR_PARTITION; one not hosted here:
//!   NOT_LEADER_OR_FOLLOWER; a `current_leader_epoch` (v4+, -1 unchecked) older than this
//!   replica's: FENCED_LEADER_EPOCH, newer: UNKNOWN_LEADER_EPOCH (KIP-320); then, unless the
//!   request is a debugging one (replica id -2), NOT_LEADER_OR_FOLLOWER if this node does not
//!   lead;
//! - what may be answered stops at the last fetchable offset: the high watermark (the last stable
//!   offset under read_committed) for consumers (replica id -1), the log end offset for brokers.
//!   A lookup by timestamp (or -3) finding a record at or past it answers -1 / -1;
//! - KIP-207: a consumer's request to a new leader whose high watermark has not yet reached the
//!   offset its leader epoch began at answers OFFSET_NOT_AVAILABLE (retriable; LEADER_NOT_AVAILABLE
//!   before v5) for -1, and for a lookup by timestamp (or -3) that finds nothing before the last
//!   fetchable offset; the earliest offsets are answered as usual. The old leader's last records
//!   may not be committed yet, so the latest offset it would answer could still go back.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use strand_base::TopicPartition;
use strand_metadata::image::MetadataImage;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::list_offsets_request::ListOffsetsPartition;
use strand_protocol::messages::list_offsets_response::{ListOffsetsPartitionResponse, ListOffsetsTopicResponse};
use strand_protocol::messages::{ListOffsetsRequest, ListOffsetsResponse};
use strand_replication::ReplicaError;

use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use crate::Broker;

const LATEST_TIMESTAMP: i64 = -1;
const EARLIEST_TIMESTAMP: i64 = -2;
const MAX_TIMESTAMP: i64 = -3;
const EARLIEST_LOCAL_TIMESTAMP: i64 = -4;
const LATEST_TIERED_TIMESTAMP: i64 = -5;
const EARLIEST_PENDING_UPLOAD_TIMESTAMP: i64 = -6;

/// The partitions the request names more than once: answered INVALID_REQUEST and not looked up,
/// as Kafka's `ReplicaManager.fetchOffset` does.
fn duplicate_partitions(request: &ListOffsetsRequest) -> BTreeSet<(&str, i32)> {
    let mut seen = BTreeSet::new();
    let named =
        request.topics.iter().flat_map(|t| t.partitions.iter().map(move |p| (t.name.as_str(), p.partition_index)));
    named.filter(|key| !seen.insert(*key)).collect()
}

/// The replica id of a consumer's request (Kafka's `ListOffsetsRequest.CONSUMER_REPLICA_ID`).
const CONSUMER_REPLICA_ID: i32 = -1;
/// The replica id of a debugging request, which any replica answers
/// (`ListOffsetsRequest.DEBUGGING_REPLICA_ID`).
const DEBUGGING_REPLICA_ID: i32 = -2;
/// The wire's "no leader epoch given".
const NO_LEADER_EPOCH: i32 = -1;

/// Leader epochs are in the response from v4 (KIP-320); older versions must leave them unset.
const LEADER_EPOCH_VERSION_MIN: i16 = 4;
/// OFFSET_NOT_AVAILABLE is answered from v5; older clients get LEADER_NOT_AVAILABLE (KIP-207).
const OFFSET_NOT_AVAILABLE_VERSION_MIN: i16 = 5;
/// Read committed: the latest offset is the last stable offset.
const READ_COMMITTED: i8 = 1;

pub async fn handle(
    broker: &Broker,
    request: ListOffsetsRequest,
    version: i16,
    session: &Session,
) -> ListOffsetsResponse {
    let image = broker.image();
    let duplicates = duplicate_partitions(&request);
    let names = request.topics.iter().map(|t| t.name.as_str());
    let describable = broker.authorized_names(session, AclOperation::Describe, ResourceType::Topic, names);
    let mut unauthorized = Vec::new();
    let mut topics: Vec<ListOffsetsTopicResponse> = Vec::new();
    let mut topic_places: BTreeMap<&str, usize> = BTreeMap::new();
    let mut answered = BTreeSet::new();
    for topic in &request.topics {
        if !describable.contains(&topic.name) {
            let partitions =
                topic.partitions.iter().map(|p| failed(p.partition_index, ErrorCode::TopicAuthorizationFailed));
            unauthorized.push(ListOffsetsTopicResponse {
                name: topic.name.clone(),
                partitions: partitions.collect(),
                ..Default::default()
            });
            continue;
        }
        let found = image.topics().by_name(&topic.name);
        for p in &topic.partitions {
            if !answered.insert((topic.name.as_str(), p.partition_index)) {
                continue;
            }
            let answer = if duplicates.contains(&(topic.name.as_str(), p.partition_index)) {
                failed(p.partition_index, ErrorCode::InvalidRequest)
            } else if timestamp_unsupported(p.timestamp, version) {
                failed(p.partition_index, ErrorCode::UnsupportedVersion)
            } else if found.is_none_or(|t| !t.partitions.contains_key(&p.partition_index)) {
                failed(p.partition_index, ErrorCode::UnknownTopicOrPartition)
            } else {
                let tp = TopicPartition::new(topic.name.clone(), p.partition_index);
                lookup(broker, &image, &tp, p, &request, version).await
            };
            let place = *topic_places.entry(topic.name.as_str()).or_insert_with(|| {
                topics.push(ListOffsetsTopicResponse { name: topic.name.clone(), ..Default::default() });
                topics.len() - 1
            });
            topics[place].partitions.push(answer);
        }
    }
    topics.extend(unauthorized);
    ListOffsetsResponse { topics, ..Default::default() }
}

/// Kafka's `ReplicaManager.isListOffsetsTimestampUnsupported`.
fn timestamp_unsupported(timestamp: i64, version: i16) -> bool {
    let version_min = match timestamp {
        t if t >= 0 => return false,
        LATEST_TIMESTAMP | EARLIEST_TIMESTAMP => 1,
        MAX_TIMESTAMP => 7,
        EARLIEST_LOCAL_TIMESTAMP => 8,
        LATEST_TIERED_TIMESTAMP => 9,
        EARLIEST_PENDING_UPLOAD_TIMESTAMP => 11,
        _ => return true,
    };
    version < version_min
}

async fn lookup(
    broker: &Broker,
    image: &MetadataImage,
    tp: &TopicPartition,
    asked: &ListOffsetsPartition,
    request: &ListOffsetsRequest,
    version: i16,
) -> ListOffsetsPartitionResponse {
    let index = asked.partition_index;
    let consumer = request.replica_id.0 == CONSUMER_REPLICA_ID;
    let require_leader = request.replica_id.0 != DEBUGGING_REPLICA_ID;
    let current_leader_epoch = (asked.current_leader_epoch != NO_LEADER_EPOCH).then_some(asked.current_leader_epoch);
    let local = match broker.check_replica(image, tp, current_leader_epoch, require_leader) {
        Ok(local) => local,
        Err(code) => return failed(index, code),
    };
    let offsets = match broker.replicas.offsets(tp) {
        Ok(offsets) => offsets,
        Err(e) => return failed(index, e.code()),
    };
    let last_fetchable = if !consumer {
        match broker.replicas.log_end_offset(tp) {
            Ok(end) => end,
            Err(e) => return failed(index, e.code()),
        }
    } else if request.isolation_level == READ_COMMITTED {
        offsets.last_stable_offset
    } else {
        offsets.high_watermark
    };
    // KIP-207: the high watermark of a new leader lags behind its epoch's start offset.
    let lagging =
        consumer && local.status.leader_epoch_start_offset.is_some_and(|start| start > offsets.high_watermark);
    let not_available = if version >= OFFSET_NOT_AVAILABLE_VERSION_MIN {
        ErrorCode::OffsetNotAvailable
    } else {
        ErrorCode::LeaderNotAvailable
    };
    let leader_epoch = if version >= LEADER_EPOCH_VERSION_MIN { local.leader_epoch } else { NO_LEADER_EPOCH };
    let found = match asked.timestamp {
        LATEST_TIMESTAMP if lagging => return failed(index, not_available),
        LATEST_TIMESTAMP => return answer(index, -1, last_fetchable, leader_epoch),
        EARLIEST_TIMESTAMP | EARLIEST_LOCAL_TIMESTAMP => {
            return answer(index, -1, offsets.log_start_offset, leader_epoch);
        }
        // Nothing is tiered or waiting to be (KIP-1023): Kafka answers -1 (with leader epoch -1).
        LATEST_TIERED_TIMESTAMP | EARLIEST_PENDING_UPLOAD_TIMESTAMP => return answer(index, -1, -1, NO_LEADER_EPOCH),
        MAX_TIMESTAMP => broker.replicas.max_timestamp(tp),
        // The lookup may decompress a batch to find the record: a blocking thread's work.
        timestamp => {
            let (replicas, tp) = (Arc::clone(&broker.replicas), tp.clone());
            tokio::task::spawn_blocking(move || replicas.offset_for_timestamp(&tp, timestamp))
                .await
                .unwrap_or_else(|e| Err(ReplicaError::Config(format!("the timestamp lookup did not finish: {e}"))))
        }
    };
    match found {
        Ok(Some((timestamp, offset))) if offset < last_fetchable => answer(index, timestamp, offset, leader_epoch),
        Ok(_) if lagging => failed(index, not_available),
        // No record at or after the timestamp below the last fetchable offset: -1 / -1.
        Ok(_) => failed(index, ErrorCode::None),
        Err(e) => failed(index, e.code()),
    }
}

fn answer(index: i32, timestamp: i64, offset: i64, leader_epoch: i32) -> ListOffsetsPartitionResponse {
    ListOffsetsPartitionResponse { partition_index: index, timestamp, offset, leader_epoch, ..Default::default() }
}

fn failed(index: i32, code: ErrorCode) -> ListOffsetsPartitionResponse {
    ListOffsetsPartitionResponse {
        partition_index: index,
        error_code: code.code(),
        timestamp: -1,
        offset: -1,
        leader_epoch: NO_LEADER_EPOCH,
        ..Default::default()
    }
}
