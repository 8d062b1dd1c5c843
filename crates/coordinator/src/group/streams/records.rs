//! A streams group in `__consumer_offsets`, in Kafka's record types (17, 19-23, value version 0,
//! as `StreamsCoordinatorRecordHelpers` writes them): the group's epoch and metadata hash, its
//! topology, each member's metadata, target assignment and current assignment, and the target
//! assignment's epoch.
//!
//! As for classic groups, the heartbeat changes the group's state directly and writes records
//! describing the result: [`changes`] compares the group before and after an operation and
//! gives the records of what changed (tombstones for what went), and loading replays them
//! ([`StreamsGroup::replay`]) to rebuild the group. What the group derives from the cluster (the
//! configured topology) is worked out again at the first heartbeat after loading.

use strand_protocol::messages::records::{GroupCoordinatorKey, GroupCoordinatorValue};
use strand_protocol::messages::streams_group_current_member_assignment_value::TaskIds as CurrentTaskIds;
use strand_protocol::messages::streams_group_heartbeat_request::{CopartitionGroup, KeyValue, Subtopology, TopicInfo};
use strand_protocol::messages::streams_group_member_metadata_value::{
    Endpoint as MemberEndpoint, KeyValue as MemberKeyValue,
};
use strand_protocol::messages::streams_group_target_assignment_member_value::TaskIds as TargetTaskIds;
use strand_protocol::messages::streams_group_topology_value::{
    CopartitionGroup as StoredCopartitionGroup, Subtopology as StoredSubtopology, TopicConfig,
    TopicInfo as StoredTopicInfo,
};
use strand_protocol::messages::{
    StreamsGroupCurrentMemberAssignmentKey, StreamsGroupCurrentMemberAssignmentValue, StreamsGroupMemberMetadataKey,
    StreamsGroupMemberMetadataValue, StreamsGroupMetadataKey, StreamsGroupMetadataValue,
    StreamsGroupTargetAssignmentMemberKey, StreamsGroupTargetAssignmentMemberValue,
    StreamsGroupTargetAssignmentMetadataKey, StreamsGroupTargetAssignmentMetadataValue, StreamsGroupTopologyKey,
    StreamsGroupTopologyValue,
};

use super::topology::Topology;
use super::{MemberState, StreamsGroup, StreamsMember, TaskSets, Tasks};
use crate::group::records::CoordinatorRecord;

/// The value version Kafka 4.4 writes for every streams group record.
const VALUE_VERSION: i16 = 0;

/// The group id of a streams group record, if `key` is one.
pub fn record_group_id(key: &GroupCoordinatorKey) -> Option<&str> {
    match key {
        GroupCoordinatorKey::StreamsGroupMetadataKey(k) => Some(&k.group_id),
        GroupCoordinatorKey::StreamsGroupMemberMetadataKey(k) => Some(&k.group_id),
        GroupCoordinatorKey::StreamsGroupTargetAssignmentMetadataKey(k) => Some(&k.group_id),
        GroupCoordinatorKey::StreamsGroupTargetAssignmentMemberKey(k) => Some(&k.group_id),
        GroupCoordinatorKey::StreamsGroupCurrentMemberAssignmentKey(k) => Some(&k.group_id),
        GroupCoordinatorKey::StreamsGroupTopologyKey(k) => Some(&k.group_id),
        _ => None,
    }
}

fn record(key: GroupCoordinatorKey, value: Option<GroupCoordinatorValue>) -> CoordinatorRecord {
    CoordinatorRecord { key, value: value.map(|v| (VALUE_VERSION, v)) }
}

fn metadata_record(group: &StreamsGroup) -> CoordinatorRecord {
    let value = StreamsGroupMetadataValue {
        epoch: group.group_epoch,
        metadata_hash: group.metadata_hash,
        validated_topology_epoch: group.topology.as_ref().map_or(-1, |t| t.epoch),
        ..Default::default()
    };
    record(
        GroupCoordinatorKey::StreamsGroupMetadataKey(StreamsGroupMetadataKey { group_id: group.group_id.clone() }),
        Some(GroupCoordinatorValue::StreamsGroupMetadataValue(value)),
    )
}

fn topology_key(group_id: &str) -> GroupCoordinatorKey {
    GroupCoordinatorKey::StreamsGroupTopologyKey(StreamsGroupTopologyKey { group_id: group_id.to_owned() })
}

fn member_key(group_id: &str, member_id: &str) -> GroupCoordinatorKey {
    let key = StreamsGroupMemberMetadataKey { group_id: group_id.to_owned(), member_id: member_id.to_owned() };
    GroupCoordinatorKey::StreamsGroupMemberMetadataKey(key)
}

fn target_key(group_id: &str, member_id: &str) -> GroupCoordinatorKey {
    let key = StreamsGroupTargetAssignmentMemberKey { group_id: group_id.to_owned(), member_id: member_id.to_owned() };
    GroupCoordinatorKey::StreamsGroupTargetAssignmentMemberKey(key)
}

fn current_key(group_id: &str, member_id: &str) -> GroupCoordinatorKey {
    let key = StreamsGroupCurrentMemberAssignmentKey { group_id: group_id.to_owned(), member_id: member_id.to_owned() };
    GroupCoordinatorKey::StreamsGroupCurrentMemberAssignmentKey(key)
}

fn target_metadata_key(group_id: &str) -> GroupCoordinatorKey {
    let key = StreamsGroupTargetAssignmentMetadataKey { group_id: group_id.to_owned() };
    GroupCoordinatorKey::StreamsGroupTargetAssignmentMetadataKey(key)
}

fn stored_topology(topology: &Topology) -> StreamsGroupTopologyValue {
    let info = |t: &TopicInfo| StoredTopicInfo {
        name: t.name.clone(),
        partitions: t.partitions,
        replication_factor: t.replication_factor,
        topic_configs: t
            .topic_configs
            .iter()
            .map(|kv| TopicConfig { key: kv.key.clone(), value: kv.value.clone(), ..Default::default() })
            .collect(),
        ..Default::default()
    };
    StreamsGroupTopologyValue {
        epoch: topology.epoch,
        subtopologies: topology
            .subtopologies
            .iter()
            .map(|s| StoredSubtopology {
                subtopology_id: s.subtopology_id.clone(),
                source_topics: s.source_topics.clone(),
                source_topic_regex: s.source_topic_regex.clone(),
                state_changelog_topics: s.state_changelog_topics.iter().map(info).collect(),
                repartition_sink_topics: s.repartition_sink_topics.clone(),
                repartition_source_topics: s.repartition_source_topics.iter().map(info).collect(),
                copartition_groups: s
                    .copartition_groups
                    .iter()
                    .map(|g| StoredCopartitionGroup {
                        source_topics: g.source_topics.clone(),
                        source_topic_regex: g.source_topic_regex.clone(),
                        repartition_source_topics: g.repartition_source_topics.clone(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn loaded_topology(value: &StreamsGroupTopologyValue) -> Topology {
    let info = |t: &StoredTopicInfo| TopicInfo {
        name: t.name.clone(),
        partitions: t.partitions,
        replication_factor: t.replication_factor,
        topic_configs: t
            .topic_configs
            .iter()
            .map(|kv| KeyValue { key: kv.key.clone(), value: kv.value.clone(), ..Default::default() })
            .collect(),
        ..Default::default()
    };
    Topology {
        epoch: value.epoch,
        subtopologies: value
            .subtopologies
            .iter()
            .map(|s| Subtopology {
                subtopology_id: s.subtopology_id.clone(),
                source_topics: s.source_topics.clone(),
                source_topic_regex: s.source_topic_regex.clone(),
                state_changelog_topics: s.state_changelog_topics.iter().map(info).collect(),
                repartition_sink_topics: s.repartition_sink_topics.clone(),
                repartition_source_topics: s.repartition_source_topics.iter().map(info).collect(),
                copartition_groups: s
                    .copartition_groups
                    .iter()
                    .map(|g| CopartitionGroup {
                        source_topics: g.source_topics.clone(),
                        source_topic_regex: g.source_topic_regex.clone(),
                        repartition_source_topics: g.repartition_source_topics.clone(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn member_metadata_value(m: &StreamsMember) -> StreamsGroupMemberMetadataValue {
    StreamsGroupMemberMetadataValue {
        instance_id: m.instance_id.clone(),
        rack_id: m.rack_id.clone(),
        client_id: m.client_id.clone(),
        client_host: m.client_host.clone(),
        rebalance_timeout_ms: m.rebalance_timeout_ms,
        topology_epoch: m.topology_epoch,
        process_id: m.process_id.clone(),
        user_endpoint: m.user_endpoint.as_ref().map(|(host, port)| MemberEndpoint {
            host: host.clone(),
            port: *port,
            ..Default::default()
        }),
        client_tags: m
            .client_tags
            .iter()
            .map(|(k, v)| MemberKeyValue { key: k.clone(), value: v.clone(), ..Default::default() })
            .collect(),
        ..Default::default()
    }
}

fn current_tasks(tasks: &Tasks) -> Vec<CurrentTaskIds> {
    super::task_list(tasks)
        .into_iter()
        .map(|(subtopology_id, partitions)| CurrentTaskIds { subtopology_id, partitions, ..Default::default() })
        .collect()
}

fn target_tasks(tasks: &Tasks) -> Vec<TargetTaskIds> {
    super::task_list(tasks)
        .into_iter()
        .map(|(subtopology_id, partitions)| TargetTaskIds { subtopology_id, partitions, ..Default::default() })
        .collect()
}

fn state_code(state: MemberState) -> i8 {
    match state {
        MemberState::Stable => 1,
        MemberState::UnrevokedTasks => 2,
        MemberState::UnreleasedTasks => 3,
    }
}

fn current_value(m: &StreamsMember) -> StreamsGroupCurrentMemberAssignmentValue {
    StreamsGroupCurrentMemberAssignmentValue {
        member_epoch: m.member_epoch,
        previous_member_epoch: m.previous_member_epoch,
        state: state_code(m.state),
        active_tasks: current_tasks(&m.assigned.active),
        standby_tasks: current_tasks(&m.assigned.standby),
        warmup_tasks: current_tasks(&m.assigned.warmup),
        active_tasks_pending_revocation: current_tasks(&m.pending_revocation.active),
        standby_tasks_pending_revocation: current_tasks(&m.pending_revocation.standby),
        warmup_tasks_pending_revocation: current_tasks(&m.pending_revocation.warmup),
        ..Default::default()
    }
}

fn same_metadata(a: &StreamsMember, b: &StreamsMember) -> bool {
    member_metadata_value(a) == member_metadata_value(b)
}

fn same_current(a: &StreamsMember, b: &StreamsMember) -> bool {
    current_value(a) == current_value(b)
}

/// Tombstones deleting the whole group, in Kafka's order (`createGroupTombstoneRecords`).
pub fn tombstones(group: &StreamsGroup) -> Vec<CoordinatorRecord> {
    let id = group.group_id.as_str();
    let mut records = Vec::new();
    records.extend(group.members.keys().map(|m| record(current_key(id, m), None)));
    records.extend(group.target.keys().map(|m| record(target_key(id, m), None)));
    records.push(record(target_metadata_key(id), None));
    records.extend(group.members.keys().map(|m| record(member_key(id, m), None)));
    records.push(record(
        GroupCoordinatorKey::StreamsGroupMetadataKey(StreamsGroupMetadataKey { group_id: id.to_owned() }),
        None,
    ));
    records.push(record(topology_key(id), None));
    records
}

/// The records that turn `before` (`None`: no group) into `after`.
pub fn changes(before: Option<&StreamsGroup>, after: &StreamsGroup) -> Vec<CoordinatorRecord> {
    let empty = StreamsGroup::new(&after.group_id);
    let before = before.unwrap_or(&empty);
    let id = after.group_id.as_str();
    let mut records = Vec::new();
    for (member_id, member) in &after.members {
        if before.members.get(member_id).is_none_or(|b| !same_metadata(b, member)) {
            let value = GroupCoordinatorValue::StreamsGroupMemberMetadataValue(member_metadata_value(member));
            records.push(record(member_key(id, member_id), Some(value)));
        }
    }
    if before.group_epoch != after.group_epoch
        || before.metadata_hash != after.metadata_hash
        || before.topology != after.topology
    {
        records.push(metadata_record(after));
    }
    if before.topology != after.topology
        && let Some(topology) = &after.topology
    {
        let value = GroupCoordinatorValue::StreamsGroupTopologyValue(stored_topology(topology));
        records.push(record(topology_key(id), Some(value)));
    }
    for (member_id, target) in &after.target {
        if before.target.get(member_id) != Some(target) {
            let value = StreamsGroupTargetAssignmentMemberValue {
                active_tasks: target_tasks(&target.active),
                standby_tasks: target_tasks(&target.standby),
                warmup_tasks: target_tasks(&target.warmup),
                ..Default::default()
            };
            let value = GroupCoordinatorValue::StreamsGroupTargetAssignmentMemberValue(value);
            records.push(record(target_key(id, member_id), Some(value)));
        }
    }
    for member_id in before.target.keys().filter(|m| !after.target.contains_key(*m)) {
        records.push(record(target_key(id, member_id), None));
    }
    if before.assignment_epoch != after.assignment_epoch {
        let value = StreamsGroupTargetAssignmentMetadataValue {
            assignment_epoch: after.assignment_epoch,
            ..Default::default()
        };
        let value = GroupCoordinatorValue::StreamsGroupTargetAssignmentMetadataValue(value);
        records.push(record(target_metadata_key(id), Some(value)));
    }
    for (member_id, member) in &after.members {
        if before.members.get(member_id).is_none_or(|b| !same_current(b, member)) {
            let value = GroupCoordinatorValue::StreamsGroupCurrentMemberAssignmentValue(current_value(member));
            records.push(record(current_key(id, member_id), Some(value)));
        }
    }
    for member_id in before.members.keys().filter(|m| !after.members.contains_key(*m)) {
        records.push(record(current_key(id, member_id), None));
        records.push(record(member_key(id, member_id), None));
    }
    records
}

fn tasks_of<'a>(list: impl IntoIterator<Item = (&'a String, &'a Vec<i32>)>) -> Tasks {
    let mut tasks = Tasks::new();
    for (subtopology, partitions) in list {
        if !partitions.is_empty() {
            tasks.entry(subtopology.clone()).or_default().extend(partitions.iter().copied());
        }
    }
    tasks
}

fn current(list: &[CurrentTaskIds]) -> Tasks {
    tasks_of(list.iter().map(|t| (&t.subtopology_id, &t.partitions)))
}

fn target(list: &[TargetTaskIds]) -> Tasks {
    tasks_of(list.iter().map(|t| (&t.subtopology_id, &t.partitions)))
}

impl StreamsGroup {
    /// Applies one of the group's records while loading. Returns false when the record deletes
    /// the group.
    pub(crate) fn replay(&mut self, key: &GroupCoordinatorKey, value: Option<&GroupCoordinatorValue>) -> bool {
        use GroupCoordinatorKey as K;
        use GroupCoordinatorValue as V;
        match (key, value) {
            (K::StreamsGroupMetadataKey(_), Some(V::StreamsGroupMetadataValue(v))) => {
                self.group_epoch = v.epoch;
                self.metadata_hash = v.metadata_hash;
            }
            (K::StreamsGroupMetadataKey(_), None) => return false,
            (K::StreamsGroupTopologyKey(_), Some(V::StreamsGroupTopologyValue(v))) => {
                self.topology = Some(loaded_topology(v));
                self.configured = None;
            }
            (K::StreamsGroupTopologyKey(_), None) => {
                self.topology = None;
                self.configured = None;
            }
            (K::StreamsGroupMemberMetadataKey(k), Some(V::StreamsGroupMemberMetadataValue(v))) => {
                let member = self
                    .members
                    .entry(k.member_id.clone())
                    .or_insert_with(|| StreamsMember { member_id: k.member_id.clone(), ..StreamsMember::default() });
                member.instance_id = v.instance_id.clone();
                member.rack_id = v.rack_id.clone();
                member.client_id = v.client_id.clone();
                member.client_host = v.client_host.clone();
                member.rebalance_timeout_ms = v.rebalance_timeout_ms;
                member.topology_epoch = v.topology_epoch;
                member.process_id = v.process_id.clone();
                member.user_endpoint = v.user_endpoint.as_ref().map(|e| (e.host.clone(), e.port));
                member.client_tags = v.client_tags.iter().map(|kv| (kv.key.clone(), kv.value.clone())).collect();
            }
            (K::StreamsGroupMemberMetadataKey(k), None) => {
                self.members.remove(&k.member_id);
            }
            (K::StreamsGroupTargetAssignmentMemberKey(k), Some(V::StreamsGroupTargetAssignmentMemberValue(v))) => {
                let sets = TaskSets {
                    active: target(&v.active_tasks),
                    standby: target(&v.standby_tasks),
                    warmup: target(&v.warmup_tasks),
                };
                self.target.insert(k.member_id.clone(), sets);
            }
            (K::StreamsGroupTargetAssignmentMemberKey(k), None) => {
                self.target.remove(&k.member_id);
            }
            (K::StreamsGroupTargetAssignmentMetadataKey(_), Some(V::StreamsGroupTargetAssignmentMetadataValue(v))) => {
                self.assignment_epoch = v.assignment_epoch;
            }
            (K::StreamsGroupTargetAssignmentMetadataKey(_), None) => self.assignment_epoch = 0,
            (K::StreamsGroupCurrentMemberAssignmentKey(k), Some(V::StreamsGroupCurrentMemberAssignmentValue(v))) => {
                let member = self
                    .members
                    .entry(k.member_id.clone())
                    .or_insert_with(|| StreamsMember { member_id: k.member_id.clone(), ..StreamsMember::default() });
                member.member_epoch = v.member_epoch;
                member.previous_member_epoch = v.previous_member_epoch;
                member.state = match v.state {
                    2 => MemberState::UnrevokedTasks,
                    3 => MemberState::UnreleasedTasks,
                    _ => MemberState::Stable,
                };
                member.assigned = TaskSets {
                    active: current(&v.active_tasks),
                    standby: current(&v.standby_tasks),
                    warmup: current(&v.warmup_tasks),
                };
                member.pending_revocation = TaskSets {
                    active: current(&v.active_tasks_pending_revocation),
                    standby: current(&v.standby_tasks_pending_revocation),
                    warmup: current(&v.warmup_tasks_pending_revocation),
                };
            }
            (K::StreamsGroupCurrentMemberAssignmentKey(k), None) => {
                // The member is on its way out: it holds nothing any more.
                if let Some(member) = self.members.get_mut(&k.member_id) {
                    member.assigned = TaskSets::default();
                    member.pending_revocation = TaskSets::default();
                }
            }
            (key, _) => {
                tracing::warn!(group = %self.group_id, record_type = key.api_key(), "a streams group record with an unexpected value");
            }
        }
        true
    }
}
