//! What handlers ask the authorizer beyond one yes or no ([`Broker::authorize`]): the operations
//! a session may do on a resource, as `*_authorized_operations` fields report them (Kafka's
//! `AuthHelper.authorizedOperations`), and which of a request's names it may act on.
//!
//! What it is not: the decision. That is the [`strand_security::acl::Authorizer`]'s; without one
//! every operation is allowed, as in Kafka.

use std::collections::BTreeSet;

use strand_security::Session;
use strand_security::acl::{AclOperation, CLUSTER_NAME, ResourceType};

use crate::Broker;

/// The operations Kafka supports on a resource type (`AclEntry.supportedOperations`): what a
/// `*_authorized_operations` field may contain.
pub(crate) fn supported_operations(resource_type: ResourceType) -> &'static [AclOperation] {
    use AclOperation::*;
    match resource_type {
        ResourceType::Topic => &[Read, Write, Create, Describe, Delete, Alter, DescribeConfigs, AlterConfigs],
        ResourceType::Group => &[Read, Describe, Delete],
        ResourceType::Cluster => {
            &[Create, ClusterAction, DescribeConfigs, AlterConfigs, IdempotentWrite, Alter, Describe]
        }
        ResourceType::TransactionalId => &[Describe, Write],
        ResourceType::DelegationToken => &[Describe],
        ResourceType::User => &[CreateTokens, DescribeTokens],
        ResourceType::Unknown | ResourceType::Any => &[],
    }
}

/// `operations` as the 32-bit field of their codes (Kafka's `Utils.to32BitField`).
pub(crate) fn operations_field(operations: impl IntoIterator<Item = AclOperation>) -> i32 {
    operations.into_iter().fold(0, |field, operation| field | 1 << operation.code())
}

impl Broker {
    /// The operations `session` may do on `resource_type` / `name`, as a 32-bit field: every
    /// supported one without an authorizer.
    pub(crate) fn authorized_operations(&self, session: &Session, resource_type: ResourceType, name: &str) -> i32 {
        let supported = supported_operations(resource_type).iter().copied();
        operations_field(supported.filter(|&operation| self.authorize(session, operation, resource_type, name)))
    }

    /// The operations `session` may do on the cluster, as Metadata (v8-10) and DescribeCluster
    /// report them: 0 without DESCRIBE on the cluster.
    pub(crate) fn cluster_authorized_operations(&self, session: &Session) -> i32 {
        if !self.authorize_cluster(session, AclOperation::Describe) {
            return 0;
        }
        self.authorized_operations(session, ResourceType::Cluster, CLUSTER_NAME)
    }

    /// The names among `names` on which `session` may do `operation`: one question per distinct
    /// name (Kafka's `AuthHelper.filterByAuthorized`).
    pub(crate) fn authorized_names<'a>(
        &self,
        session: &Session,
        operation: AclOperation,
        resource_type: ResourceType,
        names: impl IntoIterator<Item = &'a str>,
    ) -> BTreeSet<String> {
        let distinct: BTreeSet<&str> = names.into_iter().collect();
        let allowed = distinct.into_iter().filter(|name| self.authorize(session, operation, resource_type, name));
        allowed.map(str::to_owned).collect()
    }

    /// Whether `session` may do `operation` on topic `name`.
    pub(crate) fn authorize_topic(&self, session: &Session, operation: AclOperation, name: &str) -> bool {
        self.authorize(session, operation, ResourceType::Topic, name)
    }
}

/// Config resource types on the wire (Kafka's `ConfigResource.Type`).
const CONFIG_TOPIC: i8 = 2;
const CONFIG_BROKER: i8 = 4;
const CONFIG_BROKER_LOGGER: i8 = 8;
const CONFIG_CLIENT_METRICS: i8 = 16;
const CONFIG_GROUP: i8 = 32;

impl Broker {
    /// Why the session may not do `operation` (DESCRIBE_CONFIGS or ALTER_CONFIGS) on the configs
    /// of resource `resource_type` / `name`, as Kafka's `ConfigHelper` and `authorizeAlterResource`
    /// ask: brokers, broker loggers and client metrics on the cluster, topics and groups on
    /// themselves. `None` for resource types of no resource: the handler answers those.
    pub(crate) fn config_refusal(
        &self,
        session: &Session,
        operation: AclOperation,
        resource_type: i8,
        name: &str,
    ) -> Option<strand_protocol::error::ErrorCode> {
        let (resource, name, code) = config_resource(resource_type, name)?;
        (!self.authorize(session, operation, resource, name)).then_some(code)
    }
}

/// The resource whose ACLs decide on the configs of `resource_type` / `name`, and the error of
/// a refusal, as Kafka's `ConfigHelper` and `authorizeAlterResource` ask: brokers, broker loggers
/// and client metrics on the cluster, topics and groups on themselves. `None` for resource types
/// of no resource.
pub(crate) fn config_resource(
    resource_type: i8,
    name: &str,
) -> Option<(ResourceType, &str, strand_protocol::error::ErrorCode)> {
    use strand_protocol::error::ErrorCode;
    Some(match resource_type {
        CONFIG_TOPIC => (ResourceType::Topic, name, ErrorCode::TopicAuthorizationFailed),
        CONFIG_GROUP => (ResourceType::Group, name, ErrorCode::GroupAuthorizationFailed),
        CONFIG_BROKER | CONFIG_BROKER_LOGGER | CONFIG_CLIENT_METRICS => {
            (ResourceType::Cluster, CLUSTER_NAME, ErrorCode::ClusterAuthorizationFailed)
        }
        _ => return None,
    })
}

/// The entries of `keys` that occur once: a repeated one is the handler's to refuse
/// (INVALID_REQUEST), before Kafka asks the authorizer about it.
pub(crate) fn unique<K: Ord>(keys: impl IntoIterator<Item = K>) -> BTreeSet<K> {
    let mut seen = BTreeSet::new();
    let mut repeated = BTreeSet::new();
    for key in keys {
        if let Some(key) = seen.replace(key) {
            repeated.insert(key);
        }
    }
    seen.retain(|key| !repeated.contains(key));
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without an authorizer a topic reports Kafka's eight topic operations (the constant Kafka
    /// clients see from an unsecured broker: 3576).
    #[test]
    fn topic_operations_field_matches_kafka() {
        assert_eq!(operations_field(supported_operations(ResourceType::Topic).iter().copied()), 3576);
        assert_eq!(operations_field(supported_operations(ResourceType::Group).iter().copied()), 328);
    }
}
