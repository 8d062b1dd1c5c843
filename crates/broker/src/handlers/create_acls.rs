//! CreateAcls, as Kafka's `AclApis.handleCreateAcls`: ALTER on the cluster, an authorizer
//! configured (else SECURITY_DISABLED), then the active controller decides and writes the
//! bindings (`strand_metadata::controller::create_acls`); the answer comes once this node's
//! image holds them.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_acls_response::AclCreationResult;
use strand_protocol::messages::{CreateAclsRequest, CreateAclsResponse};
use strand_security::Session;
use strand_security::acl::{AclOperation, AclPermissionType, PatternType, ResourceType};

use super::admin_apis::AdminApis;

/// `Err`: a creation holds a code Kafka does not define, which Kafka refuses when it parses the
/// request (the connection is closed).
pub async fn handle(
    apis: &AdminApis<'_>,
    request: CreateAclsRequest,
    version: i16,
    session: &Session,
) -> Result<CreateAclsResponse, String> {
    if let Some(creation) = request.creations.iter().find(|c| {
        ResourceType::from_code(c.resource_type) == ResourceType::Unknown
            || PatternType::from_code(c.resource_pattern_type) == PatternType::Unknown
            || AclOperation::from_code(c.operation) == AclOperation::Unknown
            || AclPermissionType::from_code(c.permission_type) == AclPermissionType::Unknown
    }) {
        return Err(format!("CreateAcls: creation with UNKNOWN elements: {creation:?}"));
    }
    let fail_all = |code: ErrorCode, message: Option<String>| {
        let result = AclCreationResult { error_code: code.code(), error_message: message, ..Default::default() };
        CreateAclsResponse { results: vec![result; request.creations.len()], ..Default::default() }
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
            tracing::warn!("CreateAcls: {reason}");
            Ok(fail_all(ErrorCode::RequestTimedOut, Some(reason)))
        }
    }
}
