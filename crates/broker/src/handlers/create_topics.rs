//! CreateTopics: decided by the active controller (validation, placement, records); the response
//! once this node's metadata includes the new topics. A client's controller mutation quota
//! (KIP-599, strict from v6) is spent on the topics it may create (`quotas::mutations`).
//!
//! Authorization, as Kafka's `ControllerApis.createTopics`: CREATE on the cluster, or else on each
//! topic (TOPIC_AUTHORIZATION_FAILED "Authorization failed.", answered after the others and not
//! forwarded); a created topic the session may not DESCRIBE_CONFIGS is answered without its
//! configs, partitions or replication factor (`topic_config_error_code`
//! TOPIC_AUTHORIZATION_FAILED). A name given twice is the controller's to refuse.

use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::create_topics_response::CreatableTopicResult;
use strand_protocol::messages::{CreateTopicsRequest, CreateTopicsResponse};
use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use crate::Broker;
use crate::authorization::unique;
use crate::dispatch::Client;

/// The CreateTopics version of the topics the broker creates itself.
pub const CREATE_TOPICS_VERSION: i16 = 7;

pub(crate) async fn handle(
    broker: &Broker,
    request: CreateTopicsRequest,
    version: i16,
    client: Client<'_>,
) -> CreateTopicsResponse {
    let session = client.session;
    let names = unique(request.topics.iter().map(|t| t.name.as_str()).filter(|name| *name != CLUSTER_METADATA_TOPIC));
    let creatable = if broker.authorize_cluster(session, AclOperation::Create) {
        names.iter().map(|name| (*name).to_owned()).collect()
    } else {
        broker.authorized_names(session, AclOperation::Create, ResourceType::Topic, names.iter().copied())
    };
    let describable =
        broker.authorized_names(session, AclOperation::DescribeConfigs, ResourceType::Topic, names.iter().copied());
    let refused = |name: &str| names.contains(name) && !creatable.contains(name);
    let mut allowed = request.clone();
    allowed.topics.retain(|t| !refused(&t.name));
    let mut response = create_within_quota(broker, allowed, version, &client).await;
    for topic in response.topics.iter_mut().filter(|t| t.error_code == 0 && !describable.contains(&t.name)) {
        topic.topic_config_error_code = ErrorCode::TopicAuthorizationFailed.code();
        topic.num_partitions = -1;
        topic.replication_factor = -1;
        topic.configs = Some(Vec::new());
    }
    response.topics.extend(request.topics.iter().filter(|t| refused(&t.name)).map(|t| CreatableTopicResult {
        name: t.name.clone(),
        error_code: ErrorCode::TopicAuthorizationFailed.code(),
        error_message: Some("Authorization failed.".to_owned()),
        ..Default::default()
    }));
    response
}

/// Spends the client's controller mutation quota on each topic in order (KIP-599) and forwards
/// those it admits; the others answer THROTTLING_QUOTA_EXCEEDED, in request order.
async fn create_within_quota(
    broker: &Broker,
    mut request: CreateTopicsRequest,
    version: i16,
    client: &Client<'_>,
) -> CreateTopicsResponse {
    let mutations = broker.mutations(client, version, 6);
    let default_partitions = broker.settings.controller_defaults.num_partitions;
    let partitions = |t: &CreatableTopic| match (t.assignments.len(), t.num_partitions) {
        (0, -1) => default_partitions,
        (0, n) => n,
        (n, _) => i32::try_from(n).unwrap_or(i32::MAX),
    };
    let topics = std::mem::take(&mut request.topics);
    let admitted: Vec<bool> = topics.iter().map(|t| mutations.admit(partitions(t))).collect();
    let (mut forwarded, mut throttled) = (Vec::new(), Vec::new());
    for (topic, admitted) in topics.into_iter().zip(&admitted) {
        if *admitted { forwarded.push(topic) } else { throttled.push(topic) }
    }
    let sizes: Vec<i32> = forwarded.iter().map(partitions).collect();
    request.topics = forwarded;
    let mut response = if request.topics.is_empty() {
        CreateTopicsResponse::default()
    } else {
        let (response, failure) = create(broker, &request, version, Some(client.session)).await;
        if let Some(reason) = failure {
            tracing::warn!("CreateTopics: {reason}");
        }
        response
    };
    let failed = response.topics.iter().zip(&sizes).filter(|(t, _)| t.error_code != 0).map(|(_, n)| *n).sum();
    let succeeded = response.topics.iter().zip(&sizes).filter(|(t, _)| t.error_code == 0).map(|(_, n)| *n).sum();
    response.throttle_time_ms = mutations.settle(failed, succeeded);
    if !throttled.is_empty() {
        response.topics = in_request_order(response.topics, &admitted, throttled);
    }
    response
}

/// The controller's results for the admitted topics and THROTTLING_QUOTA_EXCEEDED for the
/// others, in request order.
fn in_request_order(
    answered: Vec<CreatableTopicResult>,
    admitted: &[bool],
    throttled: Vec<CreatableTopic>,
) -> Vec<CreatableTopicResult> {
    let (mut answered, mut throttled) = (answered.into_iter(), throttled.into_iter());
    let refused = |t: CreatableTopic| CreatableTopicResult {
        name: t.name,
        error_code: ErrorCode::ThrottlingQuotaExceeded.code(),
        error_message: Some(ErrorCode::ThrottlingQuotaExceeded.message().to_owned()),
        num_partitions: -1,
        replication_factor: -1,
        ..Default::default()
    };
    let mut results: Vec<CreatableTopicResult> =
        admitted.iter().filter_map(|a| if *a { answered.next() } else { throttled.next().map(refused) }).collect();
    results.extend(answered);
    results
}

/// The metadata log's topic, which no request creates (the controller refuses it).
const CLUSTER_METADATA_TOPIC: &str = "__cluster_metadata";

/// Asks the controller to create topics at `version` for `session` (also those the broker
/// creates itself, `None`: auto-creation, `__consumer_offsets`, at [`CREATE_TOPICS_VERSION`]). The response and, if no controller answered, why (the response then
/// fails every topic); once it returns without a failure the image holds the new topics.
pub(crate) async fn create(
    broker: &Broker,
    request: &CreateTopicsRequest,
    version: i16,
    session: Option<&Session>,
) -> (CreateTopicsResponse, Option<String>) {
    match broker.ask_controller_for(session, request, version).await {
        Ok(response) => (response, None),
        Err(reason) => {
            let topics = request
                .topics
                .iter()
                .map(|t| CreatableTopicResult {
                    name: t.name.clone(),
                    error_code: ErrorCode::RequestTimedOut.code(),
                    error_message: Some(reason.clone()),
                    ..Default::default()
                })
                .collect();
            (CreateTopicsResponse { topics, ..Default::default() }, Some(reason))
        }
    }
}

/// A fresh topic id. Kafka draws a random UUID (never the all-zero id or the reserved ones);
/// here from the OS's random source, the one randomness the broker needs.
pub fn random_topic_id() -> Uuid {
    loop {
        let mut id = [0u8; 16];
        if getrandom(&mut id).is_err() {
            // No OS randomness: a process id and counter, still unique on this node.
            static FALLBACK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
            let n = FALLBACK.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            id[..8].copy_from_slice(&u64::from(std::process::id()).to_be_bytes());
            id[8..].copy_from_slice(&n.to_be_bytes());
        }
        // RFC 4122 version 4 bits, as Java's UUID.randomUUID sets them.
        id[6] = (id[6] & 0x0f) | 0x40;
        id[8] = (id[8] & 0x3f) | 0x80;
        let uuid = Uuid(id);
        if uuid != Uuid::ZERO {
            return uuid;
        }
    }
}

fn getrandom(buf: &mut [u8]) -> std::io::Result<()> {
    use std::io::Read;
    std::fs::File::open("/dev/urandom")?.read_exact(buf)
}
