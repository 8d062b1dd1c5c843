//! Transactional offset commits (TxnOffsetCommit) on one shard and through the runtime: offsets
//! pending until their transaction's marker (invisible to OffsetFetch, UNSTABLE_OFFSET_COMMIT to
//! `require_stable` fetches), COMMIT and ABORT, ordering against plain commits, tombstones, group
//! and generation checks (KIP-447), replay after a reload, and the transactional batch the
//! runtime appends after verifying the transaction.

mod common;

use std::sync::Arc;

use bytes::Bytes;
use common::*;
use strand_base::{ProducerId, SystemClock, TopicPartition};
use strand_coordinator::group::GroupShard;
use strand_coordinator::group::records::CoordinatorRecord;
use strand_coordinator::writer::memory::MemoryPartitionWriter;
use strand_coordinator::{GroupConfig, GroupCoordinator, NoTopicIds, OFFSETS_TOPIC, SequentialMemberIds, TxnMarker};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::offset_delete_request::{OffsetDeleteRequestPartition, OffsetDeleteRequestTopic};
use strand_protocol::messages::offset_fetch_request::{OffsetFetchRequestGroup, OffsetFetchRequestTopics};
use strand_protocol::messages::txn_offset_commit_request::{
    TxnOffsetCommitRequestPartition, TxnOffsetCommitRequestTopic,
};
use strand_protocol::messages::{
    OffsetDeleteRequest, OffsetFetchRequest, TxnOffsetCommitRequest, TxnOffsetCommitResponse,
};
use strand_protocol::records::{RecordBatch, RecordBatches, TransactionResult};

const G: &str = "group";
const PID: ProducerId = ProducerId(7);

/// A TxnOffsetCommit of `offsets` (topic, partition, offset) by `producer` with the given group
/// identity.
fn txn_commit(
    producer: ProducerId,
    generation: i32,
    member_id: &str,
    offsets: &[(&str, i32, i64)],
) -> TxnOffsetCommitRequest {
    let mut topics: Vec<TxnOffsetCommitRequestTopic> = Vec::new();
    for (topic, partition, offset) in offsets {
        let partition = TxnOffsetCommitRequestPartition {
            partition_index: *partition,
            committed_offset: *offset,
            committed_leader_epoch: 2,
            committed_metadata: Some(format!("txn-{offset}")),
            ..TxnOffsetCommitRequestPartition::default()
        };
        match topics.iter_mut().find(|t| t.name == *topic) {
            Some(existing) => existing.partitions.push(partition),
            None => topics.push(TxnOffsetCommitRequestTopic {
                name: (*topic).to_owned(),
                partitions: vec![partition],
                ..TxnOffsetCommitRequestTopic::default()
            }),
        }
    }
    TxnOffsetCommitRequest {
        transactional_id: "tx".to_owned(),
        group_id: G.to_owned(),
        producer_id: producer,
        producer_epoch: 0,
        generation_id_or_member_epoch: generation,
        member_id: member_id.to_owned(),
        topics,
        ..TxnOffsetCommitRequest::default()
    }
}

fn txn_errors(response: &TxnOffsetCommitResponse) -> Vec<i16> {
    response.topics.iter().flat_map(|t| t.partitions.iter().map(|p| p.error_code)).collect()
}

/// One entry of a `__consumer_offsets` log as the loader sees it: a plain batch's record, a
/// transactional batch's record, or a transaction marker.
#[derive(Debug, Clone)]
enum Entry {
    Plain(CoordinatorRecord),
    Txn(ProducerId, CoordinatorRecord),
    Marker(ProducerId, TransactionResult),
}

/// A shard and the log it wrote, batch kinds included.
struct TxnHarness {
    h: Harness,
    log: Vec<Entry>,
}

impl TxnHarness {
    fn new() -> Self {
        TxnHarness { h: Harness::with_defaults(), log: Vec::new() }
    }

    fn txn_commit(&mut self, request: &TxnOffsetCommitRequest) -> Vec<i16> {
        let out = self.h.shard.txn_offset_commit(self.h.now, request);
        self.log.extend(out.records.iter().cloned().map(|r| Entry::Txn(request.producer_id, r)));
        txn_errors(&out.response)
    }

    fn commit(&mut self, offsets: &[(&str, i32, i64)]) {
        let before = self.h.log.len();
        let response = self.h.commit(&commit_request(G, -1, "", None, offsets), 9);
        assert!(commit_errors(&response).iter().all(|&e| e == 0));
        self.log.extend(self.h.log[before..].iter().cloned().map(Entry::Plain));
    }

    fn end_txn(&mut self, producer: ProducerId, result: TransactionResult) {
        self.h.shard.replay_end_txn(producer, result);
        self.log.push(Entry::Marker(producer, result));
    }

    /// (error, offset) of one partition, plain or `require_stable`.
    fn fetch(&self, topic: &str, partition: i32, stable: bool) -> (i16, i64) {
        fetch_from(&self.h.shard, topic, partition, stable)
    }

    /// A fresh shard replaying the log, each record through its bytes.
    fn reloaded(&self) -> GroupShard {
        let mut shard = GroupShard::new(GroupConfig::default());
        for entry in &self.log {
            match entry {
                Entry::Plain(record) => shard.replay(&through_bytes(record)),
                Entry::Txn(producer, record) => shard.replay_transactional(*producer, &through_bytes(record)),
                Entry::Marker(producer, result) => shard.replay_end_txn(*producer, *result),
            }
        }
        shard
    }
}

fn through_bytes(record: &CoordinatorRecord) -> CoordinatorRecord {
    let key = record.encode_key().expect("key");
    let value = record.encode_value().expect("value");
    CoordinatorRecord::decode(key, value).expect("decode")
}

fn fetch_request(topic: &str, partition: i32) -> OffsetFetchRequestGroup {
    OffsetFetchRequestGroup {
        group_id: G.to_owned(),
        topics: Some(vec![OffsetFetchRequestTopics {
            name: topic.to_owned(),
            partition_indexes: vec![partition],
            ..OffsetFetchRequestTopics::default()
        }]),
        ..OffsetFetchRequestGroup::default()
    }
}

fn fetch_from(shard: &GroupShard, topic: &str, partition: i32, stable: bool) -> (i16, i64) {
    let request = fetch_request(topic, partition);
    let group = if stable { shard.offset_fetch_stable(&request) } else { shard.offset_fetch(&request) };
    assert_eq!(group.error_code, 0, "{group:?}");
    let p = &group.topics[0].partitions[0];
    (p.error_code, p.committed_offset)
}

const NONE: i16 = 0;
const UNSTABLE: i16 = ErrorCode::UnstableOffsetCommit.code();

/// A transactional offset is invisible until its COMMIT marker: a plain fetch sees the offset
/// committed before it, a `require_stable` fetch gets UNSTABLE_OFFSET_COMMIT; after the marker
/// both see the transaction's offset.
#[test]
fn pending_offsets_are_invisible_until_commit() {
    let mut t = TxnHarness::new();
    t.commit(&[("orders", 0, 3)]);
    assert_eq!(t.txn_commit(&txn_commit(PID, -1, "", &[("orders", 0, 10), ("orders", 1, 20)])), vec![NONE, NONE]);
    assert_eq!(t.fetch("orders", 0, false), (NONE, 3));
    assert_eq!(t.fetch("orders", 1, false), (NONE, -1));
    assert_eq!(t.fetch("orders", 0, true), (UNSTABLE, -1));
    assert_eq!(t.fetch("orders", 1, true), (UNSTABLE, -1));
    assert_eq!(t.fetch("other", 0, true), (NONE, -1), "a partition without pending offsets is stable");

    t.end_txn(ProducerId(99), TransactionResult::Commit);
    assert_eq!(t.fetch("orders", 0, true), (UNSTABLE, -1), "another producer's marker decides nothing");

    t.end_txn(PID, TransactionResult::Commit);
    assert_eq!(t.fetch("orders", 0, true), (NONE, 10));
    assert_eq!(t.fetch("orders", 1, false), (NONE, 20));
    let stored = t.h.shard.offsets().get(G, "orders", 1).expect("committed");
    assert_eq!((stored.metadata.as_str(), stored.leader_epoch, stored.commit_timestamp_ms), ("txn-20", 2, T0));
}

/// ABORT drops the transaction's offsets; what was committed before stays.
#[test]
fn abort_drops_pending_offsets() {
    let mut t = TxnHarness::new();
    t.commit(&[("orders", 0, 3)]);
    t.txn_commit(&txn_commit(PID, -1, "", &[("orders", 0, 10)]));
    t.end_txn(PID, TransactionResult::Abort);
    assert_eq!(t.fetch("orders", 0, true), (NONE, 3));
    assert!(t.h.shard.pending_offsets().producers().next().is_none());
    t.end_txn(PID, TransactionResult::Commit);
    assert_eq!(t.fetch("orders", 0, false), (NONE, 3), "a later marker finds nothing to commit");
}

/// Kafka's ordering rule: when a transaction commits, its offset replaces the committed one only
/// if its record is later in the log; a plain commit written after the transactional one wins.
#[test]
fn the_later_record_wins_between_plain_and_transactional_commits() {
    let mut t = TxnHarness::new();
    t.txn_commit(&txn_commit(PID, -1, "", &[("orders", 0, 10), ("orders", 1, 10)]));
    t.commit(&[("orders", 0, 50)]);
    t.end_txn(PID, TransactionResult::Commit);
    assert_eq!(t.fetch("orders", 0, false), (NONE, 50), "plain commit later in the log");
    assert_eq!(t.fetch("orders", 1, false), (NONE, 10));

    t.commit(&[("orders", 0, 60)]);
    t.txn_commit(&txn_commit(ProducerId(8), -1, "", &[("orders", 0, 15)]));
    t.end_txn(ProducerId(8), TransactionResult::Commit);
    assert_eq!(t.fetch("orders", 0, false), (NONE, 15), "transactional commit later in the log");

    let reloaded = t.reloaded();
    assert_eq!(reloaded.offsets(), t.h.shard.offsets(), "a reload orders them the same way");
}

/// Two producers' transactions on the same partition are kept apart: each marker decides its own.
#[test]
fn concurrent_transactions_are_decided_apart() {
    let mut t = TxnHarness::new();
    t.txn_commit(&txn_commit(PID, -1, "", &[("orders", 0, 10)]));
    t.txn_commit(&txn_commit(ProducerId(8), -1, "", &[("orders", 0, 20)]));
    t.end_txn(ProducerId(8), TransactionResult::Abort);
    assert_eq!(t.fetch("orders", 0, true), (UNSTABLE, -1), "the first transaction is still open");
    t.end_txn(PID, TransactionResult::Commit);
    assert_eq!(t.fetch("orders", 0, true), (NONE, 10));
}

/// OffsetDelete writes a tombstone for a partition with only pending offsets, and the tombstone
/// drops them: the transaction's later COMMIT restores nothing.
#[test]
fn a_tombstone_drops_pending_offsets() {
    let mut t = TxnHarness::new();
    t.txn_commit(&txn_commit(PID, -1, "", &[("orders", 0, 10)]));
    let delete = OffsetDeleteRequest {
        group_id: G.to_owned(),
        topics: vec![OffsetDeleteRequestTopic {
            name: "orders".to_owned(),
            partitions: vec![OffsetDeleteRequestPartition { partition_index: 0 }],
        }],
    };
    let out = t.h.shard.offset_delete(&delete);
    assert_eq!(out.records, vec![CoordinatorRecord::offset_commit_tombstone(G, "orders", 0)]);
    t.log.extend(out.records.into_iter().map(Entry::Plain));
    assert_eq!(t.fetch("orders", 0, true), (NONE, -1));
    t.end_txn(PID, TransactionResult::Commit);
    assert_eq!(t.fetch("orders", 0, false), (NONE, -1));
}

/// Loading replays transactional batches into pending offsets and markers into their outcome: a
/// reloaded shard has the same committed offsets, and an open transaction's offsets are still
/// pending (UNSTABLE to stable fetches) until its marker comes.
#[test]
fn replay_restores_pending_and_completed_transactions() {
    let mut t = TxnHarness::new();
    t.commit(&[("orders", 0, 1)]);
    t.txn_commit(&txn_commit(PID, -1, "", &[("orders", 0, 10)]));
    t.end_txn(PID, TransactionResult::Commit);
    t.txn_commit(&txn_commit(ProducerId(8), -1, "", &[("orders", 1, 5)]));
    t.end_txn(ProducerId(8), TransactionResult::Abort);
    t.txn_commit(&txn_commit(ProducerId(9), -1, "", &[("orders", 2, 30)]));

    let mut reloaded = t.reloaded();
    assert_eq!(reloaded.offsets(), t.h.shard.offsets());
    assert_eq!(reloaded.pending_offsets(), t.h.shard.pending_offsets());
    assert_eq!(fetch_from(&reloaded, "orders", 0, true), (NONE, 10));
    assert_eq!(fetch_from(&reloaded, "orders", 1, true), (NONE, -1));
    assert_eq!(fetch_from(&reloaded, "orders", 2, true), (UNSTABLE, -1));
    assert_eq!(reloaded.group(G).map(|g| g.state_name()), Some("Empty"), "the offsets' replay made a simple group");
    reloaded.replay_end_txn(ProducerId(9), TransactionResult::Commit);
    assert_eq!(fetch_from(&reloaded, "orders", 2, true), (NONE, 30));
}

/// KIP-447 against a classic group: the member id and generation are checked when given (unknown
/// member, wrong generation), not when the request carries none (older producers); a group that
/// does not exist takes generation -1 only. Refusals write nothing.
#[test]
fn classic_group_membership_is_checked() {
    let mut h = Harness::with_defaults();
    let mut members = Vec::new();
    let (id, reply) = h.join_new_member(G, "a");
    h.advance(200);
    let generation = h.join_answer(&reply).expect("joined").generation_id;
    h.sync(&sync_request(G, &id, generation, &[]));
    members.push(id);
    assert_eq!(h.group_state(G), Some("Stable"));

    let cases: [(&str, i32, &str, ErrorCode); 5] = [
        ("the member at its generation", generation, &members[0], ErrorCode::None),
        ("an older generation", generation - 1, &members[0], ErrorCode::IllegalGeneration),
        ("an unknown member", generation, "stranger", ErrorCode::UnknownMemberId),
        ("no member fields", -1, "", ErrorCode::None),
        ("generation -1 from a member", -1, &members[0], ErrorCode::IllegalGeneration),
    ];
    for (what, generation, member, expected) in cases {
        let out = h.shard.txn_offset_commit(h.now, &txn_commit(PID, generation, member, &[("orders", 0, 4)]));
        assert_eq!(txn_errors(&out.response), vec![expected.code()], "{what}");
        assert_eq!(out.records.is_empty(), expected != ErrorCode::None, "{what}");
    }

    let mut missing = txn_commit(PID, 3, "m", &[("orders", 0, 4)]);
    missing.group_id = "nobody".to_owned();
    let out = h.shard.txn_offset_commit(h.now, &missing);
    assert_eq!(txn_errors(&out.response), vec![ErrorCode::IllegalGeneration.code()]);
    missing.generation_id_or_member_epoch = -1;
    missing.member_id = String::new();
    let out = h.shard.txn_offset_commit(h.now, &missing);
    assert_eq!(txn_errors(&out.response), vec![0]);
    assert_eq!(h.group_state("nobody"), Some("Empty"), "a simple group is created");
}

/// KIP-447 against a consumer group: an unknown member is UNKNOWN_MEMBER_ID and a newer epoch
/// ILLEGAL_GENERATION (TxnOffsetCommit has no STALE_MEMBER_EPOCH); the member's own epoch
/// commits.
#[test]
fn consumer_group_member_epochs_are_checked() {
    let mut h = Harness::with_defaults();
    h.shard.set_metadata(topics(1, &[("orders", 2)]));
    let joined = h.cg_heartbeat(&cg_join(G, "m", &["orders"]));
    assert_eq!(joined.error_code, 0);
    let member = joined.member_id.clone().expect("member id");
    let epoch = joined.member_epoch;
    let cases = [
        ("its own epoch", epoch, member.as_str(), ErrorCode::None),
        ("a newer epoch", epoch + 1, member.as_str(), ErrorCode::IllegalGeneration),
        ("an unknown member", epoch, "stranger", ErrorCode::UnknownMemberId),
        ("no member fields", -1, "", ErrorCode::None),
    ];
    for (what, epoch, member, expected) in cases {
        let out = h.shard.txn_offset_commit(h.now, &txn_commit(PID, epoch, member, &[("orders", 0, 4)]));
        assert_eq!(txn_errors(&out.response), vec![expected.code()], "{what}");
    }
}

/// Metadata longer than `offset.metadata.max.bytes` refuses its partition alone.
#[test]
fn oversized_metadata_refuses_its_partition() {
    let mut h = Harness::new(GroupConfig { offset_metadata_max_bytes: 8, ..GroupConfig::default() });
    let mut request = txn_commit(PID, -1, "", &[("orders", 0, 4), ("orders", 1, 5)]);
    request.topics[0].partitions[1].committed_metadata = Some("x".repeat(9));
    let out = h.shard.txn_offset_commit(h.now, &request);
    assert_eq!(txn_errors(&out.response), vec![0, ErrorCode::OffsetMetadataTooLarge.code()]);
    assert_eq!(out.records.len(), 1);
    assert!(h.shard.pending_offsets().get(PID, G, "orders", 0).is_some());
    assert!(h.shard.pending_offsets().get(PID, G, "orders", 1).is_none());
}

// ---- Through the runtime, over the in-memory writer ----

const PARTITIONS: i32 = 1;

fn offsets_tp() -> TopicPartition {
    TopicPartition::new(OFFSETS_TOPIC, 0)
}

async fn coordinator(writer: &Arc<MemoryPartitionWriter>, epoch: i32) -> GroupCoordinator {
    writer.lead(&offsets_tp(), epoch);
    let config = GroupConfig { offsets_topic_partitions: PARTITIONS, ..GroupConfig::default() };
    let coordinator =
        GroupCoordinator::new(config, writer.clone(), Arc::new(SystemClock), Arc::new(SequentialMemberIds::default()));
    coordinator.shards().become_leader(0, epoch);
    assert!(coordinator.shards().wait_active(0).await);
    coordinator
}

async fn stable_fetch(coordinator: &GroupCoordinator, partition: i32) -> (i16, i64) {
    let request = OffsetFetchRequest {
        groups: vec![fetch_request("orders", partition)],
        require_stable: true,
        ..OffsetFetchRequest::default()
    };
    let response = coordinator.offset_fetch(request, 9, &NoTopicIds).await;
    let p = &response.groups[0].topics[0].partitions[0];
    (p.error_code, p.committed_offset)
}

fn marker(result: TransactionResult) -> TxnMarker {
    TxnMarker { producer_id: PID, producer_epoch: 1, coordinator_epoch: 0, result }
}

fn stored_batches(writer: &MemoryPartitionWriter) -> Vec<RecordBatch> {
    let mut all = Vec::new();
    for bytes in writer.batches(&offsets_tp()) {
        all.extend(RecordBatches::new(Bytes::clone(&bytes)).map(|b| b.expect("batch")));
    }
    all
}

/// TxnOffsetCommit v5 through the runtime: the transaction is verified (adding the partition,
/// transactions V2) before the offsets are appended as the producer's transactional batch; they
/// are UNSTABLE until `complete_transaction` writes the COMMIT marker, and a coordinator loading
/// the log again finds an open transaction pending and a committed one committed.
#[tokio::test]
async fn runtime_verifies_appends_transactionally_and_replays() {
    let writer = Arc::new(MemoryPartitionWriter::new());
    let groups = coordinator(&writer, 1).await;
    let response = groups.txn_offset_commit(txn_commit(PID, -1, "", &[("orders", 0, 10)]), 5, &NoTopicIds).await;
    assert_eq!(txn_errors(&response), vec![0]);
    let verifications = writer.verifications();
    assert_eq!(verifications.len(), 1);
    assert_eq!(verifications[0].0, offsets_tp());
    assert!(verifications[0].1.add, "v5 adds the partition to the transaction");
    assert_eq!((verifications[0].1.producer_id, verifications[0].1.transactional_id.as_str()), (PID, "tx"));

    let batches = stored_batches(&writer);
    let offsets_batch = batches.last().expect("appended");
    assert!(offsets_batch.attributes().is_transactional() && !offsets_batch.attributes().is_control());
    assert_eq!((offsets_batch.producer_id(), offsets_batch.producer_epoch()), (PID, 0));
    assert_eq!(stable_fetch(&groups, 0).await, (UNSTABLE, -1));

    // A restart while the transaction is open: still pending.
    groups.shards().shutdown().await;
    let groups = coordinator(&writer, 2).await;
    assert_eq!(stable_fetch(&groups, 0).await, (UNSTABLE, -1));

    groups.complete_transaction(0, marker(TransactionResult::Commit)).await.expect("marker");
    assert_eq!(stable_fetch(&groups, 0).await, (NONE, 10));
    assert!(stored_batches(&writer).last().expect("marker").attributes().is_control());

    groups.shards().shutdown().await;
    let groups = coordinator(&writer, 3).await;
    assert_eq!(stable_fetch(&groups, 0).await, (NONE, 10), "the marker is replayed on load");

    // An aborted transaction leaves the committed offset alone, before and after a reload.
    let response = groups.txn_offset_commit(txn_commit(PID, -1, "", &[("orders", 0, 99)]), 3, &NoTopicIds).await;
    assert_eq!(txn_errors(&response), vec![0]);
    assert!(!writer.verifications()[1].1.add, "v3 only checks that the producer added it");
    groups.complete_transaction(0, marker(TransactionResult::Abort)).await.expect("marker");
    assert_eq!(stable_fetch(&groups, 0).await, (NONE, 10));
    groups.shards().shutdown().await;
    let groups = coordinator(&writer, 4).await;
    assert_eq!(stable_fetch(&groups, 0).await, (NONE, 10));
}

/// A transaction the coordinator does not verify writes nothing: its error reaches the producer
/// as Kafka translates it (PRODUCER_FENCED as INVALID_PRODUCER_EPOCH, a network failure as
/// COORDINATOR_LOAD_IN_PROGRESS, which retries); other requests are still served.
#[tokio::test]
async fn a_refused_verification_writes_nothing() {
    let writer = Arc::new(MemoryPartitionWriter::new());
    let groups = coordinator(&writer, 1).await;
    let cases = [
        (ErrorCode::ProducerFenced, ErrorCode::InvalidProducerEpoch),
        (ErrorCode::NetworkException, ErrorCode::CoordinatorLoadInProgress),
        (ErrorCode::InvalidTxnState, ErrorCode::InvalidTxnState),
    ];
    for (refusal, expected) in cases {
        writer.fail_verifications(&offsets_tp(), Some(refusal));
        let response = groups.txn_offset_commit(txn_commit(PID, -1, "", &[("orders", 0, 10)]), 5, &NoTopicIds).await;
        assert_eq!(txn_errors(&response), vec![expected.code()], "{refusal:?}");
    }
    assert!(writer.batches(&offsets_tp()).is_empty());
    assert_eq!(stable_fetch(&groups, 0).await, (NONE, -1));

    let mut empty_group = txn_commit(PID, -1, "", &[("orders", 0, 10)]);
    empty_group.group_id = String::new();
    let response = groups.txn_offset_commit(empty_group, 5, &NoTopicIds).await;
    assert_eq!(txn_errors(&response), vec![ErrorCode::InvalidGroupId.code()]);
}
