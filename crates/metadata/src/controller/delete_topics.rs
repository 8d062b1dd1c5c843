//! DeleteTopics, by name (v1+) and by id (v6), as Kafka's `ControllerApis.deleteTopics` and
//! `ReplicationControlManager.deleteTopics`.

use std::collections::{BTreeMap, BTreeSet};

use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::delete_topics_response::DeletableTopicResult;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{DeleteTopicsRequest, DeleteTopicsResponse, RemoveTopicRecord};

use super::{ApiError, ApiMessageAndVersion, ControllerResult, RECORDS_PER_REQUEST_MAX};
use crate::image::MetadataImage;

/// Deletes the named topics (`topic_names`, and `topics` entries with a name) and the topics
/// given by id (`topics` entries with an id): a `RemoveTopicRecord` each. Replaying it removes the
/// topic's partitions and configs too.
///
/// Errors, as Kafka: UNKNOWN_TOPIC_OR_PARTITION for an unknown name, UNKNOWN_TOPIC_ID for an
/// unknown id, INVALID_REQUEST for an entry with both or neither, a repeated name or id, or a
/// name whose id is also given; UNKNOWN_SERVER_ERROR for each topic past the first
/// [`RECORDS_PER_REQUEST_MAX`] deletions (Kafka's bounded record list fails them one by one).
/// Kafka shuffles the response so positions reveal nothing; Strand keeps it deterministic:
/// request problems first, then lookups, then deletions.
///
/// O(n log n) in the request's entries: each name and id is looked up once.
pub fn delete_topics(image: &MetadataImage, request: &DeleteTopicsRequest) -> ControllerResult<DeleteTopicsResponse> {
    let mut responses = Vec::new();
    let (names, ids) = provided_topics(request, &mut responses);
    let mut to_delete: Vec<(Uuid, String)> = Vec::new();
    let mut deleting: BTreeSet<Uuid> = BTreeSet::new();
    for id in ids.unique() {
        match image.topics().by_id(*id) {
            Some(topic) => {
                deleting.insert(*id);
                to_delete.push((*id, topic.name.clone()));
            }
            None => responses.push(result(None, *id, &ApiError::with_default_message(ErrorCode::UnknownTopicId))),
        }
    }
    // Ids that a name also maps to: neither entry deletes anything.
    let mut withdrawn: BTreeSet<Uuid> = BTreeSet::new();
    for name in names.unique() {
        match image.topics().by_name(name) {
            None => responses.push(result(Some(name.clone()), Uuid::ZERO, &unknown_name())),
            Some(topic) if ids.is_duplicate(&topic.id) || deleting.contains(&topic.id) => {
                withdrawn.insert(topic.id);
                let message = "The provided topic name maps to an ID that was already supplied.";
                responses.push(result(
                    Some(name.clone()),
                    topic.id,
                    &ApiError::new(ErrorCode::InvalidRequest, message),
                ));
            }
            Some(topic) => {
                deleting.insert(topic.id);
                to_delete.push((topic.id, name.clone()));
            }
        }
    }
    to_delete.retain(|(id, _)| !withdrawn.contains(id));
    let over = to_delete.split_off(to_delete.len().min(RECORDS_PER_REQUEST_MAX));
    let records = to_delete
        .iter()
        .map(|(id, _)| {
            let record = RemoveTopicRecord { topic_id: *id, ..RemoveTopicRecord::default() };
            ApiMessageAndVersion::latest(MetadataRecord::RemoveTopicRecord(record))
        })
        .collect();
    let too_many = ApiError::new(
        ErrorCode::UnknownServerError,
        format!("Cannot delete more than {RECORDS_PER_REQUEST_MAX} topics in one request."),
    );
    responses.extend(over.into_iter().map(|(id, name)| result(Some(name), id, &too_many)));
    let none = ApiError::bare(ErrorCode::None);
    responses.extend(to_delete.into_iter().map(|(id, name)| result(Some(name), id, &none)));
    ControllerResult { records, response: DeleteTopicsResponse { responses, ..DeleteTopicsResponse::default() } }
}

/// The names or ids a request gives, in first-appearance order, and which of them it repeats.
#[derive(Debug)]
struct Provided<T> {
    /// Each item once, in the order it first appeared.
    order: Vec<T>,
    /// Every item given, and whether it was given more than once.
    repeated: BTreeMap<T, bool>,
}

impl<T: Ord + Clone> Provided<T> {
    fn new() -> Self {
        Provided { order: Vec::new(), repeated: BTreeMap::new() }
    }

    fn add(&mut self, item: T) {
        match self.repeated.get_mut(&item) {
            Some(repeated) => *repeated = true,
            None => {
                self.repeated.insert(item.clone(), false);
                self.order.push(item);
            }
        }
    }

    /// The items given once, in request order.
    fn unique(&self) -> impl Iterator<Item = &T> {
        self.order.iter().filter(|item| !self.is_duplicate(item))
    }

    /// The items given more than once, in request order.
    fn duplicates(&self) -> impl Iterator<Item = &T> {
        self.order.iter().filter(|item| self.is_duplicate(item))
    }

    fn is_duplicate(&self, item: &T) -> bool {
        self.repeated.get(item).copied().unwrap_or(false)
    }
}

/// Sorts the request's entries into names and ids, answering malformed and repeated ones.
fn provided_topics(
    request: &DeleteTopicsRequest,
    responses: &mut Vec<DeletableTopicResult>,
) -> (Provided<String>, Provided<Uuid>) {
    let mut names = Provided::new();
    let mut ids = Provided::new();
    request.topic_names.iter().for_each(|name| names.add(name.clone()));
    for topic in &request.topics {
        match (&topic.name, topic.topic_id == Uuid::ZERO) {
            (None, true) => {
                let error = ApiError::new(ErrorCode::InvalidRequest, "Neither topic name nor id were specified.");
                responses.push(result(None, Uuid::ZERO, &error));
            }
            (None, false) => ids.add(topic.topic_id),
            (Some(name), true) => names.add(name.clone()),
            (Some(name), false) => {
                let error =
                    ApiError::new(ErrorCode::InvalidRequest, "You may not specify both topic name and topic id.");
                responses.push(result(Some(name.clone()), topic.topic_id, &error));
            }
        }
    }
    let duplicate_name = ApiError::new(ErrorCode::InvalidRequest, "Duplicate topic name.");
    responses.extend(names.duplicates().map(|n| result(Some(n.clone()), Uuid::ZERO, &duplicate_name)));
    let duplicate_id = ApiError::new(ErrorCode::InvalidRequest, "Duplicate topic id.");
    responses.extend(ids.duplicates().map(|id| result(None, *id, &duplicate_id)));
    (names, ids)
}

fn unknown_name() -> ApiError {
    ApiError::with_default_message(ErrorCode::UnknownTopicOrPartition)
}

fn result(name: Option<String>, topic_id: Uuid, error: &ApiError) -> DeletableTopicResult {
    DeletableTopicResult {
        name,
        topic_id,
        error_code: error.code.code(),
        error_message: error.message.clone(),
        ..DeletableTopicResult::default()
    }
}
