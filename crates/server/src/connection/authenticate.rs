//! SASL on a connection (Kafka's `SaslServerAuthenticator`): the exchange that settles a
//! `SASL_PLAINTEXT` or `SASL_SSL` connection's principal before its first other request, and
//! KIP-368 re-authentication while it serves.
//!
//! [`Authenticator`] is the exchange without I/O: it takes each frame and says what to answer.
//! Its states follow Kafka's:
//! - **handshake or versions**: an ApiVersions (answered by the broker, once) or a SaslHandshake;
//!   anything else closes the connection with no answer (a client speaking the wrong protocol, or
//!   one without KIP-43).
//! - **handshake**: after ApiVersions, only a SaslHandshake. A mechanism the listener does not
//!   enable is answered UNSUPPORTED_SASL_MECHANISM with the enabled ones, then closed.
//! - **authenticate**: with a v1 handshake, SaslAuthenticate requests carry the tokens; with v0,
//!   raw size-prefixed tokens do. A failure is answered SASL_AUTHENTICATION_FAILED with the
//!   mechanism's message (v0: no answer) after `connection.failed.authentication.delay.ms`, then
//!   the connection closes.
//!
//! Every frame before authentication is bounded by `sasl.server.max.receive.size`, so an
//! unauthenticated peer can make the node hold no more than that.
//!
//! The session lasts `connections.max.reauth.ms` or until the credential expires (an
//! OAUTHBEARER token), whichever is sooner; SaslAuthenticate v1+ tells the client how long. A
//! client that authenticated with v1+ may re-authenticate with a new SaslHandshake at any time,
//! with the same mechanism and principal; once the session has expired, any other request
//! closes the connection, as in Kafka.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use strand_broker::Outcome;
use strand_protocol::error::ErrorCode;
use strand_protocol::frame::{FrameChunk, ResponseFrame, decode_request_body, encode_response_frame, parse_request};
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::messages::{SaslAuthenticateResponse, SaslHandshakeResponse};
use strand_security::KafkaPrincipal;
use strand_security::sasl::{AuthFailure, SaslServer, Step};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::time::Instant;

use super::{Activity, ClientLimits, FrameSink, read_request};

/// Makes the server side of one exchange for a mechanism the listener enables; `None` for one
/// it cannot serve.
pub type MechanismFactory = Arc<dyn Fn(&str) -> Option<Box<dyn SaslServer>> + Send + Sync>;

/// A SASL listener's settings, Kafka's names.
#[derive(Clone)]
pub struct SaslListener {
    /// `sasl.enabled.mechanisms` (per listener), in the order the handshake lists them.
    pub mechanisms: Vec<String>,
    pub new_server: MechanismFactory,
    /// `connections.max.reauth.ms` by mechanism (`listener.name.L.MECHANISM.` overrides);
    /// absent or zero: sessions last as long as their credential.
    pub reauth_max: BTreeMap<String, Duration>,
    /// `connection.failed.authentication.delay.ms`.
    pub failed_delay: Duration,
    /// `sasl.server.max.receive.size`.
    pub receive_bytes_max: usize,
}

impl fmt::Debug for SaslListener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SaslListener")
            .field("mechanisms", &self.mechanisms)
            .field("reauth_max", &self.reauth_max)
            .field("failed_delay", &self.failed_delay)
            .field("receive_bytes_max", &self.receive_bytes_max)
            .finish_non_exhaustive()
    }
}

/// What the connection does with a frame the [`Authenticator`] took.
#[derive(Debug)]
pub enum Next {
    /// Send this and read the next frame.
    Respond(ResponseFrame),
    /// An ApiVersions: the broker answers it as it answers any other.
    ApiVersions,
    /// Authenticated: send `response`, and serve requests as `principal` from now on.
    Authenticated { response: ResponseFrame, principal: KafkaPrincipal, session: SessionLifetime },
    /// Failed: wait `connection.failed.authentication.delay.ms`, send `response` if any, close.
    /// `reason` is the one log line (peer, mechanism, claimed user; never a secret).
    Fail { response: Option<ResponseFrame>, reason: String },
    /// Close at once, logging `reason` (not a Kafka request at all, or not one allowed here).
    Close(String),
}

/// How long an authenticated session lasts: `None` for as long as the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLifetime(pub Option<Duration>);

#[derive(Debug)]
enum State {
    HandshakeOrVersions,
    Handshake,
    Authenticate { server: Box<dyn SaslServer>, raw_tokens: bool },
    Done,
}

/// Who a re-authentication must prove to be again.
#[derive(Debug, Clone)]
struct Previous {
    mechanism: String,
    principal: KafkaPrincipal,
}

/// One SASL exchange: the first on a connection, or a re-authentication.
#[derive(Debug)]
pub struct Authenticator {
    listener: Arc<SaslListener>,
    state: State,
    mechanism: Option<String>,
    previous: Option<Previous>,
    /// Whether the client used SaslAuthenticate v1+ (KIP-368), so may re-authenticate.
    supports_reauthentication: bool,
}

impl Authenticator {
    /// A connection's first exchange.
    pub fn new(listener: Arc<SaslListener>) -> Authenticator {
        Authenticator {
            listener,
            state: State::HandshakeOrVersions,
            mechanism: None,
            previous: None,
            supports_reauthentication: false,
        }
    }

    /// A re-authentication of a session that authenticated as `principal` with `mechanism`,
    /// starting with the SaslHandshake that began it (Kafka allows no ApiVersions here).
    pub fn reauthenticate(listener: Arc<SaslListener>, mechanism: String, principal: KafkaPrincipal) -> Authenticator {
        Authenticator {
            listener,
            state: State::Handshake,
            mechanism: None,
            previous: Some(Previous { mechanism, principal }),
            supports_reauthentication: true,
        }
    }

    /// The mechanism the client chose, once its handshake was accepted.
    pub fn mechanism(&self) -> Option<&str> {
        self.mechanism.as_deref()
    }

    /// Whether the client may re-authenticate later (it used SaslAuthenticate v1+).
    pub fn supports_reauthentication(&self) -> bool {
        self.supports_reauthentication
    }

    fn text(&self) -> &'static str {
        if self.previous.is_some() { "re-authentication" } else { "authentication" }
    }

    /// Takes the next frame (without its size prefix).
    pub fn on_frame(&mut self, frame: Bytes) -> Next {
        match std::mem::replace(&mut self.state, State::Done) {
            State::Authenticate { server, raw_tokens: true } => self.raw_token(server, &frame),
            State::Authenticate { server, raw_tokens: false } => self.authenticate_request(server, frame),
            State::HandshakeOrVersions => self.handshake_request(frame, true),
            State::Handshake => self.handshake_request(frame, false),
            State::Done => Next::Close(format!("a request after the SASL {} ended", self.text())),
        }
    }

    /// The ApiVersions the broker answered was for a version it does not serve: the client
    /// retries with another, still before its handshake.
    pub fn api_versions_refused(&mut self) {
        self.state = State::HandshakeOrVersions;
    }

    fn handshake_request(&mut self, frame: Bytes, versions_allowed: bool) -> Next {
        let request = match parse_request(frame) {
            Ok(request) => request,
            Err(e) => {
                return Next::Close(format!(
                    "invalid request during the SASL handshake ({e}): a Kafka client configured with the wrong \
                     security protocol, one without KIP-43, or not a Kafka client"
                ));
            }
        };
        match request.api_key {
            ApiKey::ApiVersions if versions_allowed => {
                self.state = State::Handshake;
                return Next::ApiVersions;
            }
            ApiKey::SaslHandshake => {}
            other => {
                return Next::Close(format!("unexpected Kafka request of type {other:?} during SASL handshake"));
            }
        }
        let (correlation_id, version) = (request.correlation_id(), request.api_version());
        let mechanism = match decode_request_body(&request) {
            Ok(RequestBody::SaslHandshake(handshake)) => handshake.mechanism,
            Ok(_) | Err(_) => return Next::Close("malformed SaslHandshake request".to_owned()),
        };
        let enabled = self.listener.mechanisms.clone();
        let answer = |error: ErrorCode| {
            let body = SaslHandshakeResponse { error_code: error.code(), mechanisms: enabled.clone() };
            encode_response_frame(correlation_id, &ResponseBody::SaslHandshake(body), version)
        };
        let server = enabled.contains(&mechanism).then(|| (self.listener.new_server)(&mechanism)).flatten();
        let Some(server) = server else {
            let response = answer(ErrorCode::UnsupportedSaslMechanism).ok();
            return Next::Fail { response, reason: format!("unsupported SASL mechanism {mechanism}") };
        };
        let response = match answer(ErrorCode::None) {
            Ok(response) => response,
            Err(e) => return Next::Close(format!("could not encode the SaslHandshake response: {e}")),
        };
        if let Some(previous) = &self.previous
            && previous.mechanism != mechanism
        {
            // Kafka answers the handshake, then fails the next token (its REAUTH_BAD_MECHANISM).
            self.mechanism = Some(mechanism);
            return Next::Respond(response);
        }
        self.mechanism = Some(mechanism);
        self.state = State::Authenticate { server, raw_tokens: version == 0 };
        Next::Respond(response)
    }

    /// A token after a v0 handshake: the bytes of the frame themselves.
    fn raw_token(&mut self, mut server: Box<dyn SaslServer>, token: &[u8]) -> Next {
        let mechanism = server.mechanism();
        match server.step(token) {
            Ok(Step::Challenge(challenge)) => {
                self.state = State::Authenticate { server, raw_tokens: true };
                Next::Respond(raw_frame(&challenge))
            }
            Ok(Step::Done { principal, response, lifetime }) => {
                let session = self.session_lifetime(mechanism, lifetime);
                match self.principal_unchanged(&principal) {
                    Ok(()) => Next::Authenticated { response: raw_frame(&response), principal, session },
                    Err(message) => Next::Fail { response: None, reason: message },
                }
            }
            Err(failure) => Next::Fail { response: None, reason: self.failure_reason(mechanism, &failure) },
        }
    }

    /// A SaslAuthenticate request after a v1 handshake.
    fn authenticate_request(&mut self, server: Box<dyn SaslServer>, frame: Bytes) -> Next {
        let request = match parse_request(frame) {
            Ok(request) => request,
            Err(e) => return Next::Close(format!("invalid request during SASL authentication: {e}")),
        };
        if request.api_key != ApiKey::SaslAuthenticate {
            return Next::Close(format!(
                "unexpected Kafka request of type {:?} during SASL {}",
                request.api_key,
                self.text()
            ));
        }
        let (correlation_id, version) = (request.correlation_id(), request.api_version());
        let token = match decode_request_body(&request) {
            Ok(RequestBody::SaslAuthenticate(authenticate)) => authenticate.auth_bytes,
            Ok(_) | Err(_) => return Next::Close("malformed SaslAuthenticate request".to_owned()),
        };
        self.supports_reauthentication |= version > 0;
        let answer = |body: SaslAuthenticateResponse| {
            encode_response_frame(correlation_id, &ResponseBody::SaslAuthenticate(body), version)
        };
        let failed = |message: String| SaslAuthenticateResponse {
            error_code: ErrorCode::SaslAuthenticationFailed.code(),
            error_message: Some(message),
            ..SaslAuthenticateResponse::default()
        };
        if let Some(previous) = &self.previous
            && self.mechanism.as_deref() != Some(previous.mechanism.as_str())
        {
            let message = format!(
                "SASL mechanism '{}' requested by client is not supported for re-authentication of mechanism '{}'",
                self.mechanism.as_deref().unwrap_or_default(),
                previous.mechanism
            );
            return Next::Fail { response: answer(failed(message.clone())).ok(), reason: message };
        }
        let mut server = server;
        let mechanism = server.mechanism();
        // What is logged, and what the client is told (the mechanism's message, never more).
        let outcome: Result<_, (String, String)> = match server.step(&token) {
            Ok(Step::Challenge(challenge)) => {
                self.state = State::Authenticate { server, raw_tokens: false };
                let body = SaslAuthenticateResponse {
                    auth_bytes: Bytes::from(challenge),
                    ..SaslAuthenticateResponse::default()
                };
                return match answer(body) {
                    Ok(response) => Next::Respond(response),
                    Err(e) => Next::Close(format!("could not encode the SaslAuthenticate response: {e}")),
                };
            }
            Ok(Step::Done { principal, response, lifetime }) => match self.principal_unchanged(&principal) {
                Ok(()) => Ok((principal, response, self.session_lifetime(mechanism, lifetime))),
                Err(message) => Err((message.clone(), message)),
            },
            Err(failure) => {
                let failure = if self.previous.is_some() { failure.in_reauthentication() } else { failure };
                Err((self.failure_reason(mechanism, &failure), failure.message))
            }
        };
        match outcome {
            Ok((principal, response, session)) => {
                let body = SaslAuthenticateResponse {
                    auth_bytes: Bytes::from(response),
                    session_lifetime_ms: session.0.map_or(0, duration_ms),
                    ..SaslAuthenticateResponse::default()
                };
                match answer(body) {
                    Ok(response) => Next::Authenticated { response, principal, session },
                    Err(e) => Next::Close(format!("could not encode the SaslAuthenticate response: {e}")),
                }
            }
            Err((reason, message)) => Next::Fail { response: answer(failed(message)).ok(), reason },
        }
    }

    /// Kafka's `ensurePrincipalUnchanged`: a re-authentication may not change who the session is.
    fn principal_unchanged(&self, principal: &KafkaPrincipal) -> Result<(), String> {
        match &self.previous {
            Some(previous) if previous.principal != *principal => Err(format!(
                "Cannot change principals during re-authentication from {}.{}: {}.{}",
                previous.principal.principal_type, previous.principal.name, principal.principal_type, principal.name
            )),
            _ => Ok(()),
        }
    }

    /// Kafka's `calcCompletionTimesAndReturnSessionLifetimeMs`: the sooner of the credential's
    /// expiry and `connections.max.reauth.ms`, either alone if only one is set.
    fn session_lifetime(&self, mechanism: &str, credential: Option<Duration>) -> SessionLifetime {
        let reauth_max = self.listener.reauth_max.get(mechanism).copied().filter(|max| !max.is_zero());
        SessionLifetime(match (credential, reauth_max) {
            (None, None) => None,
            (Some(lifetime), None) | (None, Some(lifetime)) => Some(lifetime),
            (Some(credential), Some(reauth_max)) => Some(credential.min(reauth_max)),
        })
    }

    fn failure_reason(&self, mechanism: &str, failure: &AuthFailure) -> String {
        let user = failure.claimed_user.as_deref().map(|user| format!(" as {user}")).unwrap_or_default();
        let detail = failure.detail.as_deref().map(|detail| format!(" ({detail})")).unwrap_or_default();
        format!("failed {} with SASL mechanism {mechanism}{user}: {}{detail}", self.text(), failure.message)
    }
}

/// A v0 token: its bytes with a size prefix, no Kafka header.
fn raw_frame(token: &[u8]) -> ResponseFrame {
    let mut frame = BytesMut::with_capacity(4 + token.len());
    frame.put_i32(i32::try_from(token.len()).unwrap_or(i32::MAX));
    frame.put_slice(token);
    ResponseFrame::from(frame.freeze())
}

fn duration_ms(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// A connection's authenticated SASL session, kept by its reader: when it expires, and the
/// re-authentication in progress, if any.
#[derive(Debug)]
pub struct SessionAuth {
    listener: Arc<SaslListener>,
    mechanism: String,
    principal: KafkaPrincipal,
    expires: Option<Instant>,
    supports_reauthentication: bool,
    reauthenticating: Option<Authenticator>,
}

/// What the reader does with a request frame of an authenticated SASL connection.
#[derive(Debug)]
pub enum Gate {
    /// The broker handles it.
    Serve,
    /// Part of a re-authentication, or refused: this is its outcome.
    Answer(Outcome),
    /// A failed re-authentication: wait `connection.failed.authentication.delay.ms`, then this.
    FailAfter(Duration, Outcome),
}

impl SessionAuth {
    fn new(
        listener: Arc<SaslListener>,
        authenticator: &Authenticator,
        principal: KafkaPrincipal,
        session: SessionLifetime,
    ) -> SessionAuth {
        SessionAuth {
            mechanism: authenticator.mechanism().unwrap_or_default().to_owned(),
            supports_reauthentication: authenticator.supports_reauthentication(),
            expires: session.0.map(|lifetime| Instant::now() + lifetime),
            principal,
            listener,
            reauthenticating: None,
        }
    }

    pub fn principal(&self) -> &KafkaPrincipal {
        &self.principal
    }

    /// Decides on the next request frame, in arrival order. Kafka's `Processor` does the same:
    /// a SaslHandshake from a client that supports it begins a re-authentication (even past
    /// expiry); any other request past expiry closes the connection.
    pub fn gate(&mut self, frame: &Bytes) -> Gate {
        if let Some(authenticator) = self.reauthenticating.take() {
            return self.reauthentication_step(authenticator, frame.clone());
        }
        let api_key = frame.get(..2).map(|key| i16::from_be_bytes([key[0], key[1]]));
        if api_key == Some(ApiKey::SaslHandshake as i16) && self.supports_reauthentication {
            let authenticator = Authenticator::reauthenticate(
                Arc::clone(&self.listener),
                self.mechanism.clone(),
                self.principal.clone(),
            );
            return self.reauthentication_step(authenticator, frame.clone());
        }
        match self.expires {
            Some(expires) if expires <= Instant::now() => Gate::Answer(Outcome::Close(format!(
                "the SASL session of {} expired (connections.max.reauth.ms or its credential's lifetime) and the \
                 client did not re-authenticate",
                self.principal
            ))),
            _ => Gate::Serve,
        }
    }

    fn reauthentication_step(&mut self, mut authenticator: Authenticator, frame: Bytes) -> Gate {
        match authenticator.on_frame(frame) {
            Next::Respond(response) => {
                self.reauthenticating = Some(authenticator);
                Gate::Answer(Outcome::Respond(response))
            }
            Next::Authenticated { response, principal: _, session } => {
                self.expires = session.0.map(|lifetime| Instant::now() + lifetime);
                Gate::Answer(Outcome::Respond(response))
            }
            Next::Fail { response, reason } => {
                let reason = format!("{reason} (peer re-authenticating as {})", self.principal);
                let outcome = match response {
                    Some(response) => Outcome::RespondAndClose(response, reason),
                    None => Outcome::Close(reason),
                };
                Gate::FailAfter(self.listener.failed_delay, outcome)
            }
            Next::ApiVersions => Gate::Answer(Outcome::Close("ApiVersions during SASL re-authentication".to_owned())),
            Next::Close(reason) => Gate::Answer(Outcome::Close(reason)),
        }
    }
}

/// Why a connection ended when its client hung up before authenticating (a port probe, or a
/// client that gave up): logged at DEBUG.
pub const CLOSED_DURING_AUTHENTICATION: &str = "connection closed by the client during SASL authentication";

/// Runs a connection's first SASL exchange over `reader` and `writer`, ApiVersions answered by
/// `api_versions`. Returns the authenticated session, or why the connection must close (after
/// the failure's answer and delay, already sent).
pub async fn authenticate<R, W, A, F>(
    reader: &mut R,
    writer: &mut W,
    listener: &Arc<SaslListener>,
    limits: &ClientLimits,
    mut api_versions: A,
) -> Result<SessionAuth, String>
where
    R: AsyncRead + Unpin,
    W: FrameSink,
    A: FnMut(Bytes) -> F,
    F: Future<Output = Outcome>,
{
    let mut connection = limits.connection;
    connection.request_bytes_max = connection.request_bytes_max.min(listener.receive_bytes_max);
    let activity = Activity::new();
    let mut authenticator = Authenticator::new(Arc::clone(listener));
    loop {
        let frame = match read_request(reader, &connection, &limits.pool, &activity).await {
            Ok(Some((frame, _reservation))) => frame,
            Ok(None) => return Err(CLOSED_DURING_AUTHENTICATION.to_owned()),
            Err(reason) => return Err(format!("{reason} (during SASL authentication)")),
        };
        let response = match authenticator.on_frame(frame.clone()) {
            Next::Respond(response) => response,
            Next::ApiVersions => match api_versions(frame).await {
                // ApiVersions is never throttled.
                Outcome::Respond(response) | Outcome::Throttled(Some(response), _) => {
                    if !api_versions_accepted(&response) {
                        authenticator.api_versions_refused();
                    }
                    response
                }
                Outcome::NoResponse | Outcome::Throttled(None, _) => continue,
                Outcome::Close(reason) | Outcome::RespondAndClose(_, reason) => return Err(reason),
            },
            Next::Authenticated { response, principal, session } => {
                writer.write_frame(&response).await.map_err(|e| format!("write failed: {e}"))?;
                return Ok(SessionAuth::new(Arc::clone(listener), &authenticator, principal, session));
            }
            Next::Fail { response, reason } => {
                tokio::time::sleep(listener.failed_delay).await;
                if let Some(response) = response {
                    // The connection closes either way: a failed write changes nothing.
                    let _ = writer.write_frame(&response).await;
                    drain(reader).await;
                }
                return Err(reason);
            }
            Next::Close(reason) => return Err(reason),
        };
        writer.write_frame(&response).await.map_err(|e| format!("write failed: {e}"))?;
        activity.touch();
    }
}

/// How long, and how many bytes, a failed connection's input is read and dropped after its
/// failure's answer.
const DRAIN_MAX: Duration = Duration::from_millis(500);
const DRAIN_BYTES_MAX: u64 = 64 * 1024;

/// Reads and drops what the client sent after its failed exchange (a client may pipeline its
/// next request), so closing finds no unread input: the kernel would answer that with a reset,
/// which can destroy the failure's answer before the client reads it.
async fn drain<R: AsyncRead + Unpin>(reader: &mut R) {
    let mut sink = tokio::io::sink();
    let _ = tokio::time::timeout(DRAIN_MAX, tokio::io::copy(&mut reader.take(DRAIN_BYTES_MAX), &mut sink)).await;
}

/// Whether an ApiVersions response carries no error: one refusing the version leaves the
/// client free to try another before its handshake. Its error code follows the header's
/// correlation id (ApiVersions responses always use header v0).
fn api_versions_accepted(response: &ResponseFrame) -> bool {
    let Some(FrameChunk::Bytes(bytes)) = response.chunks.first() else { return true };
    bytes.get(8..10).is_none_or(|code| i16::from_be_bytes([code[0], code[1]]) == ErrorCode::None.code())
}

#[cfg(test)]
mod tests {
    use super::*;
    use strand_protocol::frame::{decode_response, encode_request};
    use strand_protocol::messages::{
        ApiVersionsRequest, MetadataRequest, SaslAuthenticateRequest, SaslHandshakeRequest,
    };

    /// A mechanism for the exchange's tests: one token `user:password`, good when the password is
    /// `pw`; a token `challenge` first asks for another round.
    #[derive(Debug)]
    struct Toy;

    impl SaslServer for Toy {
        fn mechanism(&self) -> &'static str {
            "TOY"
        }

        fn step(&mut self, token: &[u8]) -> Result<Step, AuthFailure> {
            let token = String::from_utf8_lossy(token);
            if token == "challenge" {
                return Ok(Step::Challenge(b"more".to_vec()));
            }
            let (user, password) = token.split_once(':').unwrap_or((&token, ""));
            let lifetime = user.strip_prefix("expiring-").map(|_| Duration::from_secs(5));
            match password {
                "pw" => Ok(Step::Done { principal: KafkaPrincipal::user(user), response: b"ok".to_vec(), lifetime }),
                _ => {
                    Err(AuthFailure::told("Authentication failed: Invalid username or password", Some(user.to_owned())))
                }
            }
        }
    }

    fn listener(reauth_max: Option<Duration>) -> Arc<SaslListener> {
        Arc::new(SaslListener {
            mechanisms: vec!["TOY".to_owned()],
            new_server: Arc::new(|name| (name == "TOY").then(|| Box::new(Toy) as Box<dyn SaslServer>)),
            reauth_max: reauth_max.into_iter().map(|max| ("TOY".to_owned(), max)).collect(),
            failed_delay: Duration::ZERO,
            receive_bytes_max: 1024,
        })
    }

    fn request(body: RequestBody, version: i16) -> Bytes {
        let frame = encode_request(7, Some("test"), &body, version).expect("encodes");
        frame.slice(4..)
    }

    fn handshake(mechanism: &str, version: i16) -> Bytes {
        request(RequestBody::SaslHandshake(SaslHandshakeRequest { mechanism: mechanism.to_owned() }), version)
    }

    fn token(bytes: &[u8], version: i16) -> Bytes {
        let body = SaslAuthenticateRequest { auth_bytes: Bytes::copy_from_slice(bytes), ..Default::default() };
        request(RequestBody::SaslAuthenticate(body), version)
    }

    fn body(api: ApiKey, version: i16, frame: &ResponseFrame) -> ResponseBody {
        let Some(FrameChunk::Bytes(bytes)) = frame.chunks.first() else { panic!("no bytes in {frame:?}") };
        decode_response(api, version, bytes.slice(4..)).expect("decodes").1
    }

    fn authenticate_response(frame: &ResponseFrame, version: i16) -> SaslAuthenticateResponse {
        match body(ApiKey::SaslAuthenticate, version, frame) {
            ResponseBody::SaslAuthenticate(response) => response,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn versions_then_handshake_then_tokens_authenticate() {
        let mut exchange = Authenticator::new(listener(Some(Duration::from_secs(60))));
        let versions = request(RequestBody::ApiVersions(ApiVersionsRequest::default()), 3);
        assert!(matches!(exchange.on_frame(versions.clone()), Next::ApiVersions));
        let Next::Respond(answer) = exchange.on_frame(handshake("TOY", 1)) else { panic!("handshake refused") };
        let ResponseBody::SaslHandshake(answer) = body(ApiKey::SaslHandshake, 1, &answer) else { panic!() };
        assert_eq!((answer.error_code, answer.mechanisms), (0, vec!["TOY".to_owned()]));
        let Next::Respond(challenge) = exchange.on_frame(token(b"challenge", 2)) else { panic!("no challenge") };
        assert_eq!(&authenticate_response(&challenge, 2).auth_bytes[..], b"more");
        let Next::Authenticated { response, principal, session } = exchange.on_frame(token(b"alice:pw", 2)) else {
            panic!("not authenticated")
        };
        assert_eq!(principal, KafkaPrincipal::user("alice"));
        assert_eq!(session, SessionLifetime(Some(Duration::from_secs(60))));
        let response = authenticate_response(&response, 2);
        assert_eq!(
            (response.error_code, &response.auth_bytes[..], response.session_lifetime_ms),
            (0, &b"ok"[..], 60_000)
        );
        assert!(exchange.supports_reauthentication());
        // A second ApiVersions, or any request after the exchange, is refused.
        assert!(matches!(exchange.on_frame(versions), Next::Close(_)));
    }

    #[test]
    fn a_wrong_password_fails_with_the_mechanisms_message_and_no_secret() {
        let mut exchange = Authenticator::new(listener(None));
        assert!(matches!(exchange.on_frame(handshake("TOY", 1)), Next::Respond(_)));
        let Next::Fail { response: Some(response), reason } = exchange.on_frame(token(b"alice:hunter2", 1)) else {
            panic!("not failed")
        };
        let response = authenticate_response(&response, 1);
        assert_eq!(response.error_code, ErrorCode::SaslAuthenticationFailed.code());
        assert_eq!(response.error_message.as_deref(), Some("Authentication failed: Invalid username or password"));
        assert!(reason.contains("alice") && reason.contains("TOY") && !reason.contains("hunter2"), "{reason}");
    }

    #[test]
    fn an_unknown_mechanism_is_answered_with_the_enabled_ones() {
        let mut exchange = Authenticator::new(listener(None));
        let Next::Fail { response: Some(response), reason } = exchange.on_frame(handshake("GSSAPI", 1)) else {
            panic!("accepted")
        };
        let ResponseBody::SaslHandshake(answer) = body(ApiKey::SaslHandshake, 1, &response) else { panic!() };
        assert_eq!(answer.error_code, ErrorCode::UnsupportedSaslMechanism.code());
        assert_eq!(answer.mechanisms, vec!["TOY".to_owned()]);
        assert!(reason.contains("GSSAPI"), "{reason}");
    }

    #[test]
    fn requests_other_than_the_exchange_close_the_connection() {
        let metadata = request(RequestBody::Metadata(MetadataRequest::default()), 12);
        assert!(matches!(Authenticator::new(listener(None)).on_frame(metadata.clone()), Next::Close(_)));
        assert!(matches!(
            Authenticator::new(listener(None)).on_frame(Bytes::from_static(b"GET / HTTP/1.1")),
            Next::Close(_)
        ));
        let mut exchange = Authenticator::new(listener(None));
        assert!(matches!(exchange.on_frame(handshake("TOY", 1)), Next::Respond(_)));
        assert!(matches!(exchange.on_frame(metadata), Next::Close(_)));
    }

    #[test]
    fn a_v0_handshake_exchanges_raw_tokens() {
        let mut exchange = Authenticator::new(listener(None));
        assert!(matches!(exchange.on_frame(handshake("TOY", 0)), Next::Respond(_)));
        let Next::Respond(challenge) = exchange.on_frame(Bytes::from_static(b"challenge")) else { panic!() };
        assert_eq!(challenge.chunks, vec![FrameChunk::Bytes(Bytes::from_static(b"\0\0\0\x04more"))]);
        let Next::Authenticated { response, session, .. } = exchange.on_frame(Bytes::from_static(b"bob:pw")) else {
            panic!()
        };
        assert_eq!(response.chunks, vec![FrameChunk::Bytes(Bytes::from_static(b"\0\0\0\x02ok"))]);
        assert_eq!(session, SessionLifetime(None));
        assert!(!exchange.supports_reauthentication());
        let mut failing = Authenticator::new(listener(None));
        assert!(matches!(failing.on_frame(handshake("TOY", 0)), Next::Respond(_)));
        assert!(matches!(failing.on_frame(Bytes::from_static(b"bob:no")), Next::Fail { response: None, .. }));
    }

    #[test]
    fn the_session_lasts_until_the_sooner_of_reauth_max_and_the_credential() {
        let lifetime = |reauth_max: Option<u64>, user: &str| {
            let mut exchange = Authenticator::new(listener(reauth_max.map(Duration::from_secs)));
            exchange.on_frame(handshake("TOY", 1));
            match exchange.on_frame(token(format!("{user}:pw").as_bytes(), 1)) {
                Next::Authenticated { session, .. } => session.0.map(|d| d.as_secs()),
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(lifetime(None, "alice"), None);
        assert_eq!(lifetime(Some(60), "alice"), Some(60));
        assert_eq!(lifetime(None, "expiring-alice"), Some(5));
        assert_eq!(lifetime(Some(60), "expiring-alice"), Some(5));
        assert_eq!(lifetime(Some(2), "expiring-alice"), Some(2));
    }

    fn authenticated(reauth_max: Option<Duration>, user: &str) -> SessionAuth {
        let listener = listener(reauth_max);
        let mut exchange = Authenticator::new(Arc::clone(&listener));
        exchange.on_frame(handshake("TOY", 1));
        let Next::Authenticated { principal, session, .. } =
            exchange.on_frame(token(format!("{user}:pw").as_bytes(), 1))
        else {
            panic!("not authenticated")
        };
        SessionAuth::new(listener, &exchange, principal, session)
    }

    fn answered(gate: Gate) -> ResponseFrame {
        match gate {
            Gate::Answer(Outcome::Respond(response)) => response,
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_session_re_authenticates_and_past_its_expiry_closes() {
        let mut session = authenticated(Some(Duration::from_secs(2)), "alice");
        let metadata = request(RequestBody::Metadata(MetadataRequest::default()), 12);
        assert!(matches!(session.gate(&metadata), Gate::Serve));
        for _ in 0..3 {
            tokio::time::advance(Duration::from_millis(1500)).await;
            answered(session.gate(&handshake("TOY", 1)));
            let response = authenticate_response(&answered(session.gate(&token(b"alice:pw", 2))), 2);
            assert_eq!((response.error_code, response.session_lifetime_ms), (0, 2000));
            assert!(matches!(session.gate(&metadata), Gate::Serve));
        }
        tokio::time::advance(Duration::from_millis(2001)).await;
        assert!(matches!(session.gate(&metadata), Gate::Answer(Outcome::Close(_))));
        // Even past expiry, a re-authentication is let through (Kafka checks it first).
        answered(session.gate(&handshake("TOY", 1)));
        answered(session.gate(&token(b"alice:pw", 1)));
        assert!(matches!(session.gate(&metadata), Gate::Serve));
    }

    #[tokio::test]
    async fn a_re_authentication_may_not_change_the_principal() {
        let mut session = authenticated(None, "alice");
        answered(session.gate(&handshake("TOY", 1)));
        let Gate::FailAfter(_, Outcome::RespondAndClose(response, reason)) = session.gate(&token(b"mallory:pw", 1))
        else {
            panic!("principal changed")
        };
        let message = authenticate_response(&response, 1).error_message.unwrap_or_default();
        assert_eq!(message, "Cannot change principals during re-authentication from User.alice: User.mallory");
        assert!(reason.contains("mallory"), "{reason}");
    }

    #[tokio::test]
    async fn a_client_of_v0_tokens_cannot_re_authenticate() {
        let listener = listener(None);
        let mut exchange = Authenticator::new(Arc::clone(&listener));
        exchange.on_frame(handshake("TOY", 1));
        let Next::Authenticated { principal, session, .. } = exchange.on_frame(token(b"alice:pw", 0)) else { panic!() };
        let mut session = SessionAuth::new(listener, &exchange, principal, session);
        // The broker answers it (ILLEGAL_SASL_STATE), as Kafka's API layer does.
        assert!(matches!(session.gate(&handshake("TOY", 1)), Gate::Serve));
    }

    /// Over a socket: a frame bigger than `sasl.server.max.receive.size` before authentication
    /// closes the connection without reading it.
    #[tokio::test]
    async fn an_unauthenticated_peer_is_held_to_the_receive_size() {
        use tokio::io::AsyncWriteExt as _;
        let (mut client, server) = tokio::io::duplex(64 * 1024);
        let (mut reader, writer) = tokio::io::split(server);
        let mut writer = super::super::CopyingSink(writer);
        let limits = super::super::tests::client_limits();
        client.write_all(&100_000u32.to_be_bytes()).await.expect("writes");
        let no_versions = |_frame: Bytes| async { Outcome::NoResponse };
        let refused = authenticate(&mut reader, &mut writer, &listener(None), &limits, no_versions).await;
        let reason = refused.err().unwrap_or_default();
        assert!(reason.contains("100000"), "{reason}");
    }
}
