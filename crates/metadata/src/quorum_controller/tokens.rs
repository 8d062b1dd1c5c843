//! The controller's delegation-token requests (KIP-48): decided under the decision lock with the
//! requester the broker forwarded them for and the controller's clock
//! ([`controller::create_delegation_token`] and its siblings), and the periodic removal of
//! expired tokens (`delegation.token.expiry.check.interval.ms`).

use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_security::KafkaPrincipal;
use strand_security::delegation_token::DelegationTokenSettings;

use super::{ControllerError, Decided, QuorumController, decided};
use crate::controller::authorization::Requester;
use crate::controller::{self, TokenContext};

/// The first CreateDelegationToken and DescribeDelegationToken versions naming the requester
/// (KIP-373).
pub const TOKEN_REQUESTER_VERSION: i16 = 3;

/// The most tokens one expiry check removes in one batch; the next check removes the rest.
pub const EXPIRED_TOKENS_PER_CHECK_MAX: usize = 1_000;

impl QuorumController {
    /// Serves the delegation-token APIs with `settings` (`delegation.token.secret.key` set);
    /// without it they answer DELEGATION_TOKEN_AUTH_DISABLED.
    pub fn with_delegation_tokens(mut self, settings: DelegationTokenSettings) -> QuorumController {
        self.delegation_tokens = Some(settings);
        self
    }

    /// Whether `request` is a delegation-token request, decided with its requester.
    pub(super) fn is_token_request(request: &RequestBody) -> bool {
        matches!(
            request,
            RequestBody::CreateDelegationToken(_)
                | RequestBody::RenewDelegationToken(_)
                | RequestBody::ExpireDelegationToken(_)
        )
    }

    /// Decides and commits a delegation-token request for `requester` (`None`: the node itself,
    /// which is `User:ANONYMOUS` to tokens).
    pub(super) async fn handle_token_request(
        &self,
        request: RequestBody,
        version: i16,
        requester: Option<&Requester>,
    ) -> Result<(ResponseBody, i64), ControllerError> {
        let anonymous = KafkaPrincipal::anonymous();
        let principal = requester.map_or(&anonymous, |r| &r.principal);
        let one_at_a_time = self.lock_decisions(request.api_key()).await;
        let base = self.decision_base().await?;
        let context = TokenContext {
            settings: self.delegation_tokens.as_ref(),
            requester: principal,
            now_ms: self.clock.now_ms(),
        };
        let image = &base.image;
        let decision: Decided = match &request {
            RequestBody::CreateDelegationToken(r) => {
                let token_id = (self.new_topic_id)().to_string();
                let mut result = controller::create_delegation_token(image, r, context, token_id);
                if version < TOKEN_REQUESTER_VERSION {
                    // KIP-373's requester is in the response from v3 on.
                    result.response.token_requester_principal_type.clear();
                    result.response.token_requester_principal_name.clear();
                }
                decided(result, ResponseBody::CreateDelegationToken)
            }
            RequestBody::RenewDelegationToken(r) => {
                decided(controller::renew_delegation_token(image, r, context), ResponseBody::RenewDelegationToken)
            }
            RequestBody::ExpireDelegationToken(r) => {
                decided(controller::expire_delegation_token(image, r, context), ResponseBody::ExpireDelegationToken)
            }
            other => return Err(ControllerError::Unsupported(other.api_key())),
        };
        self.commit_decided(one_at_a_time, &base, decision).await
    }

    /// Removes every token past its expiry or maximum lifetime (Kafka's
    /// `sweepExpiredDelegationTokens`). Does nothing off the leader or with tokens disabled.
    /// The number removed.
    pub async fn expire_delegation_tokens(&self) -> Result<usize, ControllerError> {
        if !self.is_active() || self.delegation_tokens.is_none() {
            return Ok(0);
        }
        let one_at_a_time = self.lock_decisions(ApiKey::ExpireDelegationToken).await;
        let base = self.decision_base().await?;
        let records = controller::expired_tokens(&base.image, self.clock.now_ms(), EXPIRED_TOKENS_PER_CHECK_MAX);
        let removed = records.len();
        if removed == 0 {
            return Ok(0);
        }
        let (_, committed) = self.submit(&base, records).await?;
        drop(one_at_a_time);
        committed.await?;
        Ok(removed)
    }
}
