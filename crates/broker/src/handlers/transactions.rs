//! The transaction APIs a producer (and Kafka's admin tools) send to a transactional id's
//! coordinator: AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, DescribeTransactions and
//! ListTransactions, answered by this node's transaction coordinator (InitProducerId is in
//! `init_producer_id`). The coordinator answers NOT_COORDINATOR for ids it does not own here and
//! COORDINATOR_LOAD_IN_PROGRESS while it loads; a node without one answers
//! COORDINATOR_NOT_AVAILABLE.
//!
//! What the broker adds before asking (Kafka's `KafkaApis`):
//! - authorization: WRITE on the transactional id for AddPartitionsToTxn (v0-3), AddOffsetsToTxn
//!   and EndTxn (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), READ on AddOffsetsToTxn's group;
//!   AddPartitionsToTxn v4+ comes from brokers only (CLUSTER_ACTION, CLUSTER_AUTHORIZATION_FAILED
//!   for the request). DescribeTransactions needs DESCRIBE on each id and shows only the topics
//!   the session may DESCRIBE; ListTransactions lists only the ids it may DESCRIBE.
//! - a client's AddPartitionsToTxn (v0-3) naming a partition it may not WRITE (internal topics
//!   never) or that does not exist changes nothing: that partition answers
//!   TOPIC_AUTHORIZATION_FAILED or UNKNOWN_TOPIC_OR_PARTITION, the others
//!   OPERATION_NOT_ATTEMPTED.

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

use strand_base::topic::is_internal;
use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use crate::Broker;

/// The last version a client sends (later ones are brokers' KIP-890 checks).
const CLIENT_ADD_PARTITIONS_VERSION_MAX: i16 = 3;

pub async fn add_partitions_to_txn(
    broker: &Broker,
    request: AddPartitionsToTxnRequest,
    version: i16,
    session: &Session,
) -> AddPartitionsToTxnResponse {
    if version > CLIENT_ADD_PARTITIONS_VERSION_MAX {
        if !broker.authorize_cluster(session, AclOperation::ClusterAction) {
            let code = ErrorCode::ClusterAuthorizationFailed.code();
            return AddPartitionsToTxnResponse { error_code: code, ..Default::default() };
        }
    } else if !may_write_txn(broker, session, &request.v3_and_below_transactional_id) {
        return add_partitions_failed(&request, version, ErrorCode::TransactionalIdAuthorizationFailed);
    }
    if version <= CLIENT_ADD_PARTITIONS_VERSION_MAX {
        let image = broker.image();
        let exists = |topic: &str, partition: i32| {
            image.topics().by_name(topic).is_some_and(|t| t.partitions.contains_key(&partition))
        };
        let topics = request.v3_and_below_topics.iter().map(|t| t.name.as_str()).filter(|name| !is_internal(name));
        let writable = broker.authorized_names(session, AclOperation::Write, ResourceType::Topic, topics);
        let refusal = |topic: &str, partition: i32| {
            if !writable.contains(topic) {
                Some(ErrorCode::TopicAuthorizationFailed)
            } else if !exists(topic, partition) {
                Some(ErrorCode::UnknownTopicOrPartition)
            } else {
                None
            }
        };
        let refused =
            request.v3_and_below_topics.iter().any(|t| t.partitions.iter().any(|&p| refusal(&t.name, p).is_some()));
        if refused {
            let results = request
                .v3_and_below_topics
                .iter()
                .map(|topic| {
                    topic_result(topic, |p| refusal(&topic.name, p).unwrap_or(ErrorCode::OperationNotAttempted))
                })
                .collect();
            return AddPartitionsToTxnResponse { results_by_topic_v3_and_below: results, ..Default::default() };
        }
    }
    let Some(transactions) = &broker.transactions else {
        return add_partitions_failed(&request, version, ErrorCode::CoordinatorNotAvailable);
    };
    transactions.add_partitions_to_txn(request, version).await
}

fn may_write_txn(broker: &Broker, session: &Session, transactional_id: &str) -> bool {
    broker.authorize(session, AclOperation::Write, ResourceType::TransactionalId, transactional_id)
}

pub async fn add_offsets_to_txn(
    broker: &Broker,
    request: AddOffsetsToTxnRequest,
    version: i16,
    session: &Session,
) -> AddOffsetsToTxnResponse {
    let refused = if !may_write_txn(broker, session, &request.transactional_id) {
        Some(ErrorCode::TransactionalIdAuthorizationFailed)
    } else if !broker.authorize(session, AclOperation::Read, ResourceType::Group, &request.group_id) {
        Some(ErrorCode::GroupAuthorizationFailed)
    } else {
        None
    };
    if let Some(code) = refused {
        return AddOffsetsToTxnResponse { error_code: code.code(), ..Default::default() };
    }
    match &broker.transactions {
        Some(transactions) => transactions.add_offsets_to_txn(request, version).await,
        None => AddOffsetsToTxnResponse { error_code: ErrorCode::CoordinatorNotAvailable.code(), ..Default::default() },
    }
}

pub async fn end_txn(broker: &Broker, request: EndTxnRequest, version: i16, session: &Session) -> EndTxnResponse {
    let failed = |code: ErrorCode| EndTxnResponse {
        error_code: code.code(),
        producer_id: strand_base::ProducerId::NONE,
        producer_epoch: -1,
        ..Default::default()
    };
    if !may_write_txn(broker, session, &request.transactional_id) {
        return failed(ErrorCode::TransactionalIdAuthorizationFailed);
    }
    match &broker.transactions {
        Some(transactions) => transactions.end_txn(request, version).await,
        None => failed(ErrorCode::CoordinatorNotAvailable),
    }
}

pub async fn describe_transactions(
    broker: &Broker,
    request: DescribeTransactionsRequest,
    version: i16,
    session: &Session,
) -> DescribeTransactionsResponse {
    let describable =
        |id: &String| broker.authorize(session, AclOperation::Describe, ResourceType::TransactionalId, id);
    let mask: Vec<bool> = request.transactional_ids.iter().map(describable).collect();
    let requested = request.transactional_ids.clone();
    let mut allowed = request;
    let mut keep = mask.iter();
    allowed.transactional_ids.retain(|_| keep.next().copied().unwrap_or(false));
    let mut response = if allowed.transactional_ids.is_empty() {
        DescribeTransactionsResponse::default()
    } else {
        described(broker, allowed, version).await
    };
    let mut answered = std::mem::take(&mut response.transaction_states).into_iter();
    for (transactional_id, ok) in requested.into_iter().zip(mask) {
        let state = if ok {
            answered.next()
        } else {
            let code = ErrorCode::TransactionalIdAuthorizationFailed.code();
            Some(TransactionState { error_code: code, transactional_id, ..Default::default() })
        };
        let Some(mut state) = state else { continue };
        // Only the partitions of topics the session may DESCRIBE (Kafka's
        // `handleDescribeTransactionsRequest`).
        state.topics.retain(|t| broker.authorize_topic(session, AclOperation::Describe, &t.topic));
        response.transaction_states.push(state);
    }
    response
}

async fn described(
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
    session: &Session,
) -> ListTransactionsResponse {
    let mut response = match &broker.transactions {
        Some(transactions) => transactions.list_transactions(request, version).await,
        None => {
            ListTransactionsResponse { error_code: ErrorCode::CoordinatorNotAvailable.code(), ..Default::default() }
        }
    };
    response.transaction_states.retain(|state| {
        broker.authorize(session, AclOperation::Describe, ResourceType::TransactionalId, &state.transactional_id)
    });
    response
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
