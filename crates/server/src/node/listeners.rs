//! Binding the node's listeners: the broker listeners of `listeners` and the CONTROLLER one.

use std::net::SocketAddr;

use tokio::net::TcpListener;

use super::NodeError;
use crate::config::ServerConfig;

/// Binds `host:port` (empty host: every address) with the node's socket settings.
async fn bind(config: &ServerConfig, host: &str, port: u16) -> Result<TcpListener, NodeError> {
    let host = if host.is_empty() { "0.0.0.0" } else { host };
    crate::listen::bind(host, port, crate::listen::SocketSettings::of(config))
        .await
        .map_err(|e| NodeError::Startup(format!("cannot listen on {host}:{port}: {e}")))
}

/// Binds this node's CONTROLLER listener (the first listener named in `controller.listener.names`).
pub(super) async fn bind_controller_listener(config: &ServerConfig) -> Result<(SocketAddr, TcpListener), NodeError> {
    let endpoint = config.controller_listeners().next().ok_or_else(|| {
        NodeError::Startup(
            "a node with other voters needs a listener named in controller.listener.names (e.g. \
             listeners=PLAINTEXT://:9092,CONTROLLER://:9093)"
                .into(),
        )
    })?;
    let listener = bind(config, &endpoint.host, endpoint.port).await?;
    Ok((listener.local_addr()?, listener))
}

/// Binds every listener of `listeners` but the CONTROLLER ones.
pub(super) async fn bind_listeners(config: &ServerConfig) -> Result<Vec<(String, SocketAddr, TcpListener)>, NodeError> {
    let mut bound = Vec::new();
    for endpoint in config.listeners.iter().filter(|l| !config.controller_listener_names.contains(&l.listener_name)) {
        let listener = bind(config, &endpoint.host, endpoint.port).await?;
        let address = listener.local_addr()?;
        bound.push((endpoint.listener_name.clone(), address, listener));
    }
    if bound.is_empty() {
        return Err(NodeError::Startup("no broker listener in `listeners`".into()));
    }
    Ok(bound)
}
