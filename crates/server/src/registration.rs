//! Registering this broker with the active controller: its listeners, features, log dirs, rack
//! (`broker.rack`) and a fresh incarnation id (Kafka's `BrokerLifecycleManager` registration), and the bootstrap
//! records a new cluster starts with; registering this controller (KIP-919, Kafka's
//! `ControllerRegistrationManager`): its CONTROLLER listeners and supported features.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use strand_base::{BrokerId, Uuid};
use strand_broker::{ControllerChannel, call_controller};
use strand_metadata::controller::{ApiMessageAndVersion, METADATA_VERSION_CONTROLLER_REGISTRATION};
use strand_metadata::image::{METADATA_VERSION, MetadataImage, SUPPORTED_FEATURES};
use strand_protocol::codec::Message;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::broker_registration_request::{Feature, Listener};
use strand_protocol::messages::controller_registration_request::{
    Feature as ControllerFeature, Listener as ControllerListener,
};
use strand_protocol::messages::{BrokerRegistrationRequest, ControllerRegistrationRequest};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tracing::info;

use crate::config::ServerConfig;
use crate::node::NodeError;

/// The cluster-level `min.insync.replicas` a Kafka 4.4 cluster is formatted with (KIP-966 needs one
/// cluster-wide value), from the static setting, so tools show it as Kafka's do.
pub(crate) fn cluster_min_isr(config: &ServerConfig) -> ApiMessageAndVersion {
    ApiMessageAndVersion::latest(strand_protocol::messages::records::MetadataRecord::ConfigRecord(
        strand_protocol::messages::ConfigRecord {
            resource_type: strand_metadata::image::ConfigResourceKind::Broker.wire(),
            resource_name: String::new(),
            name: "min.insync.replicas".into(),
            value: Some(config.min_insync_replicas.to_string()),
            ..Default::default()
        },
    ))
}

/// Registers this broker with the active controller, retrying while no controller answers or an
/// earlier incarnation's session is still live (DUPLICATE_BROKER_REGISTRATION, after a quick
/// restart). The broker epoch the controller gave.
pub(crate) async fn register(
    config: &ServerConfig,
    channel: &dyn ControllerChannel,
    bound: &[(String, SocketAddr, TcpListener)],
    log_dirs: Vec<Uuid>,
    previous_broker_epoch: i64,
) -> Result<i64, NodeError> {
    let listeners = config
        .advertised_broker_listeners()
        .map(|endpoint| {
            let bound_port =
                bound.iter().find(|(name, _, _)| *name == endpoint.listener_name).map(|(_, a, _)| a.port());
            Listener {
                name: endpoint.listener_name.clone(),
                host: if endpoint.host.is_empty() { "localhost".into() } else { endpoint.host.clone() },
                port: if endpoint.port == 0 { bound_port.unwrap_or(0) } else { endpoint.port },
                security_protocol: endpoint.security_protocol.id(),
                ..Default::default()
            }
        })
        .collect();
    let request = BrokerRegistrationRequest {
        broker_id: BrokerId(config.node_id),
        cluster_id: config.cluster_id.clone().unwrap_or_default(),
        incarnation_id: incarnation_id(),
        listeners,
        features: SUPPORTED_FEATURES
            .iter()
            .map(|&(name, min, max)| Feature {
                name: name.into(),
                min_supported_version: min,
                max_supported_version: max,
                ..Default::default()
            })
            .collect(),
        log_dirs,
        rack: config.broker_rack.clone(),
        previous_broker_epoch,
        ..Default::default()
    };
    let version = <BrokerRegistrationRequest as Message>::VERSIONS.max;
    let retry = Duration::from_millis(config.broker_heartbeat_interval_ms.max(1) as u64);
    loop {
        match call_controller(channel, &request, version).await {
            Ok((response, _)) if response.error_code == 0 => return Ok(response.broker_epoch),
            Ok((response, _)) if response.error_code == ErrorCode::DuplicateBrokerRegistration.code() => {
                info!("an earlier incarnation of broker {} is still registered; retrying", config.node_id);
            }
            Ok((response, _)) => {
                return Err(NodeError::Startup(format!(
                    "broker registration failed with error {}",
                    response.error_code
                )));
            }
            Err(e) => info!("registration: {e}; retrying"),
        }
        tokio::time::sleep(retry).await;
    }
}

/// Each log dir with the directory id `strand storage format` (or the first start) wrote into
/// its `meta.properties`; `None` for a dir that cannot be read (it is offline from the start).
/// A readable dir without an id was never formatted: the start is refused.
pub(crate) fn log_dir_ids(config: &ServerConfig) -> Result<Vec<(std::path::PathBuf, Option<Uuid>)>, NodeError> {
    let mut ids = Vec::new();
    for dir in &config.log_dirs {
        let id = match strand_log::dir::MetaProperties::read(dir) {
            Ok(meta) => match meta.and_then(|m| m.directory_id) {
                Some(id) => Some(id),
                None => {
                    return Err(NodeError::Startup(format!("{} is not formatted (no directory.id)", dir.display())));
                }
            },
            Err(_) => None,
        };
        ids.push((dir.clone(), id));
    }
    Ok(ids)
}

/// The broker epoch the last clean shutdown wrote in every log dir's clean-shutdown marker, or
/// -1 if a dir is offline, lacks the marker (a crash) or holds another epoch (Kafka's
/// `LogManager.readBrokerEpochFromCleanShutdownFiles`). The controller takes a registration
/// whose epoch is not the one it last registered as an unclean shutdown, which with eligible
/// leader replicas (KIP-966) removes the broker from every ELR. Read before the logs are opened,
/// which consumes the markers.
pub(crate) fn previous_broker_epoch(dirs: &[(std::path::PathBuf, Option<Uuid>)]) -> i64 {
    let mut epoch = None;
    for (path, id) in dirs {
        let read = id.and_then(|_| strand_log::dir::read_clean_shutdown(path).ok().flatten());
        match (read, epoch) {
            (None, _) => return -1,
            (Some(e), Some(previous)) if e != previous => return -1,
            (Some(e), _) => epoch = Some(e),
        }
    }
    epoch.unwrap_or(-1)
}

pub(crate) fn incarnation_id() -> Uuid {
    strand_broker::handlers::create_topics::random_topic_id()
}

/// The first wait after a failed controller registration, doubled up to
/// [`CONTROLLER_REGISTRATION_BACKOFF_MAX`].
const CONTROLLER_REGISTRATION_BACKOFF_MIN: Duration = Duration::from_millis(100);
const CONTROLLER_REGISTRATION_BACKOFF_MAX: Duration = Duration::from_secs(5);

/// This controller's registration (KIP-919, Kafka's `ControllerRegistrationManager`): its
/// CONTROLLER listeners (the bound port where the configured one is 0) and supported features.
pub(crate) fn controller_registration(
    config: &ServerConfig,
    bound: Option<SocketAddr>,
) -> ControllerRegistrationRequest {
    let listeners = config.controller_listeners().map(|endpoint| ControllerListener {
        name: endpoint.listener_name.clone(),
        host: if endpoint.host.is_empty() { "localhost".into() } else { endpoint.host.clone() },
        port: match (endpoint.port, bound) {
            (0, Some(address)) => address.port(),
            (port, _) => port,
        },
        security_protocol: endpoint.security_protocol.id(),
        ..Default::default()
    });
    let features = SUPPORTED_FEATURES.iter().map(|&(name, min, max)| ControllerFeature {
        name: name.into(),
        min_supported_version: min,
        max_supported_version: max,
        ..Default::default()
    });
    ControllerRegistrationRequest {
        controller_id: config.node_id,
        incarnation_id: incarnation_id(),
        zk_migration_ready: false,
        listeners: listeners.collect(),
        features: features.collect(),
        ..Default::default()
    }
}

/// Keeps `request` registered with the active controller: sent once `metadata.version` has
/// controller registrations, and again whenever `image` stops holding this incarnation's
/// registration; a failure is retried with a growing backoff. Runs until the image stops.
pub(crate) async fn register_controller_forever(
    request: ControllerRegistrationRequest,
    channel: Arc<dyn ControllerChannel>,
    mut image: watch::Receiver<Arc<MetadataImage>>,
) {
    let mut backoff = CONTROLLER_REGISTRATION_BACKOFF_MIN;
    loop {
        let current = image.borrow_and_update().clone();
        let registration = current.cluster().controller(request.controller_id);
        let registered = registration.is_some_and(|r| r.incarnation_id == request.incarnation_id);
        let supported = current.features().level(METADATA_VERSION) >= METADATA_VERSION_CONTROLLER_REGISTRATION;
        if registered || !supported {
            if image.changed().await.is_err() {
                return;
            }
            continue;
        }
        match call_controller(channel.as_ref(), &request, 0).await {
            Ok((response, offset)) if response.error_code == 0 => {
                info!("controller {} registered", request.controller_id);
                backoff = CONTROLLER_REGISTRATION_BACKOFF_MIN;
                if image.wait_for(|i| i.provenance().offset >= offset).await.is_err() {
                    return;
                }
                continue;
            }
            Ok((response, _)) => {
                let message = response.error_message.unwrap_or_default();
                info!("controller registration refused ({}: {message}); retrying", response.error_code);
            }
            Err(reason) => info!("controller registration: {reason}; retrying"),
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(CONTROLLER_REGISTRATION_BACKOFF_MAX);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The previous broker epoch is the one every online dir's marker holds; a dir without a
    /// marker (a crash), offline (no id) or with another epoch makes it -1.
    #[test]
    fn previous_broker_epoch_needs_every_dir_clean_alike() {
        let dirs: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().expect("temp dir")).collect();
        let online = |i: usize| (dirs[i].path().to_path_buf(), Some(Uuid([7; 16])));
        let check = |list: &[(std::path::PathBuf, Option<Uuid>)], expected: i64| {
            assert_eq!(previous_broker_epoch(list), expected, "{list:?}");
        };
        check(&[online(0), online(1)], -1);
        strand_log::dir::write_clean_shutdown(dirs[0].path(), 42).expect("marker");
        check(&[online(0)], 42);
        check(&[online(0), online(1)], -1);
        strand_log::dir::write_clean_shutdown(dirs[1].path(), 41).expect("marker");
        check(&[online(0), online(1)], -1);
        strand_log::dir::write_clean_shutdown(dirs[1].path(), 42).expect("marker");
        check(&[online(0), online(1)], 42);
        check(&[online(0), (dirs[1].path().to_path_buf(), None)], -1);
        check(&[], -1);
    }
}
