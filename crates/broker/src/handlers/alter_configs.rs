//! AlterConfigs (Kafka's legacy API: each resource's configs replaced by the given set) for topic
//! configs and the dynamic broker configs that default them: decided by the active controller.
//! `validate_only` writes nothing.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_configs_response::AlterConfigsResourceResponse;
use strand_protocol::messages::{AlterConfigsRequest, AlterConfigsResponse};

use crate::Broker;

pub async fn handle(broker: &Broker, request: AlterConfigsRequest, version: i16) -> AlterConfigsResponse {
    match broker.ask_controller(&request, version).await {
        Ok(response) => response,
        Err(reason) => {
            tracing::warn!("AlterConfigs: {reason}");
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
            AlterConfigsResponse { responses, ..Default::default() }
        }
    }
}
