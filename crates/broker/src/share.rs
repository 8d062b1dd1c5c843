//! Share groups (KIP-932) as this node holds them: the share groups it coordinates (membership
//! and assignment, in memory), the share-partitions it leads (one per share group and partition,
//! each bounded by `group.share.partition.max.record.locks`) and the share sessions of the
//! consumers fetching from it (at most `group.share.max.share.sessions`). Each std lock is held
//! only between awaits, never across one.
//!
//! Share-partitions persist through the broker's [`crate::SharePersister`] (the share
//! coordinator): [`load`] restores one from its persisted state the first time this leader
//! needs it (or initializes the state where the group's `share.auto.offset.reset` says, [`start`]), and
//! [`persist`] writes its state after acknowledgements and releases, before they are answered.
//! A per-share-partition async lock orders a partition's loads and writes, so a write never
//! overtakes a newer one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use strand_base::topic::SHARE_GROUP_STATE_TOPIC;
use strand_base::{TopicPartition, Uuid};
use strand_coordinator::group::share_meta::PersistedShareGroup;
use strand_coordinator::share::state::ShareKey;
use strand_coordinator::share::{ShareGroupConfig, ShareGroups, SharePartition, SharePartitionConfig, ShareSessions};
use strand_metadata::image::MetadataImage;
use strand_metadata::image::group_configs::{GroupConfig, ShareStart};
use strand_protocol::error::ErrorCode;

use crate::{Broker, ShareSettings};

/// A share-partition by share group and partition.
type PartitionKey = (String, TopicPartition);

/// Share groups, share-partitions and share sessions of one node.
#[derive(Debug)]
pub(crate) struct ShareState {
    pub(crate) settings: ShareSettings,
    groups: Mutex<ShareGroups>,
    partitions: Mutex<HashMap<PartitionKey, SharePartition>>,
    sessions: Mutex<ShareSessions>,
    /// Orders each share-partition's loads and writes (one entry per share-partition held).
    persist_locks: Mutex<HashMap<PartitionKey, Arc<tokio::sync::Mutex<()>>>>,
    /// Orders each share group's metadata writes (one entry per share group held).
    group_locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// One dead-letter drain at a time per share-partition (`crate::share_dlq`).
    dead_letter_locks: Mutex<HashMap<PartitionKey, Arc<tokio::sync::Mutex<()>>>>,
}

impl ShareState {
    pub(crate) fn new(settings: &ShareSettings) -> ShareState {
        let config = ShareGroupConfig {
            session_timeout_ms: settings.session_timeout_ms,
            heartbeat_interval_ms: settings.heartbeat_interval_ms,
            max_size: settings.max_size,
        };
        ShareState {
            settings: *settings,
            groups: Mutex::new(ShareGroups::new(config)),
            partitions: Mutex::new(HashMap::new()),
            sessions: Mutex::new(ShareSessions::new(settings.max_share_sessions, settings.session_timeout_ms)),
            persist_locks: Mutex::new(HashMap::new()),
            group_locks: Mutex::new(HashMap::new()),
            dead_letter_locks: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn groups(&self) -> MutexGuard<'_, ShareGroups> {
        self.groups.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn sessions(&self) -> MutexGuard<'_, ShareSessions> {
        self.sessions.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn group_lock(&self, group_id: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.group_locks.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        locks.entry(group_id.to_owned()).or_default().clone()
    }

    fn persist_lock(&self, key: &PartitionKey) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.persist_locks.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        locks.entry(key.clone()).or_default().clone()
    }

    pub(crate) fn dead_letter_lock(&self, key: &PartitionKey) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.dead_letter_locks.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        locks.entry(key.clone()).or_default().clone()
    }

    pub(crate) fn partitions(&self) -> MutexGuard<'_, HashMap<PartitionKey, SharePartition>> {
        self.partitions.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The configuration `group_id`'s share-partitions apply: the broker's settings and the
    /// group's own configs in `image` (its dead-letter topic and release backoff).
    pub(crate) fn partition_config(&self, image: &MetadataImage, group_id: &str) -> SharePartitionConfig {
        let group = GroupConfig::of(image.configs(), group_id);
        SharePartitionConfig {
            lock_duration_ms: i64::from(self.settings.record_lock_duration_ms),
            delivery_count_limit: self.settings.delivery_count_limit,
            max_record_locks: self.settings.partition_max_record_locks,
            dead_letter: group.dlq_topic.is_some(),
            release_backoff_ms: group.release_backoff_ms,
            release_backoff_max_ms: group.release_backoff_max_ms,
        }
    }
}

/// The leader epoch of `tp` in the current image (-1 if unknown).
fn leader_epoch(broker: &Broker, tp: &TopicPartition) -> i32 {
    let image = broker.image();
    image.topics().by_name(&tp.topic).and_then(|t| t.partitions.get(&tp.partition)).map_or(-1, |p| p.leader_epoch)
}

/// Where `group_id`'s new share-partition of `tp` starts, as its `share.auto.offset.reset` says:
/// the high watermark (latest, the default), the log start offset (earliest), or the first
/// committed record no older than a duration (its timestamp looked up off the async workers).
/// With no such record yet it is OFFSET_NOT_AVAILABLE and nothing is initialized, as in Kafka:
/// the next fetch tries again, and starts at the first record that falls in the window.
async fn start(broker: &Broker, group_id: &str, tp: &TopicPartition) -> Result<i64, ErrorCode> {
    let offsets = broker.replicas.offsets(tp).map_err(|e| e.code())?;
    let (log_start, high_watermark) = (offsets.log_start_offset, offsets.high_watermark);
    match GroupConfig::of(broker.image().configs(), group_id).share_start {
        ShareStart::Latest => Ok(high_watermark),
        ShareStart::Earliest => Ok(log_start),
        ShareStart::ByDuration { ms } => {
            let since = broker.clock.now_ms().saturating_sub(ms);
            let (replicas, tp) = (broker.replicas.clone(), tp.clone());
            let found = tokio::task::spawn_blocking(move || replicas.offset_for_timestamp(&tp, since))
                .await
                .map_err(|_| ErrorCode::UnknownServerError)?
                .map_err(|e| e.code())?;
            match found {
                Some((_, offset)) if offset < high_watermark => Ok(offset.max(log_start)),
                _ => Err(ErrorCode::OffsetNotAvailable),
            }
        }
    }
}

/// Makes sure this leader holds `group_id`'s share-partition of `tp` (topic id `topic_id`):
/// restored from its persisted state, or new where [`start`] says, its state initialized there
/// first.
pub(crate) async fn load(
    broker: &Broker,
    group_id: &str,
    tp: &TopicPartition,
    topic_id: Uuid,
) -> Result<(), ErrorCode> {
    let key = (group_id.to_owned(), tp.clone());
    if broker.share.partitions().contains_key(&key) {
        return Ok(());
    }
    let config = broker.share.partition_config(&broker.image(), group_id);
    let Some(persister) = broker.share_persister.clone() else {
        let start = start(broker, group_id, tp).await?;
        broker.share.partitions().entry(key).or_insert_with(|| SharePartition::new(config, start));
        return Ok(());
    };
    let lock = broker.share.persist_lock(&key);
    let _ordered = lock.lock().await;
    if broker.share.partitions().contains_key(&key) {
        return Ok(());
    }
    if crate::handlers::find_coordinator::ensure_internal_topic(broker, SHARE_GROUP_STATE_TOPIC).await.is_none() {
        return Err(ErrorCode::CoordinatorNotAvailable);
    }
    let share_key = ShareKey { group_id: group_id.to_owned(), topic_id, partition: tp.partition };
    let partition = match persister.read(share_key.clone(), leader_epoch(broker, tp)).await? {
        Some(state) if state.start_offset >= 0 => SharePartition::restore(config, &state),
        _ => {
            let start = start(broker, group_id, tp).await?;
            persister.initialize(share_key, 0, start).await?;
            SharePartition::new(config, start)
        }
    };
    broker.share.partitions().entry(key).or_insert(partition);
    Ok(())
}

/// Writes the state of `group_id`'s share-partition of `tp` to the share coordinator.
pub(crate) async fn persist(
    broker: &Broker,
    group_id: &str,
    tp: &TopicPartition,
    topic_id: Uuid,
) -> Result<(), ErrorCode> {
    let Some(persister) = broker.share_persister.clone() else { return Ok(()) };
    let key = (group_id.to_owned(), tp.clone());
    let lock = broker.share.persist_lock(&key);
    let _ordered = lock.lock().await;
    let leader_epoch = leader_epoch(broker, tp);
    let Some(state) = broker.share.partitions().get(&key).map(|p| p.persisted(leader_epoch)) else { return Ok(()) };
    let share_key = ShareKey { group_id: group_id.to_owned(), topic_id, partition: tp.partition };
    let written = persister.write(share_key, state).await;
    if let Err(ErrorCode::FencedStateEpoch | ErrorCode::FencedLeaderEpoch) = written {
        // Its offsets were reset, or another leader took over: reload it before the next use.
        broker.share.partitions().remove(&key);
    }
    written
}

/// Forgets this leader's copy of `group_id`'s share-partition of `tp` (its state was reset or
/// deleted), so that the next fetch loads it again.
pub(crate) fn forget(broker: &Broker, group_id: &str, tp: &TopicPartition) {
    broker.share.partitions().remove(&(group_id.to_owned(), tp.clone()));
}

/// Takes back `group_id` from `__consumer_offsets` if this node does not hold it (it restarted,
/// or the coordinator moved here): its epoch and initialized partitions, without members.
pub(crate) async fn hydrate(broker: &Broker, group_id: &str) {
    if broker.share.groups().contains(group_id) {
        return;
    }
    let Ok(Some(persisted)) = broker.groups.share_group(group_id).await else { return };
    let image = broker.image();
    let initialized = persisted
        .initialized
        .iter()
        .filter_map(|(id, (_, partitions))| Some((image.topics().by_id(*id)?.name.clone(), partitions.clone())))
        .collect();
    broker.share.groups().restore(group_id, persisted.group_epoch, initialized);
}

/// Writes `group_id`'s epoch and initialized partitions to `__consumer_offsets` (tombstones if
/// the group is gone), in the order of the changes.
pub(crate) async fn save(broker: &Broker, group_id: &str) -> Result<(), ErrorCode> {
    let lock = broker.share.group_lock(group_id);
    let _ordered = lock.lock().await;
    let snapshot = broker.share.groups().persisted(group_id);
    let image = broker.image();
    let group = snapshot.map(|(group_epoch, initialized)| PersistedShareGroup {
        group_epoch,
        initialized: initialized
            .into_iter()
            .filter_map(|(name, partitions)| Some((image.topics().by_name(&name)?.id, (name, partitions))))
            .collect(),
    });
    broker.groups.write_share_group(group_id, group).await
}
