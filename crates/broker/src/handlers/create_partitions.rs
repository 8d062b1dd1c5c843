//! CreatePartitions: the controller's decision (a count that is not an increase is
//! INVALID_PARTITIONS; `validate_only` answers the same and writes nothing), committed through
//! the quorum; the response once this node's metadata includes the new partitions.

use strand_metadata::controller::create_partitions;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{CreatePartitionsRequest, CreatePartitionsResponse};

use crate::Broker;

pub async fn handle(broker: &Broker, request: CreatePartitionsRequest) -> CreatePartitionsResponse {
    let (mut response, failure) = broker.decide(|image| create_partitions(image, &request)).await;
    if let Some(reason) = failure {
        tracing::warn!("CreatePartitions could not commit its records: {reason}");
        for topic in response.results.iter_mut().filter(|t| t.error_code == 0) {
            topic.error_code = ErrorCode::RequestTimedOut.code();
            topic.error_message = Some(reason.clone());
        }
    }
    response
}
