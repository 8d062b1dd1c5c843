//! What handlers ask the authorizer, and what a refusal looks like to the client: Kafka's
//! `KafkaApis` checks, one test per API group (the ACL semantics are tested where they are
//! decided, with the authorizer). The authorizer here is a table of allowed actions.

mod common;

use std::sync::Arc;

use common::{Node, TableAuthorizer, session_of};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::write_txn_markers_request::{WritableTxnMarker, WritableTxnMarkerTopic};
use strand_protocol::messages::{WriteTxnMarkersRequest, WriteTxnMarkersResponse};
use strand_security::acl::{AclOperation, CLUSTER_NAME, ResourceType};

fn markers_for(topic: &str) -> RequestBody {
    let topics =
        vec![WritableTxnMarkerTopic { name: topic.to_owned(), partition_indexes: vec![0, 1], ..Default::default() }];
    let marker =
        WritableTxnMarker { producer_id: strand_base::ProducerId(7), producer_epoch: 0, topics, ..Default::default() };
    RequestBody::WriteTxnMarkers(WriteTxnMarkersRequest { markers: vec![marker], ..Default::default() })
}

fn partition_codes(response: &WriteTxnMarkersResponse) -> Vec<i16> {
    let partitions = response.markers.iter().flat_map(|m| &m.topics).flat_map(|t| &t.partitions);
    partitions.map(|p| p.error_code).collect()
}

/// A client cannot end someone else's transaction: WriteTxnMarkers needs CLUSTER_ACTION, which
/// brokers have and clients do not, or ALTER on the cluster (Kafka 4's
/// `handleWriteTxnMarkersRequest`, for admins aborting hanging transactions).
#[tokio::test]
async fn write_txn_markers_need_cluster_action() {
    let authorizer = TableAuthorizer::default()
        .allow("broker", AclOperation::ClusterAction, ResourceType::Cluster, CLUSTER_NAME)
        .allow("admin", AclOperation::Alter, ResourceType::Cluster, CLUSTER_NAME);
    let mut node = Node::new();
    node.create_topic("orders", 2).await;
    let mut node = node.with_authorizer(Arc::new(authorizer));

    let ResponseBody::WriteTxnMarkers(refused) = node.call_as(&session_of("alice"), markers_for("orders"), 1).await
    else {
        panic!("not a WriteTxnMarkers response");
    };
    assert_eq!(partition_codes(&refused), vec![ErrorCode::ClusterAuthorizationFailed.code(); 2]);

    let ResponseBody::WriteTxnMarkers(written) = node.call_as(&session_of("broker"), markers_for("orders"), 1).await
    else {
        panic!("not a WriteTxnMarkers response");
    };
    assert_eq!(partition_codes(&written), vec![ErrorCode::None.code(); 2]);

    let ResponseBody::WriteTxnMarkers(written) = node.call_as(&session_of("admin"), markers_for("orders"), 1).await
    else {
        panic!("not a WriteTxnMarkers response");
    };
    assert_eq!(partition_codes(&written), vec![ErrorCode::None.code(); 2]);
}

/// Sends `$request` (a `$api` request body) at `$version` as user `$who`; its `$api` response.
macro_rules! call {
    ($node:expr, $who:expr, $api:ident($request:expr), $version:expr) => {{
        let body = RequestBody::$api($request);
        let ResponseBody::$api(response) = $node.call_as(&crate::common::session_of($who), body, $version).await else {
            panic!(concat!("not a ", stringify!($api), " response"));
        };
        response
    }};
}

#[path = "authorization/admin.rs"]
mod admin;
#[path = "authorization/groups.rs"]
mod groups;
#[path = "authorization/metadata.rs"]
mod metadata;
#[path = "authorization/partitions.rs"]
mod partitions;
#[path = "authorization/transactions.rs"]
mod transactions;
