//! SASL/PLAIN (RFC 4616) as Kafka's `PlainSaslServer` and `PlainServerCallbackHandler` run it:
//! one client token `authzid NUL authcid NUL passwd`, checked against the `user_NAME="password"`
//! options of the listener's `PlainLoginModule` JAAS entry, in constant time.
//!
//! Kafka splits the token at its first two NULs only (the password keeps any further NUL), and
//! a missing part is empty; an empty username or password is a hidden failure, a wrong pair or a
//! foreign authorization id a told one. Also [`PlainClient`], for the node's own links.

use std::collections::BTreeMap;
use std::fmt;

use subtle::ConstantTimeEq;

use super::jaas::{JaasEntry, PLAIN_LOGIN_MODULE};
use super::{AuthFailure, ClientStep, SaslClient, SaslServer, Step};
use crate::KafkaPrincipal;

/// The mechanism's IANA name.
pub const PLAIN: &str = "PLAIN";

/// The longest client token read: RFC 4616 asks for 255 bytes a part; this leaves room for long
/// passwords while bounding what one exchange can make the node hash and compare.
pub const PLAIN_RESPONSE_BYTES_MAX: usize = 64 * 1024;

/// The JAAS option prefix that names a user (`user_alice="alice-secret"`).
const USER_PREFIX: &str = "user_";

/// The users a PLAIN listener accepts: its JAAS entry's `user_NAME` options. Never printed.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct PlainUsers {
    passwords: BTreeMap<String, Vec<u8>>,
}

impl fmt::Debug for PlainUsers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlainUsers").field("users", &self.passwords.keys().collect::<Vec<_>>()).finish()
    }
}

impl PlainUsers {
    /// The users of a PLAIN listener's JAAS entry. Kafka reads `user_` options only from a
    /// `PlainLoginModule` entry and would fail every login under another module; Strand refuses
    /// such a config at start-up instead.
    pub fn from_jaas(entry: &JaasEntry) -> Result<PlainUsers, String> {
        if entry.login_module != PLAIN_LOGIN_MODULE {
            return Err(format!(
                "SASL mechanism PLAIN needs login module {PLAIN_LOGIN_MODULE} in sasl.jaas.config, found {}",
                entry.login_module
            ));
        }
        let passwords = entry
            .options
            .iter()
            .filter_map(|(key, value)| Some((key.strip_prefix(USER_PREFIX)?.to_owned(), value.as_bytes().to_vec())))
            .collect();
        Ok(PlainUsers { passwords })
    }

    /// A table of `(user, password)` pairs, for tests and tools.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> PlainUsers {
        let passwords =
            pairs.into_iter().map(|(user, password)| (user.to_owned(), password.as_bytes().to_vec())).collect();
        PlainUsers { passwords }
    }

    pub fn is_empty(&self) -> bool {
        self.passwords.is_empty()
    }

    /// Whether `password` is `user`'s, compared in constant time (for a known user; an unknown
    /// one is compared against itself so both take the same path).
    pub fn verify(&self, user: &str, password: &[u8]) -> bool {
        match self.passwords.get(user) {
            Some(expected) => bool::from(expected.as_slice().ct_eq(password)),
            None => {
                let _ = password.ct_eq(password);
                false
            }
        }
    }
}

/// The PLAIN server of one connection.
#[derive(Debug)]
pub struct PlainServer {
    users: std::sync::Arc<PlainUsers>,
    finished: bool,
}

impl PlainServer {
    pub fn new(users: std::sync::Arc<PlainUsers>) -> PlainServer {
        PlainServer { users, finished: false }
    }
}

impl SaslServer for PlainServer {
    fn mechanism(&self) -> &'static str {
        PLAIN
    }

    fn step(&mut self, token: &[u8]) -> Result<Step, AuthFailure> {
        if std::mem::replace(&mut self.finished, true) {
            return Err(AuthFailure::hidden(PLAIN, "Authentication exchange has completed", None));
        }
        if token.len() > PLAIN_RESPONSE_BYTES_MAX {
            let detail = format!("SASL/PLAIN response of {} bytes is over {PLAIN_RESPONSE_BYTES_MAX}", token.len());
            return Err(AuthFailure::hidden(PLAIN, detail, None));
        }
        let (authzid, user, password) = split_response(token);
        let authzid = String::from_utf8_lossy(authzid);
        let user = String::from_utf8_lossy(user).into_owned();
        if user.is_empty() {
            return Err(AuthFailure::hidden(PLAIN, "Authentication failed: username not specified", None));
        }
        if password.is_empty() {
            return Err(AuthFailure::hidden(PLAIN, "Authentication failed: password not specified", Some(user)));
        }
        // Kafka decodes the password as UTF-8 too; a lossy decode keeps a non-UTF-8 password
        // from matching one that shares its replacement characters.
        let password = String::from_utf8_lossy(password);
        if !self.users.verify(&user, password.as_bytes()) {
            return Err(AuthFailure::told("Authentication failed: Invalid username or password", Some(user)));
        }
        if !authzid.is_empty() && authzid != user {
            return Err(AuthFailure::told(
                "Authentication failed: Client requested an authorization id that is different from username",
                Some(user),
            ));
        }
        Ok(Step::Done { principal: KafkaPrincipal::user(user), response: Vec::new(), lifetime: None })
    }
}

/// `authzid NUL authcid NUL passwd`, split at the first two NULs; a missing part is empty.
fn split_response(token: &[u8]) -> (&[u8], &[u8], &[u8]) {
    let mut parts = token.splitn(3, |&b| b == 0);
    let authzid = parts.next().unwrap_or_default();
    let user = parts.next().unwrap_or_default();
    let password = parts.next().unwrap_or_default();
    (authzid, user, password)
}

/// The PLAIN client: one token, no authorization id, as Kafka's clients send it.
pub struct PlainClient {
    user: String,
    password: String,
}

impl fmt::Debug for PlainClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlainClient").field("user", &self.user).finish_non_exhaustive()
    }
}

impl PlainClient {
    pub fn new(user: impl Into<String>, password: impl Into<String>) -> PlainClient {
        PlainClient { user: user.into(), password: password.into() }
    }
}

impl SaslClient for PlainClient {
    fn mechanism(&self) -> &'static str {
        PLAIN
    }

    fn initial_response(&mut self) -> Vec<u8> {
        let mut token = Vec::with_capacity(self.user.len() + self.password.len() + 2);
        token.push(0);
        token.extend_from_slice(self.user.as_bytes());
        token.push(0);
        token.extend_from_slice(self.password.as_bytes());
        token
    }

    /// The server answers a successful PLAIN exchange with an empty token.
    fn step(&mut self, _challenge: &[u8]) -> Result<ClientStep, AuthFailure> {
        Ok(ClientStep::Done)
    }
}
