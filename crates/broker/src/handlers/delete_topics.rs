//! DeleteTopics, by name (`topic_names`, v1-5) and by name or id (`topics`, v6): decided by the
//! active controller. Each `RemoveTopicRecord` takes the topic's partitions and configs out of
//! the image; every node deletes its logs when it replays it.
//!
//! With `delete.topic.enable=false` every topic is refused, as Kafka's `ControllerApis` does:
//! INVALID_REQUEST before v3, TOPIC_DELETION_DISABLED from v3.
//!
//! A client's controller mutation quota (KIP-599, strict from v5) is spent on the topics it may
//! delete, a partition a credit (`quotas::mutations`); a refused topic is THROTTLING_QUOTA_EXCEEDED.

use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::delete_topics_response::DeletableTopicResult;
use strand_protocol::messages::{DeleteTopicsRequest, DeleteTopicsResponse};
use strand_security::acl::AclOperation;

use strand_security::Session;

use crate::Broker;
use crate::authorization::unique;
use crate::dispatch::Client;

/// DELETE on the cluster, or else on each topic, as Kafka's `ControllerApis.deleteTopics`: a name
/// the session may not DESCRIBE is TOPIC_AUTHORIZATION_FAILED whether or not it exists, one it
/// may describe but not delete too (if it exists); an id of a topic it may not delete is
/// TOPIC_AUTHORIZATION_FAILED with the name only if it may describe it. Refused topics are
/// answered after the others and not forwarded; repeated ones are the controller's to refuse.
pub(crate) async fn handle(
    broker: &Broker,
    request: DeleteTopicsRequest,
    version: i16,
    client: Client<'_>,
) -> DeleteTopicsResponse {
    let session = client.session;
    if !broker.settings.delete_topic_enable {
        let code = if version < 3 { ErrorCode::InvalidRequest } else { ErrorCode::TopicDeletionDisabled };
        return all_failed(&request, code);
    }
    if broker.authorize_cluster(session, AclOperation::Delete) {
        return delete_within_quota(broker, request, version, &client).await;
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
        delete_within_quota(broker, allowed, version, &client).await
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

/// Spends the client's controller mutation quota on each topic in order, a partition a credit
/// (KIP-599), and forwards those it admits; the others answer THROTTLING_QUOTA_EXCEEDED.
async fn delete_within_quota(
    broker: &Broker,
    mut request: DeleteTopicsRequest,
    version: i16,
    client: &Client<'_>,
) -> DeleteTopicsResponse {
    let mutations = broker.mutations(client, version, 5);
    let image = broker.image();
    let partitions = |name: Option<&str>, id: Uuid| {
        let topic = match name {
            Some(name) => image.topics().by_name(name),
            None => image.topics().by_id(id),
        };
        topic.map_or(0, |t| i32::try_from(t.partitions.len()).unwrap_or(i32::MAX))
    };
    let mut refused = DeleteTopicsRequest::default();
    let mut sizes = Vec::new();
    for name in std::mem::take(&mut request.topic_names) {
        let size = partitions(Some(&name), Uuid::ZERO);
        if mutations.admit(size) {
            request.topic_names.push(name);
            sizes.push(size);
        } else {
            refused.topic_names.push(name);
        }
    }
    for topic in std::mem::take(&mut request.topics) {
        let size = partitions(topic.name.as_deref(), topic.topic_id);
        if mutations.admit(size) {
            request.topics.push(topic);
            sizes.push(size);
        } else {
            refused.topics.push(topic);
        }
    }
    let mut response = if sizes.is_empty() {
        DeleteTopicsResponse::default()
    } else {
        forward(broker, &request, version, client.session).await
    };
    let outcome = |ok: bool| {
        response.responses.iter().zip(&sizes).filter(|(t, _)| (t.error_code == 0) == ok).map(|(_, n)| *n).sum()
    };
    let (failed, succeeded) = (outcome(false), outcome(true));
    response.throttle_time_ms = mutations.settle(failed, succeeded);
    let mut throttled = all_failed(&refused, ErrorCode::ThrottlingQuotaExceeded).responses;
    for topic in &mut throttled {
        topic.error_message = Some(ErrorCode::ThrottlingQuotaExceeded.message().to_owned());
    }
    response.responses.extend(throttled);
    response
}

async fn forward(
    broker: &Broker,
    request: &DeleteTopicsRequest,
    version: i16,
    session: &Session,
) -> DeleteTopicsResponse {
    match broker.ask_controller_for(Some(session), request, version).await {
        Ok(response) => response,
        Err(reason) => {
            tracing::warn!("DeleteTopics: {reason}");
            let mut response = all_failed(request, ErrorCode::RequestTimedOut);
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
