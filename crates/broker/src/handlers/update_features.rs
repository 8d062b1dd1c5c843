//! UpdateFeatures (KIP-584): changes of finalized feature levels, decided by the active controller
//! (`strand_metadata::controller::update_features`, Kafka's `FeatureControlManager`), to which
//! Kafka 4's brokers forward it; the answer comes once this node's metadata has the new levels, so
//! the next ApiVersions reports them. Served the same way on the CONTROLLER listener
//! (`controller_apis.rs`).
//!
//! Without ALTER on the cluster the request fails whole with CLUSTER_AUTHORIZATION_FAILED and no
//! per-feature results, as Kafka's `UpdateFeaturesRequest.getErrorResponse`.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{UpdateFeaturesRequest, UpdateFeaturesResponse};
use strand_security::Session;
use strand_security::acl::AclOperation;

use crate::Broker;

pub async fn handle(
    broker: &Broker,
    request: UpdateFeaturesRequest,
    version: i16,
    session: &Session,
) -> UpdateFeaturesResponse {
    if !broker.authorize_cluster(session, AclOperation::Alter) {
        return failed(ErrorCode::ClusterAuthorizationFailed, ErrorCode::ClusterAuthorizationFailed.message());
    }
    match broker.ask_controller_for(Some(session), &request, version).await {
        Ok(response) => response,
        Err(reason) => {
            tracing::warn!("UpdateFeatures: {reason}");
            failed(ErrorCode::RequestTimedOut, &reason)
        }
    }
}

/// The request failed whole: `code` and `message` at the top, no per-feature results.
pub fn failed(code: ErrorCode, message: &str) -> UpdateFeaturesResponse {
    UpdateFeaturesResponse { error_code: code.code(), error_message: Some(message.to_owned()), ..Default::default() }
}
