//! What the admin APIs a broker and a controller's CONTROLLER listener both serve need (the ACL
//! APIs, as Kafka's `AclApis` is shared by its `KafkaApis` and `ControllerApis`, and the requests
//! the active controller decides: ElectLeaders, partition reassignments, client quotas, SCRAM
//! credentials, UnregisterBroker): the authorizer, the node's image and the way to the active
//! controller.

use std::sync::Arc;

use strand_metadata::image::MetadataImage;
use strand_security::Session;
use strand_security::acl::{AclOperation, Action, Authorizer, CLUSTER_NAME, ResourceType};
use tokio::sync::watch;

use crate::ControllerChannel;
use crate::channels::{ask_controller, requester};

#[derive(Debug)]
pub struct AdminApis<'a> {
    /// `authorizer.class.name`'s authorizer; without one everything is allowed and the ACL APIs
    /// answer SECURITY_DISABLED.
    pub authorizer: Option<&'a dyn Authorizer>,
    pub image: &'a watch::Receiver<Arc<MetadataImage>>,
    pub controller: &'a dyn ControllerChannel,
}

impl AdminApis<'_> {
    /// Whether `session` may do `operation` on the cluster (always, without an authorizer).
    pub fn authorize_cluster(&self, session: &Session, operation: AclOperation) -> bool {
        let Some(authorizer) = self.authorizer else { return true };
        authorizer.authorize(session, &Action::new(operation, ResourceType::Cluster, CLUSTER_NAME))
    }

    /// Whether `session` may do `operation` on `resource_type` / `name` (always, without an
    /// authorizer).
    pub fn authorize(
        &self,
        session: &Session,
        operation: AclOperation,
        resource_type: ResourceType,
        name: &str,
    ) -> bool {
        let Some(authorizer) = self.authorizer else { return true };
        authorizer.authorize(session, &Action::new(operation, resource_type, name))
    }

    /// The node's current metadata image.
    pub fn image(&self) -> Arc<MetadataImage> {
        self.image.borrow().clone()
    }

    /// The active controller's answer to `request`, once this node's image holds its effect.
    pub async fn ask_controller<R: strand_protocol::messages::api::Request>(
        &self,
        session: &Session,
        request: &R,
        version: i16,
    ) -> Result<R::Response, String> {
        ask_controller(self.controller, self.image, request, version, Some(requester(session))).await
    }
}
