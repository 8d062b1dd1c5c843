//! An observer's metadata fetches: committed `__cluster_metadata` batches from a voter's
//! CONTROLLER listener (see `strand_metadata::quorum::observe`).

use super::Link;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::BufMut;
use strand_metadata::quorum::{CommittedRead, Leadership, MetadataFetch, MetadataFetcher, ObserverError};
use strand_protocol::records::RecordBatches;

use super::client::{CallError, NodeClient};
use super::controllers::ControllerAddresses;
use super::peers::PeerHealth;
use super::wire::{self, RpcKind};

/// How much longer than a voter's own wait a fetch may take.
const FETCH_SLACK: Duration = Duration::from_millis(1_500);

/// Metadata fetches over the voters' CONTROLLER listeners.
#[derive(Debug)]
pub struct VoterMetadataFetcher {
    /// Each voter's `host:port`.
    voters: ControllerAddresses,
    client: Arc<NodeClient>,
    peers: Arc<PeerHealth>,
    timeout: Duration,
    /// This observer's node id and metadata log dir's directory id, sent with each fetch so the
    /// leader describes it (DescribeQuorum).
    replica: (i32, strand_base::Uuid),
}

impl VoterMetadataFetcher {
    pub fn new(
        replica: (i32, strand_base::Uuid),
        voters: ControllerAddresses,
        request_timeout: Duration,
        peers: Arc<PeerHealth>,
        link: Link,
    ) -> VoterMetadataFetcher {
        let client = Arc::new(NodeClient::new(request_timeout, strand_base::limits::SOCKET_REQUEST_BYTES_MAX, link));
        VoterMetadataFetcher { voters, client, peers, timeout: request_timeout + FETCH_SLACK, replica }
    }
}

impl MetadataFetcher for VoterMetadataFetcher {
    fn reaches(&self, voter: i32) -> bool {
        self.voters.get(voter).is_some()
    }

    fn fetch(
        &self,
        voter: i32,
        from_offset: i64,
    ) -> Pin<Box<dyn Future<Output = Result<MetadataFetch, ObserverError>> + Send + 'static>> {
        let address = self.voters.get(voter);
        let (client, peers, timeout, (node_id, directory_id)) =
            (self.client.clone(), self.peers.clone(), self.timeout, self.replica);
        Box::pin(async move {
            let address = address.ok_or_else(|| ObserverError(format!("voter {voter} has no address")))?;
            let mut payload = Vec::with_capacity(28);
            payload.put_i64(from_offset);
            payload.put_i32(node_id);
            payload.put_slice(&directory_id.0);
            let answer = client.call(&address, RpcKind::MetadataFetch, &payload, timeout).await;
            match &answer {
                Ok(_) | Err(CallError::Refused { .. }) => peers.reached(voter),
                Err(e) => peers.call_failed(voter, "metadata fetch", e),
            }
            let answer = answer.map_err(|e| ObserverError(e.to_string()))?;
            let answer = wire::decode_metadata_answer(answer).map_err(ObserverError)?;
            let leadership = Leadership { epoch: answer.epoch, leader_id: answer.leader_id };
            let read = match answer.snapshot {
                Some((end_offset, epoch)) => CommittedRead::Snapshot { end_offset, epoch, bytes: answer.bytes },
                None => CommittedRead::Batches(
                    RecordBatches::new(answer.bytes)
                        .map(|batch| batch.map(|b| b.into_bytes()).map_err(|e| ObserverError(e.to_string())))
                        .collect::<Result<Vec<_>, _>>()?,
                ),
            };
            Ok(MetadataFetch { read, leadership })
        })
    }
}
