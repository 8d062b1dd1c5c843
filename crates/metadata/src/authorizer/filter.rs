//! [`AclFilter`]: Kafka's `AclBindingFilter` (a `ResourcePatternFilter` and an
//! `AccessControlEntryFilter`), which DescribeAcls and DeleteAcls match bindings with.

use strand_protocol::messages::DescribeAclsRequest;
use strand_protocol::messages::delete_acls_request::DeleteAclsFilter;
use strand_security::acl::{AclOperation, AclPermissionType, PatternType, ResourceType, WILDCARD_RESOURCE};

use crate::image::StandardAcl;

/// Which bindings a DescribeAcls or a DeleteAcls filter selects. `None` and the `Any` values
/// match everything; pattern type `Match` selects the bindings that would apply to the named
/// resource (LITERAL on the name or `*`, PREFIXED on a prefix of it); any other pattern type
/// selects bindings of that type on exactly the name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AclFilter {
    pub resource_type: ResourceType,
    pub name: Option<String>,
    pub pattern_type: PatternType,
    pub principal: Option<String>,
    pub host: Option<String>,
    pub operation: AclOperation,
    pub permission: AclPermissionType,
}

impl AclFilter {
    /// A DescribeAcls request's filter.
    pub fn of_describe(request: &DescribeAclsRequest) -> AclFilter {
        AclFilter {
            resource_type: ResourceType::from_code(request.resource_type_filter),
            name: request.resource_name_filter.clone(),
            pattern_type: PatternType::from_code(request.pattern_type_filter),
            principal: request.principal_filter.clone(),
            host: request.host_filter.clone(),
            operation: AclOperation::from_code(request.operation),
            permission: AclPermissionType::from_code(request.permission_type),
        }
    }

    /// One of a DeleteAcls request's filters.
    pub fn of_delete(filter: &DeleteAclsFilter) -> AclFilter {
        AclFilter {
            resource_type: ResourceType::from_code(filter.resource_type_filter),
            name: filter.resource_name_filter.clone(),
            pattern_type: PatternType::from_code(filter.pattern_type_filter),
            principal: filter.principal_filter.clone(),
            host: filter.host_filter.clone(),
            operation: AclOperation::from_code(filter.operation),
            permission: AclPermissionType::from_code(filter.permission_type),
        }
    }

    /// Whether a field holds a value Kafka does not define (its requests refuse such filters when
    /// they are parsed).
    pub fn is_unknown(&self) -> bool {
        self.resource_type == ResourceType::Unknown
            || self.pattern_type == PatternType::Unknown
            || self.operation == AclOperation::Unknown
            || self.permission == AclPermissionType::Unknown
    }

    /// Whether `acl` is selected (Kafka's `AclBindingFilter.matches`).
    pub fn matches(&self, acl: &StandardAcl) -> bool {
        self.matches_pattern(acl) && self.matches_entry(acl)
    }

    fn matches_pattern(&self, acl: &StandardAcl) -> bool {
        if self.resource_type != ResourceType::Any && self.resource_type != acl.resource_type {
            return false;
        }
        let pattern = self.pattern_type;
        if !matches!(pattern, PatternType::Any | PatternType::Match) && pattern != acl.pattern_type {
            return false;
        }
        let Some(name) = &self.name else { return true };
        if pattern == PatternType::Any || pattern == acl.pattern_type {
            return *name == acl.resource_name;
        }
        match acl.pattern_type {
            PatternType::Literal => *name == acl.resource_name || acl.resource_name == WILDCARD_RESOURCE,
            PatternType::Prefixed => name.starts_with(acl.resource_name.as_str()),
            _ => false,
        }
    }

    fn matches_entry(&self, acl: &StandardAcl) -> bool {
        self.principal.as_ref().is_none_or(|p| *p == acl.principal)
            && self.host.as_ref().is_none_or(|h| *h == acl.host)
            && (self.operation == AclOperation::Any || self.operation == acl.operation)
            && (self.permission == AclPermissionType::Any || self.permission == acl.permission)
    }
}
