//! Topics (list, get, create, delete), their partitions and replicas: Metadata, CreateTopics and
//! DeleteTopics through the node.

use axum::body::Bytes;
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use strand_base::BrokerId;
use strand_protocol::messages::create_partitions_request::CreatePartitionsTopic;
use strand_protocol::messages::create_topics_request::{
    CreatableReplicaAssignment, CreatableTopic, CreatableTopicConfig,
};
use strand_protocol::messages::delete_topics_request::DeleteTopicState;
use strand_protocol::messages::metadata_request::MetadataRequestTopic;
use strand_protocol::messages::metadata_response::{MetadataResponsePartition, MetadataResponseTopic};
use strand_protocol::messages::{CreatePartitionsRequest, CreateTopicsRequest, DeleteTopicsRequest, MetadataRequest};

use super::error::check;
use super::json::{body_object, collection, flag, ok, optional_int, related, required_str, resource, with_status};
use super::{Ctx, RestError, answer};

/// How long CreateTopics and DeleteTopics may wait for the controller (Kafka's admin default).
const ADMIN_TIMEOUT_MS: i32 = 30_000;

/// Metadata of `topic` (every topic the caller may describe when `None`).
pub(super) async fn metadata(ctx: &Ctx, topic: Option<&str>) -> Result<Vec<MetadataResponseTopic>, RestError> {
    let topics = topic.map(|name| vec![MetadataRequestTopic { name: Some(name.to_owned()), ..Default::default() }]);
    let request = MetadataRequest { topics, allow_auto_topic_creation: false, ..Default::default() };
    let response = answer!(ctx, Metadata, request, 12);
    check(response.error_code, None)?;
    Ok(response.topics)
}

/// The one topic named, or its error (404/40403 when it does not exist).
pub(super) async fn one_topic(ctx: &Ctx, topic: &str) -> Result<MetadataResponseTopic, RestError> {
    let found = metadata(ctx, Some(topic)).await?.into_iter().find(|t| t.name.as_deref() == Some(topic));
    let found = found.ok_or_else(|| RestError::kafka(3, None).unwrap_or_else(|| RestError::internal("no topic")))?;
    check(found.error_code, None)?;
    Ok(found)
}

pub(super) fn topic_url(ctx: &Ctx, topic: &str) -> String {
    format!("{}/topics/{topic}", ctx.cluster_url())
}

fn topic_json(ctx: &Ctx, name: &str, internal: bool, replication_factor: i64, partitions: i64) -> Value {
    let url = topic_url(ctx, name);
    let fields = json!({
        "cluster_id": ctx.cluster_id,
        "topic_name": name,
        "is_internal": internal,
        "replication_factor": replication_factor,
        "partitions_count": partitions,
        "partitions": related(format!("{url}/partitions")),
        "configs": related(format!("{url}/configs")),
        "partition_reassignments": related(format!("{url}/partitions/-/reassignment")),
    });
    resource("KafkaTopic", &url, &format!("crn:///kafka={}/topic={name}", ctx.cluster_id), fields)
}

fn described_topic_json(ctx: &Ctx, topic: &MetadataResponseTopic) -> Value {
    let first = topic.partitions.iter().min_by_key(|p| p.partition_index);
    let replication_factor = first.map_or(0, |p| p.replica_nodes.len());
    let name = topic.name.as_deref().unwrap_or_default();
    topic_json(ctx, name, topic.is_internal, replication_factor as i64, topic.partitions.len() as i64)
}

/// `GET /v3/clusters/{cluster_id}/topics`.
pub async fn list_topics(ctx: Ctx, Path(cluster): Path<String>) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let mut topics = metadata(&ctx, None).await?;
    topics.retain(|t| t.error_code == 0);
    topics.sort_by(|a, b| a.name.cmp(&b.name));
    let data = topics.iter().map(|t| described_topic_json(&ctx, t)).collect();
    Ok(ok(collection("KafkaTopicList", &format!("{}/topics", ctx.cluster_url()), data)))
}

/// `GET /v3/clusters/{cluster_id}/topics/{topic_name}`.
pub async fn get_topic(ctx: Ctx, Path((cluster, topic)): Path<(String, String)>) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let found = one_topic(&ctx, &topic).await?;
    Ok(ok(described_topic_json(&ctx, &found)))
}

/// `POST /v3/clusters/{cluster_id}/topics`: 201 with the topic (200 when `validate_only`).
pub async fn create_topic(
    ctx: Ctx,
    Path(cluster): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let object = body_object(&headers, &body)?;
    let name = required_str(&object, "topic_name")?.to_owned();
    let partitions = optional_int(&object, "partitions_count", 1, i64::from(i32::MAX))?.unwrap_or(-1);
    let replication = optional_int(&object, "replication_factor", 1, i64::from(i16::MAX))?.unwrap_or(-1);
    let validate_only = flag(&object, "validate_only")?;
    let mut topic = CreatableTopic {
        name: name.clone(),
        num_partitions: partitions as i32,
        replication_factor: replication as i16,
        ..Default::default()
    };
    if let Some(configs) = object.get("configs").filter(|c| !c.is_null()) {
        let configs = configs.as_array().ok_or_else(|| RestError::bad_request("configs must be an array"))?;
        for config in configs {
            let name = config.get("name").and_then(Value::as_str);
            let name = name.ok_or_else(|| RestError::bad_request("each of configs needs a name"))?;
            let value = match config.get("value") {
                None | Some(Value::Null) => None,
                Some(Value::String(v)) => Some(v.clone()),
                Some(other) => Some(other.to_string()),
            };
            topic.configs.push(CreatableTopicConfig { name: name.to_owned(), value, ..Default::default() });
        }
    }
    if let Some(assignments) = object.get("replicas_assignments").filter(|a| !a.is_null()) {
        let assignments =
            assignments.as_object().ok_or_else(|| RestError::bad_request("replicas_assignments must be an object"))?;
        for (partition, brokers) in assignments {
            let partition_index =
                partition.parse().map_err(|_| RestError::bad_request(format!("{partition} is not a partition id")))?;
            let brokers = brokers.as_array().ok_or_else(|| RestError::bad_request("replicas must be arrays"))?;
            let broker_ids = brokers
                .iter()
                .map(|b| b.as_i64().and_then(|b| i32::try_from(b).ok()).map(BrokerId))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| RestError::bad_request("broker ids must be integers"))?;
            topic.assignments.push(CreatableReplicaAssignment { partition_index, broker_ids, ..Default::default() });
        }
        topic.assignments.sort_by_key(|a| a.partition_index);
    }
    let request =
        CreateTopicsRequest { topics: vec![topic], timeout_ms: ADMIN_TIMEOUT_MS, validate_only, ..Default::default() };
    let response = answer!(ctx, CreateTopics, request, 7);
    let result = response.topics.into_iter().next().ok_or_else(|| RestError::internal("no topic result"))?;
    check(result.error_code, result.error_message.as_deref())?;
    let created =
        topic_json(&ctx, &name, false, i64::from(result.replication_factor), i64::from(result.num_partitions));
    let status = if validate_only { StatusCode::OK } else { StatusCode::CREATED };
    Ok(with_status(status, created))
}

/// `PATCH /v3/clusters/{cluster_id}/topics/{topic_name}` with `{"partitions_count": N}`: grows
/// the topic (CreatePartitions); 200 with the topic.
pub async fn update_partition_count(
    ctx: Ctx,
    Path((cluster, topic)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let object = body_object(&headers, &body)?;
    let count = optional_int(&object, "partitions_count", 1, i64::from(i32::MAX))?;
    let count = count.ok_or_else(|| RestError::bad_request("partitions_count is required"))?;
    let request = CreatePartitionsRequest {
        topics: vec![CreatePartitionsTopic {
            name: topic.clone(),
            count: count as i32,
            assignments: None,
            ..Default::default()
        }],
        timeout_ms: ADMIN_TIMEOUT_MS,
        ..Default::default()
    };
    let response = answer!(ctx, CreatePartitions, request, 3);
    let result = response.results.into_iter().next().ok_or_else(|| RestError::internal("no topic result"))?;
    check(result.error_code, result.error_message.as_deref())?;
    let found = one_topic(&ctx, &topic).await?;
    Ok(ok(described_topic_json(&ctx, &found)))
}

/// `DELETE /v3/clusters/{cluster_id}/topics/{topic_name}`: 204.
pub async fn delete_topic(ctx: Ctx, Path((cluster, topic)): Path<(String, String)>) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let request = DeleteTopicsRequest {
        topics: vec![DeleteTopicState { name: Some(topic), ..Default::default() }],
        timeout_ms: ADMIN_TIMEOUT_MS,
        ..Default::default()
    };
    let response = answer!(ctx, DeleteTopics, request, 6);
    let result = response.responses.into_iter().next().ok_or_else(|| RestError::internal("no topic result"))?;
    check(result.error_code, result.error_message.as_deref())?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

fn partition_json(ctx: &Ctx, topic: &str, partition: &MetadataResponsePartition) -> Value {
    let id = partition.partition_index;
    let url = format!("{}/partitions/{id}", topic_url(ctx, topic));
    let mut fields = json!({ "cluster_id": ctx.cluster_id, "topic_name": topic, "partition_id": id });
    if partition.leader_id.0 >= 0 {
        fields["leader"] = related(format!("{url}/replicas/{}", partition.leader_id.0));
    }
    fields["replicas"] = related(format!("{url}/replicas"));
    fields["reassignment"] = related(format!("{url}/reassignment"));
    resource("KafkaPartition", &url, &format!("crn:///kafka={}/topic={topic}/partition={id}", ctx.cluster_id), fields)
}

/// The partition numbered `text` of `topic` (404 when the topic or the partition is unknown).
async fn one_partition(ctx: &Ctx, topic: &str, text: &str) -> Result<MetadataResponsePartition, RestError> {
    let found = one_topic(ctx, topic).await?;
    let id: Option<i32> = text.parse().ok();
    let partition = found.partitions.into_iter().find(|p| Some(p.partition_index) == id);
    partition.ok_or_else(|| RestError::kafka(3, None).unwrap_or_else(|| RestError::internal("no partition")))
}

/// `GET /v3/clusters/{cluster_id}/topics/{topic_name}/partitions`.
pub async fn list_partitions(ctx: Ctx, Path((cluster, topic)): Path<(String, String)>) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let mut partitions = one_topic(&ctx, &topic).await?.partitions;
    partitions.sort_by_key(|p| p.partition_index);
    let data = partitions.iter().map(|p| partition_json(&ctx, &topic, p)).collect();
    Ok(ok(collection("KafkaPartitionList", &format!("{}/partitions", topic_url(&ctx, &topic)), data)))
}

/// `GET /v3/clusters/{cluster_id}/topics/{topic_name}/partitions/{partition_id}`.
pub async fn get_partition(
    ctx: Ctx,
    Path((cluster, topic, partition)): Path<(String, String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let found = one_partition(&ctx, &topic, &partition).await?;
    Ok(ok(partition_json(&ctx, &topic, &found)))
}

fn replica_json(ctx: &Ctx, topic: &str, partition: &MetadataResponsePartition, broker: i32) -> Value {
    let id = partition.partition_index;
    let url = format!("{}/partitions/{id}/replicas/{broker}", topic_url(ctx, topic));
    let crn = format!("crn:///kafka={}/topic={topic}/partition={id}/replica={broker}", ctx.cluster_id);
    let fields = json!({
        "cluster_id": ctx.cluster_id,
        "topic_name": topic,
        "partition_id": id,
        "broker_id": broker,
        "is_leader": partition.leader_id.0 == broker,
        "is_in_sync": partition.isr_nodes.contains(&BrokerId(broker)),
        "broker": related(format!("{}/brokers/{broker}", ctx.cluster_url())),
    });
    resource("KafkaReplica", &url, &crn, fields)
}

/// `GET /v3/clusters/{cluster_id}/topics/{topic_name}/partitions/{partition_id}/replicas`.
pub async fn list_replicas(
    ctx: Ctx,
    Path((cluster, topic, partition)): Path<(String, String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let found = one_partition(&ctx, &topic, &partition).await?;
    let data = found.replica_nodes.iter().map(|b| replica_json(&ctx, &topic, &found, b.0)).collect();
    let url = format!("{}/partitions/{}/replicas", topic_url(&ctx, &topic), found.partition_index);
    Ok(ok(collection("KafkaReplicaList", &url, data)))
}

/// `GET /v3/clusters/{cluster_id}/topics/{topic_name}/partitions/{partition_id}/replicas/{broker_id}`.
pub async fn get_replica(
    ctx: Ctx,
    Path((cluster, topic, partition, broker)): Path<(String, String, String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let found = one_partition(&ctx, &topic, &partition).await?;
    let id = super::clusters::broker_id(&broker)?;
    if !found.replica_nodes.contains(&BrokerId(id)) {
        return Err(RestError::not_found(format!("Replica {id} cannot be found.")));
    }
    Ok(ok(replica_json(&ctx, &topic, &found, id)))
}

/// `GET /v3/clusters/{cluster_id}/brokers/{broker_id}/partition-replicas`: the replicas the broker
/// holds, by topic and partition.
pub async fn list_broker_replicas(
    ctx: Ctx,
    Path((cluster, broker)): Path<(String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let id = super::clusters::broker_id(&broker)?;
    let mut topics = metadata(&ctx, None).await?;
    topics.retain(|t| t.error_code == 0);
    topics.sort_by(|a, b| a.name.cmp(&b.name));
    let mut data = Vec::new();
    for topic in &topics {
        let name = topic.name.as_deref().unwrap_or_default();
        let mut partitions: Vec<&MetadataResponsePartition> =
            topic.partitions.iter().filter(|p| p.replica_nodes.contains(&BrokerId(id))).collect();
        partitions.sort_by_key(|p| p.partition_index);
        data.extend(partitions.into_iter().map(|p| replica_json(&ctx, name, p, id)));
    }
    let url = format!("{}/brokers/{id}/partition-replicas", ctx.cluster_url());
    Ok(ok(collection("KafkaReplicaList", &url, data)))
}
