//! IncrementalAlterConfigs and AlterConfigs for topics and for the dynamic broker configs that
//! default topic configs, as Kafka's `ConfigAdminManager.preprocess` (the broker's checks) then
//! `ConfigurationControlManager` (the controller's).
//!
//! Each resource succeeds or fails whole. Topic configs are validated as a complete set
//! (INVALID_CONFIG); a missing topic is UNKNOWN_TOPIC_OR_PARTITION. Broker resources are the
//! cluster default (empty name) or a registered broker's id, and accept the broker synonyms of
//! topic configs (`log.retention.ms`, `message.max.bytes`, ...) and the replication throttles'
//! rates (`leader.replication.throttled.rate`, `follower.replication.throttled.rate`,
//! `replica.alter.log.dirs.io.max.bytes.per.second`); any other broker key, or a bad
//! value, is INVALID_REQUEST, as Kafka answers a broker config it cannot apply (KAFKA-13609).
//! A broker id's resource also takes its listeners' TLS stores
//! (`listener.name.<listener>.ssl.keystore.location`, ...: [`LISTENER_TLS_STORE_KEYS`]), which
//! the node reloads (it checks they load before the request is forwarded here).
//! With eligible leader replicas on (KIP-966), a changed `min.insync.replicas` clears the ELRs
//! computed under the old value (a `ClearElrRecord`: the topic's, or all for the cluster default),
//! a broker id's own `min.insync.replicas` is refused and the cluster default may not be deleted
//! (INVALID_CONFIG), as Kafka's `ConfigurationControlManager`.
//! Group configs are the keys of `crate::image::group_configs` (any group name but the empty one);
//! client-metrics configs are not supported yet; `BROKER_LOGGER` resources are the
//! broker's own business (log levels are not metadata) and are refused here.

use std::collections::{BTreeMap, BTreeSet};

use strand_base::BrokerId;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{
    AlterConfigsRequest, AlterConfigsResponse, ClearElrRecord, ConfigRecord, IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse, alter_configs_response, incremental_alter_configs_response,
};

use super::partition_change::elr_enabled;
use super::topic_configs::MIN_INSYNC_REPLICAS;
use super::topic_configs::{
    broker_quota_config, split_list, topic_config, topic_config_for_broker_synonym, validate_topic_configs,
    validate_value,
};
use super::topic_name::validate_topic_name;
use super::{ApiError, ApiMessageAndVersion, ControllerResult};
use crate::image::group_configs::validate_group_configs;
use crate::image::{ConfigResource, ConfigResourceKind, MetadataImage};

/// Applies SET, DELETE, APPEND and SUBTRACT operations to each resource: a `ConfigRecord` per
/// key whose value changes (per key named, for brokers), a null value deleting the key.
pub fn incremental_alter_configs(
    image: &MetadataImage,
    request: &IncrementalAlterConfigsRequest,
) -> ControllerResult<IncrementalAlterConfigsResponse> {
    let repeated = repeated(request.resources.iter().map(|r| (r.resource_type, r.resource_name.as_str())));
    let mut records = Vec::new();
    let mut responses = Vec::new();
    for resource in &request.resources {
        let changes: Result<Vec<Change<'_>>, ApiError> = resource
            .configs
            .iter()
            .map(|c| Change::incremental(&c.name, c.config_operation, c.value.as_deref()))
            .collect();
        let outcome = if repeated.contains(&(resource.resource_type, resource.resource_name.as_str())) {
            Err(ApiError::new(ErrorCode::InvalidRequest, "Each resource must appear at most once."))
        } else {
            changes.and_then(|c| alter(image, resource.resource_type, &resource.resource_name, &c, Mode::Incremental))
        };
        let error = collect(outcome, &mut records);
        responses.push(incremental_alter_configs_response::AlterConfigsResourceResponse {
            error_code: error.code.code(),
            error_message: error.message,
            resource_type: resource.resource_type,
            resource_name: resource.resource_name.clone(),
            ..Default::default()
        });
    }
    records.extend(clear_elr_records(image, &records));
    if request.validate_only {
        records.clear();
    }
    let response = IncrementalAlterConfigsResponse { responses, ..IncrementalAlterConfigsResponse::default() };
    ControllerResult { records, response }
}

/// Replaces each resource's configs with the given set: a `ConfigRecord` per changed key, and a
/// deleting one per key the request leaves out (Kafka's legacy AlterConfigs).
pub fn alter_configs(image: &MetadataImage, request: &AlterConfigsRequest) -> ControllerResult<AlterConfigsResponse> {
    let repeated = repeated(request.resources.iter().map(|r| (r.resource_type, r.resource_name.as_str())));
    let mut records = Vec::new();
    let mut responses = Vec::new();
    for resource in &request.resources {
        let changes: Vec<Change<'_>> = resource
            .configs
            .iter()
            .map(|c| Change { key: &c.name, op: OpType::Set, value: c.value.as_deref() })
            .collect();
        let outcome = if repeated.contains(&(resource.resource_type, resource.resource_name.as_str())) {
            Err(ApiError::new(ErrorCode::InvalidRequest, "Each resource must appear at most once."))
        } else {
            alter(image, resource.resource_type, &resource.resource_name, &changes, Mode::Replace)
        };
        let error = collect(outcome, &mut records);
        responses.push(alter_configs_response::AlterConfigsResourceResponse {
            error_code: error.code.code(),
            error_message: error.message,
            resource_type: resource.resource_type,
            resource_name: resource.resource_name.clone(),
            ..Default::default()
        });
    }
    records.extend(clear_elr_records(image, &records));
    if request.validate_only {
        records.clear();
    }
    ControllerResult { records, response: AlterConfigsResponse { responses, ..AlterConfigsResponse::default() } }
}

/// Kafka's `AlterConfigOp.OpType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpType {
    Set,
    Delete,
    Append,
    Subtract,
}

/// Whether the request's keys are the whole new set (AlterConfigs) or changes (incremental).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Incremental,
    Replace,
}

/// One key's requested change.
#[derive(Debug, Clone, Copy)]
struct Change<'a> {
    key: &'a str,
    op: OpType,
    value: Option<&'a str>,
}

impl<'a> Change<'a> {
    fn incremental(key: &'a str, op: i8, value: Option<&'a str>) -> Result<Change<'a>, ApiError> {
        let op = match op {
            0 => OpType::Set,
            1 => OpType::Delete,
            2 => OpType::Append,
            3 => OpType::Subtract,
            other => return Err(ApiError::new(ErrorCode::InvalidRequest, format!("Unknown operations type {other}"))),
        };
        Ok(Change { key, op, value })
    }
}

/// The records for one resource, or why it fails.
fn alter(
    image: &MetadataImage,
    kind: i8,
    name: &str,
    changes: &[Change<'_>],
    mode: Mode,
) -> Result<Vec<ApiMessageAndVersion>, ApiError> {
    let resource = supported_resource(kind, name)?;
    check_request_shape(changes, mode)?;
    let current = image.configs().resource(&resource).cloned().unwrap_or_default();
    let updates = match mode {
        Mode::Incremental => incremental_updates(&resource, &current, changes)?,
        Mode::Replace => replacement_updates(&resource, &current, changes),
    };
    let mut next = current;
    for (key, value) in &updates {
        match value {
            Some(value) => next.insert(key.clone(), value.clone()),
            None => next.remove(key),
        };
    }
    validate(image, &resource, &next)?;
    check_min_isr_change(image, &resource, &updates)?;
    Ok(updates.into_iter().map(|(key, value)| config_record(&resource, key, value)).collect())
}

/// The resource kinds Strand stores, and Kafka's checks on their names.
fn supported_resource(kind: i8, name: &str) -> Result<ConfigResource, ApiError> {
    let invalid = |message: String| ApiError::new(ErrorCode::InvalidRequest, message);
    match ConfigResourceKind::from_wire(kind) {
        Some(ConfigResourceKind::Topic) if name.is_empty() => {
            Err(invalid("Default topic resources are not allowed.".to_owned()))
        }
        Some(ConfigResourceKind::Topic) => {
            validate_topic_name(name).map_err(|m| ApiError::new(ErrorCode::InvalidTopicException, m))?;
            Ok(ConfigResource::topic(name))
        }
        Some(ConfigResourceKind::Broker) => {
            if !name.is_empty() && name.parse::<i32>().is_err() {
                return Err(invalid(format!("Node id must be an integer, but it is: {name}")));
            }
            Ok(ConfigResource::broker(name))
        }
        Some(ConfigResourceKind::Group) if name.is_empty() => {
            Err(invalid("Default group resources are not allowed.".to_owned()))
        }
        Some(ConfigResourceKind::Group) => {
            Ok(ConfigResource { kind: ConfigResourceKind::Group, name: name.to_owned() })
        }
        Some(ConfigResourceKind::ClientMetrics) => {
            Err(invalid(format!("Configs of resource type {kind} are not supported yet.")))
        }
        _ => Err(invalid(format!("Unknown resource type {kind}"))),
    }
}

/// The broker-side checks: no key twice, and no null value except to delete.
fn check_request_shape(changes: &[Change<'_>], mode: Mode) -> Result<(), ApiError> {
    let mut keys = BTreeSet::new();
    if !changes.iter().all(|c| keys.insert(c.key)) {
        return Err(ApiError::new(ErrorCode::InvalidRequest, "Error due to duplicate config keys"));
    }
    let nulls: Vec<&str> = changes
        .iter()
        .filter(|c| c.value.is_none() && (mode == Mode::Replace || c.op != OpType::Delete))
        .map(|c| c.key)
        .collect();
    if !nulls.is_empty() {
        let message = format!("Null value not supported for : {}", nulls.join(", "));
        return Err(ApiError::new(ErrorCode::InvalidRequest, message));
    }
    Ok(())
}

/// Kafka's `incrementalAlterConfigResource`: the new value of each key, written when it changes
/// (always, for brokers, so that they reload it: KAFKA-14136).
fn incremental_updates(
    resource: &ConfigResource,
    current: &BTreeMap<String, String>,
    changes: &[Change<'_>],
) -> Result<Vec<(String, Option<String>)>, ApiError> {
    let mut updates = Vec::new();
    for change in changes {
        let old = current.get(change.key).cloned();
        let new = match change.op {
            OpType::Set => change.value.map(str::to_owned),
            OpType::Delete => None,
            OpType::Append | OpType::Subtract => Some(list_update(resource, change, old.as_deref())?),
        };
        if new != old || resource.kind == ConfigResourceKind::Broker {
            updates.push((change.key.to_owned(), new));
        }
    }
    Ok(updates)
}

/// APPEND adds the values not yet in the list; SUBTRACT removes them. The list starts from the
/// current value, or the default when there is none.
fn list_update(resource: &ConfigResource, change: &Change<'_>, old: Option<&str>) -> Result<String, ApiError> {
    let def = match resource.kind {
        ConfigResourceKind::Broker => topic_config_for_broker_synonym(change.key),
        _ => topic_config(change.key),
    };
    let Some(def) = def.filter(|d| d.kind.is_list()) else {
        let op = if change.op == OpType::Append { "APPEND" } else { "SUBTRACT" };
        let message = format!("Can't {op} to key {} because its type is not LIST.", change.key);
        return Err(ApiError::new(ErrorCode::InvalidConfig, message));
    };
    let mut list: Vec<String> = split_list(old.unwrap_or(def.default)).into_iter().filter(|s| !s.is_empty()).collect();
    let values = change.value.unwrap_or("").split(',');
    // Sets, not scans: a value may list as many items as a request holds.
    match change.op {
        OpType::Append => {
            let mut present: BTreeSet<String> = list.iter().cloned().collect();
            list.extend(values.filter(|v| present.insert((*v).to_owned())).map(str::to_owned));
        }
        _ => {
            let removed: BTreeSet<&str> = values.collect();
            list.retain(|v| !removed.contains(v.as_str()));
        }
    }
    Ok(list.join(","))
}

/// Kafka's `legacyAlterConfigResource`: changed keys, then deletions of keys left out.
fn replacement_updates(
    resource: &ConfigResource,
    current: &BTreeMap<String, String>,
    changes: &[Change<'_>],
) -> Vec<(String, Option<String>)> {
    let given: BTreeSet<&str> = changes.iter().map(|c| c.key).collect();
    let changed = changes
        .iter()
        .filter(|c| current.get(c.key).map(String::as_str) != c.value || resource.kind == ConfigResourceKind::Broker)
        .map(|c| (c.key.to_owned(), c.value.map(str::to_owned)));
    let removed = current.keys().filter(|k| !given.contains(k.as_str())).map(|k| (k.clone(), None));
    changed.chain(removed).collect()
}

/// The resulting set must be valid and the resource must exist (Kafka's validator, then its
/// existence checker).
fn validate(image: &MetadataImage, resource: &ConfigResource, next: &BTreeMap<String, String>) -> Result<(), ApiError> {
    match resource.kind {
        ConfigResourceKind::Topic => {
            validate_topic_configs(next).map_err(|m| ApiError::new(ErrorCode::InvalidConfig, m))?;
            if image.topics().by_name(&resource.name).is_none() {
                let message = format!("The topic '{}' does not exist.", resource.name);
                return Err(ApiError::new(ErrorCode::UnknownTopicOrPartition, message));
            }
            Ok(())
        }
        ConfigResourceKind::Group => {
            validate_group_configs(next).map_err(|m| ApiError::new(ErrorCode::InvalidConfig, m))
        }
        _ => validate_broker(image, resource, next),
    }
}

/// The TLS keys a broker's listener takes at run time, each prefixed
/// `listener.name.<listener>.`: Kafka's `SslConfigs.RECONFIGURABLE_CONFIGS`, its key and trust
/// stores.
pub const LISTENER_TLS_STORE_KEYS: &[&str] = &[
    "ssl.keystore.type",
    "ssl.keystore.location",
    "ssl.keystore.password",
    "ssl.key.password",
    "ssl.keystore.certificate.chain",
    "ssl.keystore.key",
    "ssl.truststore.type",
    "ssl.truststore.location",
    "ssl.truststore.password",
    "ssl.truststore.certificates",
];

/// `listener.name.<listener>.<base>` split into the listener (as written) and a
/// [`LISTENER_TLS_STORE_KEYS`] base; `None` for any other key.
pub fn listener_tls_store_key(key: &str) -> Option<(&str, &str)> {
    let (listener, base) = key.strip_prefix("listener.name.")?.split_once('.')?;
    (!listener.is_empty() && LISTENER_TLS_STORE_KEYS.contains(&base)).then_some((listener, base))
}

fn validate_broker(
    image: &MetadataImage,
    resource: &ConfigResource,
    next: &BTreeMap<String, String>,
) -> Result<(), ApiError> {
    let per_broker: Vec<&str> =
        next.keys().map(String::as_str).filter(|key| listener_tls_store_key(key).is_some()).collect();
    if resource.name.is_empty() && !per_broker.is_empty() {
        let message = format!(
            "Cannot update these configs at default cluster level, broker id must be specified: Set({})",
            per_broker.join(", ")
        );
        return Err(ApiError::new(ErrorCode::InvalidRequest, message));
    }
    for (key, value) in next.iter().filter(|(key, _)| listener_tls_store_key(key).is_none()) {
        let cannot = |why: &str| {
            ApiError::new(
                ErrorCode::InvalidRequest,
                format!("Cannot update these configs dynamically: Set({key}){why}"),
            )
        };
        let def =
            topic_config_for_broker_synonym(key).or_else(|| broker_quota_config(key)).ok_or_else(|| cannot(""))?;
        validate_value(def, key, value).map_err(|m| ApiError::new(ErrorCode::InvalidRequest, m))?;
    }
    if let Ok(id) = resource.name.parse::<i32>()
        && image.cluster().broker(BrokerId(id)).is_none()
    {
        return Err(ApiError::new(ErrorCode::BrokerIdNotRegistered, format!("No node with id {id} found.")));
    }
    Ok(())
}

/// Kafka's `isDisallowedBrokerMinIsrTransition` and `isDisallowedClusterMinIsrTransition`: with
/// eligible leader replicas on, a broker's own `min.insync.replicas` may not be set or deleted
/// (the ELR needs one value for the whole cluster), nor the cluster default deleted.
fn check_min_isr_change(
    image: &MetadataImage,
    resource: &ConfigResource,
    updates: &[(String, Option<String>)],
) -> Result<(), ApiError> {
    if resource.kind != ConfigResourceKind::Broker || !elr_enabled(image) {
        return Ok(());
    }
    for (_, value) in updates.iter().filter(|(key, _)| key == MIN_INSYNC_REPLICAS) {
        if !resource.name.is_empty() {
            let message = "Broker-level min.insync.replicas cannot be altered while ELR is enabled.";
            return Err(ApiError::new(ErrorCode::InvalidConfig, message));
        }
        if value.is_none() {
            let message = "Cluster-level min.insync.replicas cannot be removed while ELR is enabled.";
            return Err(ApiError::new(ErrorCode::InvalidConfig, message));
        }
    }
    Ok(())
}

/// Kafka's `ConfigurationControlManager.maybeGenerateElrSafetyRecords`: the records that make it
/// safe to turn eligible leader replicas on, which need one `min.insync.replicas` for the whole
/// cluster: a cluster-level one (the controller's static value) when none is set, and every
/// broker's own one deleted, a departed broker's too. Nothing when both hold already.
pub fn elr_safety_records(image: &MetadataImage, static_min_insync_replicas: i32) -> Vec<ApiMessageAndVersion> {
    let mut records = Vec::new();
    let cluster = ConfigResource::cluster_default();
    if image.configs().value(&cluster, MIN_INSYNC_REPLICAS).is_none() {
        let value = static_min_insync_replicas.to_string();
        records.push(config_record(&cluster, MIN_INSYNC_REPLICAS.to_owned(), Some(value)));
    }
    let brokers = image.configs().resources().filter(|(resource, configs)| {
        resource.kind == ConfigResourceKind::Broker
            && !resource.name.is_empty()
            && configs.contains_key(MIN_INSYNC_REPLICAS)
    });
    for (resource, _) in brokers {
        records.push(config_record(resource, MIN_INSYNC_REPLICAS.to_owned(), None));
    }
    records
}

/// Kafka's `createClearElrRecordsAsNeeded`: with eligible leader replicas on, a changed
/// `min.insync.replicas` invalidates the ELRs it was computed for: a `ClearElrRecord` for a
/// topic's, or for every topic's when a broker-level (cluster default) value changes.
fn clear_elr_records(image: &MetadataImage, records: &[ApiMessageAndVersion]) -> Vec<ApiMessageAndVersion> {
    if !elr_enabled(image) {
        return Vec::new();
    }
    records
        .iter()
        .filter_map(|r| match &r.record {
            MetadataRecord::ConfigRecord(c) if c.name == MIN_INSYNC_REPLICAS => {
                let topic = ConfigResourceKind::from_wire(c.resource_type) == Some(ConfigResourceKind::Topic);
                let topic_name = if topic { c.resource_name.clone() } else { String::new() };
                let clear = ClearElrRecord { topic_name, ..ClearElrRecord::default() };
                Some(ApiMessageAndVersion::latest(MetadataRecord::ClearElrRecord(clear)))
            }
            _ => None,
        })
        .collect()
}

fn config_record(resource: &ConfigResource, name: String, value: Option<String>) -> ApiMessageAndVersion {
    ApiMessageAndVersion::latest(MetadataRecord::ConfigRecord(ConfigRecord {
        resource_type: resource.kind.wire(),
        resource_name: resource.name.clone(),
        name,
        value,
        ..ConfigRecord::default()
    }))
}

/// Resources named more than once in one request.
fn repeated<'a>(resources: impl Iterator<Item = (i8, &'a str)>) -> BTreeSet<(i8, &'a str)> {
    let mut seen = BTreeSet::new();
    resources.filter(|r| !seen.insert(*r)).collect()
}

/// Adds a resource's records to the batch and gives its response error (NONE on success).
fn collect(outcome: Result<Vec<ApiMessageAndVersion>, ApiError>, records: &mut Vec<ApiMessageAndVersion>) -> ApiError {
    match outcome {
        Ok(resource_records) => {
            records.extend(resource_records);
            ApiError::bare(ErrorCode::None)
        }
        Err(error) => error,
    }
}
