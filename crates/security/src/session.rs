//! Kafka's `RequestContext` security part: who sent a request, from where, on which listener.

use std::net::SocketAddr;

use crate::{KafkaPrincipal, SecurityProtocol};

/// One connection's identity, settled by its handshake (TLS, then SASL) before any request is
/// dispatched, and carried by every request to its handler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub principal: KafkaPrincipal,
    pub peer: SocketAddr,
    /// The listener's name (`PLAINTEXT`, `EXTERNAL`, `CONTROLLER`), upper-case.
    pub listener: String,
    pub protocol: SecurityProtocol,
}

impl Session {
    /// A PLAINTEXT connection's session: `User:ANONYMOUS`.
    pub fn anonymous(peer: SocketAddr, listener: impl Into<String>) -> Session {
        Session {
            principal: KafkaPrincipal::anonymous(),
            peer,
            listener: listener.into(),
            protocol: SecurityProtocol::Plaintext,
        }
    }
}
