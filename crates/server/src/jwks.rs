//! The JWK sets of the SASL listeners that validate OAUTHBEARER tokens with Kafka's KIP-768
//! handler ([`crate::config::oauthbearer`]), fetched as Kafka's `RefreshingHttpsJwks` and
//! `JwksFileVerificationKeyResolver` do:
//!
//! - [`JwksFeed::start`] loads the set once, at start-up, before any listener binds; a failure
//!   stops the start (Kafka's handler fails to initialise and the broker stops).
//! - [`JwksFeed::refresh_forever`] (the `jwks refresh` task) fetches it again every
//!   `sasl.oauthbearer.jwks.endpoint.refresh.ms`, retrying a failed fetch with exponential
//!   backoff from `...retry.backoff.ms` for at most `...retry.backoff.max.ms`, and swaps the
//!   [`CurrentJwks`] only after a fetch succeeds (a failed refresh keeps the old set).
//! - A token naming a `kid` the set lacks refreshes at once, at most once a minute for each of
//!   the last [`MISSING_KEY_IDS_MAX`] such `kid`s, as Kafka's `maybeExpediteRefresh`; that token
//!   itself is refused.
//!
//! Every fetch reads at most [`JWKS_BYTES_MAX`] bytes within [`JWKS_FETCH_TIMEOUT`], following
//! at most [`JWKS_REDIRECTS_MAX`] redirects and none to another scheme (as Java's HTTP client).
//! A `file:` set is read again at each refresh.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use strand_security::sasl::oauthbearer::CurrentJwks;
use strand_security::sasl::oauthbearer::jwks::{JWKS_BYTES_MAX, JwkSet};
use tokio::io::AsyncReadExt;
use tokio::sync::Notify;
use tokio::time::{Instant, MissedTickBehavior};
use tracing::{debug, info, warn};

use crate::config::oauthbearer::{JwksEndpoint, JwksSource};

/// The longest one fetch of a JWK set may take, connection and body included.
pub const JWKS_FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// Redirects one fetch follows.
pub const JWKS_REDIRECTS_MAX: usize = 10;

/// Missing `kid`s remembered for the early refresh's rate (Kafka's 16).
pub const MISSING_KEY_IDS_MAX: usize = 16;

/// A longer `kid` refreshes nothing (Kafka's 1,000 characters).
pub const MISSING_KEY_ID_BYTES_MAX: usize = 1000;

/// How long a missing `kid` waits before it may refresh again (Kafka's one minute).
const MISSING_KEY_ID_PAUSE: Duration = Duration::from_secs(60);

/// One listener's JWK set and what keeps it current.
#[derive(Debug)]
pub struct JwksFeed {
    endpoint: JwksEndpoint,
    fetcher: Fetcher,
    keys: Arc<CurrentJwks>,
    missing: Arc<MissingKeys>,
    /// Woken by a token naming a missing `kid`.
    early: Arc<Notify>,
}

impl JwksFeed {
    /// Loads the endpoint's set, once; the error says which listener and why.
    pub async fn start(endpoint: JwksEndpoint) -> Result<JwksFeed, String> {
        let failed = |e: String| {
            format!(
                "SASL listener {}: the OAuth validator configuration encountered an error when initializing the \
                 VerificationKeyResolver: {e}",
                endpoint.listener
            )
        };
        let fetcher = Fetcher::new(&endpoint).await.map_err(failed)?;
        let set = fetcher.fetch().await.map_err(failed)?;
        info!(
            "SASL listener {}: JWKS of {} loaded ({} keys), refreshed every {} ms",
            endpoint.listener,
            fetcher,
            set.keys.len(),
            endpoint.refresh.as_millis()
        );
        let keys = Arc::new(CurrentJwks::new(set));
        let (missing, early) = (Arc::new(MissingKeys::default()), Arc::new(Notify::new()));
        let (hook_missing, hook_early) = (Arc::clone(&missing), Arc::clone(&early));
        keys.on_missing_key(move |kid| {
            if hook_missing.admit(kid, Instant::now()) {
                hook_early.notify_one();
            }
        });
        Ok(JwksFeed { endpoint, fetcher, keys, missing, early })
    }

    /// The set the listener's validator reads.
    pub fn keys(&self) -> Arc<CurrentJwks> {
        Arc::clone(&self.keys)
    }

    /// Refreshes on schedule and on a missing `kid`, until aborted.
    pub async fn refresh_forever(self) {
        let period = self.endpoint.refresh;
        let mut schedule = tokio::time::interval_at(Instant::now() + period, period);
        schedule.set_missed_tick_behavior(MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = schedule.tick() => {}
                () = self.early.notified() => debug!("OAuth JWKS refresh of {} expedited", self.fetcher),
            }
            match self.fetch_with_retries().await {
                Ok(set) => {
                    self.missing.forget(&set);
                    info!("OAuth JWKS refresh of {} complete ({} keys)", self.fetcher, set.keys.len());
                    self.keys.replace(set);
                }
                Err(e) => warn!(
                    "OAuth JWKS refresh of {} encountered an error; not updating local JWKS cache: {e}",
                    self.fetcher
                ),
            }
        }
    }

    /// Kafka's `Retry`: attempts until `retry_backoff_max` has passed, waiting `retry_backoff`
    /// doubled after each failure (never past the end); the last error.
    async fn fetch_with_retries(&self) -> Result<JwkSet, String> {
        let end = Instant::now() + self.endpoint.retry_backoff_max;
        let mut failures: u32 = 0;
        loop {
            let error = match self.fetcher.fetch().await {
                Ok(set) => return Ok(set),
                Err(error) => error,
            };
            let wait = self
                .endpoint
                .retry_backoff
                .saturating_mul(1u32.checked_shl(failures).unwrap_or(u32::MAX))
                .min(end.saturating_duration_since(Instant::now()));
            if wait.is_zero() {
                return Err(error);
            }
            failures = failures.saturating_add(1);
            debug!("OAuth JWKS fetch of {} failed (attempt {failures}), retrying in {wait:?}: {error}", self.fetcher);
            tokio::time::sleep(wait).await;
        }
    }
}

/// How a set is read.
#[derive(Debug)]
enum Fetcher {
    File(PathBuf),
    Http { url: String, client: reqwest::Client },
}

impl std::fmt::Display for Fetcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fetcher::File(path) => write!(f, "{}", path.display()),
            Fetcher::Http { url, .. } => f.write_str(url),
        }
    }
}

impl Fetcher {
    async fn new(endpoint: &JwksEndpoint) -> Result<Fetcher, String> {
        let url = match &endpoint.source {
            JwksSource::File(path) => return Ok(Fetcher::File(path.clone())),
            JwksSource::Http(url) => url.clone(),
        };
        let tls = tls_config(endpoint.trust_store.as_ref()).await?;
        let client = reqwest::Client::builder()
            .use_preconfigured_tls(tls)
            .connect_timeout(JWKS_FETCH_TIMEOUT)
            .timeout(JWKS_FETCH_TIMEOUT)
            .redirect(reqwest::redirect::Policy::custom(|attempt| {
                let same_scheme = attempt.previous().last().is_none_or(|from| from.scheme() == attempt.url().scheme());
                match attempt.previous().len() {
                    n if n > JWKS_REDIRECTS_MAX => attempt.error("too many redirects"),
                    _ if !same_scheme => attempt.stop(),
                    _ => attempt.follow(),
                }
            }))
            .build()
            .map_err(|e| format!("cannot make the HTTPS client for {url}: {e}"))?;
        Ok(Fetcher::Http { url, client })
    }

    /// One fetch, bounded in time and size, parsed.
    async fn fetch(&self) -> Result<JwkSet, String> {
        let document = tokio::time::timeout(JWKS_FETCH_TIMEOUT, self.read())
            .await
            .map_err(|_| format!("no JWKS from {self} within {} s", JWKS_FETCH_TIMEOUT.as_secs()))??;
        CurrentJwks::parse(&document).map_err(|e| format!("{self}: {e}"))
    }

    async fn read(&self) -> Result<Vec<u8>, String> {
        let limit = JWKS_BYTES_MAX;
        let mut document = Vec::new();
        match self {
            Fetcher::File(path) => {
                let file = tokio::fs::File::open(path).await.map_err(|e| format!("cannot read {self}: {e}"))?;
                let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
                file.take(cap).read_to_end(&mut document).await.map_err(|e| format!("cannot read {self}: {e}"))?;
            }
            Fetcher::Http { url, client } => {
                let mut response = client.get(url).send().await.map_err(|e| format!("GET {url}: {}", causes(&e)))?;
                if !response.status().is_success() {
                    return Err(format!("GET {url} answered HTTP {}", response.status()));
                }
                while let Some(chunk) = response.chunk().await.map_err(|e| format!("GET {url}: {}", causes(&e)))? {
                    if document.len().saturating_add(chunk.len()) > limit {
                        return Err(format!("GET {url}: a JWKS document over {limit} bytes"));
                    }
                    document.extend_from_slice(&chunk);
                }
            }
        }
        Ok(document)
    }
}

/// `error` and its sources: reqwest's own text hides why (an untrusted certificate, say).
fn causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// rustls with ring, trusting Mozilla's roots or only the PEM certificates of `trust_store`.
async fn tls_config(trust_store: Option<&PathBuf>) -> Result<rustls::ClientConfig, String> {
    let mut roots = rustls::RootCertStore::empty();
    match trust_store {
        None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
        Some(path) => {
            let pem = tokio::fs::read(path).await.map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            for certificate in CertificateDer::pem_slice_iter(&pem) {
                let certificate = certificate.map_err(|e| format!("{}: {e}", path.display()))?;
                roots.add(certificate).map_err(|e| format!("{}: {e}", path.display()))?;
            }
            if roots.is_empty() {
                return Err(format!("{} holds no PEM certificate", path.display()));
            }
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(config)
}

/// The `kid`s that lately asked for an early refresh, each with when it may ask again; the
/// oldest forgotten past [`MISSING_KEY_IDS_MAX`].
#[derive(Debug, Default)]
struct MissingKeys {
    recent: Mutex<VecDeque<(String, Instant)>>,
}

impl MissingKeys {
    /// Whether `kid`, missing at `now`, may refresh early.
    fn admit(&self, kid: &str, now: Instant) -> bool {
        if kid.len() > MISSING_KEY_ID_BYTES_MAX {
            warn!("Key ID of {} bytes was too long to cache", kid.len());
            return false;
        }
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = recent.iter().position(|(seen, _)| seen == kid) {
            if recent[at].1 > now {
                return false;
            }
            recent.remove(at);
        }
        recent.push_back((kid.to_owned(), now + MISSING_KEY_ID_PAUSE));
        if recent.len() > MISSING_KEY_IDS_MAX {
            recent.pop_front();
        }
        true
    }

    /// Forgets the `kid`s `set` holds.
    fn forget(&self, set: &JwkSet) {
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        recent.retain(|(kid, _)| !set.keys.iter().any(|jwk| jwk.common.key_id.as_deref() == Some(kid)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A missing `kid` refreshes once a minute at most; an over-long one never; the 17th
    /// pushes out the oldest.
    #[test]
    fn missing_key_ids_refresh_at_a_bounded_rate() {
        let missing = MissingKeys::default();
        let now = Instant::now();
        assert!(missing.admit("k1", now));
        assert!(!missing.admit("k1", now + Duration::from_secs(59)));
        assert!(missing.admit("k1", now + MISSING_KEY_ID_PAUSE));
        assert!(!missing.admit(&"k".repeat(MISSING_KEY_ID_BYTES_MAX + 1), now));
        for i in 0..MISSING_KEY_IDS_MAX {
            assert!(missing.admit(&format!("other-{i}"), now));
        }
        assert!(missing.admit("k1", now + Duration::from_secs(61)), "forgotten as the oldest");
        missing.forget(&JwkSet { keys: Vec::new() });
        assert!(!missing.admit("k1", now + Duration::from_secs(62)), "still remembered");
    }
}
