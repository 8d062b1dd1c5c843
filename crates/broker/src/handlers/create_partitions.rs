//! CreatePartitions: decided by the active controller (a count that is not an increase is
//! INVALID_PARTITIONS; `validate_only` answers the same and writes nothing); the response once
//! this node's metadata includes the new partitions.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::create_partitions_response::CreatePartitionsTopicResult;
use strand_protocol::messages::{CreatePartitionsRequest, CreatePartitionsResponse};

use crate::Broker;

pub async fn handle(broker: &Broker, request: CreatePartitionsRequest, version: i16) -> CreatePartitionsResponse {
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
