//! Metadata: the live brokers (their endpoints on the listener the client used), the cluster id
//! and controller, and the requested topics (all when `topics` is null), created first when
//! `auto.create.topics.enable` and the request both allow it.
//!
//! Authorization, as Kafka's `handleTopicMetadataRequest`: a topic the session may not DESCRIBE
//! is left out of "all topics"; named, it answers TOPIC_AUTHORIZATION_FAILED without its id or
//! partitions, never saying whether it exists (asked by id, the id is echoed: ids are not
//! secret). Auto-creation needs CREATE on the cluster or on the topic (TOPIC_AUTHORIZATION_FAILED
//! otherwise). `include_topic_authorized_operations` (v8+) and `include_cluster_authorized_operations`
//! (v8-10; 0 without DESCRIBE on the cluster) report what the session may do.

use std::collections::BTreeSet;

use strand_base::topic::is_internal;
use strand_base::{BrokerId, Uuid};
use strand_metadata::image::{MetadataImage, TopicImage};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::metadata_request::MetadataRequestTopic;
use strand_protocol::messages::metadata_response::{
    MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use strand_protocol::messages::{CreateTopicsRequest, MetadataRequest, MetadataResponse};
use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use crate::Broker;

/// Kafka's "authorized operations not requested" value.
const AUTHORIZED_OPERATIONS_OMITTED: i32 = i32::MIN;
/// The first version that may ask for authorized operations.
const AUTHORIZED_OPERATIONS_VERSION_MIN: i16 = 8;
/// The last version that may ask for the cluster's (later: DescribeCluster).
const CLUSTER_OPERATIONS_VERSION_MAX: i16 = 10;

/// Answers with the endpoints of `listener`, the one the request arrived on.
pub async fn handle(
    broker: &Broker,
    request: MetadataRequest,
    version: i16,
    listener: &str,
    session: &Session,
) -> MetadataResponse {
    let mut image = broker.image();
    // Each entry, and whether the session may DESCRIBE it (its authorized operations are asked).
    let mut topics: Vec<(MetadataResponseTopic, bool)> = match &request.topics {
        None => {
            let all = image.topics().iter().map(|t| t.name.as_str());
            let describable = broker.authorized_names(session, AclOperation::Describe, ResourceType::Topic, all);
            let visible = image.topics().iter().filter(|t| describable.contains(&t.name));
            visible.map(|t| (topic_entry(&image, t, listener), true)).collect()
        }
        Some(requested) => {
            let requested = distinct(requested);
            let names = requested.iter().filter_map(|t| name_of(&image, t));
            let describable = broker.authorized_names(session, AclOperation::Describe, ResourceType::Topic, names);
            let creatable = if request.allow_auto_topic_creation && broker.settings.auto_create_topics {
                creatable(broker, session, &image, &requested, &describable)
            } else {
                BTreeSet::new()
            };
            let to_create: BTreeSet<String> =
                creatable.iter().filter(|(_, allowed)| *allowed).map(|(n, _)| n.clone()).collect();
            if !to_create.is_empty() {
                image = auto_create(broker, to_create, session).await.unwrap_or(image);
            }
            (requested.iter())
                .map(|t| {
                    let name = name_of(&image, t);
                    match name {
                        Some(name) if !describable.contains(name) => (denied(t, name, version, false), false),
                        Some(name) if creatable.contains(&(name.to_owned(), false)) => {
                            (denied(t, name, version, is_internal(name)), false)
                        }
                        _ => {
                            (requested_topic(&image, t.name.as_deref(), t.topic_id, version, listener), name.is_some())
                        }
                    }
                })
                .collect()
        }
    };
    if version >= AUTHORIZED_OPERATIONS_VERSION_MIN && request.include_topic_authorized_operations {
        for (topic, _) in topics.iter_mut().filter(|(_, authorized)| *authorized) {
            let name = topic.name.clone().unwrap_or_default();
            topic.topic_authorized_operations = broker.authorized_operations(session, ResourceType::Topic, &name);
        }
    }
    let cluster_authorized_operations = if (AUTHORIZED_OPERATIONS_VERSION_MIN..=CLUSTER_OPERATIONS_VERSION_MAX)
        .contains(&version)
        && request.include_cluster_authorized_operations
    {
        broker.cluster_authorized_operations(session)
    } else {
        AUTHORIZED_OPERATIONS_OMITTED
    };
    MetadataResponse {
        brokers: brokers(&image, listener),
        cluster_id: Some(broker.identity.cluster_id.clone()),
        controller_id: broker.identity.node_id,
        topics: topics.into_iter().map(|(topic, _)| topic).collect(),
        cluster_authorized_operations,
        ..MetadataResponse::default()
    }
}

/// Each topic once, as Kafka answers the set of topics asked for: a request naming a large topic
/// many times gets it once, not once per mention.
fn distinct(requested: &[MetadataRequestTopic]) -> Vec<&MetadataRequestTopic> {
    let mut seen = BTreeSet::new();
    let first = |t: &&MetadataRequestTopic| {
        let by_id = t.topic_id != Uuid::ZERO;
        seen.insert(if by_id { (t.topic_id, None) } else { (t.topic_id, t.name.clone()) })
    };
    requested.iter().filter(first).collect()
}

/// The name a requested topic is asked about: its id's topic (ids of no topic: none, they answer
/// UNKNOWN_TOPIC_ID), or the name given.
fn name_of<'a>(image: &'a MetadataImage, topic: &'a MetadataRequestTopic) -> Option<&'a str> {
    if topic.topic_id != Uuid::ZERO {
        return image.topics().by_id(topic.topic_id).map(|t| t.name.as_str());
    }
    topic.name.as_deref().filter(|name| !name.is_empty())
}

/// The missing topics, asked for by name and describable, auto-creation would create, each with
/// whether the session may create it (CREATE on the cluster, or else on the topic).
fn creatable(
    broker: &Broker,
    session: &Session,
    image: &MetadataImage,
    requested: &[&MetadataRequestTopic],
    describable: &BTreeSet<String>,
) -> BTreeSet<(String, bool)> {
    let missing: BTreeSet<&str> = (requested.iter())
        .filter(|t| t.topic_id == Uuid::ZERO)
        .filter_map(|t| t.name.as_deref())
        .filter(|name| !name.is_empty() && describable.contains(*name) && image.topics().by_name(name).is_none())
        .collect();
    if missing.is_empty() {
        return BTreeSet::new();
    }
    let cluster = broker.authorize_cluster(session, AclOperation::Create);
    let allowed = |name: &str| cluster || broker.authorize_topic(session, AclOperation::Create, name);
    missing.into_iter().map(|name| (name.to_owned(), allowed(name))).collect()
}

/// A topic refused TOPIC_AUTHORIZATION_FAILED: no partitions, and its id only when the client
/// asked by id.
fn denied(topic: &MetadataRequestTopic, name: &str, version: i16, internal: bool) -> MetadataResponseTopic {
    let by_id = topic.topic_id != Uuid::ZERO;
    let name = if !by_id { Some(name.to_owned()) } else { (version < NULL_TOPIC_NAME_VERSION_MIN).then(String::new) };
    MetadataResponseTopic {
        error_code: ErrorCode::TopicAuthorizationFailed.code(),
        name,
        topic_id: topic.topic_id,
        is_internal: internal,
        topic_authorized_operations: AUTHORIZED_OPERATIONS_OMITTED,
        ..Default::default()
    }
}

/// Creates `names` for `session`, whom the controller authorizes again (Kafka forwards an
/// auto-creation with the requester's principal too).
async fn auto_create(
    broker: &Broker,
    names: BTreeSet<String>,
    session: &Session,
) -> Option<std::sync::Arc<MetadataImage>> {
    let request = CreateTopicsRequest {
        topics: names
            .into_iter()
            .map(|name| CreatableTopic { name, num_partitions: -1, replication_factor: -1, ..Default::default() })
            .collect(),
        timeout_ms: 30_000,
        ..Default::default()
    };
    let (_, failure) =
        super::create_topics::create(broker, &request, super::create_topics::CREATE_TOPICS_VERSION, Some(session))
            .await;
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
    id: Uuid,
    version: i16,
    listener: &str,
) -> MetadataResponseTopic {
    // A topic id, when given, wins: the Java client sends ids with an empty (not null) name.
    let by_id = id != Uuid::ZERO;
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
