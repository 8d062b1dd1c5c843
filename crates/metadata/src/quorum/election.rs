//! When a voter stands for election: Strand's timer, in place of openraft's.
//!
//! openraft 0.9 draws one election timeout per *process* and checks it only on its tick (every
//! 1.5 heartbeat intervals). Voters started together therefore tick in step, and two or three
//! voters whose draws round to the same tick stand at the same moment in every round, each voting
//! for itself, until their ticks drift apart: a three-voter cluster once took 16 s to elect its
//! first leader on an idle machine, and longer than a test's 20 s under load.
//!
//! This task does what Kafka's `QuorumState` does instead, with a fresh random draw for every
//! attempt: a voter that follows an elected leader stands once it has heard nothing from it for
//! `controller.quorum.fetch.timeout.ms` plus a random part of `controller.quorum.election.timeout.ms`;
//! one without a leader (a candidate whose election failed, or a voter that granted a vote to
//! one) stands again after the election timeout plus a random part of it (Kafka's
//! `electionTimeoutMs + random(electionTimeoutMs)`). "Heard from" is openraft's own record: the
//! vote's last-modified time, which every heartbeat and vote refreshes. The leader never stands.
//!
//! openraft still refuses a vote while the voter's leader lease lasts (`election_timeout_max`,
//! mapped to the fetch timeout in `config`), so a voter that still hears its leader is not
//! disrupted by one that does not.
//!
//! Before it stands, a voter asks the others in a Pre-Vote (`pre_vote`, KIP-996) and stands only
//! when a majority would vote for it; otherwise its term stays and it asks again after the
//! election timeout plus a random part of it.
//!
//! A node that is not a voter (a dynamic quorum's controller not yet added, or removed) never
//! stands: it waits for a change of Raft's metrics (a membership naming it), at most an election
//! timeout.
//!
//! A voter never stands in a term past `admission::TERM_MAX` (just below `i32::MAX`, Kafka's
//! epoch type), the highest other voters accept: at that term it logs an ERROR once and follows.
//!
//! A new quorum's first election does not wait for a timeout: on its first start (it has never
//! voted), the voter with the lowest id stands after [`FIRST_STAND_DELAY`], and again after as
//! long while it has no leader, until one election timeout has passed since it started; then the
//! rules above apply. The other voters keep their timeouts, so nobody competes with it and the
//! first leader is elected in tens of milliseconds instead of one to two election timeouts. Raft's
//! safety does not depend on when a voter stands, only how often elections split does.

use std::time::Duration;

use openraft::{Raft, ServerState};
use rand::Rng;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::admission::TERM_MAX;
use super::entry::TypeConfig;
use super::pre_vote::PreVoter;

/// How long the lowest voter of a new quorum waits before standing, and between attempts while
/// the others are not yet reachable (see the module doc).
pub(crate) const FIRST_STAND_DELAY: Duration = Duration::from_millis(100);

/// The two silences after which a voter stands, and how far the draw spreads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ElectionTimeouts {
    /// Silence from an elected leader (Kafka's fetch timeout).
    pub(crate) leader_silence: Duration,
    /// Since the last vote change without a leader: a failed or split election (Kafka's election
    /// timeout); also the spread of the random part added to either.
    pub(crate) election: Duration,
    /// This voter stands first in a new quorum (see the module doc).
    pub(crate) stands_first: bool,
}

impl ElectionTimeouts {
    /// How long after the vote last changed (or the leader was last heard) this voter stands,
    /// with `jitter` drawn from `[0, election)`.
    fn due(&self, has_leader: bool, jitter: Duration) -> Duration {
        let base = if has_leader { self.leader_silence } else { self.election };
        base + jitter
    }

    fn draw(&self) -> Duration {
        let spread = u64::try_from(self.election.as_millis()).unwrap_or(u64::MAX).max(1);
        Duration::from_millis(rand::thread_rng().gen_range(0..spread))
    }
}

/// What the timer reads from Raft each time it wakes.
struct Observed {
    leader: bool,
    /// The current term.
    term: u64,
    /// The vote is committed: an elected leader (this voter follows it).
    has_leader: bool,
    /// When the vote last changed or was refreshed by the leader.
    since: Option<Instant>,
}

/// Starts the timer; it ends when Raft stops. Abort the handle to end it sooner.
pub(super) fn spawn(raft: Raft<TypeConfig>, timeouts: ElectionTimeouts, pre_voter: PreVoter) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut jitter = timeouts.draw();
        let started = Instant::now();
        let first_election_until = timeouts.stands_first.then(|| started + timeouts.election);
        let mut last_stand = started;
        let mut exhausted = false;
        loop {
            let observed = raft
                .with_raft_state(|state| Observed {
                    leader: state.server_state == ServerState::Leader,
                    term: state.vote_ref().leader_id.term,
                    has_leader: state.vote_ref().is_committed(),
                    since: state.vote_last_modified(),
                })
                .await;
            let Ok(observed) = observed else { return };
            let mut metrics = raft.metrics();
            let voter = {
                let m = metrics.borrow_and_update();
                m.membership_config.membership().voter_ids().any(|id| id == m.id)
            };
            if !voter {
                let _ = tokio::time::timeout(timeouts.election, metrics.changed()).await;
                continue;
            }
            if observed.leader {
                // Leaders do not stand; look again when a follower would have.
                tokio::time::sleep(timeouts.election).await;
                continue;
            }
            let now = Instant::now();
            let first_election = !observed.has_leader && first_election_until.is_some_and(|until| now < until);
            let due = if first_election {
                last_stand + FIRST_STAND_DELAY
            } else {
                observed.since.unwrap_or(now) + timeouts.due(observed.has_leader, jitter)
            };
            if now < due {
                tokio::time::sleep_until(due).await;
                continue;
            }
            if observed.term >= TERM_MAX {
                // The next term is one no voter accepts (and past it, one openraft cannot save:
                // its core would stop). Say so once, and follow whoever leads.
                if !exhausted {
                    tracing::error!(
                        "metadata quorum: epoch {} is the last a voter accepts; this voter cannot stand for election",
                        observed.term
                    );
                    exhausted = true;
                }
                tokio::time::sleep(timeouts.election).await;
                continue;
            }
            let silence = now.saturating_duration_since(observed.since.unwrap_or(now)).as_millis();
            let without = if observed.has_leader { "hearing from the leader" } else { "a leader" };
            let tally = pre_voter.round(&raft).await;
            last_stand = Instant::now();
            jitter = timeouts.draw();
            if !tally.won() {
                // KIP-996: no majority would vote for this voter; its term stays, and it asks
                // again an election timeout later (sooner if a leader's heartbeat arrives).
                tracing::info!(
                    "metadata quorum: not standing for election after {silence} ms without {without}: \
                     {} of {} voters would vote for this one",
                    tally.granted,
                    tally.voters
                );
                let retry = if first_election { FIRST_STAND_DELAY } else { timeouts.due(false, jitter) };
                tokio::time::sleep(retry).await;
                continue;
            }
            tracing::info!("metadata quorum: standing for election after {silence} ms without {without}");
            if raft.trigger().elect().await.is_err() {
                return;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_follower_waits_for_the_fetch_timeout_and_a_candidate_for_the_election_timeout() {
        let timeouts = ElectionTimeouts {
            leader_silence: Duration::from_secs(2),
            election: Duration::from_secs(1),
            stands_first: false,
        };
        let jitter = Duration::from_millis(300);
        assert_eq!(timeouts.due(true, jitter), Duration::from_millis(2_300));
        assert_eq!(timeouts.due(false, jitter), Duration::from_millis(1_300));
    }

    #[test]
    fn draws_spread_over_the_election_timeout() {
        let timeouts = ElectionTimeouts {
            leader_silence: Duration::from_secs(2),
            election: Duration::from_millis(1_000),
            stands_first: false,
        };
        let draws: Vec<Duration> = (0..200).map(|_| timeouts.draw()).collect();
        assert!(draws.iter().all(|d| *d < Duration::from_millis(1_000)));
        // 200 draws from 1000 values: all equal only if the draw were not random.
        assert!(draws.iter().any(|d| *d != draws[0]));
        let distinct: std::collections::BTreeSet<_> = draws.iter().collect();
        assert!(distinct.len() > 100, "{} distinct draws of 200", distinct.len());
    }
}
