//! Replication's links to the rest of the cluster: followers' Fetch requests to their leaders'
//! broker listeners (`inter.broker.listener.name`), and leaders' ISR changes to the active
//! controller (AlterPartition through the broker's controller channel).

use super::Link;
use std::sync::Arc;
use std::time::Duration;

use strand_base::BrokerId;
use strand_broker::{ControllerChannel, call_controller};
use strand_metadata::image::MetadataImage;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::{FetchRequest, FetchResponse};
use strand_replication::{
    AlterPartitionItem, BoxFuture, IsrChannel, LeaderAndIsr, REPLICA_FETCH_VERSION, ReplicaTransport, TransportError,
};
use tokio::sync::watch;

use super::brokers::BrokerDirectory;
use super::client::{CallError, NodeClient};
use super::peers::PeerHealth;

/// The AlterPartition version leaders send: v3 carries each ISR member's broker epoch (KIP-841).
const ALTER_PARTITION_VERSION: i16 = 3;

/// Follower fetches over TCP to the leader's inter-broker listener, found in the image.
#[derive(Debug)]
pub struct BrokerFetchTransport {
    brokers: BrokerDirectory,
    client: Arc<NodeClient>,
    peers: Arc<PeerHealth>,
    /// `replica.fetch.wait.max.ms` plus `replica.socket.timeout.ms`.
    timeout: Duration,
}

impl BrokerFetchTransport {
    pub fn new(
        image: watch::Receiver<Arc<MetadataImage>>,
        listener_name: String,
        connect_timeout: Duration,
        timeout: Duration,
        peers: Arc<PeerHealth>,
        link: Link,
    ) -> BrokerFetchTransport {
        let client = Arc::new(NodeClient::new(connect_timeout, strand_base::limits::SOCKET_REQUEST_BYTES_MAX, link));
        BrokerFetchTransport { brokers: BrokerDirectory::new(image, listener_name), client, peers, timeout }
    }
}

impl ReplicaTransport for BrokerFetchTransport {
    fn fetch(
        &self,
        leader: BrokerId,
        request: FetchRequest,
    ) -> BoxFuture<'static, Result<FetchResponse, TransportError>> {
        let address = self.brokers.address(leader);
        let (client, peers, timeout) = (self.client.clone(), self.peers.clone(), self.timeout);
        Box::pin(async move {
            let address = address.map_err(TransportError)?;
            let body = RequestBody::Fetch(request);
            let answer = client.call_kafka(&address, &body, REPLICA_FETCH_VERSION, timeout).await;
            match &answer {
                Ok(_) | Err(CallError::Refused { .. }) => peers.reached(leader.0),
                Err(e) => peers.call_failed(leader.0, "replica fetch", e),
            }
            match answer {
                Ok(ResponseBody::Fetch(response)) => Ok(response),
                Ok(other) => Err(TransportError(format!("{:?} answered a Fetch", other.api_key()))),
                Err(e) => Err(TransportError(e.to_string())),
            }
        })
    }
}

/// ISR changes to the active controller.
#[derive(Debug)]
pub struct ControllerIsrChannel {
    channel: Arc<dyn ControllerChannel>,
    broker_id: BrokerId,
    broker_epoch: i64,
}

impl ControllerIsrChannel {
    pub fn new(channel: Arc<dyn ControllerChannel>, broker_id: BrokerId, broker_epoch: i64) -> ControllerIsrChannel {
        ControllerIsrChannel { channel, broker_id, broker_epoch }
    }
}

impl IsrChannel for ControllerIsrChannel {
    fn submit(&self, item: AlterPartitionItem) -> BoxFuture<'static, Result<LeaderAndIsr, ErrorCode>> {
        let channel = self.channel.clone();
        let request = item.request(self.broker_id, self.broker_epoch);
        Box::pin(async move {
            let (response, _) = match call_controller(channel.as_ref(), &request, ALTER_PARTITION_VERSION).await {
                Ok(answer) => answer,
                Err(e) => {
                    tracing::debug!("AlterPartition: {e}");
                    return Err(ErrorCode::RequestTimedOut);
                }
            };
            LeaderAndIsr::from_response(&response)
        })
    }
}
