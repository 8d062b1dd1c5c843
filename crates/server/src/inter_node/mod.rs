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
//! - `auto_join`: [`join_forever`], `controller.quorum.auto.join.enable`.
//! - `voter_update`: [`update_voter_forever`], a static voter telling each leader about itself.
//! - `controllers`: [`ControllerAddresses`], the controllers' CONTROLLER listeners by node id.
//! - `replica`: replication's links: followers' Fetch to leaders ([`BrokerFetchTransport`]) and
//!   leaders' AlterPartition to the controller ([`ControllerIsrChannel`]).
//! - `txn`: [`CoordinatorTxnVerifier`], leaders' KIP-890 checks with transaction coordinators, and
//!   [`LeaderTxnMarkerSender`], coordinators' transaction markers to partition leaders.
//! - `share`: [`CoordinatorSharePersister`], leaders' share-partition state at share coordinators.
//! - `dead_letter`: [`ProduceDeadLetterWriter`], share groups' dead-letter records (KIP-1191).
//! - `observer`: [`VoterMetadataFetcher`], a broker-only node's fetches of the committed metadata log.
//! - `listener`: serving the CONTROLLER listener, Kafka's admin requests too
//!   (`strand_broker::controller_apis`).
//! - `login`: this node logging in on a SASL link.
//! - [`LinkSecurity`]: the TLS and SASL login of every link above, from its listener's protocol.

mod auto_join;
mod brokers;
mod client;
mod controller;
mod controllers;
mod dead_letter;
mod listener;
mod login;
mod observer;
mod peers;
mod raft;
mod replica;
mod share;
mod txn;
mod voter_update;
mod wire;

pub use auto_join::{JoiningController, join_forever};
pub use controller::ControllerClient;
pub use controllers::{ControllerAddresses, follow_controller_registrations};
pub use dead_letter::ProduceDeadLetterWriter;
pub use listener::{ControllerAccess, serve_controller_listener};
pub use observer::VoterMetadataFetcher;
pub use peers::{PeerHealth, follow_registrations};
pub use raft::TcpQuorumTransport;
pub use replica::{BrokerFetchTransport, ControllerIsrChannel};
pub use share::CoordinatorSharePersister;
pub use txn::{CoordinatorTxnVerifier, LeaderTxnMarkerSender};
pub use voter_update::update_voter_forever;

use std::sync::Arc;

use strand_security::KafkaPrincipal;

use crate::config::ServerConfig;
use crate::config::sasl::NodeLogin;
use crate::connection::authenticate::SaslListener;
use crate::tls::ListenerTls;

/// How this node reaches the peers of one listener: over TLS when it is SSL or SASL_SSL, and
/// logging in when it is SASL.
#[derive(Debug, Clone, Default)]
pub struct Link {
    pub tls: Option<ListenerTls>,
    pub login: Option<NodeLogin>,
}

/// This node's own links: to the controllers' CONTROLLER listener (Raft, controller requests,
/// metadata fetches) and to other brokers' inter-broker listener (replica fetches, transaction
/// checks and markers).
#[derive(Debug, Clone)]
pub struct LinkSecurity {
    pub controller: Link,
    pub inter_broker: Link,
}

impl LinkSecurity {
    pub fn from_config(config: &ServerConfig) -> Result<LinkSecurity, String> {
        let tls = |listener: Option<&String>| {
            let settings = listener.and_then(|name| config.tls.get(name));
            settings.map(ListenerTls::build).transpose()
        };
        Ok(LinkSecurity {
            controller: Link {
                tls: tls(config.controller_listener_names.first())?,
                login: config.controller_login().map_err(|e| e.to_string())?,
            },
            inter_broker: Link {
                tls: tls(Some(&config.inter_broker_listener_name))?,
                login: config.inter_broker_login().map_err(|e| e.to_string())?,
            },
        })
    }

    /// Who may reach this node's CONTROLLER listener (see `inter_node::listener`): its TLS, its
    /// SASL exchange when it is SASL (PLAIN only, see `config::sasl`), and `super.users`.
    pub fn controller_access(&self, config: &ServerConfig) -> Result<ControllerAccess, String> {
        let super_users = config.get("super.users").and_then(|entry| entry.value.clone()).unwrap_or_default();
        let sasl = match config.controller_sasl_listener() {
            Some(listener) => {
                let factory = listener.factory_without_credentials().map_err(|e| e.to_string())?;
                Some(Arc::new(SaslListener {
                    mechanisms: factory.enabled_names().into_iter().map(str::to_owned).collect(),
                    new_server: Arc::new(move |mechanism| factory.create(mechanism).ok()),
                    reauth_max: listener.reauth_max.clone(),
                    failed_delay: listener.failed_delay,
                    receive_bytes_max: listener.receive_bytes_max,
                }))
            }
            None => None,
        };
        let listener_name = config.controller_listener_names.first().cloned().unwrap_or_default();
        let protocol = config.listener_security_protocol_map.get(&listener_name).copied();
        Ok(ControllerAccess {
            tls: self.controller.tls.clone(),
            sasl,
            authorizer: None,
            super_users: super_users.split(';').filter_map(KafkaPrincipal::parse).collect(),
            protocol: protocol.unwrap_or(strand_security::SecurityProtocol::Plaintext),
            listener_name,
        })
    }
}
