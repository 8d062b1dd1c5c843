//! Replication throttles (KIP-73), as Kafka's `ReplicationQuotaManager`: a leader quota on the
//! bytes a leader sends followers and a follower quota on the bytes a follower fetches, each
//! over the replicas its topics list (`leader.replication.throttled.replicas`,
//! `follower.replication.throttled.replicas`: `*` or `partition:broker` pairs naming this node)
//! and bounded by this node's `leader.replication.throttled.rate` /
//! `follower.replication.throttled.rate` (bytes a second; unset: no bound); and a third on the
//! bytes moves between this node's log dirs copy, bounded by
//! `replica.alter.log.dirs.io.max.bytes.per.second`.
//!
//! - [`ReplicationThrottles`]: what the broker's publisher reads from the metadata image, handed
//!   to [`crate::ReplicaManager::set_replication_throttles`] on every image.
//! - [`ReplicationQuota`]: one quota: the throttled partitions, the bound, and the bytes recorded
//!   as Kafka's `SimpleRate` measures them (`replication.quota.window.num` samples of
//!   `replication.quota.window.size.seconds`, the rate over the time since the oldest sample and
//!   at least one sample's span, so a fresh quota lets one window's worth through at once).
//!
//! Kafka's rules, kept by the callers: a replica that is in sync is never held back (the leader
//! looks at its ISR, the follower at whether its last fetch reached the leader's high
//! watermark), but its bytes of a throttled partition are recorded all the same; a throttled
//! partition past its quota is answered with no records by the leader (its progress still
//! counts) and left out of the follower's next fetch. Client quotas never apply to replication.
//!
//! What it is not: it reads no clock (times are passed in) and no metadata.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, RwLock};

use strand_base::TopicPartition;

/// The partitions of a topic throttled on this node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThrottledReplicas {
    /// `*`: every partition.
    All,
    /// The partitions whose `partition:broker` pairs name this node (maybe none).
    Partitions(BTreeSet<i32>),
}

/// This node's replication throttles, as the metadata image sets them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplicationThrottles {
    /// `leader.replication.throttled.rate` (this broker's, else the cluster default's), bytes a
    /// second; `None`: no bound.
    pub leader_rate: Option<u64>,
    /// `follower.replication.throttled.rate`, likewise.
    pub follower_rate: Option<u64>,
    /// `replica.alter.log.dirs.io.max.bytes.per.second`, likewise: the bytes every move between
    /// this node's log dirs (AlterReplicaLogDirs) copies, together.
    pub alter_log_dirs_rate: Option<u64>,
    /// Each topic's `leader.replication.throttled.replicas` as it concerns this node.
    pub leader_replicas: BTreeMap<String, ThrottledReplicas>,
    /// Each topic's `follower.replication.throttled.replicas` as it concerns this node.
    pub follower_replicas: BTreeMap<String, ThrottledReplicas>,
}

impl ReplicationThrottles {
    /// A topic's throttled replicas list (a topic config's value) as it concerns `node`: `*`
    /// throttles every partition, a `partition:broker` pair naming `node` its partition; an
    /// empty list (or one naming only other nodes) none. Malformed pairs are skipped (the
    /// controller refuses them).
    pub fn parse_replicas(value: &str, node: i32) -> ThrottledReplicas {
        let value = value.trim();
        if value == "*" {
            return ThrottledReplicas::All;
        }
        let pairs = value.split(',').filter_map(|pair| {
            let (partition, broker) = pair.trim().split_once(':')?;
            let (partition, broker) = (partition.trim().parse::<i32>().ok()?, broker.trim().parse::<i32>().ok()?);
            (broker == node).then_some(partition)
        });
        ThrottledReplicas::Partitions(pairs.collect())
    }
}

/// `replication.quota.window.num` samples of `replication.quota.window.size.seconds` each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuotaWindow {
    pub samples: u32,
    pub sample_ms: i64,
}

/// One replication quota (Kafka's `ReplicationQuotaManager`); shared by the fetch paths.
#[derive(Debug)]
pub struct ReplicationQuota {
    throttled: RwLock<BTreeMap<String, ThrottledReplicas>>,
    meter: Mutex<Meter>,
}

#[derive(Debug)]
struct Meter {
    /// Bytes a second; `None`: unbounded.
    bound: Option<f64>,
    rate: SimpleRate,
}

impl ReplicationQuota {
    pub fn new(window: QuotaWindow) -> ReplicationQuota {
        ReplicationQuota {
            throttled: RwLock::new(BTreeMap::new()),
            meter: Mutex::new(Meter { bound: None, rate: SimpleRate::new(window) }),
        }
    }

    /// Replaces the throttled partitions and the bound; what was recorded stays.
    pub fn update(&self, bound: Option<u64>, throttled: BTreeMap<String, ThrottledReplicas>) {
        *self.throttled.write().unwrap_or_else(std::sync::PoisonError::into_inner) = throttled;
        self.meter().bound = bound.map(|b| b as f64);
    }

    /// Whether `tp` is one of the throttled partitions (Kafka's `isThrottled`).
    pub fn is_throttled(&self, tp: &TopicPartition) -> bool {
        let throttled = self.throttled.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        match throttled.get(&tp.topic) {
            Some(ThrottledReplicas::All) => true,
            Some(ThrottledReplicas::Partitions(partitions)) => partitions.contains(&tp.partition),
            None => false,
        }
    }

    /// Whether any partition is throttled: nothing is recorded otherwise.
    pub fn throttles_any(&self) -> bool {
        !self.throttled.read().unwrap_or_else(std::sync::PoisonError::into_inner).is_empty()
    }

    /// Whether the measured rate is above the bound at `now_ms` (Kafka's `isQuotaExceeded`).
    pub fn is_exceeded(&self, now_ms: i64) -> bool {
        let mut meter = self.meter();
        match meter.bound {
            Some(bound) => meter.rate.measure(now_ms) > bound,
            None => false,
        }
    }

    /// The bound, bytes a second; `None`: unbounded.
    pub fn bound(&self) -> Option<u64> {
        self.meter().bound.map(|b| b as u64)
    }

    /// Adds `bytes` replicated at `now_ms`, whatever the bound (Kafka's `record`).
    pub fn record(&self, bytes: u64, now_ms: i64) {
        if bytes > 0 {
            self.meter().rate.record(bytes as f64, now_ms);
        }
    }

    fn meter(&self) -> std::sync::MutexGuard<'_, Meter> {
        self.meter.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The node's replication quotas: the leader's, the follower's, and the log-dir moves' (Kafka's
/// `ALTER_LOG_DIRS_REPLICATION` quota, over every moving partition: its throttled list is empty
/// and unused).
#[derive(Debug)]
pub(crate) struct ReplicationQuotas {
    pub leader: ReplicationQuota,
    pub follower: ReplicationQuota,
    pub alter_log_dirs: ReplicationQuota,
}

impl ReplicationQuotas {
    pub fn new(window: QuotaWindow) -> ReplicationQuotas {
        ReplicationQuotas {
            leader: ReplicationQuota::new(window),
            follower: ReplicationQuota::new(window),
            alter_log_dirs: ReplicationQuota::new(window),
        }
    }

    pub fn update(&self, throttles: ReplicationThrottles) {
        self.leader.update(throttles.leader_rate, throttles.leader_replicas);
        self.follower.update(throttles.follower_rate, throttles.follower_replicas);
        self.alter_log_dirs.update(throttles.alter_log_dirs_rate, BTreeMap::new());
    }
}

/// One sample: the bytes recorded since `start_ms`, the last at `last_ms`.
#[derive(Debug, Clone, Copy)]
struct Sample {
    start_ms: i64,
    last_ms: i64,
    value: f64,
}

impl Sample {
    fn fresh(now_ms: i64) -> Sample {
        Sample { start_ms: now_ms, last_ms: now_ms, value: 0.0 }
    }
}

/// Kafka's `SimpleRate` over a `SampledStat`: a ring of `samples + 1` samples, each current
/// until it is a sample's span old; a sample with no record for the whole window is reset when
/// measured; the rate is their sum over the time since the oldest sample began, at least one
/// sample's span.
#[derive(Debug)]
struct SimpleRate {
    window: QuotaWindow,
    samples: Vec<Sample>,
    current: usize,
}

impl SimpleRate {
    fn new(window: QuotaWindow) -> SimpleRate {
        let window = QuotaWindow { samples: window.samples.max(1), sample_ms: window.sample_ms.max(1) };
        SimpleRate { window, samples: Vec::new(), current: 0 }
    }

    fn record(&mut self, value: f64, now_ms: i64) {
        if self.samples.is_empty() {
            self.samples.push(Sample::fresh(now_ms));
            self.current = 0;
        }
        if now_ms - self.samples[self.current].start_ms >= self.window.sample_ms {
            let slots = usize::try_from(self.window.samples).unwrap_or(1) + 1;
            self.current = (self.current + 1) % slots;
            match self.samples.get_mut(self.current) {
                Some(sample) => *sample = Sample::fresh(now_ms),
                None => self.samples.push(Sample::fresh(now_ms)),
            }
        }
        let sample = &mut self.samples[self.current];
        sample.value += value;
        sample.last_ms = now_ms;
    }

    fn measure(&mut self, now_ms: i64) -> f64 {
        let expire_ms = i64::from(self.window.samples) * self.window.sample_ms;
        for sample in &mut self.samples {
            if now_ms - sample.last_ms >= expire_ms {
                *sample = Sample::fresh(now_ms);
            }
        }
        let oldest = self.samples.iter().map(|s| s.start_ms).min().unwrap_or(now_ms);
        let window_ms = (now_ms - oldest).max(self.window.sample_ms);
        let total: f64 = self.samples.iter().map(|s| s.value).sum();
        total / (window_ms as f64 / 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: QuotaWindow = QuotaWindow { samples: 11, sample_ms: 1000 };

    fn quota(bound: u64, topic: &str, replicas: ThrottledReplicas) -> ReplicationQuota {
        let quota = ReplicationQuota::new(WINDOW);
        quota.update(Some(bound), BTreeMap::from([(topic.to_owned(), replicas)]));
        quota
    }

    /// Kafka's `parseThrottledPartitions`: `*` is every partition, pairs count only when they
    /// name this node, the empty list none.
    #[test]
    fn throttled_replica_lists_concern_this_node_only() {
        let check = |value: &str, expected: ThrottledReplicas| {
            assert_eq!(ReplicationThrottles::parse_replicas(value, 2), expected, "{value:?}");
        };
        check("*", ThrottledReplicas::All);
        check(" * ", ThrottledReplicas::All);
        check("0:1,0:2, 3:2 ,4:3", ThrottledReplicas::Partitions(BTreeSet::from([0, 3])));
        check("0:1", ThrottledReplicas::Partitions(BTreeSet::new()));
        check("", ThrottledReplicas::Partitions(BTreeSet::new()));
    }

    /// Only listed partitions of listed topics are throttled.
    #[test]
    fn only_listed_partitions_are_throttled() {
        let quota = quota(100, "t", ThrottledReplicas::Partitions(BTreeSet::from([1])));
        assert!(quota.is_throttled(&TopicPartition::new("t", 1)));
        assert!(!quota.is_throttled(&TopicPartition::new("t", 0)));
        assert!(!quota.is_throttled(&TopicPartition::new("u", 1)));
        let all = self::quota(100, "t", ThrottledReplicas::All);
        assert!(all.is_throttled(&TopicPartition::new("t", 7)));
    }

    /// SimpleRate: a fresh quota measures against one sample's span, so one window's bytes pass
    /// before it is exceeded; then it stays exceeded until the time since the first record
    /// brings the rate back under the bound.
    #[test]
    fn a_burst_exceeds_the_bound_until_time_averages_it_out() {
        let quota = quota(1000, "t", ThrottledReplicas::All);
        assert!(!quota.is_exceeded(0), "nothing recorded");
        quota.record(1000, 0);
        assert!(!quota.is_exceeded(0), "at the bound");
        quota.record(3000, 10);
        assert!(quota.is_exceeded(500), "4000 B over 1 s");
        assert!(quota.is_exceeded(3900), "4000 B over 3.9 s");
        assert!(!quota.is_exceeded(4000), "4000 B over 4 s");
    }

    /// Over a long run at the quota's pace, what passes stays near the bound: a sender that
    /// sends 500 B whenever the quota is not exceeded sends at most the bound per second over
    /// the run, plus one send.
    #[test]
    fn a_sender_held_to_the_quota_keeps_to_the_bound() {
        let quota = quota(10_000, "t", ThrottledReplicas::All);
        let mut sent = 0u64;
        for now_ms in (0..60_000).step_by(10) {
            if !quota.is_exceeded(now_ms) {
                quota.record(500, now_ms);
                sent += 500;
            }
        }
        assert!(sent <= 10_000 * 60 + 10_000 + 500, "{sent} B in 60 s");
        assert!(sent >= 10_000 * 60 * 9 / 10, "{sent} B in 60 s: the quota lets the bound through");
    }

    /// No bound (the rate unset), nothing is ever exceeded; a new bound applies to what was
    /// recorded.
    #[test]
    fn an_unset_rate_never_throttles() {
        let quota = ReplicationQuota::new(WINDOW);
        quota.update(None, BTreeMap::from([("t".to_owned(), ThrottledReplicas::All)]));
        quota.record(1 << 30, 0);
        assert!(!quota.is_exceeded(1));
        quota.update(Some(1000), BTreeMap::new());
        assert!(quota.is_exceeded(1));
        assert!(!quota.throttles_any());
    }
}
