//! FindCoordinator: which broker coordinates a group (key type 0) or a transactional id (1). A
//! group lives on the partition of `__consumer_offsets` its id hashes to (Kafka's
//! `Utils.abs(hashCode) % partitions`), a transactional id on the partition of
//! `__transaction_state` its id hashes to, and the coordinator is that partition's leader. The
//! topics are created on first use, as Kafka does, with `offsets.topic.*` and
//! `transaction.state.log.*` and their compacted configs.
//!
//! A key needs DESCRIBE on its group (GROUP_AUTHORIZATION_FAILED) or transactional id
//! (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), asked before anything is looked up or created.
//!
//! Key type 2 names a share-partition's state for the share coordinator (KIP-932):
//! `groupId:topicId:partition`, placed on the partition of `__share_group_state` the whole key
//! hashes to (Kafka's `ShareCoordinatorService.partitionFor`). Only brokers ask for it: it needs
//! CLUSTER_ACTION on the cluster (CLUSTER_AUTHORIZATION_FAILED), a key of another form is
//! INVALID_REQUEST, and with `share.version` below 1 it is INVALID_REQUEST too, as Kafka answers.
//! `__share_group_state` is created like the others, with `share.coordinator.state.topic.*` and
//! Kafka's configs for it (`cleanup.policy=delete`, `retention.ms=-1`).
//!
//! v0-3 ask for one key; v4+ batch them (`coordinator_keys`) and answer per key.

use strand_base::BrokerId;
use strand_base::topic::{OFFSETS_TOPIC, SHARE_GROUP_STATE_TOPIC, TRANSACTION_STATE_TOPIC};
use strand_coordinator::group::hash::partition_for;
use strand_metadata::image::{MetadataImage, SHARE_VERSION};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_topics_request::{CreatableTopic, CreatableTopicConfig};
use strand_protocol::messages::find_coordinator_response::Coordinator;
use strand_protocol::messages::{CreateTopicsRequest, FindCoordinatorRequest, FindCoordinatorResponse};

use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use crate::Broker;

/// FindCoordinator's key type for groups.
const KEY_TYPE_GROUP: i8 = 0;
/// FindCoordinator's key type for transactional ids.
const KEY_TYPE_TRANSACTION: i8 = 1;
/// FindCoordinator's key type for share-partitions' state.
const KEY_TYPE_SHARE: i8 = 2;

/// The first version that batches keys.
const BATCHED_VERSION_MIN: i16 = 4;

/// Answers with coordinators' endpoints on `listener`, the one the request arrived on.
pub async fn handle(
    broker: &Broker,
    request: FindCoordinatorRequest,
    version: i16,
    listener: &str,
    session: &Session,
) -> FindCoordinatorResponse {
    let keys =
        if version >= BATCHED_VERSION_MIN { request.coordinator_keys.clone() } else { vec![request.key.clone()] };
    let topic = match request.key_type {
        KEY_TYPE_GROUP => Some(OFFSETS_TOPIC),
        KEY_TYPE_TRANSACTION => Some(TRANSACTION_STATE_TOPIC),
        KEY_TYPE_SHARE if broker.image().features().level(SHARE_VERSION) >= 1 => Some(SHARE_GROUP_STATE_TOPIC),
        _ => None,
    };
    let refusals: Vec<Option<ErrorCode>> =
        keys.iter().map(|key| refusal(broker, session, request.key_type, key)).collect();
    // The internal topic is created only for a key the session may look up, as Kafka does.
    let image = match topic {
        Some(topic) if refusals.iter().any(Option::is_none) => ensure_internal_topic(broker, topic).await,
        _ => None,
    };
    let coordinators: Vec<Coordinator> = keys
        .into_iter()
        .zip(refusals)
        .map(|(key, refused)| match (&image, topic, request.key_type) {
            _ if let Some(code) = refused => Coordinator {
                key,
                node_id: BrokerId::NONE,
                port: -1,
                error_code: code.code(),
                // v0-3 answer with the exception's message, v4+ without one (Kafka's
                // `getErrorResponse` and `getCoordinator`).
                error_message: (version < BATCHED_VERSION_MIN).then(|| code.message().to_owned()),
                ..Default::default()
            },
            (Some(image), Some(topic), _) => locate(listener, image, topic, key),
            (None, Some(_), _) => unavailable(key, "The coordinator is not available."),
            (_, None, KEY_TYPE_SHARE) => Coordinator {
                key,
                node_id: BrokerId::NONE,
                port: -1,
                error_code: ErrorCode::InvalidRequest.code(),
                error_message: Some("Share groups are not enabled.".to_owned()),
                ..Default::default()
            },
            (_, None, other) => Coordinator {
                key,
                node_id: BrokerId::NONE,
                port: -1,
                error_code: ErrorCode::InvalidRequest.code(),
                error_message: Some(format!("Unknown coordinator key type {other}.")),
                ..Default::default()
            },
        })
        .collect();
    if version >= BATCHED_VERSION_MIN {
        return FindCoordinatorResponse { coordinators, ..Default::default() };
    }
    let Some(one) = coordinators.into_iter().next() else { return FindCoordinatorResponse::default() };
    FindCoordinatorResponse {
        error_code: one.error_code,
        error_message: one.error_message,
        node_id: one.node_id,
        host: one.host,
        port: one.port,
        ..Default::default()
    }
}

/// Why the session may not look up `key`: DESCRIBE on the group or transactional id it names.
fn refusal(broker: &Broker, session: &Session, key_type: i8, key: &str) -> Option<ErrorCode> {
    if key_type == KEY_TYPE_SHARE {
        if !broker.authorize_cluster(session, AclOperation::ClusterAction) {
            return Some(ErrorCode::ClusterAuthorizationFailed);
        }
        return (!is_share_partition_key(key)).then_some(ErrorCode::InvalidRequest);
    }
    let (resource_type, code) = match key_type {
        KEY_TYPE_GROUP => (ResourceType::Group, ErrorCode::GroupAuthorizationFailed),
        KEY_TYPE_TRANSACTION => (ResourceType::TransactionalId, ErrorCode::TransactionalIdAuthorizationFailed),
        _ => return None,
    };
    (!broker.authorize(session, AclOperation::Describe, resource_type, key)).then_some(code)
}

/// Kafka's `SharePartitionKey.validate`: `groupId:topicId:partition`, each part non-empty, the
/// topic id a Kafka uuid and the partition a number.
fn is_share_partition_key(key: &str) -> bool {
    let parts: Vec<&str> = key.split(':').collect();
    let [group, topic_id, partition] = parts.as_slice() else { return false };
    !group.trim().is_empty() && is_kafka_uuid(topic_id) && partition.trim().parse::<i32>().is_ok_and(|p| p >= 0)
}

/// Kafka's uuid text: 16 bytes in URL-safe base64 without padding, 22 characters.
fn is_kafka_uuid(text: &str) -> bool {
    text.len() == 22 && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The image once the internal topic `name` (`__consumer_offsets` or `__transaction_state`)
/// exists, creating it if needed with Kafka's configs for it; `None` if it could not be.
pub(crate) async fn ensure_internal_topic(broker: &Broker, name: &str) -> Option<std::sync::Arc<MetadataImage>> {
    let image = broker.image();
    if image.topics().by_name(name).is_some() {
        return Some(image);
    }
    let config = |name: &str, value: String| CreatableTopicConfig {
        name: name.to_owned(),
        value: Some(value),
        ..Default::default()
    };
    // Kafka's `GroupCoordinator.groupMetadataTopicConfigs` and `TransactionLog`'s topic configs.
    let (settings, compression, cleanup) = match name {
        TRANSACTION_STATE_TOPIC => (&broker.settings.transaction_topic, "uncompressed", "compact"),
        SHARE_GROUP_STATE_TOPIC => (&broker.settings.share.state_topic, "producer", "delete"),
        _ => (&broker.settings.offsets_topic, "producer", "compact"),
    };
    let mut configs = vec![
        config("cleanup.policy", cleanup.into()),
        config("compression.type", compression.into()),
        config("segment.bytes", settings.segment_bytes.to_string()),
    ];
    if name == SHARE_GROUP_STATE_TOPIC {
        configs.push(config("retention.ms", "-1".into()));
    }
    if let Some(min_isr) = settings.min_insync_replicas {
        configs.push(config("min.insync.replicas", min_isr.to_string()));
        configs.push(config("unclean.leader.election.enable", "false".into()));
    }
    let topic = CreatableTopic {
        name: name.to_owned(),
        num_partitions: settings.partitions,
        replication_factor: settings.replication_factor,
        configs,
        ..Default::default()
    };
    let request = CreateTopicsRequest { topics: vec![topic], timeout_ms: 30_000, ..Default::default() };
    let (response, failure) =
        super::create_topics::create(broker, &request, super::create_topics::CREATE_TOPICS_VERSION, None).await;
    if let Some(reason) = failure {
        tracing::warn!("could not create {name}: {reason}");
        return None;
    }
    let image = broker.image();
    if image.topics().by_name(name).is_none() {
        let result = response.topics.first();
        tracing::warn!(
            "could not create {name}: error {:?}: {:?}",
            result.map(|t| t.error_code),
            result.and_then(|t| t.error_message.clone())
        );
        return None;
    }
    Some(image)
}

/// The leader of `key`'s partition of `topic`, on the listener the client used.
fn locate(listener: &str, image: &MetadataImage, topic: &str, key: String) -> Coordinator {
    let Some(topic) = image.topics().by_name(topic) else {
        return unavailable(key, "The coordinator is not available.");
    };
    let partitions = i32::try_from(topic.partitions.len()).unwrap_or(i32::MAX).max(1);
    let partition = partition_for(&key, partitions);
    let leader = topic.partitions.get(&partition).map(|p| p.leader).unwrap_or(BrokerId::NONE);
    let endpoint = image
        .cluster()
        .active_brokers()
        .find(|b| b.id == leader)
        .and_then(|b| b.endpoints.iter().find(|e| e.name == listener));
    match endpoint {
        Some(endpoint) => Coordinator {
            key,
            node_id: leader,
            host: endpoint.host.clone(),
            port: i32::from(endpoint.port),
            ..Default::default()
        },
        None => unavailable(key, "The coordinator is not available."),
    }
}

fn unavailable(key: String, message: &str) -> Coordinator {
    Coordinator {
        key,
        node_id: BrokerId::NONE,
        port: -1,
        error_code: ErrorCode::CoordinatorNotAvailable.code(),
        error_message: Some(message.to_owned()),
        ..Default::default()
    }
}
