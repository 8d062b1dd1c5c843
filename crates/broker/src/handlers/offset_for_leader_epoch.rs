//! OffsetForLeaderEpoch: for each partition, the largest leader epoch at or below the requested
//! one and where it ends in this leader's log (Kafka's `Partition.lastOffsetForLeaderEpoch`).
//! Consumers use it to validate their position after a leader change (KIP-320), followers to
//! find where to truncate.
//!
//! Checked in Kafka's order (`ReplicaManager.lastOffsetForLeaderEpoch`): a partition metadata does
//! not know is UNKNOWN_TOPIC_OR_PARTITION, one not hosted here NOT_LEADER_OR_FOLLOWER; then the
//! caller's `current_leader_epoch` (-1 skips the check) against this replica's (its own state, not
//! the image's): older is FENCED_LEADER_EPOCH, newer UNKNOWN_LEADER_EPOCH; then only the leader
//! answers (a follower: NOT_LEADER_OR_FOLLOWER). An epoch the log has no record of is answered
//! -1 / -1 with no error.

use strand_base::TopicPartition;
use strand_metadata::image::MetadataImage;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::offset_for_leader_epoch_request::OffsetForLeaderPartition;
use strand_protocol::messages::offset_for_leader_epoch_response::{EpochEndOffset, OffsetForLeaderTopicResult};
use strand_protocol::messages::{OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse};
use strand_replication::ReplicaError;

use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use crate::Broker;

/// The wire's "no leader epoch given" (`RecordBatch.NO_PARTITION_LEADER_EPOCH`).
const NO_PARTITION_LEADER_EPOCH: i32 = -1;

/// Brokers (CLUSTER_ACTION) may ask about any topic; consumers (KIP-320) need DESCRIBE on each
/// (TOPIC_AUTHORIZATION_FAILED otherwise), as Kafka's `handleOffsetForLeaderEpochRequest` checks.
pub fn handle(
    broker: &Broker,
    request: OffsetForLeaderEpochRequest,
    session: &Session,
) -> OffsetForLeaderEpochResponse {
    let image = broker.image();
    let broker_asks = broker.authorize_cluster(session, AclOperation::ClusterAction);
    let names = request.topics.iter().map(|t| t.topic.as_str()).filter(|_| !broker_asks);
    let describable = broker.authorized_names(session, AclOperation::Describe, ResourceType::Topic, names);
    let topics = request
        .topics
        .iter()
        .map(|topic| {
            let partitions = if broker_asks || describable.contains(&topic.topic) {
                topic.partitions.iter().map(|p| end_offset(broker, &image, &topic.topic, p)).collect()
            } else {
                let refused = |p: &OffsetForLeaderPartition| EpochEndOffset {
                    partition: p.partition,
                    error_code: ErrorCode::TopicAuthorizationFailed.code(),
                    ..EpochEndOffset::default()
                };
                topic.partitions.iter().map(refused).collect()
            };
            OffsetForLeaderTopicResult {
                topic: topic.topic.clone(),
                partitions,
                ..OffsetForLeaderTopicResult::default()
            }
        })
        .collect();
    OffsetForLeaderEpochResponse { topics, ..OffsetForLeaderEpochResponse::default() }
}

fn end_offset(
    broker: &Broker,
    image: &MetadataImage,
    topic: &str,
    request: &OffsetForLeaderPartition,
) -> EpochEndOffset {
    let failed = |code: ErrorCode| EpochEndOffset {
        partition: request.partition,
        error_code: code.code(),
        ..EpochEndOffset::default()
    };
    if image.topics().by_name(topic).and_then(|t| t.partitions.get(&request.partition)).is_none() {
        return failed(ErrorCode::UnknownTopicOrPartition);
    }
    let tp = TopicPartition::new(topic, request.partition);
    let current = request.current_leader_epoch;
    let current = (current != NO_PARTITION_LEADER_EPOCH).then_some(current);
    if let Err(code) = broker.check_replica(image, &tp, current, true) {
        return failed(code);
    }
    match broker.replicas.end_offset_for_epoch(&tp, request.leader_epoch) {
        Ok((leader_epoch, end_offset)) => {
            EpochEndOffset { partition: request.partition, leader_epoch, end_offset, ..EpochEndOffset::default() }
        }
        Err(ReplicaError::Log(e)) => {
            tracing::warn!("OffsetForLeaderEpoch on {tp}: {e}");
            failed(ErrorCode::KafkaStorageError)
        }
        Err(e) => failed(e.code()),
    }
}
