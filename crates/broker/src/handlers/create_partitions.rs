//! CreatePartitions: decided by the active controller (a count that is not an increase is
//! INVALID_PARTITIONS; `validate_only` answers the same and writes nothing); the response once
//! this node's metadata includes the new partitions. A client's controller mutation quota
//! (KIP-599, strict from v3) is spent first, a new partition a credit (`quotas::mutations`).

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_partitions_response::CreatePartitionsTopicResult;
use strand_protocol::messages::{CreatePartitionsRequest, CreatePartitionsResponse};
use strand_security::acl::{AclOperation, ResourceType};

use strand_security::Session;

use crate::Broker;
use crate::authorization::unique;
use crate::dispatch::Client;

/// ALTER on each topic (TOPIC_AUTHORIZATION_FAILED, answered first and not forwarded, as Kafka's
/// `ControllerApis.createPartitions`); a name given twice is the controller's to refuse.
pub(crate) async fn handle(
    broker: &Broker,
    request: CreatePartitionsRequest,
    version: i16,
    client: Client<'_>,
) -> CreatePartitionsResponse {
    let session = client.session;
    let names = unique(request.topics.iter().map(|t| t.name.as_str()));
    let alterable = broker.authorized_names(session, AclOperation::Alter, ResourceType::Topic, names.iter().copied());
    let refused = |name: &str| names.contains(name) && !alterable.contains(name);
    let refusals: Vec<CreatePartitionsTopicResult> = (request.topics.iter())
        .filter(|t| refused(&t.name))
        .map(|t| CreatePartitionsTopicResult {
            name: t.name.clone(),
            error_code: ErrorCode::TopicAuthorizationFailed.code(),
            error_message: None,
            ..Default::default()
        })
        .collect();
    let mut allowed = request.clone();
    allowed.topics.retain(|t| !refused(&t.name));
    let mut response = if allowed.topics.is_empty() {
        CreatePartitionsResponse::default()
    } else {
        create_within_quota(broker, allowed, version, &client).await
    };
    response.results.splice(0..0, refusals);
    response
}

/// Spends the client's controller mutation quota on each topic in order, a new partition a
/// credit (KIP-599), and forwards those it admits; the others answer THROTTLING_QUOTA_EXCEEDED.
async fn create_within_quota(
    broker: &Broker,
    mut request: CreatePartitionsRequest,
    version: i16,
    client: &Client<'_>,
) -> CreatePartitionsResponse {
    let mutations = broker.mutations(client, version, 3);
    let image = broker.image();
    let new_partitions = |name: &str, count: i32| {
        let now = image.topics().by_name(name).map_or(0, |t| i32::try_from(t.partitions.len()).unwrap_or(i32::MAX));
        count.saturating_sub(now).max(0)
    };
    let (mut throttled, mut sizes) = (Vec::new(), Vec::new());
    for topic in std::mem::take(&mut request.topics) {
        let size = new_partitions(&topic.name, topic.count);
        if mutations.admit(size) {
            sizes.push(size);
            request.topics.push(topic);
        } else {
            throttled.push(CreatePartitionsTopicResult {
                name: topic.name,
                error_code: ErrorCode::ThrottlingQuotaExceeded.code(),
                error_message: Some(ErrorCode::ThrottlingQuotaExceeded.message().to_owned()),
                ..Default::default()
            });
        }
    }
    let mut response = if sizes.is_empty() {
        CreatePartitionsResponse::default()
    } else {
        forward(broker, &request, version, client.session).await
    };
    let outcome = |ok: bool| {
        response.results.iter().zip(&sizes).filter(|(t, _)| (t.error_code == 0) == ok).map(|(_, n)| *n).sum()
    };
    let (failed, succeeded) = (outcome(false), outcome(true));
    response.throttle_time_ms = mutations.settle(failed, succeeded);
    response.results.extend(throttled);
    response
}

async fn forward(
    broker: &Broker,
    request: &CreatePartitionsRequest,
    version: i16,
    session: &Session,
) -> CreatePartitionsResponse {
    match broker.ask_controller_for(Some(session), request, version).await {
        Ok(response) => response,
        Err(reason) => {
            tracing::warn!("CreatePartitions: {reason}");
            let results = request
                .topics
                .iter()
                .map(|t| CreatePartitionsTopicResult {
                    name: t.name.clone(),
                    error_code: ErrorCode::RequestTimedOut.code(),
                    error_message: Some(reason.clone()),
                    ..Default::default()
                })
                .collect();
            CreatePartitionsResponse { results, ..Default::default() }
        }
    }
}
