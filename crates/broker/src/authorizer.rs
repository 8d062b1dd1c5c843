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
        let mut log = self.denials.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if log.second != second {
            if log.suppressed > 0 {
                tracing::info!("{} more authorization denials were not logged", log.suppressed);
            }
            *log = DenialLog { second, logged: 0, suppressed: 0 };
        }
        if log.logged >= DENIAL_LOG_LINES_MAX {
            log.suppressed += 1;
            return;
        }
        log.logged += 1;
        drop(log);
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
