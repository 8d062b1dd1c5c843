//! StreamsGroupHeartbeat and StreamsGroupDescribe (KIP-1071): streams groups, served by the group
//! coordinator of the group id ([`strand_coordinator::group::streams`]).
//!
//! Checks in Kafka's order: `streams.version` below 1 refuses both with UNSUPPORTED_VERSION; a
//! heartbeat needs READ on the group (GROUP_AUTHORIZATION_FAILED) and, when it brings a topology,
//! DESCRIBE on the topics it names (TOPIC_AUTHORIZATION_FAILED); a describe needs DESCRIBE on each
//! group. An id a share group holds is GROUP_ID_NOT_FOUND. When the coordinator finds internal
//! topics missing, they are created here, as Kafka's `KafkaApis` has its
//! `AutoTopicCreationManager` do, with the requester's principal (the controller checks CREATE);
//! the answer still says MISSING_INTERNAL_TOPICS, and a later heartbeat finds them.

use strand_coordinator::group::streams::topology::InternalTopic;
use strand_metadata::image::STREAMS_VERSION;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_topics_request::{CreatableTopic, CreatableTopicConfig};
use strand_protocol::messages::streams_group_describe_response::DescribedGroup;
use strand_protocol::messages::{
    CreateTopicsRequest, StreamsGroupDescribeRequest, StreamsGroupDescribeResponse, StreamsGroupHeartbeatRequest,
    StreamsGroupHeartbeatResponse,
};
use strand_security::acl::{AclOperation, ResourceType};

use crate::Broker;
use crate::dispatch::Client;

/// `authorized_operations` when not asked for (Kafka's `Integer.MIN_VALUE`).
const OPERATIONS_NOT_ASKED: i32 = i32::MIN;
/// The first StreamsGroupHeartbeat version with the int64 `AcceptableRecoveryLag`.
const ACCEPTABLE_RECOVERY_LAG_VERSION: i16 = 1;
/// How long creating missing internal topics may take.
const CREATE_TIMEOUT_MS: i32 = 30_000;

/// Whether the finalized `streams.version` enables streams groups.
pub(crate) fn streams_groups_enabled(broker: &Broker) -> bool {
    broker.image().features().level(STREAMS_VERSION) >= 1
}

pub(crate) async fn heartbeat(
    broker: &Broker,
    client: &Client<'_>,
    request: StreamsGroupHeartbeatRequest,
    version: i16,
) -> StreamsGroupHeartbeatResponse {
    let refused = |code: ErrorCode, message: Option<String>| StreamsGroupHeartbeatResponse {
        error_code: code.code(),
        error_message: message,
        ..StreamsGroupHeartbeatResponse::default()
    };
    if !streams_groups_enabled(broker) {
        return refused(ErrorCode::UnsupportedVersion, None);
    }
    let session = client.session;
    if !broker.authorize(session, AclOperation::Read, ResourceType::Group, &request.group_id) {
        return refused(ErrorCode::GroupAuthorizationFailed, None);
    }
    if let Some(topology) = &request.topology {
        let mut names: Vec<&str> = Vec::new();
        for subtopology in &topology.subtopologies {
            names.extend(subtopology.source_topics.iter().map(String::as_str));
            names.extend(subtopology.repartition_sink_topics.iter().map(String::as_str));
            names.extend(subtopology.repartition_source_topics.iter().map(|t| t.name.as_str()));
            names.extend(subtopology.state_changelog_topics.iter().map(|t| t.name.as_str()));
        }
        let describable =
            broker.authorized_names(session, AclOperation::Describe, ResourceType::Topic, names.iter().copied());
        let denied: Vec<&str> = names.iter().copied().filter(|name| !describable.contains(*name)).collect();
        if !denied.is_empty() {
            let message = format!("The described topic(s) {} are not authorized.", denied.join(", "));
            return refused(ErrorCode::TopicAuthorizationFailed, Some(message));
        }
    }
    if broker.share.groups().contains(&request.group_id) {
        return refused(
            ErrorCode::GroupIdNotFound,
            Some(format!("Group {} is not a streams group.", request.group_id)),
        );
    }
    let info = super::groups::client(client.id, client.peer);
    let answer = broker.groups.streams_group_heartbeat(info, request).await;
    let mut response = answer.response;
    if version >= ACCEPTABLE_RECOVERY_LAG_VERSION {
        // v1 carries the lag as an int64 (KIP-1071's amendment); the int32 field is v0's.
        response.acceptable_recovery_lag_legacy = 0;
    }
    if !answer.create_topics.is_empty()
        && let Some(failure) = create_internal_topics(broker, session, &answer.create_topics).await
        && let Some(status) = response.status.as_mut().and_then(|s| {
            s.iter_mut()
                .find(|s| s.status_code == strand_coordinator::group::streams::topology::STATUS_MISSING_INTERNAL_TOPICS)
        })
    {
        status.status_detail = format!("{} {failure}", status.status_detail);
    }
    response
}

/// Creates the missing internal topics; what failed, if anything, for the status detail.
async fn create_internal_topics(
    broker: &Broker,
    session: &strand_security::Session,
    topics: &[InternalTopic],
) -> Option<String> {
    let request = CreateTopicsRequest {
        topics: topics
            .iter()
            .map(|topic| CreatableTopic {
                name: topic.name.clone(),
                num_partitions: topic.partitions,
                replication_factor: topic.replication_factor,
                configs: topic
                    .configs
                    .iter()
                    .map(|(name, value)| CreatableTopicConfig {
                        name: name.clone(),
                        value: Some(value.clone()),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        timeout_ms: CREATE_TIMEOUT_MS,
        ..Default::default()
    };
    let (response, failure) =
        super::create_topics::create(broker, &request, super::create_topics::CREATE_TOPICS_VERSION, Some(session))
            .await;
    if let Some(reason) = failure {
        tracing::warn!("streams group internal topics could not be created: {reason}");
        return Some(reason);
    }
    let failed: Vec<String> = response
        .topics
        .iter()
        .filter(|t| t.error_code != 0 && t.error_code != ErrorCode::TopicAlreadyExists.code())
        .map(|t| {
            let error = ErrorCode::from_code(t.error_code).map_or("UNKNOWN", |e| e.name());
            format!("{} ({error})", t.name)
        })
        .collect();
    if failed.is_empty() {
        return None;
    }
    tracing::warn!(topics = ?failed, "streams group internal topics could not be created");
    Some(format!("Creating internal topics failed: {}.", failed.join(", ")))
}

pub(crate) async fn describe(
    broker: &Broker,
    client: &Client<'_>,
    request: StreamsGroupDescribeRequest,
) -> StreamsGroupDescribeResponse {
    if !streams_groups_enabled(broker) {
        let groups = request
            .group_ids
            .iter()
            .map(|id| DescribedGroup {
                group_id: id.clone(),
                error_code: ErrorCode::UnsupportedVersion.code(),
                ..DescribedGroup::default()
            })
            .collect();
        return StreamsGroupDescribeResponse { groups, ..StreamsGroupDescribeResponse::default() };
    }
    let session = client.session;
    let allowed: Vec<bool> = request
        .group_ids
        .iter()
        .map(|id| broker.authorize(session, AclOperation::Describe, ResourceType::Group, id))
        .collect();
    let asked: Vec<String> =
        request.group_ids.iter().zip(&allowed).filter(|(_, ok)| **ok).map(|(id, _)| id.clone()).collect();
    let include_operations = request.include_authorized_operations;
    let described =
        broker.groups.streams_group_describe(StreamsGroupDescribeRequest { group_ids: asked, ..request.clone() }).await;
    let mut answered = described.groups.into_iter();
    let groups = request
        .group_ids
        .iter()
        .zip(allowed)
        .map(|(id, ok)| {
            if !ok {
                return DescribedGroup {
                    group_id: id.clone(),
                    error_code: ErrorCode::GroupAuthorizationFailed.code(),
                    ..DescribedGroup::default()
                };
            }
            let mut group = answered.next().unwrap_or_else(|| DescribedGroup {
                group_id: id.clone(),
                error_code: ErrorCode::UnknownServerError.code(),
                ..DescribedGroup::default()
            });
            group.authorized_operations = if include_operations {
                broker.authorized_operations(session, ResourceType::Group, id)
            } else {
                OPERATIONS_NOT_ASKED
            };
            group
        })
        .collect();
    StreamsGroupDescribeResponse { groups, ..StreamsGroupDescribeResponse::default() }
}
