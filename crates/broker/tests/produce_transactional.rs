//! KIP-890 part 1 on the produce path: a transactional producer's first write to a partition is
//! appended only once its transaction coordinator confirms the partition is in the transaction
//! (Produce v12 and later: adds it); later writes of the same transaction need no check. A
//! refusal answers the coordinator's error and appends nothing; retriable coordinator errors
//! become NOT_ENOUGH_REPLICAS; transactional records without a transactional id are refused.

mod common;

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use common::Node;
use strand_base::{ProducerId, TopicPartition};
use strand_broker::{BoxFuture, TxnVerification, TxnVerifier};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::ProduceRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::produce_response::PartitionProduceResponse;
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

/// A coordinator that answers its first `busy` checks with CONCURRENT_TRANSACTIONS, then every
/// check with `answer`, and records what it was asked.
#[derive(Debug)]
struct FakeCoordinator {
    answer: Mutex<ErrorCode>,
    busy: Mutex<usize>,
    asked: Mutex<Vec<TxnVerification>>,
}

impl FakeCoordinator {
    fn new(answer: ErrorCode) -> Arc<FakeCoordinator> {
        Arc::new(FakeCoordinator { answer: Mutex::new(answer), busy: Mutex::new(0), asked: Mutex::new(Vec::new()) })
    }

    fn busy_for(answer: ErrorCode, busy: usize) -> Arc<FakeCoordinator> {
        let coordinator = FakeCoordinator::new(answer);
        *coordinator.busy.lock().expect("lock") = busy;
        coordinator
    }

    fn asked(&self) -> Vec<TxnVerification> {
        self.asked.lock().expect("lock").clone()
    }
}

impl TxnVerifier for FakeCoordinator {
    fn verify(&self, verification: TxnVerification) -> BoxFuture<'_, Vec<(TopicPartition, ErrorCode)>> {
        let mut busy = self.busy.lock().expect("lock");
        let answer = if *busy > 0 { ErrorCode::ConcurrentTransactions } else { *self.answer.lock().expect("lock") };
        *busy = busy.saturating_sub(1);
        drop(busy);
        let refused = match answer {
            ErrorCode::None => Vec::new(),
            code => verification.partitions.iter().map(|tp| (tp.clone(), code)).collect(),
        };
        self.asked.lock().expect("lock").push(verification);
        Box::pin(std::future::ready(refused))
    }
}

fn batch(producer_id: i64, epoch: i16, sequence: i32) -> Bytes {
    let mut builder = RecordBatchBuilder::new().producer(ProducerId(producer_id), epoch, sequence).transactional();
    builder.append(&NewRecord { timestamp_ms: 1_000, key: None, value: Some(b"v"), headers: &[] }).expect("record");
    builder.build().expect("batch")
}

async fn produce(
    node: &mut Node,
    transactional_id: Option<&str>,
    records: Bytes,
    version: i16,
) -> PartitionProduceResponse {
    let request = ProduceRequest {
        transactional_id: transactional_id.map(str::to_owned),
        acks: -1,
        timeout_ms: 1000,
        topic_data: vec![TopicProduceData {
            name: "t".into(),
            partition_data: vec![PartitionProduceData { index: 0, records: Some(records), ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let ResponseBody::Produce(response) = node.call(RequestBody::Produce(request), version).await else { panic!() };
    response.responses[0].partition_responses[0].clone()
}

#[tokio::test]
async fn a_first_transactional_write_waits_for_the_coordinator() {
    let coordinator = FakeCoordinator::new(ErrorCode::None);
    let mut node = Node::new().with_txn_verifier(coordinator.clone());
    node.create_topic("t", 1).await;

    let first = produce(&mut node, Some("tx"), batch(5, 0, 0), 9).await;
    assert_eq!((first.error_code, first.base_offset), (0, 0));
    let asked = coordinator.asked();
    assert_eq!(asked.len(), 1);
    let expected = TxnVerification {
        transactional_id: "tx".into(),
        producer_id: ProducerId(5),
        producer_epoch: 0,
        partitions: vec![TopicPartition::new("t", 0)],
        add: false,
    };
    assert_eq!(asked[0], expected);

    // The transaction is open in the partition now: no second check.
    let second = produce(&mut node, Some("tx"), batch(5, 0, 1), 9).await;
    assert_eq!((second.error_code, second.base_offset), (0, 1));
    assert_eq!(coordinator.asked().len(), 1);
}

#[tokio::test]
async fn transactions_v2_writes_add_their_partition() {
    let coordinator = FakeCoordinator::new(ErrorCode::None);
    let mut node = Node::new().with_txn_verifier(coordinator.clone());
    node.create_topic("t", 1).await;
    let written = produce(&mut node, Some("tx"), batch(5, 0, 0), 12).await;
    assert_eq!(written.error_code, 0);
    assert!(coordinator.asked()[0].add, "Produce v12 adds the partition to the transaction");
}

#[tokio::test]
async fn refusals_append_nothing() {
    let coordinator = FakeCoordinator::new(ErrorCode::InvalidTxnState);
    let mut node = Node::new().with_txn_verifier(coordinator.clone());
    node.create_topic("t", 1).await;

    let refused = produce(&mut node, Some("tx"), batch(5, 0, 0), 9).await;
    assert_eq!(refused.error_code, ErrorCode::InvalidTxnState.code());
    assert_eq!(node.replicas.log_end_offset(&TopicPartition::new("t", 0)).expect("log"), 0);

    *coordinator.answer.lock().expect("lock") = ErrorCode::ConcurrentTransactions;
    let retriable = produce(&mut node, Some("tx"), batch(5, 0, 0), 9).await;
    assert_eq!(retriable.error_code, ErrorCode::NotEnoughReplicas.code(), "clients retry without a metadata refresh");

    *coordinator.answer.lock().expect("lock") = ErrorCode::TransactionAbortable;
    let old_client = produce(&mut node, Some("tx"), batch(5, 0, 0), 10).await;
    assert_eq!(old_client.error_code, ErrorCode::InvalidTxnState.code(), "Produce v10 predates TRANSACTION_ABORTABLE");
    let new_client = produce(&mut node, Some("tx"), batch(5, 0, 0), 11).await;
    assert_eq!(new_client.error_code, ErrorCode::TransactionAbortable.code());

    *coordinator.answer.lock().expect("lock") = ErrorCode::None;
    let accepted = produce(&mut node, Some("tx"), batch(5, 0, 0), 9).await;
    assert_eq!((accepted.error_code, accepted.base_offset), (0, 0), "the refused writes left nothing behind");
}

#[tokio::test]
async fn transactional_records_need_a_transactional_id() {
    let coordinator = FakeCoordinator::new(ErrorCode::None);
    let mut node = Node::new().with_txn_verifier(coordinator.clone());
    node.create_topic("t", 1).await;
    let refused = produce(&mut node, None, batch(5, 0, 0), 9).await;
    assert_eq!(refused.error_code, ErrorCode::TransactionalIdAuthorizationFailed.code());
    assert!(coordinator.asked().is_empty());
}

#[tokio::test]
async fn without_a_coordinator_transactional_writes_are_retried() {
    let mut node = Node::new();
    node.create_topic("t", 1).await;
    let refused = produce(&mut node, Some("tx"), batch(5, 0, 0), 9).await;
    assert_eq!(refused.error_code, ErrorCode::NotEnoughReplicas.code());
}

/// Transactions V2: while the coordinator still writes the previous transaction's markers it
/// answers CONCURRENT_TRANSACTIONS; the broker retries for a moment (KAFKA-18654) rather than
/// sending the client away. Transactions V1 clients add partitions themselves and are answered
/// at once.
#[tokio::test]
async fn a_busy_coordinator_is_asked_again_for_transactions_v2() {
    let coordinator = FakeCoordinator::busy_for(ErrorCode::None, 2);
    let mut node = Node::new().with_txn_verifier(coordinator.clone());
    node.create_topic("t", 1).await;
    let written = produce(&mut node, Some("tx"), batch(5, 0, 0), 12).await;
    assert_eq!((written.error_code, written.base_offset), (0, 0));
    assert_eq!(coordinator.asked().len(), 3, "two refusals, then the add");

    let coordinator = FakeCoordinator::busy_for(ErrorCode::None, 2);
    let mut node = Node::new().with_txn_verifier(coordinator.clone());
    node.create_topic("t", 1).await;
    let refused = produce(&mut node, Some("tx"), batch(5, 0, 0), 9).await;
    assert_eq!(refused.error_code, ErrorCode::NotEnoughReplicas.code());
    assert_eq!(coordinator.asked().len(), 1);

    // Busy for longer than `add.partitions.to.txn.retry.backoff.max.ms`: the client retries.
    let coordinator = FakeCoordinator::busy_for(ErrorCode::None, 1_000);
    let mut node = Node::new().with_txn_verifier(coordinator.clone());
    node.create_topic("t", 1).await;
    let refused = produce(&mut node, Some("tx"), batch(5, 0, 0), 12).await;
    assert_eq!(refused.error_code, ErrorCode::NotEnoughReplicas.code());
    let asked = coordinator.asked().len();
    assert!((2..=6).contains(&asked), "every 20 ms for 100 ms: asked {asked} times");
}
