//! AlterClientQuotas (KIP-546): decided by the active controller, as Kafka forwards it
//! (`ClientQuotaControlManager`); the answer comes once this node's image holds the new quotas.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_client_quotas_response::{EntityData, EntryData};
use strand_protocol::messages::{AlterClientQuotasRequest, AlterClientQuotasResponse};

use crate::Broker;

pub async fn handle(broker: &Broker, request: AlterClientQuotasRequest, version: i16) -> AlterClientQuotasResponse {
    match broker.ask_controller(&request, version).await {
        Ok(response) => response,
        Err(reason) => {
            tracing::warn!("AlterClientQuotas: {reason}");
            let entries = request
                .entries
                .iter()
                .map(|entry| EntryData {
                    error_code: ErrorCode::RequestTimedOut.code(),
                    error_message: Some(reason.clone()),
                    entity: entry
                        .entity
                        .iter()
                        .map(|e| EntityData {
                            entity_type: e.entity_type.clone(),
                            entity_name: e.entity_name.clone(),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                })
                .collect();
            AlterClientQuotasResponse { entries, ..Default::default() }
        }
    }
}
