//! AddRaftVoter and RemoveRaftVoter (KIP-853, `kafka-metadata-quorum add-controller` and
//! `remove-controller`) on a broker listener: ALTER on the cluster, then forwarded to the active
//! controller as Kafka's brokers forward them (a static quorum's refusal, or a dynamic quorum's
//! change, `strand_metadata::quorum_controller::raft_voters`); REQUEST_TIMED_OUT when no
//! controller answers.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{
    AddRaftVoterRequest, AddRaftVoterResponse, RemoveRaftVoterRequest, RemoveRaftVoterResponse,
};
use strand_security::Session;
use strand_security::acl::AclOperation;

use crate::Broker;

pub async fn add(
    broker: &Broker,
    request: &AddRaftVoterRequest,
    version: i16,
    session: &Session,
) -> AddRaftVoterResponse {
    let refused = |code: ErrorCode, message: String| AddRaftVoterResponse {
        error_code: code.code(),
        error_message: Some(message),
        ..Default::default()
    };
    if !broker.authorize_cluster(session, AclOperation::Alter) {
        let code = ErrorCode::ClusterAuthorizationFailed;
        return refused(code, code.message().to_owned());
    }
    match broker.ask_controller(request, version).await {
        Ok(response) => response,
        Err(reason) => refused(ErrorCode::RequestTimedOut, reason),
    }
}

pub async fn remove(
    broker: &Broker,
    request: &RemoveRaftVoterRequest,
    version: i16,
    session: &Session,
) -> RemoveRaftVoterResponse {
    let refused = |code: ErrorCode, message: String| RemoveRaftVoterResponse {
        error_code: code.code(),
        error_message: Some(message),
        ..Default::default()
    };
    if !broker.authorize_cluster(session, AclOperation::Alter) {
        let code = ErrorCode::ClusterAuthorizationFailed;
        return refused(code, code.message().to_owned());
    }
    match broker.ask_controller(request, version).await {
        Ok(response) => response,
        Err(reason) => refused(ErrorCode::RequestTimedOut, reason),
    }
}
