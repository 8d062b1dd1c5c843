//! AlterConfigs (Kafka's legacy API: each resource's configs replaced by the given set) for topic
//! configs and the dynamic broker configs that default them: the controller's decision,
//! committed through the quorum. `validate_only` writes nothing.

use strand_metadata::controller::alter_configs;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{AlterConfigsRequest, AlterConfigsResponse};

use crate::Broker;

pub async fn handle(broker: &Broker, request: AlterConfigsRequest) -> AlterConfigsResponse {
    let (mut response, failure) = broker.decide(|image| alter_configs(image, &request)).await;
    if let Some(reason) = failure {
        tracing::warn!("AlterConfigs could not commit its records: {reason}");
        for resource in response.responses.iter_mut().filter(|r| r.error_code == 0) {
            resource.error_code = ErrorCode::RequestTimedOut.code();
            resource.error_message = Some(reason.clone());
        }
    }
    response
}
