//! ShareGroupHeartbeat and ShareGroupDescribe (KIP-932): share groups' membership, served by the
//! node that coordinates the group id (the leader of its `__consumer_offsets` partition, as for
//! consumer groups) from the in-memory [`strand_coordinator::share::ShareGroups`].
//!
//! Checks in Kafka's order: `share.version` below 1 refuses both with UNSUPPORTED_VERSION; a
//! heartbeat needs READ on the group (GROUP_AUTHORIZATION_FAILED) and DESCRIBE on the topics it
//! names (TOPIC_AUTHORIZATION_FAILED); a describe needs DESCRIBE on each group. The group
//! coordinator is asked about the id first: NOT_COORDINATOR (and its other errors) come from it,
//! and an id a consumer or classic group holds is GROUP_ID_NOT_FOUND ("not a share group").
//! ListGroups lists share groups too ([`listed`]).

use strand_coordinator::share::{Heartbeat, HeartbeatError};
use strand_metadata::image::SHARE_VERSION;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::list_groups_response::ListedGroup;
use strand_protocol::messages::share_group_describe_response::{
    Assignment as DescribedAssignment, DescribedGroup, Member, TopicPartitions as DescribedTopicPartitions,
};
use strand_protocol::messages::share_group_heartbeat_response::{Assignment, TopicPartitions};
use strand_protocol::messages::{
    ListGroupsRequest, ShareGroupDescribeRequest, ShareGroupDescribeResponse, ShareGroupHeartbeatRequest,
    ShareGroupHeartbeatResponse,
};
use strand_security::acl::{AclOperation, ResourceType};

use crate::Broker;
use crate::dispatch::Client;

/// Share groups' protocol and group type in ListGroups.
const SHARE: &str = "share";
/// The assignor share groups use.
const ASSIGNOR: &str = "simple";
/// `authorized_operations` when not asked for (Kafka's `Integer.MIN_VALUE`).
const OPERATIONS_NOT_ASKED: i32 = i32::MIN;

/// Whether the finalized `share.version` enables share groups.
pub(crate) fn share_groups_enabled(broker: &Broker) -> bool {
    broker.image().features().level(SHARE_VERSION) >= 1
}

pub(crate) async fn heartbeat(
    broker: &Broker,
    client: &Client<'_>,
    request: ShareGroupHeartbeatRequest,
) -> ShareGroupHeartbeatResponse {
    let refused = |code: ErrorCode, message: Option<String>| ShareGroupHeartbeatResponse {
        error_code: code.code(),
        error_message: message,
        ..ShareGroupHeartbeatResponse::default()
    };
    if !share_groups_enabled(broker) {
        return refused(ErrorCode::UnsupportedVersion, None);
    }
    if !broker.authorize(client.session, AclOperation::Read, ResourceType::Group, &request.group_id) {
        return refused(ErrorCode::GroupAuthorizationFailed, None);
    }
    if let Some(names) = request.subscribed_topic_names.as_ref().filter(|names| !names.is_empty()) {
        let names = names.iter().map(String::as_str);
        let describable =
            broker.authorized_names(client.session, AclOperation::Describe, ResourceType::Topic, names.clone());
        if names.into_iter().any(|name| !describable.contains(name)) {
            return refused(ErrorCode::TopicAuthorizationFailed, None);
        }
    }
    if let Err((code, message)) = coordinated_here(broker, &request.group_id).await {
        return refused(code, message);
    }
    let image = broker.image();
    let partitions =
        |topic: &str| image.topics().by_name(topic).map(|t| i32::try_from(t.partitions.len()).unwrap_or(i32::MAX));
    let info = super::groups::client(client.id, client.peer);
    let heartbeat = Heartbeat {
        group_id: request.group_id,
        member_id: request.member_id.clone(),
        member_epoch: request.member_epoch,
        rack_id: request.rack_id,
        subscribed_topic_names: request.subscribed_topic_names,
        client_id: info.client_id,
        client_host: info.client_host,
    };
    crate::share::hydrate(broker, &heartbeat.group_id).await;
    let now_ms = broker.clock.now_ms();
    let group_id = heartbeat.group_id.clone();
    let (answer, changed, heartbeat_interval_ms) = {
        let mut groups = broker.share.groups();
        let before = groups.persisted(&group_id);
        let answer = groups.heartbeat(heartbeat, &partitions, now_ms);
        (answer, groups.persisted(&group_id) != before, groups.config().heartbeat_interval_ms)
    };
    if changed && let Err(code) = crate::share::save(broker, &group_id).await {
        return refused(code, None);
    }
    match answer {
        Ok(answer) => ShareGroupHeartbeatResponse {
            member_id: Some(request.member_id),
            member_epoch: answer.member_epoch,
            heartbeat_interval_ms,
            assignment: answer.assignment.map(|topics| Assignment {
                topic_partitions: topics
                    .into_iter()
                    .filter_map(|(name, partitions)| {
                        let topic_id = image.topics().by_name(&name)?.id;
                        Some(TopicPartitions { topic_id, partitions, ..Default::default() })
                    })
                    .collect(),
                ..Default::default()
            }),
            ..ShareGroupHeartbeatResponse::default()
        },
        Err(HeartbeatError::Invalid(message)) => refused(ErrorCode::InvalidRequest, Some(message.to_owned())),
        Err(HeartbeatError::UnknownMember) => {
            refused(ErrorCode::UnknownMemberId, Some(format!("Member {} is not a member of group.", request.member_id)))
        }
        Err(HeartbeatError::Fenced) => refused(ErrorCode::FencedMemberEpoch, None),
        Err(HeartbeatError::Full) => refused(ErrorCode::GroupMaxSizeReached, None),
    }
}

/// Asks the group coordinator about `group_id`: an error if this node does not coordinate it or
/// a classic, consumer or streams group holds the id.
pub(crate) async fn coordinated_here(broker: &Broker, group_id: &str) -> Result<(), (ErrorCode, Option<String>)> {
    match broker.groups.holds_group(group_id).await {
        Ok(false) => Ok(()),
        Ok(true) => Err((ErrorCode::GroupIdNotFound, Some(format!("Group {group_id} is not a share group.")))),
        Err(code) => Err((code, None)),
    }
}

/// The share groups as ListGroups lists them (protocol and group type `share`), within the
/// request's state and type filters (case-insensitive, as Kafka compares them).
pub(crate) fn listed(broker: &Broker, request: &ListGroupsRequest) -> Vec<ListedGroup> {
    let wanted =
        |filter: &[String], value: &str| filter.is_empty() || filter.iter().any(|f| f.eq_ignore_ascii_case(value));
    if !share_groups_enabled(broker) || !wanted(&request.types_filter, SHARE) {
        return Vec::new();
    }
    let image = broker.image();
    let partitions =
        |topic: &str| image.topics().by_name(topic).map(|t| i32::try_from(t.partitions.len()).unwrap_or(i32::MAX));
    let groups = broker.share.groups().list(&partitions, broker.clock.now_ms());
    groups
        .into_iter()
        .filter(|(_, state)| wanted(&request.states_filter, state))
        .map(|(group_id, state)| ListedGroup {
            group_id,
            protocol_type: SHARE.to_owned(),
            group_state: state.to_owned(),
            group_type: SHARE.to_owned(),
            ..Default::default()
        })
        .collect()
}

pub(crate) async fn describe(
    broker: &Broker,
    client: &Client<'_>,
    request: ShareGroupDescribeRequest,
) -> ShareGroupDescribeResponse {
    let mut groups = Vec::with_capacity(request.group_ids.len());
    for group_id in request.group_ids {
        let failed = |code: ErrorCode, message: Option<String>| DescribedGroup {
            group_id: group_id.clone(),
            error_code: code.code(),
            error_message: message,
            authorized_operations: OPERATIONS_NOT_ASKED,
            ..Default::default()
        };
        if !share_groups_enabled(broker) {
            groups.push(failed(ErrorCode::UnsupportedVersion, None));
            continue;
        }
        if !broker.authorize(client.session, AclOperation::Describe, ResourceType::Group, &group_id) {
            groups.push(failed(ErrorCode::GroupAuthorizationFailed, None));
            continue;
        }
        match coordinated_here(broker, &group_id).await {
            Err((ErrorCode::GroupIdNotFound, message)) => {
                groups.push(failed(ErrorCode::GroupIdNotFound, message));
                continue;
            }
            Err((code, message)) => {
                groups.push(failed(code, message));
                continue;
            }
            Ok(()) => {}
        }
        crate::share::hydrate(broker, &group_id).await;
        let mut described = describe_one(broker, &group_id)
            .unwrap_or_else(|| failed(ErrorCode::GroupIdNotFound, Some(format!("Group {group_id} not found."))));
        if request.include_authorized_operations && described.error_code == 0 {
            described.authorized_operations =
                broker.authorized_operations(client.session, ResourceType::Group, &group_id);
        }
        groups.push(described);
    }
    ShareGroupDescribeResponse { groups, ..Default::default() }
}

/// The share group as ShareGroupDescribe reports it; `None` if there is none.
fn describe_one(broker: &Broker, group_id: &str) -> Option<DescribedGroup> {
    let image = broker.image();
    let partitions =
        |topic: &str| image.topics().by_name(topic).map(|t| i32::try_from(t.partitions.len()).unwrap_or(i32::MAX));
    let now_ms = broker.clock.now_ms();
    let mut groups = broker.share.groups();
    let group = groups.group(group_id, &partitions, now_ms)?;
    let members = group
        .members
        .values()
        .map(|m| Member {
            member_id: m.member_id.clone(),
            rack_id: m.rack_id.clone(),
            member_epoch: m.member_epoch,
            client_id: m.client_id.clone(),
            client_host: m.client_host.clone(),
            subscribed_topic_names: m.subscribed_topic_names.clone(),
            assignment: DescribedAssignment {
                topic_partitions: m
                    .assignment
                    .iter()
                    .filter_map(|(name, partitions)| {
                        Some(DescribedTopicPartitions {
                            topic_id: image.topics().by_name(name)?.id,
                            topic_name: name.clone(),
                            partitions: partitions.clone(),
                            ..Default::default()
                        })
                    })
                    .collect(),
                ..Default::default()
            },
            ..Default::default()
        })
        .collect();
    Some(DescribedGroup {
        group_id: group_id.to_owned(),
        group_state: group.state().to_owned(),
        group_epoch: group.group_epoch,
        assignment_epoch: group.assignment_epoch,
        assignor_name: ASSIGNOR.to_owned(),
        members,
        authorized_operations: OPERATIONS_NOT_ASKED,
        ..Default::default()
    })
}
