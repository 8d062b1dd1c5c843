//! AlterClientQuotas (KIP-546): decided by the active controller, as Kafka forwards it
//! (`ClientQuotaControlManager`); the answer comes once this node's image holds the new quotas.
//! It needs ALTER_CONFIGS on the cluster: without it every entry is CLUSTER_AUTHORIZATION_FAILED.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_client_quotas_response::{EntityData, EntryData};
use strand_protocol::messages::{AlterClientQuotasRequest, AlterClientQuotasResponse};

use strand_security::Session;
use strand_security::acl::AclOperation;

use super::admin_apis::AdminApis;

pub async fn handle(
    apis: &AdminApis<'_>,
    request: AlterClientQuotasRequest,
    version: i16,
    session: &Session,
) -> AlterClientQuotasResponse {
    if !apis.authorize_cluster(session, AclOperation::AlterConfigs) {
        let code = ErrorCode::ClusterAuthorizationFailed;
        return all_failed(&request, code, code.message().to_owned());
    }
    match apis.ask_controller(session, &request, version).await {
        Ok(response) => response,
        Err(reason) => {
            tracing::warn!("AlterClientQuotas: {reason}");
            all_failed(&request, ErrorCode::RequestTimedOut, reason)
        }
    }
}

/// Every entry of the request failed with `code` and `message`.
fn all_failed(request: &AlterClientQuotasRequest, code: ErrorCode, message: String) -> AlterClientQuotasResponse {
    let entity = |entry: &strand_protocol::messages::alter_client_quotas_request::EntryData| {
        entry
            .entity
            .iter()
            .map(|e| EntityData {
                entity_type: e.entity_type.clone(),
                entity_name: e.entity_name.clone(),
                ..Default::default()
            })
            .collect()
    };
    let entries = request
        .entries
        .iter()
        .map(|entry| EntryData {
            error_code: code.code(),
            error_message: Some(message.clone()),
            entity: entity(entry),
            ..Default::default()
        })
        .collect();
    AlterClientQuotasResponse { entries, ..Default::default() }
}
