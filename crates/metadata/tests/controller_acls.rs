//! CreateAcls and DeleteAcls as Kafka's `AclControlManager` (and `AclApis` before it) decide
//! them, and the ACL part of the image they build: replay, removal, snapshots.

mod common;

use common::{Cluster, from_snapshot_records};
use strand_base::Uuid;
use strand_metadata::controller::{create_acls, delete_acls};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_acls_request::AclCreation;
use strand_protocol::messages::delete_acls_request::DeleteAclsFilter;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{CreateAclsRequest, DeleteAclsRequest};
use strand_security::acl::{AclOperation as Op, AclPermissionType as Perm, PatternType as Pt, ResourceType as Rt};

fn creation(
    resource_type: Rt,
    name: &str,
    pattern: Pt,
    principal: &str,
    operation: Op,
    permission: Perm,
) -> AclCreation {
    AclCreation {
        resource_type: resource_type.code(),
        resource_name: name.to_owned(),
        resource_pattern_type: pattern.code(),
        principal: principal.to_owned(),
        host: "*".to_owned(),
        operation: operation.code(),
        permission_type: permission.code(),
        ..Default::default()
    }
}

fn read(name: &str, pattern: Pt, principal: &str) -> AclCreation {
    creation(Rt::Topic, name, pattern, principal, Op::Read, Perm::Allow)
}

/// Creates `creations` on `cluster`, applies the records; the (code, message) of each result.
fn create(cluster: &mut Cluster, creations: Vec<AclCreation>) -> Vec<(i16, Option<String>)> {
    let request = CreateAclsRequest { creations, ..Default::default() };
    let mut next = 0u8;
    let mut ids = || {
        next += 1;
        Uuid([next; 16])
    };
    let image = cluster.image.clone();
    let result = create_acls(&image, &request, &mut ids);
    cluster.apply(&result.records);
    result.response.results.into_iter().map(|r| (r.error_code, r.error_message)).collect()
}

fn filter(resource_type: Rt, name: Option<&str>, pattern: Pt, principal: Option<&str>) -> DeleteAclsFilter {
    DeleteAclsFilter {
        resource_type_filter: resource_type.code(),
        resource_name_filter: name.map(str::to_owned),
        pattern_type_filter: pattern.code(),
        principal_filter: principal.map(str::to_owned),
        host_filter: None,
        operation: Op::Any.code(),
        permission_type: Perm::Any.code(),
        ..Default::default()
    }
}

const OK: (i16, Option<String>) = (0, None);

fn invalid(message: &str) -> (i16, Option<String>) {
    (ErrorCode::InvalidRequest.code(), Some(message.to_owned()))
}

/// Valid bindings get one record each; an existing or repeated binding succeeds without a
/// second record; invalid ones fail alone with Kafka's messages.
#[test]
fn create_acls_validates_and_writes_each_new_binding_once() {
    let mut cluster = Cluster::new();
    let results = create(
        &mut cluster,
        vec![
            read("orders", Pt::Literal, "User:alice"),
            read("orders", Pt::Literal, "User:alice"),
            read("pay", Pt::Prefixed, "User:*"),
            creation(Rt::Cluster, "other", Pt::Literal, "User:a", Op::Alter, Perm::Allow),
            read("", Pt::Literal, "User:alice"),
            creation(Rt::Cluster, "kafka-cluster", Pt::Literal, "User:a", Op::Alter, Perm::Deny),
        ],
    );
    assert_eq!(
        results,
        vec![
            OK,
            OK,
            OK,
            invalid("The only valid name for the CLUSTER resource is kafka-cluster"),
            invalid("Invalid empty resource name"),
            OK
        ]
    );
    assert_eq!(cluster.image.acls().len(), 3);
    // Creating them again writes nothing.
    let request =
        CreateAclsRequest { creations: vec![read("orders", Pt::Literal, "User:alice")], ..Default::default() };
    let again = create_acls(&cluster.image, &request, &mut || Uuid([99; 16]));
    assert!(again.records.is_empty());
    assert_eq!(again.response.results[0].error_code, 0);
    assert_eq!(from_snapshot_records(&cluster.image), cluster.image);
}

/// A creation no binding can be (ANY, MATCH) fails the whole request as Kafka's constructors
/// throw; an id already in use is drawn again.
#[test]
fn create_acls_refuses_filters_as_bindings_and_ids_in_use() {
    let mut cluster = Cluster::new();
    let results =
        create(&mut cluster, vec![read("orders", Pt::Literal, "User:alice"), read("x", Pt::Match, "User:alice")]);
    assert_eq!(results, vec![(ErrorCode::UnknownServerError.code(), None); 2]);
    assert!(cluster.image.acls().is_empty());

    create(&mut cluster, vec![read("orders", Pt::Literal, "User:alice")]);
    let request = CreateAclsRequest { creations: vec![read("t", Pt::Literal, "User:bob")], ..Default::default() };
    let mut offered = vec![Uuid([1; 16]), Uuid::ZERO, Uuid([2; 16])].into_iter();
    let result = create_acls(&cluster.image, &request, &mut || offered.next().expect("an id"));
    let MetadataRecord::AccessControlEntryRecord(record) = &result.records[0].record else { panic!("not an ACL") };
    assert_eq!(record.id, Uuid([2; 16]));
}

/// Each filter lists what it matches, in resource order; a binding matched twice is removed once; MATCH finds the
/// bindings that apply to a name; what no filter matches stays.
#[test]
fn delete_acls_removes_what_each_filter_matches() {
    let mut cluster = Cluster::new();
    create(
        &mut cluster,
        vec![
            read("orders", Pt::Literal, "User:alice"),
            read("ord", Pt::Prefixed, "User:bob"),
            read("*", Pt::Literal, "User:carol"),
            read("zzz", Pt::Literal, "User:dave"),
            creation(Rt::Group, "orders", Pt::Literal, "User:alice", Op::Read, Perm::Allow),
        ],
    );
    let request = DeleteAclsRequest {
        filters: vec![
            filter(Rt::Topic, Some("orders"), Pt::Match, None),
            filter(Rt::Any, None, Pt::Any, Some("User:alice")),
            filter(Rt::Topic, Some("nothing"), Pt::Literal, None),
        ],
        ..Default::default()
    };
    let result = delete_acls(&cluster.image, &request);
    let listed: Vec<Vec<(i8, String, String)>> = result
        .response
        .filter_results
        .iter()
        .map(|f| {
            f.matching_acls.iter().map(|a| (a.resource_type, a.resource_name.clone(), a.principal.clone())).collect()
        })
        .collect();
    let topic = Rt::Topic.code();
    assert_eq!(
        listed,
        vec![
            vec![
                (topic, "*".to_owned(), "User:carol".to_owned()),
                (topic, "ord".to_owned(), "User:bob".to_owned()),
                (topic, "orders".to_owned(), "User:alice".to_owned()),
            ],
            vec![
                (topic, "orders".to_owned(), "User:alice".to_owned()),
                (Rt::Group.code(), "orders".to_owned(), "User:alice".to_owned()),
            ],
            vec![],
        ]
    );
    assert_eq!(result.records.len(), 4);
    cluster.apply(&result.records);
    let left: Vec<&str> = cluster.image.acls().iter().map(|(_, acl)| acl.principal.as_str()).collect();
    assert_eq!(left, vec!["User:dave"]);
    assert_eq!(from_snapshot_records(&cluster.image), cluster.image);
}
