//! The group APIs hand their requests to the group coordinator (`strand-coordinator`), which
//! validates, decides and answers. This module adds what only the broker knows: who the client
//! is (JoinGroup records it per member), topic ids from the metadata image (OffsetCommit and
//! OffsetFetch v10 name topics by id), and what the session may do. The coordinator never sees a
//! session: the checks run here, before it is asked (a refused group is never asked about) and
//! around its answer (refused entries merged back in request order), as Kafka's `KafkaApis` does:
//! - JoinGroup, SyncGroup, Heartbeat, LeaveGroup, ConsumerGroupHeartbeat: READ on the group
//!   (GROUP_AUTHORIZATION_FAILED for the request); a ConsumerGroupHeartbeat naming topics needs
//!   DESCRIBE on all of them (TOPIC_AUTHORIZATION_FAILED).
//! - DescribeGroups, ConsumerGroupDescribe: DESCRIBE on each group (GROUP_AUTHORIZATION_FAILED
//!   for that group); `include_authorized_operations` reports the session's operations.
//! - ListGroups: all groups with DESCRIBE on the cluster, else those the session may DESCRIBE;
//!   share groups (`share_groups.rs`) after the coordinator's groups.
//! - DeleteGroups: DELETE on each group, each distinct name answered once.
//!
//! An id a share group holds (`share.rs`) is refused to JoinGroup (INCONSISTENT_GROUP_PROTOCOL)
//! and ConsumerGroupHeartbeat (GROUP_ID_NOT_FOUND), as Kafka refuses them.
//!
//! ConsumerGroupHeartbeat and ConsumerGroupDescribe are refused with UNSUPPORTED_VERSION, before
//! any authorization, while the finalized `group.version` is below 1 (`kafka-features disable
//! --feature group.version`), as Kafka's `isConsumerGroupProtocolEnabled` refuses them.
//!
//! The offset APIs are in `group_offsets.rs`; FindCoordinator and TxnOffsetCommit have their own
//! modules.

use std::net::SocketAddr;
use std::sync::Arc;

use strand_base::Uuid;
use strand_coordinator::{ClientInfo, DescribableTopics, TopicIds};
use strand_metadata::image::{GROUP_VERSION, MetadataImage};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::consumer_group_describe_response::DescribedGroup as ConsumerDescribedGroup;
use strand_protocol::messages::delete_groups_response::DeletableGroupResult;
use strand_protocol::messages::describe_groups_response::DescribedGroup;
use strand_protocol::messages::{
    ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, ConsumerGroupHeartbeatRequest,
    ConsumerGroupHeartbeatResponse, DeleteGroupsRequest, DeleteGroupsResponse, DescribeGroupsRequest,
    DescribeGroupsResponse, HeartbeatRequest, HeartbeatResponse, JoinGroupRequest, JoinGroupResponse,
    LeaveGroupRequest, LeaveGroupResponse, ListGroupsRequest, ListGroupsResponse, SyncGroupRequest, SyncGroupResponse,
};
use strand_security::Session;
use strand_security::acl::{AclOperation, Action, ResourceType};

use crate::Broker;
use crate::dispatch::Client;

/// Topic names and ids from a metadata image.
pub(crate) struct ImageTopics(pub Arc<MetadataImage>);

impl TopicIds for ImageTopics {
    fn name(&self, id: Uuid) -> Option<String> {
        self.0.topics().by_id(id).map(|t| t.name.clone())
    }

    fn id(&self, name: &str) -> Option<Uuid> {
        self.0.topics().by_name(name).map(|t| t.id)
    }
}

/// The client as Kafka records a member: its client id, and its address as Java prints one.
pub(crate) fn client(client_id: Option<&str>, peer: SocketAddr) -> ClientInfo {
    let client_id = client_id.unwrap_or_default().to_owned();
    ClientInfo { client_id, client_host: format!("/{}", peer.ip()), ..ClientInfo::default() }
}

const GROUP_DENIED: i16 = ErrorCode::GroupAuthorizationFailed.code();
/// JoinGroup's "no generation" (`JoinGroupRequest.UNKNOWN_GENERATION_ID`).
const UNKNOWN_GENERATION_ID: i32 = -1;
/// The first JoinGroup version whose protocol name may be null.
const JOIN_NULL_PROTOCOL_VERSION_MIN: i16 = 7;
/// The first SyncGroup version that requires the protocol type and name.
const SYNC_PROTOCOL_VERSION_MIN: i16 = 5;
/// The first DescribeGroups version with authorized operations.
const DESCRIBE_OPERATIONS_VERSION_MIN: i16 = 3;

fn may_read_group(broker: &Broker, session: &Session, group_id: &str) -> bool {
    broker.authorize(session, AclOperation::Read, ResourceType::Group, group_id)
}

pub(crate) async fn join_group(
    broker: &Broker,
    client: &Client<'_>,
    request: JoinGroupRequest,
    version: i16,
) -> JoinGroupResponse {
    if !may_read_group(broker, client.session, &request.group_id) {
        return JoinGroupResponse {
            error_code: GROUP_DENIED,
            generation_id: UNKNOWN_GENERATION_ID,
            protocol_name: (version < JOIN_NULL_PROTOCOL_VERSION_MIN).then(String::new),
            ..JoinGroupResponse::default()
        };
    }
    if broker.share.groups().contains(&request.group_id) {
        // Kafka's `classicGroupJoin`: a share group holds the id.
        return JoinGroupResponse {
            error_code: ErrorCode::InconsistentGroupProtocol.code(),
            generation_id: UNKNOWN_GENERATION_ID,
            member_id: request.member_id,
            protocol_name: (version < JOIN_NULL_PROTOCOL_VERSION_MIN).then(String::new),
            ..JoinGroupResponse::default()
        };
    }
    broker.groups.join_group(self::client(client.id, client.peer), request, version).await
}

pub(crate) async fn sync_group(
    broker: &Broker,
    session: &Session,
    request: SyncGroupRequest,
    version: i16,
) -> SyncGroupResponse {
    // Kafka answers a v5+ request without protocol type and name INCONSISTENT_GROUP_PROTOCOL
    // before it asks anything: the coordinator does.
    let incomplete =
        version >= SYNC_PROTOCOL_VERSION_MIN && (request.protocol_type.is_none() || request.protocol_name.is_none());
    if !incomplete && !may_read_group(broker, session, &request.group_id) {
        return SyncGroupResponse { error_code: GROUP_DENIED, ..SyncGroupResponse::default() };
    }
    broker.groups.sync_group(request, version).await
}

pub(crate) async fn heartbeat(
    broker: &Broker,
    session: &Session,
    request: HeartbeatRequest,
    version: i16,
) -> HeartbeatResponse {
    if !may_read_group(broker, session, &request.group_id) {
        return HeartbeatResponse { error_code: GROUP_DENIED, ..HeartbeatResponse::default() };
    }
    broker.groups.heartbeat(request, version).await
}

pub(crate) async fn leave_group(
    broker: &Broker,
    session: &Session,
    request: LeaveGroupRequest,
    version: i16,
) -> LeaveGroupResponse {
    if !may_read_group(broker, session, &request.group_id) {
        return LeaveGroupResponse { error_code: GROUP_DENIED, ..LeaveGroupResponse::default() };
    }
    broker.groups.leave_group(request, version).await
}

pub(crate) async fn consumer_group_heartbeat(
    broker: &Broker,
    client: &Client<'_>,
    request: ConsumerGroupHeartbeatRequest,
    version: i16,
) -> ConsumerGroupHeartbeatResponse {
    let session = client.session;
    let refused = |code: ErrorCode| ConsumerGroupHeartbeatResponse {
        error_code: code.code(),
        ..ConsumerGroupHeartbeatResponse::default()
    };
    if !consumer_protocol_enabled(broker) {
        return refused(ErrorCode::UnsupportedVersion);
    }
    if !may_read_group(broker, session, &request.group_id) {
        return refused(ErrorCode::GroupAuthorizationFailed);
    }
    if let Some(names) = request.subscribed_topic_names.as_ref().filter(|names| !names.is_empty()) {
        let names = names.iter().map(String::as_str);
        let describable = broker.authorized_names(session, AclOperation::Describe, ResourceType::Topic, names.clone());
        if names.into_iter().any(|name| !describable.contains(name)) {
            return refused(ErrorCode::TopicAuthorizationFailed);
        }
    }
    if broker.share.groups().contains(&request.group_id) {
        return ConsumerGroupHeartbeatResponse {
            error_code: ErrorCode::GroupIdNotFound.code(),
            error_message: Some(format!("Group {} is not a consumer group.", request.group_id)),
            ..ConsumerGroupHeartbeatResponse::default()
        };
    }
    let mut info = self::client(client.id, client.peer);
    if let Some(authorizer) = broker.authorizer.clone() {
        let session = session.clone();
        info.describable = DescribableTopics::new(move |topic| {
            authorizer.authorize(&session, &Action::new(AclOperation::Describe, ResourceType::Topic, topic))
        });
    }
    broker.groups.consumer_group_heartbeat(info, request, version).await
}

/// Whether the finalized `group.version` enables the KIP-848 consumer protocol (level 1 and up).
fn consumer_protocol_enabled(broker: &Broker) -> bool {
    broker.image().features().level(GROUP_VERSION) >= 1
}

/// The groups of `group_ids` the session may do `operation` on, as a mask in request order.
fn allowed(broker: &Broker, session: &Session, operation: AclOperation, group_ids: &[String]) -> Vec<bool> {
    group_ids.iter().map(|id| broker.authorize(session, operation, ResourceType::Group, id)).collect()
}

/// `answered` (the coordinator's answers to the allowed entries, in order) with `refused(i)`
/// in the place of each refused entry `i`.
fn merge<T>(mask: &[bool], answered: Vec<T>, refused: impl Fn(usize) -> T) -> Vec<T> {
    let mut answered = answered.into_iter();
    let merged = mask.iter().enumerate().map(|(i, &ok)| if ok { answered.next() } else { Some(refused(i)) });
    merged.flatten().collect()
}

fn only_allowed(mask: &[bool], group_ids: Vec<String>) -> Vec<String> {
    group_ids.into_iter().zip(mask).filter(|(_, ok)| **ok).map(|(id, _)| id).collect()
}

pub(crate) async fn describe_groups(
    broker: &Broker,
    session: &Session,
    request: DescribeGroupsRequest,
    version: i16,
) -> DescribeGroupsResponse {
    let mask = allowed(broker, session, AclOperation::Describe, &request.groups);
    let operations = version >= DESCRIBE_OPERATIONS_VERSION_MIN && request.include_authorized_operations;
    let requested = request.groups.clone();
    let allowed_request = DescribeGroupsRequest { groups: only_allowed(&mask, request.groups), ..request };
    let mut response = if allowed_request.groups.is_empty() {
        DescribeGroupsResponse::default()
    } else {
        broker.groups.describe_groups(allowed_request, version).await
    };
    for group in response.groups.iter_mut().filter(|g| operations && g.error_code == 0) {
        group.authorized_operations = broker.authorized_operations(session, ResourceType::Group, &group.group_id);
    }
    let refused = |i: usize| DescribedGroup {
        error_code: GROUP_DENIED,
        group_id: requested[i].clone(),
        ..DescribedGroup::default()
    };
    response.groups = merge(&mask, response.groups, refused);
    response
}

pub(crate) async fn consumer_group_describe(
    broker: &Broker,
    session: &Session,
    request: ConsumerGroupDescribeRequest,
    version: i16,
) -> ConsumerGroupDescribeResponse {
    if !consumer_protocol_enabled(broker) {
        let unsupported = |group_id: &String| ConsumerDescribedGroup {
            error_code: ErrorCode::UnsupportedVersion.code(),
            group_id: group_id.clone(),
            ..ConsumerDescribedGroup::default()
        };
        return ConsumerGroupDescribeResponse {
            groups: request.group_ids.iter().map(unsupported).collect(),
            ..ConsumerGroupDescribeResponse::default()
        };
    }
    let mask = allowed(broker, session, AclOperation::Describe, &request.group_ids);
    let operations = request.include_authorized_operations;
    let requested = request.group_ids.clone();
    let allowed_request = ConsumerGroupDescribeRequest { group_ids: only_allowed(&mask, request.group_ids), ..request };
    let mut response = if allowed_request.group_ids.is_empty() {
        ConsumerGroupDescribeResponse::default()
    } else {
        broker.groups.consumer_group_describe(allowed_request, version).await
    };
    for group in response.groups.iter_mut().filter(|g| operations && g.error_code == 0) {
        group.authorized_operations = broker.authorized_operations(session, ResourceType::Group, &group.group_id);
    }
    let refused = |i: usize| ConsumerDescribedGroup {
        error_code: GROUP_DENIED,
        group_id: requested[i].clone(),
        ..ConsumerDescribedGroup::default()
    };
    response.groups = merge(&mask, response.groups, refused);
    response
}

pub(crate) async fn list_groups(
    broker: &Broker,
    session: &Session,
    request: ListGroupsRequest,
    version: i16,
) -> ListGroupsResponse {
    let every_group = broker.authorize_cluster(session, AclOperation::Describe);
    let share_groups = super::share_groups::listed(broker, &request);
    let mut response = broker.groups.list_groups(request, version).await;
    response.groups.extend(share_groups);
    if !every_group {
        response.groups.retain(|g| broker.authorize(session, AclOperation::Describe, ResourceType::Group, &g.group_id));
    }
    response
}

pub(crate) async fn delete_groups(
    broker: &Broker,
    session: &Session,
    mut request: DeleteGroupsRequest,
    version: i16,
) -> DeleteGroupsResponse {
    // Kafka deletes the distinct names: a repeat would otherwise find the group its first
    // mention just deleted gone, and answer GROUP_ID_NOT_FOUND for a deleted group.
    let mut seen = std::collections::HashSet::new();
    request.groups_names.retain(|id| seen.insert(id.clone()));
    let mask = allowed(broker, session, AclOperation::Delete, &request.groups_names);
    let requested = request.groups_names.clone();
    let allowed_request = DeleteGroupsRequest { groups_names: only_allowed(&mask, request.groups_names), ..request };
    let mut response = if allowed_request.groups_names.is_empty() {
        DeleteGroupsResponse::default()
    } else {
        broker.groups.delete_groups(allowed_request, version).await
    };
    let refused = |i: usize| DeletableGroupResult {
        group_id: requested[i].clone(),
        error_code: GROUP_DENIED,
        ..DeletableGroupResult::default()
    };
    response.results = merge(&mask, response.results, refused);
    // An id no consumer or classic group holds may be a share group's.
    for result in &mut response.results {
        if result.error_code == ErrorCode::GroupIdNotFound.code()
            && let Some(share) = super::share_offsets::delete_group(broker, &result.group_id).await
        {
            *result = share;
        }
    }
    response
}
