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
//!
//! A SCRAM check derives the password twice (PBKDF2, 4096+ iterations each), so an unauthenticated
//! flood must not be able to stall the node (issue 15): a check runs on tokio's blocking pool at
//! lowered priority ([`strand_base::background::run_niced`]), at most [`CHECKS_AT_ONCE_MAX`] at
//! a time (beyond them: 429, see [`RestError::busy`]); a refused one's 401 is sent after the SASL
//! listener's `connection.failed.authentication.delay.ms`, as that listener delays a Kafka
//! client's failure, waiting on a timer (no worker, no check slot held). A successful Basic check
//! is remembered for [`CHECKED_EXPIRY`] under a keyed hash of the user and password (the key is
//! random per process; the password is never kept), at most [`CHECKED_ENTRIES_MAX`] entries; a
//! remembered SCRAM check counts only while the user's SCRAM credential in the metadata image is
//! the one it was checked against, so a changed or deleted credential is refused at once.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::{HeaderMap, HeaderValue};
use base64::Engine;
use strand_base::{Clock, SystemClock};
use strand_security::sasl::oauthbearer::OAUTHBEARER;
use strand_security::sasl::plain::PLAIN;
use strand_security::sasl::scram::ScramClient;
use strand_security::sasl::{ClientStep, Mechanism, SaslClient, SaslServerFactory, ScramCredential, Step};
use strand_security::scram::ScramMechanism;
use strand_security::{KafkaPrincipal, SecurityProtocol, Session};
use tokio::sync::Semaphore;
use tracing::{debug, info};

use crate::gateway::RestError;

/// The longest `Authorization` header read; a longer one is refused (401).
pub const AUTHORIZATION_BYTES_MAX: usize = 16 * 1024;

/// The most SCRAM messages one in-memory exchange takes (RFC 5802: two from each side).
const SCRAM_STEPS_MAX: usize = 4;

/// The most credential checks running at once (each a thread of the blocking pool; a SCRAM one
/// takes a core for its PBKDF2 derivations). A request that finds them all busy and its
/// credentials not remembered is answered 429.
pub const CHECKS_AT_ONCE_MAX: usize = 2;

/// The most successful Basic checks remembered; a new one beyond them replaces the oldest.
pub const CHECKED_ENTRIES_MAX: usize = 1024;

/// How long a successful Basic check is remembered: a PLAIN user removed from the JAAS config is
/// refused after this at the latest (a SCRAM user's changed credential at once).
pub const CHECKED_EXPIRY: Duration = Duration::from_secs(60);

/// A listener's SASL mechanisms, once the node authenticates its Kafka clients (`Err` before).
pub type FactoryOf = Box<dyn Fn() -> Result<SaslServerFactory, String> + Send + Sync>;

/// The broker listener HTTP credentials are checked against.
pub struct SaslAccess {
    /// The listener's name, upper-case.
    pub listener: String,
    pub protocol: SecurityProtocol,
    pub factory_of: FactoryOf,
    /// The listener's `connection.failed.authentication.delay.ms`: how long a refused
    /// credential's 401 waits.
    pub failed_delay: Duration,
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
    factory: OnceLock<Arc<SaslServerFactory>>,
    /// Permits for [`CHECKS_AT_ONCE_MAX`] checks.
    checks: Arc<Semaphore>,
    checked: Mutex<Checked>,
    clock: Arc<dyn Clock>,
}

/// Why credentials got no session.
enum Refusal {
    /// They are wrong or unusable (why, for the log).
    Failed(String),
    /// Every check slot is taken.
    Busy,
}

/// Successful Basic checks, by a keyed hash of the user and password.
struct Checked {
    key: [u8; 32],
    entries: HashMap<Vec<u8>, CheckedEntry>,
}

struct CheckedEntry {
    principal: KafkaPrincipal,
    /// The SCRAM mechanism and credential the password was checked against (`None`: PLAIN).
    scram: CheckedScram,
    /// When it was checked ([`Clock::monotonic_ns`]).
    at_ns: u64,
}

/// Whether a check made at `at_ns` is remembered at `now_ns`.
fn fresh(at_ns: u64, now_ns: u64) -> bool {
    u128::from(now_ns.saturating_sub(at_ns)) < CHECKED_EXPIRY.as_nanos()
}

impl Checked {
    fn new() -> Checked {
        Checked { key: rand::random(), entries: HashMap::new() }
    }

    /// The keyed hash an entry is found by: HMAC-SHA-256 over the user's length, user, password.
    fn id(&self, user: &str, password: &str) -> Vec<u8> {
        let mut data = Vec::with_capacity(8 + user.len() + password.len());
        data.extend_from_slice(&(user.len() as u64).to_be_bytes());
        data.extend_from_slice(user.as_bytes());
        data.extend_from_slice(password.as_bytes());
        ScramMechanism::Sha256.hmac(&self.key, &data)
    }

    fn insert(&mut self, id: Vec<u8>, entry: CheckedEntry) {
        if self.entries.len() >= CHECKED_ENTRIES_MAX && !self.entries.contains_key(&id) {
            let now_ns = entry.at_ns;
            self.entries.retain(|_, e| fresh(e.at_ns, now_ns));
            if self.entries.len() >= CHECKED_ENTRIES_MAX {
                let oldest = self.entries.iter().min_by_key(|(_, e)| e.at_ns).map(|(id, _)| id.clone());
                if let Some(oldest) = oldest {
                    self.entries.remove(&oldest);
                }
            }
        }
        self.entries.insert(id, entry);
    }
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
        HttpAccess {
            anonymous_listener,
            sasl,
            metrics_anonymous,
            factory: OnceLock::new(),
            checks: Arc::new(Semaphore::new(CHECKS_AT_ONCE_MAX)),
            checked: Mutex::new(Checked::new()),
            clock: Arc::new(SystemClock),
        }
    }

    /// Anonymous access on `listener`, nothing checked: a node without security.
    pub fn anonymous(listener: impl Into<String>) -> HttpAccess {
        HttpAccess::new(Some(listener.into()), None, true)
    }

    /// The session of a request from `peer` with `headers`, or why it is refused (401, after the
    /// listener's failed-authentication delay when credentials were checked; 429 when every check
    /// slot is taken).
    pub async fn session(&self, headers: &HeaderMap, peer: SocketAddr) -> Result<Session, RestError> {
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
        match self.principal(sasl, value).await {
            Ok(principal) => Ok(Session { principal, peer, listener: sasl.listener.clone(), protocol: sasl.protocol }),
            Err(Refusal::Busy) => {
                debug!(%peer, "HTTP authentication refused: {CHECKS_AT_ONCE_MAX} credential checks are running");
                Err(RestError::busy("Too many credential checks are running: retry later"))
            }
            Err(Refusal::Failed(detail)) => {
                info!(%peer, "HTTP authentication failed: {detail}");
                tokio::time::sleep(sasl.failed_delay).await;
                Err(RestError::unauthenticated("Authentication failed: invalid credentials"))
            }
        }
    }

    /// Who `value` (an `Authorization` header) says the caller is, checked off the async workers.
    async fn principal(&self, sasl: &SaslAccess, value: &HeaderValue) -> Result<KafkaPrincipal, Refusal> {
        let failed = |detail: &str| Refusal::Failed(detail.to_owned());
        if value.len() > AUTHORIZATION_BYTES_MAX {
            return Err(failed("the Authorization header is over its limit"));
        }
        let value = value.to_str().map_err(|_| failed("the Authorization header is not text"))?;
        let (scheme, credentials) = value.trim().split_once(' ').unwrap_or((value, ""));
        let credentials = credentials.trim().to_owned();
        let factory = match self.factory.get() {
            Some(factory) => factory.clone(),
            None => {
                let factory = (sasl.factory_of)().map_err(|e| failed(&e))?;
                self.factory.get_or_init(|| Arc::new(factory)).clone()
            }
        };
        if scheme.eq_ignore_ascii_case("Basic") {
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(&credentials)
                .map_err(|_| failed("Basic credentials are not base64"))?;
            let decoded = String::from_utf8(decoded).map_err(|_| failed("Basic credentials are not UTF-8"))?;
            let (user, password) = decoded.split_once(':').ok_or_else(|| failed("Basic credentials have no ':'"))?;
            let id = self.lock_checked().id(user, password);
            if let Some(principal) = self.remembered(&factory, &id) {
                return Ok(principal);
            }
            let (user, password) = (user.to_owned(), password.to_owned());
            let checked = self
                .off_workers({
                    let factory = factory.clone();
                    move || basic(&factory, &user, &password).map_err(|e| format!("user {user:?}: {e}"))
                })
                .await?;
            let (principal, scram) = checked;
            let entry = CheckedEntry { principal: principal.clone(), scram, at_ns: self.clock.monotonic_ns() };
            self.lock_checked().insert(id, entry);
            Ok(principal)
        } else if scheme.eq_ignore_ascii_case("Bearer") {
            self.off_workers(move || bearer(&factory, &credentials)).await
        } else {
            Err(failed(&format!("unknown Authorization scheme {scheme:?}")))
        }
    }

    /// The principal of a remembered check `id`, if still fresh and (SCRAM) its credential unchanged.
    fn remembered(&self, factory: &SaslServerFactory, id: &[u8]) -> Option<KafkaPrincipal> {
        let mut checked = self.lock_checked();
        let entry = checked.entries.get(id)?;
        let current = fresh(entry.at_ns, self.clock.monotonic_ns())
            && entry
                .scram
                .as_ref()
                .is_none_or(|(mechanism, user, credential)| factory.scram_credential(user, mechanism) == *credential);
        if current {
            return Some(entry.principal.clone());
        }
        checked.entries.remove(id);
        None
    }

    fn lock_checked(&self) -> std::sync::MutexGuard<'_, Checked> {
        self.checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `check` on the blocking pool at lowered priority, holding one of the check slots
    /// (none free: [`Refusal::Busy`]).
    async fn off_workers<T: Send + 'static>(
        &self,
        check: impl FnOnce() -> Result<T, String> + Send + 'static,
    ) -> Result<T, Refusal> {
        let slot = self.checks.clone().try_acquire_owned().map_err(|_| Refusal::Busy)?;
        let ran = tokio::task::spawn_blocking(move || {
            let outcome = strand_base::background::run_niced(check);
            drop(slot);
            outcome
        })
        .await;
        match ran {
            Ok(outcome) => outcome.map_err(Refusal::Failed),
            Err(e) => Err(Refusal::Failed(format!("the credential check did not finish: {e}"))),
        }
    }

    /// Whether `/metrics` may be served to a request with `headers` from `peer`.
    pub async fn metrics_allowed(&self, headers: &HeaderMap, peer: SocketAddr) -> Result<(), RestError> {
        if self.metrics_anonymous || (self.anonymous_listener.is_some() && !headers.contains_key(AUTHORIZATION)) {
            return Ok(());
        }
        self.session(headers, peer).await.map(|_| ())
    }
}

/// What a successful SCRAM check was checked against: the mechanism, the user, the credential
/// read before the exchange (a later change makes a remembered check stale).
type CheckedScram = Option<(&'static str, String, Option<ScramCredential>)>;

/// A user name and password checked by PLAIN, then by each enabled SCRAM mechanism.
fn basic(factory: &SaslServerFactory, user: &str, password: &str) -> Result<(KafkaPrincipal, CheckedScram), String> {
    let mut reasons = Vec::new();
    for name in factory.enabled_names() {
        let outcome = match Mechanism::from_name(name) {
            Ok(Mechanism::Plain) => plain(factory, user, password).map(|principal| (principal, None)),
            Ok(Mechanism::Scram(scram)) => {
                let credential = factory.scram_credential(user, name);
                scram_exchange(factory, name, ScramClient::new(scram, user, password))
                    .map(|principal| (principal, Some((name, user.to_owned(), credential))))
            }
            _ => continue,
        };
        match outcome {
            Ok(checked) => return Ok(checked),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(at_ns: u64) -> CheckedEntry {
        CheckedEntry { principal: KafkaPrincipal::user("alice"), scram: None, at_ns }
    }

    #[test]
    fn remembered_checks_are_bounded_and_keyed_by_user_and_password() {
        let mut checked = Checked::new();
        assert_ne!(checked.id("ab", "c"), checked.id("a", "bc"), "the user's end is part of the hash");
        assert_ne!(Checked::new().id("a", "b"), checked.id("a", "b"), "each process has its own key");
        for i in 0..CHECKED_ENTRIES_MAX + 10 {
            let id = checked.id(&format!("user-{i}"), "secret");
            checked.insert(id, entry(i as u64));
        }
        assert_eq!(checked.entries.len(), CHECKED_ENTRIES_MAX);
        assert!(!checked.entries.contains_key(&checked.id("user-0", "secret")), "the oldest went first");
        assert!(checked.entries.contains_key(&checked.id(&format!("user-{CHECKED_ENTRIES_MAX}"), "secret")));
        let expiry = u64::try_from(CHECKED_EXPIRY.as_nanos()).expect("fits");
        assert!(fresh(5, 5 + expiry - 1));
        assert!(!fresh(5, 5 + expiry));
    }
}
