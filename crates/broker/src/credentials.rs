//! [`ImageCredentials`]: the SCRAM mechanisms' [`CredentialStore`] over this node's live
//! metadata image, so a credential altered through the controller (or written at format time)
//! authenticates as soon as the image holds it, and a deleted one stops at once.

use std::sync::Arc;

use strand_metadata::image::MetadataImage;
use strand_security::sasl::{CredentialStore, ScramCredential};
use strand_security::scram::ScramMechanism;
use tokio::sync::watch;

/// Users' SCRAM credentials as of the node's current image. Cheap to clone; reads take the
/// image's watch lock only for the lookup.
#[derive(Debug, Clone)]
pub struct ImageCredentials {
    image: watch::Receiver<Arc<MetadataImage>>,
}

impl ImageCredentials {
    pub fn new(image: watch::Receiver<Arc<MetadataImage>>) -> ImageCredentials {
        ImageCredentials { image }
    }
}

impl CredentialStore for ImageCredentials {
    fn scram_credential(&self, user: &str, mechanism: &str) -> Option<ScramCredential> {
        let mechanism = ScramMechanism::from_name(mechanism)?;
        self.image.borrow().scram().credential(user, mechanism).cloned()
    }
}
