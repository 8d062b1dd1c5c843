//! TxnOffsetCommit: a transactional producer commits a consumer group's offsets in its
//! transaction (`sendOffsetsToTransaction`). The group coordinator validates, verifies the
//! transaction and writes the offsets (`GroupCoordinator::txn_offset_commit`); this handler
//! answers first what only the metadata knows: a partition that does not exist is
//! UNKNOWN_TOPIC_OR_PARTITION, as Kafka's `KafkaApis.handleTxnOffsetCommitRequest` answers it.
//! Topics named by id (v6) are resolved by the coordinator, through the image.

use strand_metadata::image::MetadataImage;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::txn_offset_commit_request::TxnOffsetCommitRequestTopic;
use strand_protocol::messages::txn_offset_commit_response::{
    TxnOffsetCommitResponsePartition, TxnOffsetCommitResponseTopic,
};
use strand_protocol::messages::{TxnOffsetCommitRequest, TxnOffsetCommitResponse};
use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use super::groups::ImageTopics;
use crate::Broker;

/// The first version that names topics by id.
const TOPIC_ID_VERSION: i16 = 6;

/// WRITE on the transactional id, then READ on the group, refuse every partition
/// (TRANSACTIONAL_ID_AUTHORIZATION_FAILED, GROUP_AUTHORIZATION_FAILED); READ on each topic its
/// partitions (TOPIC_AUTHORIZATION_FAILED), as Kafka checks them.
pub async fn handle(
    broker: &Broker,
    request: TxnOffsetCommitRequest,
    version: i16,
    session: &Session,
) -> TxnOffsetCommitResponse {
    let refused =
        if !broker.authorize(session, AclOperation::Write, ResourceType::TransactionalId, &request.transactional_id) {
            Some(ErrorCode::TransactionalIdAuthorizationFailed)
        } else if !broker.authorize(session, AclOperation::Read, ResourceType::Group, &request.group_id) {
            Some(ErrorCode::GroupAuthorizationFailed)
        } else {
            None
        };
    if let Some(code) = refused {
        return respond(&request, |_, _| Some(code), TxnOffsetCommitResponse::default());
    }
    let image = broker.image();
    let readable = broker.authorized_names(
        session,
        AclOperation::Read,
        ResourceType::Topic,
        request.topics.iter().filter_map(|topic| topic_name(&image, topic, version)),
    );
    // A topic of an unknown id is the coordinator's to answer (UNKNOWN_TOPIC_ID).
    let denied =
        |topic: &TxnOffsetCommitRequestTopic| topic_name(&image, topic, version).is_some_and(|n| !readable.contains(n));
    let exists = |topic: &TxnOffsetCommitRequestTopic, partition: i32| {
        let found = if version >= TOPIC_ID_VERSION {
            image.topics().by_id(topic.topic_id)
        } else {
            image.topics().by_name(&topic.name)
        };
        // An unknown topic id is the coordinator's to answer (UNKNOWN_TOPIC_ID).
        let unknown_id = version >= TOPIC_ID_VERSION && found.is_none();
        unknown_id || found.is_some_and(|t| t.partitions.contains_key(&partition))
    };
    let refusal = |topic: &TxnOffsetCommitRequestTopic, partition: i32| {
        if denied(topic) {
            Some(ErrorCode::TopicAuthorizationFailed)
        } else if !exists(topic, partition) {
            Some(ErrorCode::UnknownTopicOrPartition)
        } else {
            None
        }
    };
    let mut let_through = request.clone();
    for topic in &mut let_through.topics {
        let whole = topic.clone();
        topic.partitions.retain(|p| refusal(&whole, p.partition_index).is_none());
    }
    let_through.topics.retain(|t| !t.partitions.is_empty());
    let committed = if let_through.topics.is_empty() {
        TxnOffsetCommitResponse::default()
    } else {
        let topics = ImageTopics(image.clone());
        broker.groups.txn_offset_commit(let_through, version, &topics).await
    };
    respond(&request, refusal, committed)
}

/// The name `topic` is asked about by: its id's topic's from v6 (none for an unknown id).
fn topic_name<'a>(image: &'a MetadataImage, topic: &'a TxnOffsetCommitRequestTopic, version: i16) -> Option<&'a str> {
    if version >= TOPIC_ID_VERSION {
        image.topics().by_id(topic.topic_id).map(|t| t.name.as_str())
    } else {
        Some(&topic.name)
    }
}

/// The response in the request's order: `refusal`'s error for the partitions it refuses, the
/// coordinator's answer (`committed`, to the other partitions) for the rest.
fn respond(
    request: &TxnOffsetCommitRequest,
    refusal: impl Fn(&TxnOffsetCommitRequestTopic, i32) -> Option<ErrorCode>,
    committed: TxnOffsetCommitResponse,
) -> TxnOffsetCommitResponse {
    let mut answered = committed.topics.into_iter();
    let mut response = TxnOffsetCommitResponse { throttle_time_ms: committed.throttle_time_ms, ..Default::default() };
    for topic in &request.topics {
        let mut from_coordinator = Vec::new();
        if topic.partitions.iter().any(|p| refusal(topic, p.partition_index).is_none())
            && let Some(answer) = answered.next()
        {
            from_coordinator = answer.partitions;
        }
        let mut from_coordinator = from_coordinator.into_iter();
        let partitions = topic
            .partitions
            .iter()
            .map(|p| {
                let refused = refusal(topic, p.partition_index);
                let answer = if refused.is_none() { from_coordinator.next() } else { None };
                answer.unwrap_or_else(|| TxnOffsetCommitResponsePartition {
                    partition_index: p.partition_index,
                    error_code: refused.unwrap_or(ErrorCode::UnknownServerError).code(),
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
