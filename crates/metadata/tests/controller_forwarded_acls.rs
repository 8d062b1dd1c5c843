//! The active controller authorizes what a broker forwards for a client with that client's
//! principal and address, on its own image, as Kafka's `ControllerApis` does an Envelope's inner
//! request: a broker that let a request through (its image lagging a binding, or no check at
//! all) cannot get it decided. Requests through `QuorumController::handle_forwarded`, encoded as
//! a broker sends them, over an in-memory log.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::BytesMut;
use common::{Cluster, topic};
use strand_base::{SystemClock, Uuid};
use strand_metadata::authorizer::AuthorizerSettings;
use strand_metadata::controller::authorization::Requester;
use strand_metadata::controller::{ApiMessageAndVersion, ControllerDefaults};
use strand_metadata::image::MetadataImage;
use strand_metadata::quorum::QuorumError;
use strand_metadata::quorum_controller::{BoxFuture, ControllerLog, ControllerSettings, QuorumController};
use strand_metadata::testkit::{CLUSTER_ID, committed};
use strand_protocol::codec::Message;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::Request;
use strand_protocol::messages::create_acls_request::AclCreation;
use strand_protocol::messages::delete_topics_request::DeleteTopicState;
use strand_protocol::messages::{
    CreateAclsRequest, CreateAclsResponse, CreateTopicsRequest, CreateTopicsResponse, DeleteTopicsRequest,
    DeleteTopicsResponse,
};
use strand_security::KafkaPrincipal;
use strand_security::acl::{AclOperation as Op, AclPermissionType as Perm, PatternType as Pt, ResourceType as Rt};
use tokio::sync::watch;

/// A metadata log in memory that commits and replays every append at once.
struct MemoryLog(Mutex<watch::Sender<Arc<MetadataImage>>>);

impl ControllerLog for MemoryLog {
    fn append(&self, records: Vec<ApiMessageAndVersion>) -> BoxFuture<'_, Result<i64, QuorumError>> {
        Box::pin(async move {
            let images = self.0.lock().expect("image lock");
            let next = committed(&images.borrow(), &records);
            let offset = next.provenance().offset;
            images.send_replace(Arc::new(next));
            Ok(offset)
        })
    }

    fn leader_caught_up(&self, _timeout: Duration) -> BoxFuture<'_, Result<i64, QuorumError>> {
        Box::pin(async move { Ok(self.next_offset()) })
    }

    fn is_leader(&self) -> bool {
        true
    }

    fn leader_epoch(&self) -> i32 {
        1
    }

    fn next_offset(&self) -> i64 {
        self.0.lock().expect("image lock").borrow().provenance().offset + 1
    }
}

/// The active controller of a one-broker cluster with topic `existing`, authorizing forwarded
/// requests with super user `User:admin` and `allow.everyone.if.no.acl.found=false`.
fn controller() -> (QuorumController, watch::Receiver<Arc<MetadataImage>>) {
    let mut cluster = Cluster::with_brokers(&[1]);
    cluster.create_topic("existing", 1, 1);
    let (images, receiver) = watch::channel(Arc::new(cluster.image));
    let settings = ControllerSettings {
        cluster_id: CLUSTER_ID.to_owned(),
        defaults: ControllerDefaults::default(),
        session_timeout_ms: 9_000,
        bootstrap: Vec::new(),
        unfence_on_registration: true,
        node_id: 1,
        voters: vec![1],
    };
    let next = std::sync::atomic::AtomicU8::new(1);
    let ids = Box::new(move || Uuid([next.fetch_add(1, std::sync::atomic::Ordering::Relaxed); 16]));
    let log = Arc::new(MemoryLog(Mutex::new(images)));
    let controller = QuorumController::new(log, receiver.clone(), Arc::new(SystemClock), settings, ids);
    let authorizer = AuthorizerSettings { super_users: ["User:admin".to_owned()].into(), allow_if_no_acl_found: false };
    (controller.with_authorizer(authorizer), receiver)
}

fn user(name: &str) -> Requester {
    Requester { principal: KafkaPrincipal::user(name), host: "127.0.0.1".parse().expect("ip") }
}

/// Sends `request` as a broker forwards it for `requester` (`None`: the broker's own).
async fn forward<R: Request>(controller: &QuorumController, request: &R, requester: Option<&Requester>) -> R::Response {
    let version = R::KEY.versions().max;
    let mut body = BytesMut::new();
    request.encode(&mut body, version).expect("encode");
    let (answer, _) = controller.handle_forwarded(R::KEY, version, body.freeze(), requester).await.expect("answered");
    <R::Response as Message>::decode_exact(answer, version).expect("decode")
}

fn allow(principal: &str, operation: Op, resource_type: Rt, name: &str, pattern: Pt) -> AclCreation {
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

fn create_topics(names: &[&str]) -> CreateTopicsRequest {
    CreateTopicsRequest {
        topics: names.iter().map(|n| topic(n, 1, 1)).collect(),
        timeout_ms: 10_000,
        ..Default::default()
    }
}

fn codes(response: &CreateTopicsResponse) -> Vec<(String, i16)> {
    response.topics.iter().map(|t| (t.name.clone(), t.error_code)).collect()
}

/// CreateTopics: a topic the requester may not CREATE is TOPIC_AUTHORIZATION_FAILED and not
/// created, the others are; the node's own request and a super user's are not checked; DENY
/// wins. CreateAcls without ALTER on the cluster: CLUSTER_AUTHORIZATION_FAILED and no binding.
/// DeleteTopics without DELETE: refused, the topic stays.
#[tokio::test]
async fn forwarded_requests_are_authorized_for_their_client() {
    let (controller, images) = controller();
    let bindings = CreateAclsRequest {
        creations: vec![allow("User:alice", Op::Create, Rt::Topic, "alice-", Pt::Prefixed), {
            let mut deny = allow("User:alice", Op::Create, Rt::Topic, "alice-denied", Pt::Literal);
            deny.permission_type = Perm::Deny.code();
            deny
        }],
        ..Default::default()
    };
    let created: CreateAclsResponse = forward(&controller, &bindings, Some(&user("admin"))).await;
    assert!(created.results.iter().all(|r| r.error_code == 0), "{created:?}");

    let response =
        forward(&controller, &create_topics(&["alice-1", "bob-1", "alice-denied"]), Some(&user("alice"))).await;
    let refused = ErrorCode::TopicAuthorizationFailed.code();
    assert_eq!(codes(&response), [("alice-1".into(), 0), ("bob-1".into(), refused), ("alice-denied".into(), refused)]);
    assert_eq!(response.topics[1].error_message.as_deref(), Some("Authorization failed."));
    let exists = |name: &str| images.borrow().topics().by_name(name).is_some();
    assert!(exists("alice-1") && !exists("bob-1") && !exists("alice-denied"));

    // Only refusals: nothing decided, nothing written.
    let response = forward(&controller, &create_topics(&["bob-2"]), Some(&user("bob"))).await;
    assert_eq!(codes(&response), [("bob-2".into(), refused)]);
    assert!(!exists("bob-2"));

    let response = forward(&controller, &create_topics(&["bob-3"]), None).await;
    assert_eq!(codes(&response), [("bob-3".into(), 0)], "the node's own request");
    let response = forward(&controller, &create_topics(&["bob-4"]), Some(&user("admin"))).await;
    assert_eq!(codes(&response), [("bob-4".into(), 0)], "a super user");

    let grant = CreateAclsRequest {
        creations: vec![allow("User:alice", Op::Alter, Rt::Topic, "*", Pt::Literal)],
        ..Default::default()
    };
    let response: CreateAclsResponse = forward(&controller, &grant, Some(&user("alice"))).await;
    let codes: Vec<i16> = response.results.iter().map(|r| r.error_code).collect();
    assert_eq!(codes, [ErrorCode::ClusterAuthorizationFailed.code()]);
    assert_eq!(images.borrow().acls().len(), 2, "no binding added");

    let existing = DeleteTopicState { name: Some("existing".into()), ..Default::default() };
    let delete = DeleteTopicsRequest { topics: vec![existing], timeout_ms: 10_000, ..Default::default() };
    let response: DeleteTopicsResponse = forward(&controller, &delete, Some(&user("alice"))).await;
    let codes: Vec<i16> = response.responses.iter().map(|t| t.error_code).collect();
    assert_eq!(codes, [refused]);
    assert!(exists("existing"));
}

/// UpdateFeatures forwarded for a client without ALTER on the cluster is refused whole, with no
/// per-feature results and nothing written, even though the broker let it through; the super
/// user's is decided.
#[tokio::test]
async fn forwarded_update_features_needs_alter_on_the_cluster() {
    use strand_protocol::messages::UpdateFeaturesRequest;
    use strand_protocol::messages::update_features_request::FeatureUpdateKey;
    let (controller, images) = controller();
    let update = FeatureUpdateKey {
        feature: "transaction.version".into(),
        max_version_level: 1,
        upgrade_type: 2,
        ..Default::default()
    };
    let request = UpdateFeaturesRequest { feature_updates: vec![update], ..Default::default() };
    let refused = forward(&controller, &request, Some(&user("mallory"))).await;
    assert_eq!(refused.error_code, ErrorCode::ClusterAuthorizationFailed.code(), "{refused:?}");
    assert_eq!(images.borrow().features().level("transaction.version"), 2, "nothing written");
    let decided = forward(&controller, &request, Some(&user("admin"))).await;
    assert_eq!(decided.error_code, 0, "{decided:?}");
    assert_eq!(images.borrow().features().level("transaction.version"), 1);
}
