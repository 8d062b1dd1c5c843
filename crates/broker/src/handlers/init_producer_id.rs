//! InitProducerId. Without a `transactional.id`: a fresh producer id with epoch 0 every time, as
//! Kafka does, taken from a block of ids the controller allocated to this broker (a
//! `ProducerIdsRecord` in the metadata log), so a restart never hands out an id twice. With one:
//! the transaction coordinator's (its id and epoch, fencing older producers of the same id).

use strand_base::ProducerId;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{InitProducerIdRequest, InitProducerIdResponse};

use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use crate::Broker;

/// A transactional id needs WRITE on it (TRANSACTIONAL_ID_AUTHORIZATION_FAILED); an idempotent
/// producer IDEMPOTENT_WRITE on the cluster or WRITE on some topic (CLUSTER_AUTHORIZATION_FAILED),
/// as Kafka 4 asks (KIP-679).
pub async fn handle(
    broker: &Broker,
    request: InitProducerIdRequest,
    version: i16,
    session: &Session,
) -> InitProducerIdResponse {
    if let Some(transactional_id) = &request.transactional_id {
        if !broker.authorize(session, AclOperation::Write, ResourceType::TransactionalId, transactional_id) {
            return failed(ErrorCode::TransactionalIdAuthorizationFailed);
        }
    } else if !broker.authorize_cluster(session, AclOperation::IdempotentWrite)
        && !broker.authorize_any(session, AclOperation::Write, ResourceType::Topic)
    {
        return failed(ErrorCode::ClusterAuthorizationFailed);
    }
    if request.transactional_id.is_some() {
        return match &broker.transactions {
            Some(transactions) => transactions.init_producer_id(request, version).await,
            None => failed(ErrorCode::CoordinatorNotAvailable),
        };
    }
    match broker.producer_ids.next().await {
        Ok(id) => InitProducerIdResponse { producer_id: ProducerId(id), producer_epoch: 0, ..Default::default() },
        Err(reason) => {
            tracing::warn!("InitProducerId: {reason}");
            failed(ErrorCode::CoordinatorNotAvailable)
        }
    }
}

fn failed(code: ErrorCode) -> InitProducerIdResponse {
    InitProducerIdResponse {
        error_code: code.code(),
        producer_id: ProducerId::NONE,
        producer_epoch: -1,
        ..Default::default()
    }
}
