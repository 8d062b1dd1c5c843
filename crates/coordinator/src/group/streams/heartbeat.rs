//! StreamsGroupHeartbeat (joining, heartbeating, leaving), sessions and StreamsGroupDescribe,
//! following Kafka's `GroupMetadataManager.streamsGroupHeartbeat`:
//! 1. the request's shape is checked (INVALID_REQUEST, STREAMS_INVALID_TOPOLOGY); epochs -1 and
//!    -2 leave;
//! 2. the group is found or created (an empty classic group gives way), the member found or
//!    created (GROUP_MAX_SIZE_REACHED, GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH);
//! 3. the group epoch is bumped when a member joins or changes its process, rack or tags, when
//!    the first member of an empty group brings the topology, or when the topology's topics
//!    changed (Kafka's metadata hash);
//! 4. a group epoch ahead of the assignment epoch computes a new target assignment (the sticky
//!    assignor, over the configured topology; nothing while the topology is not ready);
//! 5. the member is reconciled toward its target and its session restarts.
//!
//! The answer carries the statuses of a topology that cannot run and, for the broker to create,
//! the internal topics that are missing.

use std::collections::{BTreeMap, BTreeSet};

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::streams_group_describe_response::{
    Assignment as DescribedAssignment, DescribedGroup, Endpoint as DescribedEndpoint, KeyValue as DescribedKeyValue,
    Member as DescribedMember, Subtopology as DescribedSubtopology, TaskIds as DescribedTaskIds,
    TopicInfo as DescribedTopicInfo, Topology as DescribedTopology,
};
use strand_protocol::messages::streams_group_heartbeat_request::TaskIds as RequestTaskIds;
use strand_protocol::messages::streams_group_heartbeat_response::{
    Endpoint, EndpointToPartitions, Status, TaskIds, TopicPartition,
};
use strand_protocol::messages::{StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse};

use super::assignor::{self, AssignorMember};
use super::topology::{self, InternalTopic, STATUS_STALE_TOPOLOGY};
use super::{LEAVE_GROUP_STATIC_MEMBER_EPOCH, MemberState, StreamsGroup, StreamsMember, TaskSets, Tasks, task_list};
use crate::group::classic::ClassicGroupState;
use crate::group::records::CoordinatorRecord;
use crate::group::timer::TimerKey;
use crate::group::{ClientInfo, Effects, Group, GroupShard, Output};

/// Kafka's `acceptable.recovery.lag` default (`group.streams.acceptable.recovery.lag`), told to
/// members; Strand assigns no warm-up tasks, so nothing else depends on it.
pub const ACCEPTABLE_RECOVERY_LAG: i64 = 10_000;
/// `group.streams.task.offset.interval.ms`'s default: how often members report task offsets.
pub const TASK_OFFSET_INTERVAL_MS: i32 = 60_000;

/// A heartbeat's failure: the error and Kafka's message for it.
type Failure = (ErrorCode, String);

fn fail<T>(error: ErrorCode, message: impl Into<String>) -> Result<T, Failure> {
    Err((error, message.into()))
}

/// A heartbeat's answer, and the internal topics the broker should create for it.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsHeartbeat {
    pub response: StreamsGroupHeartbeatResponse,
    pub create_topics: Vec<InternalTopic>,
}

/// A heartbeat answer carrying only an error.
pub fn heartbeat_error(error: ErrorCode, message: Option<String>) -> StreamsGroupHeartbeatResponse {
    StreamsGroupHeartbeatResponse {
        error_code: error.code(),
        error_message: message,
        ..StreamsGroupHeartbeatResponse::default()
    }
}

/// Kafka's `throwIfStreamsGroupHeartbeatRequestIsInvalid`.
pub fn validate_request(request: &StreamsGroupHeartbeatRequest) -> Result<(), Failure> {
    let invalid = |message: &str| fail(ErrorCode::InvalidRequest, message);
    if request.member_id.trim().is_empty() {
        return invalid("MemberId can't be empty.");
    }
    if request.group_id.trim().is_empty() {
        return invalid("GroupId can't be empty.");
    }
    if request.instance_id.as_deref().is_some_and(|i| i.trim().is_empty()) {
        return invalid("InstanceId can't be empty.");
    }
    if request.rack_id.as_deref().is_some_and(|r| r.trim().is_empty()) {
        return invalid("RackId can't be empty.");
    }
    let epoch = request.member_epoch;
    if epoch == 0 {
        if request.rebalance_timeout_ms == -1 {
            return invalid("RebalanceTimeoutMs must be provided in first request.");
        }
        let non_empty = |tasks: &Option<Vec<RequestTaskIds>>| tasks.as_ref().is_some_and(|t| !t.is_empty());
        if non_empty(&request.active_tasks) || non_empty(&request.standby_tasks) || non_empty(&request.warmup_tasks) {
            return invalid("ActiveTasks, StandbyTasks and WarmupTasks must be empty when (re-)joining.");
        }
        let Some(topology) = &request.topology else { return invalid("Topology must be non-null when (re-)joining.") };
        if request.process_id.as_deref().is_none_or(|p| p.trim().is_empty()) {
            return invalid("ProcessId can't be empty.");
        }
        topology::validate(topology)?;
    } else if epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH {
        if request.instance_id.is_none() {
            return invalid("InstanceId can't be null.");
        }
    } else if epoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH {
        return invalid("MemberEpoch is invalid.");
    }
    Ok(())
}

fn tasks_from_request(tasks: &[RequestTaskIds]) -> Tasks {
    let mut out = Tasks::new();
    for task in tasks {
        out.entry(task.subtopology_id.clone()).or_default().extend(task.partitions.iter().copied());
    }
    out.retain(|_, p| !p.is_empty());
    out
}

fn response_tasks(tasks: &Tasks) -> Vec<TaskIds> {
    task_list(tasks)
        .into_iter()
        .map(|(subtopology_id, partitions)| TaskIds { subtopology_id, partitions, ..TaskIds::default() })
        .collect()
}

impl GroupShard {
    pub fn streams_group(&self, group_id: &str) -> Option<&StreamsGroup> {
        match self.groups.get(group_id) {
            Some(Group::Streams(group)) => Some(group),
            _ => None,
        }
    }

    fn streams_group_mut(&mut self, group_id: &str) -> Option<&mut StreamsGroup> {
        match self.groups.get_mut(group_id) {
            Some(Group::Streams(group)) => Some(group),
            _ => None,
        }
    }

    /// StreamsGroupHeartbeat.
    pub fn streams_group_heartbeat(
        &mut self,
        now_ms: i64,
        client: &ClientInfo,
        request: &StreamsGroupHeartbeatRequest,
    ) -> Output<StreamsHeartbeat> {
        let mut effects = Effects::default();
        let result = match validate_request(request) {
            Err(failure) => Err(failure),
            Ok(()) if request.member_epoch < 0 => Ok(self.streams_leave(request, &mut effects)),
            Ok(()) => self.streams_heartbeat(now_ms, client, request, &mut effects),
        };
        let answer = result.unwrap_or_else(|(error, message)| StreamsHeartbeat {
            response: heartbeat_error(error, Some(message)),
            create_topics: Vec::new(),
        });
        Output::new(effects, answer)
    }

    fn streams_leave(&mut self, request: &StreamsGroupHeartbeatRequest, effects: &mut Effects) -> StreamsHeartbeat {
        let response = StreamsGroupHeartbeatResponse {
            member_id: request.member_id.clone(),
            member_epoch: request.member_epoch,
            ..StreamsGroupHeartbeatResponse::default()
        };
        let known = self.streams_group(&request.group_id).is_some_and(|g| g.member(&request.member_id).is_some());
        let answer = StreamsHeartbeat { response, create_topics: Vec::new() };
        if !known {
            // Kafka answers a leave of an unknown member as a success when it names no group
            // either, and UNKNOWN_MEMBER_ID otherwise.
            if self.streams_group(&request.group_id).is_none() {
                return answer;
            }
            let message = format!("Member {} is not a member of group {}.", request.member_id, request.group_id);
            return StreamsHeartbeat { response: heartbeat_error(ErrorCode::UnknownMemberId, Some(message)), ..answer };
        }
        self.remove_streams_member(&request.group_id, &request.member_id, effects);
        answer
    }

    /// Removes a member (it left or was fenced); the others get a new target.
    pub(crate) fn remove_streams_member(&mut self, group_id: &str, member_id: &str, effects: &mut Effects) {
        self.timer.cancel(&TimerKey::StreamsSession { group: group_id.to_owned(), member: member_id.to_owned() });
        self.timer.cancel(&TimerKey::StreamsRebalance { group: group_id.to_owned(), member: member_id.to_owned() });
        let standbys = self.config.streams_num_standby_replicas;
        let Some(group) = self.streams_group_mut(group_id) else { return };
        if !group.members.contains_key(member_id) {
            return;
        }
        let before = group.clone();
        group.members.remove(member_id);
        group.target.remove(member_id);
        group.group_epoch += 1;
        update_target(group, standbys);
        effects.records.extend(super::records::changes(Some(&before), group));
    }

    /// A member's session or revocation time ran out: it is fenced.
    pub(crate) fn expire_streams_member(&mut self, group_id: &str, member_id: &str, effects: &mut Effects, why: &str) {
        if self.streams_group(group_id).is_some_and(|g| g.member(member_id).is_some()) {
            tracing::info!(group = group_id, member = member_id, "streams group member fenced: {why}");
            self.remove_streams_member(group_id, member_id, effects);
        }
    }

    /// Replays a streams group record while loading: the group is created by its first record
    /// (replacing a simple classic group, which no record backs) and removed by its metadata's
    /// tombstone.
    pub(crate) fn replay_streams(&mut self, group_id: &str, record: &CoordinatorRecord) {
        let value = record.value.as_ref().map(|(_, value)| value);
        let replaceable = match self.groups.get(group_id) {
            Some(Group::Streams(_)) => false,
            Some(Group::Classic(classic)) => value.is_some() && classic.is_simple(),
            Some(Group::Consumer(_)) => {
                tracing::warn!(group = group_id, "skipping a streams group record for a consumer group");
                return;
            }
            None => value.is_some(),
        };
        if replaceable {
            self.groups.insert(group_id.to_owned(), Group::Streams(StreamsGroup::new(group_id)));
        }
        let Some(group) = self.streams_group_mut(group_id) else { return };
        if !group.replay(&record.key, value) {
            self.groups.remove(group_id);
        }
    }

    /// Starts every loaded streams member's session.
    pub(crate) fn on_streams_groups_loaded(&mut self, now_ms: i64) {
        let session = i64::from(self.config.streams_session_timeout_ms);
        let mut keys = Vec::new();
        for (group_id, group) in &self.groups {
            if let Group::Streams(group) = group {
                for member_id in group.members.keys() {
                    keys.push(TimerKey::StreamsSession { group: group_id.clone(), member: member_id.clone() });
                }
            }
        }
        for key in keys {
            self.timer.schedule(key, now_ms + session);
        }
    }

    fn streams_heartbeat(
        &mut self,
        now_ms: i64,
        client: &ClientInfo,
        request: &StreamsGroupHeartbeatRequest,
        effects: &mut Effects,
    ) -> Result<StreamsHeartbeat, Failure> {
        let group_id = request.group_id.as_str();
        let joining = request.member_epoch == 0;
        match self.groups.get(group_id) {
            Some(Group::Streams(_)) => {}
            None if joining => {}
            None => return fail(ErrorCode::GroupIdNotFound, format!("Streams group {group_id} not found.")),
            Some(Group::Classic(classic)) if joining && classic.is_in(ClassicGroupState::Empty) => {}
            Some(_) => return fail(ErrorCode::GroupIdNotFound, format!("Group {group_id} is not a streams group.")),
        }
        let existing = self.streams_group(group_id);
        let previous = existing.and_then(|g| g.member(&request.member_id)).cloned();
        match &previous {
            None if !joining => {
                return fail(
                    ErrorCode::UnknownMemberId,
                    format!("Member {} is not a member of group {group_id}.", request.member_id),
                );
            }
            None => {
                let count = existing.map_or(0, |g| g.members.len());
                let max = usize::try_from(self.config.streams_max_size).unwrap_or(0);
                if count >= max {
                    return fail(
                        ErrorCode::GroupMaxSizeReached,
                        format!("The streams group has reached its maximum capacity of {max} members."),
                    );
                }
            }
            Some(member) => check_epoch(member, request)?,
        }
        // Validated: from here on the heartbeat changes the group, and writes what changed.
        let before = existing.cloned();
        if existing.is_none() {
            if let Some(Group::Classic(_)) = self.groups.get(group_id) {
                self.apply(effects, CoordinatorRecord::group_metadata_tombstone(group_id));
            }
            self.groups.insert(group_id.to_owned(), Group::Streams(StreamsGroup::new(group_id)));
        }
        let metadata = self.metadata.clone();
        let standbys = self.config.streams_num_standby_replicas;
        let heartbeat_interval_ms = self.config.streams_heartbeat_interval_ms;
        let Some(group) = self.streams_group_mut(group_id) else {
            return fail(ErrorCode::UnknownServerError, "the streams group vanished");
        };
        let member_before = previous
            .clone()
            .unwrap_or_else(|| StreamsMember { member_id: request.member_id.clone(), ..StreamsMember::default() });
        let mut member = member_before.clone();
        apply_request(&mut member, request, client);
        let mut bump = previous.is_none()
            || member.process_id != member_before.process_id
            || member.rack_id != member_before.rack_id
            || member.client_tags != member_before.client_tags;
        if let Some(topology) = &request.topology
            && (group.topology.is_none()
                || group.members.is_empty()
                || group.members.keys().all(|m| *m == member.member_id))
            && group.topology.as_ref() != Some(topology)
        {
            group.topology = Some(topology.clone());
            group.configured = None;
            bump = true;
        }
        group.members.insert(member.member_id.clone(), member.clone());
        if let Some(topology) = &group.topology {
            let hash = metadata.group_hash(topology::all_topics(topology, &metadata).iter().map(String::as_str));
            // A group loaded from the log has no configured topology yet: it is worked out again,
            // and only a changed hash bumps the epoch.
            if group.configured.is_none() || hash != group.metadata_hash {
                group.configured = Some(topology::configure(topology, &metadata));
                bump |= hash != group.metadata_hash;
                group.metadata_hash = hash;
            }
        }
        if bump {
            group.group_epoch += 1;
        }
        update_target(group, standbys);
        let owned = request.active_tasks.as_ref().map(|active| TaskSets {
            active: tasks_from_request(active),
            standby: request.standby_tasks.as_deref().map(tasks_from_request).unwrap_or_default(),
            warmup: request.warmup_tasks.as_deref().map(tasks_from_request).unwrap_or_default(),
        });
        let target = group.target(&member.member_id);
        let reconciled = super::reconcile::reconcile(group, &member, &target, group.assignment_epoch, owned.as_ref());
        group.members.insert(reconciled.member_id.clone(), reconciled.clone());
        let configured = group.configured.clone().unwrap_or_default();
        let mut statuses: Vec<Status> = configured
            .statuses
            .iter()
            .map(|(code, detail)| Status { status_code: *code, status_detail: detail.clone(), ..Status::default() })
            .collect();
        let group_topology_epoch = group.topology.as_ref().map_or(0, |t| t.epoch);
        if reconciled.topology_epoch != group_topology_epoch {
            statuses.push(Status {
                status_code: STATUS_STALE_TOPOLOGY,
                status_detail: format!(
                    "The member's topology epoch {} does not match the group's topology epoch {}.",
                    reconciled.topology_epoch, group_topology_epoch
                ),
                ..Status::default()
            });
        }
        let changed =
            reconciled.assigned != member_before.assigned || reconciled.member_epoch != member_before.member_epoch;
        let send_tasks = joining || changed;
        let endpoints = (request.endpoint_information_epoch < group.endpoint_information_epoch)
            .then(|| endpoint_partitions(group, &metadata));
        let response = StreamsGroupHeartbeatResponse {
            member_id: reconciled.member_id.clone(),
            member_epoch: reconciled.member_epoch,
            heartbeat_interval_ms,
            acceptable_recovery_lag_legacy: i32::try_from(ACCEPTABLE_RECOVERY_LAG).unwrap_or(i32::MAX),
            acceptable_recovery_lag: ACCEPTABLE_RECOVERY_LAG,
            task_offset_interval_ms: TASK_OFFSET_INTERVAL_MS,
            status: Some(statuses),
            active_tasks: send_tasks.then(|| response_tasks(&reconciled.assigned.active)),
            standby_tasks: send_tasks.then(|| response_tasks(&reconciled.assigned.standby)),
            warmup_tasks: send_tasks.then(|| response_tasks(&reconciled.assigned.warmup)),
            endpoint_information_epoch: group.endpoint_information_epoch,
            partitions_by_user_endpoint: endpoints,
            ..StreamsGroupHeartbeatResponse::default()
        };
        let records = super::records::changes(before.as_ref(), group);
        effects.records.extend(records);
        let revoking = reconciled.state == MemberState::UnrevokedTasks;
        let rebalance_timeout = i64::from(reconciled.rebalance_timeout_ms.max(0));
        let session = i64::from(self.config.streams_session_timeout_ms);
        let member_key = |f: fn(String, String) -> TimerKey| f(group_id.to_owned(), reconciled.member_id.clone());
        self.timer.schedule(member_key(|group, member| TimerKey::StreamsSession { group, member }), now_ms + session);
        let rebalance_key = member_key(|group, member| TimerKey::StreamsRebalance { group, member });
        if revoking {
            self.timer.schedule_if_absent(rebalance_key, now_ms.saturating_add(rebalance_timeout));
        } else {
            self.timer.cancel(&rebalance_key);
        }
        Ok(StreamsHeartbeat { response, create_topics: configured.missing_internal })
    }

    /// StreamsGroupDescribe for groups of this shard; a group that is not a streams group (or
    /// does not exist) gets GROUP_ID_NOT_FOUND.
    pub fn streams_group_describe(&self, group_ids: &[String]) -> Vec<DescribedGroup> {
        group_ids
            .iter()
            .map(|group_id| match self.groups.get(group_id) {
                Some(Group::Streams(group)) => describe(group),
                Some(_) => DescribedGroup {
                    group_id: group_id.clone(),
                    error_code: ErrorCode::GroupIdNotFound.code(),
                    error_message: Some(format!("Group {group_id} is not a streams group.")),
                    ..DescribedGroup::default()
                },
                None => DescribedGroup {
                    group_id: group_id.clone(),
                    error_code: ErrorCode::GroupIdNotFound.code(),
                    error_message: Some(format!("Group {group_id} not found.")),
                    ..DescribedGroup::default()
                },
            })
            .collect()
    }
}

/// A known member's epoch must be its own, or its previous one when it reports owning no more
/// than it holds (it missed the answer that moved it on); otherwise it is fenced.
fn check_epoch(member: &StreamsMember, request: &StreamsGroupHeartbeatRequest) -> Result<(), Failure> {
    let epoch = request.member_epoch;
    if epoch == 0 || epoch == member.member_epoch {
        return Ok(());
    }
    let reported_within = request.active_tasks.as_deref().is_some_and(|active| {
        let reported = tasks_from_request(active);
        super::tasks_minus(&reported, &member.assigned.active).is_empty()
    });
    if epoch < member.member_epoch && epoch == member.previous_member_epoch && reported_within {
        return Ok(());
    }
    fail(
        ErrorCode::FencedMemberEpoch,
        format!(
            "The streams group member has a smaller member epoch ({epoch}) than the one known by the group coordinator ({}). The member must abandon all its tasks and rejoin.",
            member.member_epoch
        ),
    )
}

fn apply_request(member: &mut StreamsMember, request: &StreamsGroupHeartbeatRequest, client: &ClientInfo) {
    member.client_id = client.client_id.clone();
    member.client_host = client.client_host.clone();
    if request.instance_id.is_some() {
        member.instance_id = request.instance_id.clone();
    }
    if request.rack_id.is_some() {
        member.rack_id = request.rack_id.clone();
    }
    if request.rebalance_timeout_ms != -1 {
        member.rebalance_timeout_ms = request.rebalance_timeout_ms;
    }
    if let Some(topology) = &request.topology {
        member.topology_epoch = topology.epoch;
    }
    if let Some(process) = &request.process_id {
        member.process_id = process.clone();
    }
    if let Some(endpoint) = &request.user_endpoint {
        member.user_endpoint = Some((endpoint.host.clone(), endpoint.port));
    }
    if let Some(tags) = &request.client_tags {
        member.client_tags = tags.iter().map(|kv| (kv.key.clone(), kv.value.clone())).collect();
    }
    if request.member_epoch == 0 {
        // A (re)joining member owns nothing.
        member.member_epoch = 0;
        member.previous_member_epoch = 0;
        member.assigned = TaskSets::default();
        member.pending_revocation = TaskSets::default();
        member.state = MemberState::Stable;
    }
}

/// Computes a new target assignment if the group epoch moved past the assignment epoch.
pub(crate) fn update_target(group: &mut StreamsGroup, standbys: usize) {
    if group.group_epoch <= group.assignment_epoch {
        return;
    }
    let ready = group.configured.as_ref().filter(|c| c.is_ready()).map(|c| c.tasks.clone());
    let members: BTreeMap<String, AssignorMember> = group
        .members
        .iter()
        .map(|(id, m)| {
            let previous = group.target.get(id).cloned().unwrap_or_else(|| m.assigned.clone());
            (id.clone(), AssignorMember { process_id: m.process_id.clone(), previous })
        })
        .collect();
    let target = match ready {
        Some(tasks) => assignor::assign(&tasks, &members, standbys),
        None => members.keys().map(|id| (id.clone(), TaskSets::default())).collect(),
    };
    if assignor::active_owners(&target) != assignor::active_owners(&group.target) {
        group.endpoint_information_epoch += 1;
    }
    group.target = target;
    group.assignment_epoch = group.group_epoch;
}

/// The partitions each member with an endpoint serves (Interactive Queries): its tasks'
/// partitions of the subtopology's source and repartition source topics.
fn endpoint_partitions(
    group: &StreamsGroup,
    metadata: &crate::group::metadata::TopicMetadata,
) -> Vec<EndpointToPartitions> {
    let Some(topology) = &group.topology else { return Vec::new() };
    let topics_of = |subtopology: &str| -> Vec<String> {
        topology
            .subtopologies
            .iter()
            .filter(|s| s.subtopology_id == subtopology)
            .flat_map(|s| {
                let mut topics: Vec<String> = s.source_topics.clone();
                for regex in &s.source_topic_regex {
                    let one = strand_protocol::messages::streams_group_heartbeat_request::Subtopology {
                        source_topic_regex: vec![regex.clone()],
                        ..Default::default()
                    };
                    let single = topology::Topology { subtopologies: vec![one], ..Default::default() };
                    topics.extend(topology::source_topics(&single, metadata));
                }
                topics.extend(s.repartition_source_topics.iter().map(|t| t.name.clone()));
                topics
            })
            .collect()
    };
    let partitions = |tasks: &Tasks| -> Vec<TopicPartition> {
        let mut by_topic: BTreeMap<String, BTreeSet<i32>> = BTreeMap::new();
        for (subtopology, parts) in tasks {
            for topic in topics_of(subtopology) {
                by_topic.entry(topic).or_default().extend(parts.iter().copied());
            }
        }
        by_topic
            .into_iter()
            .map(|(topic, parts)| TopicPartition {
                topic,
                partitions: parts.into_iter().collect(),
                ..Default::default()
            })
            .collect()
    };
    group
        .members
        .values()
        .filter_map(|m| {
            let (host, port) = m.user_endpoint.clone()?;
            Some(EndpointToPartitions {
                user_endpoint: Endpoint { host, port, ..Endpoint::default() },
                active_partitions: partitions(&m.assigned.active),
                standby_partitions: partitions(&m.assigned.standby),
                ..EndpointToPartitions::default()
            })
        })
        .collect()
}

fn described_tasks(tasks: &Tasks) -> Vec<DescribedTaskIds> {
    task_list(tasks)
        .into_iter()
        .map(|(subtopology_id, partitions)| DescribedTaskIds { subtopology_id, partitions, ..Default::default() })
        .collect()
}

fn described_assignment(sets: &TaskSets) -> DescribedAssignment {
    DescribedAssignment {
        active_tasks: described_tasks(&sets.active),
        standby_tasks: described_tasks(&sets.standby),
        warmup_tasks: described_tasks(&sets.warmup),
        ..DescribedAssignment::default()
    }
}

/// Kafka's `StreamsGroup.asDescribedGroup`.
fn describe(group: &StreamsGroup) -> DescribedGroup {
    let topic_info = |t: &strand_protocol::messages::streams_group_heartbeat_request::TopicInfo| DescribedTopicInfo {
        name: t.name.clone(),
        partitions: t.partitions,
        replication_factor: t.replication_factor,
        topic_configs: t
            .topic_configs
            .iter()
            .map(|kv| DescribedKeyValue { key: kv.key.clone(), value: kv.value.clone(), ..Default::default() })
            .collect(),
        ..DescribedTopicInfo::default()
    };
    let topology = group.topology.as_ref().map(|t| DescribedTopology {
        epoch: t.epoch,
        subtopologies: Some(
            t.subtopologies
                .iter()
                .map(|s| DescribedSubtopology {
                    subtopology_id: s.subtopology_id.clone(),
                    source_topics: s.source_topics.clone(),
                    repartition_sink_topics: s.repartition_sink_topics.clone(),
                    state_changelog_topics: s.state_changelog_topics.iter().map(topic_info).collect(),
                    repartition_source_topics: s.repartition_source_topics.iter().map(topic_info).collect(),
                    ..DescribedSubtopology::default()
                })
                .collect(),
        ),
        ..DescribedTopology::default()
    });
    let members = group
        .members()
        .map(|m| DescribedMember {
            member_id: m.member_id.clone(),
            member_epoch: m.member_epoch,
            instance_id: m.instance_id.clone(),
            rack_id: m.rack_id.clone(),
            client_id: m.client_id.clone(),
            client_host: m.client_host.clone(),
            topology_epoch: m.topology_epoch,
            process_id: m.process_id.clone(),
            user_endpoint: m.user_endpoint.as_ref().map(|(host, port)| DescribedEndpoint {
                host: host.clone(),
                port: *port,
                ..Default::default()
            }),
            client_tags: m
                .client_tags
                .iter()
                .map(|(k, v)| DescribedKeyValue { key: k.clone(), value: v.clone(), ..Default::default() })
                .collect(),
            assignment: described_assignment(&m.assigned),
            target_assignment: described_assignment(&group.target(&m.member_id)),
            ..DescribedMember::default()
        })
        .collect();
    DescribedGroup {
        group_id: group.group_id().to_owned(),
        group_state: group.state().name().to_owned(),
        group_epoch: group.group_epoch(),
        assignment_epoch: group.assignment_epoch(),
        topology,
        members,
        assignor_name: Some("sticky".to_owned()),
        ..DescribedGroup::default()
    }
}
