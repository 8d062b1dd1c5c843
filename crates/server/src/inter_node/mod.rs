//! Node-to-node traffic on the CONTROLLER listener: the Raft quorum's RPCs and brokers'
//! requests to the active controller, as Strand-private frames (`wire`).
//!
//! - `wire`: the frames.
//! - `client`: connections to peers, one per address and purpose.
//! - `raft`: [`TcpQuorumTransport`], the metadata quorum's transport.
//! - `controller`: [`ControllerClient`], the broker's way to the active controller.
//! - `replica`: replication's links: followers' Fetch to leaders ([`BrokerFetchTransport`]) and
//!   leaders' AlterPartition to the controller ([`ControllerIsrChannel`]).
//! - `listener`: serving the CONTROLLER listener.

mod client;
mod controller;
mod listener;
mod raft;
mod replica;
mod wire;

pub use controller::ControllerClient;
pub use listener::serve_controller_listener;
pub use raft::TcpQuorumTransport;
pub use replica::{BrokerFetchTransport, ControllerIsrChannel};
