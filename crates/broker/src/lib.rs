//! The request handlers of one node: a frame in, a frame (or nothing, or a closed connection)
//! out. Map:
//! - `dispatch.rs`: [`Broker::handle`] reads the request header, refuses what this node does not
//!   serve (the ApiVersions v0 fallback of KIP-511 for an ApiVersions version it does not know; a
//!   closed connection with a log line for anything else it cannot read), decodes the body and
//!   runs its handler; [`Broker::handle_pipelined`] does the same but hands back an acks=all
//!   Produce's wait for its replicas ([`Progress::Waiting`]) so the connection can handle its next
//!   requests meanwhile.
//! - [`handlers`]: one file per API, each thin (validate, call a domain crate, build the
//!   response), and the table of served APIs (API -> handler) that dispatch and ApiVersions read.
//! - `broker.rs`: [`Broker`], what the handlers reach, and [`BrokerSettings`];
//!   `authorization.rs`: what handlers ask the authorizer beyond `Broker::authorize`.
//! - `channels.rs`: the links the server implements. Handlers that change metadata
//!   (CreateTopics, DeleteTopics, CreatePartitions, the config APIs, partition reassignments,
//!   ElectLeaders, UnregisterBroker, UpdateFeatures, AlterUserScramCredentials, CreateAcls, DeleteAcls,
//!   Create/Renew/ExpireDelegationToken,
//!   InitProducerId's id blocks, Metadata's auto-creation) ask the active controller through
//!   [`Broker::ask_controller`] (a [`ControllerChannel`]: the controller in this process, or on
//!   another node), which decides one request at a time; the answer is returned once this node's
//!   image holds the records it depends on, so the client's next request here sees them.
//!   KIP-890's checks go through a [`TxnVerifier`].
//! - `leadership.rs`: leadership as the partition handlers check it, against this node's replica
//!   (its role and leader epoch, which may trail the image for a moment), as Kafka's `Partition`
//!   does; and KIP-951's hints for refused partitions (`LeaderHints`).
//! - `credentials.rs`: [`ImageCredentials`], the SCRAM mechanisms' credential store over the
//!   live image (KIP-554 keeps credentials in the metadata log).
//! - `authorizer.rs`: [`ImageAuthorizer`], Kafka's `StandardAuthorizer` over the live image's
//!   ACLs, logging denials at a bounded rate. CreateAcls and DeleteAcls go to the controller,
//!   DescribeAcls reads the image.
//! - [`fetch_session`]: the node's bounded KIP-227 [`fetch_session::FetchSessionCache`].
//! - `share.rs`: share groups (KIP-932) as this node holds them: the groups it coordinates (in
//!   memory), its share-partitions (loaded from and persisted to the share coordinator through
//!   the [`SharePersister`]) and share sessions (`handlers/share_groups.rs`,
//!   `handlers/share_fetch.rs` and `handlers/share_offsets.rs` serve them;
//!   `handlers/share_state.rs` serves the share coordinator's RPCs).
//! - `replica_selector.rs`: KIP-392's [`ReplicaSelector`], the follower a consumer should read.
//! - [`validation`]: produced record sets checked as Kafka's `LogValidator` checks them.
//! - [`producer_ids`]: the node's blocks of producer ids, drawn from the controller.
//! - [`quotas`]: client quotas (byte rates, request time, controller mutations) measured and
//!   turned into throttle times; dispatch writes them into `throttle_time_ms` (KIP-219).
//! - `metrics.rs`: clients' records and bytes by topic (bounded), requests and their total time
//!   by API, through the `metrics` facade under Kafka's names; recording is an atomic add.
//! - `publisher.rs`: [`BrokerMetadataPublisher`] (Kafka's name), what each new metadata image
//!   means on this node: the replicas it hosts, leads or follows, and the coordinator shards it
//!   leads. The server's metadata replay and the tests' clusters drive it alike.
//!
//! Every handler asks [`Broker::authorize`] what Kafka's `KafkaApis` asks, in its order, before
//! acting on a resource (no authorizer: everything allowed). Routing beyond the partition APIs:
//! the group APIs go to the group coordinator through `handlers/groups.rs` and
//! `handlers/group_offsets.rs`, which add the client's identity and topic ids and do the checks
//! around it (the coordinators never see a session), the transaction APIs to the
//! transaction coordinator (`handlers/transactions.rs`); `handlers/find_coordinator.rs` creates
//! `__consumer_offsets` and `__transaction_state` on first use; `handlers/write_txn_markers.rs`
//! appends COMMIT/ABORT markers (through the group coordinator for `__consumer_offsets`);
//! `handlers/txn_offset_commit.rs` hands TxnOffsetCommit to the group coordinator.
//!
//! What it is not: it opens no sockets and runs no runtime (the server crate does both), and it
//! holds no state of its own beyond what its handlers need to reach the log and the metadata.

mod authorization;
mod authorizer;
mod broker;
mod channels;
pub mod controller_apis;
mod credentials;
pub mod delayed;
mod dispatch;
pub mod fetch_session;
pub mod handlers;
mod leadership;
mod metrics;
pub mod producer_ids;
mod publisher;
pub mod quotas;
mod replica_selector;
mod share;
mod share_dlq;
pub mod validation;

pub use authorizer::{DENIAL_LOG_LINES_MAX, ImageAuthorizer};
pub use broker::{
    Broker, BrokerConfigEntry, BrokerIdentity, BrokerSettings, InternalTopicSettings, ShareSettings, TxnAddRetry,
};
pub use channels::{
    BoxFuture, BrokerReconfiguration, ControllerChannel, DeadLetterWriter, NoTxnCoordinator, SharePersister,
    TxnVerification, TxnVerifier, ask_controller, call_controller, call_controller_for, requester,
};
pub use credentials::ImageCredentials;
pub use dispatch::{Handled, Outcome, Progress, frame_to_bytes};
pub(crate) use leadership::LeaderHints;
pub use publisher::{BrokerMetadataPublisher, NEW_REPLICAS_PER_PASS_MAX, NotReconciled, PassOutcome};
pub use replica_selector::ReplicaSelector;
