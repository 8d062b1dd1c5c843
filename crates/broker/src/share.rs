//! Share groups (KIP-932) as this node holds them, in memory until the share coordinator over
//! `__share_group_state` lands: the share groups it coordinates (membership and assignment), the
//! share-partitions it leads (one per share group and partition, each bounded by
//! `group.share.partition.max.record.locks`) and the share sessions of the consumers fetching
//! from it (at most `group.share.max.share.sessions`). Each lock is held only between awaits,
//! never across one.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use strand_base::TopicPartition;
use strand_coordinator::share::{ShareGroupConfig, ShareGroups, SharePartition, SharePartitionConfig, ShareSessions};

use crate::ShareSettings;

/// Share groups, share-partitions and share sessions of one node.
#[derive(Debug)]
pub(crate) struct ShareState {
    pub(crate) settings: ShareSettings,
    groups: Mutex<ShareGroups>,
    partitions: Mutex<HashMap<(String, TopicPartition), SharePartition>>,
    sessions: Mutex<ShareSessions>,
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
        }
    }

    pub(crate) fn groups(&self) -> MutexGuard<'_, ShareGroups> {
        self.groups.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn sessions(&self) -> MutexGuard<'_, ShareSessions> {
        self.sessions.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn partitions(&self) -> MutexGuard<'_, HashMap<(String, TopicPartition), SharePartition>> {
        self.partitions.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The configuration a new share-partition starts with.
    pub(crate) fn partition_config(&self) -> SharePartitionConfig {
        SharePartitionConfig {
            lock_duration_ms: i64::from(self.settings.record_lock_duration_ms),
            delivery_count_limit: self.settings.delivery_count_limit,
            max_record_locks: self.settings.partition_max_record_locks,
        }
    }
}
