//! KIP-848 consumer groups: the group state ([`ConsumerGroup`]) that only replaying records
//! changes, and the protocol over it ([`heartbeat`]: ConsumerGroupHeartbeat, leaving,
//! ConsumerGroupDescribe; [`classic_protocol`]: JoinGroup, SyncGroup, Heartbeat and LeaveGroup of
//! members using the classic protocol inside a consumer group; `fence`: removing members, the
//! session, rebalance, join and sync timers), following Kafka's `GroupMetadataManager`.
//!
//! The protocol, in short: members heartbeat with their subscription; any change of the group's
//! subscriptions or of the subscribed topics' metadata bumps the **group epoch**; a server-side
//! [`assignor`] then computes the **target assignment** at that epoch (the assignment epoch), and
//! each member is moved toward its target by [`reconcile`], one heartbeat at a time: partitions
//! it must give up are revoked first (it keeps its epoch until it acknowledges that by no longer
//! reporting them), then it moves to the target epoch and gets the partitions that are free; a
//! partition still owned by another member is assigned only once that member has released it.
//!
//! Durable state and its records (all in Kafka 4.4's formats, see [`crate::group::records`]):
//!
//! | state | record |
//! |---|---|
//! | group epoch, metadata hash | `ConsumerGroupMetadata` |
//! | a member's subscription (and a classic member's session timeout and protocols) | `ConsumerGroupMemberMetadata` |
//! | a member's target assignment | `ConsumerGroupTargetAssignmentMember` |
//! | the assignment epoch | `ConsumerGroupTargetAssignmentMetadata` |
//! | a member's epochs, state and current assignment | `ConsumerGroupCurrentMemberAssignment` |
//! | a resolved subscription regex | `ConsumerGroupRegularExpression` |
//!
//! Unlike a classic group, nothing here changes in memory first: operations compute records, the
//! shard replays them, and a reload replays the same records to the same groups. Soft state is
//! limited to timers.
//!
//! Lifecycle ([`ConsumerGroupState`], derived from the durable state as Kafka derives it): Empty
//! (no members), Assigning (group epoch ahead of the assignment epoch), Reconciling (a member is
//! not at the assignment epoch yet), Stable; Dead once deleted.

pub mod assignor;
pub mod classic_protocol;
mod fence;
pub mod heartbeat;
mod member;
pub mod reconcile;

pub use member::{
    Assignment, ClassicMemberMetadata, ConsumerMember, EpochAssignment, MemberState, with_epochs, without_epochs,
};

use std::collections::{BTreeMap, BTreeSet, HashMap};

use strand_base::Uuid;
use strand_protocol::messages::records::{GroupCoordinatorKey, GroupCoordinatorValue};

use super::records::CoordinatorRecord;

/// The protocol type ListGroups reports for consumer groups.
pub const CONSUMER_GROUP_PROTOCOL_TYPE: &str = "consumer";

/// The member epoch of a member that left.
pub const LEAVE_GROUP_MEMBER_EPOCH: i32 = -1;
/// The member epoch of a static member that left for now (it may come back).
pub const LEAVE_GROUP_STATIC_MEMBER_EPOCH: i32 = -2;

/// A consumer group's state, derived from its durable state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsumerGroupState {
    Empty,
    Assigning,
    Reconciling,
    Stable,
    Dead,
}

impl ConsumerGroupState {
    /// Kafka's name, as ListGroups and ConsumerGroupDescribe report it.
    pub fn name(self) -> &'static str {
        match self {
            ConsumerGroupState::Empty => "Empty",
            ConsumerGroupState::Assigning => "Assigning",
            ConsumerGroupState::Reconciling => "Reconciling",
            ConsumerGroupState::Stable => "Stable",
            ConsumerGroupState::Dead => "Dead",
        }
    }
}

/// The topics a regular expression matched, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedRegex {
    pub topics: BTreeSet<String>,
    /// The metadata version it was resolved against.
    pub version: i64,
    pub timestamp_ms: i64,
}

/// A KIP-848 consumer group.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsumerGroup {
    group_id: String,
    group_epoch: i32,
    metadata_hash: i64,
    assignment_epoch: i32,
    members: BTreeMap<String, ConsumerMember>,
    target: BTreeMap<String, Assignment>,
    regexes: BTreeMap<String, ResolvedRegex>,
    /// Derived: member id by instance id.
    static_members: HashMap<String, String>,
    /// Derived: the epoch of the member holding (or revoking) each partition.
    partition_epochs: HashMap<(Uuid, i32), i32>,
}

impl ConsumerGroup {
    pub fn new(group_id: &str) -> Self {
        ConsumerGroup { group_id: group_id.to_owned(), ..ConsumerGroup::default() }
    }

    pub fn group_id(&self) -> &str {
        &self.group_id
    }

    pub fn group_epoch(&self) -> i32 {
        self.group_epoch
    }

    pub fn metadata_hash(&self) -> i64 {
        self.metadata_hash
    }

    pub fn assignment_epoch(&self) -> i32 {
        self.assignment_epoch
    }

    pub fn state(&self) -> ConsumerGroupState {
        if self.members.is_empty() {
            ConsumerGroupState::Empty
        } else if self.group_epoch > self.assignment_epoch {
            ConsumerGroupState::Assigning
        } else if self.members.values().any(|m| !m.is_reconciled_to(self.assignment_epoch)) {
            ConsumerGroupState::Reconciling
        } else {
            ConsumerGroupState::Stable
        }
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    pub fn members(&self) -> impl Iterator<Item = &ConsumerMember> {
        self.members.values()
    }

    pub fn member(&self, member_id: &str) -> Option<&ConsumerMember> {
        self.members.get(member_id)
    }

    pub fn member_count(&self) -> usize {
        self.members.len()
    }

    pub fn static_member(&self, instance_id: &str) -> Option<&ConsumerMember> {
        self.static_members.get(instance_id).and_then(|id| self.members.get(id))
    }

    /// A member's target assignment (empty if it has none).
    pub fn target(&self, member_id: &str) -> Assignment {
        self.target.get(member_id).cloned().unwrap_or_default()
    }

    pub fn targets(&self) -> &BTreeMap<String, Assignment> {
        &self.target
    }

    pub fn regexes(&self) -> &BTreeMap<String, ResolvedRegex> {
        &self.regexes
    }

    /// The epoch of the member that holds `partition` of `topic_id`, if one does.
    pub fn partition_epoch(&self, topic_id: Uuid, partition: i32) -> Option<i32> {
        self.partition_epochs.get(&(topic_id, partition)).copied()
    }

    /// The topics `member` subscribes to: its names plus its regex's resolved topics.
    pub fn member_topics(&self, member: &ConsumerMember) -> BTreeSet<String> {
        let mut topics = member.subscribed_topic_names.clone();
        if let Some(resolved) = member.regex().and_then(|r| self.regexes.get(r)) {
            topics.extend(resolved.topics.iter().cloned());
        }
        topics
    }

    /// Every topic some member subscribes to (names and resolved regexes), with `replacing`
    /// standing in for the member of its id (`None` to leave it out).
    pub fn subscribed_topics_with(&self, member_id: &str, replacing: Option<&ConsumerMember>) -> BTreeSet<String> {
        let mut topics = BTreeSet::new();
        for member in self.members.values().filter(|m| m.member_id != member_id).chain(replacing) {
            topics.extend(member.subscribed_topic_names.iter().cloned());
            if let Some(resolved) = member.regex().and_then(|r| self.regexes.get(r)) {
                topics.extend(resolved.topics.iter().cloned());
            }
        }
        topics
    }

    pub fn subscribed_topics(&self) -> BTreeSet<String> {
        self.subscribed_topics_with("", None)
    }

    /// Whether a member subscribes to `topic` (OffsetDelete and offset expiry spare its offsets).
    pub fn is_subscribed_to_topic(&self, topic: &str) -> bool {
        self.members
            .values()
            .any(|m| m.subscribes_to(topic, |regex| self.regexes.get(regex).is_some_and(|r| r.topics.contains(topic))))
    }

    /// The regular expressions members subscribe with.
    pub fn subscribed_regexes(&self) -> BTreeSet<String> {
        self.members.values().filter_map(|m| m.regex().map(str::to_owned)).collect()
    }

    /// The server assignor most members ask for (ties go to the first name), if any asks.
    pub fn preferred_server_assignor(&self) -> Option<String> {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for member in self.members.values() {
            if let Some(assignor) = member.server_assignor.as_deref() {
                *counts.entry(assignor).or_default() += 1;
            }
        }
        let best = counts.values().copied().max()?;
        counts.into_iter().find(|(_, count)| *count == best).map(|(name, _)| name.to_owned())
    }

    /// How many members use the classic protocol.
    pub fn classic_member_count(&self) -> usize {
        self.members.values().filter(|m| m.uses_classic_protocol()).count()
    }

    /// Whether a classic member of `protocol_type` offering `protocols` may join (Kafka's
    /// `supportsClassicProtocols`): the consumer protocol type, and a protocol every classic member
    /// supports (any, while no member uses the classic protocol).
    pub fn supports_classic_protocols<'a>(
        &self,
        protocol_type: &str,
        mut protocols: impl Iterator<Item = &'a str>,
    ) -> bool {
        if protocol_type != CONSUMER_GROUP_PROTOCOL_TYPE {
            return false;
        }
        if self.is_empty() {
            return protocols.next().is_some();
        }
        let classic: Vec<&ClassicMemberMetadata> = self.members.values().filter_map(|m| m.classic.as_ref()).collect();
        protocols.any(|name| classic.iter().all(|c| c.supported_protocols.iter().any(|p| p.name == name)))
    }

    /// Whether every member but those in `leaving` uses the classic protocol (Kafka's
    /// `allMembersUseClassicProtocolExcept`).
    pub fn all_members_use_classic_protocol_except(&self, leaving: &BTreeSet<String>) -> bool {
        self.members.values().filter(|m| !leaving.contains(&m.member_id)).all(ConsumerMember::uses_classic_protocol)
    }

    /// Whether a member in UnreleasedPartitions still waits for a partition of its target that
    /// another member holds (Kafka's `waitingOnUnreleasedPartition`).
    pub fn waiting_on_unreleased_partition(&self, member: &ConsumerMember) -> bool {
        if member.state != MemberState::UnreleasedPartitions {
            return false;
        }
        let target = self.target(&member.member_id);
        target.iter().any(|(topic, partitions)| {
            partitions.iter().any(|partition| {
                let assigned = member.assigned.get(topic).is_some_and(|p| p.contains_key(partition));
                !assigned && self.partition_epoch(*topic, *partition).is_some()
            })
        })
    }

    /// The tombstones that delete the group, in Kafka's order (`createGroupTombstoneRecords`).
    pub fn tombstones(&self) -> Vec<CoordinatorRecord> {
        let group = self.group_id.as_str();
        let mut records = Vec::new();
        records.extend(self.members.keys().map(|m| CoordinatorRecord::consumer_current_assignment_tombstone(group, m)));
        records.extend(self.target.keys().map(|m| CoordinatorRecord::consumer_target_assignment_tombstone(group, m)));
        records.push(CoordinatorRecord::consumer_target_assignment_metadata_tombstone(group));
        records.extend(self.members.keys().map(|m| CoordinatorRecord::consumer_member_tombstone(group, m)));
        records.extend(self.regexes.keys().map(|r| CoordinatorRecord::consumer_regex_tombstone(group, r)));
        records.push(CoordinatorRecord::consumer_partition_metadata_tombstone(group));
        records.push(CoordinatorRecord::consumer_group_epoch_tombstone(group));
        records
    }

    /// Applies one of the group's records. Returns false when the record deletes the group.
    pub(crate) fn replay(&mut self, key: &GroupCoordinatorKey, value: Option<&GroupCoordinatorValue>) -> bool {
        match (key, value) {
            (
                GroupCoordinatorKey::ConsumerGroupMetadataKey(_),
                Some(GroupCoordinatorValue::ConsumerGroupMetadataValue(v)),
            ) => {
                self.group_epoch = v.epoch;
                self.metadata_hash = v.metadata_hash;
            }
            (GroupCoordinatorKey::ConsumerGroupMetadataKey(_), None) => return false,
            (
                GroupCoordinatorKey::ConsumerGroupMemberMetadataKey(k),
                Some(GroupCoordinatorValue::ConsumerGroupMemberMetadataValue(v)),
            ) => {
                let mut member = self.take_member(&k.member_id);
                member.update_with_metadata(v);
                self.put_member(member);
            }
            (GroupCoordinatorKey::ConsumerGroupMemberMetadataKey(k), None) => {
                let member = self.take_member(&k.member_id);
                drop(member);
            }
            (
                GroupCoordinatorKey::ConsumerGroupTargetAssignmentMemberKey(k),
                Some(GroupCoordinatorValue::ConsumerGroupTargetAssignmentMemberValue(v)),
            ) => {
                let mut assignment = Assignment::new();
                for topic in &v.topic_partitions {
                    assignment.entry(topic.topic_id).or_default().extend(topic.partitions.iter().copied());
                }
                assignment.retain(|_, partitions| !partitions.is_empty());
                self.target.insert(k.member_id.clone(), assignment);
            }
            (GroupCoordinatorKey::ConsumerGroupTargetAssignmentMemberKey(k), None) => {
                self.target.remove(&k.member_id);
            }
            (
                GroupCoordinatorKey::ConsumerGroupTargetAssignmentMetadataKey(_),
                Some(GroupCoordinatorValue::ConsumerGroupTargetAssignmentMetadataValue(v)),
            ) => self.assignment_epoch = v.assignment_epoch,
            (GroupCoordinatorKey::ConsumerGroupTargetAssignmentMetadataKey(_), None) => self.assignment_epoch = -1,
            (
                GroupCoordinatorKey::ConsumerGroupCurrentMemberAssignmentKey(k),
                Some(GroupCoordinatorValue::ConsumerGroupCurrentMemberAssignmentValue(v)),
            ) => {
                let mut member = self.take_member(&k.member_id);
                member.update_with_assignment(v);
                self.put_member(member);
            }
            (GroupCoordinatorKey::ConsumerGroupCurrentMemberAssignmentKey(k), None) => {
                // The member is on its way out: it holds nothing any more.
                if self.members.contains_key(&k.member_id) {
                    let mut member = self.take_member(&k.member_id);
                    member.member_epoch = LEAVE_GROUP_MEMBER_EPOCH;
                    member.previous_member_epoch = LEAVE_GROUP_MEMBER_EPOCH;
                    member.assigned.clear();
                    member.pending_revocation.clear();
                    self.put_member(member);
                }
            }
            (
                GroupCoordinatorKey::ConsumerGroupRegularExpressionKey(k),
                Some(GroupCoordinatorValue::ConsumerGroupRegularExpressionValue(v)),
            ) => {
                let resolved = ResolvedRegex {
                    topics: v.topics.iter().cloned().collect(),
                    version: v.version,
                    timestamp_ms: v.timestamp,
                };
                self.regexes.insert(k.regular_expression.clone(), resolved);
            }
            (GroupCoordinatorKey::ConsumerGroupRegularExpressionKey(k), None) => {
                self.regexes.remove(&k.regular_expression);
            }
            // Written by Kafka before 4.1; 4.4 only deletes it. Nothing of it is kept.
            (GroupCoordinatorKey::ConsumerGroupPartitionMetadataKey(_), _) => {}
            (key, _) => {
                tracing::warn!(group = %self.group_id, record_type = key.api_key(), "a consumer group record with an unexpected value");
            }
        }
        true
    }

    /// Removes a member (or makes a fresh one), keeping the derived maps in step.
    fn take_member(&mut self, member_id: &str) -> ConsumerMember {
        match self.members.remove(member_id) {
            Some(member) => {
                self.forget_partitions(&member);
                if let Some(instance) = &member.instance_id
                    && self.static_members.get(instance).is_some_and(|id| id == member_id)
                {
                    self.static_members.remove(instance);
                }
                member
            }
            None => ConsumerMember::new(member_id.to_owned()),
        }
    }

    fn put_member(&mut self, member: ConsumerMember) {
        for assignment in [&member.assigned, &member.pending_revocation] {
            for (topic, partitions) in assignment {
                for partition in partitions.keys() {
                    self.partition_epochs.insert((*topic, *partition), member.member_epoch);
                }
            }
        }
        if let Some(instance) = &member.instance_id {
            self.static_members.insert(instance.clone(), member.member_id.clone());
        }
        self.members.insert(member.member_id.clone(), member);
    }

    fn forget_partitions(&mut self, member: &ConsumerMember) {
        for assignment in [&member.assigned, &member.pending_revocation] {
            for (topic, partitions) in assignment {
                for partition in partitions.keys() {
                    if self.partition_epochs.get(&(*topic, *partition)) == Some(&member.member_epoch) {
                        self.partition_epochs.remove(&(*topic, *partition));
                    }
                }
            }
        }
    }
}

/// The group id of a consumer group record, if `key` is one.
pub fn record_group_id(key: &GroupCoordinatorKey) -> Option<&str> {
    match key {
        GroupCoordinatorKey::ConsumerGroupMetadataKey(k) => Some(&k.group_id),
        GroupCoordinatorKey::ConsumerGroupPartitionMetadataKey(k) => Some(&k.group_id),
        GroupCoordinatorKey::ConsumerGroupMemberMetadataKey(k) => Some(&k.group_id),
        GroupCoordinatorKey::ConsumerGroupTargetAssignmentMetadataKey(k) => Some(&k.group_id),
        GroupCoordinatorKey::ConsumerGroupTargetAssignmentMemberKey(k) => Some(&k.group_id),
        GroupCoordinatorKey::ConsumerGroupCurrentMemberAssignmentKey(k) => Some(&k.group_id),
        GroupCoordinatorKey::ConsumerGroupRegularExpressionKey(k) => Some(&k.group_id),
        _ => None,
    }
}
