//! Partition leaders' link to transaction coordinators (Kafka's `AddPartitionsToTxnManager`):
//! KIP-890's check that a transactional write belongs to its producer's ongoing transaction, sent
//! as AddPartitionsToTxn v5 (the broker-to-broker form: `verify_only`, or, for transactions V2,
//! adding the partitions) to the leader of the transactional id's `__transaction_state`
//! partition, over the inter-broker listener (to this very node when it coordinates).
//!
//! What it is not: no batching of several producers' checks into one request, which Kafka does
//! per coordinator node; each produce request's check is one call.

use std::sync::Arc;
use std::time::Duration;

use strand_base::{BrokerId, TopicPartition};
use strand_broker::{BoxFuture, TxnVerification, TxnVerifier};
use strand_coordinator::group::hash::partition_for;
use strand_metadata::image::MetadataImage;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::add_partitions_to_txn_request::{
    AddPartitionsToTxnTopic, AddPartitionsToTxnTransaction,
};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::{AddPartitionsToTxnRequest, AddPartitionsToTxnResponse};
use tokio::sync::watch;

use super::brokers::BrokerDirectory;
use super::client::NodeClient;

/// The version brokers send: v5 lets a coordinator answer TRANSACTION_ABORTABLE.
const ADD_PARTITIONS_TO_TXN_VERSION: i16 = 5;
/// The topic whose partitions' leaders coordinate transactions.
const TRANSACTION_TOPIC: &str = "__transaction_state";

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
    ) -> CoordinatorTxnVerifier {
        CoordinatorTxnVerifier {
            brokers: BrokerDirectory::new(image, inter_broker_listener),
            client: NodeClient::new(connect_timeout, strand_base::limits::SOCKET_REQUEST_BYTES_MAX),
            timeout,
        }
    }

    /// The leader of `transactional_id`'s partition of `__transaction_state`.
    fn coordinator(&self, transactional_id: &str) -> Option<BrokerId> {
        let image = self.brokers.image();
        let topic = image.topics().by_name(TRANSACTION_TOPIC)?;
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
