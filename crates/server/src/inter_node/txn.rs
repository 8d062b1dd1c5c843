//! Transactions between brokers, over the inter-broker listener (to this very node when it is
//! the other end):
//! - [`CoordinatorTxnVerifier`]: partition leaders' link to transaction coordinators (Kafka's
//!   `AddPartitionsToTxnManager`): KIP-890's check that a transactional write belongs to its
//!   producer's ongoing transaction, sent as AddPartitionsToTxn v5 (the broker-to-broker form:
//!   `verify_only`, or, for transactions V2, adding the partitions) to the leader of the
//!   transactional id's `__transaction_state` partition.
//! - [`LeaderTxnMarkerSender`]: the coordinator's link to partition leaders (Kafka's
//!   `TransactionMarkerChannelManager`): a transaction's COMMIT or ABORT markers as
//!   WriteTxnMarkers, one request per leader, each partition answered on its own.
//!
//! What it is not: no batching of several producers' checks or several transactions' markers
//! into one request, which Kafka does per node; each is one call.

use super::Link;
use std::sync::Arc;
use std::time::Duration;

use strand_base::topic::TRANSACTION_STATE_TOPIC;
use strand_base::{BrokerId, TopicPartition};
use strand_broker::{BoxFuture, TxnVerification, TxnVerifier};
use strand_coordinator::group::hash::partition_for;
use strand_coordinator::txn::{MarkerOutcome, TxnMarkerRequest, TxnMarkerSender};
use strand_metadata::image::MetadataImage;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::add_partitions_to_txn_request::{
    AddPartitionsToTxnTopic, AddPartitionsToTxnTransaction,
};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::write_txn_markers_request::{WritableTxnMarker, WritableTxnMarkerTopic};
use strand_protocol::messages::{AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, WriteTxnMarkersRequest};
use tokio::sync::watch;

use super::brokers::BrokerDirectory;
use super::client::NodeClient;

/// The version brokers send: v5 lets a coordinator answer TRANSACTION_ABORTABLE.
const ADD_PARTITIONS_TO_TXN_VERSION: i16 = 5;

/// KIP-890 checks over TCP to the transactional id's coordinator.
#[derive(Debug)]
pub struct CoordinatorTxnVerifier {
    brokers: BrokerDirectory,
    client: NodeClient,
    /// `request.timeout.ms`: how long a check may take.
    timeout: Duration,
}

impl CoordinatorTxnVerifier {
    pub fn new(
        image: watch::Receiver<Arc<MetadataImage>>,
        inter_broker_listener: String,
        connect_timeout: Duration,
        timeout: Duration,
        link: Link,
    ) -> CoordinatorTxnVerifier {
        CoordinatorTxnVerifier {
            brokers: BrokerDirectory::new(image, inter_broker_listener),
            client: NodeClient::new(connect_timeout, strand_base::limits::SOCKET_REQUEST_BYTES_MAX, link),
            timeout,
        }
    }

    /// The leader of `transactional_id`'s partition of `__transaction_state`.
    fn coordinator(&self, transactional_id: &str) -> Option<BrokerId> {
        let image = self.brokers.image();
        let topic = image.topics().by_name(TRANSACTION_STATE_TOPIC)?;
        let partitions = i32::try_from(topic.partitions.len()).ok()?.max(1);
        let leader = topic.partitions.get(&partition_for(transactional_id, partitions))?.leader;
        (leader != BrokerId::NONE).then_some(leader)
    }

    async fn check(&self, verification: &TxnVerification) -> Result<Vec<(TopicPartition, ErrorCode)>, ErrorCode> {
        let coordinator = self.coordinator(&verification.transactional_id).ok_or(ErrorCode::CoordinatorNotAvailable)?;
        let address = self.brokers.address(coordinator).map_err(|reason| {
            tracing::debug!("transaction verification: {reason}");
            ErrorCode::CoordinatorNotAvailable
        })?;
        let request = RequestBody::AddPartitionsToTxn(request(verification));
        let answer = self.client.call_kafka(&address, &request, ADD_PARTITIONS_TO_TXN_VERSION, self.timeout).await;
        match answer {
            Ok(ResponseBody::AddPartitionsToTxn(response)) => refusals(verification, &response),
            Ok(other) => {
                tracing::warn!("transaction verification: {:?} answered AddPartitionsToTxn", other.api_key());
                Err(ErrorCode::NetworkException)
            }
            Err(e) => {
                tracing::debug!("transaction verification: {e}");
                Err(ErrorCode::NetworkException)
            }
        }
    }
}

impl TxnVerifier for CoordinatorTxnVerifier {
    fn verify(&self, verification: TxnVerification) -> BoxFuture<'_, Vec<(TopicPartition, ErrorCode)>> {
        Box::pin(async move {
            match self.check(&verification).await {
                Ok(refused) => refused,
                Err(code) => verification.partitions.into_iter().map(|tp| (tp, code)).collect(),
            }
        })
    }
}

/// Transaction markers over TCP to the leaders of the transaction's partitions.
#[derive(Debug)]
pub struct LeaderTxnMarkerSender {
    brokers: BrokerDirectory,
    client: NodeClient,
    /// `request.timeout.ms`: how long one leader may take.
    timeout: Duration,
}

impl LeaderTxnMarkerSender {
    pub fn new(
        image: watch::Receiver<Arc<MetadataImage>>,
        inter_broker_listener: String,
        connect_timeout: Duration,
        timeout: Duration,
        link: Link,
    ) -> LeaderTxnMarkerSender {
        LeaderTxnMarkerSender {
            brokers: BrokerDirectory::new(image, inter_broker_listener),
            client: NodeClient::new(connect_timeout, strand_base::limits::SOCKET_REQUEST_BYTES_MAX, link),
            timeout,
        }
    }

    /// Sends the markers of `partitions` (all led by `leader`) and answers each partition.
    async fn send_to(
        &self,
        leader: BrokerId,
        request: &TxnMarkerRequest,
        partitions: Vec<TopicPartition>,
    ) -> Vec<(TopicPartition, MarkerOutcome)> {
        let failed_all = |partitions: Vec<TopicPartition>, code| {
            partitions.into_iter().map(|tp| (tp, MarkerOutcome::Failed(code))).collect::<Vec<_>>()
        };
        let address = match self.brokers.address(leader) {
            Ok(address) => address,
            Err(reason) => {
                tracing::debug!("transaction markers: {reason}");
                return failed_all(partitions, ErrorCode::NotLeaderOrFollower);
            }
        };
        let mut topics: Vec<WritableTxnMarkerTopic> = Vec::new();
        for tp in &partitions {
            match topics.iter_mut().find(|t| t.name == tp.topic) {
                Some(topic) => topic.partition_indexes.push(tp.partition),
                None => topics.push(WritableTxnMarkerTopic {
                    name: tp.topic.clone(),
                    partition_indexes: vec![tp.partition],
                    ..Default::default()
                }),
            }
        }
        let body = RequestBody::WriteTxnMarkers(WriteTxnMarkersRequest {
            markers: vec![WritableTxnMarker {
                producer_id: strand_base::ProducerId(request.producer_id),
                producer_epoch: request.producer_epoch,
                transaction_result: request.result.is_commit(),
                topics,
                coordinator_epoch: request.coordinator_epoch,
                transaction_version: i8::try_from(request.transaction_version).unwrap_or(0),
                ..Default::default()
            }],
            ..Default::default()
        });
        let version = strand_protocol::messages::api::ApiKey::WriteTxnMarkers.versions().max;
        let response = match self.client.call_kafka(&address, &body, version, self.timeout).await {
            Ok(ResponseBody::WriteTxnMarkers(response)) => response,
            Ok(other) => {
                tracing::warn!("transaction markers: {:?} answered WriteTxnMarkers", other.api_key());
                return failed_all(partitions, ErrorCode::NetworkException);
            }
            Err(e) => {
                tracing::debug!("transaction markers to broker {leader}: {e}");
                return failed_all(partitions, ErrorCode::NetworkException);
            }
        };
        let answered = response.markers.iter().find(|m| m.producer_id.0 == request.producer_id);
        partitions
            .into_iter()
            .map(|tp| {
                let code = answered
                    .and_then(|m| m.topics.iter().find(|t| t.name == tp.topic))
                    .and_then(|t| t.partitions.iter().find(|p| p.partition_index == tp.partition))
                    .map_or(ErrorCode::UnknownServerError, |p| {
                        ErrorCode::from_code(p.error_code).unwrap_or(ErrorCode::UnknownServerError)
                    });
                let outcome =
                    if code == ErrorCode::None { MarkerOutcome::Written } else { MarkerOutcome::Failed(code) };
                (tp, outcome)
            })
            .collect()
    }
}

impl TxnMarkerSender for LeaderTxnMarkerSender {
    fn send(&self, request: TxnMarkerRequest) -> BoxFuture<'_, Vec<(TopicPartition, MarkerOutcome)>> {
        Box::pin(async move {
            let image = self.brokers.image();
            let mut outcomes = Vec::with_capacity(request.partitions.len());
            let mut by_leader: std::collections::BTreeMap<BrokerId, Vec<TopicPartition>> = Default::default();
            for tp in &request.partitions {
                match image.topics().by_name(&tp.topic).map(|t| t.partitions.get(&tp.partition)) {
                    None | Some(None) => outcomes.push((tp.clone(), MarkerOutcome::PartitionGone)),
                    Some(Some(state)) if state.leader == BrokerId::NONE => {
                        outcomes.push((tp.clone(), MarkerOutcome::Failed(ErrorCode::NotLeaderOrFollower)));
                    }
                    Some(Some(state)) => by_leader.entry(state.leader).or_default().push(tp.clone()),
                }
            }
            let sends = by_leader.into_iter().map(|(leader, partitions)| self.send_to(leader, &request, partitions));
            for answered in futures::future::join_all(sends).await {
                outcomes.extend(answered);
            }
            outcomes
        })
    }
}

/// The broker form of the request: one transaction, its partitions by topic.
fn request(verification: &TxnVerification) -> AddPartitionsToTxnRequest {
    let mut topics: Vec<AddPartitionsToTxnTopic> = Vec::new();
    for tp in &verification.partitions {
        match topics.iter_mut().find(|t| t.name == tp.topic) {
            Some(topic) => topic.partitions.push(tp.partition),
            None => topics.push(AddPartitionsToTxnTopic {
                name: tp.topic.clone(),
                partitions: vec![tp.partition],
                ..Default::default()
            }),
        }
    }
    AddPartitionsToTxnRequest {
        transactions: vec![AddPartitionsToTxnTransaction {
            transactional_id: verification.transactional_id.clone(),
            producer_id: verification.producer_id,
            producer_epoch: verification.producer_epoch,
            verify_only: !verification.add,
            topics,
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// The partitions the coordinator did not confirm. A request-level error applies to all of them
/// (CLUSTER_AUTHORIZATION_FAILED reads as INVALID_TXN_STATE, as Kafka's manager has it); a
/// partition the answer leaves out was not confirmed either.
fn refusals(
    verification: &TxnVerification,
    response: &AddPartitionsToTxnResponse,
) -> Result<Vec<(TopicPartition, ErrorCode)>, ErrorCode> {
    let code = |raw: i16| ErrorCode::from_code(raw).unwrap_or(ErrorCode::UnknownServerError);
    if response.error_code != 0 {
        return Err(match code(response.error_code) {
            ErrorCode::ClusterAuthorizationFailed => ErrorCode::InvalidTxnState,
            other => other,
        });
    }
    let result = response.results_by_transaction.iter().find(|r| r.transactional_id == verification.transactional_id);
    let answer = |tp: &TopicPartition| {
        let topic = result?.topic_results.iter().find(|t| t.name == tp.topic)?;
        let partition = topic.results_by_partition.iter().find(|p| p.partition_index == tp.partition)?;
        Some(code(partition.partition_error_code))
    };
    Ok(verification
        .partitions
        .iter()
        .filter_map(|tp| match answer(tp) {
            Some(ErrorCode::None) => None,
            Some(refused) => Some((tp.clone(), refused)),
            None => Some((tp.clone(), ErrorCode::UnknownServerError)),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use strand_base::ProducerId;
    use strand_protocol::messages::add_partitions_to_txn_response::{
        AddPartitionsToTxnPartitionResult, AddPartitionsToTxnResult, AddPartitionsToTxnTopicResult,
    };

    use super::*;

    fn verification() -> TxnVerification {
        TxnVerification {
            transactional_id: "tx".into(),
            producer_id: ProducerId(4),
            producer_epoch: 2,
            partitions: vec![TopicPartition::new("a", 0), TopicPartition::new("b", 3), TopicPartition::new("a", 1)],
            add: false,
        }
    }

    #[test]
    fn one_transaction_with_its_partitions_by_topic() {
        let built = request(&verification());
        let transaction = &built.transactions[0];
        assert_eq!(
            (transaction.producer_id, transaction.producer_epoch, transaction.verify_only),
            (ProducerId(4), 2, true)
        );
        let topics: Vec<(&str, &[i32])> =
            transaction.topics.iter().map(|t| (t.name.as_str(), &t.partitions[..])).collect();
        assert_eq!(topics, vec![("a", &[0, 1][..]), ("b", &[3][..])]);
        let adding = request(&TxnVerification { add: true, ..verification() });
        assert!(!adding.transactions[0].verify_only, "transactions V2 add the partitions");
    }

    #[test]
    fn unconfirmed_partitions_are_refused() {
        let partition = |index, code: ErrorCode| AddPartitionsToTxnPartitionResult {
            partition_index: index,
            partition_error_code: code.code(),
            ..Default::default()
        };
        let response = AddPartitionsToTxnResponse {
            results_by_transaction: vec![AddPartitionsToTxnResult {
                transactional_id: "tx".into(),
                topic_results: vec![AddPartitionsToTxnTopicResult {
                    name: "a".into(),
                    results_by_partition: vec![partition(0, ErrorCode::None), partition(1, ErrorCode::InvalidTxnState)],
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let refused = refusals(&verification(), &response).expect("answered");
        assert_eq!(
            refused,
            vec![
                (TopicPartition::new("b", 3), ErrorCode::UnknownServerError),
                (TopicPartition::new("a", 1), ErrorCode::InvalidTxnState)
            ]
        );
        let denied = AddPartitionsToTxnResponse {
            error_code: ErrorCode::ClusterAuthorizationFailed.code(),
            ..Default::default()
        };
        assert_eq!(refusals(&verification(), &denied), Err(ErrorCode::InvalidTxnState));
    }
}
