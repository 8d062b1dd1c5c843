//! openraft's network, for a quorum of one: there is no other voter to reach, so every RPC fails
//! as unreachable. openraft never sends one with a lone voter (its vote is granted locally and
//! there is no follower to replicate to); if it did, it would retry later, harmlessly.
//!
//! The multi-voter transport (Vote and AppendEntries between controllers over the CONTROLLER
//! listener, with the cluster id checked on every RPC) comes with the cluster issue, behind a
//! transport trait this crate will define and the server implement, as `replication` does.

use openraft::error::{InstallSnapshotError, RPCError, RaftError, Unreachable};
use openraft::network::RPCOption;
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, InstallSnapshotResponse, VoteRequest,
    VoteResponse,
};
use openraft::{RaftNetwork, RaftNetworkFactory};

use super::entry::{TypeConfig, VoterNode};

/// Why an RPC could not be sent.
#[derive(Debug, thiserror::Error)]
#[error("no transport to voter {target}: a lone voter sends no Raft RPCs")]
pub(crate) struct NoTransport {
    target: u64,
}

/// The network of a lone voter: no peers.
#[derive(Debug, Default)]
pub(crate) struct LoneVoterNetwork;

/// A connection to a voter that cannot be reached.
#[derive(Debug)]
pub(crate) struct UnreachableVoter {
    target: u64,
}

impl UnreachableVoter {
    fn unreachable<E: std::error::Error>(&self) -> RPCError<u64, VoterNode, E> {
        RPCError::Unreachable(Unreachable::new(&NoTransport { target: self.target }))
    }
}

impl RaftNetworkFactory<TypeConfig> for LoneVoterNetwork {
    type Network = UnreachableVoter;

    async fn new_client(&mut self, target: u64, _node: &VoterNode) -> UnreachableVoter {
        UnreachableVoter { target }
    }
}

impl RaftNetwork<TypeConfig> for UnreachableVoter {
    async fn append_entries(
        &mut self,
        _rpc: AppendEntriesRequest<TypeConfig>,
        _option: RPCOption,
    ) -> Result<AppendEntriesResponse<u64>, RPCError<u64, VoterNode, RaftError<u64>>> {
        Err(self.unreachable())
    }

    async fn install_snapshot(
        &mut self,
        _rpc: InstallSnapshotRequest<TypeConfig>,
        _option: RPCOption,
    ) -> Result<InstallSnapshotResponse<u64>, RPCError<u64, VoterNode, RaftError<u64, InstallSnapshotError>>> {
        Err(self.unreachable())
    }

    async fn vote(
        &mut self,
        _rpc: VoteRequest<u64>,
        _option: RPCOption,
    ) -> Result<VoteResponse<u64>, RPCError<u64, VoterNode, RaftError<u64>>> {
        Err(self.unreachable())
    }
}
