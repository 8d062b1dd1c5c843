//! AlterConfigs (Kafka's legacy API: each resource's configs replaced by the given set) for topic
//! configs and the dynamic broker configs that default them: decided by the active controller,
//! after this node's own check of changes to its listeners' TLS stores (`config_preprocess`).
//! `validate_only` writes nothing.

use std::collections::BTreeMap;

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_configs_response::AlterConfigsResourceResponse;
use strand_protocol::messages::{AlterConfigsRequest, AlterConfigsResponse};

use strand_security::Session;
use strand_security::acl::AclOperation;

use super::config_preprocess;
use crate::Broker;
use crate::authorization::unique;

/// ALTER_CONFIGS on each resource (topics and groups on themselves, brokers on the cluster) is
/// asked first: a refused one is answered here and not forwarded, as Kafka's `ControllerApis`.
pub async fn handle(
    broker: &Broker,
    mut request: AlterConfigsRequest,
    version: i16,
    session: &Session,
) -> AlterConfigsResponse {
    let count = request.resources.len();
    let mut refused = BTreeMap::new();
    let unique = unique(request.resources.iter().map(|r| (r.resource_type, r.resource_name.as_str())));
    for (index, resource) in request.resources.iter().enumerate() {
        // ALTER_CONFIGS first (Kafka's `authorizeAlterResource`); a repeated resource is the
        // controller's to refuse.
        let (resource_type, name) = (resource.resource_type, resource.resource_name.as_str());
        let denied = broker.config_refusal(session, AclOperation::AlterConfigs, resource_type, name);
        if let Some(code) = denied.filter(|_| unique.contains(&(resource_type, name))) {
            refused.insert(index, answer(resource_type, name, code, code.message().to_owned()));
            continue;
        }
        let given: Vec<&str> = resource.configs.iter().map(|c| c.name.as_str()).collect();
        let deleted = config_preprocess::left_out(broker, &resource.resource_name, &given);
        let set = resource.configs.iter().map(|c| (c.name.as_str(), c.value.as_deref()));
        let changes = set.chain(deleted.iter().map(|(key, value)| (key.as_str(), *value)));
        if let Some((code, message)) =
            config_preprocess::check(broker, resource.resource_type, &resource.resource_name, changes).await
        {
            refused.insert(index, answer(resource.resource_type, &resource.resource_name, code, message));
        }
    }
    request.resources = config_preprocess::unrefused(std::mem::take(&mut request.resources), &refused);
    let forwarded = if request.resources.is_empty() {
        Vec::new()
    } else {
        match broker.ask_controller_for(Some(session), &request, version).await {
            Ok(response) => response.responses,
            Err(reason) => {
                tracing::warn!("AlterConfigs: {reason}");
                let timed_out = |r: &_| answer_of(r, ErrorCode::RequestTimedOut, reason.clone());
                request.resources.iter().map(timed_out).collect()
            }
        }
    };
    AlterConfigsResponse { responses: config_preprocess::merge(count, refused, forwarded), ..Default::default() }
}

fn answer_of(
    resource: &strand_protocol::messages::alter_configs_request::AlterConfigsResource,
    code: ErrorCode,
    message: String,
) -> AlterConfigsResourceResponse {
    answer(resource.resource_type, &resource.resource_name, code, message)
}

fn answer(resource_type: i8, resource_name: &str, code: ErrorCode, message: String) -> AlterConfigsResourceResponse {
    AlterConfigsResourceResponse {
        error_code: code.code(),
        error_message: Some(message),
        resource_type,
        resource_name: resource_name.to_owned(),
        ..Default::default()
    }
}
