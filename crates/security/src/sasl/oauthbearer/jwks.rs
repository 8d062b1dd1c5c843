//! KIP-768's broker validator (Kafka's `OAuthBearerValidatorCallbackHandler` with
//! `BrokerJwtValidator`): signed JWTs checked against the identity provider's JWK set, then
//! `sasl.oauthbearer.expected.audience`, `.expected.issuer`, `.clock.skew.seconds`, and the
//! principal and scope from `.sub.claim.name` and `.scope.claim.name`.
//!
//! Signatures are `jsonwebtoken`'s (RustCrypto backend); `none` cannot be expressed in it, so
//! an unsigned token is always refused. Times are checked here against the caller's clock, not
//! the library's. Fetching `sasl.oauthbearer.jwks.endpoint.url` is the server's job: it parses
//! each fetched document with [`CurrentJwks::parse`] and swaps it in with
//! [`CurrentJwks::replace`]; validators read whichever set is current. A token naming a `kid`
//! the set lacks is refused and reported to [`CurrentJwks::on_missing_key`]'s hook, which the
//! server uses to refresh early (Kafka's `maybeExpediteRefresh`).

use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock, RwLock};

pub use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::jwk::{Jwk, PublicKeyUse};
use jsonwebtoken::{DecodingKey, Validation};
use serde_json::{Map, Value};

use super::{TokenRefusal, TokenValidator, ValidatedToken};

/// The largest JWKS document parsed.
pub const JWKS_BYTES_MAX: usize = 1 << 20;
/// The most keys a JWK set may hold.
pub const JWKS_KEYS_MAX: usize = 256;

/// What is told of a `kid` the current set lacks.
type MissingKeyHook = Box<dyn Fn(&str) + Send + Sync>;

/// The JWK set in force, swapped whole when the server fetches a new one.
pub struct CurrentJwks {
    keys: RwLock<Arc<JwkSet>>,
    missing_key: OnceLock<MissingKeyHook>,
}

impl std::fmt::Debug for CurrentJwks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CurrentJwks").field("keys", &self.get().keys.len()).finish_non_exhaustive()
    }
}

impl CurrentJwks {
    pub fn new(keys: JwkSet) -> CurrentJwks {
        CurrentJwks { keys: RwLock::new(Arc::new(keys)), missing_key: OnceLock::new() }
    }

    /// Calls `hook` with each `kid` a token names that the current set lacks, on the validating
    /// thread: it must be quick. Only the first hook set is kept.
    pub fn on_missing_key(&self, hook: impl Fn(&str) + Send + Sync + 'static) {
        let _ = self.missing_key.set(Box::new(hook));
    }

    fn report_missing(&self, kid: &str) {
        if let Some(hook) = self.missing_key.get() {
            hook(kid);
        }
    }

    /// A JWKS document (`{"keys": [...]}`), bounded by [`JWKS_BYTES_MAX`] and [`JWKS_KEYS_MAX`].
    /// A key that cannot verify signatures (an unknown `kty` or curve, `"use": "enc"`) is
    /// skipped, as jose4j skips it, so one exotic key does not take the whole set away.
    pub fn parse(document: &[u8]) -> Result<JwkSet, String> {
        if document.len() > JWKS_BYTES_MAX {
            return Err(format!("JWKS document of {} bytes is over {JWKS_BYTES_MAX}", document.len()));
        }
        let value: Value = serde_json::from_slice(document).map_err(|e| format!("Invalid JWKS document: {e}"))?;
        let Some(Value::Array(entries)) = value.get("keys") else {
            return Err("Invalid JWKS document: no \"keys\" array".into());
        };
        if entries.len() > JWKS_KEYS_MAX {
            return Err(format!("JWKS document has {} keys, over {JWKS_KEYS_MAX}", entries.len()));
        }
        let keys = entries
            .iter()
            .filter_map(|entry| serde_json::from_value::<Jwk>(entry.clone()).ok())
            .filter(|jwk| jwk.common.public_key_use.as_ref().is_none_or(|key_use| *key_use == PublicKeyUse::Signature))
            .filter(|jwk| DecodingKey::from_jwk(jwk).is_ok())
            .collect();
        Ok(JwkSet { keys })
    }

    /// Puts `keys` in force for every validation that starts after this.
    pub fn replace(&self, keys: JwkSet) {
        let mut current = self.keys.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        *current = Arc::new(keys);
    }

    pub fn get(&self) -> Arc<JwkSet> {
        Arc::clone(&self.keys.read().unwrap_or_else(std::sync::PoisonError::into_inner))
    }
}

/// The `sasl.oauthbearer.*` settings of the broker validator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JwksSettings {
    /// `sasl.oauthbearer.expected.audience`; empty checks none (a token with `aud` is then
    /// refused, as jose4j does).
    pub expected_audience: Vec<String>,
    /// `sasl.oauthbearer.expected.issuer`.
    pub expected_issuer: Option<String>,
    /// `sasl.oauthbearer.clock.skew.seconds`, default 30.
    pub clock_skew_seconds: i64,
    /// `sasl.oauthbearer.sub.claim.name`, default `sub`.
    pub sub_claim_name: String,
    /// `sasl.oauthbearer.scope.claim.name`, default `scope`.
    pub scope_claim_name: String,
}

impl Default for JwksSettings {
    fn default() -> JwksSettings {
        JwksSettings {
            expected_audience: Vec::new(),
            expected_issuer: None,
            clock_skew_seconds: 30,
            sub_claim_name: "sub".into(),
            scope_claim_name: "scope".into(),
        }
    }
}

/// The broker validator over the current JWK set.
#[derive(Debug, Clone)]
pub struct JwksValidator {
    keys: Arc<CurrentJwks>,
    settings: JwksSettings,
}

impl JwksValidator {
    pub fn new(keys: Arc<CurrentJwks>, settings: JwksSettings) -> JwksValidator {
        JwksValidator { keys, settings }
    }

    /// Signature, audience and issuer, by `jsonwebtoken`; the claims, unchecked for time.
    fn verified_claims(&self, token: &str) -> Result<Map<String, Value>, String> {
        let header = jsonwebtoken::decode_header(token).map_err(|e| e.to_string())?;
        let keys = self.keys.get();
        if let Some(kid) = header.kid.as_deref()
            && !keys.keys.iter().any(|jwk| jwk.common.key_id.as_deref() == Some(kid))
        {
            self.keys.report_missing(kid);
        }
        let jwk = select_key(&keys, header.kid.as_deref(), header.alg).ok_or_else(|| {
            format!(
                "Unable to find a suitable verification key for JWS w/ kid {:?} and alg {:?}",
                header.kid, header.alg
            )
        })?;
        let key = DecodingKey::from_jwk(jwk).map_err(|e| e.to_string())?;
        let mut validation = Validation::new(header.alg);
        validation.leeway = 0;
        validation.validate_exp = false;
        validation.validate_nbf = false;
        let mut required = vec!["exp"];
        if !self.settings.expected_audience.is_empty() {
            validation.set_audience(&self.settings.expected_audience);
            required.push("aud");
        }
        if let Some(issuer) = &self.settings.expected_issuer {
            validation.set_issuer(&[issuer]);
            required.push("iss");
        }
        validation.set_required_spec_claims(&required);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation).map_err(|e| e.to_string())?;
        Ok(data.claims)
    }

    fn check(&self, token: &str, now_ms: i64) -> Result<ValidatedToken, String> {
        let claims = self.verified_claims(token)?;
        let skew_ms = self.settings.clock_skew_seconds.saturating_mul(1000);
        let expiration = time_claim_ms(&claims, "exp")?.ok_or("No Expiration Time (exp) claim present.")?;
        let issued_at = time_claim_ms(&claims, "iat")?.ok_or("No Issued At (iat) claim present.")?;
        if now_ms.saturating_sub(skew_ms) >= expiration {
            return Err(format!(
                "The JWT is no longer valid - the evaluation time {now_ms} ms is on or after the Expiration Time {expiration} ms"
            ));
        }
        if let Some(not_before) = time_claim_ms(&claims, "nbf")?
            && now_ms.saturating_add(skew_ms) < not_before
        {
            return Err(format!(
                "The JWT is not yet valid as the evaluation time {now_ms} ms is before the Not Before {not_before} ms"
            ));
        }
        if expiration < 0 || issued_at < 0 {
            return Err("exp and iat values must be non-negative".into());
        }
        let sub_name = &self.settings.sub_claim_name;
        let principal_name = match claims.get(sub_name) {
            Some(Value::String(sub)) if !sub.trim().is_empty() => sub.trim().to_owned(),
            Some(Value::String(_)) => return Err(format!("{sub_name} value must be non-empty")),
            None | Some(Value::Null) => return Err(format!("{sub_name} value must be non-null")),
            Some(_) => return Err(format!("Could not extract the '{sub_name}' claim from the access token")),
        };
        let scope = scope(&claims, &self.settings.scope_claim_name)?;
        Ok(ValidatedToken { principal_name, scope, lifetime_ms: expiration, start_time_ms: Some(issued_at) })
    }
}

impl TokenValidator for JwksValidator {
    /// Kafka answers every failure of this validator with `invalid_token`.
    fn validate(&self, token: &str, now_ms: i64) -> Result<ValidatedToken, TokenRefusal> {
        self.check(token, now_ms)
            .map_err(|e| TokenRefusal::invalid(format!("Could not validate the access token: {e}")))
    }
}

/// The key for a token: the one its `kid` names, else the only one of its algorithm's family.
fn select_key<'a>(keys: &'a JwkSet, kid: Option<&str>, alg: jsonwebtoken::Algorithm) -> Option<&'a Jwk> {
    let fits = |jwk: &&Jwk| {
        let kid_fits = kid.is_none_or(|kid| jwk.common.key_id.as_deref() == Some(kid));
        let alg_fits =
            jwk.common.key_algorithm.is_none_or(|key_alg| key_alg == jsonwebtoken::jwk::KeyAlgorithm::from(alg));
        let family_fits = DecodingKey::from_jwk(jwk).is_ok_and(|key| key.family() == alg.family());
        kid_fits && alg_fits && family_fits
    };
    let mut candidates = keys.keys.iter().filter(fits);
    let first = candidates.next()?;
    (kid.is_some() || candidates.next().is_none()).then_some(first)
}

/// A NumericDate claim in ms, if present.
fn time_claim_ms(claims: &Map<String, Value>, name: &str) -> Result<Option<i64>, String> {
    match claims.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(number)) => {
            let seconds = number.as_f64().ok_or_else(|| format!("The value of the '{name}' claim is not a number"))?;
            Ok(Some((seconds * 1000.0) as i64))
        }
        Some(_) => Err(format!("The value of the '{name}' claim is not the expected type")),
    }
}

/// Kafka's `validateClaimScopes`: a string claim is one scope, a list is each element; each
/// must be a non-blank string.
fn scope(claims: &Map<String, Value>, name: &str) -> Result<BTreeSet<String>, String> {
    let items: Vec<&Value> = match claims.get(name) {
        Some(Value::String(_)) => claims.get(name).into_iter().collect(),
        Some(Value::Array(items)) => items.iter().collect(),
        _ => Vec::new(),
    };
    items
        .into_iter()
        .map(|item| match item {
            Value::String(scope) if !scope.trim().is_empty() => Ok(scope.trim().to_owned()),
            _ => Err(format!("{name} value must be non-empty")),
        })
        .collect()
}
