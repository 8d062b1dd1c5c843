//! What this node says about other nodes it cannot reach, and how often. Every node-to-node
//! client (the quorum's Raft calls, the controller client, replica fetches, metadata fetches)
//! reports each call's outcome to one [`PeerHealth`] per process, keyed by node id, and so do
//! the CONTROLLER listener for each voter whose Raft RPC it lets through and
//! [`follow_registrations`] for each broker the metadata shows active in a new incarnation (a
//! node may have no call to make to a peer that is back: a quorum follower, a replica whose
//! leaders moved). The calls themselves log failures at debug only. A peer that goes is one
//! WARN, a reminder at most every [`REMINDER_INTERVAL`] while it stays away, and one INFO when
//! it returns:
//!
//! - A peer is reported unreachable once its calls have failed, with no success, for
//!   [`DOWN_GRACE`] (one refused connection during a peer's restart, or a call cut short, is not
//!   an outage), or for [`FIRST_CONTACT_GRACE`] if this node never reached it (nodes of a
//!   cluster start in any order; a healthy start says nothing).
//! - A peer that refuses this node's SASL login ([`CallError::Authentication`]) is reported at
//!   once, naming the mechanism and user: a configuration to fix is not an outage to wait out.
//! - Returning is reported only for a peer that was reported unreachable.
//! - Whatever a peer does, it gets at most one WARN per [`REMINDER_INTERVAL`]: one that comes
//!   and goes quickly is reported again only once that much time has passed.
//!
//! [`PeerStates`] is the bookkeeping on an explicit clock (tested on a manual one); [`PeerHealth`]
//! is it behind a lock, on the system clock, with the log lines. [`LogBudget`] bounds lines of
//! one kind that a sender can provoke (refused connections on the CONTROLLER listener).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use strand_metadata::image::MetadataImage;
use tokio::sync::watch;
use tokio::time::Instant;

use super::client::CallError;

/// How long calls to a peer that was reached before must fail before it is reported unreachable.
pub const DOWN_GRACE: Duration = Duration::from_secs(2);
/// How long calls to a peer never reached since this node started must fail before it is
/// reported unreachable.
pub const FIRST_CONTACT_GRACE: Duration = Duration::from_secs(30);
/// The least time between two WARN lines about one peer.
pub const REMINDER_INTERVAL: Duration = Duration::from_secs(30);
/// The most peers tracked; node ids come from the configuration and the metadata image.
const PEERS_MAX: usize = 10_000;

/// What to say about a peer after a call's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    /// It went: calls have failed for `failing_for`.
    Unreachable { failing_for: Duration },
    /// It is still away.
    StillUnreachable { failing_for: Duration },
    /// It answered again after being reported unreachable.
    Reachable { was_away_for: Duration },
}

#[derive(Debug, Default, Clone, Copy)]
struct PeerState {
    reached_ever: bool,
    /// Since when calls have failed without a success.
    failing_since: Option<Instant>,
    /// The current outage was reported.
    reported: bool,
    /// The last WARN about this peer.
    last_warned: Option<Instant>,
}

/// Each peer's state, on the clock the caller passes.
#[derive(Debug, Default)]
pub struct PeerStates {
    peers: BTreeMap<i32, PeerState>,
}

impl PeerStates {
    /// A call to `peer` failed at `now`.
    pub fn failed(&mut self, peer: i32, now: Instant) -> Option<Report> {
        self.failed_after(peer, now, None)
    }

    /// A call to `peer` failed at `now`, reported once failures have lasted `grace` (`None`: the
    /// usual grace of the module doc).
    fn failed_after(&mut self, peer: i32, now: Instant, grace: Option<Duration>) -> Option<Report> {
        if !self.peers.contains_key(&peer) && self.peers.len() >= PEERS_MAX {
            return None;
        }
        let state = self.peers.entry(peer).or_default();
        let since = *state.failing_since.get_or_insert(now);
        let failing_for = now.saturating_duration_since(since);
        let usual = if state.reached_ever { DOWN_GRACE } else { FIRST_CONTACT_GRACE };
        let grace = grace.unwrap_or(usual);
        let warned_lately = state.last_warned.is_some_and(|at| now.saturating_duration_since(at) < REMINDER_INTERVAL);
        if failing_for < grace || warned_lately {
            return None;
        }
        state.last_warned = Some(now);
        if std::mem::replace(&mut state.reported, true) {
            Some(Report::StillUnreachable { failing_for })
        } else {
            Some(Report::Unreachable { failing_for })
        }
    }

    /// A call to `peer` was answered at `now` (an answer with an error counts: the peer is there).
    pub fn reached(&mut self, peer: i32, now: Instant) -> Option<Report> {
        let state = self.peers.get_mut(&peer)?;
        state.reached_ever = true;
        let since = state.failing_since.take();
        if !std::mem::replace(&mut state.reported, false) {
            return None;
        }
        Some(Report::Reachable { was_away_for: since.map_or(Duration::ZERO, |s| now.saturating_duration_since(s)) })
    }

    /// A call to `peer` was answered at `now`, for a peer never seen before: remembered, so a
    /// later outage is reported after [`DOWN_GRACE`].
    fn first_reached(&mut self, peer: i32) {
        if self.peers.len() < PEERS_MAX {
            self.peers.entry(peer).or_default().reached_ever = true;
        }
    }
}

/// The process's peers, shared by every node-to-node client.
#[derive(Debug, Default)]
pub struct PeerHealth {
    states: Mutex<PeerStates>,
}

impl PeerHealth {
    pub fn new() -> PeerHealth {
        PeerHealth::default()
    }

    /// A call to node `peer` failed; `what` names the call ("metadata quorum", "replica fetch").
    pub fn failed(&self, peer: i32, what: &str, reason: &dyn std::fmt::Display) {
        tracing::debug!("{what}: node {peer}: {reason}");
        match self.lock().failed(peer, Instant::now()) {
            Some(Report::Unreachable { failing_for }) => tracing::warn!(
                "node {peer} is unreachable ({what}: {reason}); calls have failed for {} ms",
                failing_for.as_millis()
            ),
            Some(Report::StillUnreachable { failing_for }) => {
                tracing::warn!("node {peer} is still unreachable after {} s ({what}: {reason})", failing_for.as_secs())
            }
            Some(Report::Reachable { .. }) | None => {}
        }
    }

    /// A call to node `peer` failed with `error`; `what` names the call. A refused login is
    /// reported at once.
    pub fn call_failed(&self, peer: i32, what: &str, error: &CallError) {
        if !matches!(error, CallError::Authentication { .. }) {
            return self.failed(peer, what, error);
        }
        tracing::debug!("{what}: node {peer}: {error}");
        match self.lock().failed_after(peer, Instant::now(), Some(Duration::ZERO)) {
            Some(Report::Unreachable { .. }) => {
                tracing::warn!("node {peer} refused this node's login ({what}: {error})")
            }
            Some(Report::StillUnreachable { failing_for }) => tracing::warn!(
                "node {peer} still refuses this node's login after {} s ({what}: {error})",
                failing_for.as_secs()
            ),
            Some(Report::Reachable { .. }) | None => {}
        }
    }

    /// A call to node `peer` was answered.
    pub fn reached(&self, peer: i32) {
        let mut states = self.lock();
        match states.reached(peer, Instant::now()) {
            Some(Report::Reachable { was_away_for }) => {
                tracing::info!("node {peer} is reachable again after {} s", was_away_for.as_secs());
            }
            Some(_) => {}
            None => states.first_reached(peer),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PeerStates> {
        self.states.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Tells `peers` of every other broker the metadata shows active (unfenced, not shutting down)
/// in an incarnation not seen before: it registered and heartbeats to the controller, so it is
/// there. Runs until the image's channel closes.
pub async fn follow_registrations(peers: Arc<PeerHealth>, mut image: watch::Receiver<Arc<MetadataImage>>, own: i32) {
    let mut seen: BTreeMap<i32, i64> = BTreeMap::new();
    loop {
        let active: BTreeMap<i32, i64> = {
            let image = image.borrow_and_update();
            image.cluster().active_brokers().map(|b| (b.id.0, b.epoch)).filter(|(id, _)| *id != own).collect()
        };
        for (id, epoch) in &active {
            if seen.get(id) != Some(epoch) {
                peers.reached(*id);
            }
        }
        seen = active;
        if image.changed().await.is_err() {
            return;
        }
    }
}

/// At most `lines_max` lines per `window`; the rest are counted, and the next line logged says
/// how many were left out.
#[derive(Debug)]
pub struct LogBudget {
    lines_max: u32,
    window: Duration,
    state: Mutex<BudgetState>,
}

#[derive(Debug, Default)]
struct BudgetState {
    window_start: Option<Instant>,
    logged: u32,
    left_out: u64,
}

impl LogBudget {
    pub const fn new(lines_max: u32, window: Duration) -> LogBudget {
        LogBudget { lines_max, window, state: Mutex::new(BudgetState { window_start: None, logged: 0, left_out: 0 }) }
    }

    /// Whether a line may be logged at `now`, and if so how many were left out before it.
    pub fn take(&self, now: Instant) -> Option<u64> {
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let expired = state.window_start.is_none_or(|start| now.saturating_duration_since(start) >= self.window);
        if expired {
            state.window_start = Some(now);
            state.logged = 0;
        }
        if state.logged >= self.lines_max {
            state.left_out += 1;
            return None;
        }
        state.logged += 1;
        Some(std::mem::take(&mut state.left_out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// A peer reached once and then gone: one WARN after the grace, reminders no more than every
    /// 30 s however often calls fail, one INFO when it answers again.
    #[test]
    fn one_warning_per_outage_and_a_reminder_every_thirty_seconds() {
        let start = Instant::now();
        let mut peers = PeerStates::default();
        peers.first_reached(3);
        let mut reports = Vec::new();
        // A call every 250 ms for 95 s.
        for step in 0..=380u32 {
            let now = start + step * 250 * MS;
            reports.extend(peers.failed(3, now).map(|r| (now - start, r)));
        }
        assert_eq!(
            reports,
            vec![
                (DOWN_GRACE, Report::Unreachable { failing_for: DOWN_GRACE }),
                (
                    DOWN_GRACE + REMINDER_INTERVAL,
                    Report::StillUnreachable { failing_for: DOWN_GRACE + REMINDER_INTERVAL }
                ),
                (
                    DOWN_GRACE + 2 * REMINDER_INTERVAL,
                    Report::StillUnreachable { failing_for: DOWN_GRACE + 2 * REMINDER_INTERVAL }
                ),
                (
                    DOWN_GRACE + 3 * REMINDER_INTERVAL,
                    Report::StillUnreachable { failing_for: DOWN_GRACE + 3 * REMINDER_INTERVAL }
                ),
            ]
        );
        let back = start + 100_000 * MS;
        assert_eq!(peers.reached(3, back), Some(Report::Reachable { was_away_for: back - start }));
        assert_eq!(peers.reached(3, back + MS), None, "returning is said once");
    }

    /// A failure shorter than the grace, or a peer that keeps answering, says nothing.
    #[test]
    fn brief_failures_are_not_outages() {
        let start = Instant::now();
        let mut peers = PeerStates::default();
        peers.first_reached(2);
        for round in 0..100u32 {
            let at = start + round * DOWN_GRACE;
            assert_eq!(peers.failed(2, at), None);
            assert_eq!(peers.failed(2, at + DOWN_GRACE - MS), None);
            assert_eq!(peers.reached(2, at + DOWN_GRACE - MS), None);
        }
    }

    /// Nodes of a cluster start in any order: a peer never reached is reported only after the
    /// longer first-contact grace.
    #[test]
    fn a_peer_never_reached_gets_the_first_contact_grace() {
        let start = Instant::now();
        let mut peers = PeerStates::default();
        assert_eq!(peers.failed(2, start), None);
        assert_eq!(peers.failed(2, start + FIRST_CONTACT_GRACE - MS), None);
        assert_eq!(peers.reached(2, start + FIRST_CONTACT_GRACE - MS), None, "a healthy start says nothing");
        assert_eq!(peers.failed(5, start), None);
        assert_eq!(
            peers.failed(5, start + FIRST_CONTACT_GRACE),
            Some(Report::Unreachable { failing_for: FIRST_CONTACT_GRACE })
        );
    }

    /// A peer that comes and goes every few seconds is warned about at most once per 30 s.
    #[test]
    fn a_flapping_peer_is_warned_about_at_most_every_thirty_seconds() {
        let start = Instant::now();
        let mut peers = PeerStates::default();
        peers.first_reached(4);
        let (mut warnings, mut infos) = (Vec::new(), 0);
        let cycle = DOWN_GRACE + Duration::from_secs(1);
        for round in 0..40u32 {
            let down = start + round * (cycle + MS);
            for at in [down, down + DOWN_GRACE, down + cycle] {
                if peers.failed(4, at).is_some() {
                    warnings.push(at - start);
                }
            }
            infos += usize::from(peers.reached(4, down + cycle).is_some());
        }
        assert!(warnings.windows(2).all(|w| w[1] - w[0] >= REMINDER_INTERVAL), "{warnings:?}");
        assert!(!warnings.is_empty() && infos <= warnings.len(), "{warnings:?} {infos}");
    }

    /// A budget logs its lines, counts the rest, and says how many it left out.
    #[test]
    fn a_log_budget_counts_what_it_leaves_out() {
        let start = Instant::now();
        let budget = LogBudget::new(2, Duration::from_secs(30));
        let taken: Vec<Option<u64>> = (0..5).map(|i| budget.take(start + i * MS)).collect();
        assert_eq!(taken, vec![Some(0), Some(0), None, None, None]);
        assert_eq!(budget.take(start + Duration::from_secs(30)), Some(3));
        assert_eq!(budget.take(start + Duration::from_secs(31)), Some(0));
    }

    /// A refused login is said at once, even to a peer never reached, and still at most once per
    /// 30 s; an answer afterwards says the peer is back.
    #[test]
    fn a_refused_login_is_reported_at_once() {
        let start = Instant::now();
        let mut peers = PeerStates::default();
        let now = Some(Duration::ZERO);
        assert_eq!(peers.failed_after(2, start, now), Some(Report::Unreachable { failing_for: Duration::ZERO }));
        assert_eq!(peers.failed_after(2, start + DOWN_GRACE, now), None);
        let later = start + REMINDER_INTERVAL;
        assert_eq!(
            peers.failed_after(2, later, now),
            Some(Report::StillUnreachable { failing_for: REMINDER_INTERVAL })
        );
        assert_eq!(peers.reached(2, later + MS), Some(Report::Reachable { was_away_for: REMINDER_INTERVAL + MS }));
    }
}
