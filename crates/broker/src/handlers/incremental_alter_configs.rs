//! IncrementalAlterConfigs (SET, DELETE, APPEND, SUBTRACT) for topic configs and for the dynamic
//! broker configs that default them: the controller's decision, committed through the quorum.
//! Each resource succeeds or fails whole; `validate_only` writes nothing.

use strand_metadata::controller::incremental_alter_configs;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse};

use crate::Broker;

pub async fn handle(broker: &Broker, request: IncrementalAlterConfigsRequest) -> IncrementalAlterConfigsResponse {
    let (mut response, failure) = broker.decide(|image| incremental_alter_configs(image, &request)).await;
    if let Some(reason) = failure {
        tracing::warn!("IncrementalAlterConfigs could not commit its records: {reason}");
        for resource in response.responses.iter_mut().filter(|r| r.error_code == 0) {
            resource.error_code = ErrorCode::RequestTimedOut.code();
            resource.error_message = Some(reason.clone());
        }
    }
    response
}
