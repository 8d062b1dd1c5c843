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

use super::clusters::{config_fields, describe_configs};
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

/// Sends one IncrementalAlterConfigs for `topic`: 204, or the error.
async fn alter(
    ctx: &Ctx,
    topic: String,
    configs: Vec<AlterableConfig>,
    validate_only: bool,
) -> Result<Response, RestError> {
    let request = IncrementalAlterConfigsRequest {
        resources: vec![AlterConfigsResource {
            resource_type: TOPIC_RESOURCE,
            resource_name: topic,
            configs,
            ..Default::default()
        }],
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

/// `PUT /v3/clusters/{cluster_id}/topics/{topic_name}/configs/{name}` with `{"value": ...}`.
pub async fn update_topic_config(
    ctx: Ctx,
    Path((cluster, topic, name)): Path<(String, String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let object = body_object(&headers, &body)?;
    let value = config_value(object.get("value"));
    alter(&ctx, topic, vec![AlterableConfig { name, config_operation: SET, value, ..Default::default() }], false).await
}

/// `DELETE /v3/clusters/{cluster_id}/topics/{topic_name}/configs/{name}`: back to the default.
pub async fn reset_topic_config(
    ctx: Ctx,
    Path((cluster, topic, name)): Path<(String, String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    alter(&ctx, topic, vec![AlterableConfig { name, config_operation: DELETE, ..Default::default() }], false).await
}

/// `POST /v3/clusters/{cluster_id}/topics/{topic_name}/configs:alter` with
/// `{"data": [{"name", "value", "operation"}], "validate_only"}`; the operation is SET when
/// absent.
pub async fn alter_topic_configs(
    ctx: Ctx,
    Path((cluster, topic)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let object = body_object(&headers, &body)?;
    let data =
        object.get("data").and_then(Value::as_array).ok_or_else(|| RestError::bad_request("data must be an array"))?;
    let mut configs = Vec::with_capacity(data.len());
    for entry in data {
        let name = entry
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| RestError::bad_request("each entry needs a name"))?;
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
    alter(&ctx, topic, configs, flag(&object, "validate_only")?).await
}
