//! The transaction coordinator's shell over the in-memory partition writer, on tokio's paused
//! clock: routing (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS), answers held until the records
//! commit, commits and aborts with their markers (a fake sender that fails some partitions before
//! writing them), failover from a log written as Kafka writes it and ending in PrepareCommit,
//! timeouts aborted by the shell's timers, failed appends, and the request API at its versions.

mod common;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use common::{T0, TokioClock};
use strand_base::{ProducerId, TopicPartition};
use strand_coordinator::txn::{SequentialProducerIds, TxnRecord, TxnState};
use strand_coordinator::writer::memory::MemoryPartitionWriter;
use strand_coordinator::{
    BoxFuture, MarkerOutcome, ShardStatus, TRANSACTION_STATE_TOPIC, TxnConfig, TxnCoordinator, TxnMarkerRequest,
    TxnMarkerSender, TxnResult, WriteError,
};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::add_partitions_to_txn_request::{
    AddPartitionsToTxnTopic, AddPartitionsToTxnTransaction,
};
use strand_protocol::messages::{
    AddOffsetsToTxnRequest, AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, DescribeTransactionsRequest,
    EndTxnRequest, InitProducerIdRequest, ListTransactionsRequest,
};
use strand_protocol::records::{NewRecord, RecordBatch, RecordBatchBuilder};

const PARTITIONS: i32 = 4;
const TIMEOUT_MS: i32 = 60_000;

/// Records every marker request; a partition fails a set number of times before it is written,
/// and may be gone or fenced.
#[derive(Debug, Default)]
struct FakeMarkers {
    calls: Mutex<Vec<TxnMarkerRequest>>,
    failures_left: Mutex<HashMap<TopicPartition, u32>>,
    gone: Mutex<HashSet<TopicPartition>>,
    fenced: Mutex<HashSet<TopicPartition>>,
}

impl FakeMarkers {
    fn fail(&self, tp: TopicPartition, times: u32) {
        self.failures_left.lock().expect("lock").insert(tp, times);
    }

    fn calls(&self) -> Vec<TxnMarkerRequest> {
        self.calls.lock().expect("lock").clone()
    }
}

impl TxnMarkerSender for FakeMarkers {
    fn send(&self, request: TxnMarkerRequest) -> BoxFuture<'_, Vec<(TopicPartition, MarkerOutcome)>> {
        let mut failures = self.failures_left.lock().expect("lock");
        let outcomes = request
            .partitions
            .iter()
            .map(|tp| {
                let outcome = if self.gone.lock().expect("lock").contains(tp) {
                    MarkerOutcome::PartitionGone
                } else if self.fenced.lock().expect("lock").contains(tp) {
                    MarkerOutcome::Failed(ErrorCode::TransactionCoordinatorFenced)
                } else {
                    match failures.get_mut(tp) {
                        Some(left) if *left > 0 => {
                            *left -= 1;
                            MarkerOutcome::Failed(ErrorCode::NotLeaderOrFollower)
                        }
                        _ => MarkerOutcome::Written,
                    }
                };
                (tp.clone(), outcome)
            })
            .collect();
        self.calls.lock().expect("lock").push(request);
        Box::pin(async move { outcomes })
    }
}

struct Node {
    writer: Arc<MemoryPartitionWriter>,
    markers: Arc<FakeMarkers>,
    coordinator: TxnCoordinator,
}

fn state_tp(partition: i32) -> TopicPartition {
    TopicPartition::new(TRANSACTION_STATE_TOPIC, partition)
}

fn node_over(writer: Arc<MemoryPartitionWriter>) -> Node {
    let markers = Arc::new(FakeMarkers::default());
    let clock = Arc::new(TokioClock::starting_now());
    let config = TxnConfig { transaction_state_log_partitions: PARTITIONS, ..TxnConfig::default() };
    let ids = Arc::new(SequentialProducerIds::starting_at(5000));
    let coordinator = TxnCoordinator::new(config, writer.clone(), clock, ids, markers.clone());
    Node { writer, markers, coordinator }
}

/// A node leading every partition at leader epoch 1, loaded.
async fn active() -> Node {
    let writer = Arc::new(MemoryPartitionWriter::new());
    for partition in 0..PARTITIONS {
        writer.lead(&state_tp(partition), 1);
    }
    let node = node_over(writer);
    for partition in 0..PARTITIONS {
        node.coordinator.shards().become_leader(partition, 1);
        assert!(node.coordinator.shards().wait_active(partition).await);
    }
    node
}

fn init_request(id: &str) -> InitProducerIdRequest {
    InitProducerIdRequest {
        transactional_id: Some(id.to_owned()),
        transaction_timeout_ms: TIMEOUT_MS,
        producer_id: ProducerId(-1),
        producer_epoch: -1,
        ..Default::default()
    }
}

async fn init(node: &Node, id: &str) -> (i64, i16) {
    let response = node.coordinator.init_producer_id(init_request(id), 5).await;
    assert_eq!(response.error_code, 0, "InitProducerId {id}");
    (response.producer_id.0, response.producer_epoch)
}

fn topics(partitions: &[(&str, i32)]) -> Vec<AddPartitionsToTxnTopic> {
    let mut topics: Vec<AddPartitionsToTxnTopic> = Vec::new();
    for (topic, partition) in partitions {
        match topics.iter_mut().find(|t| t.name == *topic) {
            Some(t) => t.partitions.push(*partition),
            None => topics.push(AddPartitionsToTxnTopic {
                name: (*topic).to_owned(),
                partitions: vec![*partition],
                ..Default::default()
            }),
        }
    }
    topics
}

/// Every partition error of a v0-3 answer.
fn v3_errors(response: &AddPartitionsToTxnResponse) -> Vec<i16> {
    response
        .results_by_topic_v3_and_below
        .iter()
        .flat_map(|t| t.results_by_partition.iter())
        .map(|p| p.partition_error_code)
        .collect()
}

async fn add(node: &Node, id: &str, producer: (i64, i16), partitions: &[(&str, i32)], version: i16) -> Vec<i16> {
    let request = AddPartitionsToTxnRequest {
        v3_and_below_transactional_id: id.to_owned(),
        v3_and_below_producer_id: ProducerId(producer.0),
        v3_and_below_producer_epoch: producer.1,
        v3_and_below_topics: topics(partitions),
        ..Default::default()
    };
    v3_errors(&node.coordinator.add_partitions_to_txn(request, version).await)
}

async fn end(node: &Node, id: &str, producer: (i64, i16), commit: bool, version: i16) -> (i16, i64, i16) {
    let request = EndTxnRequest {
        transactional_id: id.to_owned(),
        producer_id: ProducerId(producer.0),
        producer_epoch: producer.1,
        committed: commit,
        ..Default::default()
    };
    let response = node.coordinator.end_txn(request, version).await;
    (response.error_code, response.producer_id.0, response.producer_epoch)
}

async fn describe(node: &Node, id: &str) -> (i16, String, i64, i16) {
    let request = DescribeTransactionsRequest { transactional_ids: vec![id.to_owned()], ..Default::default() };
    let response = node.coordinator.describe_transactions(request, 0).await;
    let state = &response.transaction_states[0];
    (state.error_code, state.transaction_state.clone(), state.producer_id.0, state.producer_epoch)
}

/// Waits (on the paused clock) until `id` reaches `state`.
async fn until_state(node: &Node, id: &str, state: TxnState) {
    for _ in 0..10_000 {
        if describe(node, id).await.1 == state.name() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("{id} never reached {state}: {:?}", describe(node, id).await);
}

/// Every record stored in `partition`, decoded.
fn stored(writer: &MemoryPartitionWriter, partition: i32) -> Vec<TxnRecord> {
    let mut records = Vec::new();
    for batch in writer.batches(&state_tp(partition)) {
        let batch = RecordBatch::parse(batch).expect("a stored batch parses");
        for record in batch.records().expect("records").iter() {
            let record = record.expect("record");
            let key = Bytes::copy_from_slice(record.key().expect("key"));
            let value = record.value().map(Bytes::copy_from_slice);
            records.push(TxnRecord::decode(key, value).expect("a stored record decodes"));
        }
    }
    records
}

fn last_state(writer: &MemoryPartitionWriter, partition: i32, id: &str) -> Option<TxnState> {
    stored(writer, partition)
        .into_iter()
        .rev()
        .find(|r| r.transactional_id == id)
        .and_then(|r| r.value.map(|(_, m)| m.state))
}

/// A commit: EndTxn is answered once PrepareCommit is committed, the markers go to every
/// partition (a partition failing twice is resent alone until written), and CompleteCommit
/// follows.
#[tokio::test(start_paused = true)]
async fn commit_sends_markers_until_written_then_completes() {
    let node = active().await;
    let producer = init(&node, "tx").await;
    assert_eq!(producer, (5000, 0));
    assert_eq!(add(&node, "tx", producer, &[("orders", 0), ("orders", 1)], 3).await, vec![0, 0]);
    node.markers.fail(TopicPartition::new("orders", 0), 2);
    assert_eq!(end(&node, "tx", producer, true, 3).await, (0, -1, -1));
    until_state(&node, "tx", TxnState::CompleteCommit).await;
    let calls = node.markers.calls();
    let sent: Vec<usize> = calls.iter().map(|c| c.partitions.len()).collect();
    assert_eq!(sent, vec![2, 1, 1], "the failed partition alone is resent");
    let first = &calls[0];
    assert_eq!(
        (first.producer_id, first.producer_epoch, first.result, first.coordinator_epoch),
        (5000, 0, TxnResult::Commit, 1)
    );
    let partition = node.coordinator.partition_for("tx");
    let states: Vec<TxnState> =
        stored(&node.writer, partition).into_iter().filter_map(|r| r.value.map(|(_, m)| m.state)).collect();
    assert_eq!(states, vec![TxnState::Empty, TxnState::Ongoing, TxnState::PrepareCommit, TxnState::CompleteCommit]);
}

/// Transactions V2 through the API: EndTxn v5 answers the new epoch, the markers carry it, and
/// a delayed EndTxn with the old epoch after the next transaction began is PRODUCER_FENCED.
#[tokio::test(start_paused = true)]
async fn v2_abort_then_delayed_end_is_fenced() {
    let node = active().await;
    let (id, epoch) = init(&node, "tx").await;
    let add_v5 = AddPartitionsToTxnRequest {
        transactions: vec![AddPartitionsToTxnTransaction {
            transactional_id: "tx".to_owned(),
            producer_id: ProducerId(id),
            producer_epoch: epoch,
            verify_only: false,
            topics: topics(&[("orders", 3)]),
            ..Default::default()
        }],
        ..Default::default()
    };
    let response = node.coordinator.add_partitions_to_txn(add_v5, 5).await;
    assert_eq!(response.results_by_transaction[0].topic_results[0].results_by_partition[0].partition_error_code, 0);
    assert_eq!(end(&node, "tx", (id, epoch), false, 5).await, (0, id, epoch + 1));
    until_state(&node, "tx", TxnState::CompleteAbort).await;
    assert_eq!(node.markers.calls()[0].producer_epoch, epoch + 1);
    assert_eq!(add(&node, "tx", (id, epoch + 1), &[("orders", 4)], 3).await, vec![0]);
    assert_eq!(end(&node, "tx", (id, epoch), false, 5).await.0, ErrorCode::ProducerFenced.code());
    assert_eq!(describe(&node, "tx").await.1, "Ongoing");
}

/// A Kafka-written log ending in PrepareCommit (bytes laid out by hand from the schemas): the
/// new coordinator sends the markers again with its own coordinator epoch and writes
/// CompleteCommit; an unknown tagged field of the record is kept in what it writes.
#[tokio::test(start_paused = true)]
async fn failover_completes_a_prepared_commit() {
    let writer = Arc::new(MemoryPartitionWriter::new());
    let id = "payments-1";
    let node = node_over(writer.clone());
    let partition = node.coordinator.partition_for(id);
    writer.lead(&state_tp(partition), 7);
    let empty = kafka_value(0, 42, 0, 0, &[], -1);
    let prepare = kafka_value(1, 42, 0, 2, &[("orders", &[0, 2]), ("refunds", &[1])], T0 - 5);
    writer.append_committed(&state_tp(partition), kafka_batch(id, &[empty, prepare])).expect("as set up");
    node.coordinator.shards().become_leader(partition, 7);
    assert!(node.coordinator.shards().wait_active(partition).await);
    until_state(&node, id, TxnState::CompleteCommit).await;
    let call = &node.markers.calls()[0];
    assert_eq!(
        (call.producer_id, call.producer_epoch, call.result, call.coordinator_epoch),
        (42, 0, TxnResult::Commit, 7)
    );
    let expected: Vec<TopicPartition> =
        vec![TopicPartition::new("orders", 0), TopicPartition::new("orders", 2), TopicPartition::new("refunds", 1)];
    assert_eq!(call.partitions, expected);
    let complete = stored(&writer, partition).pop().expect("as set up").value.expect("as set up").1;
    assert_eq!(complete.state, TxnState::CompleteCommit);
    assert_eq!(complete.unknown_tagged_fields.len(), 1, "the unknown tag survived");
    // The producer goes on: its next InitProducerId bumps the replayed epoch.
    assert_eq!(init(&node, id).await, (42, 1));
}

/// TransactionLogValue bytes as Kafka writes them: version, producer id, epoch, timeout, status,
/// partitions (null when Empty), last update and start times; version 1 adds tagged fields (here
/// ClientTransactionVersion 0 is default, so only an unknown tag 7).
fn kafka_value(
    version: i16,
    producer_id: i64,
    epoch: i16,
    status: i8,
    partitions: &[(&str, &[i32])],
    start: i64,
) -> Bytes {
    let mut out = BytesMut::new();
    out.put_i16(version);
    out.put_i64(producer_id);
    out.put_i16(epoch);
    out.put_i32(TIMEOUT_MS);
    out.put_i8(status);
    let flexible = version >= 1;
    if status == 0 {
        if flexible { out.put_u8(0) } else { out.put_i32(-1) }
    } else {
        put_len(&mut out, flexible, partitions.len());
        for (topic, ids) in partitions {
            put_len(&mut out, flexible, topic.len());
            out.put_slice(topic.as_bytes());
            put_len(&mut out, flexible, ids.len());
            for id in *ids {
                out.put_i32(*id);
            }
            if flexible {
                out.put_u8(0);
            }
        }
    }
    out.put_i64(T0 - 1);
    out.put_i64(start);
    if flexible {
        out.put_slice(&[1, 7, 2, 0xab, 0xcd]);
    }
    out.freeze()
}

/// A compact length is the length plus one (a one-byte varint here); a classic one is an i16
/// for strings and an i32 for arrays, written as Kafka's non-flexible versions do.
fn put_len(out: &mut BytesMut, flexible: bool, len: usize) {
    if flexible {
        out.put_u8(u8::try_from(len + 1).expect("as set up"));
    } else {
        out.put_i32(i32::try_from(len).expect("as set up"));
    }
}

fn kafka_batch(id: &str, values: &[Bytes]) -> Bytes {
    let mut key = BytesMut::new();
    key.put_i16(0);
    key.put_i16(i16::try_from(id.len()).expect("as set up"));
    key.put_slice(id.as_bytes());
    let mut builder = RecordBatchBuilder::new();
    for value in values {
        builder
            .append(&NewRecord { timestamp_ms: T0, key: Some(&key), value: Some(value), headers: &[] })
            .expect("as set up");
    }
    builder.build().expect("as set up")
}

/// Partitions not led here answer NOT_COORDINATOR; a partition still loading (its log not yet
/// committed) answers COORDINATOR_LOAD_IN_PROGRESS, then serves.
#[tokio::test(start_paused = true)]
async fn routing_before_and_during_load() {
    let writer = Arc::new(MemoryPartitionWriter::new());
    let node = node_over(writer.clone());
    let partition = node.coordinator.partition_for("tx");
    let response = node.coordinator.init_producer_id(init_request("tx"), 4).await;
    assert_eq!(response.error_code, ErrorCode::NotCoordinator.code());
    writer.lead(&state_tp(partition), 1);
    writer
        .append_uncommitted(&state_tp(partition), kafka_batch("tx", &[kafka_value(1, 9, 3, 0, &[], -1)]))
        .expect("as set up");
    node.coordinator.shards().become_leader(partition, 1);
    assert_eq!(node.coordinator.shards().status(partition), ShardStatus::Loading);
    let response = node.coordinator.init_producer_id(init_request("tx"), 4).await;
    assert_eq!(response.error_code, ErrorCode::CoordinatorLoadInProgress.code());
    let list = node.coordinator.list_transactions(ListTransactionsRequest::default(), 1).await;
    assert_eq!(list.error_code, ErrorCode::CoordinatorLoadInProgress.code());
    writer.hold_commits(&state_tp(partition), false);
    assert!(node.coordinator.shards().wait_active(partition).await);
    assert_eq!(init(&node, "tx").await, (9, 4));
    node.coordinator.shards().resign(partition);
    let response = node.coordinator.init_producer_id(init_request("tx"), 4).await;
    assert_eq!(response.error_code, ErrorCode::NotCoordinator.code());
}

/// An answer is released only once its record is committed.
#[tokio::test(start_paused = true)]
async fn answers_wait_for_the_commit() {
    let node = active().await;
    let partition = node.coordinator.partition_for("tx");
    node.writer.hold_commits(&state_tp(partition), true);
    let pending = node.coordinator.init_producer_id(init_request("tx"), 4);
    tokio::pin!(pending);
    assert!(tokio::time::timeout(Duration::from_secs(5), &mut pending).await.is_err(), "answered before the commit");
    assert_eq!(last_state(&node.writer, partition, "tx"), Some(TxnState::Empty), "appended, not yet committed");
    node.writer.hold_commits(&state_tp(partition), false);
    assert_eq!(pending.await.error_code, 0);
}

/// A failed append answers the error Kafka gives and reloads the shard from the log, which
/// never had the record.
#[tokio::test(start_paused = true)]
async fn failed_append_is_answered_and_reverted() {
    let node = active().await;
    let producer = init(&node, "tx").await;
    let partition = node.coordinator.partition_for("tx");
    node.writer.fail_appends(&state_tp(partition), Some(WriteError::Storage("disk".to_owned())));
    assert_eq!(add(&node, "tx", producer, &[("orders", 0)], 3).await, vec![ErrorCode::NotCoordinator.code()]);
    node.writer.fail_appends(&state_tp(partition), None);
    assert!(node.coordinator.shards().wait_active(partition).await);
    assert_eq!(describe(&node, "tx").await.1, "Empty");
    assert_eq!(add(&node, "tx", producer, &[("orders", 0)], 3).await, vec![0]);
}

/// The shell's timer aborts a transaction past its timeout: markers with the fenced epoch,
/// CompleteAbort, and the old producer is fenced (INVALID_PRODUCER_EPOCH before EndTxn v2).
#[tokio::test(start_paused = true)]
async fn timed_out_transaction_is_aborted_by_the_timer() {
    let node = active().await;
    let producer = init(&node, "tx").await;
    add(&node, "tx", producer, &[("orders", 0)], 3).await;
    tokio::time::sleep(Duration::from_millis(u64::try_from(TIMEOUT_MS).expect("as set up") + 10_000)).await;
    until_state(&node, "tx", TxnState::CompleteAbort).await;
    let call = &node.markers.calls()[0];
    assert_eq!((call.result, call.producer_epoch), (TxnResult::Abort, producer.1 + 1));
    assert_eq!(end(&node, "tx", producer, true, 1).await.0, ErrorCode::InvalidProducerEpoch.code());
    assert_eq!(end(&node, "tx", producer, true, 3).await.0, ErrorCode::ProducerFenced.code());
}

/// InitProducerId on an ongoing transaction: CONCURRENT_TRANSACTIONS while it is aborted, then a
/// bumped epoch; a partition gone from the cluster needs no marker.
#[tokio::test(start_paused = true)]
async fn init_fences_an_ongoing_transaction() {
    let node = active().await;
    let producer = init(&node, "tx").await;
    add(&node, "tx", producer, &[("orders", 0), ("deleted", 0)], 3).await;
    node.markers.gone.lock().expect("lock").insert(TopicPartition::new("deleted", 0));
    let response = node.coordinator.init_producer_id(init_request("tx"), 4).await;
    assert_eq!(response.error_code, ErrorCode::ConcurrentTransactions.code());
    until_state(&node, "tx", TxnState::CompleteAbort).await;
    assert_eq!(node.markers.calls().len(), 1);
    assert_eq!(init(&node, "tx").await, (producer.0, producer.1 + 2));
}

/// Transactions V2, as franz-go recovers a failed producer: InitProducerId v5 naming the
/// producer's own id and epoch while its transaction is ongoing is CONCURRENT_TRANSACTIONS (the
/// transaction is aborted under the next epoch), and the same request retried once the abort
/// completed gets that epoch, as Kafka 4.4 answers it (it was PRODUCER_FENCED); EndTxn v5 then
/// commits the producer's next transaction.
#[tokio::test(start_paused = true)]
async fn a_producers_own_init_retry_after_its_fence_goes_on() {
    let node = active().await;
    let producer = init(&node, "tx").await;
    assert_eq!(add(&node, "tx", producer, &[("orders", 0)], 3).await, vec![0]);
    let own =
        InitProducerIdRequest { producer_id: ProducerId(producer.0), producer_epoch: producer.1, ..init_request("tx") };
    let response = node.coordinator.init_producer_id(own.clone(), 5).await;
    assert_eq!(response.error_code, ErrorCode::ConcurrentTransactions.code());
    until_state(&node, "tx", TxnState::CompleteAbort).await;
    let response = node.coordinator.init_producer_id(own, 5).await;
    assert_eq!((response.error_code, response.producer_id.0, response.producer_epoch), (0, producer.0, producer.1 + 1));
    let next = (producer.0, producer.1 + 1);
    assert_eq!(add(&node, "tx", next, &[("orders", 0)], 3).await, vec![0]);
    assert_eq!(end(&node, "tx", next, true, 5).await, (0, producer.0, producer.1 + 2));
}

/// A fenced coordinator epoch stops the markers: the transaction stays prepared for the
/// coordinator that fenced this one.
#[tokio::test(start_paused = true)]
async fn fenced_markers_leave_the_transaction_prepared() {
    let node = active().await;
    let producer = init(&node, "tx").await;
    add(&node, "tx", producer, &[("orders", 0)], 3).await;
    node.markers.fenced.lock().expect("lock").insert(TopicPartition::new("orders", 0));
    assert_eq!(end(&node, "tx", producer, true, 3).await.0, 0);
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(node.markers.calls().len(), 1, "not resent");
    assert_eq!(describe(&node, "tx").await.1, "PrepareCommit");
}

/// The API's version bridges: KIP-890 verification (v4), AddOffsetsToTxn, ListTransactions with
/// unknown state filters, DescribeTransactions of ids here and not, InitProducerId without an id
/// and with half a KIP-360 pair.
#[tokio::test(start_paused = true)]
async fn api_versions_and_admin() {
    let node = active().await;
    let (id, epoch) = init(&node, "tx").await;
    add(&node, "tx", (id, epoch), &[("orders", 0)], 3).await;
    let verify = AddPartitionsToTxnRequest {
        transactions: vec![AddPartitionsToTxnTransaction {
            transactional_id: "tx".to_owned(),
            producer_id: ProducerId(id),
            producer_epoch: epoch,
            verify_only: true,
            topics: topics(&[("orders", 0), ("orders", 1)]),
            ..Default::default()
        }],
        ..Default::default()
    };
    let response = node.coordinator.add_partitions_to_txn(verify, 4).await;
    let errors: Vec<i16> = response.results_by_transaction[0].topic_results[0]
        .results_by_partition
        .iter()
        .map(|p| p.partition_error_code)
        .collect();
    assert_eq!(errors, vec![0, ErrorCode::TransactionAbortable.code()]);
    let offsets = AddOffsetsToTxnRequest {
        transactional_id: "tx".to_owned(),
        producer_id: ProducerId(id),
        producer_epoch: epoch + 1,
        group_id: "g".to_owned(),
        ..Default::default()
    };
    assert_eq!(
        node.coordinator.add_offsets_to_txn(offsets.clone(), 1).await.error_code,
        ErrorCode::InvalidProducerEpoch.code()
    );
    let offsets = AddOffsetsToTxnRequest { producer_epoch: epoch, ..offsets };
    assert_eq!(node.coordinator.add_offsets_to_txn(offsets, 3).await.error_code, 0);
    let list = ListTransactionsRequest {
        state_filters: vec!["Ongoing".to_owned(), "Sleeping".to_owned()],
        duration_filter: -1,
        ..Default::default()
    };
    let listed = node.coordinator.list_transactions(list, 1).await;
    assert_eq!(listed.unknown_state_filters, vec!["Sleeping".to_owned()]);
    let ids: BTreeSet<String> = listed.transaction_states.iter().map(|t| t.transactional_id.clone()).collect();
    assert_eq!(ids, BTreeSet::from(["tx".to_owned()]));
    let unled = (0..100).map(|i| format!("x{i}")).find(|x| node.coordinator.partition_for(x) != 0).expect("as set up");
    node.coordinator.shards().resign(node.coordinator.partition_for(&unled));
    let request = DescribeTransactionsRequest {
        transactional_ids: vec![unled, "tx".to_owned(), String::new()],
        ..Default::default()
    };
    let described = node.coordinator.describe_transactions(request, 0).await;
    let errors: Vec<i16> = described.transaction_states.iter().map(|s| s.error_code).collect();
    assert_eq!(errors, vec![ErrorCode::NotCoordinator.code(), 0, ErrorCode::InvalidRequest.code()]);
    let idempotent = InitProducerIdRequest { transactional_id: None, ..init_request("") };
    let response = node.coordinator.init_producer_id(idempotent, 4).await;
    assert_eq!((response.error_code, response.producer_epoch), (0, 0));
    let half = InitProducerIdRequest { producer_id: ProducerId(id), ..init_request("tx") };
    assert_eq!(node.coordinator.init_producer_id(half, 4).await.error_code, ErrorCode::InvalidRequest.code());
}
