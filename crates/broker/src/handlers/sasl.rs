//! SaslHandshake and SaslAuthenticate on a listener that does not authenticate (every listener
//! today: PLAINTEXT only). Kafka's `KafkaApis` answers both there with ILLEGAL_SASL_STATE and keeps
//! the connection, so a client configured for SASL against a PLAINTEXT listener learns why at
//! once instead of seeing its connection closed.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{
    SaslAuthenticateRequest, SaslAuthenticateResponse, SaslHandshakeRequest, SaslHandshakeResponse,
};

/// ILLEGAL_SASL_STATE, no mechanisms (Kafka's `handleSaslHandshakeRequest`).
pub fn handshake(_request: &SaslHandshakeRequest) -> SaslHandshakeResponse {
    SaslHandshakeResponse { error_code: ErrorCode::IllegalSaslState.code(), mechanisms: Vec::new() }
}

/// ILLEGAL_SASL_STATE with Kafka's message (its `handleSaslAuthenticateRequest`).
pub fn authenticate(_request: &SaslAuthenticateRequest) -> SaslAuthenticateResponse {
    SaslAuthenticateResponse {
        error_code: ErrorCode::IllegalSaslState.code(),
        error_message: Some("SaslAuthenticate request received after successful authentication".to_owned()),
        ..SaslAuthenticateResponse::default()
    }
}
