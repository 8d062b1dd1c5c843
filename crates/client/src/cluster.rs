//! [`Client`]: the cluster as Kafka's clients see it. It bootstraps from `bootstrap.servers` (the
//! first address that answers), learns the brokers, the controller id and partitions' leaders
//! from Metadata, keeps one [`Connection`] per node, and routes a call to any node, to a given
//! node, to the controller (`Metadata.controller_id`, which on KRaft brokers forwards) or to a
//! partition's leader. With `bootstrap.controllers` instead (KIP-919) its nodes are the
//! controllers, learnt from DescribeCluster (endpoint type controller), and the controller is
//! the active one.
//!
//! Retries: [`Client::retrying`] runs an operation again after a retriable failure (a connection
//! lost, a retriable error code) with exponential backoff from `retry.backoff.ms` to
//! `retry.backoff.max.ms`, refreshing Metadata in between, until `default.api.timeout.ms` has
//! passed; then the last failure is returned. A dropped connection is reopened on next use.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::metadata_request::MetadataRequestTopic;
use strand_protocol::messages::metadata_response::{MetadataResponse, MetadataResponseBroker};
use strand_protocol::messages::{DescribeClusterRequest, MetadataRequest};

use crate::config::ClientConfig;
use crate::{ClientError, Connection};

/// DescribeCluster's endpoint types (KIP-919).
pub const ENDPOINT_TYPE_BROKER: i8 = 1;
pub const ENDPOINT_TYPE_CONTROLLER: i8 = 2;

/// A node id and its address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub id: i32,
    pub host: String,
    pub port: i32,
    pub rack: Option<String>,
}

impl Node {
    pub fn address(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// A connection to a Kafka-compatible cluster.
#[derive(Debug)]
pub struct Client {
    config: Arc<ClientConfig>,
    /// Open connections by address.
    connections: tokio::sync::Mutex<HashMap<String, Arc<Connection>>>,
    /// What the last Metadata said.
    view: Mutex<View>,
}

#[derive(Debug, Default)]
struct View {
    nodes: Vec<Node>,
    controller_id: Option<i32>,
    cluster_id: Option<String>,
}

impl Client {
    /// Connects to the first bootstrap address that answers and learns the cluster's brokers.
    pub async fn connect(config: ClientConfig) -> Result<Client, ClientError> {
        if config.bootstrap_servers.is_empty() && config.bootstrap_controllers.is_empty() {
            return Err(ClientError::Config("No resolvable bootstrap urls given in bootstrap.servers".into()));
        }
        let client = Client {
            config: Arc::new(config),
            connections: tokio::sync::Mutex::new(HashMap::new()),
            view: Mutex::new(View::default()),
        };
        client.retrying("bootstrap", || async { client.refresh_metadata(None).await.map(|_| ()) }).await?;
        Ok(client)
    }

    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// The brokers the last Metadata listed.
    pub fn nodes(&self) -> Vec<Node> {
        self.view().nodes.clone()
    }

    pub fn cluster_id(&self) -> Option<String> {
        self.view().cluster_id.clone()
    }

    fn view(&self) -> std::sync::MutexGuard<'_, View> {
        self.view.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether this client talks to the controllers (`bootstrap.controllers`).
    pub fn to_controllers(&self) -> bool {
        !self.config.bootstrap_controllers.is_empty()
    }

    /// Sends Metadata for `topics` (`None`: every topic; `Some(&[])`: none) to any node and
    /// updates the brokers and the controller from its answer. Talking to the controllers, it
    /// asks DescribeCluster for them instead and answers as a Metadata without topics would.
    pub async fn refresh_metadata(&self, topics: Option<&[String]>) -> Result<MetadataResponse, ClientError> {
        if self.to_controllers() {
            return self.refresh_controllers().await;
        }
        let request = RequestBody::Metadata(MetadataRequest {
            topics: topics.map(|names| {
                names
                    .iter()
                    .map(|name| MetadataRequestTopic { name: Some(name.clone()), ..Default::default() })
                    .collect()
            }),
            allow_auto_topic_creation: false,
            ..MetadataRequest::default()
        });
        let ResponseBody::Metadata(response) = self.call_any(&request).await? else {
            return Err(ClientError::Config("not a Metadata response".into()));
        };
        let mut view = self.view();
        view.nodes = response
            .brokers
            .iter()
            .map(|b| Node { id: b.node_id.0, host: b.host.clone(), port: b.port, rack: b.rack.clone() })
            .collect();
        view.controller_id = (response.controller_id.0 >= 0).then_some(response.controller_id.0);
        view.cluster_id = response.cluster_id.clone();
        Ok(response)
    }

    /// The controllers from DescribeCluster (endpoint type controller, KIP-919).
    async fn refresh_controllers(&self) -> Result<MetadataResponse, ClientError> {
        let request = RequestBody::DescribeCluster(DescribeClusterRequest {
            endpoint_type: ENDPOINT_TYPE_CONTROLLER,
            ..Default::default()
        });
        let ResponseBody::DescribeCluster(response) = self.call_any(&request).await? else {
            return Err(ClientError::Config("not a DescribeCluster response".into()));
        };
        if let Some(error) = ClientError::from_response(response.error_code, response.error_message.as_deref()) {
            return Err(error);
        }
        let mut view = self.view();
        view.nodes = response
            .brokers
            .iter()
            .map(|b| Node { id: b.broker_id.0, host: b.host.clone(), port: b.port, rack: b.rack.clone() })
            .collect();
        view.controller_id = (response.controller_id.0 >= 0).then_some(response.controller_id.0);
        view.cluster_id = Some(response.cluster_id.clone());
        Ok(MetadataResponse {
            brokers: response
                .brokers
                .into_iter()
                .map(|b| MetadataResponseBroker {
                    node_id: b.broker_id,
                    host: b.host,
                    port: b.port,
                    rack: b.rack,
                    ..Default::default()
                })
                .collect(),
            cluster_id: Some(response.cluster_id),
            controller_id: response.controller_id,
            ..Default::default()
        })
    }

    /// Sends `body` to any node: a known broker, else a bootstrap address.
    pub async fn call_any(&self, body: &RequestBody) -> Result<ResponseBody, ClientError> {
        self.any_connection().await?.call(body).await
    }

    /// A connection to any node: one already open, else the first that answers.
    pub async fn any_connection(&self) -> Result<Arc<Connection>, ClientError> {
        if let Some(open) = self.connections.lock().await.values().next() {
            return Ok(open.clone());
        }
        let mut candidates: Vec<String> = self.nodes().iter().map(Node::address).collect();
        candidates.extend(self.config.bootstrap_servers.iter().chain(&self.config.bootstrap_controllers).cloned());
        let mut last = None;
        for address in candidates {
            match self.connection(&address).await {
                Ok(connection) => return Ok(connection),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| ClientError::Config("no address to connect to".into())))
    }

    /// Sends `body` to node `id`.
    pub async fn call_node(&self, id: i32, body: &RequestBody) -> Result<ResponseBody, ClientError> {
        self.node_connection(id).await?.call(body).await
    }

    /// A connection to node `id`.
    pub async fn node_connection(&self, id: i32) -> Result<Arc<Connection>, ClientError> {
        let address = self.nodes().into_iter().find(|n| n.id == id).map(|n| n.address());
        let address = address.ok_or_else(|| ClientError::Server {
            code: strand_protocol::error::ErrorCode::LeaderNotAvailable.code(),
            message: format!("node {id} is not in the cluster's metadata"),
        })?;
        self.connection(&address).await
    }

    /// Sends `body` to the controller Metadata names (a broker that forwards, on KRaft), or any
    /// node when it names none.
    pub async fn call_controller(&self, body: &RequestBody) -> Result<ResponseBody, ClientError> {
        self.controller_connection().await?.call(body).await
    }

    /// A connection to the controller Metadata names, or to any node when it names none.
    pub async fn controller_connection(&self) -> Result<Arc<Connection>, ClientError> {
        let controller = self.view().controller_id;
        match controller {
            Some(id) => self.node_connection(id).await,
            None => self.any_connection().await,
        }
    }

    /// The open connection to `address`, or a new one.
    async fn connection(&self, address: &str) -> Result<Arc<Connection>, ClientError> {
        let mut connections = self.connections.lock().await;
        if let Some(open) = connections.get(address) {
            return Ok(open.clone());
        }
        let opened = Arc::new(Connection::open(address, &self.config).await?);
        connections.insert(address.to_owned(), opened.clone());
        Ok(opened)
    }

    /// Forgets every connection (a failed one is reopened on next use).
    async fn drop_connections(&self) {
        self.connections.lock().await.clear();
    }

    /// Runs `operation` until it succeeds, fails for good, or `default.api.timeout.ms` passes;
    /// `what` names it in the timeout's message.
    pub async fn retrying<T, F, Fut>(&self, what: &str, mut operation: F) -> Result<T, ClientError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, ClientError>>,
    {
        let deadline = tokio::time::Instant::now() + self.config.api_timeout;
        let mut backoff = self.config.retry_backoff;
        loop {
            let failure = match tokio::time::timeout_at(deadline, operation()).await {
                Ok(Ok(value)) => return Ok(value),
                Ok(Err(e)) if !e.is_retriable() => return Err(e),
                Ok(Err(e)) => e,
                Err(_) => return Err(ClientError::Timeout(what.to_owned())),
            };
            tracing::debug!("{what}: retrying after {failure}");
            if matches!(failure, ClientError::Connect { .. } | ClientError::Io { .. }) {
                self.drop_connections().await;
            }
            if tokio::time::Instant::now() + backoff >= deadline {
                return Err(failure);
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(self.config.retry_backoff_max);
            // A leader or controller may have moved: learn where, unless that is what fails.
            if let Err(e) = self.refresh_metadata(Some(&[])).await {
                tracing::debug!("{what}: metadata refresh failed: {e}");
            }
        }
    }
}
