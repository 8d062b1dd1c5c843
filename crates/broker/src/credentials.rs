//! [`ImageCredentials`]: the SCRAM mechanisms' [`CredentialStore`] over this node's live
//! metadata image, so a credential altered through the controller (or written at format time)
//! authenticates as soon as the image holds it, and a deleted one stops at once. Delegation
//! tokens likewise: a token authenticates once the image holds it and stops when its removal
//! (an expiry) arrives; its password is derived from `delegation.token.secret.key`.

use std::sync::Arc;
use std::time::Duration;

use strand_base::Clock;

use strand_metadata::image::MetadataImage;
use strand_security::KafkaPrincipal;
use strand_security::delegation_token::DelegationTokenSettings;
use strand_security::sasl::{CredentialStore, ScramCredential, TokenCredential};
use strand_security::scram::ScramMechanism;
use tokio::sync::watch;

/// Users' SCRAM credentials as of the node's current image. Cheap to clone; reads take the
/// image's watch lock only for the lookup.
#[derive(Debug, Clone)]
pub struct ImageCredentials {
    image: watch::Receiver<Arc<MetadataImage>>,
    /// Set when delegation tokens are enabled, with the clock a token's remaining lifetime is
    /// measured by.
    delegation_tokens: Option<(DelegationTokenSettings, Arc<dyn Clock>)>,
}

impl ImageCredentials {
    pub fn new(image: watch::Receiver<Arc<MetadataImage>>) -> ImageCredentials {
        ImageCredentials { image, delegation_tokens: None }
    }

    /// Authenticates delegation tokens too (SCRAM's `tokenauth` extension).
    pub fn with_delegation_tokens(
        mut self,
        settings: DelegationTokenSettings,
        clock: Arc<dyn Clock>,
    ) -> ImageCredentials {
        self.delegation_tokens = Some((settings, clock));
        self
    }
}

impl CredentialStore for ImageCredentials {
    fn scram_credential(&self, user: &str, mechanism: &str) -> Option<ScramCredential> {
        let mechanism = ScramMechanism::from_name(mechanism)?;
        self.image.borrow().scram().credential(user, mechanism).cloned()
    }

    /// The token's owner, as a `User` whatever type the token names (Kafka's SCRAM server makes
    /// the owner's name the authorization id). The credential is derived per exchange (PBKDF2
    /// at 4096 iterations, a few milliseconds), off the image's lock.
    fn token_credential(&self, token_id: &str, mechanism: &str) -> Option<TokenCredential> {
        let (settings, clock) = self.delegation_tokens.as_ref()?;
        let mechanism = ScramMechanism::from_name(mechanism)?;
        let (owner, expiry_ms) = {
            let image = self.image.borrow();
            let token = image.delegation_tokens().token(token_id)?;
            (token.owner.name.clone(), token.expiry_timestamp_ms.min(token.max_timestamp_ms))
        };
        let lifetime = Duration::from_millis(u64::try_from(expiry_ms.saturating_sub(clock.now_ms())).unwrap_or(0));
        let credential = settings.scram_credential(token_id, mechanism);
        Some(TokenCredential { credential, owner: KafkaPrincipal::user(owner), lifetime })
    }
}
