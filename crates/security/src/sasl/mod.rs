//! The server side of Kafka's SASL mechanisms, each a state machine the connection feeds with
//! the client's tokens (SaslAuthenticate's `auth_bytes`, or the raw frames after a v0
//! SaslHandshake) and that answers with the next challenge, until it settles on a principal or
//! a failure. The client side of PLAIN and SCRAM is here too, for the node's own links.
//!
//! The mechanisms never touch a socket: the connection owns the framing, the failed-auth delay
//! and `sasl.server.max.receive.size`; a mechanism owns only its exchange, and bounds what it
//! holds by its own named limits.
//!
//! - [`jaas`]: `sasl.jaas.config` parsed as Kafka's `JaasConfig` does.
//! - [`plain`]: PLAIN (RFC 4616) over the JAAS `user_NAME` options.
//! - [`scram`]: SCRAM-SHA-256/512 (RFC 5802, 7677) over a [`CredentialStore`].
//! - [`oauthbearer`]: OAUTHBEARER (RFC 7628) with Kafka's unsecured validator or a JWK set.
//! - [`factory`]: the enabled mechanisms of a listener, checked at start-up, and one
//!   [`SaslServer`] per connection.

pub mod factory;
pub mod jaas;
pub mod oauthbearer;
pub mod plain;
pub mod scram;
mod scram_messages;

pub use factory::{
    Mechanism, MechanismError, SaslServerFactory, SaslSettings, check_enabled_mechanisms, client_from_jaas,
};

use std::collections::BTreeMap;
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
///
/// Kafka tells the client a mechanism's own reason only when the mechanism raised a
/// `SaslAuthenticationException` ([`AuthFailure::told`]); for a plain `SaslException` it sends
/// "Authentication failed during authentication due to invalid credentials with SASL mechanism
/// M" and only logs the reason ([`AuthFailure::hidden`], the reason in `detail`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct AuthFailure {
    pub message: String,
    /// The user the client claimed, when the exchange got as far as naming one: logged with the
    /// failure, never the secret.
    pub claimed_user: Option<String>,
    /// The mechanism's own reason when Kafka keeps it from the client: for the log line only.
    pub detail: Option<String>,
}

impl AuthFailure {
    /// The longest `detail` kept: it may quote the client's message.
    pub const DETAIL_CHARS_MAX: usize = 512;

    /// A failure whose message the client sees (Kafka's `SaslAuthenticationException`).
    pub fn told(message: impl Into<String>, claimed_user: Option<String>) -> AuthFailure {
        AuthFailure { message: message.into(), claimed_user, detail: None }
    }

    /// The same failure with a reason for the log beside what the client is told.
    pub fn with_detail(mut self, detail: impl Into<String>) -> AuthFailure {
        self.detail = Some(bounded(detail.into()));
        self
    }

    /// A failure whose reason only the log sees (Kafka's `SaslException`): the client is told
    /// the generic message naming the mechanism.
    pub fn hidden(mechanism: &str, detail: impl Into<String>, claimed_user: Option<String>) -> AuthFailure {
        AuthFailure { message: generic_message(mechanism), claimed_user, detail: Some(bounded(detail.into())) }
    }

    /// The same failure during KIP-368 re-authentication: Kafka's generic message then says
    /// "during re-authentication".
    pub fn in_reauthentication(mut self) -> AuthFailure {
        let prefix = "Authentication failed during authentication ";
        if let Some(rest) = self.message.strip_prefix(prefix) {
            self.message = format!("Authentication failed during re-authentication {rest}");
        }
        self
    }
}

/// `detail` cut to [`AuthFailure::DETAIL_CHARS_MAX`] characters.
fn bounded(mut detail: String) -> String {
    if let Some((cut, _)) = detail.char_indices().nth(AuthFailure::DETAIL_CHARS_MAX) {
        detail.truncate(cut);
        detail.push_str("...");
    }
    detail
}

/// `SaslServerAuthenticator`'s message for a mechanism's `SaslException` (during a first
/// authentication; [`AuthFailure::in_reauthentication`] rewords it).
fn generic_message(mechanism: &str) -> String {
    format!("Authentication failed during authentication due to invalid credentials with SASL mechanism {mechanism}")
}

/// The server side of one SASL exchange on one connection.
pub trait SaslServer: Send + std::fmt::Debug {
    /// The mechanism's IANA name (`PLAIN`, `SCRAM-SHA-512`, `OAUTHBEARER`).
    fn mechanism(&self) -> &'static str;

    /// Takes the client's next token.
    fn step(&mut self, token: &[u8]) -> Result<Step, AuthFailure>;

    /// The SASL extensions the client sent and the mechanism accepted (OAUTHBEARER's, RFC 7628
    /// §3.1), once done; empty for mechanisms without them.
    fn extensions(&self) -> &BTreeMap<String, String> {
        static NONE: BTreeMap<String, String> = BTreeMap::new();
        &NONE
    }
}

/// What a client mechanism says after the server's challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientStep {
    /// Send this token and wait for the server's next challenge.
    Respond(Vec<u8>),
    /// The server proved itself (or the mechanism has nothing to check): authenticated.
    Done,
}

/// The client side of one SASL exchange, for the node's own links to other nodes.
pub trait SaslClient: Send + std::fmt::Debug {
    /// The mechanism's IANA name.
    fn mechanism(&self) -> &'static str;

    /// The client's first token (every mechanism here sends one).
    fn initial_response(&mut self) -> Vec<u8>;

    /// Takes the server's next challenge (the `auth_bytes` of a successful SaslAuthenticate).
    fn step(&mut self, challenge: &[u8]) -> Result<ClientStep, AuthFailure>;
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

    /// Delegation token `token_id`'s credential for `mechanism` and its owner, if tokens are
    /// enabled and the token exists (KIP-48); stores without tokens have none.
    fn token_credential(&self, _token_id: &str, _mechanism: &str) -> Option<TokenCredential> {
        None
    }
}

/// What a SCRAM exchange flagged `tokenauth` checks: the token's credential (password: its HMAC
/// in base64) and who the session then is (the token's owner).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenCredential {
    pub credential: ScramCredential,
    pub owner: KafkaPrincipal,
    /// How long until the token expires: the session ends then at the latest (Kafka's SCRAM
    /// server reports the token's expiry as the credential's lifetime).
    pub lifetime: Duration,
}
