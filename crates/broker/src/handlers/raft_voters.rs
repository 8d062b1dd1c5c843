//! AddRaftVoter and RemoveRaftVoter (KIP-853, `kafka-metadata-quorum add-controller` and
//! `remove-controller`): ALTER on the cluster, then the static quorum's answer
//! (`strand_metadata::controller::raft_voters`: Kafka's refusal while `kraft.version` is 0).

use strand_metadata::controller::{add_raft_voter, remove_raft_voter};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{
    AddRaftVoterRequest, AddRaftVoterResponse, RemoveRaftVoterRequest, RemoveRaftVoterResponse,
};
use strand_security::Session;
use strand_security::acl::AclOperation;

use crate::Broker;

pub fn add(broker: &Broker, request: &AddRaftVoterRequest, session: &Session) -> AddRaftVoterResponse {
    if !broker.authorize_cluster(session, AclOperation::Alter) {
        let code = ErrorCode::ClusterAuthorizationFailed;
        return AddRaftVoterResponse {
            error_code: code.code(),
            error_message: Some(code.message().to_owned()),
            ..Default::default()
        };
    }
    add_raft_voter(&broker.image(), &broker.identity().cluster_id, request)
}

pub fn remove(broker: &Broker, request: &RemoveRaftVoterRequest, session: &Session) -> RemoveRaftVoterResponse {
    if !broker.authorize_cluster(session, AclOperation::Alter) {
        let code = ErrorCode::ClusterAuthorizationFailed;
        return RemoveRaftVoterResponse {
            error_code: code.code(),
            error_message: Some(code.message().to_owned()),
            ..Default::default()
        };
    }
    remove_raft_voter(&broker.image(), &broker.identity().cluster_id, request)
}
