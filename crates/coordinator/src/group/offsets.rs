//! Committed offsets: the [`OffsetStore`] and the operations on it (OffsetCommit, OffsetFetch,
//! OffsetDelete, and the `offsets.retention.minutes` expiry), as Kafka's `OffsetMetadataManager`.
//!
//! The store changes only by replaying offset commit records and their tombstones. Operations here
//! take requests whose topics are named (the runtime resolves OffsetCommit and OffsetFetch v10's
//! topic ids to names first).

use std::collections::{BTreeMap, BTreeSet};

use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::offset_commit_request::{OffsetCommitRequestPartition, OffsetCommitRequestTopic};
use strand_protocol::messages::offset_commit_response::{OffsetCommitResponsePartition, OffsetCommitResponseTopic};
use strand_protocol::messages::offset_delete_response::{OffsetDeleteResponsePartition, OffsetDeleteResponseTopic};
use strand_protocol::messages::offset_fetch_request::OffsetFetchRequestGroup;
use strand_protocol::messages::offset_fetch_response::{
    OffsetFetchResponseGroup, OffsetFetchResponsePartitions, OffsetFetchResponseTopics,
};
use strand_protocol::messages::{OffsetCommitRequest, OffsetCommitResponse, OffsetDeleteRequest, OffsetDeleteResponse};

use super::classic::rebalance::{self, Ctx};
use super::classic::{ClassicGroup, ClassicGroupState};
use super::consumer::ConsumerGroup;
use super::records::{CoordinatorRecord, OffsetAndMetadata, batch_fits};
use super::{Effects, Group, GroupShard, Output};

/// The offset OffsetFetch reports for a partition without a committed offset.
pub const NO_OFFSET: i64 = -1;

/// Committed offsets by group, topic and partition, each with the position of the record that
/// wrote it in the shard's replay order (see [`super::txn_offsets`]: a transaction's commit
/// does not override a later one).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct OffsetStore {
    by_group: BTreeMap<String, BTreeMap<String, BTreeMap<i32, OffsetAndMetadata>>>,
    positions: BTreeMap<(String, String, i32), u64>,
}

impl OffsetStore {
    pub fn get(&self, group: &str, topic: &str, partition: i32) -> Option<&OffsetAndMetadata> {
        self.by_group.get(group)?.get(topic)?.get(&partition)
    }

    /// A group's offsets by topic and partition.
    pub fn group(&self, group: &str) -> Option<&BTreeMap<String, BTreeMap<i32, OffsetAndMetadata>>> {
        self.by_group.get(group)
    }

    /// Every group with offsets, in order.
    pub fn groups(&self) -> impl Iterator<Item = (&String, &BTreeMap<String, BTreeMap<i32, OffsetAndMetadata>>)> {
        self.by_group.iter()
    }

    /// The replay position of the record that wrote the partition's committed offset.
    pub(crate) fn position(&self, group: &str, topic: &str, partition: i32) -> Option<u64> {
        self.positions.get(&(group.to_owned(), topic.to_owned(), partition)).copied()
    }

    pub(crate) fn put(&mut self, group: &str, topic: &str, partition: i32, position: u64, offset: OffsetAndMetadata) {
        self.positions.insert((group.to_owned(), topic.to_owned(), partition), position);
        self.by_group
            .entry(group.to_owned())
            .or_default()
            .entry(topic.to_owned())
            .or_default()
            .insert(partition, offset);
    }

    pub(crate) fn remove(&mut self, group: &str, topic: &str, partition: i32) {
        self.positions.remove(&(group.to_owned(), topic.to_owned(), partition));
        let Some(topics) = self.by_group.get_mut(group) else {
            return;
        };
        if let Some(partitions) = topics.get_mut(topic) {
            partitions.remove(&partition);
            if partitions.is_empty() {
                topics.remove(topic);
            }
        }
        if topics.is_empty() {
            self.by_group.remove(group);
        }
    }
}

impl GroupShard {
    /// OffsetCommit, with every topic named. Commits from a group's members are checked against
    /// its generation; commits with generation -1 (and no member id) come from outside group
    /// management and are accepted while the group is Empty or does not exist (which creates a
    /// "simple" group).
    pub fn offset_commit(
        &mut self,
        now_ms: i64,
        request: &OffsetCommitRequest,
        version: i16,
    ) -> Output<OffsetCommitResponse> {
        let mut effects = Effects::default();
        let check = match self.validate_offset_commit(now_ms, request, version, &mut effects) {
            Ok(check) => check,
            Err(error) => return Output::new(effects, offset_commit_error(request, error)),
        };
        // The retention time is the client's `i64`: saturate (Kafka's `long` would wrap negative,
        // expiring the offset at once).
        let expire_timestamp_ms =
            (request.retention_time_ms != -1).then(|| now_ms.saturating_add(request.retention_time_ms));
        let mut response = OffsetCommitResponse::default();
        let mut records = Vec::new();
        for topic in &request.topics {
            let mut partitions = Vec::with_capacity(topic.partitions.len());
            for partition in &topic.partitions {
                let metadata = partition.committed_metadata.clone().unwrap_or_default();
                // Java's String.length: UTF-16 code units.
                let error = if let Err(error) = self.check_commit_partition(&check, request, topic, partition) {
                    error
                } else if metadata.encode_utf16().count() > self.config.offset_metadata_max_bytes {
                    ErrorCode::OffsetMetadataTooLarge
                } else {
                    let offset = OffsetAndMetadata {
                        committed_offset: partition.committed_offset,
                        leader_epoch: partition.committed_leader_epoch,
                        metadata,
                        commit_timestamp_ms: now_ms,
                        expire_timestamp_ms,
                        topic_id: topic.topic_id,
                    };
                    records.push(CoordinatorRecord::offset_commit(
                        &request.group_id,
                        &topic.name,
                        partition.partition_index,
                        &offset,
                    ));
                    ErrorCode::None
                };
                partitions.push(OffsetCommitResponsePartition {
                    partition_index: partition.partition_index,
                    error_code: error.code(),
                    ..OffsetCommitResponsePartition::default()
                });
            }
            response.topics.push(OffsetCommitResponseTopic {
                name: topic.name.clone(),
                topic_id: topic.topic_id,
                partitions,
                ..OffsetCommitResponseTopic::default()
            });
        }
        if !batch_fits(&records, self.config.batch_bytes_max) {
            // Kafka's log refuses the batch (RecordTooLarge): the whole commit fails, as
            // UNKNOWN_SERVER_ERROR.
            tracing::warn!(group = %request.group_id, offsets = records.len(), "offset commit larger than message.max.bytes");
            return Output::new(effects, offset_commit_error(request, ErrorCode::UnknownServerError));
        }
        for record in records {
            self.apply(&mut effects, record);
        }
        Output::new(effects, response)
    }

    fn validate_offset_commit(
        &mut self,
        now_ms: i64,
        request: &OffsetCommitRequest,
        version: i16,
        effects: &mut Effects,
    ) -> Result<CommitCheck, ErrorCode> {
        let generation = request.generation_id_or_member_epoch;
        if let Some(Group::Consumer(group)) = self.groups.get(&request.group_id) {
            return validate_consumer_commit(group, request, version);
        }
        if let Some(Group::Streams(group)) = self.groups.get(&request.group_id) {
            return super::streams::offsets::validate_commit(group, request, version).map(|()| CommitCheck::All);
        }
        let Some(Group::Classic(group)) = self.groups.get_mut(&request.group_id) else {
            return match (generation < 0, version >= 9) {
                (true, _) => Ok(CommitCheck::All),
                (false, true) => Err(ErrorCode::GroupIdNotFound),
                (false, false) => Err(ErrorCode::IllegalGeneration),
            };
        };
        validate_classic_commit(group, request)?;
        // A commit from a member counts as a heartbeat while its group is Stable or rebalancing.
        if group.is_in(ClassicGroupState::Stable) || group.is_in(ClassicGroupState::PreparingRebalance) {
            let mut ctx = Ctx { config: &self.config, timer: &mut self.timer, now: now_ms, effects };
            rebalance::touch_session(group, &mut ctx, &request.member_id);
        }
        Ok(CommitCheck::All)
    }

    /// A partition's own check, for a consumer group member committing with an older epoch.
    fn check_commit_partition(
        &self,
        check: &CommitCheck,
        request: &OffsetCommitRequest,
        topic: &OffsetCommitRequestTopic,
        partition: &OffsetCommitRequestPartition,
    ) -> Result<(), ErrorCode> {
        let CommitCheck::AssignmentEpochs { member_id, epoch } = check else { return Ok(()) };
        let Some(Group::Consumer(group)) = self.groups.get(&request.group_id) else { return Ok(()) };
        let topic_id = if topic.topic_id == Uuid::ZERO { self.metadata.id(&topic.name) } else { Some(topic.topic_id) };
        let assigned_at = group
            .member(member_id)
            .zip(topic_id)
            .and_then(|(member, topic_id)| member.assignment_epoch(topic_id, partition.partition_index));
        match assigned_at {
            Some(assigned_at) if *epoch >= assigned_at => Ok(()),
            _ => Err(ErrorCode::StaleMemberEpoch),
        }
    }

    /// OffsetFetch for one group (the v8+ shape, topics named): the requested partitions, or all
    /// the group has (`topics: None`). A partition without an offset reports -1; so does every
    /// partition of a group that does not exist. Offsets of open transactions are not seen.
    pub fn offset_fetch(&self, request: &OffsetFetchRequestGroup) -> OffsetFetchResponseGroup {
        self.fetch_offsets(request, false)
    }

    /// OffsetFetch with `require_stable` (v7+, KIP-447): as [`GroupShard::offset_fetch`], but a
    /// partition an open transaction commits an offset for answers UNSTABLE_OFFSET_COMMIT, for
    /// the client to retry once the transaction has ended.
    pub fn offset_fetch_stable(&self, request: &OffsetFetchRequestGroup) -> OffsetFetchResponseGroup {
        self.fetch_offsets(request, true)
    }

    fn fetch_offsets(&self, request: &OffsetFetchRequestGroup, require_stable: bool) -> OffsetFetchResponseGroup {
        let live = match self.groups.get(&request.group_id) {
            Some(Group::Classic(group)) => !group.is_in(ClassicGroupState::Dead),
            Some(Group::Consumer(group)) => {
                if let Err(error) = validate_consumer_fetch(group, request) {
                    return OffsetFetchResponseGroup {
                        group_id: request.group_id.clone(),
                        error_code: error.code(),
                        ..OffsetFetchResponseGroup::default()
                    };
                }
                true
            }
            Some(Group::Streams(group)) => {
                if let Err(error) = super::streams::offsets::validate_fetch(group, request) {
                    return OffsetFetchResponseGroup {
                        group_id: request.group_id.clone(),
                        error_code: error.code(),
                        ..OffsetFetchResponseGroup::default()
                    };
                }
                true
            }
            None => false,
        };
        let offsets = self.offsets.group(&request.group_id).filter(|_| live);
        let unstable = |topic: &str, partition: i32| {
            require_stable && live && self.pending.contains(&request.group_id, topic, partition)
        };
        let fetched = |topic: &str, partition: i32, offset: Option<&OffsetAndMetadata>| {
            if unstable(topic, partition) {
                unstable_partition(partition)
            } else {
                fetched_partition(partition, offset)
            }
        };
        let topics = match &request.topics {
            Some(topics) => topics
                .iter()
                .map(|topic| {
                    let stored = offsets.and_then(|o| o.get(&topic.name));
                    let partitions = topic
                        .partition_indexes
                        .iter()
                        .map(|&p| fetched(&topic.name, p, stored.and_then(|s| s.get(&p))))
                        .collect();
                    fetched_topic(&topic.name, partitions)
                })
                .collect(),
            None => offsets
                .into_iter()
                .flatten()
                .map(|(topic, stored)| {
                    let partitions = stored.iter().map(|(&p, offset)| fetched(topic, p, Some(offset))).collect();
                    fetched_topic(topic, partitions)
                })
                .collect(),
        };
        OffsetFetchResponseGroup { group_id: request.group_id.clone(), topics, ..OffsetFetchResponseGroup::default() }
    }

    /// OffsetDelete: removes a group's offsets for the given partitions, unless the group is a
    /// consumer group whose members subscribe to the topic (GROUP_SUBSCRIBED_TO_TOPIC), or a
    /// non-empty group of another protocol type (NON_EMPTY_GROUP).
    pub fn offset_delete(&mut self, request: &OffsetDeleteRequest) -> Output<OffsetDeleteResponse> {
        let mut effects = Effects::default();
        let subscribed: Vec<bool> = match self.groups.get(&request.group_id) {
            Some(Group::Classic(group)) => {
                if let Err(error) = validate_offset_delete(group) {
                    return Output::new(effects, offset_delete_error(error));
                }
                request.topics.iter().map(|t| group.is_subscribed_to_topic(&t.name)).collect()
            }
            Some(Group::Consumer(group)) => {
                request.topics.iter().map(|t| group.is_subscribed_to_topic(&t.name)).collect()
            }
            Some(Group::Streams(group)) => {
                request.topics.iter().map(|t| group.is_subscribed_to_topic(&t.name)).collect()
            }
            None => return Output::new(effects, offset_delete_error(ErrorCode::GroupIdNotFound)),
        };
        let mut response = OffsetDeleteResponse::default();
        for (topic, subscribed) in request.topics.iter().zip(subscribed) {
            let mut partitions = Vec::with_capacity(topic.partitions.len());
            for partition in &topic.partitions {
                let index = partition.partition_index;
                let error = if subscribed {
                    ErrorCode::GroupSubscribedToTopic
                } else {
                    // Pending transactional offsets are deleted too (the tombstone drops them).
                    let committed = self.offsets.get(&request.group_id, &topic.name, index).is_some();
                    if committed || self.pending.contains(&request.group_id, &topic.name, index) {
                        let tombstone =
                            CoordinatorRecord::offset_commit_tombstone(&request.group_id, &topic.name, index);
                        self.apply(&mut effects, tombstone);
                    }
                    ErrorCode::None
                };
                partitions.push(OffsetDeleteResponsePartition { partition_index: index, error_code: error.code() });
            }
            response.topics.push(OffsetDeleteResponseTopic { name: topic.name.clone(), partitions });
        }
        Output::new(effects, response)
    }

    /// Tombstones for every offset of `group_id` (DeleteGroups), pending transactional ones
    /// included, replayed.
    pub(crate) fn delete_all_offsets(&mut self, group_id: &str, effects: &mut Effects) {
        let mut keys: BTreeSet<(String, i32)> = self
            .offsets
            .group(group_id)
            .into_iter()
            .flatten()
            .flat_map(|(topic, partitions)| partitions.keys().map(move |p| (topic.clone(), *p)))
            .collect();
        keys.extend(self.pending.partitions_of(group_id));
        for (topic, partition) in keys {
            self.apply(effects, CoordinatorRecord::offset_commit_tombstone(group_id, &topic, partition));
        }
    }

    /// Tombstones for every group's committed and pending offsets of `topics`, which were
    /// deleted (Kafka's `onPartitionsDeleted`): a topic created again under the same name starts
    /// without them.
    pub fn delete_offsets_of_topics(&mut self, topics: &BTreeSet<String>) -> Output<()> {
        let mut effects = Effects::default();
        let mut keys: BTreeSet<(String, String, i32)> = self
            .offsets
            .groups()
            .flat_map(|(group, by_topic)| {
                by_topic.iter().filter(|(topic, _)| topics.contains(*topic)).flat_map(move |(topic, partitions)| {
                    partitions.keys().map(move |p| (group.clone(), topic.clone(), *p))
                })
            })
            .collect();
        keys.extend(self.pending.of_topics(topics));
        for (group, topic, partition) in keys {
            self.apply(&mut effects, CoordinatorRecord::offset_commit_tombstone(&group, &topic, partition));
        }
        Output::new(effects, ())
    }

    /// The periodic expiry: offsets past `offsets.retention.minutes` (counted from when their
    /// group emptied, or from the commit for groups without a protocol and for topics a Stable
    /// consumer group no longer subscribes to) are deleted, and Empty groups left without offsets
    /// with them. An offset an open transaction commits to is kept, and so is its group.
    pub(crate) fn expire_offsets(&mut self, now_ms: i64, effects: &mut Effects) {
        let group_ids: Vec<String> = self.groups.keys().cloned().collect();
        for group_id in group_ids {
            let offsets = self.offsets.group(&group_id);
            let (expired, all_expired, group_is_empty) = match self.groups.get(&group_id) {
                Some(Group::Classic(group)) => {
                    let (expired, all) = expired_offsets(group, offsets, now_ms, &self.config);
                    (expired, all, group.is_in(ClassicGroupState::Empty))
                }
                Some(Group::Consumer(group)) => {
                    let subscribed = |topic: &str| group.is_subscribed_to_topic(topic);
                    let (expired, all) = expired_consumer_offsets(subscribed, offsets, now_ms, &self.config);
                    (expired, all, group.is_empty())
                }
                Some(Group::Streams(group)) => {
                    let subscribed = |topic: &str| group.is_subscribed_to_topic(topic);
                    let (expired, all) = expired_consumer_offsets(subscribed, offsets, now_ms, &self.config);
                    (expired, all, group.is_empty())
                }
                None => continue,
            };
            let mut kept = false;
            for (topic, partition) in expired {
                if self.pending.contains(&group_id, &topic, partition) {
                    kept = true;
                    continue;
                }
                self.apply(effects, CoordinatorRecord::offset_commit_tombstone(&group_id, &topic, partition));
            }
            let all_expired = all_expired && !kept && !self.pending.has_group(&group_id);
            if all_expired && group_is_empty {
                match self.groups.get(&group_id) {
                    Some(Group::Consumer(group)) => {
                        for tombstone in group.tombstones() {
                            self.apply(effects, tombstone);
                        }
                    }
                    Some(Group::Streams(group)) => {
                        effects.records.extend(super::streams::records::tombstones(group));
                        self.groups.remove(&group_id);
                    }
                    _ => self.apply(effects, CoordinatorRecord::group_metadata_tombstone(&group_id)),
                }
            }
        }
    }
}

/// How the partitions of a validated commit are checked.
#[derive(Debug, Clone, PartialEq, Eq)]
enum CommitCheck {
    /// Every partition may be committed.
    All,
    /// A consumer group member committing with an epoch older than its own: each partition must be
    /// one it holds (or is revoking) since that epoch or earlier (Kafka 4.4's assignment epochs).
    AssignmentEpochs { member_id: String, epoch: i32 },
}

/// Kafka's `ConsumerGroup.validateOffsetCommit` for a plain (not transactional) commit.
fn validate_consumer_commit(
    group: &ConsumerGroup,
    request: &OffsetCommitRequest,
    version: i16,
) -> Result<CommitCheck, ErrorCode> {
    let epoch = request.generation_id_or_member_epoch;
    // From the admin client or a consumer outside group management: fine while no member is there.
    if epoch < 0 && group.is_empty() {
        return Ok(CommitCheck::All);
    }
    let member = group.member(&request.member_id).ok_or(ErrorCode::UnknownMemberId)?;
    // Classic members (online migration) commit with their generation, the member epoch, at any
    // version; a mismatch is an illegal generation to them.
    if version < 9 && !member.uses_classic_protocol() {
        return Err(ErrorCode::UnsupportedVersion);
    }
    if epoch == member.member_epoch {
        Ok(CommitCheck::All)
    } else if member.uses_classic_protocol() {
        Err(ErrorCode::IllegalGeneration)
    } else if epoch > member.member_epoch {
        Err(ErrorCode::StaleMemberEpoch)
    } else {
        Ok(CommitCheck::AssignmentEpochs { member_id: member.member_id.clone(), epoch })
    }
}

/// Kafka's `ConsumerGroup.validateOffsetFetch`: requests naming no member are fine; a member must
/// exist and give its current epoch.
fn validate_consumer_fetch(group: &ConsumerGroup, request: &OffsetFetchRequestGroup) -> Result<(), ErrorCode> {
    let Some(member_id) = request.member_id.as_deref() else {
        return if request.member_epoch < 0 { Ok(()) } else { Err(ErrorCode::UnknownMemberId) };
    };
    if member_id.is_empty() && request.member_epoch < 0 {
        return Ok(());
    }
    let member = group.member(member_id).ok_or(ErrorCode::UnknownMemberId)?;
    if member.member_epoch != request.member_epoch {
        let error =
            if member.uses_classic_protocol() { ErrorCode::IllegalGeneration } else { ErrorCode::StaleMemberEpoch };
        return Err(error);
    }
    Ok(())
}

/// A consumer group's expired offsets, and whether that is all of them: offsets of topics no
/// member subscribes to expire `offsets.retention.minutes` after their commit (Kafka's condition
/// for consumer groups counts from the commit, whether or not the group is empty).
fn expired_consumer_offsets(
    subscribed: impl Fn(&str) -> bool,
    offsets: Option<&BTreeMap<String, BTreeMap<i32, OffsetAndMetadata>>>,
    now_ms: i64,
    config: &crate::config::GroupConfig,
) -> (Vec<(String, i32)>, bool) {
    let Some(offsets) = offsets else {
        return (Vec::new(), true);
    };
    let retention_ms = config.offsets_retention_ms();
    let mut expired = Vec::new();
    let mut all_expired = true;
    for (topic, partitions) in offsets {
        if subscribed(topic) {
            all_expired = false;
            continue;
        }
        for (&partition, offset) in partitions {
            let is_expired = match offset.expire_timestamp_ms {
                Some(expire_at) => now_ms >= expire_at,
                None => now_ms.saturating_sub(offset.commit_timestamp_ms) >= retention_ms,
            };
            if is_expired {
                expired.push((topic.clone(), partition));
            } else {
                all_expired = false;
            }
        }
    }
    (expired, all_expired)
}

/// Kafka's `ClassicGroup.validateOffsetCommit` for a plain (not transactional) commit.
fn validate_classic_commit(group: &ClassicGroup, request: &OffsetCommitRequest) -> Result<(), ErrorCode> {
    let generation = request.generation_id_or_member_epoch;
    if group.is_in(ClassicGroupState::Dead) {
        return Err(ErrorCode::CoordinatorNotAvailable);
    }
    if generation < 0 && group.is_in(ClassicGroupState::Empty) {
        return Ok(());
    }
    if generation >= 0 || !request.member_id.is_empty() || request.group_instance_id.is_some() {
        group.validate_member(&request.member_id, request.group_instance_id.as_deref())?;
        if generation != group.generation_id() {
            return Err(ErrorCode::IllegalGeneration);
        }
    } else if !group.is_in(ClassicGroupState::Empty) {
        // A commit from outside group management while the group has members.
        return Err(ErrorCode::UnknownMemberId);
    }
    if group.is_in(ClassicGroupState::CompletingRebalance) {
        return Err(ErrorCode::RebalanceInProgress);
    }
    Ok(())
}

fn validate_offset_delete(group: &ClassicGroup) -> Result<(), ErrorCode> {
    match group.state() {
        ClassicGroupState::Dead => Err(ErrorCode::GroupIdNotFound),
        ClassicGroupState::Stable | ClassicGroupState::PreparingRebalance | ClassicGroupState::CompletingRebalance
            if !group.uses_consumer_protocol() =>
        {
            Err(ErrorCode::NonEmptyGroup)
        }
        _ => Ok(()),
    }
}

/// The offsets of `group` that have expired at `now_ms`, and whether that is all of them.
fn expired_offsets(
    group: &ClassicGroup,
    offsets: Option<&BTreeMap<String, BTreeMap<i32, OffsetAndMetadata>>>,
    now_ms: i64,
    config: &crate::config::GroupConfig,
) -> (Vec<(String, i32)>, bool) {
    let Some(offsets) = offsets else {
        return (Vec::new(), true);
    };
    // What an offset's age counts from; `None`: the group's offsets do not expire now.
    let base = match group.protocol_type() {
        None => ExpiryBase::Commit,
        Some(_) if group.is_in(ClassicGroupState::Empty) => ExpiryBase::Emptied(group.current_state_timestamp()),
        Some(_)
            if group.uses_consumer_protocol()
                && group.subscribed_topics().is_some()
                && group.is_in(ClassicGroupState::Stable) =>
        {
            ExpiryBase::Commit
        }
        Some(_) => return (Vec::new(), false),
    };
    let retention_ms = config.offsets_retention_ms();
    let mut expired = Vec::new();
    let mut all_expired = true;
    for (topic, partitions) in offsets {
        if group.is_subscribed_to_topic(topic) {
            all_expired = false;
            continue;
        }
        for (&partition, offset) in partitions {
            let is_expired = match offset.expire_timestamp_ms {
                Some(expire_at) => now_ms >= expire_at,
                None => now_ms.saturating_sub(base.of(offset)) >= retention_ms,
            };
            if is_expired {
                expired.push((topic.clone(), partition));
            } else {
                all_expired = false;
            }
        }
    }
    (expired, all_expired)
}

/// What an offset's age is counted from (Kafka's `OffsetExpirationCondition`).
#[derive(Debug, Clone, Copy)]
enum ExpiryBase {
    /// The offset's commit.
    Commit,
    /// When the group became Empty, or the commit if that time is unknown.
    Emptied(Option<i64>),
}

impl ExpiryBase {
    fn of(self, offset: &OffsetAndMetadata) -> i64 {
        match self {
            ExpiryBase::Commit => offset.commit_timestamp_ms,
            ExpiryBase::Emptied(at) => at.unwrap_or(offset.commit_timestamp_ms),
        }
    }
}

fn fetched_partition(partition: i32, offset: Option<&OffsetAndMetadata>) -> OffsetFetchResponsePartitions {
    match offset {
        Some(offset) => OffsetFetchResponsePartitions {
            partition_index: partition,
            committed_offset: offset.committed_offset,
            committed_leader_epoch: offset.leader_epoch,
            metadata: Some(offset.metadata.clone()),
            ..OffsetFetchResponsePartitions::default()
        },
        None => OffsetFetchResponsePartitions {
            partition_index: partition,
            committed_offset: NO_OFFSET,
            committed_leader_epoch: -1,
            metadata: Some(String::new()),
            ..OffsetFetchResponsePartitions::default()
        },
    }
}

fn unstable_partition(partition: i32) -> OffsetFetchResponsePartitions {
    OffsetFetchResponsePartitions {
        partition_index: partition,
        committed_offset: NO_OFFSET,
        committed_leader_epoch: -1,
        metadata: Some(String::new()),
        error_code: ErrorCode::UnstableOffsetCommit.code(),
        ..OffsetFetchResponsePartitions::default()
    }
}

fn fetched_topic(name: &str, partitions: Vec<OffsetFetchResponsePartitions>) -> OffsetFetchResponseTopics {
    OffsetFetchResponseTopics { name: name.to_owned(), partitions, ..OffsetFetchResponseTopics::default() }
}

/// An OffsetCommit answer giving every partition `error`.
pub fn offset_commit_error(request: &OffsetCommitRequest, error: ErrorCode) -> OffsetCommitResponse {
    let topics = request.topics.iter().map(|topic| offset_commit_topic_error(topic, error)).collect();
    OffsetCommitResponse { topics, ..OffsetCommitResponse::default() }
}

/// One topic of an OffsetCommit answer, every partition given `error`.
pub fn offset_commit_topic_error(topic: &OffsetCommitRequestTopic, error: ErrorCode) -> OffsetCommitResponseTopic {
    OffsetCommitResponseTopic {
        name: topic.name.clone(),
        topic_id: topic.topic_id,
        partitions: topic
            .partitions
            .iter()
            .map(|p| OffsetCommitResponsePartition {
                partition_index: p.partition_index,
                error_code: error.code(),
                ..OffsetCommitResponsePartition::default()
            })
            .collect(),
        ..OffsetCommitResponseTopic::default()
    }
}

/// An OffsetDelete answer carrying only a top-level error.
pub fn offset_delete_error(error: ErrorCode) -> OffsetDeleteResponse {
    OffsetDeleteResponse { error_code: error.code(), ..OffsetDeleteResponse::default() }
}
