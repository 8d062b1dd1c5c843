//! CreateAcls and DeleteAcls, as Kafka's `AclControlManager` decides them (with the checks
//! Kafka's `AclApis` and its request classes make first).
//!
//! CreateAcls: a request holding a creation that no binding can be (resource type ANY, pattern
//! type MATCH or ANY, operation or permission ANY) fails whole with UNKNOWN_SERVER_ERROR, as
//! Kafka's `AclBinding` constructors throw; else each creation on its own: the CLUSTER resource
//! must be named `kafka-cluster`, a name must not be empty (INVALID_REQUEST with Kafka's
//! messages). A binding that exists already, or twice in the request, succeeds without a second
//! record. Each new binding gets an id no binding has; more than
//! [`RECORDS_PER_REQUEST_MAX`](super::RECORDS_PER_REQUEST_MAX) records refuse the request whole
//! (POLICY_VIOLATION, as Kafka's controller refuses a batch past its bounded list).
//!
//! DeleteAcls: each filter removes the bindings it matches ([`AclFilter`]), listed in resource
//! order; a binding matched by two filters is listed by both and removed once. A filter whose
//! removals would take the request past the record limit fails with UNKNOWN_SERVER_ERROR and
//! removes nothing.

use std::collections::BTreeSet;

use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_acls_request::AclCreation;
use strand_protocol::messages::create_acls_response::AclCreationResult;
use strand_protocol::messages::delete_acls_response::{DeleteAclsFilterResult, DeleteAclsMatchingAcl};
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{
    CreateAclsRequest, CreateAclsResponse, DeleteAclsRequest, DeleteAclsResponse, RemoveAccessControlEntryRecord,
};
use strand_security::acl::{AclOperation, AclPermissionType, CLUSTER_NAME, PatternType, ResourceType};

use super::{ApiError, ApiMessageAndVersion, ControllerResult, RECORDS_PER_REQUEST_MAX, TOPIC_ID_ATTEMPTS_MAX};
use crate::authorizer::AclFilter;
use crate::image::{MetadataImage, StandardAcl};

/// Kafka's message for a decision past its bounded record list.
const TOO_LARGE: &str = "Unable to perform excessively large batch operation.";

/// Creates the bindings of `request`; `new_id` draws ids (retried while one is in use).
pub fn create_acls(
    image: &MetadataImage,
    request: &CreateAclsRequest,
    new_id: &mut dyn FnMut() -> Uuid,
) -> ControllerResult<CreateAclsResponse> {
    let respond = |results| CreateAclsResponse { results, ..Default::default() };
    if request.creations.iter().any(is_no_binding) {
        let failed = request.creations.iter().map(|_| result(Some(ApiError::bare(ErrorCode::UnknownServerError))));
        return ControllerResult { records: Vec::new(), response: respond(failed.collect()) };
    }
    let mut records = Vec::new();
    let mut added: BTreeSet<StandardAcl> = BTreeSet::new();
    let mut ids: BTreeSet<Uuid> = BTreeSet::new();
    let mut results = Vec::with_capacity(request.creations.len());
    for creation in &request.creations {
        let acl = match validate(creation) {
            Ok(acl) => acl,
            Err(error) => {
                results.push(result(Some(error)));
                continue;
            }
        };
        if image.acls().contains(&acl) || added.contains(&acl) {
            results.push(result(None));
            continue;
        }
        let fresh = |id: &Uuid| *id != Uuid::ZERO && image.acls().get(id).is_none() && !ids.contains(id);
        let Some(id) = (0..TOPIC_ID_ATTEMPTS_MAX).map(|_| new_id()).find(fresh) else {
            results.push(result(Some(ApiError::bare(ErrorCode::UnknownServerError))));
            continue;
        };
        ids.insert(id);
        records.push(ApiMessageAndVersion::latest(MetadataRecord::AccessControlEntryRecord(acl.to_record(id))));
        added.insert(acl);
        results.push(result(None));
    }
    if records.len() > RECORDS_PER_REQUEST_MAX {
        let error = ApiError::new(ErrorCode::PolicyViolation, TOO_LARGE);
        let failed = request.creations.iter().map(|_| result(Some(error.clone())));
        return ControllerResult { records: Vec::new(), response: respond(failed.collect()) };
    }
    ControllerResult { records, response: respond(results) }
}

/// Removes the bindings `request`'s filters match.
pub fn delete_acls(image: &MetadataImage, request: &DeleteAclsRequest) -> ControllerResult<DeleteAclsResponse> {
    let mut removed: BTreeSet<Uuid> = BTreeSet::new();
    let mut filter_results = Vec::with_capacity(request.filters.len());
    for filter in &request.filters {
        let filter = AclFilter::of_delete(filter);
        if filter.is_unknown() {
            let message =
                if filter.resource_type == ResourceType::Unknown || filter.pattern_type == PatternType::Unknown {
                    "Unknown patternFilter."
                } else {
                    "Unknown entryFilter."
                };
            filter_results.push(filter_result(Some(ApiError::new(ErrorCode::InvalidRequest, message)), Vec::new()));
            continue;
        }
        let matched: Vec<(&Uuid, &StandardAcl)> =
            image.acls().by_resource().filter(|(_, acl)| filter.matches(acl)).collect();
        let new = matched.iter().filter(|(id, _)| !removed.contains(*id)).count();
        if removed.len() + new > RECORDS_PER_REQUEST_MAX {
            let message =
                format!("Cannot remove more than {RECORDS_PER_REQUEST_MAX} acls in a single delete operation.");
            filter_results.push(filter_result(Some(ApiError::new(ErrorCode::UnknownServerError, message)), Vec::new()));
            continue;
        }
        removed.extend(matched.iter().map(|(id, _)| **id));
        filter_results.push(filter_result(None, matched.into_iter().map(|(_, acl)| matching_acl(acl)).collect()));
    }
    let records = removed
        .into_iter()
        .map(|id| {
            let record = RemoveAccessControlEntryRecord { id, ..Default::default() };
            ApiMessageAndVersion::latest(MetadataRecord::RemoveAccessControlEntryRecord(record))
        })
        .collect();
    ControllerResult { records, response: DeleteAclsResponse { filter_results, ..Default::default() } }
}

/// Whether `creation` cannot even be built as an `AclBinding` in Kafka (its constructors throw).
fn is_no_binding(creation: &AclCreation) -> bool {
    ResourceType::from_code(creation.resource_type) == ResourceType::Any
        || matches!(PatternType::from_code(creation.resource_pattern_type), PatternType::Match | PatternType::Any)
        || AclOperation::from_code(creation.operation) == AclOperation::Any
        || AclPermissionType::from_code(creation.permission_type) == AclPermissionType::Any
}

/// The binding `creation` asks for, or why it cannot be created (`AclApis.handleCreateAcls`,
/// then `AclControlManager.validateNewAcl`).
fn validate(creation: &AclCreation) -> Result<StandardAcl, ApiError> {
    let invalid = |message: String| Err(ApiError::new(ErrorCode::InvalidRequest, message));
    let acl = StandardAcl {
        resource_type: ResourceType::from_code(creation.resource_type),
        resource_name: creation.resource_name.clone(),
        pattern_type: PatternType::from_code(creation.resource_pattern_type),
        principal: creation.principal.clone(),
        host: creation.host.clone(),
        operation: AclOperation::from_code(creation.operation),
        permission: AclPermissionType::from_code(creation.permission_type),
    };
    if acl.resource_type == ResourceType::Cluster && acl.resource_name != CLUSTER_NAME {
        return invalid(format!("The only valid name for the CLUSTER resource is {CLUSTER_NAME}"));
    }
    if acl.resource_name.is_empty() {
        return invalid("Invalid empty resource name".to_owned());
    }
    if matches!(acl.resource_type, ResourceType::Unknown | ResourceType::Any) {
        return invalid(format!("Invalid resourceType {}", acl.resource_type));
    }
    if !matches!(acl.pattern_type, PatternType::Literal | PatternType::Prefixed) {
        return invalid(format!("Invalid patternType {}", acl.pattern_type));
    }
    if matches!(acl.operation, AclOperation::Unknown | AclOperation::Any) {
        return invalid(format!("Invalid operation {}", acl.operation));
    }
    if !matches!(acl.permission, AclPermissionType::Allow | AclPermissionType::Deny) {
        return invalid(format!("Invalid permissionType {}", acl.permission));
    }
    Ok(acl)
}

fn result(error: Option<ApiError>) -> AclCreationResult {
    let (code, message) = error.map_or((ErrorCode::None, None), |e| (e.code, e.message));
    AclCreationResult { error_code: code.code(), error_message: message, ..Default::default() }
}

fn filter_result(error: Option<ApiError>, matching_acls: Vec<DeleteAclsMatchingAcl>) -> DeleteAclsFilterResult {
    let (code, message) = error.map_or((ErrorCode::None, None), |e| (e.code, e.message));
    DeleteAclsFilterResult { error_code: code.code(), error_message: message, matching_acls, ..Default::default() }
}

fn matching_acl(acl: &StandardAcl) -> DeleteAclsMatchingAcl {
    DeleteAclsMatchingAcl {
        error_code: 0,
        error_message: None,
        resource_type: acl.resource_type.code(),
        resource_name: acl.resource_name.clone(),
        pattern_type: acl.pattern_type.code(),
        principal: acl.principal.clone(),
        host: acl.host.clone(),
        operation: acl.operation.code(),
        permission_type: acl.permission.code(),
        ..Default::default()
    }
}
