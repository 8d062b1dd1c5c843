//! Cluster metadata: the records of `__cluster_metadata`, the immutable [`image::MetadataImage`]
//! they build, the controller's decisions as pure functions, the active controller that runs
//! them, and the Raft quorum that commits their records (Kafka's KRaft, in Kafka's file formats).
//!
//! Map:
//! - [`image`]: [`image::MetadataImage`] (brokers, topics and partitions, dynamic configs,
//!   features, the producer id block, users' SCRAM credentials, ACLs, as of one offset) and [`image::MetadataDelta`], the only way
//!   to a new image: records replayed in log order. Loading after a restart, or from a snapshot,
//!   is the same replay. `image/effective_config.rs`: [`image::TopicConfigResolver`], the one
//!   place a topic's effective configs are layered (the topic's, this broker's dynamic config,
//!   the cluster-wide dynamic default, `server.properties` handed in as plain data, Kafka's
//!   default, each with the source DescribeConfigs reports); the replica's log settings,
//!   Produce's rules, DescribeConfigs, CreateTopics' answer and unclean elections all read it.
//!   `image/topic_configs.rs`: Kafka 4.4's topic config table and validation.
//! - [`authorizer`]: Kafka's `StandardAuthorizer` decision over the image's ACLs (`super.users`,
//!   `allow.everyone.if.no.acl.found`, LITERAL / PREFIXED / `*` patterns, DENY first, operation
//!   implications, `authorizeByResourceType`), and `AclFilter` for Describe/DeleteAcls.
//! - [`controller`]: the decisions, each `(image, request, inputs) -> (records, response)` reading
//!   no clock or randomness: topics, partitions, configs, producer id blocks, broker registration
//!   and heartbeats (fencing, unfencing, controlled shutdown, unregistration, KIP-858's offline
//!   log dirs and AssignReplicasToDirs), AlterPartition (KIP-841), ElectLeaders and preferred or
//!   unclean moves, reassignment (KIP-455), users' SCRAM credentials (KIP-554), all leader and ISR
//!   moves through `partition_change/` (Kafka's `PartitionChangeBuilder`, with eligible leader
//!   replicas, KIP-966, while `eligible.leader.replicas.version` is 1); striped placement over racks; `screening.rs`, how a
//!   request whose size the client picks is decided mostly off the controller's lock.
//! - [`quorum_controller`]: [`quorum_controller::QuorumController`], the active controller (on
//!   every node with the controller role; only the quorum's leader answers). Requests are decided
//!   one at a time on an image that covers the whole log, committed through the quorum, and
//!   answered once replayed. Client admin requests are first decided off the lock on the image at
//!   hand: what writes nothing is answered at once, and only the entries answered NONE are
//!   decided again under the lock, if the image moved. A decision writes at most
//!   [`controller::RECORDS_PER_REQUEST_MAX`] (10,000) records, else it is refused whole with
//!   POLICY_VIOLATION; large decisions run one at a time; a CreateTopics of more than 500 records
//!   is committed in chunks of whole topics, the lock released between them. The lock's hold time
//!   and each commit's and replay's are logged at debug level. It also bootstraps an empty log
//!   and keeps brokers' heartbeat sessions (soft state, fencing when they lapse).
//! - [`quorum`]: [`quorum::Quorum`], openraft over a [`quorum::QuorumTransport`] (one voter, or
//!   the voters of `controller.quorum.voters`; the server carries RPCs over CONTROLLER listeners),
//!   storing `__cluster_metadata-0` with `strand_log::Log`, snapshots as Kafka's `.checkpoint`
//!   files, the bootstrap records `strand storage format` chose in `bootstrap.checkpoint`, and observers (`process.roles=broker`) following the committed log without voting.
//!   Every RPC from the network passes `admission.rs` first (a configured voter, terms that fit an
//!   `i32` epoch, entries and snapshots this voter can apply); a refused one closes its connection
//!   with one WARN line. This is not authentication: a sender claiming a voter's id can still
//!   disturb elections. openraft stops on any storage error, so a failed write or sync of the
//!   log, `quorum-state` or a snapshot is fatal to the voter: its directory goes offline, one
//!   ERROR names it, and `Quorum::failed` resolves for the node to stop on (Kafka halts too).
//!   openraft's own log lines are off in `strand server`'s default filter
//!   (`RUST_LOG=openraft=...` brings them back); Strand logs elections, leaders and a stopped Raft
//!   core itself. Not yet: an observer's copy of the log on disk, and
//!   `metadata.max.retention.{bytes,ms}` (openraft purges by entry count after each snapshot,
//!   keeping 1,000 entries for followers a little behind).
//!
//! With feature `testkit` (tests only), `testkit`: the tests' cluster id, broker registrations
//! and their acceptance, images after committed batches, shared by the metadata, replication and
//! broker tests.
//!
//! What it is not: it opens no sockets (the server hands it a transport and a fetcher); it hosts
//! no partitions (the server reconciles the image into replicas and coordinators), and neither
//! `replication` nor `coordinator` depends on it.

pub mod authorizer;
pub mod controller;
pub mod image;
pub mod quorum;
pub mod quorum_controller;
#[cfg(feature = "testkit")]
pub mod testkit;
