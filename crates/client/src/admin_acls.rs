//! The ACL calls of Kafka's `Admin` that `kafka-acls` makes: `createAcls`, `describeAcls` and
//! `deleteAcls`, each sent to any broker (which forwards the changes to the controller) or to
//! a controller.

use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_acls_request::AclCreation;
use strand_protocol::messages::delete_acls_request::DeleteAclsFilter;
use strand_protocol::messages::{CreateAclsRequest, DeleteAclsRequest, DescribeAclsRequest};
use strand_security::acl::{AclOperation, AclPermissionType, PatternType, ResourceType};

use crate::{Admin, ClientError};

/// A resource pattern (Kafka's `ResourcePattern`, or a `ResourcePatternFilter` whose pattern
/// type may be ANY or MATCH and whose name may be any, `None`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourcePattern {
    pub resource_type: ResourceType,
    pub name: Option<String>,
    pub pattern_type: PatternType,
}

/// An access control entry (Kafka's `AccessControlEntry`, or its filter with `None` for any
/// principal or host and ANY for any operation or permission).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AccessControlEntry {
    pub principal: Option<String>,
    pub host: Option<String>,
    pub operation: AclOperation,
    pub permission: AclPermissionType,
}

/// A binding: an entry on a pattern.
pub type AclBinding = (ResourcePattern, AccessControlEntry);

impl Admin {
    /// Creates `bindings`: each one's outcome, in order.
    pub async fn create_acls(&self, bindings: &[AclBinding]) -> Result<Vec<Result<(), ClientError>>, ClientError> {
        let request = RequestBody::CreateAcls(CreateAclsRequest {
            creations: bindings
                .iter()
                .map(|(pattern, entry)| AclCreation {
                    resource_type: pattern.resource_type.code(),
                    resource_name: pattern.name.clone().unwrap_or_default(),
                    resource_pattern_type: pattern.pattern_type.code(),
                    principal: entry.principal.clone().unwrap_or_default(),
                    host: entry.host.clone().unwrap_or_default(),
                    operation: entry.operation.code(),
                    permission_type: entry.permission.code(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        });
        let response = self.client().retrying("createAcls", || self.call_either(&request)).await?;
        let ResponseBody::CreateAcls(response) = response else {
            return Err(ClientError::Config("not a CreateAcls response".into()));
        };
        Ok(response
            .results
            .into_iter()
            .map(|r| ClientError::from_response(r.error_code, r.error_message.as_deref()).map_or(Ok(()), Err))
            .collect())
    }

    /// The bindings `filter` matches.
    pub async fn describe_acls(&self, filter: &AclBinding) -> Result<Vec<AclBinding>, ClientError> {
        let (pattern, entry) = filter;
        let request = RequestBody::DescribeAcls(DescribeAclsRequest {
            resource_type_filter: pattern.resource_type.code(),
            resource_name_filter: pattern.name.clone(),
            pattern_type_filter: pattern.pattern_type.code(),
            principal_filter: entry.principal.clone(),
            host_filter: entry.host.clone(),
            operation: entry.operation.code(),
            permission_type: entry.permission.code(),
            ..Default::default()
        });
        let response = self.client().retrying("describeAcls", || self.call_either(&request)).await?;
        let ResponseBody::DescribeAcls(response) = response else {
            return Err(ClientError::Config("not a DescribeAcls response".into()));
        };
        if let Some(error) = ClientError::from_response(response.error_code, response.error_message.as_deref()) {
            return Err(error);
        }
        Ok(response
            .resources
            .into_iter()
            .flat_map(|r| {
                let pattern = ResourcePattern {
                    resource_type: ResourceType::from_code(r.resource_type),
                    name: Some(r.resource_name),
                    pattern_type: PatternType::from_code(r.pattern_type),
                };
                r.acls.into_iter().map(move |a| {
                    let entry = AccessControlEntry {
                        principal: Some(a.principal),
                        host: Some(a.host),
                        operation: AclOperation::from_code(a.operation),
                        permission: AclPermissionType::from_code(a.permission_type),
                    };
                    (pattern.clone(), entry)
                })
            })
            .collect())
    }

    /// Deletes the bindings each of `filters` matches: each filter's outcome, in order.
    pub async fn delete_acls(&self, filters: &[AclBinding]) -> Result<Vec<Result<(), ClientError>>, ClientError> {
        let request = RequestBody::DeleteAcls(DeleteAclsRequest {
            filters: filters
                .iter()
                .map(|(pattern, entry)| DeleteAclsFilter {
                    resource_type_filter: pattern.resource_type.code(),
                    resource_name_filter: pattern.name.clone(),
                    pattern_type_filter: pattern.pattern_type.code(),
                    principal_filter: entry.principal.clone(),
                    host_filter: entry.host.clone(),
                    operation: entry.operation.code(),
                    permission_type: entry.permission.code(),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        });
        let response = self.client().retrying("deleteAcls", || self.call_either(&request)).await?;
        let ResponseBody::DeleteAcls(response) = response else {
            return Err(ClientError::Config("not a DeleteAcls response".into()));
        };
        Ok(response
            .filter_results
            .into_iter()
            .map(|r| ClientError::from_response(r.error_code, r.error_message.as_deref()).map_or(Ok(()), Err))
            .collect())
    }
}
