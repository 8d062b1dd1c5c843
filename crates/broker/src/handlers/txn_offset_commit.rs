//! TxnOffsetCommit: a transactional producer commits a consumer group's offsets in its
//! transaction (`sendOffsetsToTransaction`). The group coordinator validates, verifies the
//! transaction and writes the offsets (`GroupCoordinator::txn_offset_commit`); this handler
//! answers first what only the metadata knows: a partition that does not exist is
//! UNKNOWN_TOPIC_OR_PARTITION, as Kafka's `KafkaApis.handleTxnOffsetCommitRequest` answers it.
//! Topics named by id (v6) are resolved by the coordinator, through the image.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::txn_offset_commit_response::{
    TxnOffsetCommitResponsePartition, TxnOffsetCommitResponseTopic,
};
use strand_protocol::messages::{TxnOffsetCommitRequest, TxnOffsetCommitResponse};

use super::groups::ImageTopics;
use crate::Broker;

/// The first version that names topics by id.
const TOPIC_ID_VERSION: i16 = 6;

pub async fn handle(broker: &Broker, request: TxnOffsetCommitRequest, version: i16) -> TxnOffsetCommitResponse {
    let image = broker.image();
    let exists = |topic: &strand_protocol::messages::txn_offset_commit_request::TxnOffsetCommitRequestTopic,
                  partition: i32| {
        let found = if version >= TOPIC_ID_VERSION {
            image.topics().by_id(topic.topic_id)
        } else {
            image.topics().by_name(&topic.name)
        };
        // An unknown topic id is the coordinator's to answer (UNKNOWN_TOPIC_ID).
        let unknown_id = version >= TOPIC_ID_VERSION && found.is_none();
        unknown_id || found.is_some_and(|t| t.partitions.contains_key(&partition))
    };
    let mut known = request.clone();
    for topic in &mut known.topics {
        let whole = topic.clone();
        topic.partitions.retain(|p| exists(&whole, p.partition_index));
    }
    known.topics.retain(|t| !t.partitions.is_empty());
    let committed = if known.topics.is_empty() {
        TxnOffsetCommitResponse::default()
    } else {
        let topics = ImageTopics(image.clone());
        broker.groups.txn_offset_commit(known, version, &topics).await
    };
    // Answers in the request's order: the coordinator's for the partitions it was given.
    let mut answered = committed.topics.into_iter();
    let mut response = TxnOffsetCommitResponse { throttle_time_ms: committed.throttle_time_ms, ..Default::default() };
    for topic in &request.topics {
        let mut from_coordinator = Vec::new();
        if topic.partitions.iter().any(|p| exists(topic, p.partition_index))
            && let Some(answer) = answered.next()
        {
            from_coordinator = answer.partitions;
        }
        let mut from_coordinator = from_coordinator.into_iter();
        let partitions = topic
            .partitions
            .iter()
            .map(|p| {
                let answer = if exists(topic, p.partition_index) { from_coordinator.next() } else { None };
                answer.unwrap_or_else(|| TxnOffsetCommitResponsePartition {
                    partition_index: p.partition_index,
                    error_code: ErrorCode::UnknownTopicOrPartition.code(),
                    ..Default::default()
                })
            })
            .collect();
        response.topics.push(TxnOffsetCommitResponseTopic {
            name: topic.name.clone(),
            topic_id: topic.topic_id,
            partitions,
            ..Default::default()
        });
    }
    response
}
