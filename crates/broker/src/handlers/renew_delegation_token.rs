//! RenewDelegationToken (KIP-48): refused on a connection that may not handle tokens (as
//! CreateDelegationToken), else decided by the active controller (owner or renewer only, never
//! past the token's maximum lifetime).

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{RenewDelegationTokenRequest, RenewDelegationTokenResponse};
use strand_security::Session;

use super::admin_apis::AdminApis;
use super::create_delegation_token::allows_token_requests;

pub async fn handle(
    apis: &AdminApis<'_>,
    request: RenewDelegationTokenRequest,
    version: i16,
    session: &Session,
) -> RenewDelegationTokenResponse {
    // Kafka's `DelegationTokenManager.ErrorTimestamp`.
    let refused = |code: ErrorCode| RenewDelegationTokenResponse {
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
            tracing::warn!("RenewDelegationToken: {reason}");
            refused(ErrorCode::RequestTimedOut)
        }
    }
}
