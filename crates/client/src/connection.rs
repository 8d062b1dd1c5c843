//! [`Connection`]: one socket to one node, as Kafka's `NetworkClient` opens it: TCP (and TLS for
//! SSL and SASL_SSL) within `socket.connection.setup.timeout.ms`, then ApiVersions (v3, which
//! tells the node this client's name), then the SASL login for SASL_* (SaslHandshake v1, then
//! SaslAuthenticate v2 rounds, KIP-152). Each later request goes at the highest version both
//! sides speak.
//!
//! One request is in flight at a time (calls queue on the connection's lock); a failure of any
//! kind closes the connection, so no later call can read an earlier call's answer. KIP-368
//! re-authentication is not done: a CLI's connections are short-lived.

use std::collections::HashMap;

use bytes::{Bytes, BytesMut};
use strand_protocol::error::ErrorCode;
use strand_protocol::frame::{decode_response, encode_request, frame_size};
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::messages::{ApiVersionsRequest, SaslAuthenticateRequest, SaslHandshakeRequest};
use strand_security::sasl::ClientStep;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::config::ClientConfig;
use crate::{ClientError, tls};

/// The ApiVersions version sent first (v3+ carries the client's name).
const API_VERSIONS_VERSION: i16 = 3;
/// The SASL versions: both served by Kafka since 1.0 and by Strand.
const SASL_HANDSHAKE_VERSION: i16 = 1;
const SASL_AUTHENTICATE_VERSION: i16 = 2;
/// The most SaslAuthenticate rounds one login may take (SCRAM takes two).
const SASL_ROUNDS_MAX: usize = 8;

trait Stream: AsyncRead + AsyncWrite + Unpin + Send + Sync {}

impl<T: AsyncRead + AsyncWrite + Unpin + Send + Sync> Stream for T {}

/// An open, logged-in connection to one node.
pub struct Connection {
    address: String,
    state: tokio::sync::Mutex<Option<Open>>,
    /// The versions the node serves, by API key.
    versions: HashMap<i16, (i16, i16)>,
    client_id: String,
    request_timeout: std::time::Duration,
    response_bytes_max: usize,
}

struct Open {
    stream: Box<dyn Stream>,
    next_correlation_id: i32,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("address", &self.address).finish_non_exhaustive()
    }
}

impl Connection {
    /// Connects to `address` (`host:port`), negotiates versions and logs in.
    pub async fn open(address: &str, config: &ClientConfig) -> Result<Connection, ClientError> {
        let connect = |reason: String| ClientError::Connect { address: address.to_owned(), reason };
        #[allow(clippy::disallowed_methods)] // The client crate opens the client's sockets.
        let connecting = TcpStream::connect(address);
        let tcp = match tokio::time::timeout(config.connect_timeout, connecting).await {
            Ok(Ok(tcp)) => tcp,
            Ok(Err(e)) => return Err(connect(e.to_string())),
            Err(_) => return Err(connect(format!("no connection within {} ms", config.connect_timeout.as_millis()))),
        };
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("could not set TCP_NODELAY towards {address}: {e}");
        }
        let stream: Box<dyn Stream> = if config.security_protocol.uses_tls() {
            let connector = tls::connector(&config.tls)?;
            let name = tls::server_name(address)?;
            match tokio::time::timeout(config.connect_timeout, connector.connect(name, tcp)).await {
                Ok(Ok(stream)) => Box::new(stream),
                // As Kafka's SslAuthenticationException: a configuration to fix, never retried.
                Ok(Err(e)) => return Err(ClientError::Authentication(format!("SSL handshake failed: {e}"))),
                Err(_) => return Err(connect("no SSL handshake in time".into())),
            }
        } else {
            Box::new(tcp)
        };
        let mut connection = Connection {
            address: address.to_owned(),
            state: tokio::sync::Mutex::new(Some(Open { stream, next_correlation_id: 0 })),
            versions: HashMap::new(),
            client_id: config.client_id.clone(),
            request_timeout: config.request_timeout,
            response_bytes_max: config.response_bytes_max,
        };
        connection.versions = connection.api_versions().await?;
        if let Some(sasl) = &config.sasl {
            connection.log_in(sasl).await?;
        }
        Ok(connection)
    }

    pub fn address(&self) -> &str {
        &self.address
    }

    /// The highest version of `api` both this client and the node speak.
    pub fn version(&self, api: ApiKey) -> Result<i16, ClientError> {
        let ours = api.versions();
        let (min, max) = *self.versions.get(&(api as i16)).ok_or(ClientError::UnsupportedVersion(api))?;
        let version = max.min(ours.max);
        if version < min.max(ours.min) {
            return Err(ClientError::UnsupportedVersion(api));
        }
        Ok(version)
    }

    /// Every API the node advertised in ApiVersions, by key: its (min, max) versions.
    pub fn advertised_versions(&self) -> &HashMap<i16, (i16, i16)> {
        &self.versions
    }

    /// Whether the node serves `api` at some version this client speaks.
    pub fn supports(&self, api: ApiKey) -> bool {
        self.version(api).is_ok()
    }

    /// Sends `body` at the highest common version and returns the response.
    pub async fn call(&self, body: &RequestBody) -> Result<ResponseBody, ClientError> {
        let version = self.version(body.api_key())?;
        self.call_at(body, version).await
    }

    /// Sends `body` at `version` and returns the response; a failure closes the connection.
    pub async fn call_at(&self, body: &RequestBody, version: i16) -> Result<ResponseBody, ClientError> {
        let io = |reason: String| ClientError::Io { address: self.address.clone(), reason };
        let mut state = self.state.lock().await;
        let (mut open, correlation_id, frame) = self.next_request(&mut state, body, version)?;
        let exchange = async {
            open.stream.write_all(&frame).await.map_err(|e| format!("write: {e}"))?;
            open.stream.flush().await.map_err(|e| format!("write: {e}"))?;
            read_frame(&mut open.stream, self.response_bytes_max).await
        };
        let reply = match tokio::time::timeout(self.request_timeout, exchange).await {
            Ok(Ok(reply)) => reply,
            Ok(Err(reason)) => return Err(io(reason)),
            Err(_) => return Err(io(format!("no response within {} ms", self.request_timeout.as_millis()))),
        };
        let (header, response) = decode_response(body.api_key(), version, reply)
            .map_err(|e| io(format!("an unreadable {:?} response: {e}", body.api_key())))?;
        if header.correlation_id != correlation_id {
            return Err(io(format!("answer to request {}, expected {correlation_id}", header.correlation_id)));
        }
        *state = Some(open);
        Ok(response)
    }

    /// Sends `body` at `version` without waiting for an answer (a Produce with acks=0, which
    /// Kafka's brokers never answer).
    pub async fn send_only(&self, body: &RequestBody, version: i16) -> Result<(), ClientError> {
        let io = |reason: String| ClientError::Io { address: self.address.clone(), reason };
        let mut state = self.state.lock().await;
        let (mut open, _, frame) = self.next_request(&mut state, body, version)?;
        let write = async {
            open.stream.write_all(&frame).await?;
            open.stream.flush().await
        };
        match tokio::time::timeout(self.request_timeout, write).await {
            Ok(Ok(())) => {
                *state = Some(open);
                Ok(())
            }
            Ok(Err(e)) => Err(io(format!("write: {e}"))),
            Err(_) => Err(io("write timed out".into())),
        }
    }

    /// Takes the open connection out of `state` (a failure leaves it closed) with the next
    /// correlation id and `body`'s frame at `version`.
    fn next_request(
        &self,
        state: &mut Option<Open>,
        body: &RequestBody,
        version: i16,
    ) -> Result<(Open, i32, Bytes), ClientError> {
        let io = |reason: String| ClientError::Io { address: self.address.clone(), reason };
        let mut open = state.take().ok_or_else(|| io("closed after an earlier failure".into()))?;
        let correlation_id = open.next_correlation_id;
        open.next_correlation_id = correlation_id.wrapping_add(1);
        match encode_request(correlation_id, Some(&self.client_id), body, version) {
            Ok(frame) => Ok((open, correlation_id, frame)),
            // A request this client cannot encode at this version fails the same way every time:
            // never retried (an I/O error would be, until `default.api.timeout.ms`), and the
            // connection, which sent nothing, stays open.
            Err(e) => {
                *state = Some(open);
                Err(ClientError::Config(format!("cannot encode {:?} v{version}: {e}", body.api_key())))
            }
        }
    }

    async fn api_versions(&self) -> Result<HashMap<i16, (i16, i16)>, ClientError> {
        let request = RequestBody::ApiVersions(ApiVersionsRequest {
            client_software_name: "strand".to_owned(),
            client_software_version: env!("CARGO_PKG_VERSION").to_owned(),
            ..ApiVersionsRequest::default()
        });
        let ResponseBody::ApiVersions(response) = self.call_at(&request, API_VERSIONS_VERSION).await? else {
            return Err(ClientError::Io {
                address: self.address.clone(),
                reason: "not an ApiVersions response".into(),
            });
        };
        if let Some(error) = ClientError::from_response(response.error_code, None) {
            return Err(error);
        }
        Ok(response.api_keys.iter().map(|api| (api.api_key, (api.min_version, api.max_version))).collect())
    }

    async fn log_in(&self, sasl: &crate::config::SaslConfig) -> Result<(), ClientError> {
        let mut client = sasl.client()?;
        let mechanism = client.mechanism();
        let handshake = RequestBody::SaslHandshake(SaslHandshakeRequest { mechanism: mechanism.to_owned() });
        let ResponseBody::SaslHandshake(answer) = self.call_at(&handshake, SASL_HANDSHAKE_VERSION).await? else {
            return Err(ClientError::Authentication("not a SaslHandshake response".into()));
        };
        if answer.error_code != ErrorCode::None.code() {
            return Err(ClientError::Authentication(format!(
                "Client SASL mechanism '{mechanism}' not enabled in the server, enabled mechanisms are {:?}",
                answer.mechanisms
            )));
        }
        let mut token = client.initial_response();
        for _ in 0..SASL_ROUNDS_MAX {
            let body = SaslAuthenticateRequest { auth_bytes: Bytes::from(token), ..SaslAuthenticateRequest::default() };
            let request = RequestBody::SaslAuthenticate(body);
            let ResponseBody::SaslAuthenticate(answer) = self.call_at(&request, SASL_AUTHENTICATE_VERSION).await?
            else {
                return Err(ClientError::Authentication("not a SaslAuthenticate response".into()));
            };
            if answer.error_code != ErrorCode::None.code() {
                return Err(ClientError::Authentication(answer.error_message.unwrap_or_else(|| {
                    ErrorCode::from_code(answer.error_code)
                        .map_or("SASL authentication failed", ErrorCode::message)
                        .into()
                })));
            }
            // SCRAM salts the password here (thousands of HMAC rounds): off the runtime's threads.
            let challenge = answer.auth_bytes;
            let (returned, step) = tokio::task::spawn_blocking(move || {
                let step = client.step(&challenge);
                (client, step)
            })
            .await
            .map_err(|e| ClientError::Authentication(format!("the {mechanism} step failed: {e}")))?;
            client = returned;
            match step {
                Ok(ClientStep::Respond(next)) => token = next,
                Ok(ClientStep::Done) => return Ok(()),
                Err(failure) => return Err(ClientError::Authentication(failure.to_string())),
            }
        }
        Err(ClientError::Authentication(format!("{mechanism} did not finish within {SASL_ROUNDS_MAX} rounds")))
    }
}

/// Reads one frame (without its size prefix), refusing one over `bytes_max`.
async fn read_frame<S: AsyncRead + Unpin + ?Sized>(stream: &mut S, bytes_max: usize) -> Result<Bytes, String> {
    let mut prefix = [0u8; 4];
    stream.read_exact(&mut prefix).await.map_err(|e| format!("read: {e}"))?;
    let size = frame_size(prefix, bytes_max).map_err(|e| e.to_string())?;
    let mut frame = BytesMut::zeroed(size);
    stream.read_exact(&mut frame).await.map_err(|e| format!("read: {e}"))?;
    Ok(frame.freeze())
}
