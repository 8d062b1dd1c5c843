//! The metadata quorum's transport over TCP: each Raft RPC goes to the target voter's CONTROLLER
//! listener (its address from `controller.quorum.voters`, or in a dynamic quorum the endpoint
//! the voter set in the log names) as a Strand request.

use super::Link;
use std::sync::Arc;
use std::time::Duration;

use strand_metadata::quorum::{QuorumTransport, RaftReply, RaftRpc, TransportError, TransportFuture};

use super::client::{CallError, NodeClient};
use super::controllers::ControllerAddresses;
use super::peers::PeerHealth;
use super::wire::RpcKind;

/// What the quorum's calls are called in [`PeerHealth`]'s lines.
const WHAT: &str = "metadata quorum";

/// How long one Raft call may take. openraft bounds its calls with its own, shorter timeouts
/// (the heartbeat interval for appends) and drops the call when they pass, which closes its
/// connection (see `client`); this bound only matters to a call nobody gives up on.
const RAFT_CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// Raft over the voters' CONTROLLER listeners.
#[derive(Debug)]
pub struct TcpQuorumTransport {
    /// Each known controller's `host:port`.
    voters: ControllerAddresses,
    client: NodeClient,
    peers: Arc<PeerHealth>,
}

impl TcpQuorumTransport {
    pub fn new(
        voters: ControllerAddresses,
        connect_timeout: Duration,
        peers: Arc<PeerHealth>,
        link: Link,
    ) -> TcpQuorumTransport {
        let client = NodeClient::new(connect_timeout, strand_metadata::quorum::RAFT_RPC_BYTES_MAX + 64, link);
        TcpQuorumTransport { voters, client, peers }
    }
}

impl QuorumTransport for TcpQuorumTransport {
    fn call(&self, target: i32, rpc: RaftRpc) -> TransportFuture<'_> {
        self.call_at(target, None, rpc)
    }

    fn call_at(&self, target: i32, endpoint: Option<(&str, u16)>, rpc: RaftRpc) -> TransportFuture<'_> {
        let address = endpoint.map(|(host, port)| format!("{host}:{port}")).or_else(|| self.voters.get(target));
        Box::pin(async move {
            let failed = |reason: String| TransportError::Failed { target, reason };
            let Some(address) = address else {
                return Err(TransportError::Unreachable { target, reason: "not a known voter".into() });
            };
            let address = &address;
            let payload = rpc.encode().map_err(|e| failed(e.to_string()))?;
            // openraft drops a call it gives up on: that counts as a failure too.
            let mut outcome = Outcome { peers: &self.peers, target, answered: None };
            match self.client.call(address, RpcKind::Raft, &payload, RAFT_CALL_TIMEOUT).await {
                Ok(reply) => {
                    outcome.answered = Some(Ok(()));
                    RaftReply::decode(&reply).map_err(|e| failed(e.to_string()))
                }
                Err(e @ CallError::Refused { .. }) => {
                    outcome.answered = Some(Ok(()));
                    Err(failed(e.to_string()))
                }
                Err(CallError::Unreachable { address, reason }) => {
                    outcome.answered = Some(Err(CallError::Unreachable { address, reason: reason.clone() }));
                    Err(TransportError::Unreachable { target, reason })
                }
                Err(e) => {
                    let reason = e.to_string();
                    outcome.answered = Some(Err(e));
                    Err(failed(reason))
                }
            }
        })
    }
}

/// One call's outcome, reported to [`PeerHealth`] when the call ends, however it ends.
struct Outcome<'a> {
    peers: &'a PeerHealth,
    target: i32,
    /// `None` while the call runs: dropped then, it was given up on.
    answered: Option<Result<(), CallError>>,
}

impl Drop for Outcome<'_> {
    fn drop(&mut self) {
        match self.answered.take() {
            Some(Ok(())) => self.peers.reached(self.target),
            Some(Err(error)) => self.peers.call_failed(self.target, WHAT, &error),
            None => self.peers.failed(self.target, WHAT, &"no answer before the call was given up"),
        }
    }
}
