//! What the leader knows of each replica's fetching, for DescribeQuorum: Kafka's
//! `LeaderState.ReplicaState` (log end offset, last fetch and last caught-up times).
//!
//! A follower "fetches" when it acknowledges an AppendEntries (heartbeats included) of the
//! current epoch: its fetch offset is the offset after the last entry it then holds. An observer
//! (a broker that is not a voter) fetches with Strand's metadata fetch, from the offset it asks
//! for. Both go through [`ReplicaProgress::fetched`], Kafka's `updateFollowerState`: a replica is
//! caught up when its fetch reaches the leader's log end offset of that moment, or the one of its
//! previous fetch (then as of that fetch).
//!
//! [`ProgressTable`] holds one epoch's progress (a new leadership starts afresh, as Kafka's new
//! `LeaderState` does), at most [`OBSERVERS_MAX`] observers, forgetting one that has not fetched
//! for [`OBSERVER_SESSION_TIMEOUT_MS`] (Kafka's). Pure: times are given.

use std::collections::BTreeMap;

use strand_base::Uuid;

/// How long an observer that stopped fetching is still described (Kafka's
/// `LeaderState.OBSERVER_SESSION_TIMEOUT_MS`).
pub const OBSERVER_SESSION_TIMEOUT_MS: i64 = 300_000;
/// The most observers remembered; past it the one that fetched longest ago is forgotten.
pub const OBSERVERS_MAX: usize = 10_000;

/// One replica as the leader sees it; -1 where nothing is known yet, as Kafka reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplicaProgress {
    pub log_end_offset: i64,
    pub last_fetch_ms: i64,
    pub last_caught_up_ms: i64,
    /// The leader's log end offset at the previous fetch.
    last_fetch_leader_end: Option<i64>,
}

impl Default for ReplicaProgress {
    fn default() -> ReplicaProgress {
        ReplicaProgress { log_end_offset: -1, last_fetch_ms: -1, last_caught_up_ms: -1, last_fetch_leader_end: None }
    }
}

impl ReplicaProgress {
    /// The leader itself: its log end, and caught up now (Kafka's leader describes itself so).
    pub fn leader(log_end_offset: i64, now_ms: i64) -> ReplicaProgress {
        ReplicaProgress {
            log_end_offset,
            last_fetch_ms: now_ms,
            last_caught_up_ms: now_ms,
            last_fetch_leader_end: None,
        }
    }

    /// A fetch from `fetch_offset` at `now_ms`, the leader's log ending at `leader_end`.
    pub fn fetched(&mut self, now_ms: i64, fetch_offset: i64, leader_end: i64) {
        // The caught-up time first: it may take the previous fetch's time.
        if fetch_offset >= leader_end {
            self.last_caught_up_ms = self.last_caught_up_ms.max(now_ms);
        } else if self.last_fetch_leader_end.is_some_and(|previous| fetch_offset >= previous) {
            self.last_caught_up_ms = self.last_caught_up_ms.max(self.last_fetch_ms);
        }
        self.last_fetch_leader_end = Some(leader_end);
        self.last_fetch_ms = self.last_fetch_ms.max(now_ms);
        self.log_end_offset = fetch_offset;
    }
}

/// Every replica's progress in one leader epoch.
#[derive(Debug, Default)]
pub struct ProgressTable {
    epoch: u64,
    voters: BTreeMap<i32, ReplicaProgress>,
    /// Each observer's progress and directory id (its metadata log dir's, Kafka's replica key).
    observers: BTreeMap<i32, (ReplicaProgress, Uuid)>,
}

impl ProgressTable {
    /// A voter's fetch in `epoch` (an earlier epoch's is ignored, a later one starts afresh).
    pub fn voter_fetched(&mut self, epoch: u64, id: i32, now_ms: i64, fetch_offset: i64, leader_end: i64) {
        if self.in_epoch(epoch) {
            self.voters.entry(id).or_default().fetched(now_ms, fetch_offset, leader_end);
        }
    }

    /// An observer's fetch in `epoch`.
    pub fn observer_fetched(
        &mut self,
        epoch: u64,
        observer: (i32, Uuid),
        now_ms: i64,
        fetch_offset: i64,
        leader_end: i64,
    ) {
        let (id, directory_id) = observer;
        if !self.in_epoch(epoch) {
            return;
        }
        if !self.observers.contains_key(&id) && self.observers.len() >= OBSERVERS_MAX {
            let oldest = self.observers.iter().min_by_key(|(_, (p, _))| p.last_fetch_ms).map(|(id, _)| *id);
            if let Some(oldest) = oldest {
                self.observers.remove(&oldest);
            }
        }
        let (progress, known_directory) = self.observers.entry(id).or_default();
        progress.fetched(now_ms, fetch_offset, leader_end);
        *known_directory = directory_id;
    }

    /// `id`'s progress in `epoch`, unknown (-1) if it has not fetched in it.
    pub fn voter(&self, epoch: u64, id: i32) -> ReplicaProgress {
        let known = (self.epoch == epoch).then(|| self.voters.get(&id)).flatten();
        known.copied().unwrap_or_default()
    }

    /// The observers that fetched in `epoch` within [`OBSERVER_SESSION_TIMEOUT_MS`] of `now_ms`,
    /// but `voters` (a voter fetching as an observer is described as a voter).
    pub fn observers(&self, epoch: u64, now_ms: i64, voters: &[i32]) -> Vec<(i32, Uuid, ReplicaProgress)> {
        if self.epoch != epoch {
            return Vec::new();
        }
        let live = |p: &ReplicaProgress| now_ms - p.last_fetch_ms <= OBSERVER_SESSION_TIMEOUT_MS;
        let observers = self.observers.iter().filter(|(id, (p, _))| !voters.contains(id) && live(p));
        observers.map(|(id, (p, directory_id))| (*id, *directory_id, *p)).collect()
    }

    /// Whether a fetch of `epoch` counts: a newer epoch clears the table.
    fn in_epoch(&mut self, epoch: u64) -> bool {
        if epoch > self.epoch {
            *self = ProgressTable { epoch, ..ProgressTable::default() };
        }
        epoch == self.epoch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's `updateFollowerState`: caught up at a fetch reaching the leader's end, or as of the
    /// previous fetch when this one reaches the end the leader had then; unknown until a fetch.
    #[test]
    fn caught_up_times_follow_kafka() {
        let mut p = ReplicaProgress::default();
        assert_eq!((p.log_end_offset, p.last_fetch_ms, p.last_caught_up_ms), (-1, -1, -1));
        p.fetched(100, 5, 10);
        assert_eq!((p.log_end_offset, p.last_fetch_ms, p.last_caught_up_ms), (5, 100, -1));
        // Reaches the end of the previous fetch (10) but not the current one (12): caught up as of 100.
        p.fetched(200, 10, 12);
        assert_eq!((p.log_end_offset, p.last_fetch_ms, p.last_caught_up_ms), (10, 200, 100));
        p.fetched(300, 12, 12);
        assert_eq!((p.log_end_offset, p.last_fetch_ms, p.last_caught_up_ms), (12, 300, 300));
    }

    /// A new epoch forgets the old one's progress; an old epoch's fetch changes nothing.
    #[test]
    fn a_new_epoch_starts_afresh() {
        let mut table = ProgressTable::default();
        table.voter_fetched(3, 2, 100, 7, 7);
        assert_eq!(table.voter(3, 2).log_end_offset, 7);
        table.voter_fetched(4, 3, 200, 8, 9);
        assert_eq!(table.voter(4, 2), ReplicaProgress::default());
        table.voter_fetched(3, 2, 300, 9, 9);
        assert_eq!(table.voter(4, 2), ReplicaProgress::default());
        assert_eq!(table.voter(3, 3), ReplicaProgress::default());
    }

    /// Observers are described until their session times out, never when they are voters, and
    /// at most [`OBSERVERS_MAX`] are kept.
    #[test]
    fn observers_expire_and_are_bounded() {
        let mut table = ProgressTable::default();
        table.observer_fetched(1, (7, Uuid([7; 16])), 1_000, 4, 4);
        table.observer_fetched(1, (2, Uuid::default()), 1_000, 4, 4);
        let described: Vec<_> = table.observers(1, 1_000, &[2]).iter().map(|(id, dir, _)| (*id, *dir)).collect();
        assert_eq!(described, vec![(7, Uuid([7; 16]))]);
        assert!(table.observers(1, 1_001 + OBSERVER_SESSION_TIMEOUT_MS, &[]).is_empty());
        for id in 0..OBSERVERS_MAX as i32 + 5 {
            table.observer_fetched(1, (100 + id, Uuid::default()), 2_000 + i64::from(id), 0, 1);
        }
        assert_eq!(table.observers.len(), OBSERVERS_MAX);
        assert!(!table.observers.contains_key(&7));
    }
}
