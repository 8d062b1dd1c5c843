//! A topic's configs: list and get (DescribeConfigs), set or reset one (`PUT`/`DELETE
//! .../configs/{name}`) and alter several (`POST .../configs:alter`), each an
//! IncrementalAlterConfigs through the node, as Confluent's REST Proxy does.

use axum::body::Bytes;
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use strand_protocol::messages::IncrementalAlterConfigsRequest;
use strand_protocol::messages::describe_configs_response::DescribeConfigsResourceResult;
use strand_protocol::messages::incremental_alter_configs_request::{AlterConfigsResource, AlterableConfig};

use super::clusters::{BROKER_RESOURCE, broker_id, config_fields, describe_configs};
use super::error::check;
use super::json::{body_object, collection, flag, ok, resource};
use super::topics::topic_url;
use super::{Ctx, RestError, answer};

/// Kafka's config resource type of a topic.
const TOPIC_RESOURCE: i8 = 2;

/// IncrementalAlterConfigs' operations.
const SET: i8 = 0;
const DELETE: i8 = 1;
const APPEND: i8 = 2;
const SUBTRACT: i8 = 3;

fn topic_config_json(ctx: &Ctx, topic: &str, config: &DescribeConfigsResourceResult) -> Value {
    let url = format!("{}/configs/{}", topic_url(ctx, topic), config.name);
    let crn = format!("crn:///kafka={}/topic={topic}/config={}", ctx.cluster_id, config.name);
    resource("KafkaTopicConfig", &url, &crn, config_fields(ctx, json!({ "topic_name": topic }), config))
}

/// `GET /v3/clusters/{cluster_id}/topics/{topic_name}/configs`.
pub async fn list_topic_configs(
    ctx: Ctx,
    Path((cluster, topic)): Path<(String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let configs = describe_configs(&ctx, TOPIC_RESOURCE, &topic, None).await?;
    let data = configs.iter().map(|c| topic_config_json(&ctx, &topic, c)).collect();
    Ok(ok(collection("KafkaTopicConfigList", &format!("{}/configs", topic_url(&ctx, &topic)), data)))
}

/// `GET /v3/clusters/{cluster_id}/topics/{topic_name}/configs/{name}`.
pub async fn get_topic_config(
    ctx: Ctx,
    Path((cluster, topic, name)): Path<(String, String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let configs = describe_configs(&ctx, TOPIC_RESOURCE, &topic, Some(vec![name.clone()])).await?;
    let config = configs.iter().find(|c| c.name == name);
    let config =
        config.ok_or_else(|| RestError::not_found(format!("Config {name} cannot be found for topic {topic}.")))?;
    Ok(ok(topic_config_json(&ctx, &topic, config)))
}

/// Sends one IncrementalAlterConfigs for the resource: 204, or the error.
async fn alter_resource(
    ctx: &Ctx,
    resource_type: i8,
    resource_name: String,
    configs: Vec<AlterableConfig>,
    validate_only: bool,
) -> Result<Response, RestError> {
    let request = IncrementalAlterConfigsRequest {
        resources: vec![AlterConfigsResource { resource_type, resource_name, configs, ..Default::default() }],
        validate_only,
        ..Default::default()
    };
    let response = answer!(ctx, IncrementalAlterConfigs, request, 1);
    let result = response.responses.into_iter().next().ok_or_else(|| RestError::internal("no config result"))?;
    check(result.error_code, result.error_message.as_deref())?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

fn config_value(value: Option<&Value>) -> Option<String> {
    match value {
        None | Some(Value::Null) => None,
        Some(Value::String(v)) => Some(v.clone()),
        Some(other) => Some(other.to_string()),
    }
}

/// A `PUT .../configs/{name}` body, `{"value": ...}`, as the config to set.
fn set_from(headers: &HeaderMap, body: &[u8], name: String) -> Result<Vec<AlterableConfig>, RestError> {
    let value = config_value(body_object(headers, body)?.get("value"));
    Ok(vec![AlterableConfig { name, config_operation: SET, value, ..Default::default() }])
}

fn reset(name: String) -> Vec<AlterableConfig> {
    vec![AlterableConfig { name, config_operation: DELETE, ..Default::default() }]
}

/// An `:alter` body, `{"data": [{"name", "value", "operation"}], "validate_only"}`: its configs
/// (SET when no operation is named) and whether to validate only.
fn alter_batch(headers: &HeaderMap, body: &[u8]) -> Result<(Vec<AlterableConfig>, bool), RestError> {
    let object = body_object(headers, body)?;
    let data = object.get("data").and_then(Value::as_array);
    let data = data.ok_or_else(|| RestError::bad_request("data must be an array"))?;
    let mut configs = Vec::with_capacity(data.len());
    for entry in data {
        let name = entry.get("name").and_then(Value::as_str);
        let name = name.ok_or_else(|| RestError::bad_request("each entry needs a name"))?;
        let operation = match entry.get("operation").and_then(Value::as_str).map(str::to_ascii_uppercase).as_deref() {
            None | Some("SET") => SET,
            Some("DELETE") => DELETE,
            Some("APPEND") => APPEND,
            Some("SUBTRACT") => SUBTRACT,
            Some(other) => return Err(RestError::bad_request(format!("Unknown operation {other}"))),
        };
        let value = config_value(entry.get("value"));
        configs.push(AlterableConfig {
            name: name.to_owned(),
            config_operation: operation,
            value,
            ..Default::default()
        });
    }
    Ok((configs, flag(&object, "validate_only")?))
}

/// `PUT /v3/clusters/{cluster_id}/topics/{topic_name}/configs/{name}` with `{"value": ...}`.
pub async fn update_topic_config(
    ctx: Ctx,
    Path((cluster, topic, name)): Path<(String, String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    alter_resource(&ctx, TOPIC_RESOURCE, topic, set_from(&headers, &body, name)?, false).await
}

/// `DELETE /v3/clusters/{cluster_id}/topics/{topic_name}/configs/{name}`: back to the default.
pub async fn reset_topic_config(
    ctx: Ctx,
    Path((cluster, topic, name)): Path<(String, String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    alter_resource(&ctx, TOPIC_RESOURCE, topic, reset(name), false).await
}

/// `POST /v3/clusters/{cluster_id}/topics/{topic_name}/configs:alter`.
pub async fn alter_topic_configs(
    ctx: Ctx,
    Path((cluster, topic)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let (configs, validate_only) = alter_batch(&headers, &body)?;
    alter_resource(&ctx, TOPIC_RESOURCE, topic, configs, validate_only).await
}

/// A cluster-wide broker config (Kafka's dynamic default, of the BROKER resource named "").
fn cluster_config_json(ctx: &Ctx, config: &DescribeConfigsResourceResult) -> Value {
    let url = format!("{}/broker-configs/{}", ctx.cluster_url(), config.name);
    let crn = format!("crn:///kafka={}/broker-config={}", ctx.cluster_id, config.name);
    resource("KafkaClusterConfig", &url, &crn, config_fields(ctx, json!({ "config_type": "BROKER" }), config))
}

/// `GET /v3/clusters/{cluster_id}/broker-configs`.
pub async fn list_cluster_configs(ctx: Ctx, Path(cluster): Path<String>) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let configs = describe_configs(&ctx, BROKER_RESOURCE, "", None).await?;
    let data = configs.iter().map(|c| cluster_config_json(&ctx, c)).collect();
    Ok(ok(collection("KafkaClusterConfigList", &format!("{}/broker-configs", ctx.cluster_url()), data)))
}

/// `GET /v3/clusters/{cluster_id}/broker-configs/{name}`.
pub async fn get_cluster_config(
    ctx: Ctx,
    Path((cluster, name)): Path<(String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let configs = describe_configs(&ctx, BROKER_RESOURCE, "", Some(vec![name.clone()])).await?;
    let config = configs.iter().find(|c| c.name == name);
    let config = config.ok_or_else(|| RestError::not_found(format!("Config {name} cannot be found.")))?;
    Ok(ok(cluster_config_json(&ctx, config)))
}

/// `PUT /v3/clusters/{cluster_id}/broker-configs/{name}` with `{"value": ...}`.
pub async fn update_cluster_config(
    ctx: Ctx,
    Path((cluster, name)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    alter_resource(&ctx, BROKER_RESOURCE, String::new(), set_from(&headers, &body, name)?, false).await
}

/// `DELETE /v3/clusters/{cluster_id}/broker-configs/{name}`.
pub async fn reset_cluster_config(
    ctx: Ctx,
    Path((cluster, name)): Path<(String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    alter_resource(&ctx, BROKER_RESOURCE, String::new(), reset(name), false).await
}

/// `POST /v3/clusters/{cluster_id}/broker-configs:alter`.
pub async fn alter_cluster_configs(
    ctx: Ctx,
    Path(cluster): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let (configs, validate_only) = alter_batch(&headers, &body)?;
    alter_resource(&ctx, BROKER_RESOURCE, String::new(), configs, validate_only).await
}

/// `PUT /v3/clusters/{cluster_id}/brokers/{broker_id}/configs/{name}` with `{"value": ...}`.
pub async fn update_broker_config(
    ctx: Ctx,
    Path((cluster, broker, name)): Path<(String, String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let id = broker_id(&broker)?.to_string();
    alter_resource(&ctx, BROKER_RESOURCE, id, set_from(&headers, &body, name)?, false).await
}

/// `DELETE /v3/clusters/{cluster_id}/brokers/{broker_id}/configs/{name}`.
pub async fn reset_broker_config(
    ctx: Ctx,
    Path((cluster, broker, name)): Path<(String, String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let id = broker_id(&broker)?.to_string();
    alter_resource(&ctx, BROKER_RESOURCE, id, reset(name), false).await
}

/// `POST /v3/clusters/{cluster_id}/brokers/{broker_id}/configs:alter`.
pub async fn alter_broker_configs(
    ctx: Ctx,
    Path((cluster, broker)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let id = broker_id(&broker)?.to_string();
    let (configs, validate_only) = alter_batch(&headers, &body)?;
    alter_resource(&ctx, BROKER_RESOURCE, id, configs, validate_only).await
}
