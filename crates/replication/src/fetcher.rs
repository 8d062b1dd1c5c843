//! The follower's fetchers (Kafka's `ReplicaFetcherManager` and `ReplicaFetcherThread`): tokio
//! tasks that pull the partitions this node follows from their leaders, through a
//! [`crate::ReplicaTransport`] the server implements over its inter-broker connections.
//!
//! Each source broker gets `num.replica.fetchers` fetchers; a partition goes to the one Kafka's
//! hash picks (`abs(31 * topic.hashCode() + partition) % n`). A fetcher loops: it builds one
//! Fetch ([`crate::REPLICA_FETCH_VERSION`], sessionless, topics by id, this node in `replica_state`
//! with its broker epoch) for its partitions not backing off, each from its log end offset with
//! its latest epoch as the last fetched epoch; sends it (the leader holds it up to
//! `replica.fetch.wait.max.ms` until `replica.fetch.min.bytes` are there); applies the answer
//! (`follower.rs`: append, sync, truncate) on a blocking thread; and goes again. A failed fetch
//! or a partition error backs the partitions off for `replica.fetch.backoff.ms`. The next fetch
//! is built only after the last answer was applied and synced, so a fetch offset always means
//! "durable up to here".
//!
//! The follower's replication throttle (KIP-73, `quota.rs`) leaves a throttled partition out of
//! the fetch while its quota is exceeded, unless it was caught up with the leader's high
//! watermark at the last answer; a fetch left with no partitions waits
//! `replica.fetch.backoff.ms`, as Kafka's fetcher does.
//!
//! A partition is assigned when this node becomes its follower (a new leader or leader epoch
//! replaces the assignment) and unassigned when it leads, stops following or the partition
//! goes; a fetcher left without partitions stops. An answer for a partition whose leader epoch
//! changed while the fetch was out is dropped.
//!
//! What it is not: it opens no sockets and knows no addresses; the transport maps a broker id to
//! a connection.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use strand_base::{BrokerId, LeaderEpoch, TopicPartition, Uuid};
use strand_log::manager::lock;
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic, ReplicaState};
use strand_protocol::messages::{FetchRequest, FetchResponse};
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::error::ReplicaError;
use crate::follower::FetchOutcome;
use crate::hosted::Shared;
use crate::replica::fetcher_index;

/// Which fetcher: the source broker and the fetcher's index among its `num.replica.fetchers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct FetcherKey {
    leader: BrokerId,
    index: usize,
}

/// One partition as its fetcher follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Assignment {
    topic_id: Uuid,
    leader_epoch: LeaderEpoch,
    /// Backing off until then.
    delayed_until: Option<Instant>,
    /// How far the log end was behind the leader's high watermark after the last answer
    /// (Kafka's `PartitionFetchState.lag`); `None` before the first.
    lag: Option<i64>,
}

type Assigned = Arc<Mutex<BTreeMap<TopicPartition, Assignment>>>;

#[derive(Debug)]
struct FetcherHandle {
    assigned: Assigned,
    wake: Arc<Notify>,
    task: JoinHandle<()>,
}

/// Every fetcher of this node.
#[derive(Debug, Default)]
pub(crate) struct Fetchers {
    fetchers: BTreeMap<FetcherKey, FetcherHandle>,
}

fn assigned_of(assigned: &Assigned) -> MutexGuard<'_, BTreeMap<TopicPartition, Assignment>> {
    assigned.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Fetchers {
    /// Follows `tp` from `leader` at `leader_epoch`, from its log end (replacing any earlier
    /// assignment of it).
    pub fn assign(
        &mut self,
        shared: &Arc<Shared>,
        tp: &TopicPartition,
        topic_id: Uuid,
        leader: BrokerId,
        leader_epoch: LeaderEpoch,
    ) -> Result<(), ReplicaError> {
        let index = fetcher_index(&tp.topic, tp.partition, shared.config.num_replica_fetchers);
        let key = FetcherKey { leader, index };
        self.unassign_except(tp, Some(key));
        let fetcher = match self.fetchers.entry(key) {
            std::collections::btree_map::Entry::Occupied(entry) => entry.into_mut(),
            std::collections::btree_map::Entry::Vacant(entry) => {
                let runtime = tokio::runtime::Handle::try_current()
                    .map_err(|_| ReplicaError::Config("replica fetchers need a tokio runtime".into()))?;
                let assigned: Assigned = Arc::default();
                let wake = Arc::new(Notify::new());
                let task = runtime.spawn(run(shared.clone(), key, assigned.clone(), wake.clone()));
                entry.insert(FetcherHandle { assigned, wake, task })
            }
        };
        let assignment = Assignment { topic_id, leader_epoch, delayed_until: None, lag: None };
        assigned_of(&fetcher.assigned).insert(tp.clone(), assignment);
        fetcher.wake.notify_one();
        Ok(())
    }

    /// Stops following `tp`.
    pub fn unassign(&mut self, tp: &TopicPartition) {
        self.unassign_except(tp, None);
    }

    fn unassign_except(&mut self, tp: &TopicPartition, keep: Option<FetcherKey>) {
        let mut idle = Vec::new();
        for (key, fetcher) in &self.fetchers {
            if Some(*key) == keep {
                continue;
            }
            let mut assigned = assigned_of(&fetcher.assigned);
            if assigned.remove(tp).is_some() && assigned.is_empty() {
                idle.push(*key);
            }
        }
        for key in idle {
            if let Some(fetcher) = self.fetchers.remove(&key) {
                fetcher.task.abort();
            }
        }
    }

    /// Stops every fetcher; returns their tasks to await.
    pub fn stop_all(&mut self) -> Vec<JoinHandle<()>> {
        std::mem::take(&mut self.fetchers)
            .into_values()
            .map(|fetcher| {
                fetcher.task.abort();
                fetcher.task
            })
            .collect()
    }
}

/// A partition in a fetch that is out.
#[derive(Debug, Clone)]
pub(crate) struct Sent {
    tp: TopicPartition,
    topic_id: Uuid,
    leader_epoch: LeaderEpoch,
    /// Caught up with the leader's high watermark at the last answer (Kafka's
    /// `isReplicaInSync`): the follower's replication throttle never holds it back.
    in_sync: bool,
}

/// What an answer did to a partition: what the fetcher does next, and its lag, if the answer
/// told it.
#[derive(Debug, Clone)]
struct Applied {
    sent: Sent,
    outcome: FetchOutcome,
    lag: Option<i64>,
}

/// The fetcher's loop (see the module doc).
async fn run(shared: Arc<Shared>, key: FetcherKey, assigned: Assigned, wake: Arc<Notify>) {
    let Some(links) = shared.links.clone() else { return };
    let backoff = Duration::from_millis(shared.config.replica_fetch_backoff_ms);
    loop {
        let (ready, next) = ready_partitions(&assigned, Instant::now());
        if ready.is_empty() {
            match next {
                Some(at) => {
                    tokio::select! {
                        _ = wake.notified() => {}
                        _ = tokio::time::sleep_until(at) => {}
                    }
                }
                None => wake.notified().await,
            }
            continue;
        }
        let (building, wanted) = (shared.clone(), ready.clone());
        let built = tokio::task::spawn_blocking(move || building.build_fetch_request(&wanted)).await;
        let (request, sent) = match built {
            Ok((request, sent)) if !sent.is_empty() => (request, sent),
            // Nothing left to fetch (partitions going away), or the build panicked: pause.
            Ok(_) => (FetchRequest::default(), Vec::new()),
            Err(e) => {
                tracing::error!("building a fetch from broker {}: {e}", key.leader);
                (FetchRequest::default(), Vec::new())
            }
        };
        if sent.is_empty() {
            // Nothing to fetch, or every partition throttled: Kafka's fetcher waits
            // `replica.fetch.backoff.ms` then.
            settle(&assigned, &backoff_all(&ready), Instant::now() + backoff);
            continue;
        }
        let outcomes = match links.transport.fetch(key.leader, request).await {
            Ok(response) if response.error_code == 0 => {
                let (applying, fetched) = (shared.clone(), sent.clone());
                let applied =
                    tokio::task::spawn_blocking(move || applying.apply_fetch_response(&fetched, &response)).await;
                applied.unwrap_or_else(|e| {
                    tracing::error!("applying a fetch from broker {}: {e}", key.leader);
                    backoff_all(&sent)
                })
            }
            Ok(response) => {
                tracing::warn!("fetch from broker {} failed with error code {}", key.leader, response.error_code);
                backoff_all(&sent)
            }
            Err(e) => {
                tracing::debug!("fetch from broker {} failed: {e}", key.leader);
                backoff_all(&sent)
            }
        };
        settle(&assigned, &outcomes, Instant::now() + backoff);
    }
}

/// Notes each partition's new lag, and holds back, until `until`, those whose outcome says so
/// (if still followed at the epoch they were fetched at).
fn settle(assigned: &Assigned, outcomes: &[Applied], until: Instant) {
    let mut assigned = assigned_of(assigned);
    for applied in outcomes {
        let sent = &applied.sent;
        let Some(a) = assigned.get_mut(&sent.tp).filter(|a| a.leader_epoch == sent.leader_epoch) else { continue };
        if applied.outcome == FetchOutcome::Backoff {
            a.delayed_until = Some(until);
        }
        if applied.lag.is_some() {
            a.lag = applied.lag;
        }
    }
}

fn backoff_all(sent: &[Sent]) -> Vec<Applied> {
    sent.iter().map(|s| Applied { sent: s.clone(), outcome: FetchOutcome::Backoff, lag: None }).collect()
}

/// The partitions not backing off at `now` (their backoff cleared), and when the next backoff
/// ends.
fn ready_partitions(assigned: &Assigned, now: Instant) -> (Vec<Sent>, Option<Instant>) {
    let mut assigned = assigned_of(assigned);
    let mut ready = Vec::new();
    let mut next: Option<Instant> = None;
    for (tp, a) in assigned.iter_mut() {
        match a.delayed_until {
            Some(until) if until > now => next = Some(next.map_or(until, |n| n.min(until))),
            _ => {
                a.delayed_until = None;
                let in_sync = a.lag.is_some_and(|lag| lag <= 0);
                ready.push(Sent { tp: tp.clone(), topic_id: a.topic_id, leader_epoch: a.leader_epoch, in_sync });
            }
        }
    }
    (ready, next)
}

impl Shared {
    /// The Fetch for `ready`: each partition from its log end, with its latest epoch. Partitions
    /// no longer hosted are left out, and so are those the follower's replication throttle holds
    /// back (Kafka's `shouldFollowerThrottle`: not in sync, throttled, the quota exceeded).
    fn build_fetch_request(&self, ready: &[Sent]) -> (FetchRequest, Vec<Sent>) {
        let mut topics: Vec<FetchTopic> = Vec::new();
        let mut sent = Vec::with_capacity(ready.len());
        let quota = &self.quotas.follower;
        let mut exceeded = None;
        for wanted in ready {
            if !wanted.in_sync
                && quota.is_throttled(&wanted.tp)
                && *exceeded.get_or_insert_with(|| quota.is_exceeded(self.clock.now_ms()))
            {
                continue;
            }
            let Ok(partition) = self.partition(&wanted.tp) else { continue };
            let Ok(log) = lock(&partition.log) else { continue };
            let fetch = FetchPartition {
                partition: wanted.tp.partition,
                current_leader_epoch: wanted.leader_epoch,
                fetch_offset: log.log_end_offset(),
                last_fetched_epoch: log.epoch_cache().latest_epoch().unwrap_or(-1),
                log_start_offset: log.log_start_offset(),
                partition_max_bytes: self.config.replica_fetch_max_bytes,
                ..Default::default()
            };
            match topics.last_mut() {
                Some(topic) if topic.topic_id == wanted.topic_id => topic.partitions.push(fetch),
                _ => {
                    topics.push(FetchTopic { topic_id: wanted.topic_id, partitions: vec![fetch], ..Default::default() })
                }
            }
            sent.push(wanted.clone());
        }
        let request = FetchRequest {
            replica_state: ReplicaState {
                replica_id: self.config.broker_id,
                replica_epoch: self.local_broker_epoch(),
                ..Default::default()
            },
            max_wait_ms: self.config.replica_fetch_wait_max_ms,
            min_bytes: self.config.replica_fetch_min_bytes,
            max_bytes: self.config.replica_fetch_response_max_bytes,
            session_id: 0,
            session_epoch: -1,
            topics,
            ..Default::default()
        };
        (request, sent)
    }

    /// Applies a leader's answer to the partitions it was for; the bytes of throttled partitions
    /// go on the follower's replication quota (in sync or not, as Kafka records them).
    fn apply_fetch_response(&self, sent: &[Sent], response: &FetchResponse) -> Vec<Applied> {
        let by_key: BTreeMap<(Uuid, i32), &Sent> = sent.iter().map(|s| ((s.topic_id, s.tp.partition), s)).collect();
        let flush = self.config.flush_on_acks_all;
        let quota = &self.quotas.follower;
        let mut outcomes = Vec::with_capacity(sent.len());
        for topic in &response.responses {
            for data in &topic.partitions {
                let Some(&wanted) = by_key.get(&(topic.topic_id, data.partition_index)) else { continue };
                let (mut outcome, mut lag) = (FetchOutcome::Ignored, None);
                if let Ok(partition) = self.partition(&wanted.tp) {
                    outcome = partition.apply_fetched(wanted.leader_epoch, data, flush).unwrap_or_else(|e| {
                        tracing::warn!("replicating {}: {e}", wanted.tp);
                        FetchOutcome::Backoff
                    });
                    if outcome == FetchOutcome::Continue && data.error_code == 0 {
                        let end = partition.with_log(|log, _| Ok(log.log_end_offset())).ok();
                        lag = end.map(|end| (data.high_watermark - end).max(0));
                    }
                }
                let bytes = data.records.as_ref().map_or(0, |r| r.len() as u64);
                if bytes > 0 && quota.is_throttled(&wanted.tp) {
                    quota.record(bytes, self.clock.now_ms());
                }
                outcomes.push(Applied { sent: wanted.clone(), outcome, lag });
            }
        }
        outcomes
    }
}
