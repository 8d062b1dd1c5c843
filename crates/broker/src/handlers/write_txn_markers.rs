//! WriteTxnMarkers: a transaction coordinator (on this node or another) ends a transaction in the
//! partitions this node leads by appending a COMMIT or ABORT control batch to each, as leader with
//! `acks=all`, carrying the producer's id and epoch and the coordinator's epoch (a marker from an
//! older coordinator epoch is TRANSACTION_COORDINATOR_FENCED). Each partition answers on its own:
//! the coordinator retries those that failed.
//!
//! `__consumer_offsets` partitions are not written here: their markers decide pending
//! transactional offset commits, so the group coordinator writes them itself (Kafka 4's
//! `GroupCoordinator.completeTransaction`), keeping its state and its log in step.
//!
//! Checked against Kafka's `KafkaApis.handleWriteTxnMarkersRequest`.

use std::time::Duration;

use bytes::BytesMut;
use strand_base::TopicPartition;
use strand_base::topic::OFFSETS_TOPIC;
use strand_coordinator::TxnMarker;
use strand_log::log::ValidatedBatch;
use strand_log::producer_state::AppendContext;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::write_txn_markers_request::WritableTxnMarker;
use strand_protocol::messages::write_txn_markers_response::{
    WritableTxnMarkerPartitionResult, WritableTxnMarkerResult, WritableTxnMarkerTopicResult,
};
use strand_protocol::messages::{WriteTxnMarkersRequest, WriteTxnMarkersResponse};
use strand_protocol::records::{EndTxnMarker, TransactionResult, end_txn_marker_batch};
use strand_replication::Acks;
use strand_security::Session;
use strand_security::acl::AclOperation;

use super::target;
use crate::Broker;

/// How long a marker waits for the in-sync replicas (Kafka uses `request.timeout.ms`).
const MARKER_TIMEOUT: Duration = Duration::from_secs(30);

/// Only brokers write markers: without CLUSTER_ACTION (or ALTER, which Kafka 4 also accepts) on
/// the cluster every partition answers CLUSTER_AUTHORIZATION_FAILED, as Kafka's error response
/// does.
pub async fn handle(broker: &Broker, request: WriteTxnMarkersRequest, session: &Session) -> WriteTxnMarkersResponse {
    if !broker.authorize_cluster(session, AclOperation::Alter)
        && !broker.authorize_cluster(session, AclOperation::ClusterAction)
    {
        return refused(&request, ErrorCode::ClusterAuthorizationFailed);
    }
    let mut markers = Vec::with_capacity(request.markers.len());
    for marker in &request.markers {
        markers.push(write_marker(broker, marker).await);
    }
    WriteTxnMarkersResponse { markers, ..Default::default() }
}

/// Every partition of `request` answering `code`.
fn refused(request: &WriteTxnMarkersRequest, code: ErrorCode) -> WriteTxnMarkersResponse {
    let markers = request
        .markers
        .iter()
        .map(|marker| WritableTxnMarkerResult {
            producer_id: marker.producer_id,
            topics: marker
                .topics
                .iter()
                .map(|topic| WritableTxnMarkerTopicResult {
                    name: topic.name.clone(),
                    partitions: (topic.partition_indexes.iter())
                        .map(|&partition_index| WritableTxnMarkerPartitionResult {
                            partition_index,
                            error_code: code.code(),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    WriteTxnMarkersResponse { markers, ..Default::default() }
}

async fn write_marker(broker: &Broker, marker: &WritableTxnMarker) -> WritableTxnMarkerResult {
    let result = if marker.transaction_result { TransactionResult::Commit } else { TransactionResult::Abort };
    let image = broker.image();
    let mut topics = Vec::with_capacity(marker.topics.len());
    let mut waiting = Vec::new();
    for topic in &marker.topics {
        let found = image.topics().by_name(&topic.name);
        let mut partitions = Vec::with_capacity(topic.partition_indexes.len());
        for &partition_index in &topic.partition_indexes {
            let code = match target(&image, found, partition_index, broker.identity.node_id) {
                Err(code) => code,
                Ok(target) if target.partition.topic == OFFSETS_TOPIC => {
                    let txn_marker = TxnMarker {
                        producer_id: marker.producer_id,
                        producer_epoch: marker.producer_epoch,
                        coordinator_epoch: marker.coordinator_epoch,
                        result,
                    };
                    let outcome = broker.groups.complete_transaction(target.partition.partition, txn_marker).await;
                    outcome.err().unwrap_or(ErrorCode::None)
                }
                Ok(target) => match append_marker(broker, &target.partition, target.leader_epoch, marker, result) {
                    Ok(Some(delayed)) => {
                        waiting.push((topics.len(), partitions.len(), delayed));
                        ErrorCode::None
                    }
                    Ok(None) => ErrorCode::None,
                    Err(code) => code,
                },
            };
            partitions.push(WritableTxnMarkerPartitionResult {
                partition_index,
                error_code: code.code(),
                ..Default::default()
            });
        }
        topics.push(WritableTxnMarkerTopicResult { name: topic.name.clone(), partitions, ..Default::default() });
    }
    // The markers of one transaction are appended first and then waited for together.
    let deadline = tokio::time::Instant::now() + MARKER_TIMEOUT;
    for (topic, partition, delayed) in waiting {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if let Err(e) = delayed.wait(left).await
            && let Some(answer) = topics.get_mut(topic).and_then(|t| t.partitions.get_mut(partition))
        {
            answer.error_code = e.code().code();
        }
    }
    WritableTxnMarkerResult { producer_id: marker.producer_id, topics, ..Default::default() }
}

/// Appends one marker batch as leader; what to wait on for `acks=all`.
fn append_marker(
    broker: &Broker,
    tp: &TopicPartition,
    leader_epoch: i32,
    marker: &WritableTxnMarker,
    result: TransactionResult,
) -> Result<Option<strand_replication::DelayedProduce>, ErrorCode> {
    let end = EndTxnMarker { coordinator_epoch: marker.coordinator_epoch };
    let now = broker.clock.now_ms();
    let bytes = end_txn_marker_batch(marker.producer_id, marker.producer_epoch, result, end, now)
        .and_then(|builder| builder.build())
        .map_err(|_| ErrorCode::UnknownServerError)?;
    let batch = ValidatedBatch::validate(BytesMut::from(&bytes[..])).map_err(|_| ErrorCode::UnknownServerError)?;
    // Versions 0 and 1 of the request carry no transaction version: markers of transactions V1.
    let context = AppendContext::coordinator(i16::from(marker.transaction_version.max(0)));
    match broker.replicas.append_as_leader(tp, batch, leader_epoch, Acks::All, context) {
        Ok(appended) => Ok(appended.delayed),
        Err(e) => {
            tracing::debug!("WriteTxnMarkers to {tp}: {e}");
            Err(e.code())
        }
    }
}
