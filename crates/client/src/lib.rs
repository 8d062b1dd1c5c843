//! A small async Kafka client over `strand-protocol`: what the `strand` operator commands, the
//! benchmarks and tests use to talk to a cluster (Strand's or Kafka's). Layer 2: it depends on
//! `base`, `protocol` and `security` only, and is the one crate besides the server that opens
//! sockets.
//!
//! - [`config`]: [`ClientConfig`], Kafka's client properties (`bootstrap.servers`,
//!   `security.protocol`, `sasl.*`, `ssl.*`, timeouts and retries) read as Kafka's
//!   `--command-config` files are.
//! - [`connection`]: [`Connection`], one socket to one node (TCP or TLS), its SASL login and
//!   its ApiVersions negotiation; one request in flight at a time.
//! - [`cluster`]: [`Client`], the bootstrap, the Metadata that maps node ids to addresses and
//!   partitions to leaders, a connection per node, and retries of retriable failures with
//!   exponential backoff until `default.api.timeout.ms`.
//! - [`admin`]: [`Admin`], Kafka's `Admin` calls the tools need: list, describe, create and
//!   delete topics, create partitions, describe configs, the cluster and reassignments;
//!   [`admin_acls`]: creating, describing and deleting ACL bindings (`kafka-acls`);
//!   [`admin_cluster`]: endpoints, unregistering nodes and ApiVersions (`kafka-cluster`);
//!   [`admin_features`]: describing and updating feature levels (`kafka-features`);
//!   [`admin_quorum`]: describing the metadata quorum, removing voters (`kafka-metadata-quorum`);
//!   [`admin_reassign`]: starting and cancelling reassignments, replicas' log dirs
//!   (`kafka-reassign-partitions`);
//!   [`admin_transactions`]: listing, describing and aborting transactions (`kafka-transactions`);
//!   [`admin_configs`]: the config, client-quota and SCRAM-credential calls of `kafka-configs`;
//!   [`admin_groups`]: the group calls of `kafka-consumer-groups`; [`admin_offsets`]:
//!   `listOffsets` and `deleteRecords`, one request per leader ([`by_leader`]).
//! - [`producer`]: [`producer::Producer`], records to leaders with acks and Kafka's key
//!   partitioner (no idempotence, compression or linger yet).
//! - [`consumer`]: [`consumer::PartitionConsumer`], assigned partitions read from an offset
//!   (no group of its own); [`group`]: [`group::GroupMember`], a classic consumer group member
//!   (join, range assignment, heartbeat, commit, leave).
//! - `tls`: rustls client contexts from PEM or PKCS12 stores.
//!
//! What it is not (yet): no KIP-848 consumer group protocol, no pipelining, no OAUTHBEARER or GSSAPI.

pub mod admin;
pub mod admin_acls;
pub mod admin_cluster;
pub mod admin_configs;
pub mod admin_features;
pub mod admin_groups;
pub mod admin_offsets;
pub mod admin_quorum;
pub mod admin_reassign;
pub mod admin_transactions;
pub mod by_leader;
pub mod cluster;
pub mod config;
pub mod connection;
pub mod consumer;
mod error;
pub mod group;
pub mod producer;
mod tls;

pub use admin::Admin;
pub use cluster::Client;
pub use config::ClientConfig;
pub use connection::Connection;
pub use error::ClientError;
