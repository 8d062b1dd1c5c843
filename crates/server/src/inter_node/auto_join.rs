//! `controller.quorum.auto.join.enable` (KIP-853): a controller of a dynamic quorum that is not
//! one of its voters (formatted with `--no-initial-controllers`, or removed) adds itself. It
//! sends AddRaftVoter with its id, its metadata log dir's directory id and its CONTROLLER
//! listeners to each bootstrap server in turn (a voter that does not lead answers
//! NOT_LEADER_OR_FOLLOWER, the leader makes it a learner, waits for it to catch up and makes it a
//! voter), until the voter set it replicates names it. A refusal (say DUPLICATE_VOTER while a
//! voter with its id but another directory id, a failed disk's, is still in the set) is logged
//! once and the request repeated every [`AUTO_JOIN_BACKOFF`]: once the operator removes the old
//! voter (`kafka-metadata-quorum remove-controller`), it joins.

use std::sync::Arc;
use std::time::Duration;

use strand_base::Uuid;
use strand_broker::call_controller_for;
use strand_metadata::quorum::{Leadership, Quorum};
use strand_protocol::messages::AddRaftVoterRequest;
use tokio::sync::watch;
use tracing::{info, warn};

use super::controllers::ControllerAddresses;
use super::{ControllerClient, Link, PeerHealth};

/// How long to wait between rounds of asking the bootstrap servers.
pub const AUTO_JOIN_BACKOFF: Duration = Duration::from_secs(1);
/// How long the leader may take to catch this controller up and commit it as a voter.
const JOIN_TIMEOUT: Duration = Duration::from_secs(30);
/// AddRaftVoter's version (1: the leader answers once the change is committed).
const ADD_RAFT_VOTER_VERSION: i16 = 1;

/// What this controller joins with.
#[derive(Debug, Clone)]
pub struct JoiningController {
    pub cluster_id: String,
    pub node_id: i32,
    pub directory_id: Uuid,
    /// Its CONTROLLER listeners: name, host, port.
    pub listeners: Vec<(String, String, u16)>,
    /// The bootstrap servers' ids in `addresses` (see [`ControllerAddresses::bootstrap_id`]).
    pub bootstrap_ids: Vec<i32>,
}

/// Asks to join until the voter set `quorum` replicates names this controller; then returns.
pub async fn join_forever(
    quorum: Arc<Quorum>,
    joining: JoiningController,
    addresses: ControllerAddresses,
    peers: Arc<PeerHealth>,
    link: Link,
) {
    let request = AddRaftVoterRequest {
        cluster_id: Some(joining.cluster_id.clone()),
        timeout_ms: i32::try_from(JOIN_TIMEOUT.as_millis()).unwrap_or(i32::MAX),
        voter_id: joining.node_id,
        voter_directory_id: joining.directory_id,
        listeners: joining
            .listeners
            .iter()
            .map(|(name, host, port)| strand_protocol::messages::add_raft_voter_request::Listener {
                name: name.clone(),
                host: host.clone(),
                port: *port,
                ..Default::default()
            })
            .collect(),
        ack_when_committed: true,
        ..Default::default()
    };
    let (target_tx, target) = watch::channel(Leadership { epoch: 0, leader_id: None });
    let attempt = JOIN_TIMEOUT + Duration::from_secs(5);
    let client =
        ControllerClient::new(joining.node_id, None, target, addresses, attempt, attempt, peers).with_link(link);
    let joined =
        || quorum.current_voters().iter().any(|v| v.id == joining.node_id && v.directory_id == joining.directory_id);
    let mut refusal_said = None;
    while !joined() {
        for id in &joining.bootstrap_ids {
            target_tx.send_replace(Leadership { epoch: 0, leader_id: Some(*id) });
            match call_controller_for(&client, &request, ADD_RAFT_VOTER_VERSION, None).await {
                Ok((response, _)) if response.error_code == 0 => {
                    info!("controller {} joined the metadata quorum as a voter", joining.node_id);
                    break;
                }
                // A voter that does not lead: ask the next.
                Ok((response, _)) if response.error_code == 6 => {}
                Ok((response, _)) => {
                    let said = (response.error_code, response.error_message.clone());
                    if refusal_said.as_ref() != Some(&said) {
                        warn!(
                            "controller {} cannot join the metadata quorum yet (error {}: {}); asking again every {} ms",
                            joining.node_id,
                            response.error_code,
                            response.error_message.unwrap_or_default(),
                            AUTO_JOIN_BACKOFF.as_millis()
                        );
                        refusal_said = Some(said);
                    }
                }
                Err(e) => tracing::debug!("auto join through bootstrap server {id}: {e}"),
            }
        }
        tokio::time::sleep(AUTO_JOIN_BACKOFF).await;
    }
}
