//! [`Timer`]: a shard's deadlines, keyed as Kafka's coordinator timer keys them, so that
//! scheduling a key again replaces its deadline and cancelling it is one lookup.
//!
//! Deadlines are wall-clock milliseconds from the shard's `Clock` readings; the timer never reads
//! a clock itself. The runtime sleeps until [`Timer::next_deadline`] and then asks the shard to
//! fire what [`Timer::pop_expired`] returns.

use std::collections::{BTreeSet, HashMap};

/// What a deadline is for.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TimerKey {
    /// A member's session (or a new or pending member's join timeout).
    Heartbeat { group: String, member: String },
    /// The end of a rebalance's join phase (the rebalance timeout, or the initial delay).
    Join { group: String },
    /// The end of the wait for every member's SyncGroup.
    Sync { group: String },
    /// The periodic look for expired offsets.
    OffsetsExpiration,
    /// A consumer group member's session (`group.consumer.session.timeout.ms`).
    ConsumerSession { group: String, member: String },
    /// A consumer group member's time to revoke partitions (its rebalance timeout).
    ConsumerRebalance { group: String, member: String },
    /// A classic member of a consumer group told to rejoin: its rebalance timeout to send JoinGroup.
    ConsumerJoin { group: String, member: String },
    /// A classic member of a consumer group that joined: its rebalance timeout to send SyncGroup.
    ConsumerSync { group: String, member: String },
    /// A streams group member's session (`group.streams.session.timeout.ms`).
    StreamsSession { group: String, member: String },
    /// A streams group member's time to revoke tasks (its rebalance timeout).
    StreamsRebalance { group: String, member: String },
}

/// Deadlines by key, and the same ordered by time.
#[derive(Debug, Default, Clone)]
pub struct Timer {
    by_key: HashMap<TimerKey, i64>,
    by_deadline: BTreeSet<(i64, TimerKey)>,
}

impl Timer {
    /// Sets `key` to fire at `deadline_ms`, replacing any deadline it had.
    pub fn schedule(&mut self, key: TimerKey, deadline_ms: i64) {
        if let Some(previous) = self.by_key.insert(key.clone(), deadline_ms) {
            self.by_deadline.remove(&(previous, key.clone()));
        }
        self.by_deadline.insert((deadline_ms, key));
    }

    /// Sets `key` to fire at `deadline_ms` unless it is scheduled already.
    pub fn schedule_if_absent(&mut self, key: TimerKey, deadline_ms: i64) {
        if !self.by_key.contains_key(&key) {
            self.schedule(key, deadline_ms);
        }
    }

    pub fn cancel(&mut self, key: &TimerKey) {
        if let Some(deadline) = self.by_key.remove(key) {
            self.by_deadline.remove(&(deadline, key.clone()));
        }
    }

    /// When `key` fires, if it is scheduled.
    pub fn deadline(&self, key: &TimerKey) -> Option<i64> {
        self.by_key.get(key).copied()
    }

    /// The earliest deadline.
    pub fn next_deadline(&self) -> Option<i64> {
        self.by_deadline.first().map(|(deadline, _)| *deadline)
    }

    /// Removes and returns the earliest key whose deadline is at or before `now_ms`.
    pub fn pop_expired(&mut self, now_ms: i64) -> Option<TimerKey> {
        let (deadline, _) = self.by_deadline.first()?;
        if *deadline > now_ms {
            return None;
        }
        let (_, key) = self.by_deadline.pop_first()?;
        self.by_key.remove(&key);
        Some(key)
    }

    pub fn clear(&mut self) {
        self.by_key.clear();
        self.by_deadline.clear();
    }

    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn join(group: &str) -> TimerKey {
        TimerKey::Join { group: group.to_owned() }
    }

    /// Rescheduling replaces a deadline, cancelling removes it, and expiry pops in time order.
    #[test]
    fn schedule_replaces_and_pops_in_order() {
        let mut timer = Timer::default();
        timer.schedule(join("a"), 100);
        timer.schedule(join("b"), 50);
        timer.schedule(join("a"), 30);
        assert_eq!(timer.len(), 2);
        assert_eq!(timer.next_deadline(), Some(30));
        assert_eq!(timer.pop_expired(29), None);
        assert_eq!(timer.pop_expired(60), Some(join("a")));
        assert_eq!(timer.pop_expired(60), Some(join("b")));
        assert_eq!(timer.pop_expired(60), None);
        timer.schedule(join("c"), 10);
        timer.cancel(&join("c"));
        assert!(timer.is_empty());
        assert_eq!(timer.next_deadline(), None);
    }
}
