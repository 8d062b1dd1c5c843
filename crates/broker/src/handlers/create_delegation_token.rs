//! CreateDelegationToken (KIP-48; v3's owner, KIP-373): checked here as Kafka checks it, then
//! decided by the active controller, which writes the token's record; the answer comes once
//! this node's image holds it. A token-authenticated or unauthenticated connection is refused
//! (DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, [`allows_token_requests`]); a token for another owner
//! needs CREATE_TOKENS on that owner's User resource (DELEGATION_TOKEN_AUTHORIZATION_FAILED).

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::{CreateDelegationTokenRequest, CreateDelegationTokenResponse};
use strand_security::acl::{AclOperation, ResourceType};
use strand_security::{KafkaPrincipal, SecurityProtocol, Session};

use strand_metadata::quorum_controller::TOKEN_REQUESTER_VERSION;

use super::admin_apis::AdminApis;

/// Kafka's `allowTokenRequests`: not on a session that authenticated with a token, nor on a
/// PLAINTEXT connection, nor on an SSL connection whose client sent no certificate (1-way SSL).
pub(crate) fn allows_token_requests(session: &Session) -> bool {
    let refused = session.principal.token_authenticated
        || session.protocol == SecurityProtocol::Plaintext
        || (session.protocol == SecurityProtocol::Ssl && session.principal == KafkaPrincipal::anonymous());
    !refused
}

pub async fn handle(
    apis: &AdminApis<'_>,
    request: CreateDelegationTokenRequest,
    version: i16,
    session: &Session,
) -> CreateDelegationTokenResponse {
    let requester_principal = &session.principal;
    let owner = match (&request.owner_principal_type, &request.owner_principal_name) {
        (owner_type, Some(name)) if !name.is_empty() => {
            KafkaPrincipal::new(owner_type.clone().unwrap_or_default(), name.clone())
        }
        _ => requester_principal.clone(),
    };
    // KIP-373's requester is in the response from v3 on.
    let named = version >= TOKEN_REQUESTER_VERSION;
    let refused = |code: ErrorCode| CreateDelegationTokenResponse {
        error_code: code.code(),
        principal_type: owner.principal_type.clone(),
        principal_name: owner.name.clone(),
        token_requester_principal_type: if named { requester_principal.principal_type.clone() } else { String::new() },
        token_requester_principal_name: if named { requester_principal.name.clone() } else { String::new() },
        issue_timestamp_ms: -1,
        expiry_timestamp_ms: -1,
        max_timestamp_ms: -1,
        ..Default::default()
    };
    if !allows_token_requests(session) {
        return refused(ErrorCode::DelegationTokenRequestNotAllowed);
    }
    if owner != *requester_principal
        && !apis.authorize(session, AclOperation::CreateTokens, ResourceType::User, &owner.to_string())
    {
        return refused(ErrorCode::DelegationTokenAuthorizationFailed);
    }
    match apis.ask_controller(session, &request, version).await {
        Ok(response) => response,
        Err(reason) => {
            tracing::warn!("CreateDelegationToken: {reason}");
            refused(ErrorCode::RequestTimedOut)
        }
    }
}
