//! SASL/OAUTHBEARER (RFC 7628) as Kafka's `OAuthBearerSaslServer` runs it: the client's initial
//! response `n,[a=authzid],\x01auth=Bearer <token>\x01[key=value\x01]...\x01` carries a token
//! that a [`TokenValidator`] checks; the other `key=value` pairs are SASL extensions, all
//! accepted (as both of Kafka's validators do) and exposed through [`SaslServer::extensions`].
//!
//! A refused token is answered, as RFC 7628 §3.2.2 and Kafka do, with the JSON error challenge
//! (`{"status":"invalid_token"}`); the client then sends `\x01` and the exchange fails with that
//! JSON as the message. A malformed response fails at once behind Kafka's generic message.
//!
//! - [`unsecured`]: Kafka's default validator of unsigned (`alg: none`) tokens, for tests.
//! - [`jwks`]: KIP-768's validator of signed JWTs against a JWK set the server fetches.

pub mod jwks;
pub mod unsecured;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use strand_base::Clock;

use super::scram_messages::is_sasl_name;
use super::{AuthFailure, SaslServer, Step};
use crate::KafkaPrincipal;

pub use jwks::{CurrentJwks, JwksSettings, JwksValidator};
pub use unsecured::UnsecuredValidator;

/// The mechanism's IANA name.
pub const OAUTHBEARER: &str = "OAUTHBEARER";

/// The longest client response read. JWTs with many claims reach a few KiB.
pub const OAUTHBEARER_RESPONSE_BYTES_MAX: usize = 64 * 1024;

/// Extensions kept from one response; more fail the exchange.
pub const OAUTHBEARER_EXTENSIONS_MAX: usize = 64;

/// Initial responses one exchange may send: Kafka re-reads a response after an error challenge
/// as a new attempt; Strand allows that a few times rather than without end.
pub const OAUTHBEARER_ATTEMPTS_MAX: u32 = 3;

/// The SASL control character `\x01` that separates RFC 7628's key-value pairs.
const SEPARATOR: char = '\u{1}';

/// A token a validator accepted: Kafka's `OAuthBearerToken`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidatedToken {
    pub principal_name: String,
    pub scope: BTreeSet<String>,
    /// When the token expires, in ms since the Unix epoch.
    pub lifetime_ms: i64,
    /// When it was issued (`iat`), if it says.
    pub start_time_ms: Option<i64>,
}

/// Why a validator refused a token: the RFC 7628 error it answers, and a reason for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRefusal {
    /// `invalid_token`, or `insufficient_scope` when a required scope is missing.
    pub status: &'static str,
    /// The required scope, when that was what was missing.
    pub scope: Option<String>,
    pub detail: String,
}

impl TokenRefusal {
    pub fn invalid(detail: impl Into<String>) -> TokenRefusal {
        TokenRefusal { status: "invalid_token", scope: None, detail: detail.into() }
    }

    /// Kafka's `jsonErrorResponse`, spacing included.
    fn json(&self) -> String {
        match &self.scope {
            Some(scope) => format!("{{\"status\":\"{}\", \"scope\":\"{scope}\"}}", self.status),
            None => format!("{{\"status\":\"{}\"}}", self.status),
        }
    }
}

/// Checks a bearer token: Kafka's `OAuthBearerValidatorCallback` handlers.
pub trait TokenValidator: Send + Sync + std::fmt::Debug {
    /// Validates `token` at `now_ms` (ms since the Unix epoch).
    fn validate(&self, token: &str, now_ms: i64) -> Result<ValidatedToken, TokenRefusal>;
}

/// The client's initial response, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientInitialResponse {
    pub authzid: String,
    pub token: String,
    pub extensions: BTreeMap<String, String>,
}

/// Parses an initial response with the grammar of Kafka's `OAuthBearerClientInitialResponse`;
/// the error is Kafka's `SaslException` text.
pub fn parse_client_initial_response(bytes: &[u8]) -> Result<ClientInitialResponse, String> {
    let invalid = || "Invalid OAUTHBEARER client first message".to_owned();
    let text = std::str::from_utf8(bytes).map_err(|_| invalid())?;
    let rest = text.strip_prefix("n,").ok_or_else(invalid)?;
    let (authzid_part, rest) = rest.split_once(',').ok_or_else(invalid)?;
    let authzid = match authzid_part {
        "" => "",
        part => part.strip_prefix("a=").filter(|name| is_sasl_name(name)).ok_or_else(invalid)?,
    };
    let pairs = rest.strip_prefix(SEPARATOR).and_then(|r| r.strip_suffix(SEPARATOR)).ok_or_else(invalid)?;
    let mut properties = BTreeMap::new();
    if !pairs.is_empty() {
        let body = pairs.strip_suffix(SEPARATOR).ok_or_else(invalid)?;
        for pair in body.split(SEPARATOR) {
            let (key, value) = pair.split_once('=').ok_or_else(invalid)?;
            let key_ok = !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphabetic());
            let value_ok =
                !value.is_empty() && value.bytes().all(|b| (0x21..=0x7E).contains(&b) || b" \t\r\n".contains(&b));
            if !key_ok || !value_ok {
                return Err(invalid());
            }
            properties.insert(key.to_owned(), value.to_owned());
        }
    }
    let auth = properties.remove("auth").ok_or("Invalid OAUTHBEARER client first message: 'auth' not specified")?;
    if properties.len() > OAUTHBEARER_EXTENSIONS_MAX {
        return Err(format!(
            "Invalid OAUTHBEARER client first message: more than {OAUTHBEARER_EXTENSIONS_MAX} extensions"
        ));
    }
    let token = parse_auth(&auth)?;
    Ok(ClientInitialResponse { authzid: authzid.to_owned(), token: token.to_owned(), extensions: properties })
}

/// `auth`: `scheme SP+ token`, the scheme `Bearer` in any case, the token `[-_.a-zA-Z0-9]+`.
fn parse_auth(auth: &str) -> Result<&str, String> {
    let format = || "Invalid OAUTHBEARER client first message: invalid 'auth' format".to_owned();
    let (scheme, token) = auth.split_once(' ').ok_or_else(format)?;
    let token = token.trim_start_matches(' ');
    let scheme_ok = !scheme.is_empty() && scheme.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    let token_ok = !token.is_empty() && token.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if !scheme_ok || !token_ok {
        return Err(format());
    }
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(format!("Invalid scheme in OAUTHBEARER client first message: {scheme}"));
    }
    Ok(token)
}

/// The OAUTHBEARER server of one connection.
#[derive(Debug)]
pub struct OAuthBearerServer {
    validator: Arc<dyn TokenValidator>,
    clock: Arc<dyn Clock>,
    /// The JSON error last sent as a challenge, awaiting the client's `\x01`.
    error: Option<(String, String)>,
    attempts: u32,
    finished: bool,
    extensions: BTreeMap<String, String>,
}

impl OAuthBearerServer {
    pub fn new(validator: Arc<dyn TokenValidator>, clock: Arc<dyn Clock>) -> OAuthBearerServer {
        OAuthBearerServer { validator, clock, error: None, attempts: 0, finished: false, extensions: BTreeMap::new() }
    }

    fn fail(&mut self, detail: impl Into<String>, user: Option<String>) -> AuthFailure {
        self.finished = true;
        AuthFailure::hidden(OAUTHBEARER, detail, user)
    }

    fn attempt(&mut self, bytes: &[u8]) -> Result<Step, AuthFailure> {
        let response = parse_client_initial_response(bytes).map_err(|detail| self.fail(detail, None))?;
        let now_ms = self.clock.now_ms();
        let token = match self.validator.validate(&response.token, now_ms) {
            Ok(token) => token,
            Err(refusal) => {
                let json = refusal.json();
                self.error = Some((json.clone(), refusal.detail));
                return Ok(Step::Challenge(json.into_bytes()));
            }
        };
        let user = token.principal_name;
        if !response.authzid.is_empty() && response.authzid != user {
            self.finished = true;
            return Err(AuthFailure::told(
                format!(
                    "Authentication failed: Client requested an authorization id ({}) that is different from the \
                     token's principal name ({user})",
                    response.authzid
                ),
                Some(user),
            ));
        }
        self.finished = true;
        self.extensions = response.extensions;
        let lifetime = u64::try_from(token.lifetime_ms.saturating_sub(now_ms)).unwrap_or(0);
        Ok(Step::Done {
            principal: KafkaPrincipal::user(user),
            response: Vec::new(),
            lifetime: Some(Duration::from_millis(lifetime)),
        })
    }
}

impl SaslServer for OAuthBearerServer {
    fn mechanism(&self) -> &'static str {
        OAUTHBEARER
    }

    fn step(&mut self, token: &[u8]) -> Result<Step, AuthFailure> {
        if self.finished {
            return Err(self.fail("Authentication exchange has completed", None));
        }
        if token.len() > OAUTHBEARER_RESPONSE_BYTES_MAX {
            let detail =
                format!("OAUTHBEARER response of {} bytes is over {OAUTHBEARER_RESPONSE_BYTES_MAX}", token.len());
            return Err(self.fail(detail, None));
        }
        if let Some((json, detail)) = self.error.take()
            && token == [0x01]
        {
            self.finished = true;
            return Err(AuthFailure::told(json, None).with_detail(detail));
        }
        self.attempts += 1;
        if self.attempts > OAUTHBEARER_ATTEMPTS_MAX {
            return Err(self.fail(format!("more than {OAUTHBEARER_ATTEMPTS_MAX} OAUTHBEARER attempts"), None));
        }
        self.attempt(token)
    }

    fn extensions(&self) -> &BTreeMap<String, String> {
        &self.extensions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's grammar: authzid, extensions, any-case scheme; each refusal's message.
    #[test]
    fn initial_response_grammar() {
        let parsed = parse_client_initial_response(b"n,a=bob,\x01traceId=x y=z\x01auth=bEaReR  abc.def-_1\x01\x01")
            .expect("valid");
        assert_eq!(parsed.authzid, "bob");
        assert_eq!(parsed.token, "abc.def-_1");
        assert_eq!(parsed.extensions.get("traceId").map(String::as_str), Some("x y=z"));
        let cases: [(&[u8], &str); 6] = [
            (b"n,,\x01auth=Bearer t\x01", "Invalid OAUTHBEARER client first message"),
            (b"y,,\x01auth=Bearer t\x01\x01", "Invalid OAUTHBEARER client first message"),
            (b"n,,\x01a1=b\x01auth=Bearer t\x01\x01", "Invalid OAUTHBEARER client first message"),
            (b"n,,\x01x=y\x01\x01", "Invalid OAUTHBEARER client first message: 'auth' not specified"),
            (b"n,,\x01auth=Bearer t!\x01\x01", "Invalid OAUTHBEARER client first message: invalid 'auth' format"),
            (b"n,,\x01auth=Basic dA\x01\x01", "Invalid scheme in OAUTHBEARER client first message: Basic"),
        ];
        for (bytes, expected) in cases {
            assert_eq!(parse_client_initial_response(bytes), Err(expected.to_owned()), "{bytes:?}");
        }
    }
}
