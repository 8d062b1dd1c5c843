//! Node-to-node traffic: on the CONTROLLER listener the Raft quorum's RPCs, brokers' requests to
//! the active controller and observers' metadata fetches, as Strand-private frames (`wire`); on
//! brokers' listeners followers' Kafka Fetch requests and leaders' transaction checks.
//!
//! - `wire`: the frames.
//! - `brokers`: other brokers' addresses on the inter-broker listener, from the image.
//! - `client`: connections to peers, one per address and purpose.
//! - `peers`: [`PeerHealth`], what the node says about peers it cannot reach (one WARN when one
//!   goes, a reminder every 30 s, one INFO when it returns); every client below reports to it.
//! - `raft`: [`TcpQuorumTransport`], the metadata quorum's transport.
//! - `controller`: [`ControllerClient`], the broker's way to the active controller.
//! - `replica`: replication's links: followers' Fetch to leaders ([`BrokerFetchTransport`]) and
//!   leaders' AlterPartition to the controller ([`ControllerIsrChannel`]).
//! - `txn`: [`CoordinatorTxnVerifier`], leaders' KIP-890 checks with transaction coordinators, and
//!   [`LeaderTxnMarkerSender`], coordinators' transaction markers to partition leaders.
//! - `observer`: [`VoterMetadataFetcher`], a broker-only node's fetches of the committed metadata log.
//! - `listener`: serving the CONTROLLER listener.

mod brokers;
mod client;
mod controller;
mod listener;
mod observer;
mod peers;
mod raft;
mod replica;
mod txn;
mod wire;

pub use controller::ControllerClient;
pub use listener::{ControllerAccess, serve_controller_listener};
pub use observer::VoterMetadataFetcher;
pub use peers::{PeerHealth, follow_registrations};
pub use raft::TcpQuorumTransport;
pub use replica::{BrokerFetchTransport, ControllerIsrChannel};
pub use txn::{CoordinatorTxnVerifier, LeaderTxnMarkerSender};
