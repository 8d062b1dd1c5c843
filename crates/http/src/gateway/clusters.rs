//! `/v3/clusters`, `/v3/clusters/{cluster_id}`, its brokers and their configs: DescribeCluster
//! and DescribeConfigs (resource type BROKER) through the node.

use axum::extract::Path;
use axum::response::Response;
use serde_json::{Value, json};
use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
use strand_protocol::messages::describe_configs_response::DescribeConfigsResourceResult;
use strand_protocol::messages::{DescribeClusterRequest, DescribeClusterResponse, DescribeConfigsRequest};

use super::error::check;
use super::json::{collection, ok, related, resource};
use super::{Ctx, RestError, answer};

/// Kafka's config resource type of a broker.
pub(super) const BROKER_RESOURCE: i8 = 4;

/// DescribeCluster through the node.
async fn describe_cluster(ctx: &Ctx) -> Result<DescribeClusterResponse, RestError> {
    let request = DescribeClusterRequest { endpoint_type: 1, ..Default::default() };
    let response = answer!(ctx, DescribeCluster, request, 1);
    check(response.error_code, response.error_message.as_deref())?;
    Ok(response)
}

fn cluster_json(ctx: &Ctx, controller: i32) -> Value {
    let url = ctx.cluster_url();
    let mut fields = json!({ "cluster_id": ctx.cluster_id });
    if controller >= 0 {
        fields["controller"] = related(format!("{url}/brokers/{controller}"));
    }
    for (field, path) in [
        ("acls", "acls"),
        ("brokers", "brokers"),
        ("broker_configs", "broker-configs"),
        ("consumer_groups", "consumer-groups"),
        ("topics", "topics"),
        ("partition_reassignments", "topics/-/partitions/-/reassignment"),
    ] {
        fields[field] = related(format!("{url}/{path}"));
    }
    resource("KafkaCluster", &url, &format!("crn:///kafka={}", ctx.cluster_id), fields)
}

/// `GET /v3/clusters`: this cluster, the only one a node knows.
pub async fn list_clusters(ctx: Ctx) -> Result<Response, RestError> {
    let cluster = describe_cluster(&ctx).await?;
    let url = format!("{}/clusters", ctx.base);
    Ok(ok(collection("KafkaClusterList", &url, vec![cluster_json(&ctx, cluster.controller_id.0)])))
}

/// `GET /v3/clusters/{cluster_id}`.
pub async fn get_cluster(ctx: Ctx, Path(cluster): Path<String>) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let described = describe_cluster(&ctx).await?;
    Ok(ok(cluster_json(&ctx, described.controller_id.0)))
}

fn broker_json(ctx: &Ctx, id: i32, host: &str, port: i32, rack: Option<&str>) -> Value {
    let url = format!("{}/brokers/{id}", ctx.cluster_url());
    let fields = json!({
        "cluster_id": ctx.cluster_id,
        "broker_id": id,
        "host": host,
        "port": port,
        "rack": rack,
        "configs": related(format!("{url}/configs")),
        "partition_replicas": related(format!("{url}/partition-replicas")),
    });
    resource("KafkaBroker", &url, &format!("crn:///kafka={}/broker={id}", ctx.cluster_id), fields)
}

/// `GET /v3/clusters/{cluster_id}/brokers`.
pub async fn list_brokers(ctx: Ctx, Path(cluster): Path<String>) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let mut brokers = describe_cluster(&ctx).await?.brokers;
    brokers.sort_by_key(|b| b.broker_id.0);
    let data = brokers.iter().map(|b| broker_json(&ctx, b.broker_id.0, &b.host, b.port, b.rack.as_deref())).collect();
    Ok(ok(collection("KafkaBrokerList", &format!("{}/brokers", ctx.cluster_url()), data)))
}

/// `GET /v3/clusters/{cluster_id}/brokers/{broker_id}`.
pub async fn get_broker(ctx: Ctx, Path((cluster, broker)): Path<(String, String)>) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let id = broker_id(&broker)?;
    let brokers = describe_cluster(&ctx).await?.brokers;
    let found = brokers.iter().find(|b| b.broker_id.0 == id);
    let b = found.ok_or_else(|| RestError::not_found(format!("Broker {id} cannot be found.")))?;
    Ok(ok(broker_json(&ctx, id, &b.host, b.port, b.rack.as_deref())))
}

pub(super) fn broker_id(text: &str) -> Result<i32, RestError> {
    text.parse().map_err(|_| RestError::not_found(format!("Broker {text} cannot be found.")))
}

/// Kafka's name of a `config_source` (DescribeConfigs), as Confluent spells it.
pub(super) fn config_source(source: i8) -> &'static str {
    match source {
        1 => "DYNAMIC_TOPIC_CONFIG",
        2 => "DYNAMIC_BROKER_CONFIG",
        3 => "DYNAMIC_DEFAULT_BROKER_CONFIG",
        4 => "STATIC_BROKER_CONFIG",
        5 => "DEFAULT_CONFIG",
        6 => "DYNAMIC_BROKER_LOGGER_CONFIG",
        _ => "UNKNOWN",
    }
}

/// The fields every config resource has (Confluent's `AbstractConfigData`), after `owner`'s.
pub(super) fn config_fields(ctx: &Ctx, owner: Value, config: &DescribeConfigsResourceResult) -> Value {
    let mut fields = json!({ "cluster_id": ctx.cluster_id });
    if let Value::Object(owner) = owner {
        fields.as_object_mut().into_iter().for_each(|f| f.extend(owner.clone()));
    }
    let synonyms: Vec<Value> = config
        .synonyms
        .iter()
        .map(|s| json!({ "name": s.name, "value": s.value, "source": config_source(s.source) }))
        .collect();
    let more = json!({
        "name": config.name,
        "value": if config.is_sensitive { None } else { config.value.clone() },
        "is_default": config.config_source == 5,
        "is_read_only": config.read_only,
        "is_sensitive": config.is_sensitive,
        "source": config_source(config.config_source),
        "synonyms": synonyms,
    });
    if let (Some(fields), Value::Object(more)) = (fields.as_object_mut(), more) {
        fields.extend(more);
    }
    fields
}

/// DescribeConfigs of one resource, with synonyms: its configs, sorted by name.
pub(super) async fn describe_configs(
    ctx: &Ctx,
    resource_type: i8,
    name: &str,
    keys: Option<Vec<String>>,
) -> Result<Vec<DescribeConfigsResourceResult>, RestError> {
    let request = DescribeConfigsRequest {
        resources: vec![DescribeConfigsResource {
            resource_type,
            resource_name: name.to_owned(),
            configuration_keys: keys,
            ..Default::default()
        }],
        include_synonyms: true,
        ..Default::default()
    };
    let response = answer!(ctx, DescribeConfigs, request, 4);
    let result = response.results.into_iter().next().ok_or_else(|| RestError::internal("no config result"))?;
    check(result.error_code, result.error_message.as_deref())?;
    let mut configs = result.configs;
    configs.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(configs)
}

fn broker_config_json(ctx: &Ctx, id: i32, config: &DescribeConfigsResourceResult) -> Value {
    let url = format!("{}/brokers/{id}/configs/{}", ctx.cluster_url(), config.name);
    let crn = format!("crn:///kafka={}/broker={id}/config={}", ctx.cluster_id, config.name);
    resource("KafkaBrokerConfig", &url, &crn, config_fields(ctx, json!({ "broker_id": id }), config))
}

/// `GET /v3/clusters/{cluster_id}/brokers/{broker_id}/configs`.
pub async fn list_broker_configs(
    ctx: Ctx,
    Path((cluster, broker)): Path<(String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let id = broker_id(&broker)?;
    let configs = describe_configs(&ctx, BROKER_RESOURCE, &id.to_string(), None).await?;
    let data = configs.iter().map(|c| broker_config_json(&ctx, id, c)).collect();
    let url = format!("{}/brokers/{id}/configs", ctx.cluster_url());
    Ok(ok(collection("KafkaBrokerConfigList", &url, data)))
}

/// `GET /v3/clusters/{cluster_id}/brokers/{broker_id}/configs/{name}`.
pub async fn get_broker_config(
    ctx: Ctx,
    Path((cluster, broker, name)): Path<(String, String, String)>,
) -> Result<Response, RestError> {
    ctx.check_cluster(&cluster)?;
    let id = broker_id(&broker)?;
    let configs = describe_configs(&ctx, BROKER_RESOURCE, &id.to_string(), Some(vec![name.clone()])).await?;
    let config = configs.iter().find(|c| c.name == name);
    let config =
        config.ok_or_else(|| RestError::not_found(format!("Config {name} cannot be found for broker {id}.")))?;
    Ok(ok(broker_config_json(&ctx, id, config)))
}
