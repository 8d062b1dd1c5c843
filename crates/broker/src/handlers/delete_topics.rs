//! DeleteTopics, by name (`topic_names`, v1-5) and by name or id (`topics`, v6): decided by the
//! active controller. Each `RemoveTopicRecord` takes the topic's partitions and configs out of
//! the image; every node deletes its logs when it replays it.
//!
//! With `delete.topic.enable=false` every topic is refused, as Kafka's `ControllerApis` does:
//! INVALID_REQUEST before v3, TOPIC_DELETION_DISABLED from v3.

use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::delete_topics_response::DeletableTopicResult;
use strand_protocol::messages::{DeleteTopicsRequest, DeleteTopicsResponse};

use strand_security::Session;
use strand_security::acl::AclOperation;

use crate::Broker;
use crate::authorization::unique;

/// DELETE on the cluster, or else on each topic, as Kafka's `ControllerApis.deleteTopics`: a name
/// the session may not DESCRIBE is TOPIC_AUTHORIZATION_FAILED whether or not it exists, one it
/// may describe but not delete too (if it exists); an id of a topic it may not delete is
/// TOPIC_AUTHORIZATION_FAILED with the name only if it may describe it. Refused topics are
/// answered after the others and not forwarded; repeated ones are the controller's to refuse.
pub async fn handle(
    broker: &Broker,
    request: DeleteTopicsRequest,
    version: i16,
    session: &Session,
) -> DeleteTopicsResponse {
    if !broker.settings.delete_topic_enable {
        let code = if version < 3 { ErrorCode::InvalidRequest } else { ErrorCode::TopicDeletionDisabled };
        return all_failed(&request, code);
    }
    if broker.authorize_cluster(session, AclOperation::Delete) {
        return forward(broker, request, version).await;
    }
    let image = broker.image();
    let unique_names = unique(request.topic_names.iter().chain(request.topics.iter().filter_map(|t| t.name.as_ref())));
    let unique_ids = unique(request.topics.iter().filter(|t| t.name.is_none()).map(|t| t.topic_id));
    let may = |operation, name: &str| broker.authorize_topic(session, operation, name);
    // A refusal by name: the answer, or None to forward the name.
    let by_name = |name: &String| -> Option<DeletableTopicResult> {
        if !unique_names.contains(name) {
            return None;
        }
        let exists = image.topics().by_name(name).is_some();
        let refused = !may(AclOperation::Describe, name) || (exists && !may(AclOperation::Delete, name));
        refused.then(|| refusal(Some(name.clone()), Uuid::ZERO))
    };
    let by_id = |id: Uuid| -> Option<DeletableTopicResult> {
        let topic = image.topics().by_id(id).filter(|_| unique_ids.contains(&id))?;
        let name = may(AclOperation::Describe, &topic.name).then(|| topic.name.clone());
        (!may(AclOperation::Delete, &topic.name)).then(|| refusal(name, id))
    };
    let mut refused = Vec::new();
    let mut allowed = request.clone();
    allowed.topic_names.retain(|name| by_name(name).map(|r| refused.push(r)).is_none());
    allowed.topics.retain(|topic| {
        let answer = match &topic.name {
            Some(name) if topic.topic_id == Uuid::ZERO => by_name(name),
            Some(_) => None,
            None => by_id(topic.topic_id),
        };
        answer.map(|r| refused.push(r)).is_none()
    });
    let mut response = if allowed.topic_names.is_empty() && allowed.topics.is_empty() {
        DeleteTopicsResponse::default()
    } else {
        forward(broker, allowed, version).await
    };
    response.responses.extend(refused);
    response
}

fn refusal(name: Option<String>, topic_id: Uuid) -> DeletableTopicResult {
    let code = ErrorCode::TopicAuthorizationFailed;
    DeletableTopicResult {
        name,
        topic_id,
        error_code: code.code(),
        error_message: Some(code.message().to_owned()),
        ..DeletableTopicResult::default()
    }
}

async fn forward(broker: &Broker, request: DeleteTopicsRequest, version: i16) -> DeleteTopicsResponse {
    match broker.ask_controller(&request, version).await {
        Ok(response) => response,
        Err(reason) => {
            tracing::warn!("DeleteTopics: {reason}");
            let mut response = all_failed(&request, ErrorCode::RequestTimedOut);
            for topic in &mut response.responses {
                topic.error_message = Some(reason.clone());
            }
            response
        }
    }
}

/// Every topic of the request with `code` and no message (Kafka's `getErrorResponse`).
fn all_failed(request: &DeleteTopicsRequest, code: ErrorCode) -> DeleteTopicsResponse {
    let by_name = request.topic_names.iter().map(|name| (Some(name.clone()), Uuid::ZERO));
    let by_state = request.topics.iter().map(|topic| (topic.name.clone(), topic.topic_id));
    let responses = by_name
        .chain(by_state)
        .map(|(name, topic_id)| DeletableTopicResult {
            name,
            topic_id,
            error_code: code.code(),
            error_message: None,
            ..DeletableTopicResult::default()
        })
        .collect();
    DeleteTopicsResponse { responses, ..DeleteTopicsResponse::default() }
}
