//! This node logging in on a SASL link, the client half of Kafka's `SaslClientAuthenticator`
//! that a node needs: a SaslHandshake (v1) naming the mechanism, then SaslAuthenticate requests
//! (v2, KIP-152 framing) carrying the mechanism's tokens until it is done. No ApiVersions first:
//! the peer is a Strand node, whose versions are known.
//!
//! KIP-368: the last SaslAuthenticate answer says how long the session lasts
//! (`session_lifetime_ms`, 0 for as long as the connection). Kafka's clients re-authenticate on
//! the same connection at 85-95% of it; a node link instead stops using the connection once
//! [`RENEW_AT_PERCENT`] of it has passed and opens a new one, which logs in again (see
//! `client`). The server never sees a request after its session expired, and a link carries
//! one call at a time, so nothing is lost by closing.
//!
//! What it is not: no retry (the caller's next call connects again), no second mechanism.

use std::time::Duration;

use bytes::Bytes;
use strand_protocol::error::ErrorCode;
use strand_protocol::frame::{decode_response, encode_request};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::{SaslAuthenticateRequest, SaslHandshakeRequest};
use strand_security::sasl::ClientStep;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};

use super::client::read_reply;
use crate::config::sasl::NodeLogin;

/// The share of a session's lifetime after which a link stops using its connection.
pub const RENEW_AT_PERCENT: u32 = 85;
/// The most SaslAuthenticate rounds one login may take (SCRAM takes two).
const ROUNDS_MAX: usize = 8;
/// The versions this node speaks: both served by every Strand node.
const HANDSHAKE_VERSION: i16 = 1;
const AUTHENTICATE_VERSION: i16 = 2;
/// The client id of a login's requests.
const CLIENT_ID: &str = "strand-node";

/// Why a login did not succeed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginError {
    /// The peer refused the mechanism or the credentials, or failed to prove itself (SCRAM):
    /// a configuration to fix, not an outage.
    Refused(String),
    /// The connection failed or timed out midway.
    Broken(String),
}

/// Logs in on `stream` with `login`, correlation ids from `next_correlation_id` on. The session's
/// lifetime when the peer bounds it.
pub async fn log_in<S: AsyncRead + AsyncWrite + Unpin + ?Sized>(
    stream: &mut S,
    login: &NodeLogin,
    reply_bytes_max: usize,
    next_correlation_id: &mut i32,
) -> Result<Option<Duration>, LoginError> {
    let mut client = login.client().map_err(LoginError::Refused)?;
    let mechanism = client.mechanism();
    let handshake = RequestBody::SaslHandshake(SaslHandshakeRequest { mechanism: mechanism.to_owned() });
    let ResponseBody::SaslHandshake(answer) =
        round_trip(stream, &handshake, HANDSHAKE_VERSION, reply_bytes_max, next_correlation_id).await?
    else {
        return Err(LoginError::Broken("not a SaslHandshake response".into()));
    };
    if answer.error_code != ErrorCode::None.code() {
        return Err(LoginError::Refused(format!(
            "the peer does not enable {mechanism} ({}; it enables {:?})",
            error_name(answer.error_code),
            answer.mechanisms
        )));
    }
    let mut token = client.initial_response();
    for _ in 0..ROUNDS_MAX {
        let body = SaslAuthenticateRequest { auth_bytes: Bytes::from(token), ..SaslAuthenticateRequest::default() };
        let request = RequestBody::SaslAuthenticate(body);
        let ResponseBody::SaslAuthenticate(answer) =
            round_trip(stream, &request, AUTHENTICATE_VERSION, reply_bytes_max, next_correlation_id).await?
        else {
            return Err(LoginError::Broken("not a SaslAuthenticate response".into()));
        };
        if answer.error_code != ErrorCode::None.code() {
            let message = answer.error_message.unwrap_or_default();
            return Err(LoginError::Refused(format!("{}: {message}", error_name(answer.error_code))));
        }
        // SCRAM salts the password here (thousands of HMAC rounds): off the runtime's threads.
        let challenge = answer.auth_bytes;
        let (returned, step) = tokio::task::spawn_blocking(move || {
            let step = client.step(&challenge);
            (client, step)
        })
        .await
        .map_err(|e| LoginError::Broken(format!("the {mechanism} step failed: {e}")))?;
        client = returned;
        match step {
            Ok(ClientStep::Respond(next)) => token = next,
            Ok(ClientStep::Done) => {
                let lifetime = u64::try_from(answer.session_lifetime_ms).ok().filter(|ms| *ms > 0);
                return Ok(lifetime.map(Duration::from_millis));
            }
            Err(failure) => return Err(LoginError::Refused(format!("the peer's answer failed: {failure}"))),
        }
    }
    Err(LoginError::Refused(format!("{mechanism} did not finish within {ROUNDS_MAX} rounds")))
}

/// When, after logging in, a link stops using the connection: [`RENEW_AT_PERCENT`] of `lifetime`.
pub fn renew_after(lifetime: Duration) -> Duration {
    lifetime * RENEW_AT_PERCENT / 100
}

/// Sends one request and reads its response, checking the correlation id.
async fn round_trip<S: AsyncRead + AsyncWrite + Unpin + ?Sized>(
    stream: &mut S,
    body: &RequestBody,
    version: i16,
    reply_bytes_max: usize,
    next_correlation_id: &mut i32,
) -> Result<ResponseBody, LoginError> {
    let correlation_id = *next_correlation_id;
    *next_correlation_id = correlation_id.wrapping_add(1);
    let request = encode_request(correlation_id, Some(CLIENT_ID), body, version)
        .map_err(|e| LoginError::Broken(format!("cannot encode {:?}: {e}", body.api_key())))?;
    let broken = |what: &str, e: std::io::Error| LoginError::Broken(format!("{what} during SASL login: {e}"));
    stream.write_all(&request).await.map_err(|e| broken("write", e))?;
    // TLS holds a record until flushed.
    stream.flush().await.map_err(|e| broken("write", e))?;
    let reply = read_reply(stream, reply_bytes_max).await.map_err(|reason| {
        // A peer that closes instead of answering refused the login (a v0 failure, a closed
        // listener) or went away: either way the reason is the connection's.
        LoginError::Broken(format!("{reason} during SASL login"))
    })?;
    let (header, response) = decode_response(body.api_key(), version, reply)
        .map_err(|e| LoginError::Broken(format!("an unreadable {:?} response: {e}", body.api_key())))?;
    let answered = header.correlation_id;
    if answered != correlation_id {
        return Err(LoginError::Broken(format!("answer to request {answered}, expected {correlation_id}")));
    }
    Ok(response)
}

fn error_name(code: i16) -> String {
    ErrorCode::from_code(code).map_or_else(|| format!("error {code}"), |error| error.name().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session is used until 85% of its lifetime, as Kafka's clients re-authenticate early.
    #[test]
    fn a_session_is_renewed_before_it_expires() {
        assert_eq!(renew_after(Duration::from_secs(10)), Duration::from_millis(8_500));
        assert_eq!(renew_after(Duration::from_millis(100)), Duration::from_millis(85));
    }
}
