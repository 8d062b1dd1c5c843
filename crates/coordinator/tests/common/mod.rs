//! Drives a [`GroupShard`] deterministically: a hand-moved clock, chosen member ids, and every
//! record and completion the shard produces kept for the test to inspect (and to replay). For
//! the runtime's tests, a [`TokioClock`] that follows tokio's paused clock.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};

use std::sync::Arc;

use bytes::{BufMut, Bytes, BytesMut};
use strand_base::{Clock, ProducerId, Uuid};
use strand_coordinator::TopicMetadata;
use strand_coordinator::group::consumer::ConsumerGroup;
use strand_coordinator::group::records::CoordinatorRecord;
use strand_coordinator::group::{Completion, Group, GroupShard, Output, PendingId, Reply};
use strand_coordinator::{ClientInfo, GroupConfig};
use strand_protocol::Struct;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::consumer_group_heartbeat_request::TopicPartitions as HeartbeatTopicPartitions;
use strand_protocol::messages::consumer_protocol_subscription::ConsumerProtocolSubscription;
use strand_protocol::messages::join_group_request::JoinGroupRequestProtocol;
use strand_protocol::messages::leave_group_request::MemberIdentity;
use strand_protocol::messages::offset_commit_request::{OffsetCommitRequestPartition, OffsetCommitRequestTopic};
use strand_protocol::messages::offset_fetch_request::{OffsetFetchRequestGroup, OffsetFetchRequestTopics};
use strand_protocol::messages::offset_fetch_response::OffsetFetchResponseGroup;
use strand_protocol::messages::sync_group_request::SyncGroupRequestAssignment;
use strand_protocol::messages::{ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse};
use strand_protocol::messages::{
    HeartbeatRequest, JoinGroupRequest, JoinGroupResponse, LeaveGroupResponse, OffsetCommitRequest,
    OffsetCommitResponse, SyncGroupRequest, SyncGroupResponse, TxnOffsetCommitRequest, TxnOffsetCommitResponse,
};
use strand_protocol::records::TransactionResult;

/// When tests start (ms since the epoch).
pub const T0: i64 = 1_700_000_000_000;
pub const SESSION_MS: i32 = 10_000;
pub const REBALANCE_MS: i32 = 30_000;

/// Milliseconds since the epoch ([`T0`] when built) that follow tokio's (paused) clock, so the
/// runtime's timers fire as the paused clock auto-advances.
#[derive(Debug)]
pub struct TokioClock {
    origin: tokio::time::Instant,
}

impl TokioClock {
    /// A clock reading [`T0`] now.
    pub fn starting_now() -> TokioClock {
        TokioClock { origin: tokio::time::Instant::now() }
    }
}

impl Clock for TokioClock {
    fn now_ms(&self) -> i64 {
        T0 + i64::try_from(self.origin.elapsed().as_millis()).unwrap_or(i64::MAX)
    }

    fn monotonic_ns(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

/// A consumer protocol subscription to `topics`, as a Java consumer embeds it in JoinGroup
/// (version prefix 1, then the struct at version 1).
pub fn subscription(topics: &[&str]) -> Bytes {
    let subscription = ConsumerProtocolSubscription {
        topics: topics.iter().map(|t| (*t).to_owned()).collect(),
        user_data: None,
        ..ConsumerProtocolSubscription::default()
    };
    let mut out = BytesMut::new();
    out.put_i16(1);
    subscription.encode(&mut out, 1).expect("encode a subscription");
    out.freeze()
}

/// One protocol per assignor name, each with the same subscription.
pub fn protocols(assignors: &[&str], topics: &[&str]) -> Vec<JoinGroupRequestProtocol> {
    assignors
        .iter()
        .map(|name| JoinGroupRequestProtocol {
            name: (*name).to_owned(),
            metadata: subscription(topics),
            ..JoinGroupRequestProtocol::default()
        })
        .collect()
}

pub fn join_request(group: &str, member_id: &str, instance: Option<&str>) -> JoinGroupRequest {
    JoinGroupRequest {
        group_id: group.to_owned(),
        session_timeout_ms: SESSION_MS,
        rebalance_timeout_ms: REBALANCE_MS,
        member_id: member_id.to_owned(),
        group_instance_id: instance.map(str::to_owned),
        protocol_type: "consumer".to_owned(),
        protocols: protocols(&["range"], &["orders"]),
        ..JoinGroupRequest::default()
    }
}

pub fn client(id: &str) -> ClientInfo {
    ClientInfo { client_id: id.to_owned(), client_host: "/127.0.0.1".to_owned(), ..Default::default() }
}

/// A shard, its clock, and everything it produced.
pub struct Harness {
    pub shard: GroupShard,
    pub now: i64,
    /// Every record the shard produced, in order: the log.
    pub log: Vec<CoordinatorRecord>,
    /// The log with its batch kinds: [`Harness::log`]'s records as plain ones, interleaved with
    /// transactional offset commits and transaction markers.
    pub entries: Vec<LogEntry>,
    joins: HashMap<PendingId, JoinGroupResponse>,
    syncs: HashMap<PendingId, SyncGroupResponse>,
    uuids: u64,
}

impl Harness {
    pub fn new(config: GroupConfig) -> Self {
        let mut shard = GroupShard::new(config);
        let out = shard.on_loaded(T0);
        assert!(out.records.is_empty());
        Harness {
            shard,
            now: T0,
            log: Vec::new(),
            entries: Vec::new(),
            joins: HashMap::new(),
            syncs: HashMap::new(),
            uuids: 0,
        }
    }

    /// Default settings, but a short initial rebalance delay.
    pub fn with_defaults() -> Self {
        Harness::new(GroupConfig { initial_rebalance_delay_ms: 100, ..GroupConfig::default() })
    }

    /// Keeps what the shard produced and returns the answer.
    pub fn absorb<R>(&mut self, out: Output<R>) -> R {
        self.entries.extend(out.records.iter().cloned().map(LogEntry::Plain));
        self.log.extend(out.records);
        for completion in out.completions {
            match completion {
                Completion::Join(id, response) => {
                    assert!(self.joins.insert(id, response).is_none(), "join {id:?} completed twice");
                }
                Completion::Sync(id, response) => {
                    assert!(self.syncs.insert(id, response).is_none(), "sync {id:?} completed twice");
                }
            }
        }
        out.response
    }

    fn next_uuid(&mut self) -> String {
        self.uuids += 1;
        format!("uuid{}", self.uuids)
    }

    pub fn join(&mut self, client_id: &str, request: &JoinGroupRequest, version: i16) -> Reply<JoinGroupResponse> {
        let uuid = self.next_uuid();
        let out = self.shard.join_group(self.now, &client(client_id), request, version, &uuid);
        self.absorb(out)
    }

    /// The answer to a JoinGroup: given at once, or completed since.
    pub fn join_answer(&mut self, reply: &Reply<JoinGroupResponse>) -> Option<JoinGroupResponse> {
        match reply {
            Reply::Now(response) => Some(response.clone()),
            Reply::Parked(id) => self.joins.remove(id),
        }
    }

    /// A new dynamic member joins with JoinGroup v5: told MEMBER_ID_REQUIRED, it rejoins with its
    /// id and is parked. Returns the member id and the parked reply.
    pub fn join_new_member(&mut self, group: &str, client_id: &str) -> (String, Reply<JoinGroupResponse>) {
        let first = self.join(client_id, &join_request(group, "", None), 5);
        let Reply::Now(response) = first else { panic!("a new member's first JoinGroup v5 is answered at once") };
        assert_eq!(response.error_code, ErrorCode::MemberIdRequired.code());
        let member_id = response.member_id;
        let reply = self.join(client_id, &join_request(group, &member_id, None), 5);
        (member_id, reply)
    }

    pub fn sync(&mut self, request: &SyncGroupRequest) -> Reply<SyncGroupResponse> {
        let out = self.shard.sync_group(self.now, request);
        self.absorb(out)
    }

    pub fn sync_answer(&mut self, reply: &Reply<SyncGroupResponse>) -> Option<SyncGroupResponse> {
        match reply {
            Reply::Now(response) => Some(response.clone()),
            Reply::Parked(id) => self.syncs.remove(id),
        }
    }

    pub fn heartbeat(&mut self, group: &str, member_id: &str, generation: i32, instance: Option<&str>) -> i16 {
        let request = HeartbeatRequest {
            group_id: group.to_owned(),
            generation_id: generation,
            member_id: member_id.to_owned(),
            group_instance_id: instance.map(str::to_owned),
            ..HeartbeatRequest::default()
        };
        let out = self.shard.heartbeat(self.now, &request);
        self.absorb(out).error_code
    }

    pub fn leave(&mut self, group: &str, members: &[(&str, Option<&str>)]) -> LeaveGroupResponse {
        let members: Vec<MemberIdentity> = members
            .iter()
            .map(|(id, instance)| MemberIdentity {
                member_id: (*id).to_owned(),
                group_instance_id: instance.map(str::to_owned),
                ..MemberIdentity::default()
            })
            .collect();
        let out = self.shard.leave_group(self.now, group, &members);
        self.absorb(out)
    }

    pub fn commit(&mut self, request: &OffsetCommitRequest, version: i16) -> OffsetCommitResponse {
        let out = self.shard.offset_commit(self.now, request, version);
        self.absorb(out)
    }

    /// A TxnOffsetCommit: its records go in the producer's transaction.
    pub fn txn_commit(&mut self, request: &TxnOffsetCommitRequest) -> TxnOffsetCommitResponse {
        let out = self.shard.txn_offset_commit(self.now, request);
        assert!(out.completions.is_empty());
        self.entries.extend(out.records.into_iter().map(|r| LogEntry::Txn(request.producer_id, r)));
        out.response
    }

    /// A transaction marker of `producer_id`, as the runtime replays and writes it.
    pub fn end_txn(&mut self, producer_id: ProducerId, result: TransactionResult) {
        self.shard.replay_end_txn(producer_id, result);
        self.entries.push(LogEntry::Marker(producer_id, result));
    }

    /// Fetches `group`'s offsets for `partitions` of `topic`, or all of them.
    pub fn fetch(&self, group: &str, topics: Option<&[(&str, &[i32])]>) -> OffsetFetchResponseGroup {
        let request = OffsetFetchRequestGroup {
            group_id: group.to_owned(),
            topics: topics.map(|topics| {
                topics
                    .iter()
                    .map(|(name, partitions)| OffsetFetchRequestTopics {
                        name: (*name).to_owned(),
                        partition_indexes: partitions.to_vec(),
                        ..OffsetFetchRequestTopics::default()
                    })
                    .collect()
            }),
            ..OffsetFetchRequestGroup::default()
        };
        self.shard.offset_fetch(&request)
    }

    /// Moves the clock forward by `ms`, firing each timer at its own deadline.
    pub fn advance(&mut self, ms: i64) {
        let target = self.now + ms;
        while let Some(deadline) = self.shard.next_deadline() {
            if deadline > target {
                break;
            }
            self.now = self.now.max(deadline);
            let out = self.shard.on_timer(self.now);
            self.absorb(out);
        }
        self.now = target;
    }

    pub fn group_state(&self, group: &str) -> Option<&'static str> {
        self.shard.group(group).map(Group::state_name)
    }
}

/// A SyncGroup from `member_id` (the leader passes assignments).
pub fn sync_request(group: &str, member_id: &str, generation: i32, assignments: &[(&str, &[u8])]) -> SyncGroupRequest {
    SyncGroupRequest {
        group_id: group.to_owned(),
        generation_id: generation,
        member_id: member_id.to_owned(),
        assignments: assignments
            .iter()
            .map(|(member, assignment)| SyncGroupRequestAssignment {
                member_id: (*member).to_owned(),
                assignment: Bytes::copy_from_slice(assignment),
                ..SyncGroupRequestAssignment::default()
            })
            .collect(),
        ..SyncGroupRequest::default()
    }
}

/// An OffsetCommit of `offsets` (topic, partition, offset) with the given group identity.
pub fn commit_request(
    group: &str,
    generation: i32,
    member_id: &str,
    instance: Option<&str>,
    offsets: &[(&str, i32, i64)],
) -> OffsetCommitRequest {
    let mut topics: BTreeMap<&str, Vec<OffsetCommitRequestPartition>> = BTreeMap::new();
    for (topic, partition, offset) in offsets {
        topics.entry(topic).or_default().push(OffsetCommitRequestPartition {
            partition_index: *partition,
            committed_offset: *offset,
            committed_leader_epoch: 3,
            committed_metadata: Some(format!("meta-{offset}")),
            ..OffsetCommitRequestPartition::default()
        });
    }
    OffsetCommitRequest {
        group_id: group.to_owned(),
        generation_id_or_member_epoch: generation,
        member_id: member_id.to_owned(),
        group_instance_id: instance.map(str::to_owned),
        topics: topics
            .into_iter()
            .map(|(name, partitions)| OffsetCommitRequestTopic {
                name: name.to_owned(),
                partitions,
                ..OffsetCommitRequestTopic::default()
            })
            .collect(),
        ..OffsetCommitRequest::default()
    }
}

/// Every partition's error code in an OffsetCommit answer, in order.
pub fn commit_errors(response: &OffsetCommitResponse) -> Vec<i16> {
    response.topics.iter().flat_map(|t| t.partitions.iter().map(|p| p.error_code)).collect()
}

/// One member as a `GroupMetadata` record holds it: member id, instance id, client id, host,
/// rebalance timeout, session timeout, subscription for the group's protocol, assignment.
pub type DurableMember = (String, Option<String>, String, String, i32, i32, Bytes, Bytes);

/// One committed offset: group, topic, partition, offset.
pub type DurableOffset = (String, String, i32, strand_coordinator::group::records::OffsetAndMetadata);

/// A group's durable state, as a `GroupMetadata` record holds it (no timestamps, no soft state).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurableGroup {
    pub state: &'static str,
    pub protocol_type: Option<String>,
    pub generation: i32,
    pub protocol: Option<String>,
    pub leader: Option<String>,
    pub members: Vec<DurableMember>,
}

/// Every group's durable state and every committed offset of a shard: what a restart must give
/// back.
pub fn durable_view(shard: &GroupShard) -> (BTreeMap<String, DurableGroup>, Vec<DurableOffset>) {
    let groups = shard
        .groups()
        .filter_map(|(id, group)| match group {
            Group::Classic(group) => Some((id, group)),
            Group::Consumer(_) | Group::Streams(_) => None,
        })
        .map(|(id, group)| {
            let protocol = group.protocol_name().map(str::to_owned);
            let members = group
                .members()
                .map(|m| {
                    let subscription = protocol.as_deref().and_then(|p| m.metadata(p)).cloned().unwrap_or_default();
                    (
                        m.member_id.clone(),
                        m.group_instance_id.clone(),
                        m.client_id.clone(),
                        m.client_host.clone(),
                        m.rebalance_timeout_ms,
                        m.session_timeout_ms,
                        subscription,
                        m.assignment.clone(),
                    )
                })
                .collect();
            let durable = DurableGroup {
                state: group.state().name(),
                protocol_type: group.protocol_type().map(str::to_owned),
                generation: group.generation_id(),
                protocol,
                leader: group.leader_id().map(str::to_owned),
                members,
            };
            (id.clone(), durable)
        })
        .collect();
    let offsets = shard
        .offsets()
        .groups()
        .flat_map(|(group, topics)| {
            topics.iter().flat_map(move |(topic, partitions)| {
                partitions.iter().map(move |(p, o)| (group.clone(), topic.clone(), *p, o.clone()))
            })
        })
        .collect();
    (groups, offsets)
}

/// Every consumer group of a shard, whole: its state is all durable (records only).
pub fn consumer_view(shard: &GroupShard) -> BTreeMap<String, ConsumerGroup> {
    shard
        .groups()
        .filter_map(|(id, group)| match group {
            Group::Consumer(group) => Some((id.clone(), group.clone())),
            Group::Classic(_) | Group::Streams(_) => None,
        })
        .collect()
}

/// A topic id for tests: the name's bytes, padded.
pub fn topic_id(name: &str) -> Uuid {
    let mut bytes = [0u8; 16];
    for (i, b) in name.bytes().take(16).enumerate() {
        bytes[i] = b;
    }
    Uuid(bytes)
}

/// Topic metadata of `topics` (name, partitions) at `version`, ids from [`topic_id`].
pub fn topics(version: i64, topics: &[(&str, i32)]) -> Arc<TopicMetadata> {
    Arc::new(TopicMetadata::new(
        version,
        topics.iter().map(|(name, partitions)| ((*name).to_owned(), topic_id(name), *partitions)),
    ))
}

/// A ConsumerGroupHeartbeat, filled in as the Java consumer fills its first one (epoch 0).
pub fn cg_join(group: &str, member_id: &str, topics: &[&str]) -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest {
        group_id: group.to_owned(),
        member_id: member_id.to_owned(),
        member_epoch: 0,
        rebalance_timeout_ms: REBALANCE_MS,
        subscribed_topic_names: Some(topics.iter().map(|t| (*t).to_owned()).collect()),
        topic_partitions: Some(Vec::new()),
        ..ConsumerGroupHeartbeatRequest::default()
    }
}

/// A ConsumerGroupHeartbeat after the first: epoch and owned partitions (topic, partitions).
pub fn cg_beat(group: &str, member_id: &str, epoch: i32, owned: &[(&str, &[i32])]) -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest {
        group_id: group.to_owned(),
        member_id: member_id.to_owned(),
        member_epoch: epoch,
        rebalance_timeout_ms: -1,
        topic_partitions: Some(
            owned
                .iter()
                .map(|(topic, partitions)| HeartbeatTopicPartitions {
                    topic_id: topic_id(topic),
                    partitions: partitions.to_vec(),
                    ..HeartbeatTopicPartitions::default()
                })
                .collect(),
        ),
        ..ConsumerGroupHeartbeatRequest::default()
    }
}

/// A response's assignment as (topic id, sorted partitions), `None` if it carries none.
pub fn cg_assignment(response: &ConsumerGroupHeartbeatResponse) -> Option<Vec<(Uuid, Vec<i32>)>> {
    response.assignment.as_ref().map(|a| {
        let mut topics: Vec<(Uuid, Vec<i32>)> = a
            .topic_partitions
            .iter()
            .map(|t| {
                let mut partitions = t.partitions.clone();
                partitions.sort_unstable();
                (t.topic_id, partitions)
            })
            .collect();
        topics.sort();
        topics
    })
}

impl Harness {
    pub fn cg_heartbeat(&mut self, request: &ConsumerGroupHeartbeatRequest) -> ConsumerGroupHeartbeatResponse {
        let out = self.shard.consumer_group_heartbeat(self.now, &client("consumer"), request, 1, "generated-id");
        self.absorb(out)
    }
}

/// One entry of a `__consumer_offsets` log as the loader replays it.
#[derive(Debug, Clone, PartialEq)]
pub enum LogEntry {
    /// A record of a plain batch.
    Plain(CoordinatorRecord),
    /// A record of a producer's transactional batch.
    Txn(ProducerId, CoordinatorRecord),
    /// A COMMIT or ABORT marker.
    Marker(ProducerId, TransactionResult),
}

/// A fresh shard that replayed `entries`, each record first written to bytes and read back.
pub fn replayed_entries(config: GroupConfig, entries: &[LogEntry]) -> GroupShard {
    let mut shard = GroupShard::new(config);
    let through_bytes = |record: &CoordinatorRecord| {
        let key = record.encode_key().expect("encode key");
        let value = record.encode_value().expect("encode value");
        CoordinatorRecord::decode(key, value).expect("decode")
    };
    for entry in entries {
        match entry {
            LogEntry::Plain(record) => shard.replay(&through_bytes(record)),
            LogEntry::Txn(producer_id, record) => shard.replay_transactional(*producer_id, &through_bytes(record)),
            LogEntry::Marker(producer_id, result) => shard.replay_end_txn(*producer_id, *result),
        }
    }
    shard
}

/// A fresh shard that replayed `log`, each record first written to bytes and read back as the
/// loader reads it.
pub fn replayed(config: GroupConfig, log: &[CoordinatorRecord]) -> GroupShard {
    let mut shard = GroupShard::new(config);
    for record in log {
        let key = record.encode_key().expect("encode key");
        let value = record.encode_value().expect("encode value");
        let decoded = CoordinatorRecord::decode(key, value).expect("decode");
        assert_eq!(&decoded, record);
        shard.replay(&decoded);
    }
    shard
}
