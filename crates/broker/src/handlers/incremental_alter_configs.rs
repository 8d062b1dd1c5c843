//! IncrementalAlterConfigs (SET, DELETE, APPEND, SUBTRACT) for topic configs and for the dynamic
//! broker configs that default them: decided by the active controller, after this node's own
//! check of changes to its listeners' TLS stores (`config_preprocess`). Each resource succeeds or
//! fails whole; `validate_only` writes nothing.

use std::collections::BTreeMap;

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::incremental_alter_configs_response::AlterConfigsResourceResponse;
use strand_protocol::messages::{IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse};

use super::config_preprocess;
use crate::Broker;

/// Kafka's `AlterConfigOp.OpType` codes of the operations that name a value or its removal.
const SET: i8 = 0;
const DELETE: i8 = 1;

pub async fn handle(
    broker: &Broker,
    mut request: IncrementalAlterConfigsRequest,
    version: i16,
) -> IncrementalAlterConfigsResponse {
    let count = request.resources.len();
    let mut refused = BTreeMap::new();
    for (index, resource) in request.resources.iter().enumerate() {
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
    let all = std::mem::take(&mut request.resources);
    request.resources =
        all.iter().enumerate().filter(|(i, _)| !refused.contains_key(i)).map(|(_, r)| r.clone()).collect();
    let forwarded = if request.resources.is_empty() {
        Vec::new()
    } else {
        match broker.ask_controller(&request, version).await {
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
