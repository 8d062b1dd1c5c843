//! DeleteAcls, as Kafka's `AclApis.handleDeleteAcls`: ALTER on the cluster, an authorizer
//! configured (else SECURITY_DISABLED), then the active controller removes what each filter
//! matches (`strand_metadata::controller::delete_acls`); the answer comes once this node's image
//! no longer holds them.

use strand_metadata::authorizer::AclFilter;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::delete_acls_response::DeleteAclsFilterResult;
use strand_protocol::messages::{DeleteAclsRequest, DeleteAclsResponse};
use strand_security::Session;
use strand_security::acl::AclOperation;

use super::admin_apis::AdminApis;

/// `Err`: a filter holds a code Kafka does not define, which Kafka refuses when it parses the
/// request (the connection is closed).
pub async fn handle(
    apis: &AdminApis<'_>,
    request: DeleteAclsRequest,
    version: i16,
    session: &Session,
) -> Result<DeleteAclsResponse, String> {
    if let Some(filter) = request.filters.iter().find(|f| AclFilter::of_delete(f).is_unknown()) {
        return Err(format!("DeleteAcls: filter with UNKNOWN elements: {filter:?}"));
    }
    let fail_all = |code: ErrorCode, message: Option<String>| {
        let result = DeleteAclsFilterResult { error_code: code.code(), error_message: message, ..Default::default() };
        DeleteAclsResponse { filter_results: vec![result; request.filters.len()], ..Default::default() }
    };
    if !apis.authorize_cluster(session, AclOperation::Alter) {
        return Ok(fail_all(ErrorCode::ClusterAuthorizationFailed, None));
    }
    if apis.authorizer.is_none() {
        return Ok(fail_all(ErrorCode::SecurityDisabled, Some("No Authorizer is configured.".to_owned())));
    }
    match apis.ask_controller(session, &request, version).await {
        Ok(response) => Ok(response),
        Err(reason) => {
            tracing::warn!("DeleteAcls: {reason}");
            Ok(fail_all(ErrorCode::RequestTimedOut, Some(reason)))
        }
    }
}
