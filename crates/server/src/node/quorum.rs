//! Opening this node's voter of the metadata quorum, and where the controllers are.
//!
//! A static quorum (`controller.quorum.voters`, `kraft.version` 0) has fixed voters and
//! addresses, until `kafka-features upgrade --feature kraft.version=1` makes it dynamic (each
//! voter tells each leader about itself for it: `voter_update`); then the log's voter set rules
//! and controllers added later are found by their registrations. A dynamic one (KIP-853, `kraft.version` 1) is what `strand storage format
//! --standalone|--initial-controllers|--no-initial-controllers` wrote into `bootstrap.checkpoint`:
//! its initial voters (with directory ids and endpoints) become the first membership, and the
//! voter set in the log rules from then on; its controllers are found through
//! `controller.quorum.bootstrap.servers` and the controllers' registrations.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use strand_base::Clock;
use strand_base::topic::CLUSTER_METADATA_TOPIC;
use strand_metadata::quorum::{
    LoneVoterTransport, Quorum, QuorumConfig, QuorumTransport, QuorumVoters, SnapshotSettings,
};

use strand_metadata::quorum_controller::QuorumController;
use strand_protocol::messages::UpdateRaftVoterRequest;
use strand_protocol::messages::controller_registration_request::Listener as ControllerListener;
use strand_protocol::messages::update_raft_voter_request::{KRaftVersionFeature, Listener};

use super::NodeError;
use crate::config::ServerConfig;
use crate::inter_node::{ControllerAddresses, JoiningController, Link, PeerHealth, TcpQuorumTransport};

/// A dynamic quorum's initial voters, as `bootstrap.checkpoint` records them; `None` for a
/// static quorum (or a node without the file).
/// The controller with the node's authorizer settings and delegation-token settings, if set.
pub(super) fn configured(controller: QuorumController, config: &ServerConfig) -> QuorumController {
    let controller = match &config.authorizer {
        Some(settings) => controller.with_authorizer(settings.clone()),
        None => controller,
    };
    match config.delegation_tokens.clone() {
        Some(settings) => controller.with_delegation_tokens(settings),
        None => controller,
    }
}

pub(super) fn dynamic_voters(config: &ServerConfig) -> Result<Option<QuorumVoters>, NodeError> {
    let bootstrap = strand_metadata::quorum::read_bootstrap(&config.metadata_log_dir)?;
    Ok(bootstrap.and_then(|bootstrap| bootstrap.dynamic_voters))
}

/// Opens this node's voter of the metadata quorum: alone, with the voters of
/// `controller.quorum.voters`, or as a member of a dynamic quorum, reaching the others over
/// their CONTROLLER listeners.
pub(super) async fn open_quorum(
    config: &ServerConfig,
    cluster_id: &str,
    clock: Arc<dyn Clock>,
    peers: Arc<PeerHealth>,
    link: Link,
    controllers: ControllerAddresses,
) -> Result<Quorum, NodeError> {
    let metadata_dir = config.metadata_log_dir.join(format!("{CLUSTER_METADATA_TOPIC}-0"));
    let snapshots = SnapshotSettings {
        max_bytes_between: config.metadata_log_max_record_bytes_between_snapshots.max(1) as u64,
        interval_ms: config.metadata_log_max_snapshot_interval_ms.max(0) as u64,
        ..SnapshotSettings::default()
    };
    let connect_timeout = Duration::from_millis(config.controller_quorum_request_timeout_ms.max(1) as u64);
    let listener_name = config.controller_listener_names.first().cloned().unwrap_or_default();
    let timeouts = |quorum_config: QuorumConfig| QuorumConfig {
        election_timeout_ms: config.controller_quorum_election_timeout_ms.max(1) as u64,
        fetch_timeout_ms: config.controller_quorum_fetch_timeout_ms.max(1) as u64,
        snapshots,
        ..quorum_config
    };
    // Every voter's replica key (KIP-853): a static quorum's voters tell their leader, for its
    // `kraft.version` upgrade, and check it in RPCs once the upgrade has written it.
    let meta = strand_log::dir::MetaProperties::read(&config.metadata_log_dir).ok().flatten();
    let directory_id = meta.and_then(|meta| meta.directory_id).unwrap_or_default();
    let (quorum_config, transport): (QuorumConfig, Arc<dyn QuorumTransport>) = if let Some(voters) =
        dynamic_voters(config)?
    {
        let lone = QuorumConfig::lone_voter(config.node_id, cluster_id);
        let quorum_config = QuorumConfig { voters, dynamic: true, directory_id, ..lone };
        (timeouts(quorum_config), Arc::new(TcpQuorumTransport::new(controllers, connect_timeout, peers, link)))
    } else if config.is_sole_voter() {
        let mut lone = QuorumConfig { snapshots, directory_id, ..QuorumConfig::lone_voter(config.node_id, cluster_id) };
        if config.controller_listeners().next().is_some() && !config.controller_quorum_voters.is_empty() {
            // Its own CONTROLLER endpoint goes into the voter set, as Kafka's DescribeQuorum shows it.
            lone.voters = QuorumVoters::parse(&static_voters(config), &listener_name)?;
        }
        (lone, Arc::new(LoneVoterTransport))
    } else {
        let voters = QuorumVoters::parse(&static_voters(config), &listener_name)?;
        let quorum_config =
            QuorumConfig { voters, directory_id, ..QuorumConfig::lone_voter(config.node_id, cluster_id) };
        (timeouts(quorum_config), Arc::new(TcpQuorumTransport::new(controllers, connect_timeout, peers, link)))
    };
    Ok(Quorum::open(&metadata_dir, quorum_config, transport, clock).await?)
}

fn static_voters(config: &ServerConfig) -> String {
    config.controller_quorum_voters.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
}

/// Where the controllers' CONTROLLER listeners are known to be at start-up: the static voters;
/// or a dynamic quorum's initial voters and bootstrap servers (the registrations in the image
/// add the others, see `follow_controller_registrations`).
pub(super) fn controller_addresses(config: &ServerConfig) -> Result<ControllerAddresses, NodeError> {
    let mut addresses: BTreeMap<i32, String> =
        config.controller_quorum_voters.iter().map(|voter| (voter.id, voter.address.to_string())).collect();
    if addresses.is_empty() {
        for (index, server) in config.controller_quorum_bootstrap_servers.iter().enumerate() {
            addresses.insert(ControllerAddresses::bootstrap_id(index), server.to_string());
        }
        for voter in dynamic_voters(config)?.iter().flat_map(QuorumVoters::iter) {
            if let Some((host, port)) = voter.address {
                let host = if host.contains(':') { format!("[{host}]") } else { host };
                addresses.insert(voter.id, format!("{host}:{port}"));
            }
        }
    }
    Ok(ControllerAddresses::new(addresses))
}

/// The ids an observer asks for the committed log: the static voters, or a dynamic quorum's
/// bootstrap servers.
pub(super) fn observed_voters(config: &ServerConfig) -> Vec<i32> {
    if config.controller_quorum_voters.is_empty() {
        (0..config.controller_quorum_bootstrap_servers.len()).map(ControllerAddresses::bootstrap_id).collect()
    } else {
        config.controller_quorum_voters.iter().map(|v| v.id).collect()
    }
}

/// What this controller asks to join a dynamic quorum with (`controller.quorum.auto.join.enable`):
/// its id, its metadata log dir's directory id, its CONTROLLER listeners (as it registers them).
pub(super) fn joining(config: &ServerConfig, cluster_id: &str) -> JoiningController {
    let meta = strand_log::dir::MetaProperties::read(&config.metadata_log_dir).ok().flatten();
    let listeners = config.controller_listeners().map(|endpoint| {
        let host = if endpoint.host.is_empty() { "localhost".to_owned() } else { endpoint.host.clone() };
        (endpoint.listener_name.clone(), host, endpoint.port)
    });
    JoiningController {
        cluster_id: cluster_id.to_owned(),
        node_id: config.node_id,
        directory_id: meta.and_then(|meta| meta.directory_id).unwrap_or_default(),
        listeners: listeners.collect(),
        bootstrap_ids: (0..config.controller_quorum_bootstrap_servers.len())
            .map(ControllerAddresses::bootstrap_id)
            .collect(),
    }
}

/// What this voter of a static quorum tells each leader (UpdateRaftVoter, `inter_node::voter_update`):
/// its directory id, its CONTROLLER `listeners` (as it registers them; the one the voters use at the
/// address `controller.quorum.voters` gives it, which they reach it at today) and the
/// `kraft.version`s it supports. `None` in a dynamic quorum, or without a CONTROLLER listener.
pub(super) fn voter_update(
    config: &ServerConfig,
    cluster_id: &str,
    listeners: &[ControllerListener],
) -> Option<UpdateRaftVoterRequest> {
    if config.controller_quorum_voters.is_empty() || listeners.is_empty() {
        return None;
    }
    let meta = strand_log::dir::MetaProperties::read(&config.metadata_log_dir).ok().flatten();
    let own = config.controller_quorum_voters.iter().find(|voter| voter.id == config.node_id);
    let used = config.controller_listener_names.first();
    let listener = |l: &ControllerListener| {
        let (host, port) = match own {
            Some(voter) if used == Some(&l.name) => (voter.address.host.clone(), voter.address.port),
            _ => (l.host.clone(), l.port),
        };
        Listener { name: l.name.clone(), host, port, ..Listener::default() }
    };
    let (min, max) = strand_metadata::image::supported_range(strand_metadata::image::KRAFT_VERSION);
    Some(UpdateRaftVoterRequest {
        cluster_id: Some(cluster_id.to_owned()),
        current_leader_epoch: -1,
        voter_id: config.node_id,
        voter_directory_id: meta.and_then(|meta| meta.directory_id).unwrap_or_default(),
        listeners: listeners.iter().map(listener).collect(),
        kraft_version_feature: KRaftVersionFeature {
            min_supported_version: min,
            max_supported_version: max,
            ..KRaftVersionFeature::default()
        },
        ..UpdateRaftVoterRequest::default()
    })
}
