//! The share coordinator (KIP-932): share-partitions' persisted state in `__share_group_state`,
//! in Kafka's record formats ([`records`]), held per partition of the topic by a
//! [`shard::ShareStateShard`] that [`ShareCoordinator`] runs on the coordinator runtime. Partition
//! leaders read and write it through the *ShareGroupState RPCs (the broker's persister), as
//! Kafka's do.

pub mod coordinator;
pub mod records;
pub mod shard;

#[cfg(test)]
mod tests;

pub use coordinator::ShareCoordinator;
pub use records::{ShareKey, ShareRecord, ShareValue};

/// A start offset that means "not initialized" (a read of a share-partition never written, an
/// update that leaves the start offset as it was).
pub const UNINITIALIZED_START_OFFSET: i64 = -1;

/// Kafka's `RecordState` ids as state batches carry them.
pub const STATE_AVAILABLE: i8 = 0;
pub const STATE_ACQUIRED: i8 = 1;
pub const STATE_ACKNOWLEDGED: i8 = 2;
/// KIP-1191: archived once its dead-letter record is written.
pub const STATE_ARCHIVING: i8 = 3;
pub const STATE_ARCHIVED: i8 = 4;

/// Records `first_offset..=last_offset` of a share-partition, all in one delivery state with one
/// delivery count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PersistedBatch {
    pub first_offset: i64,
    pub last_offset: i64,
    pub delivery_state: i8,
    pub delivery_count: i16,
}

/// A share-partition's persisted state: the share-partition start offset and the records in
/// flight above it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PersistedState {
    pub state_epoch: i32,
    pub leader_epoch: i32,
    pub start_offset: i64,
    pub batches: Vec<PersistedBatch>,
}

impl PersistedState {
    /// Records above the start offset that are delivered for good (acknowledged or archived):
    /// Kafka's `deliveryCompleteCount`, which the lag leaves out.
    pub fn delivery_complete_count(&self) -> i64 {
        self.batches
            .iter()
            .filter(|b| matches!(b.delivery_state, STATE_ACKNOWLEDGED | STATE_ARCHIVED))
            .map(|b| b.last_offset - b.first_offset.max(self.start_offset) + 1)
            .filter(|&n| n > 0)
            .sum()
    }
}

/// What ReadShareGroupStateSummary tells of a share-partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateSummary {
    pub state_epoch: i32,
    pub leader_epoch: i32,
    pub start_offset: i64,
    /// -1 when the coordinator does not say (ReadShareGroupStateSummary v0).
    pub delivery_complete_count: i64,
}
