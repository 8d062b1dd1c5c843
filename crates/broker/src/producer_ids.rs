//! Producer ids for this broker: taken from blocks the controller allocates to it
//! (AllocateProducerIds; a `ProducerIdsRecord` in the metadata log), so no id is ever handed out
//! twice, by any broker, across restarts. Idempotent producers' InitProducerId and the
//! transaction coordinator draw from the same blocks.

use std::sync::Arc;

use strand_base::BrokerId;
use strand_coordinator::BoxFuture;
use strand_coordinator::txn::ProducerIdSource;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::AllocateProducerIdsRequest;

use crate::{ControllerChannel, call_controller};

/// The ids this broker may still hand out: `[next, end)`, refilled from the controller.
#[derive(Debug)]
pub struct ControllerProducerIds {
    controller: Arc<dyn ControllerChannel>,
    broker_id: BrokerId,
    broker_epoch: i64,
    block: tokio::sync::Mutex<(i64, i64)>,
}

impl ControllerProducerIds {
    pub fn new(controller: Arc<dyn ControllerChannel>, broker_id: BrokerId, broker_epoch: i64) -> Self {
        ControllerProducerIds { controller, broker_id, broker_epoch, block: tokio::sync::Mutex::new((0, 0)) }
    }

    /// The next id, asking the controller for a new block when this one is used up. `Err`: why
    /// no block could be had.
    pub async fn next(&self) -> Result<i64, String> {
        let mut block = self.block.lock().await;
        if block.0 >= block.1 {
            let request = AllocateProducerIdsRequest {
                broker_id: self.broker_id,
                broker_epoch: self.broker_epoch,
                ..Default::default()
            };
            let (response, _) = call_controller(self.controller.as_ref(), &request, 0).await?;
            if response.error_code != 0 {
                return Err(format!("the controller refused a producer id block (error {})", response.error_code));
            }
            let start = response.producer_id_start.0;
            *block = (start, start + i64::from(response.producer_id_len));
        }
        let id = block.0;
        block.0 += 1;
        Ok(id)
    }
}

impl ProducerIdSource for ControllerProducerIds {
    fn next_producer_id(&self) -> BoxFuture<'_, Result<i64, ErrorCode>> {
        Box::pin(async move {
            self.next().await.map_err(|reason| {
                tracing::warn!("no producer id: {reason}");
                ErrorCode::CoordinatorNotAvailable
            })
        })
    }
}
