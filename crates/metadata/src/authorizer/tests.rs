//! The decision as a table (design §9): bindings, a principal and host, an action; allowed or
//! not, and by which rule. Cases follow Kafka's `StandardAuthorizerTest`.

use std::net::IpAddr;

use strand_base::Uuid;
use strand_security::KafkaPrincipal;
use strand_security::acl::{AclOperation as Op, AclPermissionType, Action, PatternType, ResourceType as Rt};

use super::*;
use crate::image::{AclsImage, MetadataDelta, MetadataImage, MetadataProvenance};

/// One binding, written as `ALLOW User:alice@* READ TOPIC PREFIXED:foo`.
fn binding(text: &str) -> StandardAcl {
    let parts: Vec<&str> = text.split(' ').collect();
    let [permission, who, operation, resource_type, pattern] = parts[..] else { panic!("bad binding {text}") };
    let (principal, host) = who.split_once('@').expect("principal@host");
    let (pattern_type, name) = pattern.split_once(':').expect("pattern:name");
    StandardAcl {
        resource_type: Rt::parse(resource_type).expect("resource type"),
        resource_name: name.to_owned(),
        pattern_type: PatternType::parse(pattern_type).expect("pattern type"),
        principal: principal.to_owned(),
        host: host.to_owned(),
        operation: Op::parse(operation).expect("operation"),
        permission: AclPermissionType::parse(permission).expect("permission"),
    }
}

/// The image's ACLs after replaying `bindings` as records.
fn acls(bindings: &[&str]) -> AclsImage {
    let mut delta = MetadataDelta::new(&MetadataImage::empty());
    for (i, text) in bindings.iter().enumerate() {
        let record = binding(text).to_record(Uuid((i as u128 + 1).to_be_bytes()));
        delta
            .replay(&strand_protocol::messages::records::MetadataRecord::AccessControlEntryRecord(record))
            .expect("replay");
    }
    delta.apply(MetadataProvenance { offset: 1, epoch: 1 }).acls().clone()
}

fn settings(super_users: &[&str], allow_if_no_acl_found: bool) -> AuthorizerSettings {
    AuthorizerSettings { super_users: super_users.iter().map(|s| s.to_string()).collect(), allow_if_no_acl_found }
}

const HOST: &str = "10.0.0.1";
const ALICE_READS_ORDERS: &str = "ALLOW User:alice@* READ TOPIC LITERAL:orders";

/// `(bindings, principal, operation, resource type, name, expected rule)`; the host is [`HOST`],
/// the settings: super user `User:admin`, `allow.everyone.if.no.acl.found=false`.
type Case = (&'static [&'static str], &'static str, Op, Rt, &'static str, &'static str);

#[test]
fn decisions_follow_kafkas_standard_authorizer() {
    let cases: &[Case] = &[
        // No binding: denied by default; a super user is allowed anyway.
        (&[], "User:alice", Op::Read, Rt::Topic, "orders", "DefaultDeny"),
        (&[], "User:admin", Op::Alter, Rt::Cluster, "kafka-cluster", "SuperUser"),
        (&["DENY User:admin@* ALL TOPIC LITERAL:*"], "User:admin", Op::Read, Rt::Topic, "orders", "SuperUser"),
        // LITERAL: the name exactly, not a longer or shorter one, nor another type.
        (&[ALICE_READS_ORDERS], "User:alice", Op::Read, Rt::Topic, "orders", "ALLOW"),
        (&[ALICE_READS_ORDERS], "User:alice", Op::Read, Rt::Topic, "orders2", "DefaultDeny"),
        (&[ALICE_READS_ORDERS], "User:alice", Op::Read, Rt::Topic, "order", "DefaultDeny"),
        (&[ALICE_READS_ORDERS], "User:alice", Op::Read, Rt::Group, "orders", "DefaultDeny"),
        // Another principal, or another operation, on a resource with bindings: denied.
        (&[ALICE_READS_ORDERS], "User:bob", Op::Read, Rt::Topic, "orders", "DefaultDeny"),
        (&[ALICE_READS_ORDERS], "User:alice", Op::Write, Rt::Topic, "orders", "DefaultDeny"),
        (&[ALICE_READS_ORDERS], "Group:alice", Op::Read, Rt::Topic, "orders", "DefaultDeny"),
        // PREFIXED and the `*` wildcard; `User:*`.
        (&["ALLOW User:alice@* WRITE TOPIC PREFIXED:pay"], "User:alice", Op::Write, Rt::Topic, "payments", "ALLOW"),
        (&["ALLOW User:alice@* WRITE TOPIC PREFIXED:pay"], "User:alice", Op::Write, Rt::Topic, "pa", "DefaultDeny"),
        (&["ALLOW User:alice@* WRITE TOPIC LITERAL:*"], "User:alice", Op::Write, Rt::Topic, "anything", "ALLOW"),
        (&["ALLOW User:*@* READ GROUP LITERAL:g"], "User:carol", Op::Read, Rt::Group, "g", "ALLOW"),
        // `User:*` matches every principal, of any type (Kafka's `matchingPrincipals`).
        (&["ALLOW User:*@* READ GROUP LITERAL:g"], "Group:carol", Op::Read, Rt::Group, "g", "ALLOW"),
        // Hosts: the peer's address or `*`.
        (&["ALLOW User:alice@10.0.0.1 READ TOPIC LITERAL:t"], "User:alice", Op::Read, Rt::Topic, "t", "ALLOW"),
        (&["ALLOW User:alice@10.0.0.2 READ TOPIC LITERAL:t"], "User:alice", Op::Read, Rt::Topic, "t", "DefaultDeny"),
        // DENY beats ALLOW, wherever each comes from.
        (
            &["ALLOW User:alice@* READ TOPIC LITERAL:t", "DENY User:alice@* READ TOPIC PREFIXED:"],
            "User:alice",
            Op::Read,
            Rt::Topic,
            "t",
            "DENY",
        ),
        (
            &["ALLOW User:alice@* ALL TOPIC PREFIXED:t", "DENY User:*@10.0.0.1 WRITE TOPIC LITERAL:*"],
            "User:alice",
            Op::Write,
            Rt::Topic,
            "t1",
            "DENY",
        ),
        (
            &["ALLOW User:alice@* ALL TOPIC PREFIXED:t", "DENY User:*@10.0.0.9 WRITE TOPIC LITERAL:*"],
            "User:alice",
            Op::Write,
            Rt::Topic,
            "t1",
            "ALLOW",
        ),
        // Implications: only for ALLOW.
        (&[ALICE_READS_ORDERS], "User:alice", Op::Describe, Rt::Topic, "orders", "ALLOW"),
        (&["ALLOW User:alice@* ALTER TOPIC LITERAL:t"], "User:alice", Op::Describe, Rt::Topic, "t", "ALLOW"),
        (&["ALLOW User:alice@* DELETE TOPIC LITERAL:t"], "User:alice", Op::Describe, Rt::Topic, "t", "ALLOW"),
        (&["ALLOW User:alice@* CREATE TOPIC LITERAL:t"], "User:alice", Op::Describe, Rt::Topic, "t", "DefaultDeny"),
        (
            &["ALLOW User:alice@* ALTER_CONFIGS TOPIC LITERAL:t"],
            "User:alice",
            Op::DescribeConfigs,
            Rt::Topic,
            "t",
            "ALLOW",
        ),
        (
            &["ALLOW User:alice@* DESCRIBE_CONFIGS TOPIC LITERAL:t"],
            "User:alice",
            Op::AlterConfigs,
            Rt::Topic,
            "t",
            "DefaultDeny",
        ),
        (
            &["ALLOW User:alice@* DESCRIBE TOPIC LITERAL:t", "DENY User:alice@* READ TOPIC LITERAL:t"],
            "User:alice",
            Op::Describe,
            Rt::Topic,
            "t",
            "ALLOW",
        ),
        (
            &["ALLOW User:alice@* ALL CLUSTER LITERAL:kafka-cluster"],
            "User:alice",
            Op::Alter,
            Rt::Cluster,
            "kafka-cluster",
            "ALLOW",
        ),
        (
            &["DENY User:alice@* ALL TOPIC LITERAL:t", ALICE_READS_ORDERS],
            "User:alice",
            Op::Describe,
            Rt::Topic,
            "t",
            "DENY",
        ),
        // IDEMPOTENT_WRITE is not implied by WRITE: Kafka's InitProducerId asks for both.
        (
            &["ALLOW User:alice@* WRITE TOPIC LITERAL:*"],
            "User:alice",
            Op::IdempotentWrite,
            Rt::Cluster,
            "kafka-cluster",
            "DefaultDeny",
        ),
    ];
    let settings = settings(&["User:admin"], false);
    let host: IpAddr = HOST.parse().expect("an address");
    for (i, &(bindings, principal, operation, resource_type, name, expected)) in cases.iter().enumerate() {
        let acls = acls(bindings);
        let principal = KafkaPrincipal::parse(principal).expect("principal");
        let rule = settings.authorize(&acls, &principal, host, &Action::new(operation, resource_type, name));
        let got = match rule {
            Rule::MatchingAcl(acl) => acl.permission.name().to_owned(),
            other => other.to_string(),
        };
        assert_eq!(got, expected, "case {i}: {bindings:?} {principal} {operation} {resource_type}:{name}");
        assert_eq!(rule.allowed(), matches!(expected, "ALLOW" | "SuperUser" | "DefaultAllow"), "case {i}");
    }
}

/// `allow.everyone.if.no.acl.found` applies only to resources with no binding at all.
#[test]
fn allow_everyone_applies_only_where_no_binding_exists() {
    let settings = settings(&[], true);
    let acls = acls(&["ALLOW User:bob@* READ TOPIC PREFIXED:secret"]);
    let alice = KafkaPrincipal::user("alice");
    let host: IpAddr = HOST.parse().expect("an address");
    let read = |name: &str| settings.authorize(&acls, &alice, host, &Action::new(Op::Read, Rt::Topic, name));
    assert_eq!(read("public"), Rule::NoAcl { allowed: true });
    assert_eq!(read("secret-plans"), Rule::NoMatchingAcl);
    let bob = KafkaPrincipal::user("bob");
    let rule = settings.authorize(&acls, &bob, host, &Action::new(Op::Describe, Rt::Topic, "secret-plans"));
    assert_eq!(
        rule.to_string(),
        "MatchingAcl(acl=StandardAcl(resourceType=TOPIC, resourceName=secret, patternType=PREFIXED, \
         principal=User:bob, host=*, operation=READ, permissionType=ALLOW))"
    );
}

#[test]
fn hosts_compare_as_java_prints_addresses() {
    assert_eq!(java_host_address("::1".parse().expect("an address")), "0:0:0:0:0:0:0:1");
    assert_eq!(java_host_address("::ffff:10.1.2.3".parse().expect("an address")), "10.1.2.3");
    assert_eq!(java_host_address("fe80::ab:1".parse().expect("an address")), "fe80:0:0:0:0:0:ab:1");
    let acls = acls(&["ALLOW User:alice@0:0:0:0:0:0:0:1 READ TOPIC LITERAL:t"]);
    let rule = settings(&[], false).authorize(
        &acls,
        &KafkaPrincipal::user("alice"),
        "::1".parse().expect("an address"),
        &Action::new(Op::Read, Rt::Topic, "t"),
    );
    assert!(rule.allowed());
}

/// Kafka's `authorizeByResourceType`, as `AuthorizerTest.testAuthorizeByResourceType*` checks it.
#[test]
fn authorize_any_follows_authorize_by_resource_type() {
    let cases: &[(&[&str], bool)] = &[
        (&[], false),
        (&["ALLOW User:alice@* WRITE TOPIC LITERAL:t"], true),
        (&["ALLOW User:alice@* ALL TOPIC PREFIXED:t"], true),
        (&["ALLOW User:bob@* WRITE TOPIC LITERAL:t"], false),
        (&["ALLOW User:alice@* READ TOPIC LITERAL:t"], false),
        (&["ALLOW User:alice@10.9.9.9 WRITE TOPIC LITERAL:t"], false),
        (&["ALLOW User:*@* WRITE TOPIC LITERAL:t"], true),
        (&["ALLOW User:alice@* WRITE TOPIC LITERAL:t", "DENY User:alice@* WRITE TOPIC LITERAL:t"], false),
        (&["ALLOW User:alice@* WRITE TOPIC LITERAL:t1", "DENY User:alice@* WRITE TOPIC PREFIXED:t"], false),
        (&["ALLOW User:alice@* WRITE TOPIC PREFIXED:t1", "DENY User:alice@* WRITE TOPIC LITERAL:t1"], true),
        (&["ALLOW User:alice@* WRITE TOPIC PREFIXED:t1", "DENY User:alice@* WRITE TOPIC PREFIXED:t"], false),
        (
            &[
                "ALLOW User:alice@* WRITE TOPIC LITERAL:t",
                "ALLOW User:alice@* WRITE TOPIC LITERAL:u",
                "DENY User:alice@* WRITE TOPIC LITERAL:t",
            ],
            true,
        ),
        (&["ALLOW User:alice@* WRITE TOPIC LITERAL:*"], true),
        (&["ALLOW User:alice@* WRITE TOPIC LITERAL:t", "DENY User:*@* ALL TOPIC LITERAL:*"], false),
        (&["ALLOW User:alice@* WRITE GROUP LITERAL:t"], false),
    ];
    let host: IpAddr = HOST.parse().expect("an address");
    let alice = KafkaPrincipal::user("alice");
    for (i, &(bindings, expected)) in cases.iter().enumerate() {
        let acls = acls(bindings);
        let got = settings(&[], false).authorize_any(&acls, &alice, host, Op::Write, Rt::Topic);
        assert_eq!(got, expected, "case {i}: {bindings:?}");
    }
    let acls = acls(&["DENY User:admin@* ALL TOPIC LITERAL:*"]);
    let admin = KafkaPrincipal::user("admin");
    assert!(settings(&["User:admin"], false).authorize_any(&acls, &admin, host, Op::Write, Rt::Topic));
    assert!(settings(&[], true).authorize_any(&AclsImage::default(), &alice, host, Op::Write, Rt::Topic));
    assert!(!settings(&[], true).authorize_any(&AclsImage::default(), &alice, host, Op::Any, Rt::Topic));
}

/// Filters as Kafka's `AclBindingFilter`: ANY matches a name exactly, MATCH finds what applies.
#[test]
fn filters_select_as_kafkas_acl_binding_filter() {
    let acls = acls(&[
        "ALLOW User:alice@* READ TOPIC LITERAL:orders",
        "ALLOW User:alice@* READ TOPIC LITERAL:*",
        "ALLOW User:bob@* WRITE TOPIC PREFIXED:ord",
        "DENY User:bob@1.2.3.4 READ GROUP LITERAL:orders",
    ]);
    let filter = |resource_type, name: Option<&str>, pattern_type, principal: Option<&str>| AclFilter {
        resource_type,
        name: name.map(str::to_owned),
        pattern_type,
        principal: principal.map(str::to_owned),
        host: None,
        operation: Op::Any,
        permission: AclPermissionType::Any,
    };
    let count = |f: AclFilter| acls.iter().filter(|(_, acl)| f.matches(acl)).count();
    assert_eq!(count(filter(Rt::Any, None, PatternType::Any, None)), 4);
    assert_eq!(count(filter(Rt::Topic, Some("orders"), PatternType::Any, None)), 1);
    assert_eq!(count(filter(Rt::Topic, Some("orders"), PatternType::Match, None)), 3);
    assert_eq!(count(filter(Rt::Topic, Some("ord"), PatternType::Prefixed, None)), 1);
    assert_eq!(count(filter(Rt::Topic, None, PatternType::Literal, None)), 2);
    assert_eq!(count(filter(Rt::Any, None, PatternType::Any, Some("User:bob"))), 2);
    assert_eq!(count(filter(Rt::Group, Some("orders"), PatternType::Match, None)), 1);
}
