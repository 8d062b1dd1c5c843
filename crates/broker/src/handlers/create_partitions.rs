//! CreatePartitions: decided by the active controller (a count that is not an increase is
//! INVALID_PARTITIONS; `validate_only` answers the same and writes nothing); the response once
//! this node's metadata includes the new partitions.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_partitions_response::CreatePartitionsTopicResult;
use strand_protocol::messages::{CreatePartitionsRequest, CreatePartitionsResponse};

use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use crate::Broker;
use crate::authorization::unique;

/// ALTER on each topic (TOPIC_AUTHORIZATION_FAILED, answered first and not forwarded, as Kafka's
/// `ControllerApis.createPartitions`); a name given twice is the controller's to refuse.
pub async fn handle(
    broker: &Broker,
    request: CreatePartitionsRequest,
    version: i16,
    session: &Session,
) -> CreatePartitionsResponse {
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
        forward(broker, allowed, version).await
    };
    response.results.splice(0..0, refusals);
    response
}

async fn forward(broker: &Broker, request: CreatePartitionsRequest, version: i16) -> CreatePartitionsResponse {
    match broker.ask_controller(&request, version).await {
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
