//! [`ReplicaTransport`]: how a follower's fetchers reach a leader. The server implements it over
//! its inter-broker connections (tests, in memory); the fetchers build requests for
//! [`REPLICA_FETCH_VERSION`].
//!
//! What it is not: it knows no addresses and holds no connection; it is the seam to the server.

use strand_base::BrokerId;
use strand_protocol::messages::{FetchRequest, FetchResponse};

use crate::types::BoxFuture;

/// The Fetch version the fetchers build their requests for: topics by id (v13+), the replica
/// in `replica_state` (v15+). A transport sends them at this version.
pub const REPLICA_FETCH_VERSION: i16 = 17;

/// Why a fetch got no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TransportError(pub String);

/// Carries a follower's Fetch to a leader and brings the answer back. Implemented by the
/// server over its inter-broker connections (and by tests in memory).
pub trait ReplicaTransport: Send + Sync + std::fmt::Debug {
    /// Sends `request` (built for [`REPLICA_FETCH_VERSION`]) to broker `leader`. The answer's
    /// record sets may be bytes or file regions. The future must not borrow `self`.
    fn fetch(
        &self,
        leader: BrokerId,
        request: FetchRequest,
    ) -> BoxFuture<'static, Result<FetchResponse, TransportError>>;
}
