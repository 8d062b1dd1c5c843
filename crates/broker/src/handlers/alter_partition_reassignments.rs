//! AlterPartitionReassignments (KIP-455): decided by the active controller (start, change or
//! cancel each partition's reassignment; Kafka's per-partition errors); the response once this
//! node's metadata includes the records, so its partitions already show the new replicas.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_partition_reassignments_response::{
    ReassignablePartitionResponse, ReassignableTopicResponse,
};
use strand_protocol::messages::{AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse};

use strand_security::Session;
use strand_security::acl::AclOperation;

use super::admin_apis::AdminApis;

pub async fn handle(
    apis: &AdminApis<'_>,
    request: AlterPartitionReassignmentsRequest,
    version: i16,
    session: &Session,
) -> AlterPartitionReassignmentsResponse {
    // Only ALTER on the cluster (Kafka's `getErrorResponse`: every partition and the request).
    if !apis.authorize_cluster(session, AclOperation::Alter) {
        let code = ErrorCode::ClusterAuthorizationFailed;
        let message = Some(code.message().to_owned());
        let responses = (request.topics.iter())
            .map(|topic| ReassignableTopicResponse {
                name: topic.name.clone(),
                partitions: (topic.partitions.iter())
                    .map(|p| ReassignablePartitionResponse {
                        partition_index: p.partition_index,
                        error_code: code.code(),
                        error_message: message.clone(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect();
        return AlterPartitionReassignmentsResponse {
            error_code: code.code(),
            error_message: message,
            responses,
            ..Default::default()
        };
    }
    match apis.ask_controller(session, &request, version).await {
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
