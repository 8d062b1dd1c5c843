//! DescribeCluster: the brokers with an endpoint on the listener the client used (fenced ones too
//! when v2's `include_fenced_brokers` asks, marked `is_fenced`), the cluster id, and this node as
//! the controller (KRaft brokers name a live broker, since clients cannot reach controllers).
//!
//! Anyone may ask; `include_cluster_authorized_operations` reports what the session may do on
//! the cluster (0 without DESCRIBE on it), as Kafka does.
//!
//! Brokers answer only for `endpoint_type` BROKER (KIP-919): CONTROLLER is
//! MISMATCHED_ENDPOINT_TYPE and anything else UNSUPPORTED_ENDPOINT_TYPE, both INVALID_REQUEST at
//! v0, as Kafka's `AuthHelper.computeDescribeClusterResponse`.

use strand_base::BrokerId;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::describe_cluster_response::DescribeClusterBroker;
use strand_protocol::messages::{DescribeClusterRequest, DescribeClusterResponse};

use strand_security::Session;

use crate::Broker;

/// KIP-919's endpoint types.
pub(crate) const ENDPOINT_BROKER: i8 = 1;
pub(crate) const ENDPOINT_CONTROLLER: i8 = 2;

/// Kafka's "authorized operations not requested" value.
const AUTHORIZED_OPERATIONS_OMITTED: i32 = i32::MIN;

/// Answers with the endpoints of `listener`, the one the request arrived on.
pub fn handle(
    broker: &Broker,
    request: DescribeClusterRequest,
    version: i16,
    listener: &str,
    session: &Session,
) -> DescribeClusterResponse {
    if let Err((code, message)) = check_endpoint_type(request.endpoint_type, ENDPOINT_BROKER) {
        let code = if version == 0 { ErrorCode::InvalidRequest } else { code };
        return DescribeClusterResponse {
            error_code: code.code(),
            error_message: Some(message),
            ..DescribeClusterResponse::default()
        };
    }
    let image = broker.image();
    let brokers: Vec<DescribeClusterBroker> = image
        .cluster()
        .brokers()
        .filter(|b| !b.fenced || request.include_fenced_brokers)
        .filter_map(|b| {
            let endpoint = b.endpoints.iter().find(|e| e.name == listener)?;
            Some(DescribeClusterBroker {
                broker_id: b.id,
                host: endpoint.host.clone(),
                port: i32::from(endpoint.port),
                rack: b.rack.clone(),
                is_fenced: b.fenced,
                ..DescribeClusterBroker::default()
            })
        })
        .collect();
    let node = broker.identity.node_id;
    // A controller id the client cannot find among the brokers would only confuse it.
    let controller_id = if brokers.iter().any(|b| b.broker_id == node) { node } else { BrokerId(-1) };
    DescribeClusterResponse {
        endpoint_type: ENDPOINT_BROKER,
        cluster_id: broker.identity.cluster_id.clone(),
        controller_id,
        brokers,
        cluster_authorized_operations: if request.include_cluster_authorized_operations {
            broker.cluster_authorized_operations(session)
        } else {
            AUTHORIZED_OPERATIONS_OMITTED
        },
        ..DescribeClusterResponse::default()
    }
}

/// Whether a request for `endpoint_type` may be answered by a listener serving `served` (Kafka's
/// `AuthHelper.computeDescribeClusterResponse`).
pub(crate) fn check_endpoint_type(endpoint_type: i8, served: i8) -> Result<(), (ErrorCode, String)> {
    let name = |endpoint_type| if endpoint_type == ENDPOINT_BROKER { "BROKER" } else { "CONTROLLER" };
    match endpoint_type {
        asked if asked == served => Ok(()),
        asked @ (ENDPOINT_BROKER | ENDPOINT_CONTROLLER) => Err((
            ErrorCode::MismatchedEndpointType,
            format!(
                "The request was sent to an endpoint of type {}, but we wanted an endpoint of type {}",
                name(served),
                name(asked)
            ),
        )),
        other => Err((ErrorCode::UnsupportedEndpointType, format!("Unsupported endpoint type {other}"))),
    }
}
