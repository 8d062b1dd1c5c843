//! Kafka's authorization vocabulary (`org.apache.kafka.common.acl` and `.resource`): what a
//! request wants to do ([`Action`]: an [`AclOperation`] on a resource), and the [`Authorizer`]
//! that decides it for a [`Session`]. The codes are Kafka's wire codes, as CreateAcls,
//! DescribeAcls and `*_authorized_operations` carry them.
//!
//! What it is not: the decision itself. Kafka's `StandardAuthorizer` semantics over the ACLs of
//! the metadata image live above this crate; handlers ask through [`Authorizer`].

use std::fmt;

use crate::Session;

/// Defines a Kafka enum with its wire codes and names; unknown codes read as `Unknown`.
macro_rules! kafka_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $code:literal, $text:literal;)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($variant,)*
        }

        impl $name {
            /// Every value, in code order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The wire code.
            pub fn code(self) -> i8 {
                match self {
                    $($name::$variant => $code,)*
                }
            }

            /// The value of a wire code; `Unknown` for a code Kafka does not define.
            pub fn from_code(code: i8) -> $name {
                match code {
                    $($code => $name::$variant,)*
                    _ => $name::Unknown,
                }
            }

            /// Kafka's name (`TOPIC`, `PREFIXED`, `DESCRIBE_CONFIGS`), as its tools print it.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// Parses Kafka's name, case-insensitively, as Kafka's `fromString` does.
            pub fn parse(text: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|value| value.name().eq_ignore_ascii_case(text))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

kafka_enum! {
    /// Kafka's `ResourceType`.
    ResourceType {
        Unknown = 0, "UNKNOWN";
        Any = 1, "ANY";
        Topic = 2, "TOPIC";
        Group = 3, "GROUP";
        Cluster = 4, "CLUSTER";
        TransactionalId = 5, "TRANSACTIONAL_ID";
        DelegationToken = 6, "DELEGATION_TOKEN";
        User = 7, "USER";
    }
}

kafka_enum! {
    /// Kafka's `PatternType`: how a binding's resource name matches (`Literal`, `Prefixed`), or
    /// how a filter matches bindings (`Any`, `Match`).
    PatternType {
        Unknown = 0, "UNKNOWN";
        Any = 1, "ANY";
        Match = 2, "MATCH";
        Literal = 3, "LITERAL";
        Prefixed = 4, "PREFIXED";
    }
}

kafka_enum! {
    /// Kafka's `AclOperation`.
    AclOperation {
        Unknown = 0, "UNKNOWN";
        Any = 1, "ANY";
        All = 2, "ALL";
        Read = 3, "READ";
        Write = 4, "WRITE";
        Create = 5, "CREATE";
        Delete = 6, "DELETE";
        Alter = 7, "ALTER";
        Describe = 8, "DESCRIBE";
        ClusterAction = 9, "CLUSTER_ACTION";
        DescribeConfigs = 10, "DESCRIBE_CONFIGS";
        AlterConfigs = 11, "ALTER_CONFIGS";
        IdempotentWrite = 12, "IDEMPOTENT_WRITE";
        CreateTokens = 13, "CREATE_TOKENS";
        DescribeTokens = 14, "DESCRIBE_TOKENS";
    }
}

kafka_enum! {
    /// Kafka's `AclPermissionType`.
    AclPermissionType {
        Unknown = 0, "UNKNOWN";
        Any = 1, "ANY";
        Deny = 2, "DENY";
        Allow = 3, "ALLOW";
    }
}

/// The name of the one cluster resource (Kafka's `Resource.CLUSTER_NAME`).
pub const CLUSTER_NAME: &str = "kafka-cluster";

/// The resource name that matches every name of its type in a LITERAL binding (Kafka's
/// `ResourcePattern.WILDCARD_RESOURCE`).
pub const WILDCARD_RESOURCE: &str = "*";

/// The host that matches every host in a binding (Kafka's `AccessControlEntry.WILDCARD_HOST`).
pub const WILDCARD_HOST: &str = "*";

/// One thing a request wants to do: `operation` on the resource `resource_type` / `name`
/// (a topic name, a group id, [`CLUSTER_NAME`], ...). Kafka's `Action`, without its logging
/// flags: every denial is logged by the authorizer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Action {
    pub operation: AclOperation,
    pub resource_type: ResourceType,
    pub name: String,
}

impl Action {
    pub fn new(operation: AclOperation, resource_type: ResourceType, name: impl Into<String>) -> Action {
        Action { operation, resource_type, name: name.into() }
    }

    /// `operation` on the cluster.
    pub fn cluster(operation: AclOperation) -> Action {
        Action::new(operation, ResourceType::Cluster, CLUSTER_NAME)
    }
}

/// Decides whether a session may do an action: Kafka's `Authorizer.authorize`. A node without an
/// authorizer (`authorizer.class.name` unset) has none and allows everything, as Kafka does.
///
/// Implementations answer from memory (the metadata image), without I/O: handlers call it on the
/// request path, once per resource.
pub trait Authorizer: Send + Sync + fmt::Debug {
    /// Whether `session` may do `action`.
    fn authorize(&self, session: &Session, action: &Action) -> bool;

    /// Whether `session` may do `operation` on at least one resource of `resource_type`
    /// (Kafka's `authorizeByResourceType`: an ALLOW binding that no DENY cancels, or being a
    /// super user). Used where Kafka asks "could this principal write any transactional id".
    fn authorize_any(&self, session: &Session, operation: AclOperation, resource_type: ResourceType) -> bool;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_round_trip_as_kafka_writes_them() {
        for &operation in AclOperation::ALL {
            assert_eq!(AclOperation::from_code(operation.code()), operation);
            assert_eq!(AclOperation::parse(&operation.name().to_lowercase()), Some(operation));
        }
        assert_eq!(AclOperation::DescribeConfigs.code(), 10);
        assert_eq!(ResourceType::TransactionalId.name(), "TRANSACTIONAL_ID");
        assert_eq!(PatternType::from_code(4), PatternType::Prefixed);
        assert_eq!(AclPermissionType::from_code(99), AclPermissionType::Unknown);
        assert_eq!(ResourceType::parse("no-such-type"), None);
        assert_eq!(Action::cluster(AclOperation::ClusterAction).name, "kafka-cluster");
    }
}
