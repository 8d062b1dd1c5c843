//! Kafka's `StandardAuthorizer` decision as pure code over the image's ACLs
//! ([`crate::image::AclsImage`]): who may do what, given `super.users`,
//! `allow.everyone.if.no.acl.found` and the bindings that match the resource.
//!
//! - [`AuthorizerSettings`]: the two settings; [`AuthorizerSettings::authorize`] decides one
//!   [`Action`] and says which [`Rule`] decided it (Kafka's audit log names it);
//!   [`AuthorizerSettings::authorize_any`] is Kafka's `authorizeByResourceType`.
//! - [`AclFilter`] (`filter.rs`): Kafka's `AclBindingFilter`, what DescribeAcls and DeleteAcls
//!   match bindings with.
//!
//! The rules, as `StandardAuthorizerData.findAclRule`: a super user is allowed everything; else
//! the bindings on the resource (LITERAL on its name, LITERAL `*`, PREFIXED on a prefix of its
//! name) whose principal is the session's or `User:*` and whose host is the peer's address or
//! `*` are consulted. A DENY of the operation (or ALL) wins; else an ALLOW of it, or of ALL, or
//! of an operation implying it (READ, WRITE, DELETE, ALTER imply DESCRIBE; ALTER_CONFIGS implies
//! DESCRIBE_CONFIGS; implication never applies to DENY) allows. With no binding at all on the
//! resource, `allow.everyone.if.no.acl.found` decides; with bindings but none matching, denied.
//!
//! Not here: IDEMPOTENT_WRITE being granted by WRITE on some topic is Kafka's InitProducerId
//! handler asking `authorize_any(WRITE, TOPIC)` besides IDEMPOTENT_WRITE on the cluster, not a
//! rule of the authorizer; neither is logging (the broker's adapter logs denials).

mod filter;

use std::collections::BTreeSet;
use std::fmt;
use std::net::IpAddr;

use strand_security::KafkaPrincipal;
use strand_security::acl::{
    AclOperation, AclPermissionType, Action, PatternType, ResourceType, WILDCARD_HOST, WILDCARD_RESOURCE,
};

use crate::image::{AclsImage, StandardAcl};

pub use filter::AclFilter;

/// The principal every user matches in a binding (Kafka's `WILDCARD_PRINCIPAL`).
pub const WILDCARD_PRINCIPAL: &str = "User:*";

/// The resource name `authorize_any` asks about first, so that a super user (or
/// `allow.everyone.if.no.acl.found` on an ACL-less type) is allowed whatever the bindings say,
/// as Kafka's `authorizeByResourceType` does.
const ANY_RESOURCE_PROBE: &str = "hardcode";

/// `super.users` and `allow.everyone.if.no.acl.found`, as `StandardAuthorizer.configure` reads
/// them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuthorizerSettings {
    /// Principals (`User:admin`) allowed everything, ACLs or not.
    pub super_users: BTreeSet<String>,
    /// The answer for a resource with no binding at all (default false: denied).
    pub allow_if_no_acl_found: bool,
}

/// What decided a request: Kafka's `MatchingRule`, printed as its audit log prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule<'a> {
    SuperUser,
    /// No binding on the resource: `allow.everyone.if.no.acl.found` decided.
    NoAcl {
        allowed: bool,
    },
    /// This binding decided (a DENY, or the ALLOW that no DENY beat).
    MatchingAcl(&'a StandardAcl),
    /// Bindings on the resource, none for this principal, host and operation.
    NoMatchingAcl,
}

impl Rule<'_> {
    pub fn allowed(&self) -> bool {
        match self {
            Rule::SuperUser => true,
            Rule::NoAcl { allowed } => *allowed,
            Rule::MatchingAcl(acl) => acl.permission == AclPermissionType::Allow,
            Rule::NoMatchingAcl => false,
        }
    }
}

impl fmt::Display for Rule<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::SuperUser => f.write_str("SuperUser"),
            Rule::NoAcl { allowed: true } => f.write_str("DefaultAllow"),
            Rule::NoAcl { allowed: false } | Rule::NoMatchingAcl => f.write_str("DefaultDeny"),
            Rule::MatchingAcl(acl) => write!(f, "MatchingAcl(acl={acl})"),
        }
    }
}

impl AuthorizerSettings {
    /// Whether `principal` may do `action` from `host`, and the rule that says so.
    pub fn authorize<'a>(
        &self,
        acls: &'a AclsImage,
        principal: &KafkaPrincipal,
        host: IpAddr,
        action: &Action,
    ) -> Rule<'a> {
        if self.is_super_user(principal) {
            return Rule::SuperUser;
        }
        let host = java_host_address(host);
        let mut has_resource_acls = false;
        let mut allow = None;
        for acl in acls.matching(action.resource_type, &action.name) {
            has_resource_acls = true;
            match applies(acl, principal, &host, action.operation) {
                Some(AclPermissionType::Deny) => return Rule::MatchingAcl(acl),
                Some(_) => allow = Some(acl),
                None => {}
            }
        }
        match allow {
            Some(acl) => Rule::MatchingAcl(acl),
            None if has_resource_acls => Rule::NoMatchingAcl,
            None => Rule::NoAcl { allowed: self.allow_if_no_acl_found },
        }
    }

    /// Whether `principal` may do `operation` on at least one resource of `resource_type`: Kafka's
    /// `authorizeByResourceType`. Allowed if a probe resource is allowed (super users, or no ACL
    /// and `allow.everyone.if.no.acl.found`), or by a wildcard ALLOW, or by an ALLOW on a
    /// LITERAL name no DENY names and no PREFIXED DENY covers, or on a PREFIXED name no PREFIXED
    /// DENY covers. A wildcard DENY denies. `ANY` or `UNKNOWN` arguments are never allowed.
    pub fn authorize_any(
        &self,
        acls: &AclsImage,
        principal: &KafkaPrincipal,
        host: IpAddr,
        operation: AclOperation,
        resource_type: ResourceType,
    ) -> bool {
        if matches!(operation, AclOperation::Any | AclOperation::Unknown)
            || matches!(resource_type, ResourceType::Any | ResourceType::Unknown)
        {
            return false;
        }
        let probe = Action::new(operation, resource_type, ANY_RESOURCE_PROBE);
        if self.authorize(acls, principal, host, &probe).allowed() {
            return true;
        }
        let host = java_host_address(host);
        let mut denied = (BTreeSet::new(), BTreeSet::new()); // (literal, prefixed) names
        let mut allowed = Vec::new();
        for acl in acls.of_type(resource_type) {
            let principal_matches = acl.principal == WILDCARD_PRINCIPAL || principal_is(principal, &acl.principal);
            let host_matches = acl.host == WILDCARD_HOST || acl.host == host;
            let operation_matches = acl.operation == operation || acl.operation == AclOperation::All;
            if !(principal_matches && host_matches && operation_matches) {
                continue;
            }
            match (acl.permission, acl.pattern_type) {
                (AclPermissionType::Deny, PatternType::Literal) if acl.resource_name == WILDCARD_RESOURCE => {
                    return false;
                }
                (AclPermissionType::Deny, PatternType::Literal) => _ = denied.0.insert(acl.resource_name.as_str()),
                (AclPermissionType::Deny, PatternType::Prefixed) => _ = denied.1.insert(acl.resource_name.as_str()),
                (AclPermissionType::Allow, PatternType::Literal | PatternType::Prefixed) => allowed.push(acl),
                _ => {}
            }
        }
        if allowed.iter().any(|acl| acl.pattern_type == PatternType::Literal && acl.resource_name == WILDCARD_RESOURCE)
        {
            return true;
        }
        allowed.iter().any(|acl| {
            let name = acl.resource_name.as_str();
            let literal_denied = acl.pattern_type == PatternType::Literal && denied.0.contains(name);
            let prefix_denied =
                name.char_indices().map(|(i, c)| &name[..i + c.len_utf8()]).any(|p| denied.1.contains(p));
            !literal_denied && !prefix_denied
        })
    }

    pub fn is_super_user(&self, principal: &KafkaPrincipal) -> bool {
        !self.super_users.is_empty() && self.super_users.contains(&principal.to_string())
    }
}

/// What `acl` says about `operation` for this principal and host: `None` if it does not apply
/// (Kafka's `findResult`).
fn applies(
    acl: &StandardAcl,
    principal: &KafkaPrincipal,
    host: &str,
    operation: AclOperation,
) -> Option<AclPermissionType> {
    if acl.principal != WILDCARD_PRINCIPAL && !principal_is(principal, &acl.principal) {
        return None;
    }
    if acl.host != WILDCARD_HOST && acl.host != host {
        return None;
    }
    let covers = acl.operation == AclOperation::All
        || acl.operation == operation
        || (acl.permission == AclPermissionType::Allow && implies(acl.operation, operation));
    match acl.permission {
        AclPermissionType::Allow | AclPermissionType::Deny if covers => Some(acl.permission),
        _ => None,
    }
}

/// Whether an ALLOW of `granted` also allows `asked`: DESCRIBE by READ, WRITE, DELETE and ALTER;
/// DESCRIBE_CONFIGS by ALTER_CONFIGS.
fn implies(granted: AclOperation, asked: AclOperation) -> bool {
    use AclOperation as Op;
    match asked {
        Op::Describe => matches!(granted, Op::Read | Op::Write | Op::Delete | Op::Alter),
        Op::DescribeConfigs => granted == Op::AlterConfigs,
        _ => false,
    }
}

/// Whether `text` (a binding's `Type:name`) names `principal`.
fn principal_is(principal: &KafkaPrincipal, text: &str) -> bool {
    text.split_once(':').is_some_and(|(kind, name)| kind == principal.principal_type && name == principal.name)
}

/// An address as Java's `InetAddress.getHostAddress` prints it, which is what bindings' hosts
/// are compared with: IPv4 dotted, an IPv4-mapped IPv6 address as IPv4, other IPv6 addresses as
/// eight uncompressed lower-case hex groups (`0:0:0:0:0:0:0:1`).
pub fn java_host_address(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => v6.segments().iter().map(|s| format!("{s:x}")).collect::<Vec<_>>().join(":"),
        },
    }
}

#[cfg(test)]
mod tests;
