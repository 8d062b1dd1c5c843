//! The share-group offsets admin APIs (KIP-932), served by the group's coordinator:
//! DescribeShareGroupOffsets, AlterShareGroupOffsets, DeleteShareGroupOffsets, and DeleteGroups of
//! a share group (`delete_group`, which `groups::delete_groups` calls for ids only a share group
//! holds). The offsets are the share-partitions' state at the share coordinator, reached through
//! the broker's [`crate::SharePersister`]: a describe reads each state's summary (start offset;
//! lag = the log's end - the start offset - the records above it already delivered for good,
//! -1 where this node does not lead the partition), an alter initializes the state at the new
//! start offset with the next state epoch, a delete removes it. Alter, delete and DeleteGroups
//! need the group empty (NON_EMPTY_GROUP), and drop this node's copy of each share-partition
//! so that its next fetch starts from the new state (a leader on another node finds out when its
//! next write is fenced).
//!
//! A describe without topics covers the partitions the group has state for (every partition
//! ever assigned to it or reset; `ShareGroup::initialized`). Checks: DESCRIBE (describe), READ
//! (alter) or DELETE (delete) on the group, GROUP_AUTHORIZATION_FAILED; DESCRIBE (describe) or
//! READ on each topic, TOPIC_AUTHORIZATION_FAILED; an id a consumer group holds, or one never
//! used, is GROUP_ID_NOT_FOUND, and NOT_COORDINATOR comes from the group coordinator.

use std::collections::{BTreeMap, BTreeSet};

use strand_base::TopicPartition;
use strand_base::topic::SHARE_GROUP_STATE_TOPIC;
use strand_coordinator::share::state::ShareKey;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_share_group_offsets_response::{
    AlterShareGroupOffsetsResponsePartition, AlterShareGroupOffsetsResponseTopic,
};
use strand_protocol::messages::delete_groups_response::DeletableGroupResult;
use strand_protocol::messages::delete_share_group_offsets_response::DeleteShareGroupOffsetsResponseTopic;
use strand_protocol::messages::describe_share_group_offsets_response::{
    DescribeShareGroupOffsetsResponseGroup, DescribeShareGroupOffsetsResponsePartition,
    DescribeShareGroupOffsetsResponseTopic,
};
use strand_protocol::messages::{
    AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse, DeleteShareGroupOffsetsRequest,
    DeleteShareGroupOffsetsResponse, DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse,
};
use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use super::share_groups::{coordinated_here, share_groups_enabled};
use crate::Broker;

/// A start offset or lag not known.
const UNKNOWN: i64 = -1;

/// The request-level checks: share groups on, the group authorized and coordinated here.
async fn check(broker: &Broker, session: &Session, group_id: &str, operation: AclOperation) -> Result<(), ErrorCode> {
    if !share_groups_enabled(broker) {
        return Err(ErrorCode::UnsupportedVersion);
    }
    if !broker.authorize(session, operation, ResourceType::Group, group_id) {
        return Err(ErrorCode::GroupAuthorizationFailed);
    }
    coordinated_here(broker, group_id).await.map_err(|(code, _)| code)?;
    if broker.share_persister.is_none() {
        return Err(ErrorCode::CoordinatorNotAvailable);
    }
    crate::share::hydrate(broker, group_id).await;
    Ok(())
}

/// The group must exist and have no members.
fn check_empty(broker: &Broker, group_id: &str) -> Result<(), ErrorCode> {
    match broker.share.groups().is_empty_group(group_id) {
        None => Err(ErrorCode::GroupIdNotFound),
        Some(false) => Err(ErrorCode::NonEmptyGroup),
        Some(true) => Ok(()),
    }
}

pub(crate) async fn describe(
    broker: &Broker,
    request: DescribeShareGroupOffsetsRequest,
    session: &Session,
) -> DescribeShareGroupOffsetsResponse {
    let mut groups = Vec::with_capacity(request.groups.len());
    for group in request.groups {
        let group_id = group.group_id;
        let failed = |code: ErrorCode| DescribeShareGroupOffsetsResponseGroup {
            group_id: group_id.clone(),
            error_code: code.code(),
            error_message: Some(code.message().to_owned()),
            ..Default::default()
        };
        if let Err(code) = check(broker, session, &group_id, AclOperation::Describe).await {
            groups.push(failed(code));
            continue;
        }
        let wanted: BTreeMap<String, BTreeSet<i32>> = match group.topics {
            Some(topics) => topics.into_iter().map(|t| (t.topic_name, t.partitions.into_iter().collect())).collect(),
            None if broker.share.groups().is_empty_group(&group_id).is_none() => {
                groups.push(failed(ErrorCode::GroupIdNotFound));
                continue;
            }
            None => broker.share.groups().initialized(&group_id),
        };
        let mut topics = Vec::with_capacity(wanted.len());
        for (topic_name, partitions) in wanted {
            let topic_id = broker.image().topics().by_name(&topic_name).map(|t| t.id).unwrap_or_default();
            let allowed = broker.authorize(session, AclOperation::Describe, ResourceType::Topic, &topic_name);
            let mut answers = Vec::with_capacity(partitions.len());
            for partition in partitions {
                let mut answer = DescribeShareGroupOffsetsResponsePartition {
                    partition_index: partition,
                    start_offset: UNKNOWN,
                    leader_epoch: -1,
                    lag: UNKNOWN,
                    ..Default::default()
                };
                let code = if !allowed {
                    ErrorCode::TopicAuthorizationFailed
                } else if topic_id == strand_base::Uuid::ZERO {
                    ErrorCode::UnknownTopicOrPartition
                } else {
                    let key = ShareKey { group_id: group_id.clone(), topic_id, partition };
                    match summary(broker, key).await {
                        Ok(Some(state)) => {
                            answer.start_offset = state.start_offset;
                            answer.leader_epoch = state.leader_epoch;
                            let tp = TopicPartition::new(topic_name.clone(), partition);
                            if let (Ok(offsets), true) =
                                (broker.replicas.offsets(&tp), state.delivery_complete_count >= 0)
                            {
                                answer.lag =
                                    (offsets.high_watermark - state.start_offset - state.delivery_complete_count)
                                        .max(0);
                            }
                            ErrorCode::None
                        }
                        Ok(None) => ErrorCode::None,
                        Err(code) => code,
                    }
                };
                if code != ErrorCode::None {
                    answer.error_code = code.code();
                    answer.error_message = Some(code.message().to_owned());
                }
                answers.push(answer);
            }
            topics.push(DescribeShareGroupOffsetsResponseTopic {
                topic_name,
                topic_id,
                partitions: answers,
                ..Default::default()
            });
        }
        groups.push(DescribeShareGroupOffsetsResponseGroup { group_id, topics, ..Default::default() });
    }
    DescribeShareGroupOffsetsResponse { groups, ..Default::default() }
}

/// The state's summary, `None` if it has none (or `__share_group_state` does not exist yet).
async fn summary(
    broker: &Broker,
    key: ShareKey,
) -> Result<Option<strand_coordinator::share::state::StateSummary>, ErrorCode> {
    let Some(persister) = broker.share_persister.clone() else { return Err(ErrorCode::CoordinatorNotAvailable) };
    if broker.image().topics().by_name(SHARE_GROUP_STATE_TOPIC).is_none() {
        return Ok(None);
    }
    persister.summary(key).await
}

pub(crate) async fn alter(
    broker: &Broker,
    request: AlterShareGroupOffsetsRequest,
    session: &Session,
) -> AlterShareGroupOffsetsResponse {
    let group_id = request.group_id;
    let refused = |code: ErrorCode| AlterShareGroupOffsetsResponse {
        error_code: code.code(),
        error_message: Some(code.message().to_owned()),
        ..Default::default()
    };
    if let Err(code) = check(broker, session, &group_id, AclOperation::Read).await {
        return refused(code);
    }
    match check_empty(broker, &group_id) {
        Ok(()) | Err(ErrorCode::GroupIdNotFound) => {}
        Err(code) => return refused(code),
    }
    if super::find_coordinator::ensure_internal_topic(broker, SHARE_GROUP_STATE_TOPIC).await.is_none() {
        return refused(ErrorCode::CoordinatorNotAvailable);
    }
    let Some(persister) = broker.share_persister.clone() else { return refused(ErrorCode::CoordinatorNotAvailable) };
    let mut responses = Vec::with_capacity(request.topics.len());
    for topic in request.topics {
        let image = broker.image();
        let topic_image = image.topics().by_name(&topic.topic_name);
        let topic_id = topic_image.map(|t| t.id).unwrap_or_default();
        let allowed = broker.authorize(session, AclOperation::Read, ResourceType::Topic, &topic.topic_name);
        let mut partitions = Vec::with_capacity(topic.partitions.len());
        let mut done = Vec::new();
        for p in topic.partitions {
            let code = if !allowed {
                ErrorCode::TopicAuthorizationFailed
            } else if !topic_image.is_some_and(|t| t.partitions.contains_key(&p.partition_index)) {
                ErrorCode::UnknownTopicOrPartition
            } else {
                let key = ShareKey { group_id: group_id.clone(), topic_id, partition: p.partition_index };
                let result = match persister.summary(key.clone()).await {
                    Ok(current) => {
                        let state_epoch = current.map_or(0, |s| s.state_epoch.saturating_add(1));
                        persister.initialize(key, state_epoch, p.start_offset).await
                    }
                    Err(code) => Err(code),
                };
                match result {
                    Ok(()) => {
                        crate::share::forget(
                            broker,
                            &group_id,
                            &TopicPartition::new(topic.topic_name.clone(), p.partition_index),
                        );
                        done.push(p.partition_index);
                        ErrorCode::None
                    }
                    Err(code) => code,
                }
            };
            partitions.push(AlterShareGroupOffsetsResponsePartition {
                partition_index: p.partition_index,
                error_code: code.code(),
                error_message: (code != ErrorCode::None).then(|| code.message().to_owned()),
                ..Default::default()
            });
        }
        if !done.is_empty() {
            broker.share.groups().mark_initialized(&group_id, &topic.topic_name, &done);
            if let Err(code) = crate::share::save(broker, &group_id).await {
                for partition in partitions.iter_mut().filter(|p| p.error_code == 0) {
                    partition.error_code = code.code();
                    partition.error_message = Some(code.message().to_owned());
                }
            }
        }
        responses.push(AlterShareGroupOffsetsResponseTopic {
            topic_name: topic.topic_name,
            topic_id,
            partitions,
            ..Default::default()
        });
    }
    AlterShareGroupOffsetsResponse { responses, ..Default::default() }
}

pub(crate) async fn delete(
    broker: &Broker,
    request: DeleteShareGroupOffsetsRequest,
    session: &Session,
) -> DeleteShareGroupOffsetsResponse {
    let group_id = request.group_id;
    let refused = |code: ErrorCode| DeleteShareGroupOffsetsResponse {
        error_code: code.code(),
        error_message: Some(code.message().to_owned()),
        ..Default::default()
    };
    if let Err(code) = check(broker, session, &group_id, AclOperation::Delete).await {
        return refused(code);
    }
    if let Err(code) = check_empty(broker, &group_id) {
        return refused(code);
    }
    let initialized = broker.share.groups().initialized(&group_id);
    let mut responses = Vec::with_capacity(request.topics.len());
    for topic in request.topics {
        let topic_id = broker.image().topics().by_name(&topic.topic_name).map(|t| t.id).unwrap_or_default();
        let code = if !broker.authorize(session, AclOperation::Read, ResourceType::Topic, &topic.topic_name) {
            ErrorCode::TopicAuthorizationFailed
        } else if topic_id == strand_base::Uuid::ZERO {
            ErrorCode::UnknownTopicOrPartition
        } else {
            let partitions = initialized.get(&topic.topic_name).cloned().unwrap_or_default();
            match delete_states(broker, &group_id, &topic.topic_name, topic_id, &partitions).await {
                Ok(()) => {
                    broker.share.groups().forget_initialized(&group_id, &topic.topic_name);
                    crate::share::save(broker, &group_id).await.err().unwrap_or(ErrorCode::None)
                }
                Err(code) => code,
            }
        };
        responses.push(DeleteShareGroupOffsetsResponseTopic {
            topic_name: topic.topic_name,
            topic_id,
            error_code: code.code(),
            error_message: (code != ErrorCode::None).then(|| code.message().to_owned()),
            ..Default::default()
        });
    }
    DeleteShareGroupOffsetsResponse { responses, ..Default::default() }
}

/// Deletes the state of `group_id`'s share-partitions of `topic` (`partitions`), forgetting
/// this node's copies.
async fn delete_states(
    broker: &Broker,
    group_id: &str,
    topic: &str,
    topic_id: strand_base::Uuid,
    partitions: &BTreeSet<i32>,
) -> Result<(), ErrorCode> {
    let Some(persister) = broker.share_persister.clone() else { return Err(ErrorCode::CoordinatorNotAvailable) };
    if broker.image().topics().by_name(SHARE_GROUP_STATE_TOPIC).is_none() {
        return Ok(());
    }
    for &partition in partitions {
        persister.delete(ShareKey { group_id: group_id.to_owned(), topic_id, partition }).await?;
        crate::share::forget(broker, group_id, &TopicPartition::new(topic, partition));
    }
    Ok(())
}

/// DeleteGroups of a share group `group_id` (already authorized): its share-partitions' state
/// deleted, then the group; `None` if no share group has the id.
pub(crate) async fn delete_group(broker: &Broker, group_id: &str) -> Option<DeletableGroupResult> {
    let result = |code: ErrorCode| DeletableGroupResult {
        group_id: group_id.to_owned(),
        error_code: code.code(),
        ..Default::default()
    };
    crate::share::hydrate(broker, group_id).await;
    match check_empty(broker, group_id) {
        Err(ErrorCode::GroupIdNotFound) => return None,
        Err(code) => return Some(result(code)),
        Ok(()) => {}
    }
    let initialized = broker.share.groups().initialized(group_id);
    for (topic, partitions) in initialized {
        let Some(topic_id) = broker.image().topics().by_name(&topic).map(|t| t.id) else { continue };
        if let Err(code) = delete_states(broker, group_id, &topic, topic_id, &partitions).await {
            return Some(result(code));
        }
    }
    broker.share.groups().remove(group_id);
    Some(result(crate::share::save(broker, group_id).await.err().unwrap_or(ErrorCode::None)))
}
