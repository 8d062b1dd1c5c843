//! UpdateRaftVoter from a voter of a static quorum (KIP-853; Kafka 4.1's KAFKA-16538): each new
//! leader, this node included when it leads, is told this voter's metadata log directory id,
//! CONTROLLER listeners and the `kraft.version`s it supports, which the leader keeps in memory
//! for its epoch and needs from every voter before it upgrades `kraft.version` to 1 (the
//! quorum's `kraft_upgrade`). Kafka's voters at level 0 send it once to every new leader, as
//! here; a refusal or a failed call is tried again every [`VOTER_UPDATE_BACKOFF`] while that
//! leader leads. While the quorum is dynamic the log holds the voters, and nothing is sent.

use std::sync::Arc;
use std::time::Duration;

use strand_broker::{ControllerChannel, call_controller_for};
use strand_metadata::quorum::Quorum;
use strand_protocol::messages::UpdateRaftVoterRequest;
use tracing::{debug, info};

/// How long to wait before telling a leader again after a refusal or a failed call.
pub const VOTER_UPDATE_BACKOFF: Duration = Duration::from_secs(1);
/// UpdateRaftVoter's only version.
const UPDATE_RAFT_VOTER_VERSION: i16 = 0;

/// Tells every new leader of `quorum` what `request` says of this voter (its epoch filled in),
/// while the quorum is static; ends when the quorum stops.
pub async fn update_voter_forever(
    quorum: Arc<Quorum>,
    request: UpdateRaftVoterRequest,
    channel: Arc<dyn ControllerChannel>,
) {
    let mut leadership = quorum.leadership();
    let mut told_epoch = None;
    loop {
        let now = *leadership.borrow_and_update();
        // Dynamic: the log holds the voters (an upgrade not yet committed may still be undone,
        // so the next leader is watched for all the same).
        if now.leader_id.is_some() && told_epoch != Some(now.epoch) && !quorum.is_dynamic() {
            let request = UpdateRaftVoterRequest { current_leader_epoch: now.epoch, ..request.clone() };
            match call_controller_for(channel.as_ref(), &request, UPDATE_RAFT_VOTER_VERSION, None).await {
                Ok((response, _)) if response.error_code == 0 => {
                    info!(
                        "told the leader of epoch {} about voter {} for kraft.version 1",
                        now.epoch, request.voter_id
                    );
                    told_epoch = Some(now.epoch);
                }
                Ok((response, _)) => debug!("UpdateRaftVoter in epoch {}: error {}", now.epoch, response.error_code),
                Err(e) => debug!("UpdateRaftVoter in epoch {}: {e}", now.epoch),
            }
            if told_epoch != Some(now.epoch) {
                // Again after the backoff, or at once at the next leader.
                if let Ok(Err(_)) = tokio::time::timeout(VOTER_UPDATE_BACKOFF, leadership.changed()).await {
                    return;
                }
                continue;
            }
        }
        if leadership.changed().await.is_err() {
            return;
        }
    }
}
