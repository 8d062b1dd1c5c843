//! [`Shared`]: the partitions this node hosts and what the manager's tasks share with it (the
//! fetchers look partitions up in it, the AlterPartition tasks send through its links): hosted
//! and offline partitions, topic names, the brokers' standing, the change counters; and
//! [`ReplicaLinks`], how a cluster member reaches the others.
//!
//! What it is not: it decides nothing about roles or offsets (the partitions do) and starts no
//! fetcher (the manager does).

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use strand_base::{Clock, TopicPartition, Uuid};
use tokio::sync::watch;

use crate::config::ReplicationConfig;
use crate::error::ReplicaError;
use crate::isr::{AlterOutcome, AlterPartitionItem, IsrChannel};
use crate::partition::Partition;
use crate::quota::ReplicationQuotas;
use crate::state::BrokerStatuses;
use crate::transport::ReplicaTransport;

/// The first pause before an AlterPartition is sent again after a retriable failure; it doubles
/// up to [`ALTER_PARTITION_BACKOFF_MAX`].
const ALTER_PARTITION_BACKOFF_MIN: Duration = Duration::from_millis(100);
const ALTER_PARTITION_BACKOFF_MAX: Duration = Duration::from_secs(5);

/// How a cluster member reaches the others: leaders for fetching, the controller for ISR changes.
#[derive(Debug, Clone)]
pub struct ReplicaLinks {
    pub transport: Arc<dyn ReplicaTransport>,
    pub isr_channel: Arc<dyn IsrChannel>,
}

/// What the fetcher tasks and AlterPartition tasks share with the manager.
#[derive(Debug)]
pub(crate) struct Shared {
    pub config: ReplicationConfig,
    pub clock: Arc<dyn Clock>,
    /// `None` for a standalone manager.
    pub links: Option<ReplicaLinks>,
    pub partitions: RwLock<BTreeMap<TopicPartition, Arc<Partition>>>,
    /// The replicas this node was given but could not host (their log could not be opened or
    /// created, say for want of file descriptors), with why: answered KAFKA_STORAGE_ERROR, as
    /// Kafka answers for an offline replica, until a later reconcile hosts them or they go.
    pub offline: RwLock<BTreeMap<TopicPartition, String>>,
    /// Topic ids to names, for Fetch v13+.
    pub topic_names: RwLock<BTreeMap<Uuid, String>>,
    pub brokers: RwLock<BrokerStatuses>,
    /// Bumped after every append and every progress change of any partition, for waiters on any
    /// change (fetches wait on their partitions' own counters instead).
    pub changed: Arc<watch::Sender<u64>>,
    /// Bumped when a partition is hosted, dropped or changes role: what a fetch of a partition
    /// this node does not serve yet waits for.
    pub hosting: watch::Sender<u64>,
    /// Consumer reads served (one per partition per fetch pass), for tests and operators.
    pub consumer_reads: std::sync::atomic::AtomicU64,
    /// Record bytes this node served to consumers as a follower (KIP-392).
    pub follower_read_bytes: std::sync::atomic::AtomicU64,
    /// The replication throttles (KIP-73): what this node sends as leader and fetches as
    /// follower.
    pub quotas: ReplicationQuotas,
    /// Delayed delivery's partitions to look at.
    pub delayed: crate::delayed_delivery::DelayedPartitions,
}

pub(crate) fn read<T>(lock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(std::sync::PoisonError::into_inner)
}

pub(crate) fn write<T>(lock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    pub fn partition(&self, tp: &TopicPartition) -> Result<Arc<Partition>, ReplicaError> {
        if let Some(partition) = read(&self.partitions).get(tp) {
            return Ok(Arc::clone(partition));
        }
        match read(&self.offline).get(tp) {
            Some(reason) => Err(ReplicaError::Offline { tp: tp.clone(), reason: reason.clone() }),
            None => Err(ReplicaError::UnknownPartition(tp.clone())),
        }
    }

    pub fn all_partitions(&self) -> Vec<Arc<Partition>> {
        read(&self.partitions).values().cloned().collect()
    }

    pub fn topic_name(&self, topic_id: Uuid) -> Option<String> {
        read(&self.topic_names).get(&topic_id).cloned()
    }

    pub fn brokers(&self) -> BrokerStatuses {
        read(&self.brokers).clone()
    }

    /// This node's broker epoch as the statuses report it (-1 if they do not).
    pub fn local_broker_epoch(&self) -> i64 {
        read(&self.brokers).as_ref().and_then(|b| b.get(&self.config.broker_id)).map_or(-1, |s| s.broker_epoch)
    }

    /// Wakes the fetches waiting for a partition to be hosted or to change role here.
    pub fn hosting_changed(&self) {
        self.hosting.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Sends `item` to the controller on a task, and has `partition` take the answer; retriable
    /// failures are sent again with a growing backoff while the item is still in flight.
    pub fn submit_alter_partition(&self, partition: Arc<Partition>, item: AlterPartitionItem) {
        let (Some(links), Ok(runtime)) = (self.links.as_ref(), tokio::runtime::Handle::try_current()) else {
            tracing::warn!("cannot send an ISR change for {} (no controller link or runtime)", partition.tp);
            let _ = partition.on_alter_partition(&item, Err(strand_protocol::error::ErrorCode::OperationNotAttempted));
            return;
        };
        let channel = links.isr_channel.clone();
        runtime.spawn(async move {
            let mut backoff = ALTER_PARTITION_BACKOFF_MIN;
            loop {
                let answer = channel.submit(item.clone()).await;
                match partition.on_alter_partition(&item, answer) {
                    Ok(AlterOutcome::Retry) if partition.is_in_flight(&item) => {
                        tokio::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(ALTER_PARTITION_BACKOFF_MAX);
                    }
                    Ok(outcome) => {
                        tracing::debug!("ISR change {:?} for {}: {outcome:?}", item.isr(), partition.tp);
                        return;
                    }
                    Err(e) => {
                        tracing::warn!("ISR change for {}: {e}", partition.tp);
                        return;
                    }
                }
            }
        });
    }
}
