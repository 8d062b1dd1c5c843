//! The transaction calls of Kafka's `Admin` that `kafka-transactions` makes: `listTransactions`
//! (ListTransactions to every broker), `describeTransactions` (DescribeTransactions to the
//! transactional id's coordinator), `describeProducers` (DescribeProducers to a partition's
//! leader or a given replica) and `abortTransaction` (an abort marker written by the leader).

use strand_base::{BrokerId, ProducerId};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::describe_producers_request::TopicRequest;
use strand_protocol::messages::write_txn_markers_request::{WritableTxnMarker, WritableTxnMarkerTopic};
use strand_protocol::messages::{
    DescribeProducersRequest, DescribeTransactionsRequest, ListTransactionsRequest, WriteTxnMarkersRequest,
};

use crate::admin_groups::TopicPartition;
use crate::cluster::Node;
use crate::{Admin, ClientError};

/// FindCoordinator's key type of a transactional id.
const TRANSACTION_KEY: i8 = 1;

/// A transaction as `listTransactions` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransactionListing {
    pub transactional_id: String,
    pub producer_id: i64,
    pub state: String,
}

/// A transaction as `describeTransactions` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransactionDescription {
    pub coordinator_id: i32,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub state: String,
    pub timeout_ms: i32,
    /// -1: no transaction open.
    pub start_time_ms: i64,
    pub partitions: Vec<TopicPartition>,
}

/// A producer as `describeProducers` describes it (-1: unknown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProducerState {
    pub producer_id: i64,
    pub producer_epoch: i32,
    pub last_sequence: i32,
    pub last_timestamp: i64,
    pub coordinator_epoch: i32,
    pub current_txn_start_offset: i64,
}

impl Admin {
    /// Every broker's transactions, by broker id in the order the brokers are known; with
    /// `duration_filter` >= 0 only those open longer than that many ms.
    pub async fn list_transactions(
        &self,
        duration_filter: i64,
    ) -> Result<Vec<(i32, Vec<TransactionListing>)>, ClientError> {
        let request = RequestBody::ListTransactions(ListTransactionsRequest { duration_filter, ..Default::default() });
        let mut all = Vec::new();
        for node in self.describe_cluster().await?.nodes {
            let response =
                self.client().retrying("listTransactions", || self.client().call_node(node.id, &request)).await?;
            let ResponseBody::ListTransactions(response) = response else {
                return Err(ClientError::Config("not a ListTransactions response".into()));
            };
            if let Some(error) = ClientError::from_response(response.error_code, None) {
                return Err(error);
            }
            let listings = response
                .transaction_states
                .into_iter()
                .map(|t| TransactionListing {
                    transactional_id: t.transactional_id,
                    producer_id: t.producer_id.0,
                    state: t.transaction_state,
                })
                .collect();
            all.push((node.id, listings));
        }
        Ok(all)
    }

    /// The transaction of `transactional_id`, asked of its coordinator.
    pub async fn describe_transaction(&self, transactional_id: &str) -> Result<TransactionDescription, ClientError> {
        let request = RequestBody::DescribeTransactions(DescribeTransactionsRequest {
            transactional_ids: vec![transactional_id.to_owned()],
            ..Default::default()
        });
        self.client()
            .retrying("describeTransactions", || async {
                let Node { id, .. } = self.coordinator(TRANSACTION_KEY, transactional_id).await?;
                let ResponseBody::DescribeTransactions(response) = self.client().call_node(id, &request).await? else {
                    return Err(ClientError::Config("not a DescribeTransactions response".into()));
                };
                let state = response.transaction_states.into_iter().next();
                let state = state.ok_or_else(|| ClientError::Config("DescribeTransactions answered nothing".into()))?;
                if let Some(error) = ClientError::from_response(state.error_code, None) {
                    return Err(error);
                }
                Ok(TransactionDescription {
                    coordinator_id: id,
                    producer_id: state.producer_id.0,
                    producer_epoch: state.producer_epoch,
                    state: state.transaction_state,
                    timeout_ms: state.transaction_timeout_ms,
                    start_time_ms: state.transaction_start_time_ms,
                    partitions: state
                        .topics
                        .into_iter()
                        .flat_map(|t| {
                            let topic = t.topic;
                            t.partitions.into_iter().map(move |p| (topic.clone(), p))
                        })
                        .collect(),
                })
            })
            .await
    }

    /// The active producers of `partition`, asked of its leader or of replica `broker`.
    pub async fn describe_producers(
        &self,
        partition: &TopicPartition,
        broker: Option<i32>,
    ) -> Result<Vec<ProducerState>, ClientError> {
        let (topic, index) = partition;
        let request = RequestBody::DescribeProducers(DescribeProducersRequest {
            topics: vec![TopicRequest { name: topic.clone(), partition_indexes: vec![*index], ..Default::default() }],
            ..Default::default()
        });
        self.client()
            .retrying("describeProducers", || async {
                let node = match broker {
                    Some(id) => id,
                    None => self.leader_of(partition).await?,
                };
                let ResponseBody::DescribeProducers(response) = self.client().call_node(node, &request).await? else {
                    return Err(ClientError::Config("not a DescribeProducers response".into()));
                };
                let answer = response.topics.into_iter().flat_map(|t| t.partitions).next();
                let answer = answer.ok_or_else(|| ClientError::Config("DescribeProducers answered nothing".into()))?;
                if let Some(error) = ClientError::from_response(answer.error_code, answer.error_message.as_deref()) {
                    return Err(error);
                }
                Ok(answer
                    .active_producers
                    .into_iter()
                    .map(|p| ProducerState {
                        producer_id: p.producer_id.0,
                        producer_epoch: p.producer_epoch,
                        last_sequence: p.last_sequence,
                        last_timestamp: p.last_timestamp,
                        coordinator_epoch: p.coordinator_epoch,
                        current_txn_start_offset: p.current_txn_start_offset,
                    })
                    .collect())
            })
            .await
    }

    /// Aborts the transaction of producer `producer_id` (at `producer_epoch`) on `partition`:
    /// its leader writes the abort marker as the coordinator of `coordinator_epoch` would.
    pub async fn abort_transaction(
        &self,
        partition: &TopicPartition,
        producer_id: i64,
        producer_epoch: i16,
        coordinator_epoch: i32,
    ) -> Result<(), ClientError> {
        let (topic, index) = partition;
        let request = RequestBody::WriteTxnMarkers(WriteTxnMarkersRequest {
            markers: vec![WritableTxnMarker {
                producer_id: ProducerId(producer_id),
                producer_epoch,
                transaction_result: false,
                topics: vec![WritableTxnMarkerTopic {
                    name: topic.clone(),
                    partition_indexes: vec![*index],
                    ..Default::default()
                }],
                coordinator_epoch,
                ..Default::default()
            }],
            ..Default::default()
        });
        self.client()
            .retrying("abortTransaction", || async {
                let leader = self.leader_of(partition).await?;
                let ResponseBody::WriteTxnMarkers(response) = self.client().call_node(leader, &request).await? else {
                    return Err(ClientError::Config("not a WriteTxnMarkers response".into()));
                };
                let code = response
                    .markers
                    .into_iter()
                    .flat_map(|m| m.topics)
                    .flat_map(|t| t.partitions)
                    .map(|p| p.error_code)
                    .next()
                    .unwrap_or(0);
                ClientError::from_response(code, None).map_or(Ok(()), Err)
            })
            .await
    }

    /// The leader of `partition` from a fresh Metadata.
    async fn leader_of(&self, (topic, index): &TopicPartition) -> Result<i32, ClientError> {
        let metadata = self.client().refresh_metadata(Some(std::slice::from_ref(topic))).await?;
        let found = metadata.topics.iter().find(|t| t.name.as_deref() == Some(topic.as_str()));
        let found = found
            .ok_or_else(|| ClientError::from_response(3, None).unwrap_or(ClientError::Timeout("metadata".into())))?;
        if let Some(error) = ClientError::from_response(found.error_code, None) {
            return Err(error);
        }
        let partition = found.partitions.iter().find(|p| p.partition_index == *index);
        match partition.map(|p| p.leader_id) {
            Some(BrokerId(leader)) if leader >= 0 => Ok(leader),
            Some(_) => Err(ClientError::from_response(5, None).unwrap_or(ClientError::Timeout("leader".into()))),
            None => Err(ClientError::from_response(3, None).unwrap_or(ClientError::Timeout("partition".into()))),
        }
    }
}
