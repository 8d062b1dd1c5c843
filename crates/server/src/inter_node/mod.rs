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
//! - [`LinkTls`]: the TLS of every link above whose listener is SSL.

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

use strand_security::KafkaPrincipal;

use crate::config::ServerConfig;
use crate::tls::ListenerTls;

/// The TLS of this node's own links, for the listeners that are SSL: the CONTROLLER listener
/// (Raft, controller requests, metadata fetches) and the inter-broker listener (replica fetches,
/// transaction checks and markers).
#[derive(Debug, Clone)]
pub struct LinkTls {
    pub controller: Option<ListenerTls>,
    pub inter_broker: Option<ListenerTls>,
}

impl LinkTls {
    pub fn from_config(config: &ServerConfig) -> Result<LinkTls, String> {
        let build = |listener: Option<&String>| {
            let settings = listener.and_then(|name| config.tls.get(name));
            settings.map(ListenerTls::build).transpose()
        };
        Ok(LinkTls {
            controller: build(config.controller_listener_names.first())?,
            inter_broker: build(Some(&config.inter_broker_listener_name))?,
        })
    }

    /// Who may reach this node's CONTROLLER listener (see `inter_node::listener`).
    pub fn controller_access(&self, config: &ServerConfig) -> ControllerAccess {
        let super_users = config.get("super.users").and_then(|entry| entry.value.clone()).unwrap_or_default();
        ControllerAccess {
            tls: self.controller.clone(),
            super_users: super_users.split(';').filter_map(KafkaPrincipal::parse).collect(),
        }
    }
}
