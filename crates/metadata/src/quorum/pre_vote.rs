//! Pre-Vote (KIP-996, the Raft thesis §9.6): before a voter stands for election it asks the other
//! voters whether they would vote for it in its next term, and stands only when a majority
//! (itself included) says yes. Its term does not move otherwise.
//!
//! Without it, a voter cut off from the others (a network split, a stalled link, a paused
//! process) stands again and again, raising its term each time; when it comes back, its higher
//! term deposes the healthy leader (the leader's next append is answered with the higher vote),
//! and since its log is behind it cannot win either, so elections keep failing while it keeps
//! standing. The nemesis (`tools/nemesis`) measured 6 s to 18 s without a leader after such a
//! heal.
//!
//! A voter grants a Pre-Vote when all of these hold ([`answer`]):
//! - it does not lead;
//! - it has not heard from an elected leader for `controller.quorum.fetch.timeout.ms` (openraft's
//!   vote last-modified time, which every heartbeat refreshes): a voter still following a leader
//!   keeps it;
//! - the candidate's log is at least as up to date as its own (the last log id, as Raft's vote).
//!
//! A Pre-Vote changes nothing on either side: no term is raised, no vote saved. The term is not
//! compared: a candidate behind in terms learns the higher one from the real vote that follows,
//! as openraft's candidates do.

use std::time::Duration;

use openraft::raft::VoteRequest;
use openraft::{Raft, ServerState, Vote};
use tokio::task::JoinSet;

use super::entry::{TypeConfig, VoterNode, node_id_to_wire};
use super::log_store::{SharedLog, lock};
use super::transport::{QuorumTransport, RaftRpc};

/// What a voter needs to ask the others.
pub(crate) struct PreVoter {
    pub(crate) transport: std::sync::Arc<dyn QuorumTransport>,
    pub(crate) cluster_id: String,
    pub(crate) node_id: i32,
    pub(crate) log: SharedLog,
    /// How long a round waits for answers: a voter that does not answer in time says no.
    pub(crate) timeout: Duration,
}

/// How a round went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tally {
    pub(crate) granted: usize,
    pub(crate) voters: usize,
}

impl Tally {
    pub(crate) fn won(&self) -> bool {
        self.granted > self.voters / 2
    }
}

impl PreVoter {
    /// Asks every other voter of `raft`'s current membership at once; counts this voter's own
    /// grant. Ends as soon as a majority granted, or when every voter answered or the timeout
    /// passed.
    pub(crate) async fn round(&self, raft: &Raft<TypeConfig>) -> Tally {
        let own = u64::try_from(self.node_id).unwrap_or_default();
        let state = raft
            .with_raft_state(|state| {
                let membership = state.membership_state.effective();
                let voters: Vec<(u64, Option<VoterNode>)> =
                    membership.voter_ids().map(|id| (id, membership.get_node(&id).cloned())).collect();
                (voters, state.vote_ref().leader_id.term)
            })
            .await;
        let Ok((voters, term)) = state else { return Tally { granted: 0, voters: 1 } };
        let own_vote = voters.iter().any(|(id, _)| *id == own);
        let mut tally = Tally { granted: usize::from(own_vote), voters: voters.len() };
        let last_log_id = lock(&self.log).last_log_id();
        let request = VoteRequest { vote: Vote::new(term.saturating_add(1), own), last_log_id };
        let mut asked = JoinSet::new();
        for (voter, node) in voters.into_iter().filter(|(voter, _)| *voter != own) {
            let target = node_id_to_wire(voter);
            let directory_id = node.as_ref().map_or([0; 16], |n| n.directory_id);
            let endpoint = node.and_then(|n| n.endpoints.first().map(|e| (e.host.clone(), e.port)));
            let rpc = RaftRpc::pre_vote(&self.cluster_id, self.node_id, (target, directory_id), request.clone());
            let transport = std::sync::Arc::clone(&self.transport);
            asked.spawn(async move {
                let endpoint = endpoint.as_ref().map(|(host, port)| (host.as_str(), *port));
                transport.call_at(target, endpoint, rpc).await.is_ok_and(|reply| reply.grants_pre_vote())
            });
        }
        let deadline = tokio::time::sleep(self.timeout);
        tokio::pin!(deadline);
        while !tally.won() {
            tokio::select! {
                answer = asked.join_next() => match answer {
                    Some(Ok(true)) => tally.granted += 1,
                    Some(_) => {}
                    None => break,
                },
                () = &mut deadline => break,
            }
        }
        asked.abort_all();
        tally
    }
}

/// Whether this voter grants `request`, a Pre-Vote (see the module doc), by `raft`'s state and
/// the last entry of its `log`.
pub(crate) async fn answer(
    raft: &Raft<TypeConfig>,
    log: &SharedLog,
    request: &VoteRequest<u64>,
    leader_silence: Duration,
) -> bool {
    let decided = raft
        .with_raft_state(move |state| {
            let hears_leader = state.vote_ref().is_committed()
                && state.vote_last_modified().is_some_and(|heard| heard.elapsed() < leader_silence);
            state.server_state != ServerState::Leader && !hears_leader
        })
        .await;
    // The log is read after Raft's state: an entry appended between the two only makes the
    // comparison stricter.
    decided.unwrap_or(false) && request.last_log_id >= lock(log).last_log_id()
}
