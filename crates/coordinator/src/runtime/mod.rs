//! What the group and the transaction coordinators' shells share: [`ShardStatus`], the limits on
//! a shard's command queue and load reads, and [`load`], which reads a partition for replay.
//!
//! What it is not: either shell. The group coordinator's is [`crate::group::runtime`], the
//! transaction coordinator's [`crate::txn::runtime`]; each owns a shard per partition of its
//! internal topic that this node leads.

pub(crate) mod load;

/// Requests queued for one shard before senders wait.
pub const SHARD_COMMANDS_MAX: usize = 1024;

/// Bytes read per step while loading a shard.
pub const LOAD_READ_BYTES_MAX: usize = 1024 * 1024;

/// Where a partition's shard stands on this node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardStatus {
    /// This node does not lead the partition (or its shard failed): NOT_COORDINATOR.
    NotLed,
    /// Replaying the partition: COORDINATOR_LOAD_IN_PROGRESS.
    Loading,
    /// Serving requests.
    Active,
}

/// Sleeps for `duration`, or forever without one: a shard task's wait for its next timer.
pub(crate) async fn sleep_for(duration: Option<std::time::Duration>) {
    match duration {
        Some(duration) => tokio::time::sleep(duration).await,
        None => std::future::pending().await,
    }
}
