//! What the replication layer is told and what it reports: the partition state metadata assigns
//! ([`PartitionState`], applied with `ReplicaManager::apply_partition_state`), the brokers'
//! standing for ISR eligibility ([`BrokerStatus`], KIP-841), what an application changed
//! ([`RoleChange`]), and a partition's replication status ([`PartitionStatus`]).
//!
//! What it is not: these are plain values in Kafka's wire types; the server builds them from its
//! metadata image (a `PartitionRecord`/`PartitionChangeRecord` replayed, a broker registration).

use std::collections::BTreeMap;

use strand_base::{BrokerId, LeaderEpoch, Offset};

/// A partition as metadata describes it (Kafka's `PartitionRegistration`, the fields replication
/// reads), with the topic's `min.insync.replicas`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionState {
    /// `BrokerId::NONE` when the partition has no leader.
    pub leader: BrokerId,
    pub leader_epoch: LeaderEpoch,
    /// Bumped by the controller on every change to the partition; AlterPartition is conditional
    /// on it.
    pub partition_epoch: i32,
    /// Every replica, in preference order.
    pub replicas: Vec<BrokerId>,
    pub isr: Vec<BrokerId>,
    /// The topic's `min.insync.replicas` (1 and up).
    pub min_insync_replicas: i32,
    /// 0 RECOVERED, 1 RECOVERING (KIP-704). A leader takes itself as RECOVERED (Kafka's
    /// `makeLeader`), which its AlterPartition requests carry.
    pub leader_recovery_state: i8,
}

/// A broker as the metadata image has it: whether a leader may add it to an ISR (KIP-841: not
/// fenced, not shutting down, and fetching with its current registration's epoch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrokerStatus {
    /// The epoch of its current registration.
    pub broker_epoch: i64,
    pub fenced: bool,
    pub in_controlled_shutdown: bool,
}

impl BrokerStatus {
    /// Whether a follower that fetched with `fetched_epoch` may join an ISR.
    pub fn isr_eligible(&self, fetched_epoch: i64) -> bool {
        !self.fenced && !self.in_controlled_shutdown && (fetched_epoch == -1 || fetched_epoch == self.broker_epoch)
    }
}

/// What applying a partition state did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoleChange {
    /// The state was older than the one held (a lower leader or partition epoch): ignored.
    Stale,
    /// The same epochs as held: nothing changed (its `min.insync.replicas` is taken anyway).
    Unchanged,
    /// Same leader epoch, newer partition epoch: the ISR and replicas were replaced.
    Updated,
    /// This node now leads the partition in a new leader epoch.
    BecameLeader,
    /// This node now follows another broker (or none) in a new leader epoch.
    BecameFollower,
}

/// What this node is for a partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplicaRole {
    /// Hosted, with no partition state from metadata yet. A standalone replica manager
    /// (`ReplicaManager::new`) leads such partitions alone; one built for a cluster does not.
    Unassigned,
    Leader,
    Follower {
        leader: BrokerId,
    },
}

/// A partition's replication status, for Describe-style reports, ListOffsets (KIP-207: a new
/// leader answers OFFSET_NOT_AVAILABLE until its high watermark reaches
/// `leader_epoch_start_offset`) and tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionStatus {
    pub role: ReplicaRole,
    pub leader_epoch: LeaderEpoch,
    pub partition_epoch: i32,
    pub replicas: Vec<BrokerId>,
    /// The committed ISR as this leader knows it (empty unless leader).
    pub isr: Vec<BrokerId>,
    /// The ISR the high watermark waits for: the committed ISR plus a pending addition.
    pub maximal_isr: Vec<BrokerId>,
    /// Whether an AlterPartition for this partition awaits the controller.
    pub isr_change_in_flight: bool,
    pub high_watermark: Offset,
    pub log_start_offset: Offset,
    pub log_end_offset: Offset,
    /// The log end offset when this node's leader epoch began (leaders only).
    pub leader_epoch_start_offset: Option<Offset>,
    /// The leader's view of each follower (leaders only).
    pub followers: Vec<FollowerStatus>,
    pub min_insync_replicas: i32,
}

/// The leader's view of one follower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FollowerStatus {
    pub broker_id: BrokerId,
    /// -1 until it fetches in this leader epoch.
    pub log_end_offset: Offset,
    /// -1 until it fetches in this leader epoch.
    pub log_start_offset: Offset,
    pub last_caught_up_time_ms: i64,
}

/// The brokers' standing as the server last reported it; `None` until it does (every broker is
/// then taken as eligible).
pub(crate) type BrokerStatuses = Option<BTreeMap<BrokerId, BrokerStatus>>;
