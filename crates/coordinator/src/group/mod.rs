//! The group coordinator's state machine over one `__consumer_offsets` partition: a
//! [`GroupShard`], as Kafka's `GroupCoordinatorShard` is.
//!
//! A shard holds the groups whose id hashes to its partition ([`hash::partition_for`]) and their
//! committed offsets. Every operation is a plain function of the shard, the request and the time
//! `now_ms` passed in: it reads no clock, draws no randomness (new member ids come in with the
//! request) and does no I/O. It returns an [`Output`]: the records to append, the answer, and the
//! answers of parked requests it completed ([`Completion`]). The runtime appends the records and
//! releases every answer only once they are committed.
//!
//! Durable state changes only through [`GroupShard::replay`]: committed offsets, group creation by
//! an offset commit, KIP-848 consumer groups (every change of them), and deletions (tombstones) are
//! replayed by the operation that writes them, and loading after a restart replays the log from its
//! start. A classic group's membership is the exception Kafka makes too: JoinGroup and SyncGroup
//! change the group's soft state directly and write a `GroupMetadata` record describing the result
//! (generation, protocol, leader, members and assignments), which loading replays to rebuild a
//! Stable or Empty group ([`classic`]).
//!
//! Modules: [`hash`] (which partition coordinates a group), [`records`] (the log's record
//! formats), [`classic`] (classic groups and the JoinGroup/SyncGroup protocol), [`consumer`]
//! (KIP-848 consumer groups: ConsumerGroupHeartbeat, ConsumerGroupDescribe, the assignors, and
//! classic members served inside them), [`migration`] (online migration: a classic group upgraded
//! to a consumer group and back), [`consumer_protocol`] (the consumer protocol embedded in classic
//! requests), [`metadata`] (the cluster's topics as the coordinator sees them), [`offsets`]
//! (OffsetCommit, OffsetFetch, OffsetDelete, expiry), [`txn_offsets`] (TxnOffsetCommit: offsets
//! pending until their transaction's marker), [`admin`] (ListGroups, DescribeGroups,
//! DeleteGroups), [`timer`] (the shard's deadlines).
//!
//! Around the shard, and the only part of this module that awaits: [`coordinator`],
//! [`coordinator::GroupCoordinator`], which drives a shard per led partition on the coordinator
//! runtime's shard registry ([`crate::runtime`]); `shell`, the group's part of each shard task
//! (parked requests, topic metadata, markers); and [`api`], which adapts each request version
//! to the shard and back.
//!
//! Records come in three kinds of batches: plain ones ([`GroupShard::replay`]), transactional
//! ones of a producer ([`GroupShard::replay_transactional`]: its offsets wait for the
//! transaction's end) and transaction markers ([`GroupShard::replay_end_txn`]).
//!
//! [`streams`]: KIP-1071 streams groups, changed directly like classic groups and written as
//! Kafka's streams records describing the result, which loading replays.
//!
//! Not here: share groups' membership; share groups' records are read and skipped.

pub mod admin;
pub mod api;
pub mod classic;
pub mod consumer;
pub mod consumer_protocol;
pub mod coordinator;
pub mod hash;
pub mod metadata;
pub mod migration;
pub mod offsets;
pub mod records;
pub mod share_meta;
mod shell;
pub mod streams;
mod streams_api;
pub mod timer;
pub mod txn_offsets;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use strand_base::ProducerId;
use strand_protocol::messages::{JoinGroupResponse, SyncGroupResponse};

use crate::config::GroupConfig;
use classic::rebalance::{self, Ctx};
use classic::{ClassicGroup, ClassicGroupState};
use consumer::ConsumerGroup;
use metadata::TopicMetadata;
use offsets::OffsetStore;
use records::{CoordinatorRecord, RecordView};
use timer::{Timer, TimerKey};
use txn_offsets::PendingOffsets;

/// Identifies a parked JoinGroup or SyncGroup within one shard, until a [`Completion`] answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PendingId(pub u64);

/// The answer to a parked request.
#[derive(Debug, Clone, PartialEq)]
pub enum Completion {
    Join(PendingId, JoinGroupResponse),
    Sync(PendingId, SyncGroupResponse),
}

impl Completion {
    pub fn id(&self) -> PendingId {
        match self {
            Completion::Join(id, _) | Completion::Sync(id, _) => *id,
        }
    }
}

/// An answer now, or later through a [`Completion`] with this id (a long poll).
#[derive(Debug, Clone, PartialEq)]
pub enum Reply<R> {
    Now(R),
    Parked(PendingId),
}

/// What an operation produced. `records` are already reflected in the shard's state; none of
/// `response` and `completions` may reach a client before `records` are committed.
#[derive(Debug, Clone, PartialEq)]
pub struct Output<R> {
    pub records: Vec<CoordinatorRecord>,
    pub completions: Vec<Completion>,
    pub response: R,
}

impl<R> Output<R> {
    fn new(effects: Effects, response: R) -> Self {
        Output { records: effects.records, completions: effects.completions, response }
    }
}

/// Records and completions accumulated by an operation.
#[derive(Debug, Default)]
pub struct Effects {
    pub records: Vec<CoordinatorRecord>,
    pub completions: Vec<Completion>,
}

/// Who sent a request: the client id and host Kafka records for each member, and the topics its
/// principal may describe.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ClientInfo {
    pub client_id: String,
    /// As Kafka prints an `InetAddress`: `/127.0.0.1`.
    pub client_host: String,
    pub describable: DescribableTopics,
}

/// The topics the requesting principal may DESCRIBE. A subscription regex resolved on its
/// heartbeat keeps only these, as Kafka's `filterTopicDescribeAuthorizedTopics` does, so a regex
/// cannot reveal or assign a topic the member could not name. Every topic by default (no
/// authorizer).
#[derive(Clone, Default)]
pub struct DescribableTopics(Option<std::sync::Arc<TopicCheck>>);

/// Whether a topic may be described.
type TopicCheck = dyn Fn(&str) -> bool + Send + Sync;

impl DescribableTopics {
    /// The topics `may_describe` allows.
    pub fn new(may_describe: impl Fn(&str) -> bool + Send + Sync + 'static) -> Self {
        DescribableTopics(Some(std::sync::Arc::new(may_describe)))
    }

    pub fn contains(&self, topic: &str) -> bool {
        self.0.as_ref().is_none_or(|may_describe| may_describe(topic))
    }
}

impl std::fmt::Debug for DescribableTopics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "DescribableTopics(checked)" } else { "DescribableTopics(all)" })
    }
}

/// Two filters are equal when they are the same one.
impl PartialEq for DescribableTopics {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for DescribableTopics {}

/// A group of any type this coordinator knows: classic groups and KIP-848 consumer groups, sharing
/// the shard, its offsets and its timers.
#[derive(Debug, Clone)]
pub enum Group {
    Classic(ClassicGroup),
    Consumer(ConsumerGroup),
    Streams(streams::StreamsGroup),
}

impl Group {
    /// The type name ListGroups reports and filters on.
    pub fn type_name(&self) -> &'static str {
        match self {
            Group::Classic(_) => "classic",
            Group::Consumer(_) => "consumer",
            Group::Streams(_) => "streams",
        }
    }

    pub fn state_name(&self) -> &'static str {
        match self {
            Group::Classic(group) => group.state().name(),
            Group::Consumer(group) => group.state().name(),
            Group::Streams(group) => group.state().name(),
        }
    }

    pub fn protocol_type(&self) -> Option<&str> {
        match self {
            Group::Classic(group) => group.protocol_type(),
            Group::Consumer(_) => Some(consumer::CONSUMER_GROUP_PROTOCOL_TYPE),
            Group::Streams(_) => Some("streams"),
        }
    }

    /// Whether the group has no members (Kafka's `Group.isEmpty`: deletable, offsets expire).
    pub fn is_empty(&self) -> bool {
        match self {
            Group::Classic(group) => group.is_in(ClassicGroupState::Empty),
            Group::Consumer(group) => group.is_empty(),
            Group::Streams(group) => group.is_empty(),
        }
    }
}

/// The coordinator state of one `__consumer_offsets` partition.
#[derive(Debug)]
pub struct GroupShard {
    config: GroupConfig,
    groups: BTreeMap<String, Group>,
    offsets: OffsetStore,
    /// Offsets of transactions not yet ended.
    pending: PendingOffsets,
    /// How many offset commit records (and tombstones) have been replayed: the last one's place
    /// in the log order of offset records.
    position: u64,
    timer: Timer,
    next_pending_id: u64,
    /// The cluster's topics, for consumer groups' subscriptions and assignments.
    metadata: Arc<TopicMetadata>,
    /// Soft state: when and at which metadata version each consumer group's regular expressions
    /// were last resolved.
    regex_refresh: HashMap<String, (i64, i64)>,
    /// Share groups' epochs and initialized partitions (`share_meta`).
    share_groups: BTreeMap<String, share_meta::PersistedShareGroup>,
}

impl GroupShard {
    /// An empty shard, as before loading.
    pub fn new(config: GroupConfig) -> Self {
        GroupShard {
            config,
            groups: BTreeMap::new(),
            offsets: OffsetStore::default(),
            pending: PendingOffsets::default(),
            share_groups: BTreeMap::new(),
            position: 0,
            timer: Timer::default(),
            next_pending_id: 0,
            metadata: Arc::new(TopicMetadata::default()),
            regex_refresh: HashMap::new(),
        }
    }

    /// The cluster's topics changed. Consumer groups see it at their next heartbeat: a changed
    /// metadata hash bumps the group epoch, new topics get regular expressions resolved again.
    pub fn set_metadata(&mut self, metadata: Arc<TopicMetadata>) {
        self.metadata = metadata;
    }

    pub fn metadata(&self) -> &TopicMetadata {
        &self.metadata
    }

    pub fn config(&self) -> &GroupConfig {
        &self.config
    }

    pub fn group(&self, group_id: &str) -> Option<&Group> {
        self.groups.get(group_id)
    }

    pub fn classic_group(&self, group_id: &str) -> Option<&ClassicGroup> {
        match self.groups.get(group_id) {
            Some(Group::Classic(group)) => Some(group),
            _ => None,
        }
    }

    pub fn groups(&self) -> impl Iterator<Item = (&String, &Group)> {
        self.groups.iter()
    }

    pub fn offsets(&self) -> &OffsetStore {
        &self.offsets
    }

    /// Applies one committed record of a plain (not transactional) batch: with
    /// [`GroupShard::replay_transactional`] and [`GroupShard::replay_end_txn`], the only way
    /// durable state changes.
    pub fn replay(&mut self, record: &CoordinatorRecord) {
        self.replay_record(record, None);
    }

    /// Applies one record, of `producer_id`'s transaction if given.
    fn replay_record(&mut self, record: &CoordinatorRecord, producer_id: Option<ProducerId>) {
        if self.replay_share(record) {
            return;
        }
        if let Some(group) = streams::records::record_group_id(&record.key) {
            let group = group.to_owned();
            self.replay_streams(&group, record);
            return;
        }
        match record.view() {
            RecordView::OffsetCommit { group, topic, partition, offset } => {
                let key = (group.to_owned(), topic.to_owned(), partition);
                self.replay_offset(key, offset, producer_id);
            }
            RecordView::GroupMetadata { group, value: Some(value) } => {
                self.groups.insert(group.to_owned(), Group::Classic(ClassicGroup::from_record(group, value)));
            }
            RecordView::GroupMetadata { group, value: None } => {
                if let Some(Group::Classic(_)) = self.groups.get(group) {
                    self.groups.remove(group);
                }
                self.timer.cancel(&TimerKey::Join { group: group.to_owned() });
                self.timer.cancel(&TimerKey::Sync { group: group.to_owned() });
            }
            RecordView::ConsumerGroup { group } => self.replay_consumer(group, record),
            RecordView::Other { record_type } => {
                tracing::debug!(record_type, "skipping a __consumer_offsets record of a group type not served here");
            }
        }
    }

    /// Called once the log is replayed: starts every loaded member's session and the offsets
    /// expiry, and rebalances groups larger than `group.max.size` (the setting may have shrunk).
    pub fn on_loaded(&mut self, now_ms: i64) -> Output<()> {
        let mut effects = Effects::default();
        self.timer.schedule(TimerKey::OffsetsExpiration, now_ms + self.config.offsets_retention_check_interval_ms);
        let mut ctx = Ctx { config: &self.config, timer: &mut self.timer, now: now_ms, effects: &mut effects };
        let mut consumer_groups = Vec::new();
        for (group_id, group) in self.groups.iter_mut() {
            match group {
                Group::Classic(group) => rebalance::on_loaded(group, &mut ctx),
                Group::Consumer(_) => consumer_groups.push(group_id.clone()),
                Group::Streams(_) => {}
            }
        }
        for group_id in consumer_groups {
            self.on_consumer_group_loaded(&group_id, now_ms);
        }
        self.on_streams_groups_loaded(now_ms);
        Output::new(effects, ())
    }

    /// The earliest deadline of any timer, to sleep until.
    pub fn next_deadline(&self) -> Option<i64> {
        self.timer.next_deadline()
    }

    /// Fires every timer due at `now_ms`: session expiries, rebalance and sync timeouts, the
    /// initial rebalance delay, offsets expiry.
    pub fn on_timer(&mut self, now_ms: i64) -> Output<()> {
        let mut effects = Effects::default();
        while let Some(key) = self.timer.pop_expired(now_ms) {
            match key {
                TimerKey::OffsetsExpiration => {
                    self.expire_offsets(now_ms, &mut effects);
                    let next = now_ms + self.config.offsets_retention_check_interval_ms;
                    self.timer.schedule(TimerKey::OffsetsExpiration, next);
                }
                TimerKey::Heartbeat { group, member } => {
                    self.with_classic(&group, now_ms, &mut effects, |group, ctx| {
                        rebalance::expire_heartbeat(group, ctx, &member)
                    });
                }
                TimerKey::Join { group } => {
                    self.with_classic(&group, now_ms, &mut effects, rebalance::on_join_timer);
                }
                TimerKey::Sync { group } => {
                    self.with_classic(&group, now_ms, &mut effects, rebalance::expire_pending_sync);
                }
                TimerKey::ConsumerSession { group, member } => {
                    self.expire_consumer_session(&group, &member, now_ms, &mut effects);
                }
                TimerKey::ConsumerRebalance { group, member } => {
                    self.expire_consumer_rebalance(&group, &member, now_ms, &mut effects);
                }
                TimerKey::ConsumerJoin { group, member } | TimerKey::ConsumerSync { group, member } => {
                    self.expire_classic_member(&group, &member, now_ms, &mut effects);
                }
                TimerKey::StreamsSession { group, member } => {
                    self.expire_streams_member(&group, &member, &mut effects, "its session expired");
                }
                TimerKey::StreamsRebalance { group, member } => {
                    let why = "it did not revoke its tasks in time";
                    self.expire_streams_member(&group, &member, &mut effects, why);
                }
            }
        }
        Output::new(effects, ())
    }

    /// Runs `f` on the classic group `group_id` if there is one.
    fn with_classic<T>(
        &mut self,
        group_id: &str,
        now_ms: i64,
        effects: &mut Effects,
        f: impl FnOnce(&mut ClassicGroup, &mut Ctx<'_>) -> T,
    ) -> Option<T> {
        let Some(Group::Classic(group)) = self.groups.get_mut(group_id) else {
            return None;
        };
        let mut ctx = Ctx { config: &self.config, timer: &mut self.timer, now: now_ms, effects };
        Some(f(group, &mut ctx))
    }

    /// Replays a consumer group record: the group is created by its first record (replacing a
    /// simple classic group, which no record backs) and removed by its epoch's tombstone.
    fn replay_consumer(&mut self, group_id: &str, record: &CoordinatorRecord) {
        let value = record.value.as_ref().map(|(_, value)| value);
        let group = match self.groups.get_mut(group_id) {
            Some(Group::Consumer(group)) => group,
            Some(Group::Classic(classic)) if value.is_some() && classic.is_simple() => {
                self.groups.insert(group_id.to_owned(), Group::Consumer(ConsumerGroup::new(group_id)));
                match self.groups.get_mut(group_id) {
                    Some(Group::Consumer(group)) => group,
                    _ => return,
                }
            }
            Some(Group::Classic(_) | Group::Streams(_)) => {
                tracing::warn!(group = group_id, "skipping a consumer group record for a group of another type");
                return;
            }
            None if value.is_some() => {
                self.groups.insert(group_id.to_owned(), Group::Consumer(ConsumerGroup::new(group_id)));
                match self.groups.get_mut(group_id) {
                    Some(Group::Consumer(group)) => group,
                    _ => return,
                }
            }
            None => return,
        };
        if !group.replay(&record.key, value) {
            self.groups.remove(group_id);
            self.regex_refresh.remove(group_id);
        }
    }

    /// Appends `record` to the operation's output and replays it into the state.
    fn apply(&mut self, effects: &mut Effects, record: CoordinatorRecord) {
        self.replay(&record);
        effects.records.push(record);
    }

    fn allocate_pending_id(&mut self) -> PendingId {
        self.next_pending_id += 1;
        PendingId(self.next_pending_id)
    }
}
