//! [`ImageAuthorizer`]: Kafka's `StandardAuthorizer` on this node, the decision of
//! `strand_metadata::authorizer` over the ACLs of the node's live metadata image, so a binding
//! created or deleted through the controller applies as soon as the image holds it.
//!
//! Each denial is logged at INFO as Kafka's `kafka.authorizer.logger` logs it (principal,
//! operation, host, resource, the deciding rule), at most [`DENIAL_LOG_LINES_MAX`] lines a
//! second; the rest are counted and the count logged when the next second's first line is.
//!
//! Before the image holds any record (the node still loading its metadata) only super users are
//! allowed, as Kafka's authorizer refuses everyone else until its initial load completes.

use std::sync::{Arc, Mutex};

use strand_base::Clock;
use strand_metadata::authorizer::{AuthorizerSettings, Rule, java_host_address};
use strand_metadata::image::MetadataImage;
use strand_security::Session;
use strand_security::acl::{AclOperation, Action, Authorizer, ResourceType};
use tokio::sync::watch;

/// The most denial lines logged in one second; the others are counted.
pub const DENIAL_LOG_LINES_MAX: u32 = 50;

/// `authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer` over the
/// node's image. Reads clone the image's `Arc` and decide without locks or I/O.
#[derive(Debug)]
pub struct ImageAuthorizer {
    image: watch::Receiver<Arc<MetadataImage>>,
    settings: AuthorizerSettings,
    clock: Arc<dyn Clock>,
    denials: Mutex<DenialLog>,
}

/// How many denial lines this second has logged, and how many it left out.
#[derive(Debug, Default)]
struct DenialLog {
    second: u64,
    logged: u32,
    suppressed: u64,
}

impl ImageAuthorizer {
    pub fn new(
        image: watch::Receiver<Arc<MetadataImage>>,
        settings: AuthorizerSettings,
        clock: Arc<dyn Clock>,
    ) -> ImageAuthorizer {
        let super_users: Vec<&str> = settings.super_users.iter().map(String::as_str).collect();
        let default = if settings.allow_if_no_acl_found { "ALLOWED" } else { "DENIED" };
        tracing::info!("StandardAuthorizer: set super.users={}, default result={default}", super_users.join(","));
        ImageAuthorizer { image, settings, clock, denials: Mutex::new(DenialLog::default()) }
    }

    fn image(&self) -> Option<Arc<MetadataImage>> {
        let image = self.image.borrow().clone();
        (!image.is_empty()).then_some(image)
    }

    /// One INFO line for a denial, as Kafka's audit log writes it, within the rate limit.
    fn log_denial(&self, session: &Session, action: &Action, rule: &str) {
        let second = self.clock.monotonic_ns() / 1_000_000_000;
        let (logged, suppressed) = self.denials.lock().unwrap_or_else(std::sync::PoisonError::into_inner).admit(second);
        if suppressed > 0 {
            tracing::info!("{suppressed} more authorization denials were not logged");
        }
        if !logged {
            return;
        }
        tracing::info!(
            "Principal = {} is Denied operation = {} from host = {} on resource = {}:LITERAL:{} based on rule {rule}",
            session.principal,
            action.operation,
            java_host_address(session.peer.ip()),
            resource_type_name(action.resource_type),
            action.name,
        );
    }
}

impl DenialLog {
    /// Whether a denial in `second` gets its line, and how many denials of an earlier second
    /// went unlogged (reported once, with the first denial of a later second).
    fn admit(&mut self, second: u64) -> (bool, u64) {
        let mut suppressed = 0;
        if self.second != second {
            suppressed = self.suppressed;
            *self = DenialLog { second, logged: 0, suppressed: 0 };
        }
        if self.logged >= DENIAL_LOG_LINES_MAX {
            self.suppressed += 1;
            return (false, suppressed);
        }
        self.logged += 1;
        (true, suppressed)
    }
}

impl Authorizer for ImageAuthorizer {
    fn authorize(&self, session: &Session, action: &Action) -> bool {
        if self.settings.is_super_user(&session.principal) {
            return true;
        }
        let Some(image) = self.image() else {
            self.log_denial(session, action, "NotReady (the metadata image is still loading)");
            return false;
        };
        let rule = self.settings.authorize(image.acls(), &session.principal, session.peer.ip(), action);
        if matches!(rule, Rule::SuperUser) || rule.allowed() {
            return true;
        }
        self.log_denial(session, action, &rule.to_string());
        false
    }

    fn authorize_any(&self, session: &Session, operation: AclOperation, resource_type: ResourceType) -> bool {
        if self.settings.is_super_user(&session.principal) {
            return true;
        }
        let Some(image) = self.image() else { return false };
        self.settings.authorize_any(image.acls(), &session.principal, session.peer.ip(), operation, resource_type)
    }
}

/// A resource type as Kafka's `SecurityUtils.resourceTypeName` prints it (`TransactionalId`).
fn resource_type_name(resource_type: ResourceType) -> &'static str {
    match resource_type {
        ResourceType::Topic => "Topic",
        ResourceType::Group => "Group",
        ResourceType::Cluster => "Cluster",
        ResourceType::TransactionalId => "TransactionalId",
        ResourceType::DelegationToken => "DelegationToken",
        ResourceType::User => "User",
        ResourceType::Any => "Any",
        ResourceType::Unknown => "Unknown",
    }
}

#[cfg(test)]
mod tests {
    use strand_base::SystemClock;
    use strand_security::KafkaPrincipal;
    use strand_security::acl::CLUSTER_NAME;

    use super::*;

    /// At most [`DENIAL_LOG_LINES_MAX`] lines a second; the rest are counted and reported once.
    #[test]
    fn denials_are_logged_at_a_bounded_rate() {
        let mut log = DenialLog::default();
        let first: Vec<(bool, u64)> = (0..DENIAL_LOG_LINES_MAX + 3).map(|_| log.admit(7)).collect();
        assert!(first[..DENIAL_LOG_LINES_MAX as usize].iter().all(|&a| a == (true, 0)));
        assert!(first[DENIAL_LOG_LINES_MAX as usize..].iter().all(|&a| a == (false, 0)));
        assert_eq!(log.admit(8), (true, 3));
        assert_eq!(log.admit(8), (true, 0));
    }

    /// Before the image holds any record only super users are allowed.
    #[test]
    fn only_super_users_pass_before_the_image_loads() {
        let (_images, image) = watch::channel(Arc::new(MetadataImage::empty()));
        let settings =
            AuthorizerSettings { super_users: ["User:admin".to_owned()].into(), allow_if_no_acl_found: true };
        let authorizer = ImageAuthorizer::new(image, settings, Arc::new(SystemClock));
        let peer = "127.0.0.1:9000".parse().expect("an address");
        let session =
            |name: &str| Session { principal: KafkaPrincipal::user(name), ..Session::anonymous(peer, "PLAINTEXT") };
        let describe = Action::new(AclOperation::Describe, ResourceType::Cluster, CLUSTER_NAME);
        assert!(authorizer.authorize(&session("admin"), &describe));
        assert!(!authorizer.authorize(&session("alice"), &describe));
        assert!(!authorizer.authorize_any(&session("alice"), AclOperation::Write, ResourceType::Topic));
    }
}
