//! The transaction APIs: InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn,
//! TxnOffsetCommit, DescribeTransactions. This node runs no transaction coordinator, so a request
//! let through is answered COORDINATOR_NOT_AVAILABLE: what the tests tell apart from a refusal.

use std::sync::Arc;

use strand_base::{SystemClock, TopicPartition, Uuid};
use strand_coordinator::txn::SequentialProducerIds;
use strand_coordinator::writer::memory::MemoryPartitionWriter;
use strand_coordinator::{
    BoxFuture, MarkerOutcome, TRANSACTION_STATE_TOPIC, TxnConfig, TxnCoordinator, TxnMarkerRequest, TxnMarkerSender,
};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::add_partitions_to_txn_request::{
    AddPartitionsToTxnTopic, AddPartitionsToTxnTransaction,
};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::txn_offset_commit_request::{
    TxnOffsetCommitRequestPartition, TxnOffsetCommitRequestTopic,
};
use strand_protocol::messages::{
    AddOffsetsToTxnRequest, AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, DescribeTransactionsRequest,
    EndTxnRequest, InitProducerIdRequest, ListTransactionsRequest, TxnOffsetCommitRequest,
};
use strand_security::acl::{AclOperation, CLUSTER_NAME, ResourceType};

use crate::common::{Node, TableAuthorizer};

const TXN_DENIED: i16 = ErrorCode::TransactionalIdAuthorizationFailed.code();
const LET_THROUGH: i16 = ErrorCode::CoordinatorNotAvailable.code();

/// alice may WRITE and DESCRIBE transactional id `tx`, WRITE and READ `orders`, READ group `g`;
/// dave may IDEMPOTENT_WRITE the cluster; `broker` is a broker.
async fn node() -> Node {
    let mut node = Node::new();
    node.create_topic("orders", 1).await;
    node.create_topic("secret", 1).await;
    let table = TableAuthorizer::default()
        .allow("alice", AclOperation::Write, ResourceType::TransactionalId, "tx")
        .allow("alice", AclOperation::Describe, ResourceType::TransactionalId, "tx")
        .allow("alice", AclOperation::Write, ResourceType::Topic, "orders")
        .allow("alice", AclOperation::Read, ResourceType::Topic, "orders")
        .allow("alice", AclOperation::Read, ResourceType::Group, "g")
        .allow("dave", AclOperation::IdempotentWrite, ResourceType::Cluster, CLUSTER_NAME)
        .allow("broker", AclOperation::ClusterAction, ResourceType::Cluster, CLUSTER_NAME);
    node.with_authorizer(Arc::new(table))
}

/// A transactional id needs WRITE on it; an idempotent producer IDEMPOTENT_WRITE on the cluster
/// or WRITE on any topic (Kafka 4, KIP-679).
#[tokio::test]
async fn init_producer_id_needs_the_transactional_id_or_idempotent_write() {
    let mut node = node().await;
    let init = |transactional_id: Option<&str>| InitProducerIdRequest {
        transactional_id: transactional_id.map(str::to_owned),
        transaction_timeout_ms: 60_000,
        ..Default::default()
    };
    assert_eq!(call!(node, "alice", InitProducerId(init(Some("other"))), 5).error_code, TXN_DENIED);
    assert_eq!(call!(node, "alice", InitProducerId(init(Some("tx"))), 5).error_code, LET_THROUGH);
    let cluster_denied = ErrorCode::ClusterAuthorizationFailed.code();
    assert_eq!(call!(node, "carol", InitProducerId(init(None)), 5).error_code, cluster_denied);
    // Let through to the producer id blocks, which this test's controller does not hand out.
    for who in ["alice", "dave"] {
        assert_eq!(call!(node, who, InitProducerId(init(None)), 5).error_code, LET_THROUGH, "{who}");
    }
}

fn add_partitions_v3(transactional_id: &str, topics: &[&str]) -> AddPartitionsToTxnRequest {
    AddPartitionsToTxnRequest {
        v3_and_below_transactional_id: transactional_id.into(),
        v3_and_below_topics: (topics.iter())
            .map(|name| AddPartitionsToTxnTopic { name: (*name).into(), partitions: vec![0], ..Default::default() })
            .collect(),
        ..Default::default()
    }
}

fn v3_codes(response: &AddPartitionsToTxnResponse) -> Vec<i16> {
    response.results_by_topic_v3_and_below.iter().map(|t| t.results_by_partition[0].partition_error_code).collect()
}

/// AddPartitionsToTxn from clients (v0-3) needs WRITE on the transactional id and each topic
/// (internal ones never); v4+ comes from brokers only.
#[tokio::test]
async fn add_partitions_to_txn_needs_write_or_cluster_action() {
    let mut node = node().await;
    let refused = call!(node, "alice", AddPartitionsToTxn(add_partitions_v3("other", &["orders"])), 3);
    assert_eq!(v3_codes(&refused), [TXN_DENIED]);
    let topics = ["orders", "secret", "__consumer_offsets"];
    let refused = call!(node, "alice", AddPartitionsToTxn(add_partitions_v3("tx", &topics)), 3);
    let topic_denied = ErrorCode::TopicAuthorizationFailed.code();
    assert_eq!(v3_codes(&refused), [ErrorCode::OperationNotAttempted.code(), topic_denied, topic_denied]);
    let let_through = call!(node, "alice", AddPartitionsToTxn(add_partitions_v3("tx", &["orders"])), 3);
    assert_eq!(v3_codes(&let_through), [LET_THROUGH]);

    let batch = || AddPartitionsToTxnRequest {
        transactions: vec![AddPartitionsToTxnTransaction {
            transactional_id: "tx".into(),
            verify_only: true,
            topics: vec![AddPartitionsToTxnTopic { name: "orders".into(), partitions: vec![0], ..Default::default() }],
            ..Default::default()
        }],
        ..Default::default()
    };
    let posing = call!(node, "alice", AddPartitionsToTxn(batch()), 4);
    assert_eq!(posing.error_code, ErrorCode::ClusterAuthorizationFailed.code());
    let from_broker = call!(node, "broker", AddPartitionsToTxn(batch()), 4);
    assert_eq!(from_broker.error_code, 0);
}

/// AddOffsetsToTxn and EndTxn need WRITE on the transactional id (AddOffsetsToTxn: READ on the
/// group too); TxnOffsetCommit WRITE on the id, READ on the group and on each topic;
/// DescribeTransactions DESCRIBE on each id.
#[tokio::test]
async fn transaction_apis_need_the_transactional_id_and_group() {
    let mut node = node().await;
    let add_offsets = |transactional_id: &str, group: &str| AddOffsetsToTxnRequest {
        transactional_id: transactional_id.into(),
        group_id: group.into(),
        ..Default::default()
    };
    assert_eq!(call!(node, "alice", AddOffsetsToTxn(add_offsets("other", "g")), 3).error_code, TXN_DENIED);
    let group_denied = ErrorCode::GroupAuthorizationFailed.code();
    assert_eq!(call!(node, "alice", AddOffsetsToTxn(add_offsets("tx", "other")), 3).error_code, group_denied);
    assert_eq!(call!(node, "alice", AddOffsetsToTxn(add_offsets("tx", "g")), 3).error_code, LET_THROUGH);

    let end =
        |transactional_id: &str| EndTxnRequest { transactional_id: transactional_id.into(), ..Default::default() };
    assert_eq!(call!(node, "alice", EndTxn(end("other")), 3).error_code, TXN_DENIED);
    assert_eq!(call!(node, "alice", EndTxn(end("tx")), 3).error_code, LET_THROUGH);

    let commit = |transactional_id: &str, group: &str| TxnOffsetCommitRequest {
        transactional_id: transactional_id.into(),
        group_id: group.into(),
        topics: (["secret", "orders"].iter())
            .map(|name| TxnOffsetCommitRequestTopic {
                name: (*name).into(),
                topic_id: Uuid::ZERO,
                partitions: vec![TxnOffsetCommitRequestPartition { partition_index: 0, ..Default::default() }],
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    let codes = |response: strand_protocol::messages::TxnOffsetCommitResponse| -> Vec<i16> {
        response.topics.iter().map(|t| t.partitions[0].error_code).collect()
    };
    assert_eq!(codes(call!(node, "alice", TxnOffsetCommit(commit("other", "g")), 3)), [TXN_DENIED; 2]);
    assert_eq!(codes(call!(node, "alice", TxnOffsetCommit(commit("tx", "other")), 3)), [group_denied; 2]);
    let mixed = codes(call!(node, "alice", TxnOffsetCommit(commit("tx", "g")), 3));
    assert_eq!(mixed[0], ErrorCode::TopicAuthorizationFailed.code());
    assert!(mixed[1] != ErrorCode::TopicAuthorizationFailed.code(), "orders let through: {mixed:?}");

    let describe =
        DescribeTransactionsRequest { transactional_ids: vec!["other".into(), "tx".into()], ..Default::default() };
    let described = call!(node, "alice", DescribeTransactions(describe), 0);
    let states: Vec<_> =
        described.transaction_states.iter().map(|s| (s.transactional_id.as_str(), s.error_code)).collect();
    assert_eq!(states, [("other", TXN_DENIED), ("tx", LET_THROUGH)]);
}

/// Markers are never sent in these tests (no transaction ends).
#[derive(Debug)]
struct NoMarkers;

impl TxnMarkerSender for NoMarkers {
    fn send(&self, request: TxnMarkerRequest) -> BoxFuture<'_, Vec<(TopicPartition, MarkerOutcome)>> {
        panic!("no marker expected: {request:?}")
    }
}

/// A transaction coordinator leading every `__transaction_state` partition, loaded.
async fn txn_coordinator() -> Arc<TxnCoordinator> {
    let config = TxnConfig::default();
    let writer = MemoryPartitionWriter::new();
    for partition in 0..config.transaction_state_log_partitions {
        writer.lead(&TopicPartition::new(TRANSACTION_STATE_TOPIC, partition), 0);
    }
    let partitions = config.transaction_state_log_partitions;
    let ids = Arc::new(SequentialProducerIds::starting_at(1000));
    let coordinator = TxnCoordinator::new(config, Arc::new(writer), Arc::new(SystemClock), ids, Arc::new(NoMarkers));
    for partition in 0..partitions {
        coordinator.shards().become_leader(partition, 0);
        assert!(coordinator.shards().wait_active(partition).await);
    }
    Arc::new(coordinator)
}

/// DescribeTransactions shows only the partitions of topics the principal may DESCRIBE;
/// ListTransactions only the transactional ids it may DESCRIBE.
#[tokio::test]
async fn transactions_are_described_as_far_as_the_principal_may_see() {
    let mut node = Node::new();
    node.create_topic("orders", 1).await;
    node.create_topic("secret", 1).await;
    let mut table = TableAuthorizer::default()
        .allow("alice", AclOperation::Describe, ResourceType::TransactionalId, "tx")
        .allow("alice", AclOperation::Describe, ResourceType::Topic, "orders");
    for (resource_type, name) in [
        (ResourceType::TransactionalId, "tx"),
        (ResourceType::TransactionalId, "tx2"),
        (ResourceType::Topic, "orders"),
        (ResourceType::Topic, "secret"),
    ] {
        table = table.allow("admin", AclOperation::Write, resource_type, name);
    }
    let mut node = node.with_txn_coordinator(txn_coordinator().await).with_authorizer(Arc::new(table));
    for transactional_id in ["tx", "tx2"] {
        let init = InitProducerIdRequest {
            transactional_id: Some(transactional_id.into()),
            transaction_timeout_ms: 60_000,
            ..Default::default()
        };
        let producer = call!(node, "admin", InitProducerId(init), 5);
        assert_eq!(producer.error_code, 0);
        let add = AddPartitionsToTxnRequest {
            v3_and_below_producer_id: producer.producer_id,
            v3_and_below_producer_epoch: producer.producer_epoch,
            ..add_partitions_v3(transactional_id, &["orders", "secret"])
        };
        assert_eq!(v3_codes(&call!(node, "admin", AddPartitionsToTxn(add), 3)), [0, 0]);
    }

    let describe = DescribeTransactionsRequest { transactional_ids: vec!["tx".into()], ..Default::default() };
    let described = call!(node, "alice", DescribeTransactions(describe), 0);
    let topics: Vec<_> = described.transaction_states[0].topics.iter().map(|t| t.topic.as_str()).collect();
    assert_eq!((described.transaction_states[0].error_code, topics), (0, vec!["orders"]));

    let listed = call!(node, "alice", ListTransactions(ListTransactionsRequest::default()), 0);
    let ids: Vec<_> = listed.transaction_states.iter().map(|s| s.transactional_id.as_str()).collect();
    assert_eq!(ids, ["tx"]);
}
