//! Topics and partitions, from `TopicRecord`, `PartitionRecord`, `PartitionChangeRecord`,
//! `RemoveTopicRecord` and `ClearElrRecord`, as Kafka's `TopicsImage` and `PartitionRegistration`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use imbl::OrdMap;
use imbl::ordmap::DiffItem;
use strand_base::{BrokerId, Uuid};
use strand_protocol::messages::{PartitionChangeRecord, PartitionRecord, TopicRecord};

use super::ReplayError;

/// A partition with no leader (`LeaderConstants.NO_LEADER`).
pub const NO_LEADER: BrokerId = BrokerId(-1);
/// In a `PartitionChangeRecord`, "the leader stays" (`LeaderConstants.NO_LEADER_CHANGE`); any
/// other value, `NO_LEADER` included, sets the leader and bumps the leader epoch.
pub const NO_LEADER_CHANGE: BrokerId = BrokerId(-2);

/// A replica whose directory is not tracked (Kafka's `DirectoryId.MIGRATING`, all zeros).
pub const DIRECTORY_MIGRATING: Uuid = Uuid::ZERO;
/// A replica whose broker picks the directory (`DirectoryId.UNASSIGNED`).
pub const DIRECTORY_UNASSIGNED: Uuid = Uuid([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
/// A replica whose directory failed (`DirectoryId.LOST`).
pub const DIRECTORY_LOST: Uuid = Uuid([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);

/// Kafka's `DirectoryId.reserved`: ids below 100 are sentinels, never a real log dir.
pub fn is_reserved_directory(id: Uuid) -> bool {
    let bytes = id.0;
    bytes[..15].iter().all(|b| *b == 0) && bytes[15] < 100
}

/// Whether a partition's leader has all the data it should (Kafka's `LeaderRecoveryState`).
/// `Recovering` follows an unclean election until the new leader has recovered its log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaderRecoveryState {
    Recovered,
    Recovering,
}

impl LeaderRecoveryState {
    /// In a `PartitionChangeRecord`: the state does not change.
    pub const NO_CHANGE: i8 = -1;

    /// The state a wire value names, `None` for one Kafka does not define.
    pub fn from_wire(value: i8) -> Option<LeaderRecoveryState> {
        match value {
            0 => Some(LeaderRecoveryState::Recovered),
            1 => Some(LeaderRecoveryState::Recovering),
            _ => None,
        }
    }

    /// The wire value.
    pub fn wire(self) -> i8 {
        match self {
            LeaderRecoveryState::Recovered => 0,
            LeaderRecoveryState::Recovering => 1,
        }
    }

    /// Kafka's `changeTo`: [`Self::NO_CHANGE`] keeps the state, a defined value replaces it.
    pub fn change_to(self, value: i8) -> Option<LeaderRecoveryState> {
        if value == Self::NO_CHANGE { Some(self) } else { LeaderRecoveryState::from_wire(value) }
    }
}

/// One partition's replicas, ISR and leadership, as Kafka's `PartitionRegistration`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionImage {
    pub replicas: Vec<BrokerId>,
    /// One per replica, in replica order ([`DIRECTORY_MIGRATING`] when untracked).
    pub directories: Vec<Uuid>,
    pub isr: Vec<BrokerId>,
    pub removing_replicas: Vec<BrokerId>,
    pub adding_replicas: Vec<BrokerId>,
    /// [`NO_LEADER`] when the partition has none.
    pub leader: BrokerId,
    pub leader_recovery_state: LeaderRecoveryState,
    pub leader_epoch: i32,
    /// Bumped by every change to the partition.
    pub partition_epoch: i32,
    /// Eligible leader replicas (KIP-966).
    pub elr: Vec<BrokerId>,
    pub last_known_elr: Vec<BrokerId>,
}

impl PartitionImage {
    /// A partition as a `PartitionRecord` describes it.
    pub fn from_record(record: &PartitionRecord) -> Result<PartitionImage, ReplayError> {
        let directories =
            checked_directories(record.topic_id, record.partition_id, &record.directories, &record.replicas)?;
        let leader_recovery_state = LeaderRecoveryState::from_wire(record.leader_recovery_state)
            .ok_or(ReplayError::InvalidLeaderRecoveryState(record.leader_recovery_state))?;
        Ok(PartitionImage {
            directories: default_to_migrating(directories, record.replicas.len()),
            replicas: record.replicas.clone(),
            isr: record.isr.iter().copied().map(BrokerId).collect(),
            removing_replicas: record.removing_replicas.clone(),
            adding_replicas: record.adding_replicas.clone(),
            leader: record.leader,
            leader_recovery_state,
            leader_epoch: record.leader_epoch,
            partition_epoch: record.partition_epoch,
            elr: record.eligible_leader_replicas.clone().unwrap_or_default(),
            last_known_elr: record.last_known_elr.clone().unwrap_or_default(),
        })
    }

    /// Kafka's `PartitionRegistration.merge`: a change sets only the fields it carries; a leader
    /// other than [`NO_LEADER_CHANGE`] bumps the leader epoch; the partition epoch always grows.
    pub fn merge(&self, record: &PartitionChangeRecord) -> Result<PartitionImage, ReplayError> {
        let replicas = record.replicas.clone().unwrap_or_else(|| self.replicas.clone());
        let directories = match &record.directories {
            Some(directories) => {
                if let Some(new_replicas) = &record.replicas {
                    checked_directories(record.topic_id, record.partition_id, directories, new_replicas)?;
                }
                directories.clone()
            }
            None => self.directories.clone(),
        };
        let (leader, leader_epoch) = if record.leader == NO_LEADER_CHANGE {
            (self.leader, self.leader_epoch)
        } else {
            (record.leader, self.leader_epoch + 1)
        };
        let leader_recovery_state = self
            .leader_recovery_state
            .change_to(record.leader_recovery_state)
            .ok_or(ReplayError::InvalidLeaderRecoveryState(record.leader_recovery_state))?;
        Ok(PartitionImage {
            directories: default_to_migrating(directories, replicas.len()),
            replicas,
            isr: record.isr.clone().unwrap_or_else(|| self.isr.clone()),
            removing_replicas: record.removing_replicas.clone().unwrap_or_else(|| self.removing_replicas.clone()),
            adding_replicas: record.adding_replicas.clone().unwrap_or_else(|| self.adding_replicas.clone()),
            leader,
            leader_recovery_state,
            leader_epoch,
            partition_epoch: self.partition_epoch + 1,
            elr: record.eligible_leader_replicas.clone().unwrap_or_else(|| self.elr.clone()),
            last_known_elr: record.last_known_elr.clone().unwrap_or_else(|| self.last_known_elr.clone()),
        })
    }

    /// The `PartitionRecord` (latest version) that recreates this partition, as Kafka's
    /// `PartitionRegistration.toRecord`: the ELR fields are written only when non-empty.
    pub fn to_record(&self, topic_id: Uuid, partition_id: i32) -> PartitionRecord {
        PartitionRecord {
            partition_id,
            topic_id,
            replicas: self.replicas.clone(),
            isr: self.isr.iter().map(|b| b.0).collect(),
            removing_replicas: self.removing_replicas.clone(),
            adding_replicas: self.adding_replicas.clone(),
            leader: self.leader,
            leader_recovery_state: self.leader_recovery_state.wire(),
            leader_epoch: self.leader_epoch,
            partition_epoch: self.partition_epoch,
            directories: self.directories.clone(),
            eligible_leader_replicas: (!self.elr.is_empty()).then(|| self.elr.clone()),
            last_known_elr: (!self.last_known_elr.is_empty()).then(|| self.last_known_elr.clone()),
            unknown_tagged_fields: Vec::new(),
        }
    }

    /// Whether the partition has a leader.
    pub fn has_leader(&self) -> bool {
        self.leader.0 >= 0
    }

    /// Whether a reassignment is in progress: replicas are being added or removed (Kafka's
    /// `PartitionReassignmentReplicas.isReassignmentInProgress`).
    pub fn is_reassigning(&self) -> bool {
        !self.adding_replicas.is_empty() || !self.removing_replicas.is_empty()
    }
}

/// Kafka's `checkDirectories`: a non-empty directory list has one entry per replica.
fn checked_directories<'a>(
    topic_id: Uuid,
    partition: i32,
    directories: &'a [Uuid],
    replicas: &[BrokerId],
) -> Result<&'a [Uuid], ReplayError> {
    if !directories.is_empty() && directories.len() != replicas.len() {
        return Err(ReplayError::DirectoriesMismatch {
            topic_id,
            partition,
            replicas: replicas.len(),
            directories: directories.len(),
        });
    }
    Ok(directories)
}

/// Kafka's `defaultToMigrating`: a missing or all-`MIGRATING` list becomes one `MIGRATING` per
/// replica.
fn default_to_migrating(directories: impl Into<Vec<Uuid>>, replica_count: usize) -> Vec<Uuid> {
    let directories = directories.into();
    if directories.iter().all(|d| *d == DIRECTORY_MIGRATING) {
        vec![DIRECTORY_MIGRATING; replica_count]
    } else {
        directories
    }
}

/// One topic: its name, id and partitions by index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicImage {
    pub name: String,
    pub id: Uuid,
    pub partitions: BTreeMap<i32, PartitionImage>,
}

/// Every topic, by id and by name. The maps are persistent (`imbl`): the next image shares
/// them with this one and copies only the paths to what a delta changes, so replaying a batch
/// costs what it changes, not the number of topics. Topics are shared one by one (`Arc`), so a
/// delta copies only the topics it changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopicsImage {
    by_id: OrdMap<Uuid, Arc<TopicImage>>,
    by_name: OrdMap<String, Uuid>,
    /// The names holding `.` or `_`, by their spelling with every `.` read as `_` (Kafka's
    /// `topicsWithCollisionChars`): the collision check is a lookup, not a scan of every topic.
    by_unified_name: OrdMap<String, BTreeSet<String>>,
}

impl TopicsImage {
    /// The topic with id `id`.
    pub fn by_id(&self, id: Uuid) -> Option<&TopicImage> {
        self.by_id.get(&id).map(Arc::as_ref)
    }

    /// The topic named `name`.
    pub fn by_name(&self, name: &str) -> Option<&TopicImage> {
        self.by_id(*self.by_name.get(name)?)
    }

    /// Every topic, by ascending name.
    pub fn iter(&self) -> impl Iterator<Item = &TopicImage> {
        self.by_name.values().filter_map(|id| self.by_id(*id))
    }

    /// A topic other than `name` whose name is spelled the same with `.` read as `_` (Kafka's
    /// collision check), if there is one.
    pub fn colliding_name(&self, name: &str) -> Option<&str> {
        let unified = unified_name(name)?;
        self.by_unified_name.get(&unified)?.iter().map(String::as_str).find(|other| *other != name)
    }

    /// The names of the topics that differ between `self` and `newer`: added, removed, or
    /// changed (both names, should one change). Only the parts of the two persistent maps they do
    /// not share are walked, so the cost grows with what changed, not with the number of topics.
    pub fn changed_names(&self, newer: &TopicsImage) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        for item in self.by_id.diff(&newer.by_id) {
            match item {
                DiffItem::Add(_, topic) | DiffItem::Remove(_, topic) => {
                    names.insert(topic.name.clone());
                }
                DiffItem::Update { old: (_, old), new: (_, new) } => {
                    names.insert(old.name.clone());
                    names.insert(new.name.clone());
                }
            }
        }
        names
    }

    /// Topic names and their ids, by name.
    pub fn names(&self) -> &OrdMap<String, Uuid> {
        &self.by_name
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// A new topic, with no partitions yet. Reusing a live name or id is an error: Kafka never
    /// writes one, and accepting it would leave one of the two maps pointing at the wrong topic.
    pub(super) fn replay_topic(&mut self, record: &TopicRecord) -> Result<(), ReplayError> {
        if self.by_name.contains_key(&record.name) || self.by_id.contains_key(&record.topic_id) {
            return Err(ReplayError::DuplicateTopic { name: record.name.clone(), id: record.topic_id });
        }
        let topic = TopicImage { name: record.name.clone(), id: record.topic_id, partitions: BTreeMap::new() };
        self.by_name.insert(record.name.clone(), record.topic_id);
        self.by_id.insert(record.topic_id, Arc::new(topic));
        if let Some(unified) = unified_name(&record.name) {
            self.by_unified_name.entry(unified).or_default().insert(record.name.clone());
        }
        Ok(())
    }

    /// A partition record creates the partition, or replaces it whole.
    pub(super) fn replay_partition(&mut self, record: &PartitionRecord) -> Result<(), ReplayError> {
        if record.partition_id < 0 {
            return Err(ReplayError::InvalidPartitionId { topic_id: record.topic_id, partition: record.partition_id });
        }
        let partition = PartitionImage::from_record(record)?;
        self.topic_mut(record.topic_id)?.partitions.insert(record.partition_id, partition);
        Ok(())
    }

    pub(super) fn replay_partition_change(&mut self, record: &PartitionChangeRecord) -> Result<(), ReplayError> {
        let unknown = ReplayError::UnknownPartition { topic_id: record.topic_id, partition: record.partition_id };
        let current = self.by_id(record.topic_id).ok_or(ReplayError::UnknownTopicId(record.topic_id))?;
        let next = current.partitions.get(&record.partition_id).ok_or(unknown)?.merge(record)?;
        self.topic_mut(record.topic_id)?.partitions.insert(record.partition_id, next);
        Ok(())
    }

    /// Removes the topic and its partitions; returns its name so its configs can go too.
    pub(super) fn replay_remove(&mut self, topic_id: Uuid) -> Result<String, ReplayError> {
        let topic = self.by_id.remove(&topic_id).ok_or(ReplayError::UnknownTopicId(topic_id))?;
        self.by_name.remove(&topic.name);
        if let Some(unified) = unified_name(&topic.name)
            && let Some(names) = self.by_unified_name.get_mut(&unified)
        {
            names.remove(&topic.name);
            if names.is_empty() {
                self.by_unified_name.remove(&unified);
            }
        }
        Ok(topic.name.clone())
    }

    /// Kafka's `ClearElrRecord`: empties the ELR and last known ELR of one topic's partitions, or
    /// every topic's when the name is empty; each partition changed gets a new partition epoch.
    pub(super) fn replay_clear_elr(&mut self, topic_name: &str) -> Result<(), ReplayError> {
        let ids: Vec<Uuid> = if topic_name.is_empty() {
            self.by_id.keys().copied().collect()
        } else {
            vec![*self.by_name.get(topic_name).ok_or_else(|| ReplayError::UnknownTopicName(topic_name.to_owned()))?]
        };
        for id in ids {
            let needs_clearing = self
                .by_id(id)
                .is_some_and(|t| t.partitions.values().any(|p| !p.elr.is_empty() || !p.last_known_elr.is_empty()));
            if !needs_clearing {
                continue;
            }
            for partition in self.topic_mut(id)?.partitions.values_mut() {
                if !partition.elr.is_empty() || !partition.last_known_elr.is_empty() {
                    partition.elr.clear();
                    partition.last_known_elr.clear();
                    partition.partition_epoch += 1;
                }
            }
        }
        Ok(())
    }

    fn topic_mut(&mut self, id: Uuid) -> Result<&mut TopicImage, ReplayError> {
        self.by_id.get_mut(&id).map(Arc::make_mut).ok_or(ReplayError::UnknownTopicId(id))
    }
}

/// `name` with `.` read as `_` (Kafka's `Topic.unifyCollisionChars`), for names that hold either.
fn unified_name(name: &str) -> Option<String> {
    name.contains(['.', '_']).then(|| name.replace('.', "_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every state and every wire value: NO_CHANGE keeps the state, 0 and 1 set it, anything
    /// else is refused.
    #[test]
    fn leader_recovery_state_transitions_are_exhaustive() {
        for from in [LeaderRecoveryState::Recovered, LeaderRecoveryState::Recovering] {
            for value in i8::MIN..=i8::MAX {
                let expected = match value {
                    -1 => Some(from),
                    0 => Some(LeaderRecoveryState::Recovered),
                    1 => Some(LeaderRecoveryState::Recovering),
                    _ => None,
                };
                assert_eq!(from.change_to(value), expected, "{from:?} -> {value}");
            }
            assert_eq!(LeaderRecoveryState::from_wire(from.wire()), Some(from));
        }
    }

    /// Only sentinel ids below 100 are reserved directories.
    #[test]
    fn reserved_directories() {
        assert!(is_reserved_directory(DIRECTORY_MIGRATING));
        assert!(is_reserved_directory(DIRECTORY_UNASSIGNED));
        assert!(is_reserved_directory(DIRECTORY_LOST));
        assert!(!is_reserved_directory(Uuid([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 100])));
        assert!(!is_reserved_directory(Uuid([1; 16])));
    }
}
