//! DescribeQuorum (KIP-595, v2 with KIP-853's nodes): forwarded to the active controller, whose
//! quorum leader answers with its epoch, high watermark, voters and observers, as Kafka's
//! brokers forward it. DESCRIBE on the cluster, as Kafka's controller checks it; a refusal or a
//! controller that cannot be reached is the top-level error.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{DescribeQuorumRequest, DescribeQuorumResponse};
use strand_security::Session;
use strand_security::acl::AclOperation;

use crate::Broker;

pub async fn handle(
    broker: &Broker,
    request: DescribeQuorumRequest,
    version: i16,
    session: &Session,
) -> DescribeQuorumResponse {
    if !broker.authorize_cluster(session, AclOperation::Describe) {
        return error(ErrorCode::ClusterAuthorizationFailed, None);
    }
    match broker.ask_controller_for(Some(session), &request, version).await {
        Ok(response) => response,
        Err(reason) => {
            tracing::warn!("DescribeQuorum: {reason}");
            error(ErrorCode::RequestTimedOut, Some(reason))
        }
    }
}

/// A whole request refused with `code` (Kafka's `DescribeQuorumResponse.getTopLevelErrorResponse`).
pub fn error(code: ErrorCode, message: Option<String>) -> DescribeQuorumResponse {
    let error_message = Some(message.unwrap_or_else(|| code.message().to_owned()));
    DescribeQuorumResponse { error_code: code.code(), error_message, ..DescribeQuorumResponse::default() }
}
