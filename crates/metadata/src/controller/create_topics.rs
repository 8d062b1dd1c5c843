//! CreateTopics, as Kafka's `ControllerApis.createTopics` and `ReplicationControlManager.createTopics`.

use std::collections::{BTreeMap, BTreeSet};

use strand_base::Uuid;
use strand_base::topic::CLUSTER_METADATA_TOPIC;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_topics_request::CreatableTopic;
use strand_protocol::messages::create_topics_response::{CreatableTopicConfigs, CreatableTopicResult};
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{ConfigRecord, CreateTopicsRequest, CreateTopicsResponse, TopicRecord};

use super::placement::{new_partition, place, validate_manual_assignment};
use super::topic_configs::{MIN_INSYNC_REPLICAS, validate_topic_configs};
use super::topic_name::{colliding_topic, unify_collision_chars, validate_topic_name};
use super::{
    ApiError, ApiMessageAndVersion, ControllerDefaults, ControllerResult, PARTITIONS_PER_REQUEST_MAX,
    TOPIC_ID_ATTEMPTS_MAX,
};
use crate::image::{ConfigResourceKind, MetadataImage, PartitionImage, is_reserved_directory};

/// Creates the request's topics: per topic a `TopicRecord`, its `ConfigRecord`s, then a
/// `PartitionRecord` per partition; with `validate_only`, the same response and no records.
///
/// Each topic succeeds or fails alone. The response lists the topics in request order, then one
/// INVALID_REQUEST per name the request repeats. `new_topic_id` is asked for an id per topic
/// that passes validation (validate-only included, as Kafka reports the id it would use).
pub fn create_topics(
    image: &MetadataImage,
    request: &CreateTopicsRequest,
    defaults: &ControllerDefaults,
    new_topic_id: &mut dyn FnMut() -> Uuid,
) -> ControllerResult<CreateTopicsResponse> {
    if requested_partitions(request, defaults) > PARTITIONS_PER_REQUEST_MAX {
        let error = ApiError::new(ErrorCode::PolicyViolation, "Excessively large number of partitions per request.");
        let topics = request.topics.iter().map(|t| error_result(&t.name, &error)).collect();
        return ControllerResult { records: Vec::new(), response: response(topics) };
    }
    let duplicates = duplicate_names(&request.topics);
    let repeated: BTreeSet<&str> = duplicates.iter().map(String::as_str).collect();
    let mut creation = Creation { image, defaults, new_topic_id, names: BTreeMap::new(), ids: BTreeSet::new() };
    let mut records = Vec::new();
    let mut results = Vec::new();
    for topic in request.topics.iter().filter(|t| !repeated.contains(t.name.as_str())) {
        match creation.create(topic) {
            Ok((topic_records, result)) => {
                records.extend(topic_records);
                results.push(result);
            }
            Err(error) => results.push(error_result(&topic.name, &error)),
        }
    }
    let duplicate = ApiError::new(ErrorCode::InvalidRequest, "Duplicate topic name.");
    results.extend(duplicates.iter().map(|name| error_result(name, &duplicate)));
    if request.validate_only {
        records.clear();
    }
    ControllerResult { records, response: response(results) }
}

/// The state one request's topics share: names (by their unified spelling) and ids already taken
/// by earlier topics of it.
struct Creation<'a> {
    image: &'a MetadataImage,
    defaults: &'a ControllerDefaults,
    new_topic_id: &'a mut dyn FnMut() -> Uuid,
    names: BTreeMap<String, String>,
    ids: BTreeSet<Uuid>,
}

impl Creation<'_> {
    /// One topic, checked in Kafka's order: name, existence, configs, then partitions.
    fn create(
        &mut self,
        topic: &CreatableTopic,
    ) -> Result<(Vec<ApiMessageAndVersion>, CreatableTopicResult), ApiError> {
        self.check_name(&topic.name)?;
        let mut configs = requested_configs(topic)?;
        let partitions = partitions(self.image, topic, self.defaults)?;
        let replication_factor = partitions.values().next().map_or(0, |p| p.replicas.len());
        if replication_factor >= 3 && !self.min_insync_replicas_chosen(&configs) {
            // Design §6: three replicas or more keep acks=all writes on at least two.
            configs.insert(MIN_INSYNC_REPLICAS.to_owned(), "2".to_owned());
        }
        let id = self.fresh_topic_id()?;
        self.names.insert(unify_collision_chars(&topic.name), topic.name.clone());
        let result = self.success_result(topic, id, &partitions, &configs);
        Ok((topic_records(&topic.name, id, &configs, &partitions), result))
    }

    fn check_name(&self, name: &str) -> Result<(), ApiError> {
        if name == CLUSTER_METADATA_TOPIC {
            let message = format!("Creation of internal topic {CLUSTER_METADATA_TOPIC} is prohibited.");
            return Err(ApiError::new(ErrorCode::InvalidRequest, message));
        }
        validate_topic_name(name).map_err(|m| ApiError::new(ErrorCode::InvalidTopicException, m))?;
        if self.image.topics().by_name(name).is_some() {
            return Err(ApiError::new(ErrorCode::TopicAlreadyExists, format!("Topic '{name}' already exists.")));
        }
        // Kafka checks only existing topics; two colliding names in one request would both pass.
        let earlier = self.names.get(&unify_collision_chars(name)).map(String::as_str);
        if let Some(other) = colliding_topic(self.image, name).or(earlier) {
            let message = format!("Topic '{name}' collides with existing topic: {other}");
            return Err(ApiError::new(ErrorCode::InvalidTopicException, message));
        }
        Ok(())
    }

    /// Whether the request or an operator's broker default already decides `min.insync.replicas`.
    fn min_insync_replicas_chosen(&self, configs: &BTreeMap<String, String>) -> bool {
        self.defaults.topic_configs(self.image).with_overrides(Some(configs)).is_set(MIN_INSYNC_REPLICAS)
    }

    /// An id from `new_topic_id` that is not zero, not reserved, does not print with a leading
    /// `-` (Kafka's `Uuid.randomUuid` rules), and is not already a topic's.
    fn fresh_topic_id(&mut self) -> Result<Uuid, ApiError> {
        for _ in 0..TOPIC_ID_ATTEMPTS_MAX {
            let id = (self.new_topic_id)();
            let usable = !is_reserved_directory(id) && id.0[0] >> 2 != 62;
            if usable && self.image.topics().by_id(id).is_none() && self.ids.insert(id) {
                return Ok(id);
            }
        }
        Err(ApiError::new(ErrorCode::UnknownServerError, "Unable to find an unused topic id."))
    }

    fn success_result(
        &self,
        topic: &CreatableTopic,
        id: Uuid,
        partitions: &BTreeMap<i32, PartitionImage>,
        configs: &BTreeMap<String, String>,
    ) -> CreatableTopicResult {
        let effective = self.defaults.topic_configs(self.image).with_overrides(Some(configs)).all();
        let configs = effective
            .into_iter()
            .map(|c| CreatableTopicConfigs {
                name: c.name.to_owned(),
                value: Some(c.value),
                read_only: false,
                config_source: c.source.wire(),
                is_sensitive: false,
                ..CreatableTopicConfigs::default()
            })
            .collect();
        let replication_factor = partitions.values().next().map_or(0, |p| p.replicas.len());
        CreatableTopicResult {
            name: topic.name.clone(),
            topic_id: id,
            error_code: ErrorCode::None.code(),
            error_message: None,
            topic_config_error_code: ErrorCode::None.code(),
            num_partitions: i32::try_from(partitions.len()).unwrap_or(i32::MAX),
            replication_factor: i16::try_from(replication_factor).unwrap_or(i16::MAX),
            configs: Some(configs),
            ..CreatableTopicResult::default()
        }
    }
}

/// The request's configs, as Kafka's `computeConfigChanges` then `LogConfig.validate`: null
/// values are refused, then names and values are checked.
fn requested_configs(topic: &CreatableTopic) -> Result<BTreeMap<String, String>, ApiError> {
    let nulls: Vec<&str> = topic.configs.iter().filter(|c| c.value.is_none()).map(|c| c.name.as_str()).collect();
    if !nulls.is_empty() {
        let message = format!("Null value not supported for topic configs: {}", nulls.join(","));
        return Err(ApiError::new(ErrorCode::InvalidConfig, message));
    }
    let configs: BTreeMap<String, String> =
        topic.configs.iter().filter_map(|c| Some((c.name.clone(), c.value.clone()?))).collect();
    validate_topic_configs(&configs).map_err(|m| ApiError::new(ErrorCode::InvalidConfig, m))?;
    Ok(configs)
}

/// The new topic's partitions, from its manual assignments or placed by the controller.
fn partitions(
    image: &MetadataImage,
    topic: &CreatableTopic,
    defaults: &ControllerDefaults,
) -> Result<BTreeMap<i32, PartitionImage>, ApiError> {
    if !topic.assignments.is_empty() {
        return manual_partitions(image, topic);
    }
    if topic.replication_factor < -1 || topic.replication_factor == 0 {
        let message = "Replication factor must be larger than 0, or -1 to use the default value.";
        return Err(ApiError::new(ErrorCode::InvalidReplicationFactor, message));
    }
    if topic.num_partitions < -1 || topic.num_partitions == 0 {
        let message = "Number of partitions was set to an invalid non-positive value.";
        return Err(ApiError::new(ErrorCode::InvalidPartitions, message));
    }
    let count = if topic.num_partitions == -1 { defaults.num_partitions } else { topic.num_partitions };
    let rf =
        if topic.replication_factor == -1 { defaults.default_replication_factor } else { topic.replication_factor };
    let unable = |why: &str| {
        ApiError::new(
            ErrorCode::InvalidReplicationFactor,
            format!("Unable to replicate the partition {rf} time(s): {why}"),
        )
    };
    let placed = place(image, &topic.name, 0, count, rf).map_err(|why| unable(&why))?;
    let mut partitions = BTreeMap::new();
    for (index, replicas) in (0..).zip(placed) {
        let partition = new_partition(image, replicas)
            .ok_or_else(|| unable("All brokers are currently fenced or in controlled shutdown."))?;
        partitions.insert(index, partition);
    }
    Ok(partitions)
}

/// Kafka's rules for `assignments`: replication factor and partition count left at -1, each
/// partition once, every assignment valid with an active broker, indexes 0 to n-1.
fn manual_partitions(image: &MetadataImage, topic: &CreatableTopic) -> Result<BTreeMap<i32, PartitionImage>, ApiError> {
    let request_error = |what: &str| {
        let message = format!("A manual partition assignment was specified, but {what} was not set to -1.");
        ApiError::new(ErrorCode::InvalidRequest, message)
    };
    if topic.replication_factor != -1 {
        return Err(request_error("replication factor"));
    }
    if topic.num_partitions != -1 {
        return Err(request_error("numPartitions"));
    }
    let invalid = |message: String| ApiError::new(ErrorCode::InvalidReplicaAssignment, message);
    let mut partitions = BTreeMap::new();
    let mut replication_factor = None;
    for assignment in &topic.assignments {
        let index = assignment.partition_index;
        if partitions.contains_key(&index) {
            return Err(invalid(format!("Found multiple manual partition assignments for partition {index}")));
        }
        validate_manual_assignment(image, &assignment.broker_ids, replication_factor)?;
        replication_factor = Some(assignment.broker_ids.len());
        let partition = new_partition(image, assignment.broker_ids.clone()).ok_or_else(|| {
            invalid(format!(
                "All brokers specified in the manual partition assignment for partition {index} are fenced or in \
                 controlled shutdown."
            ))
        })?;
        partitions.insert(index, partition);
    }
    if !(0..).zip(partitions.keys()).all(|(expected, index): (i32, &i32)| expected == *index) {
        return Err(invalid("partitions should be a consecutive 0-based integer sequence".to_owned()));
    }
    Ok(partitions)
}

/// TopicRecord first, then ConfigRecords, then PartitionRecords, in Kafka's order.
fn topic_records(
    name: &str,
    id: Uuid,
    configs: &BTreeMap<String, String>,
    partitions: &BTreeMap<i32, PartitionImage>,
) -> Vec<ApiMessageAndVersion> {
    let topic =
        MetadataRecord::TopicRecord(TopicRecord { name: name.to_owned(), topic_id: id, ..TopicRecord::default() });
    let config_records = configs.iter().map(|(key, value)| {
        MetadataRecord::ConfigRecord(ConfigRecord {
            resource_type: ConfigResourceKind::Topic.wire(),
            resource_name: name.to_owned(),
            name: key.clone(),
            value: Some(value.clone()),
            ..ConfigRecord::default()
        })
    });
    let partition_records =
        partitions.iter().map(|(index, p)| MetadataRecord::PartitionRecord(p.to_record(id, *index)));
    std::iter::once(topic).chain(config_records).chain(partition_records).map(ApiMessageAndVersion::latest).collect()
}

/// Kafka's upper bound on the partitions a request asks for, counted before validation.
fn requested_partitions(request: &CreateTopicsRequest, defaults: &ControllerDefaults) -> i64 {
    let per_topic = |t: &CreatableTopic| -> i64 {
        if !t.assignments.is_empty() {
            i64::try_from(t.assignments.len()).unwrap_or(i64::MAX)
        } else if t.num_partitions == -1 {
            i64::from(defaults.num_partitions)
        } else {
            i64::from(t.num_partitions.max(0))
        }
    };
    request.topics.iter().map(per_topic).fold(0_i64, i64::saturating_add)
}

/// Names that appear more than once, in first-appearance order; O(n log n).
fn duplicate_names(topics: &[CreatableTopic]) -> Vec<String> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for topic in topics {
        *seen.entry(topic.name.as_str()).or_default() += 1;
    }
    let mut duplicates = Vec::new();
    for topic in topics {
        if let Some(count) = seen.get_mut(topic.name.as_str()).filter(|count| **count > 1) {
            // Listed once, at its first appearance.
            *count = 0;
            duplicates.push(topic.name.clone());
        }
    }
    duplicates
}

fn error_result(name: &str, error: &ApiError) -> CreatableTopicResult {
    CreatableTopicResult {
        name: name.to_owned(),
        error_code: error.code.code(),
        error_message: error.message.clone(),
        configs: Some(Vec::new()),
        ..CreatableTopicResult::default()
    }
}

fn response(topics: Vec<CreatableTopicResult>) -> CreateTopicsResponse {
    CreateTopicsResponse { throttle_time_ms: 0, topics, ..CreateTopicsResponse::default() }
}
