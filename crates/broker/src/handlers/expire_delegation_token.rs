//! ExpireDelegationToken (KIP-48): refused on a connection that may not handle tokens (as
//! CreateDelegationToken), else decided by the active controller (owner or renewer only; a
//! negative period removes the token at once).

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{ExpireDelegationTokenRequest, ExpireDelegationTokenResponse};
use strand_security::Session;

use super::admin_apis::AdminApis;
use super::create_delegation_token::allows_token_requests;

pub async fn handle(
    apis: &AdminApis<'_>,
    request: ExpireDelegationTokenRequest,
    version: i16,
    session: &Session,
) -> ExpireDelegationTokenResponse {
    // Kafka's `DelegationTokenManager.ErrorTimestamp`.
    let refused = |code: ErrorCode| ExpireDelegationTokenResponse {
        error_code: code.code(),
        expiry_timestamp_ms: -1,
        ..Default::default()
    };
    if !allows_token_requests(session) {
        return refused(ErrorCode::DelegationTokenRequestNotAllowed);
    }
    match apis.ask_controller(session, &request, version).await {
        Ok(response) => response,
        Err(reason) => {
            tracing::warn!("ExpireDelegationToken: {reason}");
            refused(ErrorCode::RequestTimedOut)
        }
    }
}
