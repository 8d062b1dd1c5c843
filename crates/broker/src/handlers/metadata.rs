//! Metadata: the live brokers (their endpoints on the listener the client used), the cluster id
//! and controller, and the requested topics (all when `topics` is null), created first when
//! `auto.create.topics.enable` and the request both allow it.

use std::collections::BTreeSet;

use strand_base::BrokerId;
use strand_base::topic::is_internal;
use strand_metadata::image::{MetadataImage, TopicImage};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::metadata_response::{
    MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use strand_protocol::messages::{CreateTopicsRequest, MetadataRequest, MetadataResponse};

use crate::Broker;

/// Kafka's "authorized operations not requested" value.
const AUTHORIZED_OPERATIONS_OMITTED: i32 = i32::MIN;

/// Answers with the endpoints of `listener`, the one the request arrived on.
pub async fn handle(broker: &Broker, request: MetadataRequest, version: i16, listener: &str) -> MetadataResponse {
    let mut image = broker.image();
    if let Some(topics) = &request.topics {
        // A set: a name asked for twice is created once (CreateTopics refuses repeated names).
        let missing: BTreeSet<String> = topics
            .iter()
            .filter(|t| t.topic_id == strand_base::Uuid::ZERO)
            .filter_map(|t| t.name.clone())
            .filter(|name| !name.is_empty())
            .filter(|name| image.topics().by_name(name).is_none())
            .collect();
        if !missing.is_empty() && request.allow_auto_topic_creation && broker.settings.auto_create_topics {
            image = auto_create(broker, missing).await.unwrap_or(image);
        }
    }
    let topics = match &request.topics {
        None => image.topics().iter().map(|t| topic_entry(&image, t, listener)).collect(),
        Some(requested) => {
            // Each topic once, as Kafka answers the set of topics asked for: a request naming a
            // large topic many times gets it once, not once per mention.
            let mut seen = BTreeSet::new();
            requested
                .iter()
                .filter(|t| {
                    let by_id = t.topic_id != strand_base::Uuid::ZERO;
                    seen.insert(if by_id { (t.topic_id, None) } else { (t.topic_id, t.name.as_deref()) })
                })
                .map(|t| requested_topic(&image, t.name.as_deref(), t.topic_id, version, listener))
                .collect()
        }
    };
    MetadataResponse {
        brokers: brokers(&image, listener),
        cluster_id: Some(broker.identity.cluster_id.clone()),
        controller_id: broker.identity.node_id,
        topics,
        ..MetadataResponse::default()
    }
}

async fn auto_create(broker: &Broker, names: BTreeSet<String>) -> Option<std::sync::Arc<MetadataImage>> {
    let request = CreateTopicsRequest {
        topics: names
            .into_iter()
            .map(|name| CreatableTopic { name, num_partitions: -1, replication_factor: -1, ..Default::default() })
            .collect(),
        timeout_ms: 30_000,
        ..Default::default()
    };
    let (_, failure) =
        super::create_topics::create(broker, &request, super::create_topics::CREATE_TOPICS_VERSION).await;
    match failure {
        None => Some(broker.image()),
        Some(reason) => {
            tracing::warn!("Metadata could not create topics: {reason}");
            None
        }
    }
}

fn brokers(image: &MetadataImage, listener: &str) -> Vec<MetadataResponseBroker> {
    image
        .cluster()
        .active_brokers()
        .filter_map(|b| {
            let endpoint = b.endpoints.iter().find(|e| e.name == listener)?;
            Some(MetadataResponseBroker {
                node_id: b.id,
                host: endpoint.host.clone(),
                port: i32::from(endpoint.port),
                rack: b.rack.clone(),
                ..Default::default()
            })
        })
        .collect()
}

/// The first version whose response may leave a topic's name null (topics looked up by id).
const NULL_TOPIC_NAME_VERSION_MIN: i16 = 12;

fn requested_topic(
    image: &MetadataImage,
    name: Option<&str>,
    id: strand_base::Uuid,
    version: i16,
    listener: &str,
) -> MetadataResponseTopic {
    // A topic id, when given, wins: the Java client sends ids with an empty (not null) name.
    let by_id = id != strand_base::Uuid::ZERO;
    let found = match name {
        _ if by_id => image.topics().by_id(id),
        Some(name) => image.topics().by_name(name),
        None => None,
    };
    match found {
        Some(topic) => topic_entry(image, topic, listener),
        None => MetadataResponseTopic {
            error_code: if by_id || name.is_none() {
                ErrorCode::UnknownTopicId
            } else {
                ErrorCode::UnknownTopicOrPartition
            }
            .code(),
            name: name.map(str::to_owned).or_else(|| (version < NULL_TOPIC_NAME_VERSION_MIN).then(String::new)),
            topic_id: id,
            topic_authorized_operations: AUTHORIZED_OPERATIONS_OMITTED,
            ..Default::default()
        },
    }
}

/// One topic's entry; `offline_replicas` as Kafka reports them on the client's `listener`.
fn topic_entry(image: &MetadataImage, topic: &TopicImage, listener: &str) -> MetadataResponseTopic {
    let partitions = topic
        .partitions
        .iter()
        .map(|(&index, p)| MetadataResponsePartition {
            error_code: if p.leader == BrokerId::NONE { ErrorCode::LeaderNotAvailable.code() } else { 0 },
            partition_index: index,
            leader_id: p.leader,
            leader_epoch: p.leader_epoch,
            replica_nodes: p.replicas.clone(),
            isr_nodes: p.isr.clone(),
            offline_replicas: super::describe_topic_partitions::offline_replicas(image, p, listener),
            ..Default::default()
        })
        .collect();
    MetadataResponseTopic {
        error_code: 0,
        name: Some(topic.name.clone()),
        topic_id: topic.id,
        is_internal: is_internal(&topic.name),
        partitions,
        topic_authorized_operations: AUTHORIZED_OPERATIONS_OMITTED,
        ..Default::default()
    }
}
