//! IncrementalAlterConfigs (SET, DELETE, APPEND, SUBTRACT) for topic configs and for the dynamic
//! broker configs that default them: decided by the active controller, after this node's own
//! check of changes to its listeners' TLS stores (`config_preprocess`). Each resource succeeds or
//! fails whole; `validate_only` writes nothing.

use std::collections::BTreeMap;

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::incremental_alter_configs_response::AlterConfigsResourceResponse;
use strand_protocol::messages::{IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse};

use strand_security::Session;
use strand_security::acl::AclOperation;

use super::config_preprocess;
use crate::Broker;
use crate::authorization::unique;

/// Kafka's `AlterConfigOp.OpType` codes of the operations that name a value or its removal.
const SET: i8 = 0;
const DELETE: i8 = 1;

/// ALTER_CONFIGS on each resource (topics and groups on themselves, brokers and broker loggers
/// on the cluster) is asked first: a refused one is answered here and not forwarded, as Kafka's
/// `ControllerApis` and `ConfigAdminManager.preprocess` do.
pub async fn handle(
    broker: &Broker,
    mut request: IncrementalAlterConfigsRequest,
    version: i16,
    session: &Session,
) -> IncrementalAlterConfigsResponse {
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
        let changes = resource.configs.iter().filter_map(|c| match c.config_operation {
            SET => Some((c.name.as_str(), c.value.as_deref())),
            DELETE => Some((c.name.as_str(), None)),
            _ => None,
        });
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
                tracing::warn!("IncrementalAlterConfigs: {reason}");
                let timed_out = |r: &_| answer_of(r, ErrorCode::RequestTimedOut, reason.clone());
                request.resources.iter().map(timed_out).collect()
            }
        }
    };
    let responses = config_preprocess::merge(count, refused, forwarded);
    IncrementalAlterConfigsResponse { responses, ..Default::default() }
}

fn answer_of(
    resource: &strand_protocol::messages::incremental_alter_configs_request::AlterConfigsResource,
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
