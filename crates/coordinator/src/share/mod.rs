//! Share groups (KIP-932), the first slice: membership and assignment ([`group`]), the
//! share-partition state machine a partition leader runs per share group ([`partition`]) and
//! share sessions ([`session`]). All three are deterministic (a clock reading goes in) and held
//! in memory by the broker; [`state`] is the share coordinator over `__share_group_state`
//! (ShareSnapshot, ShareUpdate), where partition leaders persist share-partitions' state.

pub mod group;
pub mod partition;
pub mod session;
pub mod state;

#[cfg(test)]
mod tests;

pub use group::{Heartbeat, HeartbeatAnswer, HeartbeatError, ShareGroup, ShareGroupConfig, ShareGroups};
pub use partition::{
    AckError, AckType, AcquiredRange, DeadLetter, DeadLetterCause, LogBatch, RecordState, SharePartition,
    SharePartitionConfig,
};
pub use session::{FINAL_EPOCH, INITIAL_EPOCH, SessionError, SessionPartition, ShareSessions};
