//! The server side of Kafka's SASL mechanisms, each a state machine the connection feeds with
//! the client's tokens (SaslAuthenticate's `auth_bytes`, or the raw frames after a v0
//! SaslHandshake) and that answers with the next challenge, until it settles on a principal or
//! a failure.
//!
//! The mechanisms never touch a socket: the connection owns the framing, the failed-auth delay
//! and `sasl.server.max.receive.size`; a mechanism owns only its exchange.

use std::time::Duration;

use crate::KafkaPrincipal;

/// What a mechanism says after a client token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Send this challenge and wait for the client's next token.
    Challenge(Vec<u8>),
    /// Authenticated: send `response` (possibly empty) as the last server token.
    Done {
        principal: KafkaPrincipal,
        response: Vec<u8>,
        /// How long the credential stays valid (an OAUTHBEARER token's expiry), which caps
        /// `connections.max.reauth.ms` for this session.
        lifetime: Option<Duration>,
    },
}

/// Why authentication failed, as the client is told in SaslAuthenticate's `error_message`
/// (Kafka's `SaslAuthenticationException` text). Never carries the secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct AuthFailure {
    pub message: String,
    /// The user the client claimed, when the exchange got as far as naming one: logged with the
    /// failure, never the secret.
    pub claimed_user: Option<String>,
}

/// The server side of one SASL exchange on one connection.
pub trait SaslServer: Send + std::fmt::Debug {
    /// The mechanism's IANA name (`PLAIN`, `SCRAM-SHA-512`, `OAUTHBEARER`).
    fn mechanism(&self) -> &'static str;

    /// Takes the client's next token.
    fn step(&mut self, token: &[u8]) -> Result<Step, AuthFailure>;
}

/// A user's stored SCRAM credential (RFC 5802 §3: the salted password is never kept, only the
/// keys derived from it), as `UserScramCredentialRecord` holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScramCredential {
    pub salt: Vec<u8>,
    pub stored_key: Vec<u8>,
    pub server_key: Vec<u8>,
    pub iterations: u32,
}

/// Where the SCRAM mechanisms look users up: the metadata image on a node, a table in tests.
pub trait CredentialStore: Send + Sync + std::fmt::Debug {
    /// `user`'s credential for `mechanism` (`SCRAM-SHA-256` or `SCRAM-SHA-512`), if it has one.
    fn scram_credential(&self, user: &str, mechanism: &str) -> Option<ScramCredential>;
}
