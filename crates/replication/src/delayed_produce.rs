//! [`DelayedProduce`]: an `acks=all` append waiting to be acknowledged (Kafka's `DelayedProduce`
//! in the produce purgatory).
//!
//! It completes when the partition's high watermark passes the batch's last offset and the
//! leader's own log is synced past it (`log.flush.on.acks.all`), with:
//! - success, if the committed ISR still holds `min.insync.replicas`;
//! - NOT_ENOUGH_REPLICAS_AFTER_APPEND, if it shrank below (the high watermark moved because
//!   members left);
//! - NOT_LEADER_OR_FOLLOWER, if leadership moved or the partition went away first;
//! - REQUEST_TIMED_OUT, after the produce's timeout (the batch may still commit later). As in
//!   Kafka, the timeout bounds the wait for the replicas; the local sync is not timed.
//!
//! The leader's sync runs beside the wait for the followers, on a blocking thread; it is
//! `manager::flush_unlocked`, so one sync covers every append before it, the waiters behind it
//! return without syncing again (group commit), and appends go on while it runs (the log's lock
//! is not held across the `fdatasync`).
//!
//! What it is not: there is no purgatory structure to sweep. Each waiter watches its partition's
//! progress (one `tokio::sync::watch` per partition, changed when the high watermark, the ISR or
//! the leadership changes); the number of waiters is bounded by the requests in flight, one per
//! connection.

use std::time::Duration;

use strand_base::{LeaderEpoch, Offset, TopicPartition};
use strand_log::LogError;
use strand_log::manager::{SharedLog, flush_unlocked};
use tokio::sync::watch;

use crate::error::ReplicaError;

/// What parked produces and the high-watermark waiters watch: changes on every leadership
/// change, high watermark move and ISR change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Progress {
    pub leader_epoch: LeaderEpoch,
    /// Whether this node takes produces for the partition.
    pub leads: bool,
    pub high_watermark: Offset,
    /// The committed ISR's size.
    pub isr_len: usize,
    pub min_insync_replicas: i32,
}

/// An `acks=all` append waiting for the in-sync replicas.
#[derive(Debug)]
pub struct DelayedProduce {
    tp: TopicPartition,
    log: SharedLog,
    progress: watch::Receiver<Progress>,
    /// The offset after the batch: the high watermark must reach it.
    required_offset: Offset,
    leader_epoch: LeaderEpoch,
    flush: bool,
}

impl DelayedProduce {
    pub(crate) fn new(
        tp: TopicPartition,
        log: SharedLog,
        progress: watch::Receiver<Progress>,
        required_offset: Offset,
        leader_epoch: LeaderEpoch,
        flush: bool,
    ) -> Self {
        DelayedProduce { tp, log, progress, required_offset, leader_epoch, flush }
    }

    /// The offset the high watermark must reach.
    pub fn required_offset(&self) -> Offset {
        self.required_offset
    }

    /// Waits until the append is acknowledged or fails (see the module doc); the replicas get
    /// at most `timeout` (the produce's `timeout_ms`), the local sync is not timed.
    pub async fn wait(self, timeout: Duration) -> Result<(), ReplicaError> {
        let DelayedProduce { tp, log, mut progress, required_offset, leader_epoch, flush } = self;
        let synced = async {
            if !flush {
                return Ok(());
            }
            let synced = tokio::task::spawn_blocking(move || flush_unlocked(&log, required_offset)).await;
            synced.map_err(|e| LogError::Invalid(format!("the sync task failed: {e}")))?.map_err(ReplicaError::from)
        };
        let replicated = async {
            let reached = progress
                .wait_for(|p| !p.leads || p.leader_epoch != leader_epoch || p.high_watermark >= required_offset)
                .await;
            let Ok(now) = reached.map(|p| *p) else { return Err(ReplicaError::NotLeaderOrFollower(tp.clone())) };
            if !now.leads || now.leader_epoch != leader_epoch {
                return Err(ReplicaError::NotLeaderOrFollower(tp.clone()));
            }
            let isr = now.isr_len;
            if i32::try_from(isr).unwrap_or(i32::MAX) < now.min_insync_replicas {
                return Err(ReplicaError::NotEnoughReplicasAfterAppend {
                    tp: tp.clone(),
                    isr,
                    min: now.min_insync_replicas,
                });
            }
            Ok(())
        };
        let replicated =
            async { tokio::time::timeout(timeout, replicated).await.unwrap_or(Err(ReplicaError::Timeout)) };
        let (synced, replicated) = tokio::join!(synced, replicated);
        synced.and(replicated)
    }
}
