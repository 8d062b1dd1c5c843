//! A static quorum becoming a dynamic one: `kraft.version` 0 to 1 (KIP-853's upgrade, Kafka
//! 4.1's KAFKA-16538), as Kafka's `LeaderState` does it.
//!
//! A static quorum's voters (`controller.quorum.voters`) are known by id and address only, while
//! a voter set at `kraft.version` 1 names each voter's metadata log directory id, CONTROLLER
//! listeners and supported `kraft.version`s. So every static voter tells each new leader about
//! itself with UpdateRaftVoter (the server's `voter_update`); the leader keeps what it hears in
//! memory, for its epoch only ([`Quorum::report_voter`]), and writes nothing, as Kafka's leader at
//! level 0 does. UpdateFeatures `kraft.version=1` then asks [`Quorum::kraft_upgrade_refusal`]
//! (refused unless every voter reported, supports 1 and named a directory id: Kafka's
//! INVALID_UPDATE_VERSION "not all of the voters support it") and [`Quorum::upgrade_kraft_version`]
//! writes the voters as reported: one membership entry, whose batch is a `KRaftVersionRecord`
//! (level 1) and a `VotersRecord` (`entry`), Kafka's upgrade batch. Once appended, the quorum is
//! dynamic on every voter (`Quorum::is_dynamic`: its voters have directory ids), voters change
//! with AddRaftVoter and RemoveRaftVoter (`voters`), and on every later start the log's voter
//! set rules, whatever `controller.quorum.voters` still says (Kafka ignores it then too).

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use openraft::ChangeMembers;
use strand_protocol::error::ErrorCode;

use super::Quorum;
use super::entry::{KRAFT_VERSION, VoterNode, kraft_version, node_id_to_wire};
use super::voters::{NewVoter, VoterChangeError, voter_node};

/// What a static quorum's leader heard from its voters in its epoch (Kafka's `KRaftVersionUpgrade.Voters`).
#[derive(Debug, Default)]
pub(crate) struct ReportedVoters {
    /// The leader epoch (Raft term) the reports were made in: a new leader hears them afresh.
    term: u64,
    /// Each voter as it described itself, with the `kraft.version`s it supports (min, max).
    voters: BTreeMap<i32, (VoterNode, (i16, i16))>,
}

/// Kafka's `KRaftVersion` as its messages print it.
fn kraft_version_name(level: i16) -> String {
    format!("KRAFT_VERSION_{level}")
}

impl Quorum {
    /// The quorum's `kraft.version`: 1 once dynamic (formatted so, or upgraded), else 0.
    pub fn kraft_version(&self) -> i16 {
        if self.is_dynamic() { KRAFT_VERSION } else { 0 }
    }

    /// Whether this is a dynamic quorum (KIP-853, `kraft.version` 1), whose voters change:
    /// formatted as one, or a static one whose newest membership (committed or not) names every
    /// voter's directory id, as the upgrade writes it.
    pub fn is_dynamic(&self) -> bool {
        self.formatted_dynamic || kraft_version(self.metrics.borrow().membership_config.membership()) >= KRAFT_VERSION
    }

    /// UpdateRaftVoter in a static quorum: `voter` tells the leader its directory id, CONTROLLER
    /// listeners and the `kraft.version`s it supports (`min`, `max`), kept in memory for this
    /// epoch (see the module doc). Refused as Kafka's leader refuses it: off the leader
    /// NOT_LEADER_OR_FOLLOWER; a range without the current level, or listeners without the one
    /// the voters are reached on, INVALID_REQUEST; an id that is not a voter VOTER_NOT_FOUND.
    pub fn report_voter(&self, voter: NewVoter, (min, max): (i16, i16)) -> Result<(), VoterChangeError> {
        let (is_leader, term, current) = {
            let metrics = self.metrics.borrow();
            let membership = metrics.membership_config.membership();
            let id = u64::try_from(voter.id).ok();
            let current =
                id.filter(|id| membership.voter_ids().any(|v| v == *id)).and_then(|id| membership.get_node(&id));
            (metrics.state == openraft::ServerState::Leader, metrics.current_term, current.cloned())
        };
        if !is_leader {
            let code = ErrorCode::NotLeaderOrFollower;
            return Err(VoterChangeError { code, message: code.message().to_owned() });
        }
        let invalid = |message: &str| VoterChangeError { code: ErrorCode::InvalidRequest, message: message.into() };
        if !(min..=max).contains(&self.kraft_version()) {
            return Err(invalid("the voter does not support the current kraft.version"));
        }
        let Some(current) = current else {
            let message = format!("Voter {} is not part of the set of voters", voter.id);
            return Err(VoterChangeError { code: ErrorCode::VoterNotFound, message });
        };
        let mut node = voter_node(&voter);
        if let Some(name) = current.endpoints.first().map(|e| e.name.clone()) {
            // The listener the voters are reached on first: the transport takes the first.
            let Some(at) = node.endpoints.iter().position(|e| e.name == name) else {
                return Err(invalid(&format!("the voter's listeners do not include {name}")));
            };
            node.endpoints.swap(0, at);
        }
        let mut reported = self.lock_reported();
        if reported.term != term {
            *reported = ReportedVoters { term, voters: BTreeMap::new() };
        }
        reported.voters.insert(voter.id, (node, (min, max)));
        Ok(())
    }

    /// Why `kraft.version` cannot rise to `level` now (Kafka's checks in
    /// `LeaderState.maybeAppendUpgradedKRaftVersion`), or `None`: it can, or is there already.
    /// Every voter must have reported to this leader, supporting `level`, with a directory id.
    pub fn kraft_upgrade_refusal(&self, level: i16) -> Option<String> {
        if level <= self.kraft_version() {
            return None;
        }
        self.upgraded_voters(level).err()
    }

    /// Raises `kraft.version` to `level` (see the module doc): the voters as they reported
    /// themselves become the membership, and once that commits (at most `timeout`), the quorum
    /// is dynamic. Nothing is written if it is at `level` already. The error is the refusal of
    /// [`Quorum::kraft_upgrade_refusal`], or why the change did not commit.
    pub async fn upgrade_kraft_version(&self, level: i16, timeout: Duration) -> Result<(), String> {
        if level <= self.kraft_version() {
            return Ok(());
        }
        let voters = self.upgraded_voters(level)?;
        tracing::info!("metadata quorum: kraft.version {level}, the voters now {:?}", voters.keys());
        match tokio::time::timeout(timeout, self.raft.change_membership(ChangeMembers::SetNodes(voters), false)).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => {
                Err(format!("Unable to upgrade version for kraft.version to {}: {e}", kraft_version_name(level)))
            }
            Err(_) => Err("Request timed out waiting for voters to commit the latest voter change".into()),
        }
    }

    /// The voters as the membership at `level` names them, from their reports to this leader.
    fn upgraded_voters(&self, level: i16) -> Result<BTreeMap<u64, VoterNode>, String> {
        let name = kraft_version_name(level);
        let (term, voter_ids) = {
            let metrics = self.metrics.borrow();
            if metrics.state != openraft::ServerState::Leader {
                return Err(format!(
                    "Upgrade kraft version failed because this node no longer leads epoch {}",
                    metrics.current_term
                ));
            }
            (metrics.current_term, metrics.membership_config.membership().voter_ids().collect::<Vec<_>>())
        };
        let reported = self.lock_reported();
        let mut voters = BTreeMap::new();
        for id in voter_ids {
            let report = reported.voters.get(&node_id_to_wire(id)).filter(|_| reported.term == term);
            match report {
                Some((node, (min, max))) if (*min..=*max).contains(&level) && node.directory_id != [0; 16] => {
                    voters.insert(id, node.clone());
                }
                _ => {
                    tracing::info!("not every voter supports kraft.version {level}: voter {id} reported {report:?}");
                    return Err(format!(
                        "Invalid upgrade of kraft.version to {name} because not all of the voters support it"
                    ));
                }
            }
        }
        Ok(voters)
    }

    fn lock_reported(&self) -> MutexGuard<'_, ReportedVoters> {
        self.reported.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The reports a [`Quorum`] starts with: none.
pub(crate) fn no_reports() -> Mutex<ReportedVoters> {
    Mutex::new(ReportedVoters::default())
}
