//! UpdateFeatures through `Broker::handle`: forwarded to the controller behind the broker and
//! answered once the broker's image holds the new level, which its ApiVersions then reports with
//! a larger finalized epoch; refused whole without ALTER on the cluster, as Kafka's
//! `ControllerApis.handleUpdateFeatures` refuses it; and the finalized `group.version` deciding
//! whether the KIP-848 protocol is served.

mod common;

use std::sync::Arc;

use common::{Node, TableAuthorizer, session_of};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::update_features_request::FeatureUpdateKey;
use strand_protocol::messages::{
    ConsumerGroupDescribeRequest, ConsumerGroupHeartbeatRequest, UpdateFeaturesRequest, UpdateFeaturesResponse,
};
use strand_security::Session;
use strand_security::acl::{AclOperation, CLUSTER_NAME, ResourceType};

const SAFE_DOWNGRADE: i8 = 2;

async fn downgrade(node: &mut Node, session: &Session, level: i16) -> UpdateFeaturesResponse {
    let update = FeatureUpdateKey {
        feature: "transaction.version".into(),
        max_version_level: level,
        upgrade_type: SAFE_DOWNGRADE,
        ..Default::default()
    };
    let request = UpdateFeaturesRequest { feature_updates: vec![update], ..Default::default() };
    match node.call_as(session, RequestBody::UpdateFeatures(request), 2).await {
        ResponseBody::UpdateFeatures(response) => response,
        other => panic!("not an UpdateFeatures response: {other:?}"),
    }
}

/// transaction.version's finalized level and the finalized epoch, as ApiVersions reports them.
async fn transaction_version(node: &mut Node) -> (Option<i16>, i64) {
    let ResponseBody::ApiVersions(versions) =
        node.call(RequestBody::ApiVersions(common::api_versions_request()), 3).await
    else {
        panic!("not an ApiVersions response")
    };
    let level = versions.finalized_features.iter().find(|f| f.name == "transaction.version");
    (level.map(|f| f.max_version_level), versions.finalized_features_epoch)
}

#[tokio::test]
async fn update_features_needs_alter_on_the_cluster_and_shows_in_api_versions() {
    let authorizer =
        TableAuthorizer::default().allow("admin", AclOperation::Alter, ResourceType::Cluster, CLUSTER_NAME);
    let mut node = Node::new().with_authorizer(Arc::new(authorizer));
    let (level, epoch) = transaction_version(&mut node).await;
    assert_eq!(level, Some(2));

    let refused = downgrade(&mut node, &session_of("alice"), 1).await;
    assert_eq!(refused.error_code, ErrorCode::ClusterAuthorizationFailed.code(), "{refused:?}");
    assert_eq!(transaction_version(&mut node).await, (Some(2), epoch), "nothing changed");

    let response = downgrade(&mut node, &session_of("admin"), 1).await;
    assert_eq!((response.error_code, response.error_message.as_deref()), (0, None), "{response:?}");
    let (level, after) = transaction_version(&mut node).await;
    assert_eq!(level, Some(1), "the broker answered once its image had the level");
    assert!(after > epoch, "the finalized epoch moved: {after} after {epoch}");
}

async fn set_group_version(node: &mut Node, level: i16, upgrade_type: i8) {
    let update = FeatureUpdateKey {
        feature: "group.version".into(),
        max_version_level: level,
        upgrade_type,
        ..Default::default()
    };
    let request = UpdateFeaturesRequest { feature_updates: vec![update], ..Default::default() };
    let ResponseBody::UpdateFeatures(response) = node.call(RequestBody::UpdateFeatures(request), 2).await else {
        panic!("not an UpdateFeatures response")
    };
    assert_eq!(response.error_code, 0, "{response:?}");
}

/// With group.version disabled the KIP-848 protocol is off, as Kafka's
/// `isConsumerGroupProtocolEnabled`: ConsumerGroupHeartbeat and ConsumerGroupDescribe answer
/// UNSUPPORTED_VERSION; upgraded again, the coordinator is asked.
#[tokio::test]
async fn group_version_0_turns_the_consumer_protocol_off() {
    let mut node = Node::new();
    node.create_topic("t", 1).await;
    let heartbeat = || ConsumerGroupHeartbeatRequest {
        group_id: "g".into(),
        member_id: "m-1-aaaaaaaaaaaaaaaaa".into(),
        member_epoch: 0,
        rebalance_timeout_ms: 30_000,
        subscribed_topic_names: Some(vec!["t".into()]),
        server_assignor: Some("uniform".into()),
        topic_partitions: Some(Vec::new()),
        ..Default::default()
    };
    let describe = || ConsumerGroupDescribeRequest { group_ids: vec!["g".into()], ..Default::default() };
    set_group_version(&mut node, 0, SAFE_DOWNGRADE).await;
    let ResponseBody::ConsumerGroupHeartbeat(refused) =
        node.call(RequestBody::ConsumerGroupHeartbeat(heartbeat()), 1).await
    else {
        panic!("not a ConsumerGroupHeartbeat response")
    };
    assert_eq!(refused.error_code, ErrorCode::UnsupportedVersion.code(), "{refused:?}");
    let ResponseBody::ConsumerGroupDescribe(described) =
        node.call(RequestBody::ConsumerGroupDescribe(describe()), 1).await
    else {
        panic!("not a ConsumerGroupDescribe response")
    };
    let codes: Vec<_> = described.groups.iter().map(|g| (g.group_id.as_str(), g.error_code)).collect();
    assert_eq!(codes, [("g", ErrorCode::UnsupportedVersion.code())]);

    set_group_version(&mut node, 1, 1).await;
    let ResponseBody::ConsumerGroupHeartbeat(joined) =
        node.call(RequestBody::ConsumerGroupHeartbeat(heartbeat()), 1).await
    else {
        panic!("not a ConsumerGroupHeartbeat response")
    };
    // Past the gate, the coordinator answers (this node's shards may still be loading).
    assert_ne!(joined.error_code, ErrorCode::UnsupportedVersion.code(), "{joined:?}");
}
