//! DescribeDelegationToken (KIP-48), answered from this node's image as Kafka's broker answers
//! it from its token cache: refused on a connection that may not handle tokens
//! (DELEGATION_TOKEN_REQUEST_NOT_ALLOWED) or with tokens disabled (DELEGATION_TOKEN_AUTH_DISABLED);
//! an empty owner list describes nothing, a missing one every owner. A token is described when
//! it belongs to a requested owner (as owner, requester or renewer) and the session is its
//! owner, requester or a renewer, or may DESCRIBE the DelegationToken resource, or
//! DESCRIBE_TOKENS on the owner's User resource (KIP-373). Each carries its HMAC.

use strand_metadata::image::TokenInformation;
use strand_metadata::quorum_controller::TOKEN_REQUESTER_VERSION;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::describe_delegation_token_response::{
    DescribedDelegationToken, DescribedDelegationTokenRenewer,
};
use strand_protocol::messages::{DescribeDelegationTokenRequest, DescribeDelegationTokenResponse};
use strand_security::acl::{AclOperation, ResourceType};
use strand_security::delegation_token::DelegationTokenSettings;
use strand_security::{KafkaPrincipal, Session};

use super::create_delegation_token::allows_token_requests;
use crate::Broker;

pub fn handle(
    broker: &Broker,
    request: &DescribeDelegationTokenRequest,
    version: i16,
    session: &Session,
) -> DescribeDelegationTokenResponse {
    let refused = |code: ErrorCode| DescribeDelegationTokenResponse { error_code: code.code(), ..Default::default() };
    if !allows_token_requests(session) {
        return refused(ErrorCode::DelegationTokenRequestNotAllowed);
    }
    let Some(settings) = &broker.delegation_tokens else {
        return refused(ErrorCode::DelegationTokenAuthDisabled);
    };
    let owners: Option<Vec<KafkaPrincipal>> = request.owners.as_ref().map(|owners| {
        owners.iter().map(|o| KafkaPrincipal::new(o.principal_type.clone(), o.principal_name.clone())).collect()
    });
    if owners.as_ref().is_some_and(Vec::is_empty) {
        return DescribeDelegationTokenResponse::default();
    }
    let image = broker.image.borrow().clone();
    let tokens = image
        .delegation_tokens()
        .tokens()
        .filter(|token| describable(broker, session, owners.as_deref(), token))
        .map(|token| described(settings, token, version >= TOKEN_REQUESTER_VERSION))
        .collect();
    DescribeDelegationTokenResponse { tokens, ..Default::default() }
}

/// Kafka's `DelegationTokenManager.filterToken`.
fn describable(
    broker: &Broker,
    session: &Session,
    owners: Option<&[KafkaPrincipal]>,
    token: &TokenInformation,
) -> bool {
    if owners.is_some_and(|owners| !owners.iter().any(|owner| token.owner_or_renewer(owner))) {
        return false;
    }
    token.owner_or_renewer(&session.principal)
        || broker.authorize(session, AclOperation::Describe, ResourceType::DelegationToken, &token.token_id)
        || broker.authorize(session, AclOperation::DescribeTokens, ResourceType::User, &token.owner.to_string())
}

/// `token` as described; `with_requester` from v3 on (KIP-373).
fn described(
    settings: &DelegationTokenSettings,
    token: &TokenInformation,
    with_requester: bool,
) -> DescribedDelegationToken {
    let renewers = (token.renewers.iter())
        .map(|renewer| DescribedDelegationTokenRenewer {
            principal_type: renewer.principal_type.clone(),
            principal_name: renewer.name.clone(),
            ..Default::default()
        })
        .collect();
    let requester = |part: &String| if with_requester { part.clone() } else { String::new() };
    DescribedDelegationToken {
        principal_type: token.owner.principal_type.clone(),
        principal_name: token.owner.name.clone(),
        token_requester_principal_type: requester(&token.requester.principal_type),
        token_requester_principal_name: requester(&token.requester.name),
        issue_timestamp: token.issue_timestamp_ms,
        expiry_timestamp: token.expiry_timestamp_ms,
        max_timestamp: token.max_timestamp_ms,
        token_id: token.token_id.clone(),
        hmac: settings.hmac(&token.token_id).into(),
        renewers,
        ..Default::default()
    }
}
