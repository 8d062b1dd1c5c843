//! CreatePartitions, as Kafka's `ControllerApis.createPartitions` and
//! `ReplicationControlManager.createPartitions`.

use std::collections::BTreeSet;

use strand_base::BrokerId;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_partitions_request::CreatePartitionsTopic;
use strand_protocol::messages::create_partitions_response::CreatePartitionsTopicResult;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{CreatePartitionsRequest, CreatePartitionsResponse};

use super::placement::{new_partition, place, validate_manual_assignment};
use super::{ApiError, ApiMessageAndVersion, ControllerResult, PARTITIONS_PER_REQUEST_MAX};
use crate::image::{MetadataImage, PartitionImage, TopicImage};

/// Grows each topic to `count` partitions: a `PartitionRecord` per new partition, with the
/// replication factor of the topic's partition 0, placed by the controller or as `assignments`
/// say. A count that is not an increase is INVALID_PARTITIONS; with `validate_only`, the same
/// response and no records.
pub fn create_partitions(
    image: &MetadataImage,
    request: &CreatePartitionsRequest,
) -> ControllerResult<CreatePartitionsResponse> {
    let mut seen = BTreeSet::new();
    let duplicates: BTreeSet<&str> =
        request.topics.iter().filter(|t| !seen.insert(&t.name)).map(|t| t.name.as_str()).collect();
    let too_many = requested_partitions(image, request) > PARTITIONS_PER_REQUEST_MAX;
    let mut records = Vec::new();
    let mut results = Vec::new();
    for topic in request.topics.iter().filter(|t| !duplicates.contains(t.name.as_str())) {
        let outcome = if too_many {
            Err(ApiError::new(ErrorCode::PolicyViolation, "Excessively large number of partitions per request."))
        } else {
            grow(image, topic)
        };
        match outcome {
            Ok(topic_records) => {
                records.extend(topic_records);
                results.push(result(&topic.name, &ApiError::bare(ErrorCode::None)));
            }
            Err(error) => results.push(result(&topic.name, &error)),
        }
    }
    let duplicate = ApiError::new(ErrorCode::InvalidRequest, "Duplicate topic name.");
    results.extend(duplicates.iter().map(|name| result(name, &duplicate)));
    if request.validate_only {
        records.clear();
    }
    ControllerResult { records, response: CreatePartitionsResponse { results, ..CreatePartitionsResponse::default() } }
}

/// The records for one topic's new partitions, checked in Kafka's order.
fn grow(image: &MetadataImage, request: &CreatePartitionsTopic) -> Result<Vec<ApiMessageAndVersion>, ApiError> {
    let topic = image.topics().by_name(&request.name).ok_or(ApiError::bare(ErrorCode::UnknownTopicOrPartition))?;
    let existing = i32::try_from(topic.partitions.len()).unwrap_or(i32::MAX);
    if request.count == existing {
        let message = format!("Topic already has {existing} partition(s).");
        return Err(ApiError::new(ErrorCode::InvalidPartitions, message));
    }
    if request.count < existing {
        let message = format!(
            "The topic {} currently has {existing} partition(s); {} would not be an increase.",
            request.name, request.count
        );
        return Err(ApiError::new(ErrorCode::InvalidPartitions, message));
    }
    let additional = request.count - existing;
    let partitions = match &request.assignments {
        Some(assignments) => manual_partitions(image, topic, additional, assignments)?,
        None => placed_partitions(image, topic, existing, additional)?,
    };
    Ok((existing..)
        .zip(partitions)
        .map(|(index, p)| ApiMessageAndVersion::latest(MetadataRecord::PartitionRecord(p.to_record(topic.id, index))))
        .collect())
}

fn replication_factor(topic: &TopicImage) -> Result<usize, ApiError> {
    let first = topic.partitions.values().next().ok_or_else(|| {
        let message = format!("Invalid state: topic {} appears to have no partitions.", topic.name);
        ApiError::new(ErrorCode::UnknownServerError, message)
    })?;
    Ok(first.replicas.len())
}

fn placed_partitions(
    image: &MetadataImage,
    topic: &TopicImage,
    existing: i32,
    additional: i32,
) -> Result<Vec<PartitionImage>, ApiError> {
    let rf = i16::try_from(replication_factor(topic)?).unwrap_or(i16::MAX);
    let unable = |why: &str| {
        ApiError::new(
            ErrorCode::InvalidReplicationFactor,
            format!("Unable to replicate the partition {rf} time(s): {why}"),
        )
    };
    place(image, &topic.name, existing, additional, rf)
        .map_err(|why| unable(&why))?
        .into_iter()
        .map(|replicas| {
            new_partition(image, replicas)
                .ok_or_else(|| unable("All brokers are currently fenced or in controlled shutdown."))
        })
        .collect()
}

fn manual_partitions(
    image: &MetadataImage,
    topic: &TopicImage,
    additional: i32,
    assignments: &[strand_protocol::messages::create_partitions_request::CreatePartitionsAssignment],
) -> Result<Vec<PartitionImage>, ApiError> {
    let invalid = |message: String| ApiError::new(ErrorCode::InvalidReplicaAssignment, message);
    if usize::try_from(additional).ok() != Some(assignments.len()) {
        return Err(invalid(format!(
            "Attempted to add {additional} additional partition(s), but only {} assignment(s) were specified.",
            assignments.len()
        )));
    }
    let rf = replication_factor(topic)?;
    let first_new = topic.partitions.len();
    let mut partitions = Vec::new();
    for (i, assignment) in assignments.iter().enumerate() {
        let replicas: Vec<BrokerId> = assignment.broker_ids.clone();
        validate_manual_assignment(image, &replicas, Some(rf))?;
        let partition = new_partition(image, replicas).ok_or_else(|| {
            invalid(format!(
                "All brokers specified in the manual partition assignment for partition {} are fenced or in \
                 controlled shutdown.",
                first_new + i
            ))
        })?;
        partitions.push(partition);
    }
    Ok(partitions)
}

/// The new partitions the request asks for, counted before validation.
fn requested_partitions(image: &MetadataImage, request: &CreatePartitionsRequest) -> i64 {
    let per_topic = |t: &CreatePartitionsTopic| {
        let existing = image.topics().by_name(&t.name).map_or(0, |topic| topic.partitions.len());
        i64::from(t.count).saturating_sub(i64::try_from(existing).unwrap_or(i64::MAX)).max(0)
    };
    request.topics.iter().map(per_topic).fold(0_i64, i64::saturating_add)
}

fn result(name: &str, error: &ApiError) -> CreatePartitionsTopicResult {
    CreatePartitionsTopicResult {
        name: name.to_owned(),
        error_code: error.code.code(),
        error_message: error.message.clone(),
        ..CreatePartitionsTopicResult::default()
    }
}
