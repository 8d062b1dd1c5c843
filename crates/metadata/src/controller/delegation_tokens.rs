//! Delegation tokens (KIP-48, KIP-373), as Kafka's `DelegationTokenControlManager` decides
//! them: CreateDelegationToken, RenewDelegationToken and ExpireDelegationToken write a
//! `DelegationTokenRecord` (or its removal), and [`expired_tokens`] removes the tokens past
//! their expiry or maximum lifetime on the `delegation.token.expiry.check.interval.ms` schedule.
//!
//! The broker has already refused what Kafka refuses before forwarding (a token-authenticated
//! or unauthenticated connection, a token for another user without CREATE_TOKENS); here the
//! requester is who the broker says, and `now_ms` is the controller's clock, passed in.
//!
//! Checks in Kafka's order: tokens disabled (no `delegation.token.secret.key`):
//! DELEGATION_TOKEN_AUTH_DISABLED; `metadata.version` before 3.6-IV2: UNSUPPORTED_VERSION; an
//! HMAC that is no token's: DELEGATION_TOKEN_NOT_FOUND; a token past its expiry or maximum:
//! DELEGATION_TOKEN_EXPIRED; a requester neither the owner nor a renewer:
//! DELEGATION_TOKEN_OWNER_MISMATCH.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::{
    CreateDelegationTokenRequest, CreateDelegationTokenResponse, ExpireDelegationTokenRequest,
    ExpireDelegationTokenResponse, RemoveDelegationTokenRecord, RenewDelegationTokenRequest,
    RenewDelegationTokenResponse,
};
use strand_security::KafkaPrincipal;
use strand_security::delegation_token::DelegationTokenSettings;
use subtle::ConstantTimeEq;

use super::{ApiMessageAndVersion, ControllerResult};
use crate::image::{MetadataImage, TokenInformation};

/// `metadata.version` 3.6-IV2, the first with delegation tokens in KRaft
/// (`MetadataVersion.isDelegationTokenSupported`).
pub const METADATA_VERSION_DELEGATION_TOKENS: i16 = 14;

/// What a token decision needs besides the image and the request.
#[derive(Debug, Clone, Copy)]
pub struct TokenContext<'a> {
    /// `None`: tokens are disabled.
    pub settings: Option<&'a DelegationTokenSettings>,
    /// Who the broker forwarded the request for.
    pub requester: &'a KafkaPrincipal,
    pub now_ms: i64,
}

impl TokenContext<'_> {
    /// The settings, or the error that refuses every token request on `image`.
    fn enabled(&self, image: &MetadataImage) -> Result<&DelegationTokenSettings, ErrorCode> {
        let settings = self.settings.ok_or(ErrorCode::DelegationTokenAuthDisabled)?;
        let supported = image.features().metadata_version().is_some_and(|v| v >= METADATA_VERSION_DELEGATION_TOKENS);
        if !supported {
            return Err(ErrorCode::UnsupportedVersion);
        }
        Ok(settings)
    }

    /// The token `hmac` belongs to, live, and that the requester may renew or expire.
    fn renewable<'i>(&self, image: &'i MetadataImage, hmac: &[u8]) -> Result<&'i TokenInformation, ErrorCode> {
        let settings = self.enabled(image)?;
        let token = token_for_hmac(image, settings, hmac).ok_or(ErrorCode::DelegationTokenNotFound)?;
        if token.is_expired(self.now_ms) {
            return Err(ErrorCode::DelegationTokenExpired);
        }
        if !token.may_renew(self.requester) {
            return Err(ErrorCode::DelegationTokenOwnerMismatch);
        }
        Ok(token)
    }
}

/// Creates a token named `token_id` (a fresh random id) for the request's owner, or the
/// requester when it names none.
pub fn create_delegation_token(
    image: &MetadataImage,
    request: &CreateDelegationTokenRequest,
    context: TokenContext<'_>,
    token_id: String,
) -> ControllerResult<CreateDelegationTokenResponse> {
    let owner = match (&request.owner_principal_type, &request.owner_principal_name) {
        (owner_type, Some(name)) if !name.is_empty() => {
            KafkaPrincipal::new(owner_type.clone().unwrap_or_default(), name.clone())
        }
        _ => context.requester.clone(),
    };
    let mut response = CreateDelegationTokenResponse {
        principal_type: owner.principal_type.clone(),
        principal_name: owner.name.clone(),
        token_requester_principal_type: context.requester.principal_type.clone(),
        token_requester_principal_name: context.requester.name.clone(),
        ..Default::default()
    };
    let refused = |mut response: CreateDelegationTokenResponse, code: ErrorCode| {
        response.error_code = code.code();
        ControllerResult { records: Vec::new(), response }
    };
    let settings = match context.enabled(image) {
        Ok(settings) => settings,
        Err(code) => return refused(response, code),
    };
    let now = context.now_ms;
    let max_lifetime_ms = match request.max_lifetime_ms {
        requested if requested > 0 => settings.max_lifetime_ms.min(requested),
        _ => settings.max_lifetime_ms,
    };
    let max_timestamp_ms = now.saturating_add(max_lifetime_ms);
    let expiry_timestamp_ms = max_timestamp_ms.min(now.saturating_add(settings.expiry_time_ms));
    let mut renewers = Vec::with_capacity(request.renewers.len());
    for renewer in &request.renewers {
        if renewer.principal_type != KafkaPrincipal::USER_TYPE {
            return refused(response, ErrorCode::InvalidPrincipalType);
        }
        renewers.push(KafkaPrincipal::new(renewer.principal_type.clone(), renewer.principal_name.clone()));
    }
    let token = TokenInformation {
        token_id: token_id.clone(),
        owner,
        requester: context.requester.clone(),
        renewers,
        issue_timestamp_ms: now,
        max_timestamp_ms,
        expiry_timestamp_ms,
    };
    response.issue_timestamp_ms = now;
    response.expiry_timestamp_ms = expiry_timestamp_ms;
    response.max_timestamp_ms = max_timestamp_ms;
    response.hmac = settings.hmac(&token_id).into();
    response.token_id = token_id;
    let record = ApiMessageAndVersion::latest(MetadataRecord::DelegationTokenRecord(token.to_record()));
    ControllerResult { records: vec![record], response }
}

/// Pushes a token's expiry to now plus the requested period (at most
/// `delegation.token.expiry.time.ms`; that when the period is not positive), never past its
/// maximum timestamp.
pub fn renew_delegation_token(
    image: &MetadataImage,
    request: &RenewDelegationTokenRequest,
    context: TokenContext<'_>,
) -> ControllerResult<RenewDelegationTokenResponse> {
    let token = match context.renewable(image, &request.hmac) {
        Ok(token) => token,
        Err(code) => {
            let response = RenewDelegationTokenResponse { error_code: code.code(), ..Default::default() };
            return ControllerResult { records: Vec::new(), response };
        }
    };
    let default_ms = context.settings.map_or(0, |s| s.expiry_time_ms);
    let period_ms = if request.renew_period_ms > 0 { default_ms.min(request.renew_period_ms) } else { default_ms };
    let expiry_timestamp_ms = token.max_timestamp_ms.min(context.now_ms.saturating_add(period_ms));
    let renewed = TokenInformation { expiry_timestamp_ms, ..token.clone() };
    let record = ApiMessageAndVersion::latest(MetadataRecord::DelegationTokenRecord(renewed.to_record()));
    let response = RenewDelegationTokenResponse { expiry_timestamp_ms, ..Default::default() };
    ControllerResult { records: vec![record], response }
}

/// Expires a token now (a negative period: the token is removed and the response carries the
/// period as its expiry, as Kafka's does) or after the period, never past its maximum timestamp.
pub fn expire_delegation_token(
    image: &MetadataImage,
    request: &ExpireDelegationTokenRequest,
    context: TokenContext<'_>,
) -> ControllerResult<ExpireDelegationTokenResponse> {
    let token = match context.renewable(image, &request.hmac) {
        Ok(token) => token,
        Err(code) => {
            let response = ExpireDelegationTokenResponse { error_code: code.code(), ..Default::default() };
            return ControllerResult { records: Vec::new(), response };
        }
    };
    if request.expiry_time_period_ms < 0 {
        let response =
            ExpireDelegationTokenResponse { expiry_timestamp_ms: request.expiry_time_period_ms, ..Default::default() };
        return ControllerResult { records: vec![removal(&token.token_id)], response };
    }
    let expiry_timestamp_ms = token.max_timestamp_ms.min(context.now_ms.saturating_add(request.expiry_time_period_ms));
    let expired = TokenInformation { expiry_timestamp_ms, ..token.clone() };
    let record = ApiMessageAndVersion::latest(MetadataRecord::DelegationTokenRecord(expired.to_record()));
    let response = ExpireDelegationTokenResponse { expiry_timestamp_ms, ..Default::default() };
    ControllerResult { records: vec![record], response }
}

/// The removals of every token past its expiry or maximum timestamp at `now_ms` (Kafka's
/// `sweepExpiredDelegationTokens`), at most `max` of them.
pub fn expired_tokens(image: &MetadataImage, now_ms: i64, max: usize) -> Vec<ApiMessageAndVersion> {
    let expired = image.delegation_tokens().tokens().filter(|token| token.is_expired(now_ms));
    expired
        .take(max)
        .map(|token| {
            tracing::info!("delegation token {} of {} expired: removing it", token.token_id, token.owner);
            removal(&token.token_id)
        })
        .collect()
}

/// The token whose HMAC under `settings`' key is `hmac` (compared in constant time).
pub fn token_for_hmac<'i>(
    image: &'i MetadataImage,
    settings: &DelegationTokenSettings,
    hmac: &[u8],
) -> Option<&'i TokenInformation> {
    image.delegation_tokens().tokens().find(|token| bool::from(settings.hmac(&token.token_id).as_slice().ct_eq(hmac)))
}

fn removal(token_id: &str) -> ApiMessageAndVersion {
    let record = RemoveDelegationTokenRecord { token_id: token_id.to_owned(), ..Default::default() };
    ApiMessageAndVersion::latest(MetadataRecord::RemoveDelegationTokenRecord(record))
}
