//! The group offset APIs, checked here before and around the group coordinator (which never sees
//! a session), as Kafka's `KafkaApis` checks them:
//! - OffsetCommit: READ on the group (every partition GROUP_AUTHORIZATION_FAILED), then READ on
//!   each topic (its partitions TOPIC_AUTHORIZATION_FAILED); with no topic left the coordinator
//!   is not asked.
//! - OffsetFetch: DESCRIBE on each group (GROUP_AUTHORIZATION_FAILED for that group), then
//!   DESCRIBE on each topic: named ones answer TOPIC_AUTHORIZATION_FAILED after the group's
//!   other topics; a request for all of a group's offsets leaves the others out.
//! - OffsetDelete: DELETE on the group (GROUP_AUTHORIZATION_FAILED), READ on each topic.
//!
//! Topics named by id (v10 of OffsetCommit and OffsetFetch) are asked about by their name; an id
//! of no topic goes on to the coordinator, which answers UNKNOWN_TOPIC_ID.

use std::collections::BTreeSet;

use strand_base::Uuid;
use strand_metadata::image::MetadataImage;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::offset_commit_response::{OffsetCommitResponsePartition, OffsetCommitResponseTopic};
use strand_protocol::messages::offset_delete_response::{OffsetDeleteResponsePartition, OffsetDeleteResponseTopic};
use strand_protocol::messages::offset_fetch_request::{OffsetFetchRequestGroup, OffsetFetchRequestTopics};
use strand_protocol::messages::offset_fetch_response::{
    OffsetFetchResponseGroup, OffsetFetchResponsePartition, OffsetFetchResponsePartitions, OffsetFetchResponseTopic,
    OffsetFetchResponseTopics,
};
use strand_protocol::messages::{
    OffsetCommitRequest, OffsetCommitResponse, OffsetDeleteRequest, OffsetDeleteResponse, OffsetFetchRequest,
    OffsetFetchResponse,
};
use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use super::groups::ImageTopics;
use crate::Broker;

/// The first OffsetCommit and OffsetFetch version naming topics by id.
const TOPIC_ID_VERSION: i16 = 10;
/// The first OffsetFetch version asking for several groups.
const GROUPS_VERSION: i16 = 8;
/// The first OffsetFetch version with a top-level error.
const TOP_LEVEL_ERROR_VERSION: i16 = 2;
/// "No committed offset".
const NO_OFFSET: i64 = -1;

const GROUP_DENIED: ErrorCode = ErrorCode::GroupAuthorizationFailed;
const TOPIC_DENIED: ErrorCode = ErrorCode::TopicAuthorizationFailed;

/// The name a topic is asked about: its id's topic from v10 (none for an id of no topic).
fn topic_name<'a>(image: &'a MetadataImage, name: &'a str, id: Uuid, version: i16) -> Option<&'a str> {
    if version >= TOPIC_ID_VERSION { image.topics().by_id(id).map(|t| t.name.as_str()) } else { Some(name) }
}

/// Per topic, whether the session may do `operation` on it (topics of unknown ids: yes).
fn topic_mask<'a>(
    broker: &Broker,
    session: &Session,
    operation: AclOperation,
    names: impl Iterator<Item = Option<&'a str>> + Clone,
) -> Vec<bool> {
    let allowed = broker.authorized_names(session, operation, ResourceType::Topic, names.clone().flatten());
    names.map(|name| name.is_none_or(|name| allowed.contains(name))).collect()
}

fn partition_error(partition_index: i32, code: ErrorCode) -> OffsetCommitResponsePartition {
    OffsetCommitResponsePartition { partition_index, error_code: code.code(), ..Default::default() }
}

pub(crate) async fn offset_commit(
    broker: &Broker,
    session: &Session,
    request: OffsetCommitRequest,
    version: i16,
) -> OffsetCommitResponse {
    let refused = |topic: &strand_protocol::messages::offset_commit_request::OffsetCommitRequestTopic, code| {
        OffsetCommitResponseTopic {
            name: topic.name.clone(),
            topic_id: topic.topic_id,
            partitions: topic.partitions.iter().map(|p| partition_error(p.partition_index, code)).collect(),
            ..Default::default()
        }
    };
    if !broker.authorize(session, AclOperation::Read, ResourceType::Group, &request.group_id) {
        let topics = request.topics.iter().map(|t| refused(t, GROUP_DENIED)).collect();
        return OffsetCommitResponse { topics, ..Default::default() };
    }
    let image = broker.image();
    let names = request.topics.iter().map(|t| topic_name(&image, &t.name, t.topic_id, version));
    let mask = topic_mask(broker, session, AclOperation::Read, names);
    let refusals: Vec<_> = request.topics.iter().map(|t| refused(t, TOPIC_DENIED)).collect();
    let mut allowed = request;
    let mut keep = mask.iter();
    allowed.topics.retain(|_| keep.next().copied().unwrap_or(false));
    let answered = if allowed.topics.is_empty() {
        Vec::new()
    } else {
        broker.groups.offset_commit(allowed, version, &ImageTopics(image)).await.topics
    };
    let mut answered = answered.into_iter();
    let topics =
        (mask.iter().zip(refusals)).filter_map(|(&ok, refusal)| if ok { answered.next() } else { Some(refusal) });
    OffsetCommitResponse { topics: topics.collect(), ..Default::default() }
}

pub(crate) async fn offset_delete(
    broker: &Broker,
    session: &Session,
    request: OffsetDeleteRequest,
    version: i16,
) -> OffsetDeleteResponse {
    if !broker.authorize(session, AclOperation::Delete, ResourceType::Group, &request.group_id) {
        return OffsetDeleteResponse { error_code: GROUP_DENIED.code(), ..Default::default() };
    }
    let mask = topic_mask(broker, session, AclOperation::Read, request.topics.iter().map(|t| Some(t.name.as_str())));
    let refused: Vec<OffsetDeleteResponseTopic> = (request.topics.iter().zip(&mask))
        .filter(|(_, ok)| !**ok)
        .map(|(topic, _)| OffsetDeleteResponseTopic {
            name: topic.name.clone(),
            partitions: (topic.partitions.iter())
                .map(|p| OffsetDeleteResponsePartition {
                    partition_index: p.partition_index,
                    error_code: TOPIC_DENIED.code(),
                })
                .collect(),
        })
        .collect();
    let mut allowed = request;
    let mut keep = mask.iter();
    allowed.topics.retain(|_| keep.next().copied().unwrap_or(false));
    // Asked even with no topic left, as Kafka does: the group's own errors come first.
    let mut response = broker.groups.offset_delete(allowed, version).await;
    if response.error_code == ErrorCode::None.code() {
        response.topics.splice(0..0, refused);
    }
    response
}

pub(crate) async fn offset_fetch(
    broker: &Broker,
    session: &Session,
    request: OffsetFetchRequest,
    version: i16,
) -> OffsetFetchResponse {
    if version >= GROUPS_VERSION {
        return offset_fetch_groups(broker, session, request, version).await;
    }
    let refused_group = !broker.authorize(session, AclOperation::Describe, ResourceType::Group, &request.group_id);
    if refused_group {
        return single_group_refused(&request, version);
    }
    let image = broker.image();
    let requested = request.topics.clone();
    let mut allowed = request;
    let mut denied = Vec::new();
    if let Some(topics) = allowed.topics.as_mut() {
        let mask = topic_mask(broker, session, AclOperation::Describe, topics.iter().map(|t| Some(t.name.as_str())));
        let mut keep = mask.iter();
        topics.retain(|_| keep.next().copied().unwrap_or(false));
        denied = (requested.iter().flatten().zip(mask)).filter(|(_, ok)| !ok).map(|(t, _)| t.clone()).collect();
    }
    let mut response = broker.groups.offset_fetch(allowed, version, &ImageTopics(image)).await;
    if response.error_code != ErrorCode::None.code() {
        return response;
    }
    if requested.is_none() {
        let names = response.topics.iter().map(|t| t.name.as_str());
        let visible = broker.authorized_names(session, AclOperation::Describe, ResourceType::Topic, names);
        response.topics.retain(|t| visible.contains(&t.name));
    }
    response.topics.extend(denied.into_iter().map(|topic| {
        OffsetFetchResponseTopic {
            name: topic.name,
            partitions: (topic.partition_indexes.into_iter())
                .map(|partition_index| OffsetFetchResponsePartition {
                    partition_index,
                    committed_offset: NO_OFFSET,
                    error_code: TOPIC_DENIED.code(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }));
    response
}

/// A one-group OffsetFetch (v1-v7) refused its group: the top-level error from v2, each
/// requested partition's before.
fn single_group_refused(request: &OffsetFetchRequest, version: i16) -> OffsetFetchResponse {
    if version >= TOP_LEVEL_ERROR_VERSION {
        return OffsetFetchResponse { error_code: GROUP_DENIED.code(), ..Default::default() };
    }
    let topics = (request.topics.iter().flatten())
        .map(|topic| OffsetFetchResponseTopic {
            name: topic.name.clone(),
            partitions: (topic.partition_indexes.iter())
                .map(|&partition_index| OffsetFetchResponsePartition {
                    partition_index,
                    committed_offset: NO_OFFSET,
                    error_code: GROUP_DENIED.code(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    OffsetFetchResponse { topics, ..Default::default() }
}

/// OffsetFetch v8+: each group checked on its own; refused groups are not asked about.
async fn offset_fetch_groups(
    broker: &Broker,
    session: &Session,
    request: OffsetFetchRequest,
    version: i16,
) -> OffsetFetchResponse {
    let image = broker.image();
    let mut plans = Vec::with_capacity(request.groups.len());
    let mut allowed = Vec::new();
    for group in &request.groups {
        if !broker.authorize(session, AclOperation::Describe, ResourceType::Group, &group.group_id) {
            plans.push(None);
            continue;
        }
        let (asked, denied) = split_topics(broker, session, &image, group, version);
        plans.push(Some((denied, group.topics.is_none())));
        allowed.push(asked);
    }
    let answered = if allowed.is_empty() {
        Vec::new()
    } else {
        let asked = OffsetFetchRequest { groups: allowed, ..request.clone() };
        broker.groups.offset_fetch(asked, version, &ImageTopics(image)).await.groups
    };
    let mut answered = answered.into_iter();
    let mut groups = Vec::with_capacity(plans.len());
    for (group, plan) in request.groups.iter().zip(plans) {
        let Some((denied, all_topics)) = plan else {
            groups.push(OffsetFetchResponseGroup {
                group_id: group.group_id.clone(),
                error_code: GROUP_DENIED.code(),
                ..Default::default()
            });
            continue;
        };
        let Some(mut fetched) = answered.next() else { continue };
        if fetched.error_code == ErrorCode::None.code() {
            if all_topics {
                let names = fetched.topics.iter().map(|t| t.name.as_str());
                let visible: BTreeSet<String> =
                    broker.authorized_names(session, AclOperation::Describe, ResourceType::Topic, names);
                fetched.topics.retain(|t| visible.contains(&t.name));
            }
            fetched.topics.extend(denied.into_iter().map(refused_topic));
        }
        groups.push(fetched);
    }
    OffsetFetchResponse { groups, ..Default::default() }
}

/// `group` with only the topics the session may DESCRIBE, and the others.
fn split_topics(
    broker: &Broker,
    session: &Session,
    image: &MetadataImage,
    group: &OffsetFetchRequestGroup,
    version: i16,
) -> (OffsetFetchRequestGroup, Vec<OffsetFetchRequestTopics>) {
    let mut asked = group.clone();
    let Some(topics) = asked.topics.as_mut() else { return (asked, Vec::new()) };
    let names = topics.iter().map(|t| topic_name(image, &t.name, t.topic_id, version));
    let mask = topic_mask(broker, session, AclOperation::Describe, names);
    let (kept, denied): (Vec<_>, Vec<_>) = std::mem::take(topics).into_iter().zip(mask).partition(|(_, ok)| *ok);
    *topics = kept.into_iter().map(|(t, _)| t).collect();
    (asked, denied.into_iter().map(|(t, _)| t).collect())
}

fn refused_topic(topic: OffsetFetchRequestTopics) -> OffsetFetchResponseTopics {
    OffsetFetchResponseTopics {
        name: topic.name,
        topic_id: topic.topic_id,
        partitions: (topic.partition_indexes.into_iter())
            .map(|partition_index| OffsetFetchResponsePartitions {
                partition_index,
                committed_offset: NO_OFFSET,
                error_code: TOPIC_DENIED.code(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}
