//! The transaction coordinator: transactional ids, their producer ids and epochs and their
//! transactions, kept in `__transaction_state` in Kafka's record format, as Kafka's
//! `TransactionCoordinator` and `TransactionStateManager` keep them.
//!
//! Layout:
//! - [`shard`]: [`TxnShard`], the deterministic state machine of one `__transaction_state`
//!   partition. Operations read the shard, a clock reading, the request and (when they need a
//!   new producer id) a [`ProducerIds`] hand, and return a [`TxnOutput`]: records, the markers to
//!   write once those are committed, and the answer. Only `replay` changes the shard; loading a
//!   partition is replaying it. The operations: [`init`] (InitProducerId), [`add`]
//!   (AddPartitionsToTxn, AddOffsetsToTxn, KIP-890 verification), [`end`] (EndTxn, V1 and V2,
//!   the coordinator's own aborts), [`admin`] (DescribeTransactions, ListTransactions, the
//!   timeout and expiration sweeps).
//! - [`state`]: [`TxnState`] and its legal transitions; [`metadata`]: [`TxnMetadata`] and the
//!   transitions Kafka prepares; [`records`]: the log's keys and values.
//! - [`markers`]: the [`TxnMarkerSender`] trait the server implements (WriteTxnMarkers to the
//!   partitions' leaders) and how its outcomes are handled.
//! - [`producer_id`]: the [`ProducerIdSource`] trait the broker implements (producer id blocks
//!   from the controller).
//! - [`coordinator`]: [`TxnCoordinator`], the async front, on the coordinator runtime's shard
//!   registry ([`crate::runtime`]: a task per led partition, one operation at a time, answers
//!   released once committed, sweeps fired from the clock); `shell` is the transaction
//!   coordinator's part of each shard task: markers sent and transactions completed, producer
//!   ids drawn. [`api`]
//!   takes the generated requests at their versions.
//! - [`config`]: the settings, [`TxnConfig`].
//!
//! What it is not: no authorization or topic existence checks (the broker's handlers), no
//! FindCoordinator (the broker answers it from [`TxnCoordinator::partition_for`]), no creation
//! of `__transaction_state`, no TxnOffsetCommit (the group coordinator's), no KIP-939 two-phase
//! commit (`NextProducerEpoch` is kept as read, never set).

pub mod add;
pub mod admin;
pub mod api;
pub mod config;
pub mod coordinator;
pub mod end;
pub mod init;
pub mod markers;
pub mod metadata;
pub mod producer_id;
pub mod records;
pub mod shard;
mod shell;
pub mod state;

pub use admin::ListFilter;
pub use config::TxnConfig;
pub use coordinator::TxnCoordinator;
pub use end::EndTxnResult;
pub use init::InitProducerIdResult;
pub use markers::{MarkerOutcome, MarkerStep, TxnMarkerRequest, TxnMarkerSender, TxnResult};
pub use metadata::TxnMetadata;
pub use producer_id::{NeedProducerId, ProducerIdSource, ProducerIds, SequentialProducerIds};
pub use records::TxnRecord;
pub use shard::{TxnOutput, TxnShard};
pub use state::TxnState;

/// The `__transaction_state` partition that coordinates `transactional_id`, out of
/// `partitions`: Kafka's `Utils.abs(transactionalId.hashCode) % partitions`, as for groups.
pub fn partition_for(transactional_id: &str, partitions: i32) -> i32 {
    crate::group::hash::partition_for(transactional_id, partitions)
}
