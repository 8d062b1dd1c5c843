//! The administrative group APIs over one shard: ListGroups, DescribeGroups, DeleteGroups.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::delete_groups_response::DeletableGroupResult;
use strand_protocol::messages::describe_groups_response::DescribedGroup;
use strand_protocol::messages::list_groups_response::ListedGroup;

use super::classic::ClassicGroupState;
use super::records::CoordinatorRecord;
use super::{Effects, Group, GroupShard, Output};

impl GroupShard {
    /// Whether a classic, consumer or streams group of this shard holds `group_id`.
    pub fn holds_group(&self, group_id: &str) -> bool {
        self.groups.contains_key(group_id)
    }

    /// The shard's groups, filtered by state (case-insensitive, ListGroups v4+) and by type
    /// (case-insensitive, v5+); an empty filter keeps every group.
    pub fn list_groups(&self, states_filter: &[String], types_filter: &[String]) -> Vec<ListedGroup> {
        let states: Vec<String> = states_filter.iter().map(|s| s.trim().to_lowercase()).collect();
        let types: Vec<String> = types_filter.iter().map(|t| t.trim().to_lowercase()).collect();
        self.groups
            .iter()
            .filter(|(_, group)| states.is_empty() || states.contains(&group.state_name().to_lowercase()))
            .filter(|(_, group)| types.is_empty() || types.iter().any(|t| t == group.type_name()))
            .map(|(group_id, group)| ListedGroup {
                group_id: group_id.clone(),
                protocol_type: group.protocol_type().unwrap_or_default().to_owned(),
                group_state: group.state_name().to_owned(),
                group_type: group.type_name().to_owned(),
                ..ListedGroup::default()
            })
            .collect()
    }

    /// DescribeGroups for groups of this shard. A group that does not exist is described as Dead,
    /// with GROUP_ID_NOT_FOUND (which the runtime drops for versions before 6), as Kafka does. Member metadata is given only while the group is Stable (the
    /// protocol is chosen); `authorized_operations` is left at Kafka's "not requested" default for
    /// the caller to fill.
    pub fn describe_groups(&self, group_ids: &[String]) -> Vec<DescribedGroup> {
        group_ids
            .iter()
            .map(|group_id| match self.groups.get(group_id) {
                Some(Group::Classic(group)) => {
                    let stable = group.is_in(ClassicGroupState::Stable);
                    let protocol = if stable { group.protocol_name() } else { None };
                    DescribedGroup {
                        group_id: group_id.clone(),
                        group_state: group.state().name().to_owned(),
                        protocol_type: group.protocol_type().unwrap_or_default().to_owned(),
                        protocol_data: protocol.unwrap_or_default().to_owned(),
                        members: group.members().map(|m| m.describe(protocol)).collect(),
                        ..DescribedGroup::default()
                    }
                }
                // A consumer group is described by ConsumerGroupDescribe: DescribeGroups answers for
                // it as for a group that is not there, with the reason (Kafka 4.4).
                Some(Group::Consumer(_) | Group::Streams(_)) => DescribedGroup {
                    group_id: group_id.clone(),
                    group_state: ClassicGroupState::Dead.name().to_owned(),
                    error_code: ErrorCode::GroupIdNotFound.code(),
                    error_message: Some(format!("Group {group_id} is not a classic group.")),
                    ..DescribedGroup::default()
                },
                None => DescribedGroup {
                    group_id: group_id.clone(),
                    group_state: ClassicGroupState::Dead.name().to_owned(),
                    error_code: ErrorCode::GroupIdNotFound.code(),
                    error_message: Some(format!("Group {group_id} not found.")),
                    ..DescribedGroup::default()
                },
            })
            .collect()
    }

    /// DeleteGroups for groups of this shard: each Empty group loses its offsets and itself
    /// (tombstones); a group with members gets NON_EMPTY_GROUP, an unknown one GROUP_ID_NOT_FOUND.
    pub fn delete_groups(&mut self, group_ids: &[String]) -> Output<Vec<DeletableGroupResult>> {
        let mut effects = Effects::default();
        let mut results = Vec::with_capacity(group_ids.len());
        for group_id in group_ids {
            let error = match self.groups.get(group_id) {
                None => ErrorCode::GroupIdNotFound,
                Some(Group::Classic(group)) => match group.state() {
                    ClassicGroupState::Dead => ErrorCode::GroupIdNotFound,
                    ClassicGroupState::Empty => ErrorCode::None,
                    _ => ErrorCode::NonEmptyGroup,
                },
                Some(Group::Consumer(group)) if group.is_empty() => ErrorCode::None,
                Some(Group::Consumer(_)) => ErrorCode::NonEmptyGroup,
                Some(Group::Streams(group)) if group.is_empty() => ErrorCode::None,
                Some(Group::Streams(_)) => ErrorCode::NonEmptyGroup,
            };
            if error == ErrorCode::None {
                self.delete_group(group_id, &mut effects);
            }
            results.push(DeletableGroupResult {
                group_id: group_id.clone(),
                error_code: error.code(),
                ..DeletableGroupResult::default()
            });
        }
        Output::new(effects, results)
    }

    pub(crate) fn delete_group(&mut self, group_id: &str, effects: &mut Effects) {
        self.delete_all_offsets(group_id, effects);
        if let Some(Group::Streams(group)) = self.groups.get(group_id) {
            // Written directly (not replayed), as the group's other records are.
            effects.records.extend(super::streams::records::tombstones(group));
            self.groups.remove(group_id);
            return;
        }
        let tombstones = match self.groups.get(group_id) {
            Some(Group::Consumer(group)) => group.tombstones(),
            _ => vec![CoordinatorRecord::group_metadata_tombstone(group_id)],
        };
        for tombstone in tombstones {
            self.apply(effects, tombstone);
        }
    }
}
