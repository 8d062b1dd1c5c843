//! AlterPartitionReassignments (KIP-455): decided by the active controller (start, change or
//! cancel each partition's reassignment; Kafka's per-partition errors); the response once this
//! node's metadata includes the records, so its partitions already show the new replicas.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_partition_reassignments_response::{
    ReassignablePartitionResponse, ReassignableTopicResponse,
};
use strand_protocol::messages::{AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse};

use crate::Broker;

pub async fn handle(
    broker: &Broker,
    request: AlterPartitionReassignmentsRequest,
    version: i16,
) -> AlterPartitionReassignmentsResponse {
    match broker.ask_controller(&request, version).await {
        Ok(response) => response,
        Err(reason) => {
            tracing::warn!("AlterPartitionReassignments: {reason}");
            let responses = request
                .topics
                .iter()
                .map(|t| ReassignableTopicResponse {
                    name: t.name.clone(),
                    partitions: t
                        .partitions
                        .iter()
                        .map(|p| ReassignablePartitionResponse {
                            partition_index: p.partition_index,
                            error_code: ErrorCode::RequestTimedOut.code(),
                            error_message: Some(reason.clone()),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect();
            AlterPartitionReassignmentsResponse {
                allow_replication_factor_change: request.allow_replication_factor_change,
                error_message: None,
                responses,
                ..Default::default()
            }
        }
    }
}
