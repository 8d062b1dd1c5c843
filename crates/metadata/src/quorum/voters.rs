//! Changing a dynamic quorum's voters (KIP-853's AddRaftVoter, RemoveRaftVoter and
//! UpdateRaftVoter) through openraft's membership changes.
//!
//! **Adding** a controller: the leader first makes it a learner (it replicates the log without
//! voting, as Kafka's observer does) and waits until it has caught up with the leader's log end
//! (Kafka refuses a lagging one at once, REQUEST_TIMED_OUT; Strand waits up to the request's
//! timeout, then gives the same answer and takes the learner out again); then it becomes a voter
//! by joint consensus (the old and the new voter sets both commit the change, then the new one
//! alone), which `entry` writes as Kafka's `VotersRecord`s. **Removing** one is a joint change
//! too; a leader that removes itself steps down once the change commits.
//!
//! Refused as Kafka's leader refuses them: off the leader NOT_LEADER_OR_FOLLOWER; while another
//! change is in flight REQUEST_TIMED_OUT; a voter id already voting DUPLICATE_VOTER; a voter (id
//! and directory id) not voting, or the last one, VOTER_NOT_FOUND; a static quorum (until its
//! `kraft.version` upgrade, `kraft_upgrade`) UNSUPPORTED_VERSION.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use openraft::ChangeMembers;
use openraft::error::{ChangeMembershipError, ClientWriteError, RaftError};
use strand_base::Uuid;
use strand_protocol::error::ErrorCode;

use super::Quorum;
use super::entry::{VoterEndpoint, VoterNode, node_id_to_wire};

/// A controller to add: its id, metadata log directory id, and CONTROLLER listeners (name, host,
/// port), as AddRaftVoter carries them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewVoter {
    pub id: i32,
    pub directory_id: Uuid,
    pub listeners: Vec<(String, String, u16)>,
}

/// One voter of the current membership, as DescribeQuorum and the transport need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CurrentVoter {
    pub id: i32,
    pub directory_id: Uuid,
    pub listeners: Vec<(String, String, u16)>,
}

/// Why a voter change was refused or did not finish: Kafka's error code and message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct VoterChangeError {
    pub code: ErrorCode,
    pub message: String,
}

impl VoterChangeError {
    fn new(code: ErrorCode, message: impl Into<String>) -> VoterChangeError {
        VoterChangeError { code, message: message.into() }
    }
}

const PREVIOUS_CHANGE: &str = "Request timed out waiting for leader to handle previous voter change request";

impl Quorum {
    /// The voters of the membership this node knows (the newest, committed or not).
    pub fn current_voters(&self) -> Vec<CurrentVoter> {
        let metrics = self.metrics.borrow();
        let membership = metrics.membership_config.membership();
        let voting: BTreeSet<u64> = membership.voter_ids().collect();
        let voters = membership.nodes().filter(|(id, _)| voting.contains(id));
        voters.map(|(id, node)| current_voter(*id, node)).collect()
    }

    /// Adds `voter` (see the module doc), waiting at most `timeout` for it to catch up and for
    /// the change to commit.
    pub async fn add_voter(&self, voter: NewVoter, timeout: Duration) -> Result<(), VoterChangeError> {
        let voters = self.check_voter_change("adding")?;
        if voters.iter().any(|v| v.id == voter.id) {
            let key = replica_key(voter.id, voter.directory_id);
            let message = format!("The voter id for {key} is already part of the set of voters {}.", keys(&voters));
            return Err(VoterChangeError::new(ErrorCode::DuplicateVoter, message));
        }
        let id = u64::try_from(voter.id).map_err(|_| VoterChangeError::new(ErrorCode::InvalidRequest, "bad id"))?;
        let node = voter_node(&voter);
        let key = replica_key(voter.id, voter.directory_id);
        let lagging = || {
            let message = format!("Aborted add voter operation for {key} since it is lagging behind");
            VoterChangeError::new(ErrorCode::RequestTimedOut, message)
        };
        tracing::info!("metadata quorum: adding {key} as a learner until it catches up");
        match tokio::time::timeout(timeout, self.raft.add_learner(id, node, true)).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(change_failed(e)),
            Err(_) => {
                // Not caught up in time: it must not stay a learner the leader replicates to.
                let removed = self.raft.change_membership(ChangeMembers::RemoveNodes(BTreeSet::from([id])), false);
                if let Err(e) = removed.await {
                    tracing::warn!("metadata quorum: could not drop learner {key} again: {e}");
                }
                return Err(lagging());
            }
        }
        tracing::info!("metadata quorum: {key} caught up; making it a voter");
        self.commit_change(ChangeMembers::AddVoterIds(BTreeSet::from([id])), timeout).await
    }

    /// Removes the voter `id` whose metadata log directory is `directory_id`, waiting at most
    /// `timeout` for the change to commit.
    pub async fn remove_voter(&self, id: i32, directory_id: Uuid, timeout: Duration) -> Result<(), VoterChangeError> {
        let voters = self.check_voter_change("removing")?;
        let found = voters.iter().any(|v| v.id == id && v.directory_id == directory_id);
        if !found || voters.len() == 1 {
            let message = format!(
                "Cannot remove voter {} from the set of voters {}",
                replica_key(id, directory_id),
                keys(&voters)
            );
            return Err(VoterChangeError::new(ErrorCode::VoterNotFound, message));
        }
        let raft_id = u64::try_from(id).unwrap_or_default();
        tracing::info!("metadata quorum: removing voter {}", replica_key(id, directory_id));
        self.commit_change(ChangeMembers::RemoveVoters(BTreeSet::from([raft_id])), timeout).await
    }

    /// Updates voter `id`'s CONTROLLER listeners (KIP-853's UpdateRaftVoter: a voter telling the
    /// leader the endpoints it now listens on), written as a new `VotersRecord` once committed.
    /// VOTER_NOT_FOUND unless `id` votes with `directory_id`; nothing is written when the
    /// endpoints are those the voter already has.
    pub async fn update_voter(&self, voter: NewVoter, timeout: Duration) -> Result<(), VoterChangeError> {
        let voters = self.check_voter_change("updating")?;
        let key = replica_key(voter.id, voter.directory_id);
        let Some(current) = voters.iter().find(|v| v.id == voter.id && v.directory_id == voter.directory_id) else {
            let message = format!("Updated voter {key} is not part of the set of voters {}.", keys(&voters));
            return Err(VoterChangeError::new(ErrorCode::VoterNotFound, message));
        };
        if current.listeners == voter.listeners {
            return Ok(());
        }
        let id = u64::try_from(voter.id).map_err(|_| VoterChangeError::new(ErrorCode::InvalidRequest, "bad id"))?;
        let node = voter_node(&voter);
        tracing::info!("metadata quorum: {key} now listens on {:?}", voter.listeners);
        self.commit_change(ChangeMembers::SetNodes(BTreeMap::from([(id, node)])), timeout).await
    }

    /// Makes `change` and waits at most `timeout` for it to commit.
    async fn commit_change(
        &self,
        change: ChangeMembers<u64, VoterNode>,
        timeout: Duration,
    ) -> Result<(), VoterChangeError> {
        match tokio::time::timeout(timeout, self.raft.change_membership(change, false)).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(change_failed(e)),
            Err(_) => Err(VoterChangeError::new(
                ErrorCode::RequestTimedOut,
                "Request timed out waiting for voters to commit the latest voter change",
            )),
        }
    }

    /// The voters, once this node is found to lead a dynamic quorum with no change in flight.
    fn check_voter_change(&self, gerund: &str) -> Result<Vec<CurrentVoter>, VoterChangeError> {
        if !self.is_dynamic() {
            let message = format!("Cluster doesn't support {gerund} voter because the kraft.version feature is 0");
            return Err(VoterChangeError::new(ErrorCode::UnsupportedVersion, message));
        }
        let metrics = self.metrics.borrow();
        if metrics.state != openraft::ServerState::Leader {
            let code = ErrorCode::NotLeaderOrFollower;
            return Err(VoterChangeError::new(code, code.message()));
        }
        let membership = metrics.membership_config.membership();
        let learners = membership.learner_ids().count();
        if membership.get_joint_config().len() > 1 || learners > 0 {
            return Err(VoterChangeError::new(ErrorCode::RequestTimedOut, PREVIOUS_CHANGE));
        }
        drop(metrics);
        Ok(self.current_voters())
    }
}

/// `voter` as the membership holds it.
pub(crate) fn voter_node(voter: &NewVoter) -> VoterNode {
    let endpoints = voter.listeners.iter().map(|(name, host, port)| VoterEndpoint {
        name: name.clone(),
        host: host.clone(),
        port: *port,
    });
    VoterNode { directory_id: voter.directory_id.0, endpoints: endpoints.collect() }
}

fn current_voter(id: u64, node: &VoterNode) -> CurrentVoter {
    CurrentVoter {
        id: node_id_to_wire(id),
        directory_id: Uuid(node.directory_id),
        listeners: node.endpoints.iter().map(|e| (e.name.clone(), e.host.clone(), e.port)).collect(),
    }
}

/// Kafka's `ReplicaKey.toString`.
fn replica_key(id: i32, directory_id: Uuid) -> String {
    format!("ReplicaKey(id={id}, directoryId={directory_id})")
}

fn keys(voters: &[CurrentVoter]) -> String {
    let keys: Vec<String> = voters.iter().map(|v| replica_key(v.id, v.directory_id)).collect();
    format!("[{}]", keys.join(", "))
}

/// A membership change openraft refused or could not finish.
fn change_failed(error: RaftError<u64, ClientWriteError<u64, VoterNode>>) -> VoterChangeError {
    match error {
        RaftError::APIError(ClientWriteError::ForwardToLeader(_)) => {
            VoterChangeError::new(ErrorCode::NotLeaderOrFollower, ErrorCode::NotLeaderOrFollower.message())
        }
        RaftError::APIError(ClientWriteError::ChangeMembershipError(ChangeMembershipError::InProgress(_))) => {
            VoterChangeError::new(ErrorCode::RequestTimedOut, PREVIOUS_CHANGE)
        }
        other => VoterChangeError::new(ErrorCode::UnknownServerError, other.to_string()),
    }
}
