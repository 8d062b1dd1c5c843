//! ListPartitionReassignments (KIP-455): answered by the active controller from its image, as
//! Kafka forwards it, so the answer is never older than the last reassignment it decided.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse};

use strand_security::Session;
use strand_security::acl::AclOperation;

use super::admin_apis::AdminApis;

pub async fn handle(
    apis: &AdminApis<'_>,
    request: ListPartitionReassignmentsRequest,
    version: i16,
    session: &Session,
) -> ListPartitionReassignmentsResponse {
    if !apis.authorize_cluster(session, AclOperation::Describe) {
        let code = ErrorCode::ClusterAuthorizationFailed;
        let error_message = Some(code.message().to_owned());
        return ListPartitionReassignmentsResponse { error_code: code.code(), error_message, ..Default::default() };
    }
    match apis.ask_controller(session, &request, version).await {
        Ok(response) => response,
        Err(reason) => {
            tracing::warn!("ListPartitionReassignments: {reason}");
            ListPartitionReassignmentsResponse {
                error_code: ErrorCode::RequestTimedOut.code(),
                error_message: Some(reason),
                ..Default::default()
            }
        }
    }
}
