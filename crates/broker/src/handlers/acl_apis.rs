//! What the ACL APIs (CreateAcls, DeleteAcls, DescribeAcls) need, on a broker's listeners and on a
//! controller's CONTROLLER listener alike (Kafka's `AclApis`, shared by its `KafkaApis` and
//! `ControllerApis`): the authorizer, the node's image and the way to the active controller.

use std::sync::Arc;

use strand_metadata::image::MetadataImage;
use strand_security::Session;
use strand_security::acl::{AclOperation, Action, Authorizer, CLUSTER_NAME, ResourceType};
use tokio::sync::watch;

use crate::ControllerChannel;
use crate::channels::{ask_controller, requester};

#[derive(Debug)]
pub struct AclApis<'a> {
    /// `authorizer.class.name`'s authorizer; without one the ACL APIs answer SECURITY_DISABLED.
    pub authorizer: Option<&'a dyn Authorizer>,
    pub image: &'a watch::Receiver<Arc<MetadataImage>>,
    pub controller: &'a dyn ControllerChannel,
}

impl AclApis<'_> {
    /// Whether `session` may do `operation` on the cluster (always, without an authorizer).
    pub fn authorize_cluster(&self, session: &Session, operation: AclOperation) -> bool {
        let Some(authorizer) = self.authorizer else { return true };
        authorizer.authorize(session, &Action::new(operation, ResourceType::Cluster, CLUSTER_NAME))
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
