//! A consumer group member (KIP-848): its subscription (from `ConsumerGroupMemberMetadata`) and its
//! current assignment (from `ConsumerGroupCurrentMemberAssignment`), with the epochs at which each
//! partition was assigned to it (Kafka 4.4's `assignment_epochs`). A member that speaks the classic
//! protocol (JoinGroup/SyncGroup, online migration) carries its [`ClassicMemberMetadata`] too.

use std::collections::{BTreeMap, BTreeSet};

use strand_base::Uuid;
use strand_protocol::messages::consumer_group_current_member_assignment_value::TopicPartitions as RecordPartitions;
use strand_protocol::messages::consumer_group_member_metadata_value::{
    ClassicMemberMetadata as RecordClassicMetadata, ClassicProtocol,
};
use strand_protocol::messages::{ConsumerGroupCurrentMemberAssignmentValue, ConsumerGroupMemberMetadataValue};

/// Partitions by topic id: a target assignment, or a member's partitions without their epochs.
pub type Assignment = BTreeMap<Uuid, BTreeSet<i32>>;

/// Partitions by topic id, each with the member epoch at which it was assigned.
pub type EpochAssignment = BTreeMap<Uuid, BTreeMap<i32, i32>>;

/// Where a member stands in its reconciliation (Kafka's `MemberState`, with its record values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberState {
    /// At its target assignment, or moving to it with nothing to wait for.
    Stable,
    /// Waiting for the member to give up partitions (it must revoke them first).
    UnrevokedPartitions,
    /// Waiting for other members to release partitions of its target.
    UnreleasedPartitions,
    /// A value this build does not know (a newer Kafka's): the member is fenced at its next
    /// heartbeat unless it owns nothing.
    Unknown,
}

impl MemberState {
    pub fn value(self) -> i8 {
        match self {
            MemberState::Stable => 0,
            MemberState::UnrevokedPartitions => 1,
            MemberState::UnreleasedPartitions => 2,
            MemberState::Unknown => 127,
        }
    }

    pub fn from_value(value: i8) -> Self {
        match value {
            0 => MemberState::Stable,
            1 => MemberState::UnrevokedPartitions,
            2 => MemberState::UnreleasedPartitions,
            _ => MemberState::Unknown,
        }
    }
}

/// What a member using the classic protocol told its JoinGroup: its session timeout and the
/// protocols (assignors) it supports, in its order of preference, with their embedded consumer
/// protocol subscriptions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicMemberMetadata {
    pub session_timeout_ms: i32,
    pub supported_protocols: Vec<crate::group::classic::Protocol>,
}

impl ClassicMemberMetadata {
    fn to_record(&self) -> RecordClassicMetadata {
        RecordClassicMetadata {
            session_timeout_ms: self.session_timeout_ms,
            supported_protocols: self
                .supported_protocols
                .iter()
                .map(|p| ClassicProtocol { name: p.name.clone(), metadata: p.metadata.clone(), ..Default::default() })
                .collect(),
            ..RecordClassicMetadata::default()
        }
    }

    fn from_record(value: &RecordClassicMetadata) -> Self {
        ClassicMemberMetadata {
            session_timeout_ms: value.session_timeout_ms,
            supported_protocols: value
                .supported_protocols
                .iter()
                .map(|p| crate::group::classic::Protocol { name: p.name.clone(), metadata: p.metadata.clone() })
                .collect(),
        }
    }

    /// The protocol a JoinGroup answer names: the member's first.
    pub fn protocol_name(&self) -> &str {
        self.supported_protocols.first().map_or("", |p| p.name.as_str())
    }
}

/// A member of a consumer group, as its records describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerMember {
    pub member_id: String,
    /// Set for a static member (KIP-345).
    pub instance_id: Option<String>,
    pub rack_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub subscribed_topic_names: BTreeSet<String>,
    /// Empty when the member subscribes by names only (Kafka keeps `""`, not null).
    pub subscribed_topic_regex: String,
    /// -1 until the member's first heartbeat gives one.
    pub rebalance_timeout_ms: i32,
    pub server_assignor: Option<String>,
    /// -1 once the member left; -2 while a static member is away (it may come back).
    pub member_epoch: i32,
    pub previous_member_epoch: i32,
    pub state: MemberState,
    pub assigned: EpochAssignment,
    pub pending_revocation: EpochAssignment,
    /// Set for a member using the classic protocol (it joined with JoinGroup).
    pub classic: Option<ClassicMemberMetadata>,
}

impl ConsumerMember {
    /// A member known by id only, as a record for it creates it before its other records.
    pub fn new(member_id: String) -> Self {
        ConsumerMember {
            member_id,
            instance_id: None,
            rack_id: None,
            client_id: String::new(),
            client_host: String::new(),
            subscribed_topic_names: BTreeSet::new(),
            subscribed_topic_regex: String::new(),
            rebalance_timeout_ms: -1,
            server_assignor: None,
            member_epoch: 0,
            previous_member_epoch: -1,
            state: MemberState::Stable,
            assigned: EpochAssignment::new(),
            pending_revocation: EpochAssignment::new(),
            classic: None,
        }
    }

    /// Whether the member speaks the classic protocol (JoinGroup, SyncGroup, Heartbeat).
    pub fn uses_classic_protocol(&self) -> bool {
        self.classic.is_some()
    }

    /// Whether the member is at `target_epoch` with nothing left to do.
    pub fn is_reconciled_to(&self, target_epoch: i32) -> bool {
        self.state == MemberState::Stable && self.member_epoch == target_epoch
    }

    /// The assigned partitions without their epochs.
    pub fn assigned_partitions(&self) -> Assignment {
        without_epochs(&self.assigned)
    }

    pub fn pending_revocation_partitions(&self) -> Assignment {
        without_epochs(&self.pending_revocation)
    }

    /// The epoch at which `partition` of `topic_id` was assigned to the member, whether it still
    /// holds it or is revoking it.
    pub fn assignment_epoch(&self, topic_id: Uuid, partition: i32) -> Option<i32> {
        let of = |assignment: &EpochAssignment| assignment.get(&topic_id).and_then(|p| p.get(&partition)).copied();
        of(&self.assigned).or_else(|| of(&self.pending_revocation))
    }

    /// The subscription part of the member as its record holds it (topic names sorted, as Kafka
    /// writes them).
    pub fn to_metadata_value(&self) -> ConsumerGroupMemberMetadataValue {
        ConsumerGroupMemberMetadataValue {
            instance_id: self.instance_id.clone(),
            rack_id: self.rack_id.clone(),
            client_id: self.client_id.clone(),
            client_host: self.client_host.clone(),
            subscribed_topic_names: self.subscribed_topic_names.iter().cloned().collect(),
            subscribed_topic_regex: Some(self.subscribed_topic_regex.clone()),
            rebalance_timeout_ms: self.rebalance_timeout_ms,
            server_assignor: self.server_assignor.clone(),
            classic_member_metadata: self.classic.as_ref().map(ClassicMemberMetadata::to_record),
            ..ConsumerGroupMemberMetadataValue::default()
        }
    }

    pub fn update_with_metadata(&mut self, value: &ConsumerGroupMemberMetadataValue) {
        self.instance_id = value.instance_id.clone();
        self.rack_id = value.rack_id.clone();
        self.client_id = value.client_id.clone();
        self.client_host = value.client_host.clone();
        self.subscribed_topic_names = value.subscribed_topic_names.iter().cloned().collect();
        self.subscribed_topic_regex = value.subscribed_topic_regex.clone().unwrap_or_default();
        self.rebalance_timeout_ms = value.rebalance_timeout_ms;
        self.server_assignor = value.server_assignor.clone();
        self.classic = value.classic_member_metadata.as_ref().map(ClassicMemberMetadata::from_record);
    }

    /// The assignment part of the member as its record holds it.
    pub fn to_assignment_value(&self) -> ConsumerGroupCurrentMemberAssignmentValue {
        ConsumerGroupCurrentMemberAssignmentValue {
            member_epoch: self.member_epoch,
            previous_member_epoch: self.previous_member_epoch,
            state: self.state.value(),
            assigned_partitions: to_record_partitions(&self.assigned),
            partitions_pending_revocation: to_record_partitions(&self.pending_revocation),
            ..ConsumerGroupCurrentMemberAssignmentValue::default()
        }
    }

    pub fn update_with_assignment(&mut self, value: &ConsumerGroupCurrentMemberAssignmentValue) {
        self.member_epoch = value.member_epoch;
        self.previous_member_epoch = value.previous_member_epoch;
        self.state = MemberState::from_value(value.state);
        self.assigned = from_record_partitions(&value.assigned_partitions, value.member_epoch);
        self.pending_revocation = from_record_partitions(&value.partitions_pending_revocation, value.member_epoch);
    }

    /// The member's regex, if it subscribes with one.
    pub fn regex(&self) -> Option<&str> {
        Some(self.subscribed_topic_regex.as_str()).filter(|r| !r.is_empty())
    }

    /// Whether the member subscribes to `topic` (by name, or through its regex's `resolved`
    /// topics).
    pub fn subscribes_to(&self, topic: &str, resolved: impl Fn(&str) -> bool) -> bool {
        self.subscribed_topic_names.contains(topic)
            || (!self.subscribed_topic_regex.is_empty() && resolved(&self.subscribed_topic_regex))
    }
}

/// `assignment` with every partition at `epoch`.
pub fn with_epochs(assignment: &Assignment, epoch: i32) -> EpochAssignment {
    assignment.iter().map(|(topic, partitions)| (*topic, partitions.iter().map(|p| (*p, epoch)).collect())).collect()
}

pub fn without_epochs(assignment: &EpochAssignment) -> Assignment {
    assignment.iter().map(|(topic, partitions)| (*topic, partitions.keys().copied().collect())).collect()
}

fn to_record_partitions(assignment: &EpochAssignment) -> Vec<RecordPartitions> {
    assignment
        .iter()
        .map(|(topic_id, partitions)| RecordPartitions {
            topic_id: *topic_id,
            partitions: partitions.keys().copied().collect(),
            assignment_epochs: Some(partitions.values().copied().collect()),
            ..RecordPartitions::default()
        })
        .collect()
}

/// A record's partitions; records without epochs (older Kafka) count every partition as assigned
/// at `default_epoch`.
fn from_record_partitions(topics: &[RecordPartitions], default_epoch: i32) -> EpochAssignment {
    let mut assignment = EpochAssignment::new();
    for topic in topics {
        let epochs = topic.assignment_epochs.as_ref().filter(|e| e.len() == topic.partitions.len());
        let entry = assignment.entry(topic.topic_id).or_default();
        for (i, partition) in topic.partitions.iter().enumerate() {
            let epoch = epochs.and_then(|e| e.get(i)).copied().unwrap_or(default_epoch);
            entry.insert(*partition, epoch);
        }
        if entry.is_empty() {
            assignment.remove(&topic.topic_id);
        }
    }
    assignment
}
