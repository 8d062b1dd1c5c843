//! SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka's `ScramSaslServer` runs them:
//! client-first → server-first (the credential's salt and iterations, a nonce from the OS's
//! CSPRNG) → client-final (the proof, checked against the StoredKey in constant time) →
//! server-final (`v=` ServerSignature). Also [`ScramClient`], for the node's own links.
//!
//! Like Kafka: only the gs2 header `n` (channel binding refused), an unknown user fails at the
//! first message with the same client-visible message as a wrong proof, and every failure but a
//! foreign authorization id is hidden behind Kafka's generic message. With Kafka's `tokenauth`
//! extension the user is a delegation token's id and its credential comes from
//! [`CredentialStore::token_credential`]; the session's principal is then the token's owner,
//! flagged `token_authenticated` (KIP-48).

use std::fmt;
use std::sync::Arc;

use rand::Rng;
use rand::distributions::Alphanumeric;
use rand::rngs::OsRng;
use subtle::ConstantTimeEq;

use super::scram_messages::{self as messages, ServerFinal};
use super::{AuthFailure, ClientStep, CredentialStore, SaslClient, SaslServer, ScramCredential, Step};
use crate::KafkaPrincipal;
use crate::delegation_token::TOKEN_AUTH_EXTENSION;
use crate::scram::ScramMechanism;

/// The longest SCRAM message read from a peer. Each carries a name, a nonce, a proof or a salt:
/// a few hundred bytes from real clients; the limit bounds what an exchange holds.
pub const SCRAM_MESSAGE_BYTES_MAX: usize = 8 * 1024;

/// Characters of the server's (and the client's) nonce: 32 alphanumerics, 190 bits.
pub const NONCE_CHARS: usize = 32;

/// The server side of one SCRAM exchange.
pub struct ScramServer {
    mechanism: ScramMechanism,
    credentials: Arc<dyn CredentialStore>,
    state: ServerState,
    /// A fixed server nonce, for RFC test vectors only.
    nonce_override: Option<String>,
}

enum ServerState {
    ReceiveClientFirst,
    ReceiveClientFinal(Box<Exchange>),
    Complete,
    Failed,
}

/// What the server keeps between its two steps.
struct Exchange {
    user: String,
    /// Who the session is once the proof checks: the user, or a token's owner.
    principal: KafkaPrincipal,
    /// A token's remaining lifetime, which caps the session's.
    lifetime: Option<std::time::Duration>,
    credential: ScramCredential,
    client_first_bare: String,
    server_first: String,
    nonce: String,
}

impl fmt::Debug for ScramServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            ServerState::ReceiveClientFirst => "RECEIVE_CLIENT_FIRST_MESSAGE",
            ServerState::ReceiveClientFinal(_) => "RECEIVE_CLIENT_FINAL_MESSAGE",
            ServerState::Complete => "COMPLETE",
            ServerState::Failed => "FAILED",
        };
        f.debug_struct("ScramServer").field("mechanism", &self.mechanism).field("state", &state).finish()
    }
}

impl ScramServer {
    pub fn new(mechanism: ScramMechanism, credentials: Arc<dyn CredentialStore>) -> ScramServer {
        ScramServer { mechanism, credentials, state: ServerState::ReceiveClientFirst, nonce_override: None }
    }

    fn fail(&self, detail: impl Into<String>, user: Option<&str>) -> AuthFailure {
        AuthFailure::hidden(self.mechanism.name(), detail, user.map(str::to_owned))
    }

    fn client_first(&mut self, token: &[u8]) -> Result<Step, AuthFailure> {
        let text = std::str::from_utf8(token).unwrap_or_default();
        let Some(first) = messages::parse_client_first(text) else {
            return Err(self.fail(format!("Invalid SCRAM client first message format: {text}"), None));
        };
        let user = messages::username(&first.sasl_name);
        let token_auth =
            first.extensions.iter().any(|(k, v)| k == TOKEN_AUTH_EXTENSION && v.eq_ignore_ascii_case("true"));
        let (credential, principal, lifetime) = if token_auth {
            let Some(token) = self.credentials.token_credential(&user, self.mechanism.name()) else {
                return Err(self.fail(format!("Token Authentication failed: Invalid tokenId : {user}"), Some(&user)));
            };
            let mut owner = token.owner;
            owner.token_authenticated = true;
            (token.credential, owner, Some(token.lifetime))
        } else {
            let Some(credential) = self.credentials.scram_credential(&user, self.mechanism.name()) else {
                return Err(self.fail("Authentication failed: Invalid user credentials", Some(&user)));
            };
            (credential, KafkaPrincipal::user(user.clone()), None)
        };
        if !first.authzid.is_empty() && first.authzid != user {
            return Err(AuthFailure::told(
                "Authentication failed: Client requested an authorization id that is different from username",
                Some(user),
            ));
        }
        if credential.iterations < ScramMechanism::ITERATIONS_MIN {
            let detail = format!(
                "Iterations {} is less than the minimum {} for {}",
                credential.iterations,
                ScramMechanism::ITERATIONS_MIN,
                self.mechanism.name()
            );
            return Err(self.fail(detail, Some(&user)));
        }
        let server_nonce = self.nonce_override.clone().unwrap_or_else(secure_random_nonce);
        let nonce = format!("{}{server_nonce}", first.nonce);
        let server_first =
            format!("r={nonce},s={},i={}", messages::encode_base64(&credential.salt), credential.iterations);
        let challenge = server_first.clone().into_bytes();
        self.state = ServerState::ReceiveClientFinal(Box::new(Exchange {
            user,
            principal,
            lifetime,
            credential,
            client_first_bare: first.bare,
            server_first,
            nonce,
        }));
        Ok(Step::Challenge(challenge))
    }

    fn client_final(&self, exchange: &Exchange, token: &[u8]) -> Result<Step, AuthFailure> {
        let user = Some(exchange.user.as_str());
        // The final message carries the proof: the detail never quotes it.
        let Some(last) = std::str::from_utf8(token).ok().and_then(messages::parse_client_final) else {
            return Err(self.fail("Invalid SCRAM client final message format", user));
        };
        if last.nonce != exchange.nonce {
            return Err(self.fail("Invalid client nonce in the final client message.", user));
        }
        let auth_message = format!("{},{},{}", exchange.client_first_bare, exchange.server_first, last.without_proof);
        let credential = &exchange.credential;
        let client_signature = self.mechanism.hmac(&credential.stored_key, auth_message.as_bytes());
        if last.proof.len() != client_signature.len() {
            return Err(self.fail("Invalid client credentials", user));
        }
        let client_key: Vec<u8> = last.proof.iter().zip(&client_signature).map(|(p, s)| p ^ s).collect();
        let computed_stored_key = self.mechanism.hash(&client_key);
        if !bool::from(computed_stored_key.as_slice().ct_eq(&credential.stored_key)) {
            return Err(self.fail("Invalid client credentials", user));
        }
        let server_signature = self.mechanism.hmac(&credential.server_key, auth_message.as_bytes());
        Ok(Step::Done {
            principal: exchange.principal.clone(),
            response: format!("v={}", messages::encode_base64(&server_signature)).into_bytes(),
            lifetime: exchange.lifetime,
        })
    }
}

impl SaslServer for ScramServer {
    fn mechanism(&self) -> &'static str {
        self.mechanism.name()
    }

    fn step(&mut self, token: &[u8]) -> Result<Step, AuthFailure> {
        if token.len() > SCRAM_MESSAGE_BYTES_MAX {
            self.state = ServerState::Failed;
            let detail = format!("SCRAM message of {} bytes is over {SCRAM_MESSAGE_BYTES_MAX}", token.len());
            return Err(self.fail(detail, None));
        }
        let result = match std::mem::replace(&mut self.state, ServerState::Failed) {
            ServerState::ReceiveClientFirst => self.client_first(token),
            ServerState::ReceiveClientFinal(exchange) => {
                let result = self.client_final(&exchange, token);
                if result.is_ok() {
                    self.state = ServerState::Complete;
                }
                result
            }
            ServerState::Complete => Err(self.fail("Unexpected challenge in Sasl server state COMPLETE", None)),
            ServerState::Failed => Err(self.fail("Unexpected challenge in Sasl server state FAILED", None)),
        };
        if result.is_err() {
            self.state = ServerState::Failed;
        }
        result
    }
}

/// A nonce from the OS's CSPRNG, printable and comma-free as RFC 5802 asks.
fn secure_random_nonce() -> String {
    OsRng.sample_iter(&Alphanumeric).take(NONCE_CHARS).map(char::from).collect()
}

/// The client side of one SCRAM exchange, from a user and password.
pub struct ScramClient {
    mechanism: ScramMechanism,
    user: String,
    password: String,
    nonce: String,
    /// Sends Kafka's `tokenauth=true` extension: the user is a delegation token's id.
    token_auth: bool,
    state: ClientState,
}

enum ClientState {
    Start,
    SentClientFirst { bare: String },
    SentClientFinal { server_signature: Vec<u8> },
    Finished,
}

impl fmt::Debug for ScramClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScramClient")
            .field("mechanism", &self.mechanism)
            .field("user", &self.user)
            .finish_non_exhaustive()
    }
}

impl ScramClient {
    pub fn new(mechanism: ScramMechanism, user: impl Into<String>, password: impl Into<String>) -> ScramClient {
        ScramClient::with_nonce(mechanism, user, password, secure_random_nonce())
    }

    /// A client with a fixed nonce, for test vectors.
    pub fn with_nonce(
        mechanism: ScramMechanism,
        user: impl Into<String>,
        password: impl Into<String>,
        nonce: impl Into<String>,
    ) -> ScramClient {
        ScramClient {
            mechanism,
            user: user.into(),
            password: password.into(),
            nonce: nonce.into(),
            token_auth: false,
            state: ClientState::Start,
        }
    }

    /// A client authenticating with delegation token `token_id` and its HMAC in base64, as
    /// Kafka's clients do with `tokenauth="true"` in their JAAS options.
    pub fn for_token(
        mechanism: ScramMechanism,
        token_id: impl Into<String>,
        hmac_base64: impl Into<String>,
    ) -> ScramClient {
        ScramClient { token_auth: true, ..ScramClient::new(mechanism, token_id, hmac_base64) }
    }

    fn fail(&self, message: impl Into<String>) -> AuthFailure {
        AuthFailure::told(message, Some(self.user.clone()))
    }

    fn client_final(&self, bare: &str, challenge: &[u8]) -> Result<(Vec<u8>, Vec<u8>), AuthFailure> {
        let text = std::str::from_utf8(challenge).unwrap_or_default();
        let Some(first) = messages::parse_server_first(text) else {
            return Err(self.fail("Invalid SCRAM server first message format"));
        };
        if first.nonce.len() <= self.nonce.len() || !first.nonce.starts_with(&self.nonce) {
            return Err(self.fail("Invalid server nonce: does not start with client nonce"));
        }
        if first.iterations > ScramMechanism::ITERATIONS_MAX || first.iterations < ScramMechanism::ITERATIONS_MIN {
            return Err(self.fail(format!("Invalid SCRAM iteration count {}", first.iterations)));
        }
        let mechanism = self.mechanism;
        let salted = mechanism.salted_password(self.password.as_bytes(), &first.salt, first.iterations);
        let client_key = mechanism.hmac(&salted, b"Client Key");
        let stored_key = mechanism.hash(&client_key);
        let without_proof = format!("c=biws,r={}", first.nonce);
        let auth_message = format!("{bare},{text},{without_proof}");
        let client_signature = mechanism.hmac(&stored_key, auth_message.as_bytes());
        let proof: Vec<u8> = client_key.iter().zip(&client_signature).map(|(k, s)| k ^ s).collect();
        let server_key = mechanism.hmac(&salted, b"Server Key");
        let server_signature = mechanism.hmac(&server_key, auth_message.as_bytes());
        let message = format!("{without_proof},p={}", messages::encode_base64(&proof));
        Ok((message.into_bytes(), server_signature))
    }
}

impl SaslClient for ScramClient {
    fn mechanism(&self) -> &'static str {
        self.mechanism.name()
    }

    fn initial_response(&mut self) -> Vec<u8> {
        let extension = if self.token_auth { format!(",{TOKEN_AUTH_EXTENSION}=true") } else { String::new() };
        let bare = format!("n={},r={}{extension}", messages::sasl_name(&self.user), self.nonce);
        let message = format!("n,,{bare}").into_bytes();
        self.state = ClientState::SentClientFirst { bare };
        message
    }

    fn step(&mut self, challenge: &[u8]) -> Result<ClientStep, AuthFailure> {
        if challenge.len() > SCRAM_MESSAGE_BYTES_MAX {
            return Err(self.fail("SCRAM server message over the size limit"));
        }
        match std::mem::replace(&mut self.state, ClientState::Finished) {
            ClientState::SentClientFirst { bare } => {
                let (message, server_signature) = self.client_final(&bare, challenge)?;
                self.state = ClientState::SentClientFinal { server_signature };
                Ok(ClientStep::Respond(message))
            }
            ClientState::SentClientFinal { server_signature } => {
                let text = std::str::from_utf8(challenge).unwrap_or_default();
                match messages::parse_server_final(text) {
                    Some(ServerFinal::Verifier(signature)) if bool::from(signature.ct_eq(&server_signature)) => {
                        Ok(ClientStep::Done)
                    }
                    Some(ServerFinal::Verifier(_)) => {
                        Err(self.fail("Invalid server signature in server final message"))
                    }
                    Some(ServerFinal::Error(error)) => Err(self.fail(format!(
                        "Sasl authentication using {} failed with error: {error}",
                        self.mechanism.name()
                    ))),
                    None => Err(self.fail("Invalid SCRAM server final message format")),
                }
            }
            ClientState::Start | ClientState::Finished => Err(self.fail("Unexpected SCRAM challenge")),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[derive(Debug, Default)]
    struct Table(HashMap<(String, String), ScramCredential>);

    impl CredentialStore for Table {
        fn scram_credential(&self, user: &str, mechanism: &str) -> Option<ScramCredential> {
            self.0.get(&(user.to_owned(), mechanism.to_owned())).cloned()
        }
    }

    /// RFC 7677 §3's exchange, byte for byte, with its nonces fixed: the server against its
    /// client-final, and the client against its server-first.
    #[test]
    fn rfc_7677_exchange() {
        let salt = [0x5b, 0x6d, 0x99, 0x68, 0x9d, 0x12, 0x35, 0x8e, 0xec, 0xa0, 0x4b, 0x14, 0x12, 0x36, 0xfa, 0x81];
        let mechanism = ScramMechanism::Sha256;
        let mut table = Table::default();
        let credential = mechanism.credential_from_password("pencil", &salt, 4096);
        table.0.insert(("user".into(), "SCRAM-SHA-256".into()), credential);
        let mut server = ScramServer::new(mechanism, Arc::new(table));
        server.nonce_override = Some("%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0".into());
        let mut client = ScramClient::with_nonce(mechanism, "user", "pencil", "rOprNGfwEbeRWgbNEkqO");

        let client_first = client.initial_response();
        assert_eq!(client_first, b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
        let server_first = b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
        assert_eq!(server.step(&client_first), Ok(Step::Challenge(server_first.to_vec())));
        let client_final = b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
        assert_eq!(client.step(server_first), Ok(ClientStep::Respond(client_final.to_vec())));
        let server_final = b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=".to_vec();
        let done =
            Step::Done { principal: KafkaPrincipal::user("user"), response: server_final.clone(), lifetime: None };
        assert_eq!(server.step(client_final), Ok(done));
        assert_eq!(client.step(&server_final), Ok(ClientStep::Done));
    }
}
