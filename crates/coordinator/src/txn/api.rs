//! The transaction coordinator's request API, one method per Kafka API, for thin broker
//! handlers: each takes the generated request and its version and returns the generated
//! response, valid at that version. What needs no shard is checked here (empty ids, timeouts,
//! KIP-360's producer id and epoch pair), as Kafka's `KafkaApis` and `TransactionCoordinator` do;
//! versions are bridged here too: AddPartitionsToTxn's single client transaction (v0-3) against
//! the leaders' batches (v4+), the client's `transaction.version` each version implies, and
//! PRODUCER_FENCED answered as INVALID_PRODUCER_EPOCH to clients too old to know it.
//!
//! Left to the broker: authorization, topics that do not exist (AddPartitionsToTxn answers them
//! UNKNOWN_TOPIC_OR_PARTITION and the rest OPERATION_NOT_ATTEMPTED without asking the
//! coordinator, as Kafka does), and whether `transaction.version` 2 is finalized before EndTxn v5
//! and AddPartitionsToTxn v5 are accepted.

use std::collections::{BTreeMap, BTreeSet};

use futures::future::join_all;
use strand_base::{ProducerId, TopicPartition};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::add_partitions_to_txn_request::{
    AddPartitionsToTxnTopic, AddPartitionsToTxnTransaction,
};
use strand_protocol::messages::add_partitions_to_txn_response::{
    AddPartitionsToTxnPartitionResult, AddPartitionsToTxnResult, AddPartitionsToTxnTopicResult,
};
use strand_protocol::messages::describe_transactions_response::TransactionState as DescribedTxn;
use strand_protocol::messages::{
    AddOffsetsToTxnRequest, AddOffsetsToTxnResponse, AddPartitionsToTxnRequest, AddPartitionsToTxnResponse,
    DescribeTransactionsRequest, DescribeTransactionsResponse, EndTxnRequest, EndTxnResponse, InitProducerIdRequest,
    InitProducerIdResponse, ListTransactionsRequest, ListTransactionsResponse,
};

use super::admin::ListFilter;
use super::coordinator::TxnCoordinator;
use super::markers::TxnResult;
use super::metadata::{NO_PRODUCER_EPOCH, NO_PRODUCER_ID, TRANSACTION_VERSION_2};
use super::state::TxnState;
use crate::runtime::ShardStatus;

/// The first InitProducerId version whose clients know PRODUCER_FENCED.
const INIT_PRODUCER_FENCED_VERSION: i16 = 4;
/// The first AddPartitionsToTxn, AddOffsetsToTxn and EndTxn version whose clients know
/// PRODUCER_FENCED.
const PRODUCER_FENCED_VERSION: i16 = 2;
/// The first AddPartitionsToTxn version sent by partition leaders, in batches.
const BATCHED_ADD_VERSION: i16 = 4;
/// The first AddPartitionsToTxn version a leader sends to add partitions under transactions V2,
/// and the first EndTxn version of transactions V2.
const V2_ADD_VERSION: i16 = 5;
const V2_END_VERSION: i16 = 5;

impl TxnCoordinator {
    /// InitProducerId. Without a transactional id, a fresh producer id at epoch 0 (idempotence
    /// only, no state kept).
    pub async fn init_producer_id(&self, request: InitProducerIdRequest, version: i16) -> InitProducerIdResponse {
        let result = self.init_producer_id_result(request, version).await;
        let result = result.map_err(|e| fenced_for(e, version, INIT_PRODUCER_FENCED_VERSION));
        match result {
            Ok((producer_id, producer_epoch)) => {
                InitProducerIdResponse { producer_id: ProducerId(producer_id), producer_epoch, ..Default::default() }
            }
            Err(error) => InitProducerIdResponse {
                error_code: error.code(),
                producer_id: ProducerId::NONE,
                producer_epoch: NO_PRODUCER_EPOCH,
                ..Default::default()
            },
        }
    }

    async fn init_producer_id_result(
        &self,
        request: InitProducerIdRequest,
        version: i16,
    ) -> Result<(i64, i16), ErrorCode> {
        let Some(transactional_id) = request.transactional_id else {
            return Ok((self.shared_producer_id().await?, 0));
        };
        if transactional_id.is_empty() {
            return Err(ErrorCode::InvalidRequest);
        }
        if !self.config().is_valid_timeout(request.transaction_timeout_ms) {
            return Err(ErrorCode::InvalidTransactionTimeout);
        }
        let expected = match (version >= 3, request.producer_id.0, request.producer_epoch) {
            (false, _, _) | (true, NO_PRODUCER_ID, NO_PRODUCER_EPOCH) => None,
            (true, NO_PRODUCER_ID, _) | (true, _, NO_PRODUCER_EPOCH) => return Err(ErrorCode::InvalidRequest),
            (true, producer_id, epoch) => Some((producer_id, epoch)),
        };
        let timeout_ms = request.transaction_timeout_ms;
        let partition = self.partition_for(&transactional_id);
        self.write(partition, move |shard, now_ms, ids| {
            shard.init_producer_id(now_ms, ids, &transactional_id, timeout_ms, expected)
        })
        .await?
    }

    /// AddPartitionsToTxn: a client's transaction (v0-3), or a batch of the partition leaders'
    /// (v4+), each verified (`VerifyOnly`) or added under transactions V2 (v5).
    pub async fn add_partitions_to_txn(
        &self,
        request: AddPartitionsToTxnRequest,
        version: i16,
    ) -> AddPartitionsToTxnResponse {
        if version < BATCHED_ADD_VERSION {
            let transaction = AddPartitionsToTxnTransaction {
                transactional_id: request.v3_and_below_transactional_id,
                producer_id: request.v3_and_below_producer_id,
                producer_epoch: request.v3_and_below_producer_epoch,
                verify_only: false,
                topics: request.v3_and_below_topics,
                ..Default::default()
            };
            let result = self.add_transaction(transaction, 0).await;
            let mut topics = result.topic_results;
            for partition in topics.iter_mut().flat_map(|t| t.results_by_partition.iter_mut()) {
                partition.partition_error_code = fenced_code(partition.partition_error_code, version);
            }
            return AddPartitionsToTxnResponse { results_by_topic_v3_and_below: topics, ..Default::default() };
        }
        let client_version = if version >= V2_ADD_VERSION { TRANSACTION_VERSION_2 } else { 1 };
        let adds = request.transactions.into_iter().map(|t| self.add_transaction(t, client_version));
        AddPartitionsToTxnResponse { results_by_transaction: join_all(adds).await, ..Default::default() }
    }

    async fn add_transaction(
        &self,
        transaction: AddPartitionsToTxnTransaction,
        client_version: i16,
    ) -> AddPartitionsToTxnResult {
        let partitions = partitions_of(&transaction.topics);
        let AddPartitionsToTxnTransaction { transactional_id, producer_id, producer_epoch, verify_only, .. } =
            transaction;
        let (producer_id, epoch) = (producer_id.0, producer_epoch);
        let errors: Vec<(TopicPartition, ErrorCode)> = if transactional_id.is_empty() {
            partitions.iter().map(|tp| (tp.clone(), ErrorCode::InvalidRequest)).collect()
        } else if verify_only {
            let partition = self.partition_for(&transactional_id);
            let (id, listed) = (transactional_id.clone(), partitions.iter().cloned().collect::<Vec<_>>());
            let read =
                self.shards.read(partition, move |shard, _| shard.verify_partitions(&id, producer_id, epoch, &listed));
            read.await.unwrap_or_else(|error| partitions.iter().map(|tp| (tp.clone(), error)).collect())
        } else {
            let partition = self.partition_for(&transactional_id);
            let (id, added) = (transactional_id.clone(), partitions.clone());
            let write = self.write(partition, move |shard, now_ms, _| {
                Ok(shard.add_partitions(now_ms, &id, producer_id, epoch, &added, client_version))
            });
            let error = write.await.unwrap_or_else(|error| error);
            partitions.iter().map(|tp| (tp.clone(), error)).collect()
        };
        AddPartitionsToTxnResult { transactional_id, topic_results: topic_results(errors), ..Default::default() }
    }

    /// AddOffsetsToTxn: the group's `__consumer_offsets` partition joins the transaction.
    pub async fn add_offsets_to_txn(&self, request: AddOffsetsToTxnRequest, version: i16) -> AddOffsetsToTxnResponse {
        let error = if request.transactional_id.is_empty() {
            ErrorCode::InvalidRequest
        } else {
            let partition = self.partition_for(&request.transactional_id);
            let AddOffsetsToTxnRequest { transactional_id, producer_id, producer_epoch, group_id, .. } = request;
            self.write(partition, move |shard, now_ms, _| {
                Ok(shard.add_offsets(now_ms, &transactional_id, producer_id.0, producer_epoch, &group_id))
            })
            .await
            .unwrap_or_else(|error| error)
        };
        let error = fenced_for(error, version, PRODUCER_FENCED_VERSION);
        AddOffsetsToTxnResponse { error_code: error.code(), ..Default::default() }
    }

    /// EndTxn: transactions V1 before v5, V2 (a new epoch per transaction, returned) from v5.
    pub async fn end_txn(&self, request: EndTxnRequest, version: i16) -> EndTxnResponse {
        let client_version = if version >= V2_END_VERSION { TRANSACTION_VERSION_2 } else { 0 };
        let result = if request.committed { TxnResult::Commit } else { TxnResult::Abort };
        let answer = if request.transactional_id.is_empty() {
            Err(ErrorCode::InvalidRequest)
        } else {
            let partition = self.partition_for(&request.transactional_id);
            let EndTxnRequest { transactional_id, producer_id, producer_epoch, .. } = request;
            self.write(partition, move |shard, now_ms, ids| {
                shard.end_txn(now_ms, ids, &transactional_id, (producer_id.0, producer_epoch), result, client_version)
            })
            .await
            .and_then(|answer| answer)
        };
        let (error, (producer_id, producer_epoch)) = match answer {
            Ok(producer) => (ErrorCode::None, producer),
            Err(error) => (fenced_for(error, version, PRODUCER_FENCED_VERSION), (NO_PRODUCER_ID, NO_PRODUCER_EPOCH)),
        };
        let (producer_id, producer_epoch) =
            if version >= V2_END_VERSION { (producer_id, producer_epoch) } else { (NO_PRODUCER_ID, NO_PRODUCER_EPOCH) };
        EndTxnResponse {
            error_code: error.code(),
            producer_id: ProducerId(producer_id),
            producer_epoch,
            ..Default::default()
        }
    }

    /// DescribeTransactions; ids of partitions not served here get that error each. Answers
    /// follow the request's order.
    pub async fn describe_transactions(
        &self,
        request: DescribeTransactionsRequest,
        _version: i16,
    ) -> DescribeTransactionsResponse {
        let mut by_partition: BTreeMap<i32, Vec<(usize, String)>> = BTreeMap::new();
        for (i, id) in request.transactional_ids.into_iter().enumerate() {
            let partition = if id.is_empty() { -1 } else { self.partition_for(&id) };
            by_partition.entry(partition).or_default().push((i, id));
        }
        let reads = by_partition.into_iter().map(|(partition, indexed)| async move {
            let ids: Vec<String> = indexed.iter().map(|(_, id)| id.clone()).collect();
            let described = if partition < 0 {
                Err(ErrorCode::InvalidRequest)
            } else {
                self.shards
                    .read(partition, move |shard, _| ids.iter().map(|id| shard.describe_transaction(id)).collect())
                    .await
            };
            let described: Vec<DescribedTxn> = described.unwrap_or_else(|error| {
                indexed
                    .iter()
                    .map(|(_, id)| DescribedTxn {
                        transactional_id: id.clone(),
                        error_code: error.code(),
                        ..Default::default()
                    })
                    .collect()
            });
            indexed.into_iter().map(|(i, _)| i).zip(described).collect::<Vec<_>>()
        });
        let mut states: Vec<(usize, DescribedTxn)> = join_all(reads).await.into_iter().flatten().collect();
        states.sort_by_key(|(i, _)| *i);
        DescribeTransactionsResponse {
            transaction_states: states.into_iter().map(|(_, s)| s).collect(),
            ..Default::default()
        }
    }

    /// ListTransactions over every shard of this node. A shard still loading makes the whole
    /// answer COORDINATOR_LOAD_IN_PROGRESS, as in Kafka; unknown state names are echoed back, and
    /// if every state named is unknown nothing is listed.
    pub async fn list_transactions(&self, request: ListTransactionsRequest, version: i16) -> ListTransactionsResponse {
        let mut response = ListTransactionsResponse::default();
        let mut filter = ListFilter {
            producer_ids: request.producer_id_filters.iter().map(|p| p.0).collect(),
            duration_ms: if version >= 1 { request.duration_filter } else { -1 },
            ..ListFilter::default()
        };
        for name in &request.state_filters {
            match TxnState::from_name(name) {
                Some(state) => filter.states.push(state),
                None => response.unknown_state_filters.push(name.clone()),
            }
        }
        if let Some(pattern) = request.transactional_id_pattern.filter(|p| version >= 2 && !p.is_empty()) {
            match regex::Regex::new(&format!("^(?:{pattern})$")) {
                Ok(regex) => filter.transactional_id_pattern = Some(regex),
                Err(_) => {
                    return ListTransactionsResponse {
                        error_code: ErrorCode::InvalidRegularExpression.code(),
                        ..response
                    };
                }
            }
        }
        let partitions = self.shards().partitions();
        if partitions.iter().any(|&p| self.shards().status(p) == ShardStatus::Loading) {
            return ListTransactionsResponse { error_code: ErrorCode::CoordinatorLoadInProgress.code(), ..response };
        }
        if !request.state_filters.is_empty() && filter.states.is_empty() {
            return response;
        }
        let reads = partitions.into_iter().map(|partition| {
            let filter = filter.clone();
            self.shards.read(partition, move |shard, now_ms| shard.list_transactions(now_ms, &filter))
        });
        for listed in join_all(reads).await {
            match listed {
                Ok(states) => response.transaction_states.extend(states),
                Err(ErrorCode::NotCoordinator) => {}
                Err(error) => {
                    return ListTransactionsResponse {
                        error_code: error.code(),
                        ..ListTransactionsResponse::default()
                    };
                }
            }
        }
        response
    }

    /// A producer id for an idempotent producer (no transactional id).
    async fn shared_producer_id(&self) -> Result<i64, ErrorCode> {
        self.producer_ids().next_producer_id().await
    }
}

/// The partitions a request names, once each.
fn partitions_of(topics: &[AddPartitionsToTxnTopic]) -> BTreeSet<TopicPartition> {
    topics.iter().flat_map(|t| t.partitions.iter().map(|&p| TopicPartition::new(t.name.clone(), p))).collect()
}

/// Per-partition errors grouped by topic, in partition order.
fn topic_results(errors: Vec<(TopicPartition, ErrorCode)>) -> Vec<AddPartitionsToTxnTopicResult> {
    let mut topics: Vec<AddPartitionsToTxnTopicResult> = Vec::new();
    for (tp, error) in errors {
        let result = AddPartitionsToTxnPartitionResult {
            partition_index: tp.partition,
            partition_error_code: error.code(),
            ..Default::default()
        };
        match topics.iter_mut().find(|t| t.name == tp.topic) {
            Some(topic) => topic.results_by_partition.push(result),
            None => topics.push(AddPartitionsToTxnTopicResult {
                name: tp.topic,
                results_by_partition: vec![result],
                ..Default::default()
            }),
        }
    }
    topics
}

/// PRODUCER_FENCED as clients before `fenced_version` know it: INVALID_PRODUCER_EPOCH.
fn fenced_for(error: ErrorCode, version: i16, fenced_version: i16) -> ErrorCode {
    if error == ErrorCode::ProducerFenced && version < fenced_version { ErrorCode::InvalidProducerEpoch } else { error }
}

fn fenced_code(code: i16, version: i16) -> i16 {
    if code == ErrorCode::ProducerFenced.code() && version < PRODUCER_FENCED_VERSION {
        ErrorCode::InvalidProducerEpoch.code()
    } else {
        code
    }
}
