//! UpdateFeatures through `Broker::handle`: forwarded to the controller behind the broker and
//! answered once the broker's image holds the new level, which its ApiVersions then reports with
//! a larger finalized epoch; refused whole without ALTER on the cluster, as Kafka's
//! `ControllerApis.handleUpdateFeatures` refuses it.

mod common;

use std::sync::Arc;

use common::{Node, TableAuthorizer, session_of};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::update_features_request::FeatureUpdateKey;
use strand_protocol::messages::{ApiVersionsRequest, UpdateFeaturesRequest, UpdateFeaturesResponse};
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
        node.call(RequestBody::ApiVersions(ApiVersionsRequest::default()), 3).await
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
