//! InitProducerId without a `transactional.id`: a fresh producer id with epoch 0 every time, as
//! Kafka does, taken from a block of ids the controller allocated to this broker (a
//! `ProducerIdsRecord` in the metadata log), so a restart never hands out an id twice.
//! Transactional ids arrive with the transactions issue.

use strand_base::ProducerId;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{AllocateProducerIdsRequest, InitProducerIdRequest, InitProducerIdResponse};

use crate::Broker;

/// The ids this broker may still hand out: `[next, end)`.
#[derive(Debug, Default)]
pub struct ProducerIdBlock {
    next: i64,
    end: i64,
}

pub async fn handle(broker: &Broker, request: InitProducerIdRequest) -> InitProducerIdResponse {
    if request.transactional_id.is_some() {
        return failed(ErrorCode::UnsupportedVersion);
    }
    match next_producer_id(broker).await {
        Ok(id) => InitProducerIdResponse { producer_id: ProducerId(id), producer_epoch: 0, ..Default::default() },
        Err(reason) => {
            tracing::warn!("InitProducerId: {reason}");
            failed(ErrorCode::CoordinatorNotAvailable)
        }
    }
}

async fn next_producer_id(broker: &Broker) -> Result<i64, String> {
    let mut block = broker.producer_ids.lock().await;
    if block.next >= block.end {
        let request = AllocateProducerIdsRequest {
            broker_id: broker.identity.node_id,
            broker_epoch: broker.identity.broker_epoch,
            ..Default::default()
        };
        let response = broker.ask_controller(&request, 0).await?;
        if response.error_code != 0 {
            return Err(format!("the controller refused a producer id block (error {})", response.error_code));
        }
        let start = response.producer_id_start.0;
        *block = ProducerIdBlock { next: start, end: start + i64::from(response.producer_id_len) };
    }
    let id = block.next;
    block.next += 1;
    Ok(id)
}

fn failed(code: ErrorCode) -> InitProducerIdResponse {
    InitProducerIdResponse {
        error_code: code.code(),
        producer_id: ProducerId::NONE,
        producer_epoch: -1,
        ..Default::default()
    }
}
