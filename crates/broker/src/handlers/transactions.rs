//! The transaction APIs a producer (and Kafka's admin tools) send to a transactional id's
//! coordinator: AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, DescribeTransactions and
//! ListTransactions, answered by this node's transaction coordinator (InitProducerId is in
//! `init_producer_id`). The coordinator answers NOT_COORDINATOR for ids it does not own here and
//! COORDINATOR_LOAD_IN_PROGRESS while it loads; a node without one answers
//! COORDINATOR_NOT_AVAILABLE.
//!
//! What the broker adds before asking (Kafka's `KafkaApis`): a client's AddPartitionsToTxn
//! (v0-3) naming a partition that does not exist changes nothing: that partition answers
//! UNKNOWN_TOPIC_OR_PARTITION and the others OPERATION_NOT_ATTEMPTED.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::add_partitions_to_txn_request::AddPartitionsToTxnTopic;
use strand_protocol::messages::add_partitions_to_txn_response::{
    AddPartitionsToTxnPartitionResult, AddPartitionsToTxnResult, AddPartitionsToTxnTopicResult,
};
use strand_protocol::messages::describe_transactions_response::TransactionState;
use strand_protocol::messages::{
    AddOffsetsToTxnRequest, AddOffsetsToTxnResponse, AddPartitionsToTxnRequest, AddPartitionsToTxnResponse,
    DescribeTransactionsRequest, DescribeTransactionsResponse, EndTxnRequest, EndTxnResponse, ListTransactionsRequest,
    ListTransactionsResponse,
};

use crate::Broker;

/// The last version a client sends (later ones are brokers' KIP-890 checks).
const CLIENT_ADD_PARTITIONS_VERSION_MAX: i16 = 3;

pub async fn add_partitions_to_txn(
    broker: &Broker,
    request: AddPartitionsToTxnRequest,
    version: i16,
) -> AddPartitionsToTxnResponse {
    let Some(transactions) = &broker.transactions else {
        return add_partitions_failed(&request, version, ErrorCode::CoordinatorNotAvailable);
    };
    if version <= CLIENT_ADD_PARTITIONS_VERSION_MAX {
        let image = broker.image();
        let exists = |topic: &str, partition: i32| {
            image.topics().by_name(topic).is_some_and(|t| t.partitions.contains_key(&partition))
        };
        let missing = request.v3_and_below_topics.iter().any(|t| t.partitions.iter().any(|&p| !exists(&t.name, p)));
        if missing {
            let results = request
                .v3_and_below_topics
                .iter()
                .map(|topic| {
                    topic_result(topic, |p| {
                        if exists(&topic.name, p) {
                            ErrorCode::OperationNotAttempted
                        } else {
                            ErrorCode::UnknownTopicOrPartition
                        }
                    })
                })
                .collect();
            return AddPartitionsToTxnResponse { results_by_topic_v3_and_below: results, ..Default::default() };
        }
    }
    transactions.add_partitions_to_txn(request, version).await
}

pub async fn add_offsets_to_txn(
    broker: &Broker,
    request: AddOffsetsToTxnRequest,
    version: i16,
) -> AddOffsetsToTxnResponse {
    match &broker.transactions {
        Some(transactions) => transactions.add_offsets_to_txn(request, version).await,
        None => AddOffsetsToTxnResponse { error_code: ErrorCode::CoordinatorNotAvailable.code(), ..Default::default() },
    }
}

pub async fn end_txn(broker: &Broker, request: EndTxnRequest, version: i16) -> EndTxnResponse {
    match &broker.transactions {
        Some(transactions) => transactions.end_txn(request, version).await,
        None => EndTxnResponse {
            error_code: ErrorCode::CoordinatorNotAvailable.code(),
            producer_id: strand_base::ProducerId::NONE,
            producer_epoch: -1,
            ..Default::default()
        },
    }
}

pub async fn describe_transactions(
    broker: &Broker,
    request: DescribeTransactionsRequest,
    version: i16,
) -> DescribeTransactionsResponse {
    match &broker.transactions {
        Some(transactions) => transactions.describe_transactions(request, version).await,
        None => DescribeTransactionsResponse {
            transaction_states: request
                .transactional_ids
                .into_iter()
                .map(|transactional_id| TransactionState {
                    error_code: ErrorCode::CoordinatorNotAvailable.code(),
                    transactional_id,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        },
    }
}

pub async fn list_transactions(
    broker: &Broker,
    request: ListTransactionsRequest,
    version: i16,
) -> ListTransactionsResponse {
    match &broker.transactions {
        Some(transactions) => transactions.list_transactions(request, version).await,
        None => {
            ListTransactionsResponse { error_code: ErrorCode::CoordinatorNotAvailable.code(), ..Default::default() }
        }
    }
}

fn topic_result(topic: &AddPartitionsToTxnTopic, code: impl Fn(i32) -> ErrorCode) -> AddPartitionsToTxnTopicResult {
    AddPartitionsToTxnTopicResult {
        name: topic.name.clone(),
        results_by_partition: topic
            .partitions
            .iter()
            .map(|&partition_index| AddPartitionsToTxnPartitionResult {
                partition_index,
                partition_error_code: code(partition_index).code(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// Every partition of the request answered `code`, in the version's layout.
fn add_partitions_failed(
    request: &AddPartitionsToTxnRequest,
    version: i16,
    code: ErrorCode,
) -> AddPartitionsToTxnResponse {
    if version <= CLIENT_ADD_PARTITIONS_VERSION_MAX {
        let results = request.v3_and_below_topics.iter().map(|t| topic_result(t, |_| code)).collect();
        return AddPartitionsToTxnResponse { results_by_topic_v3_and_below: results, ..Default::default() };
    }
    let results = request
        .transactions
        .iter()
        .map(|t| AddPartitionsToTxnResult {
            transactional_id: t.transactional_id.clone(),
            topic_results: t.topics.iter().map(|topic| topic_result(topic, |_| code)).collect(),
            ..Default::default()
        })
        .collect();
    AddPartitionsToTxnResponse { results_by_transaction: results, ..Default::default() }
}
