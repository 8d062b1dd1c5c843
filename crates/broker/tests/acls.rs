//! The ACL APIs through the broker (Kafka's `AclApis`): CreateAcls and DeleteAcls forwarded to
//! the controller, DescribeAcls answered from the image, each authorized on the cluster; and the
//! image's authorizer (`ImageAuthorizer`) deciding from the bindings they write.

mod common;

use std::sync::Arc;

use common::{Node, session, session_of};
use strand_base::SystemClock;
use strand_broker::ImageAuthorizer;
use strand_metadata::authorizer::AuthorizerSettings;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::create_acls_request::AclCreation;
use strand_protocol::messages::delete_acls_request::DeleteAclsFilter;
use strand_protocol::messages::write_txn_markers_request::{WritableTxnMarker, WritableTxnMarkerTopic};
use strand_protocol::messages::{
    CreateAclsRequest, CreateAclsResponse, DeleteAclsRequest, DeleteAclsResponse, DescribeAclsRequest,
    DescribeAclsResponse, WriteTxnMarkersRequest,
};
use strand_security::Session;
use strand_security::acl::{AclOperation as Op, AclPermissionType as Perm, PatternType as Pt, ResourceType as Rt};

/// A node whose authorizer is the image's, with super user `User:admin`.
fn secured_node() -> Node {
    secure(Node::new())
}

/// `node` with the image's authorizer, `User:admin` its super user.
fn secure(node: Node) -> Node {
    let settings = AuthorizerSettings { super_users: ["User:admin".to_owned()].into(), allow_if_no_acl_found: false };
    let authorizer = ImageAuthorizer::new(node.writer.subscribe(), settings, Arc::new(SystemClock));
    node.with_authorizer(Arc::new(authorizer))
}

fn creation(resource_type: Rt, name: &str, pattern: Pt, principal: &str, operation: Op) -> AclCreation {
    AclCreation {
        resource_type: resource_type.code(),
        resource_name: name.to_owned(),
        resource_pattern_type: pattern.code(),
        principal: principal.to_owned(),
        host: "*".to_owned(),
        operation: operation.code(),
        permission_type: Perm::Allow.code(),
        ..Default::default()
    }
}

fn describe_all() -> DescribeAclsRequest {
    DescribeAclsRequest {
        resource_type_filter: Rt::Any.code(),
        resource_name_filter: None,
        pattern_type_filter: Pt::Any.code(),
        principal_filter: None,
        host_filter: None,
        operation: Op::Any.code(),
        permission_type: Perm::Any.code(),
        ..Default::default()
    }
}

async fn create(node: &mut Node, as_who: &Session, creations: Vec<AclCreation>) -> Vec<i16> {
    let request = RequestBody::CreateAcls(CreateAclsRequest { creations, ..Default::default() });
    let ResponseBody::CreateAcls(CreateAclsResponse { results, .. }) = node.call_as(as_who, request, 3).await else {
        panic!("not a CreateAcls response")
    };
    results.iter().map(|r| r.error_code).collect()
}

async fn describe(node: &mut Node, as_who: &Session, request: DescribeAclsRequest) -> DescribeAclsResponse {
    let ResponseBody::DescribeAcls(response) = node.call_as(as_who, RequestBody::DescribeAcls(request), 3).await else {
        panic!("not a DescribeAcls response")
    };
    response
}

/// (type, name, pattern, principal, operation) of each binding a DescribeAcls lists.
fn listed(response: &DescribeAclsResponse) -> Vec<(i8, String, i8, String, i8)> {
    let bindings = response.resources.iter().flat_map(|r| r.acls.iter().map(move |a| (r, a)));
    bindings
        .map(|(r, a)| (r.resource_type, r.resource_name.clone(), r.pattern_type, a.principal.clone(), a.operation))
        .collect()
}

/// Without an authorizer the ACL APIs answer SECURITY_DISABLED with Kafka's messages.
#[tokio::test]
async fn without_an_authorizer_acl_apis_are_security_disabled() {
    let mut node = Node::new();
    let codes = create(&mut node, &session(), vec![creation(Rt::Topic, "t", Pt::Literal, "User:a", Op::Read)]).await;
    assert_eq!(codes, vec![ErrorCode::SecurityDisabled.code()]);
    let described = describe(&mut node, &session(), describe_all()).await;
    assert_eq!(described.error_code, ErrorCode::SecurityDisabled.code());
    assert_eq!(described.error_message.as_deref(), Some("No Authorizer is configured on the broker"));
}

/// Create, describe (ANY, MATCH and principal filters) and delete, with the cluster checks
/// Kafka makes: ALTER for Create/DeleteAcls, DESCRIBE for DescribeAcls.
#[tokio::test]
async fn acls_are_created_described_and_deleted_through_the_controller() {
    let mut node = secured_node();
    let admin = session_of("admin");
    let alice = session_of("alice");

    let refused = create(&mut node, &alice, vec![creation(Rt::Topic, "t", Pt::Literal, "User:alice", Op::Read)]).await;
    assert_eq!(refused, vec![ErrorCode::ClusterAuthorizationFailed.code()]);
    assert_eq!(
        describe(&mut node, &alice, describe_all()).await.error_code,
        ErrorCode::ClusterAuthorizationFailed.code()
    );

    let creations = vec![
        creation(Rt::Topic, "orders", Pt::Literal, "User:alice", Op::Read),
        creation(Rt::Topic, "ord", Pt::Prefixed, "User:bob", Op::Write),
        creation(Rt::Group, "g", Pt::Literal, "User:alice", Op::Read),
        creation(Rt::Cluster, "kafka-cluster", Pt::Literal, "User:alice", Op::Describe),
        creation(Rt::Cluster, "wrong", Pt::Literal, "User:alice", Op::Describe),
    ];
    let codes = create(&mut node, &admin, creations).await;
    assert_eq!(codes, vec![0, 0, 0, 0, ErrorCode::InvalidRequest.code()]);

    // alice may now describe (DESCRIBE on the cluster), but not create.
    let all = describe(&mut node, &alice, describe_all()).await;
    assert_eq!(all.error_code, 0);
    assert_eq!(listed(&all).len(), 4);
    let matching_orders = DescribeAclsRequest {
        resource_type_filter: Rt::Topic.code(),
        resource_name_filter: Some("orders".to_owned()),
        pattern_type_filter: Pt::Match.code(),
        ..describe_all()
    };
    let topic = Rt::Topic.code();
    assert_eq!(
        listed(&describe(&mut node, &alice, matching_orders).await),
        vec![
            (topic, "ord".to_owned(), Pt::Prefixed.code(), "User:bob".to_owned(), Op::Write.code()),
            (topic, "orders".to_owned(), Pt::Literal.code(), "User:alice".to_owned(), Op::Read.code()),
        ]
    );

    let filter = DeleteAclsFilter {
        resource_type_filter: Rt::Any.code(),
        pattern_type_filter: Pt::Any.code(),
        resource_name_filter: None,
        principal_filter: Some("User:alice".to_owned()),
        host_filter: None,
        operation: Op::Any.code(),
        permission_type: Perm::Any.code(),
        ..Default::default()
    };
    let request = RequestBody::DeleteAcls(DeleteAclsRequest { filters: vec![filter], ..Default::default() });
    let ResponseBody::DeleteAcls(DeleteAclsResponse { filter_results, .. }) = node.call_as(&admin, request, 3).await
    else {
        panic!("not a DeleteAcls response")
    };
    assert_eq!(filter_results[0].error_code, 0);
    assert_eq!(filter_results[0].matching_acls.len(), 3);
    // alice lost DESCRIBE on the cluster with her bindings.
    assert_eq!(
        describe(&mut node, &alice, describe_all()).await.error_code,
        ErrorCode::ClusterAuthorizationFailed.code()
    );
    let left = listed(&describe(&mut node, &admin, describe_all()).await);
    assert_eq!(left, vec![(topic, "ord".to_owned(), Pt::Prefixed.code(), "User:bob".to_owned(), Op::Write.code())]);
}

/// A binding applies as soon as CreateAcls answers: a principal refused WriteTxnMarkers
/// (CLUSTER_ACTION) is allowed once granted it, and refused again once it is deleted.
#[tokio::test]
async fn bindings_take_effect_when_the_acl_apis_answer() {
    // Created before the authorizer, by the anonymous test client.
    let mut node = Node::new();
    node.create_topic("orders", 1).await;
    let mut node = secure(node);
    let admin = session_of("admin");
    let peer = session_of("broker-2");
    let markers = || {
        let topics = vec![WritableTxnMarkerTopic {
            name: "orders".to_owned(),
            partition_indexes: vec![0],
            ..Default::default()
        }];
        let marker = WritableTxnMarker {
            producer_id: strand_base::ProducerId(7),
            producer_epoch: 0,
            topics,
            ..Default::default()
        };
        RequestBody::WriteTxnMarkers(WriteTxnMarkersRequest { markers: vec![marker], ..Default::default() })
    };
    let code = |response: ResponseBody| match response {
        ResponseBody::WriteTxnMarkers(r) => r.markers[0].topics[0].partitions[0].error_code,
        other => panic!("not a WriteTxnMarkers response: {other:?}"),
    };

    assert_eq!(code(node.call_as(&peer, markers(), 1).await), ErrorCode::ClusterAuthorizationFailed.code());
    let grant = creation(Rt::Cluster, "kafka-cluster", Pt::Literal, "User:broker-2", Op::ClusterAction);
    assert_eq!(create(&mut node, &admin, vec![grant]).await, vec![0]);
    assert_eq!(code(node.call_as(&peer, markers(), 1).await), 0);

    let filter = DeleteAclsFilter {
        resource_type_filter: Rt::Cluster.code(),
        resource_name_filter: None,
        pattern_type_filter: Pt::Any.code(),
        principal_filter: None,
        host_filter: None,
        operation: Op::Any.code(),
        permission_type: Perm::Any.code(),
        ..Default::default()
    };
    let request = RequestBody::DeleteAcls(DeleteAclsRequest { filters: vec![filter], ..Default::default() });
    node.call_as(&admin, request, 3).await;
    assert_eq!(code(node.call_as(&peer, markers(), 1).await), ErrorCode::ClusterAuthorizationFailed.code());
}

/// A filter with a code Kafka does not define is refused as Kafka's parser refuses it: the
/// connection closes.
#[tokio::test]
async fn an_unknown_code_closes_the_connection() {
    let node = secured_node();
    let request = RequestBody::DescribeAcls(DescribeAclsRequest { operation: Op::Unknown.code(), ..describe_all() });
    let frame = strand_protocol::frame::encode_request(1, Some("acls"), &request, 3).expect("encode");
    let outcome = node.broker.handle(frame.slice(4..), &session_of("admin")).await;
    assert!(matches!(outcome, strand_broker::Outcome::Close(_)), "{outcome:?}");
}
