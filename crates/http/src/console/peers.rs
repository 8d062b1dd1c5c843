//! Calls to another node: a partition's leader or a group's coordinator elsewhere. The console
//! connects to that node's listener of the same name as the one its own caller uses (the
//! addresses a Metadata request through this node lists), as `User:ANONYMOUS` again, so the other
//! node applies its ACLs to the same principal; one connection per node, kept for the next
//! request, opened again after a failure.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use strand_client::ClientConfig;
use strand_client::connection::Connection;
use strand_protocol::messages::MetadataRequest;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use tokio::sync::Mutex;

use super::View;
use crate::gateway::RestError;

/// The most nodes the console keeps a connection to; past it the kept ones are closed.
pub const PEER_CONNECTIONS_MAX: usize = 32;

/// The client id of the console's connections to other nodes.
pub const CONSOLE_CLIENT_ID: &str = "strand-console";

/// How long connecting to another node may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The console's connections, by node id.
#[derive(Default)]
pub struct Peers {
    connections: Mutex<HashMap<i32, Arc<Connection>>>,
}

impl Peers {
    /// Sends `body` at `version` to node `node` and returns its answer. A failed connection is
    /// dropped (the next call opens another) and the call fails with 503.
    pub async fn call(
        &self,
        view: &View,
        node: i32,
        body: RequestBody,
        version: i16,
    ) -> Result<ResponseBody, RestError> {
        let connection = self.connection(view, node).await?;
        match connection.call_at(&body, version).await {
            Ok(answer) => Ok(answer),
            Err(e) => {
                self.connections.lock().await.remove(&node);
                Err(unreachable(node, &e.to_string()))
            }
        }
    }

    async fn connection(&self, view: &View, node: i32) -> Result<Arc<Connection>, RestError> {
        if let Some(kept) = self.connections.lock().await.get(&node) {
            return Ok(kept.clone());
        }
        let request = MetadataRequest { topics: Some(Vec::new()), ..Default::default() };
        let metadata = match view.call(RequestBody::Metadata(request), 12).await? {
            ResponseBody::Metadata(metadata) => metadata,
            other => return Err(RestError::internal(format!("Metadata answered with {:?}", other.api_key()))),
        };
        let broker = metadata.brokers.iter().find(|b| b.node_id.0 == node);
        let broker = broker.ok_or_else(|| unreachable(node, "it is not a live broker"))?;
        let address = format!("{}:{}", broker.host, broker.port);
        let config = ClientConfig {
            client_id: CONSOLE_CLIENT_ID.to_owned(),
            connect_timeout: CONNECT_TIMEOUT,
            ..Default::default()
        };
        let opened =
            Arc::new(Connection::open(&address, &config).await.map_err(|e| unreachable(node, &e.to_string()))?);
        let mut connections = self.connections.lock().await;
        if connections.len() >= PEER_CONNECTIONS_MAX {
            connections.clear();
        }
        connections.insert(node, opened.clone());
        Ok(opened)
    }
}

fn unreachable(node: i32, reason: &str) -> RestError {
    RestError::new(axum::http::StatusCode::SERVICE_UNAVAILABLE, 50302, format!("Cannot reach node {node}: {reason}"))
}
