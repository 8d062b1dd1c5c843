//! IncrementalAlterConfigs (SET, DELETE, APPEND, SUBTRACT) for topic configs and for the dynamic
//! broker configs that default them: decided by the active controller. Each resource succeeds or
//! fails whole; `validate_only` writes nothing.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::incremental_alter_configs_response::AlterConfigsResourceResponse;
use strand_protocol::messages::{IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse};

use crate::Broker;

pub async fn handle(
    broker: &Broker,
    request: IncrementalAlterConfigsRequest,
    version: i16,
) -> IncrementalAlterConfigsResponse {
    match broker.ask_controller(&request, version).await {
        Ok(response) => response,
        Err(reason) => {
            tracing::warn!("IncrementalAlterConfigs: {reason}");
            let responses = request
                .resources
                .iter()
                .map(|r| AlterConfigsResourceResponse {
                    error_code: ErrorCode::RequestTimedOut.code(),
                    error_message: Some(reason.clone()),
                    resource_type: r.resource_type,
                    resource_name: r.resource_name.clone(),
                    ..Default::default()
                })
                .collect();
            IncrementalAlterConfigsResponse { responses, ..Default::default() }
        }
    }
}
