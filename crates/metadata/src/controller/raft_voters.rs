//! AddRaftVoter, RemoveRaftVoter and UpdateRaftVoter (KIP-853): the checks of every request
//! ([`check_add`] and its kin), and on a static quorum
//! (`controller.quorum.voters`, `kraft.version` 0) the refusal as Kafka 4.4's leader refuses them,
//! after the same checks of the request (another cluster's id: INCONSISTENT_CLUSTER_ID; a voter
//! without a directory id, or added without a listener: INVALID_REQUEST), then
//! UNSUPPORTED_VERSION naming the `kraft.version` level (Kafka's sentence at level 0; at the level
//! 1, that the voters are static). A dynamic quorum's changes are the quorum's
//! (`quorum::voters`), asked by `quorum_controller::raft_voters`.

use strand_base::Uuid;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{
    AddRaftVoterRequest, AddRaftVoterResponse, RemoveRaftVoterRequest, RemoveRaftVoterResponse, UpdateRaftVoterRequest,
    UpdateRaftVoterResponse,
};

use crate::image::MetadataImage;

const KRAFT_VERSION: &str = "kraft.version";

pub fn add_raft_voter(image: &MetadataImage, cluster_id: &str, request: &AddRaftVoterRequest) -> AddRaftVoterResponse {
    let valid = request.voter_directory_id != Uuid::default() && !request.listeners.is_empty();
    let (code, message) = refusal(image, cluster_id, request.cluster_id.as_deref(), valid, "add", "adding");
    AddRaftVoterResponse { error_code: code.code(), error_message: Some(message), ..AddRaftVoterResponse::default() }
}

pub fn remove_raft_voter(
    image: &MetadataImage,
    cluster_id: &str,
    request: &RemoveRaftVoterRequest,
) -> RemoveRaftVoterResponse {
    let valid = request.voter_directory_id != Uuid::default();
    let (code, message) = refusal(image, cluster_id, request.cluster_id.as_deref(), valid, "remove", "removing");
    RemoveRaftVoterResponse {
        error_code: code.code(),
        error_message: Some(message),
        ..RemoveRaftVoterResponse::default()
    }
}

/// A controller telling the leader its endpoints and supported `kraft.version` range, where no
/// quorum keeps it (a static quorum's leader keeps it for its `kraft.version` upgrade instead:
/// `quorum_controller::raft_voters`).
pub fn update_raft_voter(
    image: &MetadataImage,
    cluster_id: &str,
    request: &UpdateRaftVoterRequest,
) -> UpdateRaftVoterResponse {
    let valid = request.voter_directory_id != Uuid::default() && !request.listeners.is_empty();
    let (code, _) = refusal(image, cluster_id, request.cluster_id.as_deref(), valid, "update", "updating");
    UpdateRaftVoterResponse { error_code: code.code(), ..UpdateRaftVoterResponse::default() }
}

/// The checks of an AddRaftVoter Kafka makes before anything else: another cluster's id, a voter
/// without a directory id or listeners.
pub fn check_add(cluster_id: &str, request: &AddRaftVoterRequest) -> Result<(), (ErrorCode, String)> {
    let valid = request.voter_directory_id != Uuid::default() && !request.listeners.is_empty();
    check(cluster_id, request.cluster_id.as_deref(), valid, "add")
}

/// As [`check_add`], for RemoveRaftVoter.
pub fn check_remove(cluster_id: &str, request: &RemoveRaftVoterRequest) -> Result<(), (ErrorCode, String)> {
    check(cluster_id, request.cluster_id.as_deref(), request.voter_directory_id != Uuid::default(), "remove")
}

/// As [`check_add`], for UpdateRaftVoter.
pub fn check_update(cluster_id: &str, request: &UpdateRaftVoterRequest) -> Result<(), (ErrorCode, String)> {
    let valid = request.voter_directory_id != Uuid::default() && !request.listeners.is_empty();
    check(cluster_id, request.cluster_id.as_deref(), valid, "update")
}

fn check(
    cluster_id: &str,
    asked_cluster_id: Option<&str>,
    valid_voter: bool,
    verb: &str,
) -> Result<(), (ErrorCode, String)> {
    if asked_cluster_id.is_some_and(|asked| asked != cluster_id) {
        return Err((ErrorCode::InconsistentClusterId, ErrorCode::InconsistentClusterId.message().to_owned()));
    }
    if !valid_voter {
        let verb = verb[..1].to_uppercase() + &verb[1..];
        return Err((ErrorCode::InvalidRequest, format!("{verb} voter request didn't include a valid voter")));
    }
    Ok(())
}

fn refusal(
    image: &MetadataImage,
    cluster_id: &str,
    asked_cluster_id: Option<&str>,
    valid_voter: bool,
    verb: &str,
    gerund: &str,
) -> (ErrorCode, String) {
    if let Err(refused) = check(cluster_id, asked_cluster_id, valid_voter, verb) {
        return refused;
    }
    let level = image.features().level(KRAFT_VERSION);
    let message = if level == 0 {
        format!("Cluster doesn't support {gerund} voter because the {KRAFT_VERSION} feature is {level}")
    } else {
        // Strand finalizes kraft.version 1 but does not change its voters yet: say why.
        format!("Cluster doesn't support {gerund} voter because its voters are static (controller.quorum.voters)")
    };
    (ErrorCode::UnsupportedVersion, message)
}

#[cfg(test)]
mod tests {
    use strand_protocol::messages::add_raft_voter_request::Listener;

    use super::*;

    /// Kafka 4.4's answers on a static quorum: a valid voter is UNSUPPORTED_VERSION naming the
    /// feature level, an invalid one INVALID_REQUEST, another cluster INCONSISTENT_CLUSTER_ID.
    #[test]
    fn a_static_quorum_refuses_voter_changes_as_kafka() {
        let image = MetadataImage::empty();
        let listener = Listener { name: "CONTROLLER".into(), host: "h".into(), port: 1, ..Listener::default() };
        let add = |cluster: Option<&str>, dir: u8, listeners: Vec<Listener>| {
            let request = AddRaftVoterRequest {
                cluster_id: cluster.map(str::to_owned),
                voter_id: 4,
                voter_directory_id: Uuid([dir; 16]),
                listeners,
                ..AddRaftVoterRequest::default()
            };
            let response = add_raft_voter(&image, "c", &request);
            (response.error_code, response.error_message.unwrap_or_default())
        };
        let unsupported = "Cluster doesn't support adding voter because the kraft.version feature is 0";
        assert_eq!(add(Some("c"), 7, vec![listener.clone()]), (35, unsupported.to_owned()));
        assert_eq!(add(None, 0, vec![listener.clone()]), (42, "Add voter request didn't include a valid voter".into()));
        assert_eq!(add(None, 7, vec![]).0, 42);
        assert_eq!(add(Some("other"), 7, vec![listener]).0, 104);
        let remove = |dir: u8| {
            let request = RemoveRaftVoterRequest {
                cluster_id: None,
                voter_id: 1,
                voter_directory_id: Uuid([dir; 16]),
                ..Default::default()
            };
            remove_raft_voter(&image, "c", &request).error_message.unwrap_or_default()
        };
        assert_eq!(remove(0), "Remove voter request didn't include a valid voter");
        assert_eq!(remove(9), "Cluster doesn't support removing voter because the kraft.version feature is 0");
    }
}
