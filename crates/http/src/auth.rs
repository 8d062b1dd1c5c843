//! Who an HTTP request is (design §10, issue 23): the principal the node's Kafka listeners would
//! give the same credentials, so the broker's handlers and authorizer decide what it may do.
//!
//! - `Authorization: Basic` (RFC 7617): the user name and password are checked by the very SASL
//!   mechanisms the node's authenticating broker listener runs, PLAIN against its JAAS users,
//!   then each enabled SCRAM mechanism against the users' credentials in the metadata image (the
//!   exchange runs in memory, a SCRAM client of ours against the listener's SCRAM server).
//! - `Authorization: Bearer` (RFC 6750): the token is handed to the listener's OAUTHBEARER
//!   server as a client's initial response, validated as a Kafka client's token is (the same
//!   unsecured validator or JWK set).
//! - No credentials: `User:ANONYMOUS` on the first PLAINTEXT broker listener, only when
//!   `http.anonymous.allowed` (by default: when there is such a listener).
//!
//! An authenticated request acts on the authenticating listener (its name and protocol are the
//! session's), from the HTTP peer's address. Wrong or unusable credentials never fall back to
//! anonymous: they are a 401.

use std::net::SocketAddr;
use std::sync::OnceLock;

use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue};
use base64::Engine;
use strand_security::sasl::oauthbearer::OAUTHBEARER;
use strand_security::sasl::plain::PLAIN;
use strand_security::sasl::scram::ScramClient;
use strand_security::sasl::{ClientStep, Mechanism, SaslClient, SaslServerFactory, Step};
use strand_security::{KafkaPrincipal, SecurityProtocol, Session};
use tracing::info;

use crate::gateway::RestError;

/// The longest `Authorization` header read; a longer one is refused (401).
pub const AUTHORIZATION_BYTES_MAX: usize = 16 * 1024;

/// The most SCRAM messages one in-memory exchange takes (RFC 5802: two from each side).
const SCRAM_STEPS_MAX: usize = 4;

/// A listener's SASL mechanisms, once the node authenticates its Kafka clients (`Err` before).
pub type FactoryOf = Box<dyn Fn() -> Result<SaslServerFactory, String> + Send + Sync>;

/// The broker listener HTTP credentials are checked against.
pub struct SaslAccess {
    /// The listener's name, upper-case.
    pub listener: String,
    pub protocol: SecurityProtocol,
    pub factory_of: FactoryOf,
}

/// Who may use the HTTP surface, and how they prove it.
pub struct HttpAccess {
    /// The broker listener an anonymous caller acts on; `None`: credentials are required.
    pub anonymous_listener: Option<String>,
    /// The authenticating broker listener; `None`: credentials cannot be checked (the node
    /// has no SASL broker listener), so only anonymous callers are served.
    pub sasl: Option<SaslAccess>,
    /// `http.metrics.anonymous.allowed`: `/metrics` served without credentials.
    pub metrics_anonymous: bool,
    factory: OnceLock<SaslServerFactory>,
}

impl std::fmt::Debug for SaslAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SaslAccess").field("listener", &self.listener).field("protocol", &self.protocol).finish()
    }
}

impl std::fmt::Debug for HttpAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpAccess")
            .field("anonymous_listener", &self.anonymous_listener)
            .field("sasl", &self.sasl.as_ref().map(|s| &s.listener))
            .field("metrics_anonymous", &self.metrics_anonymous)
            .finish()
    }
}

impl HttpAccess {
    pub fn new(anonymous_listener: Option<String>, sasl: Option<SaslAccess>, metrics_anonymous: bool) -> HttpAccess {
        HttpAccess { anonymous_listener, sasl, metrics_anonymous, factory: OnceLock::new() }
    }

    /// Anonymous access on `listener`, nothing checked: a node without security.
    pub fn anonymous(listener: impl Into<String>) -> HttpAccess {
        HttpAccess::new(Some(listener.into()), None, true)
    }

    /// The session of a request from `peer` with `headers`, or why it is refused (401).
    pub fn session(&self, headers: &HeaderMap, peer: SocketAddr) -> Result<Session, RestError> {
        let Some(value) = headers.get(AUTHORIZATION) else {
            return match &self.anonymous_listener {
                Some(listener) => Ok(Session::anonymous(peer, listener.clone())),
                None => Err(RestError::unauthenticated("Authentication required: send Basic or Bearer credentials")),
            };
        };
        let Some(sasl) = &self.sasl else {
            return Err(RestError::unauthenticated(
                "Authentication failed: this node has no SASL broker listener to check HTTP credentials against",
            ));
        };
        let refused = |detail: &str| {
            info!(%peer, "HTTP authentication failed: {detail}");
            RestError::unauthenticated("Authentication failed: invalid credentials")
        };
        if value.len() > AUTHORIZATION_BYTES_MAX {
            return Err(refused("the Authorization header is over its limit"));
        }
        let value = value.to_str().map_err(|_| refused("the Authorization header is not text"))?;
        let (scheme, credentials) = value.trim().split_once(' ').unwrap_or((value, ""));
        let credentials = credentials.trim();
        let factory = match self.factory.get() {
            Some(factory) => factory,
            None => {
                let factory = (sasl.factory_of)().map_err(|e| refused(&e))?;
                self.factory.get_or_init(|| factory)
            }
        };
        let principal = if scheme.eq_ignore_ascii_case("Basic") {
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(credentials)
                .map_err(|_| refused("Basic credentials are not base64"))?;
            let decoded = String::from_utf8(decoded).map_err(|_| refused("Basic credentials are not UTF-8"))?;
            let (user, password) = decoded.split_once(':').ok_or_else(|| refused("Basic credentials have no ':'"))?;
            basic(factory, user, password).map_err(|e| refused(&format!("user {user:?}: {e}")))?
        } else if scheme.eq_ignore_ascii_case("Bearer") {
            bearer(factory, credentials).map_err(|e| refused(&e))?
        } else {
            return Err(refused(&format!("unknown Authorization scheme {scheme:?}")));
        };
        Ok(Session { principal, peer, listener: sasl.listener.clone(), protocol: sasl.protocol })
    }

    /// Whether `/metrics` may be served to a request with `headers` from `peer`.
    pub fn metrics_allowed(&self, headers: &HeaderMap, peer: SocketAddr) -> Result<(), RestError> {
        if self.metrics_anonymous || (self.anonymous_listener.is_some() && !headers.contains_key(AUTHORIZATION)) {
            return Ok(());
        }
        self.session(headers, peer).map(|_| ())
    }
}

/// A user name and password checked by PLAIN, then by each enabled SCRAM mechanism.
fn basic(factory: &SaslServerFactory, user: &str, password: &str) -> Result<KafkaPrincipal, String> {
    let mut reasons = Vec::new();
    for name in factory.enabled_names() {
        let outcome = match Mechanism::from_name(name) {
            Ok(Mechanism::Plain) => plain(factory, user, password),
            Ok(Mechanism::Scram(scram)) => scram_exchange(factory, name, ScramClient::new(scram, user, password)),
            _ => continue,
        };
        match outcome {
            Ok(principal) => return Ok(principal),
            Err(reason) => reasons.push(format!("{name}: {reason}")),
        }
    }
    if reasons.is_empty() {
        return Err("the listener enables neither PLAIN nor SCRAM, so Basic credentials cannot be checked".into());
    }
    Err(reasons.join("; "))
}

fn plain(factory: &SaslServerFactory, user: &str, password: &str) -> Result<KafkaPrincipal, String> {
    let mut server = factory.create(PLAIN).map_err(|e| e.to_string())?;
    match server.step(format!("\0{user}\0{password}").as_bytes()) {
        Ok(Step::Done { principal, .. }) => Ok(principal),
        Ok(Step::Challenge(_)) => Err("PLAIN asked for more".into()),
        Err(failure) => Err(failure.detail.unwrap_or(failure.message)),
    }
}

/// Runs a SCRAM exchange between `client` and the listener's server for `mechanism`.
fn scram_exchange(
    factory: &SaslServerFactory,
    mechanism: &str,
    mut client: ScramClient,
) -> Result<KafkaPrincipal, String> {
    let mut server = factory.create(mechanism).map_err(|e| e.to_string())?;
    let mut token = client.initial_response();
    for _ in 0..SCRAM_STEPS_MAX {
        match server.step(&token).map_err(|failure| failure.detail.unwrap_or(failure.message))? {
            Step::Done { principal, response, .. } => {
                // The server's final message proves it knew the credential too.
                client.step(&response).map_err(|e| e.message)?;
                return Ok(principal);
            }
            Step::Challenge(challenge) => match client.step(&challenge).map_err(|e| e.message)? {
                ClientStep::Respond(next) => token = next,
                ClientStep::Done => return Err("the exchange ended before the server settled".into()),
            },
        }
    }
    Err(format!("the exchange took more than {SCRAM_STEPS_MAX} steps"))
}

/// A bearer token validated by the listener's OAUTHBEARER server (RFC 7628 §3.1's initial
/// client response, without an authorization id or extensions).
fn bearer(factory: &SaslServerFactory, token: &str) -> Result<KafkaPrincipal, String> {
    if token.is_empty() || token.contains('\x01') {
        return Err("the Bearer token is empty or malformed".into());
    }
    let mut server = factory.create(OAUTHBEARER).map_err(|e| format!("Bearer credentials: {e}"))?;
    match server.step(format!("n,,\x01auth=Bearer {token}\x01\x01").as_bytes()) {
        Ok(Step::Done { principal, .. }) => Ok(principal),
        Ok(Step::Challenge(error)) => Err(format!("token refused: {}", String::from_utf8_lossy(&error))),
        Err(failure) => Err(failure.detail.unwrap_or(failure.message)),
    }
}

/// The challenges of a 401 (RFC 7235): the schemes HTTP accepts.
const CHALLENGES: [&str; 2] = ["Basic realm=\"strand\", charset=\"UTF-8\"", "Bearer realm=\"strand\""];

/// Adds the challenges of a 401 to `headers`.
pub(crate) fn challenge(headers: &mut HeaderMap) {
    for challenge in CHALLENGES {
        headers.append(WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
    }
}
