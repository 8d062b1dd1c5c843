//! The group coordinator: classic consumer groups (JoinGroup, SyncGroup, Heartbeat, LeaveGroup),
//! KIP-848 consumer groups (ConsumerGroupHeartbeat, ConsumerGroupDescribe, server-side `uniform`
//! and `range` assignors, regex subscriptions) and committed offsets (OffsetCommit, OffsetFetch,
//! OffsetDelete, and TxnOffsetCommit's offsets pending until their transaction's marker), with
//! ListGroups, DescribeGroups and DeleteGroups, kept in `__consumer_offsets` in Kafka's own record
//! formats.
//!
//! Layout:
//! - [`group`]: the deterministic state machine over one `__consumer_offsets` partition,
//!   [`group::GroupShard`]: operations compute records and answers from the state, a clock
//!   reading and the request; only replaying records changes durable state, and loading is the
//!   same replay. [`group::hash`] places a group on a partition, [`group::records`] reads and
//!   writes the log's records, [`group::classic`] is the classic group protocol,
//!   [`group::consumer`] the KIP-848 consumer groups (classic members among them included),
//!   [`group::migration`] online migration between the two protocols, [`group::metadata`] the
//!   cluster's topics as they see them, [`group::offsets`] the committed offsets,
//!   [`group::txn_offsets`] transactional offset commits, [`group::admin`] the administrative
//!   APIs, [`group::share_meta`] share groups' epochs and partitions. [`group::coordinator`]: [`GroupCoordinator`], which drives a shard for each
//!   partition this node leads on the [`runtime`], parking JoinGroup and SyncGroup and following
//!   the topic metadata. Its methods ([`group::api`]) take a generated request and its version
//!   and return the generated response; [`GroupCoordinator::on_metadata_update`] takes each new
//!   [`TopicMetadata`] snapshot.
//! - [`runtime`]: the async runtime both coordinators run on: a shard registry (leadership,
//!   status and shutdown as [`CoordinatorShards`], which each coordinator's `shards()` hands out;
//!   requests queued) and a task per partition this node leads, which loads the shard by
//!   replaying the partition, runs one operation at a time,
//!   appends its records through a [`PartitionWriter`] and answers once they are committed, and
//!   fires the shard's timers; [`ShardStatus`] says where a partition's shard stands.
//! - [`txn`]: the transaction coordinator over `__transaction_state`: [`txn::TxnShard`], its
//!   state machine (InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn V1 and V2,
//!   Describe/ListTransactions, timeouts and expiration), and [`TxnCoordinator`], its shell on the
//!   [`runtime`], which writes markers through a [`TxnMarkerSender`] and draws producer ids from
//!   a [`ProducerIdSource`], both implemented by the server.
//! - [`writer`]: the [`PartitionWriter`] trait the server implements over its replicas (and an
//!   in-memory one for tests, feature `testing`), KIP-890's verification of transactional appends
//!   included.
//! - [`config`]: [`GroupConfig`], Kafka's settings and defaults.
//! - [`member_id`]: where new member ids' random part comes from.
//!
//! Client-chosen sizes and times, bounded as Kafka 4.4 bounds them: session timeouts within
//! `group.min/max.session.timeout.ms`; rebalance timeouts and retention times unbounded but
//! saturating (Kafka's wrap); KIP-394 pending members counted against `group.max.size` when they
//! rejoin and forgotten at their session timeout; no client operation appends a batch over the
//! broker's `message.max.bytes` ([`GroupConfig`]'s `batch_bytes_max`): SyncGroup, OffsetCommit and
//! TxnOffsetCommit check before changing anything, any other operation fails when its batch is
//! built (the shard reloaded). Offset expiry and a deleted topic's offsets are the exception, one
//! batch of any size. Tests: `tests/group_limits.rs`, `tests/group_record_limits.rs`.
//!
//! Where it differs from Kafka, beyond ARCHITECTURE.md's list: which of a transactional and a
//! plain offset commit is later is decided by the order the shard replayed them in, not by log
//! offsets (the same order); ties Kafka breaks by hash order (the protocol vote, a new leader)
//! are broken deterministically; every parked request is answered, never dropped.
//!
//! What it is not: no request decoding or authorization (the broker's handlers), no
//! FindCoordinator (the broker answers it from [`GroupCoordinator::partition_for`] and the
//! metadata), no creation of `__consumer_offsets` (the broker creates it on first use) and no
//! streams groups yet; [`share`] holds share groups' membership, share-partitions and share
//! sessions in memory (KIP-932), and [`share::state`] is the share coordinator, which persists
//! share-partitions' state in `__share_group_state` on the [`runtime`].

pub mod config;
pub mod group;
pub mod member_id;
pub mod runtime;
pub mod share;
pub mod txn;
pub mod writer;

pub use config::{GroupConfig, MigrationPolicy};
pub use group::api::{NoTopicIds, TopicIds};
pub use group::coordinator::{GroupCoordinator, TxnMarker};
pub use group::metadata::TopicMetadata;
pub use group::{ClientInfo, DescribableTopics, GroupShard};
pub use member_id::{MemberIdGenerator, RandomMemberIds, SequentialMemberIds};
pub use runtime::{CoordinatorShards, ShardStatus};
/// The internal topics the coordinators keep their state in, as `base` names them.
pub use strand_base::topic::{OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC};
pub use txn::{
    MarkerOutcome, ProducerIdSource, TxnConfig, TxnCoordinator, TxnMarkerRequest, TxnMarkerSender, TxnResult,
};
pub use writer::{BoxFuture, PartitionWriter, ReadResult, TxnVerification, VerificationToken, WriteError};
