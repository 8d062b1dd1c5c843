//! UnregisterBroker (KIP-631): an operator decommissions a broker (`kafka-cluster unregister`).
//! Needs ALTER on the cluster, as Kafka's `KafkaApis.handleUnregisterBrokerRequest`; decided by the
//! controller, which moves the broker's leaderships and ISR places as fencing does and removes
//! its registration.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{UnregisterBrokerRequest, UnregisterBrokerResponse};
use strand_security::Session;
use strand_security::acl::AclOperation;

use super::admin_apis::AdminApis;

pub async fn handle(
    apis: &AdminApis<'_>,
    request: UnregisterBrokerRequest,
    version: i16,
    session: &Session,
) -> UnregisterBrokerResponse {
    let failed = |code: ErrorCode, message: Option<String>| UnregisterBrokerResponse {
        error_code: code.code(),
        error_message: message,
        ..Default::default()
    };
    if !apis.authorize_cluster(session, AclOperation::Alter) {
        // Kafka's `getErrorResponse`: the code alone.
        return failed(ErrorCode::ClusterAuthorizationFailed, None);
    }
    match apis.ask_controller(session, &request, version).await {
        Ok(response) => response,
        Err(reason) => {
            tracing::warn!("UnregisterBroker: {reason}");
            failed(ErrorCode::RequestTimedOut, Some(reason))
        }
    }
}
