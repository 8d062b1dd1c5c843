//! Replication: the partitions this node hosts, as leader or follower, and the rules of their
//! offsets (Kafka's `ReplicaManager`, `Partition`, `ReplicaFetcherThread` and produce
//! purgatory).
//!
//! - [`ReplicaManager`] (`manager.rs`): the node's replicas: hosting, partition states from
//!   metadata (leader or follower), appends with `acks`, consumer reads bounded by the high
//!   watermark (or the last stable offset), ISR shrinking, retention and compaction passes,
//!   checkpoints (high watermarks in `replication-offset-checkpoint`).
//!   A replica whose log cannot be opened or created is kept offline with why (KAFKA_STORAGE_ERROR,
//!   Kafka's `HostedPartition.Offline`) until a later state hosts it; `keep_offline` leaves one
//!   unhosted when its log may be in an offline dir; `handle_log_dir_failures` takes the
//!   partitions of a dir a failed sync took offline out of service (fetchers stopped, no new
//!   states, no ISR proposals) and returns the offline dirs for the heartbeat.
//! - `hosted.rs`: what the manager shares with its fetcher and AlterPartition tasks: the hosted
//!   and offline partitions, topic names, the brokers' standing, and [`ReplicaLinks`].
//! - `transport.rs`: [`ReplicaTransport`], how followers reach leaders.
//! - `partition/`: one hosted partition: its log, its replica state behind a lock taken before
//!   the log's (a leadership change never lands inside an append), and the progress that parked
//!   produces watch. The leader's rules: becoming leader or follower (`role.rs`), appends,
//!   `min.insync.replicas`, reads and followers' fetches (`serve.rs`), the high watermark as the
//!   lowest log end offset over the (maximal) ISR, ISR expansion and shrinking and AlterPartition
//!   answers (`isr_changes.rs`).
//! - `replica.rs`: that state as plain data and pure transitions ([`ReplicaRole`] for the
//!   outside), tested without I/O.
//! - `leader.rs`: serving followers: [`ReplicaManager::fetch_for_follower`] and the whole-request
//!   [`ReplicaManager::replica_fetch`] the broker's Fetch handler calls for replica fetches.
//! - `follower.rs` and `fetcher.rs`: the follower's fetchers (`num.replica.fetchers` tasks per
//!   leader) over a [`ReplicaTransport`] (`transport.rs`), appending, syncing before the next
//!   fetch, truncating only where the leader reports a diverging epoch.
//! - `isr.rs`: ISR changes through an [`IsrChannel`] to the controller (AlterPartition), one in
//!   flight per partition.
//! - `delayed_produce.rs`: [`DelayedProduce`], an `acks=all` append waiting for the ISR.
//! - `quota.rs`: the replication throttles (KIP-73, Kafka's `ReplicationQuotaManager`):
//!   [`ReplicationThrottles`] from the image, a leader and a follower quota that the leader's
//!   serving (`leader.rs`) and the fetchers (`fetcher.rs`) check and record.
//! - `log_dir_move.rs`: AlterReplicaLogDirs ([`ReplicaManager::alter_log_dir`]): a future log
//!   copied from the current one by a mover task per moving partition (Kafka's
//!   `ReplicaAlterLogDirsThread`), swapped in once caught up, and resumed after a restart.
//! - `delayed_fetch.rs`: [`DelayedFetch`], the one wait of every Fetch (a consumer's and a
//!   follower's), woken through a [`FetchWatch`] only by changes of the partitions it reads.
//! - `types.rs`: the plain values passed between the modules and to callers ([`Acks`],
//!   [`Isolation`], [`FirstBatch`], [`PartitionRead`], [`FollowerFetch`], [`FollowerRead`], ...).
//! - `state.rs`, `config.rs`, `error.rs`: [`PartitionState`], [`BrokerStatus`], [`RoleChange`],
//!   [`PartitionStatus`]; [`ReplicationConfig`]; [`ReplicaError`] and its Kafka error codes.
//!
//! Imports run one way, never back (no two modules use each other): `types`, `error`, `state`,
//! `config`, `delayed_fetch`, `quota` at the bottom; then `isr`, `transport`, `replica`,
//! `delayed_produce`; `partition`; `follower`, `hosted`; `fetcher`; `manager`; `leader` and
//! `log_dir_move` (which extend [`ReplicaManager`]) on top.
//!
//! Durability (design §6): an `acks=all` append is acknowledged once every ISR member has it on
//! stable storage: the leader syncs before acknowledging (one `Log::flush_to` serves every
//! append before it), and followers sync what they fetched before fetching again, so the offset a
//! follower fetches from is durable on it and the high watermark never passes what some ISR
//! member could lose. `log.flush.on.acks.all=false` turns both syncs off.
//!
//! Invariants: the high watermark never decreases except by truncation; followers never truncate
//! by high watermark alone, only where the leader reports a diverging epoch; a consumer reads from
//! a follower ([`ReadFrom::AnyReplica`], KIP-392) never past that follower's high watermark. Tests: `tests/cluster.rs` (three managers over an in-memory
//! transport, every Fetch encoded at v17), `tests/simulation.rs` (seeded, with the real
//! controller decisions, crashes and partitions).
//!
//! What it is not: it decodes no requests but replica Fetch, knows no metadata records (the
//! server turns the image into [`PartitionState`]s and [`BrokerStatus`]es), and opens no sockets
//! (the server implements [`ReplicaTransport`] and [`IsrChannel`]). It reads no wall clock of its
//! own: times come from the [`strand_base::Clock`] it is given or as `now_ms` arguments.

mod config;
mod delayed_delivery;
mod delayed_fetch;
mod delayed_produce;
mod error;
mod fetcher;
mod follower;
mod hosted;
mod isr;
mod leader;
mod log_dir_move;
mod manager;
mod partition;
mod quota;
mod replica;
mod state;
mod transport;
mod types;

use std::sync::Arc;

pub use config::ReplicationConfig;
pub use delayed_delivery::DeliveryPass;
pub use delayed_fetch::{DelayedFetch, FetchWatch};
pub use delayed_produce::DelayedProduce;
pub use error::ReplicaError;
pub use hosted::ReplicaLinks;
pub use isr::{AlterPartitionItem, IsrChannel, IsrMember, LeaderAndIsr};
pub use leader::{REPLICA_FETCH_WAIT_MS_MAX, failed as failed_fetch_partition, fetch_replica, file_records};
pub use manager::ReplicaManager;
pub use partition::Appended;
pub use quota::{ReplicationThrottles, ThrottledReplicas};
pub use state::{BrokerStatus, FollowerStatus, PartitionState, PartitionStatus, ReplicaRole, RoleChange};
pub use transport::{REPLICA_FETCH_VERSION, ReplicaTransport, TransportError};
pub use types::{
    Acks, BoxFuture, FirstBatch, FollowerFetch, FollowerRead, Isolation, PartitionOffsets, PartitionRead, PassReport,
    ReadFrom,
};

/// Shared between the handlers.
pub type SharedReplicaManager = Arc<ReplicaManager>;
