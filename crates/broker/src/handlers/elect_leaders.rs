//! ElectLeaders (KIP-183, KIP-460): preferred or unclean elections for a list of partitions, or
//! with a null list for every partition, decided by the active controller (Kafka 4's brokers
//! forward it; the controller's `ReplicationControlManager.electLeaders` gives each partition
//! NONE, ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE, ELIGIBLE_LEADERS_NOT_AVAILABLE or
//! UNKNOWN_TOPIC_OR_PARTITION, and an unknown election type fails the request with
//! INVALID_REQUEST). The response comes once this node's metadata includes the new leaders.
//!
//! Without ALTER on the cluster the request fails as Kafka's `ControllerApis.handleElectLeaders`
//! fails it: CLUSTER_AUTHORIZATION_FAILED at the top and on every listed partition
//! (`ElectLeadersRequest.getErrorResponse`). Version 0 has no top-level error code, so there only
//! the partitions carry it, as Kafka's `ElectLeadersResponse` constructor drops it.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::elect_leaders_response::{PartitionResult, ReplicaElectionResult};
use strand_protocol::messages::{ElectLeadersRequest, ElectLeadersResponse};
use strand_security::Session;
use strand_security::acl::AclOperation;

use super::admin_apis::AdminApis;

/// The first version with a top-level error code.
const TOP_LEVEL_ERROR_VERSION_MIN: i16 = 1;

pub async fn handle(
    apis: &AdminApis<'_>,
    request: ElectLeadersRequest,
    version: i16,
    session: &Session,
) -> ElectLeadersResponse {
    let mut response = if !apis.authorize_cluster(session, AclOperation::Alter) {
        failed(&request, ErrorCode::ClusterAuthorizationFailed, "Request is not authorized to elect leaders.")
    } else {
        match apis.ask_controller(session, &request, version).await {
            Ok(response) => response,
            Err(reason) => {
                tracing::warn!("ElectLeaders: {reason}");
                failed(&request, ErrorCode::RequestTimedOut, &reason)
            }
        }
    };
    if version < TOP_LEVEL_ERROR_VERSION_MIN {
        response.error_code = ErrorCode::None.code();
    }
    response
}

/// Kafka's `ElectLeadersRequest.getErrorResponse`: `code` at the top and, with `message`, on every
/// listed partition (none with a null list).
fn failed(request: &ElectLeadersRequest, code: ErrorCode, message: &str) -> ElectLeadersResponse {
    let results = request
        .topic_partitions
        .iter()
        .flatten()
        .map(|topic| ReplicaElectionResult {
            topic: topic.topic.clone(),
            partition_result: topic
                .partitions
                .iter()
                .map(|&partition_id| PartitionResult {
                    partition_id,
                    error_code: code.code(),
                    error_message: Some(message.to_owned()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        })
        .collect();
    ElectLeadersResponse { error_code: code.code(), replica_election_results: results, ..Default::default() }
}
