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

use crate::Broker;

pub async fn handle(broker: &Broker, request: DeleteTopicsRequest, version: i16) -> DeleteTopicsResponse {
    if !broker.settings.delete_topic_enable {
        let code = if version < 3 { ErrorCode::InvalidRequest } else { ErrorCode::TopicDeletionDisabled };
        return all_failed(&request, code);
    }
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
