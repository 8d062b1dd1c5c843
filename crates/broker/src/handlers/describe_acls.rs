//! DescribeAcls, as Kafka's `AclApis.handleDescribeAcls`: DESCRIBE on the cluster, an authorizer
//! configured (else SECURITY_DISABLED), then the bindings of this node's image the filter
//! selects, grouped by resource pattern, in resource order.

use std::collections::BTreeMap;

use strand_metadata::authorizer::AclFilter;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::describe_acls_response::{AclDescription, DescribeAclsResource};
use strand_protocol::messages::{DescribeAclsRequest, DescribeAclsResponse};
use strand_security::Session;
use strand_security::acl::{AclOperation, PatternType, ResourceType};

use super::admin_apis::AdminApis;

/// `Err`: the filter holds a code Kafka does not define, which Kafka refuses when it parses the
/// request (the connection is closed).
pub fn handle(
    apis: &AdminApis<'_>,
    request: DescribeAclsRequest,
    session: &Session,
) -> Result<DescribeAclsResponse, String> {
    let filter = AclFilter::of_describe(&request);
    if filter.is_unknown() {
        return Err(format!("DescribeAcls: filter with UNKNOWN elements: {request:?}"));
    }
    let error = |code: ErrorCode, message: Option<&str>| DescribeAclsResponse {
        error_code: code.code(),
        error_message: message.map(str::to_owned),
        ..Default::default()
    };
    if !apis.authorize_cluster(session, AclOperation::Describe) {
        return Ok(error(ErrorCode::ClusterAuthorizationFailed, None));
    }
    if apis.authorizer.is_none() {
        return Ok(error(ErrorCode::SecurityDisabled, Some("No Authorizer is configured on the broker")));
    }
    let image = apis.image();
    let mut resources: BTreeMap<(ResourceType, &str, PatternType), Vec<AclDescription>> = BTreeMap::new();
    for (_, acl) in image.acls().by_resource().filter(|(_, acl)| filter.matches(acl)) {
        let key = (acl.resource_type, acl.resource_name.as_str(), acl.pattern_type);
        resources.entry(key).or_default().push(AclDescription {
            principal: acl.principal.clone(),
            host: acl.host.clone(),
            operation: acl.operation.code(),
            permission_type: acl.permission.code(),
            ..Default::default()
        });
    }
    let resources = resources
        .into_iter()
        .map(|((resource_type, name, pattern_type), acls)| DescribeAclsResource {
            resource_type: resource_type.code(),
            resource_name: name.to_owned(),
            pattern_type: pattern_type.code(),
            acls,
            ..Default::default()
        })
        .collect();
    Ok(DescribeAclsResponse { resources, ..Default::default() })
}
