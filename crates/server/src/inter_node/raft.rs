//! The metadata quorum's transport over TCP: each Raft RPC goes to the target voter's CONTROLLER
//! listener (its address from `controller.quorum.voters`) as a Strand request.

use std::collections::BTreeMap;
use std::time::Duration;

use strand_metadata::quorum::{QuorumTransport, RaftReply, RaftRpc, TransportError, TransportFuture};

use super::client::{CallError, NodeClient};
use super::wire::RpcKind;

/// How long one Raft call may take. openraft bounds its calls with its own, shorter timeouts
/// (the heartbeat interval for appends) and drops the call when they pass, which closes its
/// connection (see `client`); this bound only matters to a call nobody gives up on.
const RAFT_CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// Raft over the voters' CONTROLLER listeners.
#[derive(Debug)]
pub struct TcpQuorumTransport {
    /// Each voter's `host:port`.
    voters: BTreeMap<i32, String>,
    client: NodeClient,
}

impl TcpQuorumTransport {
    pub fn new(voters: BTreeMap<i32, String>, connect_timeout: Duration) -> TcpQuorumTransport {
        let client = NodeClient::new(connect_timeout, strand_metadata::quorum::RAFT_RPC_BYTES_MAX + 64);
        TcpQuorumTransport { voters, client }
    }
}

impl QuorumTransport for TcpQuorumTransport {
    fn call(&self, target: i32, rpc: RaftRpc) -> TransportFuture<'_> {
        Box::pin(async move {
            let failed = |reason: String| TransportError::Failed { target, reason };
            let Some(address) = self.voters.get(&target) else {
                return Err(TransportError::Unreachable { target, reason: "not a configured voter".into() });
            };
            let payload = rpc.encode().map_err(|e| failed(e.to_string()))?;
            match self.client.call(address, RpcKind::Raft, &payload, RAFT_CALL_TIMEOUT).await {
                Ok(reply) => RaftReply::decode(&reply).map_err(|e| failed(e.to_string())),
                Err(CallError::Unreachable { reason, .. }) => Err(TransportError::Unreachable { target, reason }),
                Err(e) => Err(failed(e.to_string())),
            }
        })
    }
}
