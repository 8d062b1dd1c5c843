//! The process shell: everything that touches the network, the system clock and the process's
//! life, wiring the pure crates below into one running node.
//!
//! Map:
//! - [`config`]: `server.properties` with Kafka's names, defaults, fallbacks and rules, plus
//!   `--override`s and the embedded one-node defaults; every key's value and source for
//!   DescribeConfigs. `config/security.rs` refuses at start-up the TLS, SASL and authorization
//!   settings Strand does not implement; `config/topic_defaults.rs` hands the static topic
//!   defaults to `strand_metadata::image::TopicConfigResolver` as plain data;
//!   `config/broker_settings.rs` makes the handlers' `BrokerSettings`.
//! - [`connection`]: one client connection (a reader handling requests one at a time in arrival
//!   order, a writer answering them in that order while an acks=all Produce waits in its queue;
//!   size limits, the idle and request-arrival clocks, record sets sent with `sendfile`), and
//!   `connection/`: the broker listeners' accept loops (`acceptor.rs`), Kafka's
//!   `ConnectionQuotas` (`quotas.rs`) and `MemoryPool` (`memory_pool.rs`).
//! - [`node`]: running a node: `run_until` reads as the start-up sequence below (each stage a
//!   method of `Starting`), signals, and the halts (every log dir offline, or the metadata log
//!   failed).
//! - `shutdown.rs`: the clean shut-down steps (controlled shutdown, logs marked clean once no
//!   request holds them, the quorum closed last).
//! - `tasks.rs`: the background loops, one function each, started and stopped through `Tasks`.
//! - `registration.rs`: this broker's registration with the active controller (listeners,
//!   features, log dirs, a fresh incarnation id) and the bootstrap records.
//! - [`metadata_replay`]: committed batches replayed into the raw image at once (the controller
//!   waits for it), then the newest raw image handed to the publisher on a blocking thread, then
//!   published to the handlers.
//! - [`publisher`]: the node's `Reconcile`, the broker crate's `BrokerMetadataPublisher` (what a
//!   new image means on this node: replicas, then coordinator leaderships) and the open-files
//!   warning.
//! - [`tls`]: each TLS listener's rustls acceptor and connector, from its `ssl.*` settings
//!   (`config/tls.rs`), and the principal a client certificate maps to.
//! - [`inter_node`]: node-to-node traffic. On the CONTROLLER listener, Strand-private frames
//!   (one API key, 32000, Kafka-framed so a stray Kafka client is refused, not misread): Raft RPCs
//!   (`TcpQuorumTransport`), brokers' requests to the active controller (`ControllerClient`,
//!   following leadership changes) and observers' metadata fetches. On brokers' inter-broker
//!   listener, Kafka requests: followers' Fetch v17 (`BrokerFetchTransport`), KIP-890 checks to
//!   transaction coordinators (`CoordinatorTxnVerifier`, AddPartitionsToTxn v5) and markers to
//!   leaders (`LeaderTxnMarkerSender`, WriteTxnMarkers); AlterPartition goes to the controller
//!   (`ControllerIsrChannel`). Every link runs over TLS and logs in with SASL as its listener
//!   asks (`LinkSecurity`). `PeerHealth` says when a peer is unreachable: one WARN once its
//!   calls failed for 2 s (30 s for one never reached; at once for a refused login), a reminder
//!   at most every 30 s, one INFO when it returns.
//! - [`log_dirs`]: KIP-858's `DirAssigner` (AssignReplicasToDirs for hosted replicas the image
//!   places in none of this broker's dirs, or in the dir a replica moved away from), the offline-dir watcher (every 100 ms: the partitions
//!   of a dir a failed sync took offline stop being served, its id goes into every heartbeat, and
//!   the node stops once every dir or the metadata log's dir is offline), and the open-files
//!   limit (the soft limit raised to the hard one; a WARN when the hosted partitions may need
//!   more, again only once they grew by a tenth).
//! - [`metrics`]: [`metrics::NodeGauges`], the gauges `/metrics` computes from the image and the
//!   controller when scraped (the HTTP listener is `strand-http`'s, started by the CLI);
//!   [`served::ServedBroker`], the node's handlers for its REST gateway.
//! - [`group_writer`]: the coordinators' `PartitionWriter` over the replica manager: appends as
//!   leader at the coordinator's epoch with `acks=all`, transactional batches verified first.
//!
//! A node's start-up: lock the log dirs (the CLI), bind the CONTROLLER listener with other voters,
//! open the quorum (or, on a broker-only node, observe the voters' committed log), replay into
//! images, start the controller (its first decision on an empty log commits the bootstrap
//! records), register with the active controller and heartbeat (every 10 ms until first
//! unfenced, then `broker.heartbeat.interval.ms`), wait to be unfenced, open the `LogManager`
//! (recovering after a crash; a dir dead at start-up is offline from the start and the node runs
//! on the others), host this node's partitions, accept connections. Publishing deletes the log
//! of every hosted partition the image no longer assigns here (a deleted topic, a replica a
//! reassignment moved, an earlier topic of the same name: another topic id), applies partition
//! states and brokers' standing, and tells the group and transaction coordinators which
//! partitions of `__consumer_offsets` and `__transaction_state` this node now leads. While a dir
//! is offline, a replica not yet hosted is created only where the image places it in an online
//! dir, or when unassigned; otherwise it stays offline rather than being created empty elsewhere.
//!
//! Background loops (`tasks.rs`; the log-dir watcher and assigner in [`log_dirs`]): heartbeats,
//! ISR shrinking (every `replica.lag.time.max.ms / 2`), high-watermark checkpoints, retention
//! (`log.retention.check.interval.ms`), compaction of due compacted partitions
//! (`log.cleaner.backoff.ms`), producer-id expiration, and, on nodes with the controller role,
//! leadership logging, session expiry and preferred-leader moves (`auto.leader.rebalance.enable`);
//! for listeners validating OAUTHBEARER with a JWK set, its refresh ([`jwks`]).
//!
//! SIGTERM or SIGINT: controlled shutdown (heartbeats asking to stop until the controller moved
//! this broker's leaderships away), stop accepting, stop the fetchers, flush and close every log,
//! write the checkpoints and the clean-shutdown marker (online dirs only), close the quorum.
//!
//! What it is not: it holds no Kafka rule that a lower crate can hold as pure code (topic configs
//! are layered in `strand-metadata`, produce checks live in `strand-broker`); it parses no
//! command line (`strand-cli` does).

pub mod config;
pub mod connection;
pub mod group_writer;
pub mod inter_node;
pub mod jwks;
pub mod listen;
pub mod log_dirs;
pub mod metadata_replay;
pub mod metrics;
pub mod node;
pub mod publisher;
mod registration;
pub mod served;
mod shutdown;
mod tasks;
pub mod tls;
