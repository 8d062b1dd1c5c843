//! Stopping a node cleanly: Kafka's controlled shutdown (the controller moves this broker's
//! leaderships away first), then the partition logs marked clean once no request holds them, then
//! the metadata quorum closed once nothing else holds it.

use std::sync::Arc;
use std::time::Duration;

use strand_base::BrokerId;
use strand_broker::{ControllerChannel, call_controller};
use strand_metadata::image::MetadataImage;
use strand_metadata::quorum::Quorum;
use strand_protocol::codec::Message;
use strand_protocol::messages::BrokerHeartbeatRequest;
use strand_replication::ReplicaManager;
use tokio::sync::watch;
use tracing::{info, warn};

use crate::node::NodeError;

/// Kafka's controlled shutdown: heartbeats that ask to shut down, until the controller has moved
/// this broker's leaderships to others and says it may stop (or `limit` passes: a lost quorum must
/// not keep a node from stopping). The controller then fences it, so a restart registers at once.
pub(crate) async fn controlled_shutdown(
    channel: &dyn ControllerChannel,
    image: &watch::Receiver<Arc<MetadataImage>>,
    broker_id: BrokerId,
    broker_epoch: i64,
    interval: Duration,
    limit: Duration,
) {
    let asking = async {
        loop {
            let request = BrokerHeartbeatRequest {
                broker_id,
                broker_epoch,
                current_metadata_offset: image.borrow().provenance().offset,
                want_shut_down: true,
                ..Default::default()
            };
            let version = <BrokerHeartbeatRequest as Message>::VERSIONS.max;
            match call_controller(channel, &request, version).await {
                Ok((response, _)) if response.error_code == 0 && response.should_shut_down => return,
                Ok((response, _)) if response.error_code != 0 => {
                    warn!("controlled shutdown: the controller answered error {}", response.error_code);
                    return;
                }
                Ok(_) => {}
                Err(e) => warn!("controlled shutdown: {e}"),
            }
            tokio::time::sleep(interval).await;
        }
    };
    match tokio::time::timeout(limit, asking).await {
        Ok(()) => info!("controlled shutdown complete: this broker leads nothing"),
        Err(_) => warn!("controlled shutdown did not complete within {} ms; stopping anyway", limit.as_millis()),
    }
}

pub(crate) async fn shut_down(
    replicas: Arc<ReplicaManager>,
    quorum: Option<Arc<Quorum>>,
    broker_epoch: i64,
) -> Result<(), NodeError> {
    // Connections still holding the replica manager finish their current request first.
    let replicas = wait_for_last_owner(replicas).await;
    if let Some(replicas) = replicas {
        replicas.shutdown(broker_epoch).map_err(|e| NodeError::Startup(e.to_string()))?;
    } else {
        warn!("requests still running at shutdown: partition logs are flushed but not marked clean");
    }
    shut_down_quorum(quorum).await
}

/// Stops this node's voter, if it has one, syncing its log.
pub(crate) async fn shut_down_quorum(quorum: Option<Arc<Quorum>>) -> Result<(), NodeError> {
    if let Some(quorum) = quorum
        && let Ok(quorum) = Arc::try_unwrap(quorum)
    {
        quorum.shutdown().await?;
    }
    info!("shut down cleanly");
    Ok(())
}

pub(crate) async fn wait_for_last_owner<T>(mut shared: Arc<T>) -> Option<T> {
    for _ in 0..100 {
        match Arc::try_unwrap(shared) {
            Ok(owned) => return Some(owned),
            Err(still_shared) => shared = still_shared,
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    None
}
