//! Transactional offset commits (KIP-98's TxnOffsetCommit, KIP-447's group fencing), as Kafka's
//! `OffsetMetadataManager` keeps them.
//!
//! A TxnOffsetCommit writes ordinary offset commit records, but in a transactional batch carrying
//! the producer's id and epoch (the runtime appends it so). Replaying such a record puts the
//! offset in [`PendingOffsets`], under its producer id, where OffsetFetch does not see it; a
//! fetch asking for stable offsets (`require_stable`, v7+) gets UNSTABLE_OFFSET_COMMIT for a
//! partition with pending offsets instead. The transaction's marker, a control batch the
//! transaction coordinator has the group coordinator write ([`GroupShard::replay_end_txn`]),
//! decides them: COMMIT moves each into the committed offsets unless a commit written later in
//! the log is already there, ABORT drops them. A tombstone (OffsetDelete, DeleteGroups, a deleted
//! topic) drops the partition's pending offsets of every producer too.
//!
//! Which of two commits is later is decided by their place in the log: every offset commit record
//! (or tombstone) the shard replays takes the next [`GroupShard`] position, and the shard replays
//! them in log order, whether it writes them (the runtime appends an operation's records in the
//! order it replayed them, and reloads the shard if an append fails) or loads them, so positions
//! order offset records as their log offsets do (Kafka compares the records' offsets).

use std::collections::{BTreeMap, BTreeSet};

use strand_base::ProducerId;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::txn_offset_commit_request::TxnOffsetCommitRequestTopic;
use strand_protocol::messages::txn_offset_commit_response::{
    TxnOffsetCommitResponsePartition, TxnOffsetCommitResponseTopic,
};
use strand_protocol::messages::{TxnOffsetCommitRequest, TxnOffsetCommitResponse};
use strand_protocol::records::TransactionResult;

use super::classic::{ClassicGroup, ClassicGroupState};
use super::consumer::ConsumerGroup;
use super::records::{CoordinatorRecord, OffsetAndMetadata, batch_fits};
use super::{Effects, Group, GroupShard, Output};

/// A committed offset's key: group, topic, partition.
type OffsetKey = (String, String, i32);

/// Offsets written by transactions not yet ended, by producer id, each with its record's position.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PendingOffsets {
    by_producer: BTreeMap<ProducerId, BTreeMap<OffsetKey, (u64, OffsetAndMetadata)>>,
}

impl PendingOffsets {
    /// The offset `producer_id`'s open transaction commits for the partition, if any.
    pub fn get(&self, producer_id: ProducerId, group: &str, topic: &str, partition: i32) -> Option<&OffsetAndMetadata> {
        let key = (group.to_owned(), topic.to_owned(), partition);
        self.by_producer.get(&producer_id)?.get(&key).map(|(_, offset)| offset)
    }

    /// Whether any open transaction commits an offset for the partition.
    pub fn contains(&self, group: &str, topic: &str, partition: i32) -> bool {
        let key = (group.to_owned(), topic.to_owned(), partition);
        self.by_producer.values().any(|offsets| offsets.contains_key(&key))
    }

    /// Whether any open transaction commits an offset for the group.
    pub fn has_group(&self, group: &str) -> bool {
        self.by_producer.values().flat_map(BTreeMap::keys).any(|(g, _, _)| g == group)
    }

    /// The partitions of `group` with pending offsets, by topic and partition.
    pub fn partitions_of(&self, group: &str) -> BTreeSet<(String, i32)> {
        let keys = self.by_producer.values().flat_map(BTreeMap::keys);
        keys.filter(|(g, _, _)| g == group).map(|(_, t, p)| (t.clone(), *p)).collect()
    }

    /// Every (group, topic, partition) with pending offsets whose topic is in `topics`.
    pub(crate) fn of_topics(&self, topics: &BTreeSet<String>) -> BTreeSet<OffsetKey> {
        let keys = self.by_producer.values().flat_map(BTreeMap::keys);
        keys.filter(|(_, t, _)| topics.contains(t)).cloned().collect()
    }

    /// The producers with an open transaction holding offsets here.
    pub fn producers(&self) -> impl Iterator<Item = ProducerId> + '_ {
        self.by_producer.keys().copied()
    }

    fn put(&mut self, producer_id: ProducerId, key: OffsetKey, position: u64, offset: OffsetAndMetadata) {
        self.by_producer.entry(producer_id).or_default().insert(key, (position, offset));
    }

    /// A tombstone: every producer's pending offset for the partition goes.
    fn remove_partition(&mut self, key: &OffsetKey) {
        for offsets in self.by_producer.values_mut() {
            offsets.remove(key);
        }
    }

    fn take(&mut self, producer_id: ProducerId) -> Option<BTreeMap<OffsetKey, (u64, OffsetAndMetadata)>> {
        self.by_producer.remove(&producer_id)
    }
}

impl GroupShard {
    /// TxnOffsetCommit, with every topic named (the runtime resolves v6's topic ids first and
    /// appends the records as the producer's transactional batch). The group, member and
    /// generation are checked as Kafka's `validateTransactionalOffsetCommit` does: a group that
    /// does not exist is accepted with generation -1 (the offsets' replay creates it, a "simple"
    /// group) and is ILLEGAL_GENERATION otherwise; a failed check refuses every partition.
    pub fn txn_offset_commit(
        &mut self,
        now_ms: i64,
        request: &TxnOffsetCommitRequest,
    ) -> Output<TxnOffsetCommitResponse> {
        let mut effects = Effects::default();
        if let Err(error) = self.validate_txn_offset_commit(request) {
            return Output::new(effects, txn_offset_commit_error(request, error));
        }
        let mut response = TxnOffsetCommitResponse::default();
        let mut records = Vec::new();
        for topic in &request.topics {
            let mut partitions = Vec::with_capacity(topic.partitions.len());
            for partition in &topic.partitions {
                let metadata = partition.committed_metadata.clone().unwrap_or_default();
                // Java's String.length: UTF-16 code units.
                let error = if metadata.encode_utf16().count() > self.config.offset_metadata_max_bytes {
                    ErrorCode::OffsetMetadataTooLarge
                } else {
                    let offset = OffsetAndMetadata {
                        committed_offset: partition.committed_offset,
                        leader_epoch: partition.committed_leader_epoch,
                        metadata,
                        commit_timestamp_ms: now_ms,
                        expire_timestamp_ms: None,
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
                partitions.push(TxnOffsetCommitResponsePartition {
                    partition_index: partition.partition_index,
                    error_code: error.code(),
                    ..TxnOffsetCommitResponsePartition::default()
                });
            }
            response.topics.push(TxnOffsetCommitResponseTopic {
                name: topic.name.clone(),
                topic_id: topic.topic_id,
                partitions,
                ..TxnOffsetCommitResponseTopic::default()
            });
        }
        if !batch_fits(&records, self.config.batch_bytes_max) {
            // Kafka's log refuses the batch (RecordTooLarge): the whole commit fails, as
            // UNKNOWN_SERVER_ERROR.
            tracing::warn!(group = %request.group_id, offsets = records.len(), "offset commit larger than message.max.bytes");
            return Output::new(effects, txn_offset_commit_error(request, ErrorCode::UnknownServerError));
        }
        for record in records {
            self.replay_transactional(request.producer_id, &record);
            effects.records.push(record);
        }
        Output::new(effects, response)
    }

    /// Applies a transaction marker of `producer_id` (Kafka's `replayEndTransactionMarker`):
    /// COMMIT moves its pending offsets into the committed ones, except where a commit later in
    /// the log is already there; ABORT drops them. A marker of a producer with no pending
    /// offsets here changes nothing.
    pub fn replay_end_txn(&mut self, producer_id: ProducerId, result: TransactionResult) {
        let Some(pending) = self.pending.take(producer_id) else {
            return;
        };
        if result == TransactionResult::Abort {
            return;
        }
        for ((group, topic, partition), (position, offset)) in pending {
            let later = self.offsets.position(&group, &topic, partition).is_some_and(|committed| committed > position);
            if !later {
                self.offsets.put(&group, &topic, partition, position, offset);
            }
        }
    }

    /// The offsets of open transactions.
    pub fn pending_offsets(&self) -> &PendingOffsets {
        &self.pending
    }

    /// Replays an offset commit record written by `producer_id`'s transaction into the pending
    /// offsets (other records, tombstones included, as [`GroupShard::replay`] does).
    pub fn replay_transactional(&mut self, producer_id: ProducerId, record: &CoordinatorRecord) {
        self.replay_record(record, Some(producer_id));
    }

    /// Replays an offset commit (`offset: Some`) or its tombstone, from a transaction or not.
    pub(crate) fn replay_offset(
        &mut self,
        key: OffsetKey,
        offset: Option<OffsetAndMetadata>,
        producer_id: Option<ProducerId>,
    ) {
        let position = self.next_position();
        let (group, topic, partition) = &key;
        let Some(offset) = offset else {
            self.offsets.remove(group, topic, *partition);
            self.pending.remove_partition(&key);
            return;
        };
        // Offsets committed outside group membership make a "simple" group: Empty, no protocol
        // type.
        if !self.groups.contains_key(group) {
            let simple = ClassicGroup::new(group.clone(), ClassicGroupState::Empty, None);
            self.groups.insert(group.clone(), Group::Classic(simple));
        }
        match producer_id {
            None => self.offsets.put(group, topic, *partition, position, offset),
            Some(producer_id) => self.pending.put(producer_id, key, position, offset),
        }
    }

    fn validate_txn_offset_commit(&self, request: &TxnOffsetCommitRequest) -> Result<(), ErrorCode> {
        match self.groups.get(&request.group_id) {
            None if request.generation_id_or_member_epoch < 0 => Ok(()),
            None => Err(ErrorCode::IllegalGeneration),
            Some(Group::Classic(group)) => validate_classic_txn_commit(group, request),
            Some(Group::Consumer(group)) => self.validate_consumer_txn_commit(group, request),
            Some(Group::Streams(group)) => super::streams::offsets::validate_txn_commit(group, request),
        }
    }

    /// Kafka's `ConsumerGroup.validateOffsetCommit` for a transactional commit, its
    /// STALE_MEMBER_EPOCH answered ILLEGAL_GENERATION (which TxnOffsetCommit clients know): a
    /// member committing with an older epoch must hold every partition since that epoch or
    /// earlier (Kafka 4.4's assignment epochs).
    fn validate_consumer_txn_commit(
        &self,
        group: &ConsumerGroup,
        request: &TxnOffsetCommitRequest,
    ) -> Result<(), ErrorCode> {
        let epoch = request.generation_id_or_member_epoch;
        if epoch < 0 && group.is_empty() {
            return Ok(());
        }
        // The request's member fields are optional: without any, nothing is checked.
        if epoch == -1 && request.member_id.is_empty() && request.group_instance_id.is_none() {
            return Ok(());
        }
        let member = group.member(&request.member_id).ok_or(ErrorCode::UnknownMemberId)?;
        if epoch == member.member_epoch {
            return Ok(());
        }
        if member.uses_classic_protocol() || epoch > member.member_epoch {
            return Err(ErrorCode::IllegalGeneration);
        }
        for topic in &request.topics {
            let topic_id = self.metadata.id(&topic.name);
            for partition in &topic.partitions {
                let assigned_at =
                    topic_id.and_then(|topic_id| member.assignment_epoch(topic_id, partition.partition_index));
                if assigned_at.is_none_or(|assigned_at| epoch < assigned_at) {
                    return Err(ErrorCode::IllegalGeneration);
                }
            }
        }
        Ok(())
    }

    /// The next position in the log order of offset records.
    fn next_position(&mut self) -> u64 {
        self.position += 1;
        self.position
    }
}

/// Kafka's `ClassicGroup.validateOffsetCommit` for a transactional commit: the member fields are
/// checked only when given (old clients send none), and the group's state is not.
fn validate_classic_txn_commit(group: &ClassicGroup, request: &TxnOffsetCommitRequest) -> Result<(), ErrorCode> {
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
    }
    Ok(())
}

/// A TxnOffsetCommit answer giving every partition `error`.
pub fn txn_offset_commit_error(request: &TxnOffsetCommitRequest, error: ErrorCode) -> TxnOffsetCommitResponse {
    let topics = request.topics.iter().map(|topic| txn_offset_commit_topic_error(topic, error)).collect();
    TxnOffsetCommitResponse { topics, ..TxnOffsetCommitResponse::default() }
}

/// One topic of a TxnOffsetCommit answer, every partition given `error`.
pub fn txn_offset_commit_topic_error(
    topic: &TxnOffsetCommitRequestTopic,
    error: ErrorCode,
) -> TxnOffsetCommitResponseTopic {
    TxnOffsetCommitResponseTopic {
        name: topic.name.clone(),
        topic_id: topic.topic_id,
        partitions: topic
            .partitions
            .iter()
            .map(|p| TxnOffsetCommitResponsePartition {
                partition_index: p.partition_index,
                error_code: error.code(),
                ..TxnOffsetCommitResponsePartition::default()
            })
            .collect(),
        ..TxnOffsetCommitResponseTopic::default()
    }
}
