//! The controller's own authorization of a request a broker forwards for a client, with the
//! client's principal and address ([`Requester`]), as Kafka's `ControllerApis` authorizes an
//! Envelope's inner request with the Envelope's principal: the broker filters first, but the
//! controller never trusts it blindly (a broker whose image lags a removed binding, a broker
//! that does not check at all). Decided on the controller's image, so a binding committed
//! before the request is always seen.
//!
//! - [`ForwardedCheck::refused_whole`]: the checks made once per request (ALTER on the cluster
//!   for ACLs, SCRAM credentials, elections, reassignments, broker unregistration; ALTER_CONFIGS
//!   for client quotas; DESCRIBE for ListPartitionReassignments and DescribeQuorum;
//!   CLUSTER_ACTION for the inter-broker APIs), answered CLUSTER_AUTHORIZATION_FAILED.
//! - [`ForwardedCheck::refuses_an_entry`] and [`ForwardedCheck::refuse_entries`]: the checks made
//!   per topic or config resource (CREATE on the cluster or the topic, DELETE, ALTER,
//!   ALTER_CONFIGS), answered TOPIC_AUTHORIZATION_FAILED (CLUSTER_AUTHORIZATION_FAILED for broker
//!   configs) entry by entry; the other entries are decided as usual.
//! - [`refuse_all`]: a decided response refused whole.
//!
//! A request a node sends for itself (registration, heartbeats, ISR changes, internal topics)
//! carries no requester and is not checked here: the CONTROLLER listener serves Strand's frames
//! only to a peer with CLUSTER_ACTION on the cluster (the authorizer's decision, `super.users`
//! or an ACL; without an authorizer, `super.users` when set), as Kafka's controllers ask
//! CLUSTER_ACTION of an Envelope's sender.
//!
//! Pure: no I/O, no clock.

use std::net::IpAddr;

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_security::KafkaPrincipal;
use strand_security::acl::{AclOperation, Action, CLUSTER_NAME, ResourceType};

use super::screening;
use crate::authorizer::AuthorizerSettings;
use crate::image::MetadataImage;

/// The client a broker forwards a request for: Kafka's Envelope `request_principal` and
/// `client_host_address`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requester {
    pub principal: KafkaPrincipal,
    pub host: IpAddr,
}

/// The message of a topic refused at creation, as Kafka's `ControllerApis.createTopics` words it.
const CREATE_REFUSED: &str = "Authorization failed.";

/// Config resource types (Kafka's `ConfigResource.Type`) whose ACLs are the cluster's.
const CONFIG_TOPIC: i8 = 2;
const CONFIG_BROKER: i8 = 4;
const CONFIG_BROKER_LOGGER: i8 = 8;
const CONFIG_CLIENT_METRICS: i8 = 16;
const CONFIG_GROUP: i8 = 32;

/// One forwarded request's requester, checked against `image`'s bindings.
#[derive(Debug, Clone, Copy)]
pub struct ForwardedCheck<'a> {
    pub settings: &'a AuthorizerSettings,
    pub image: &'a MetadataImage,
    pub requester: &'a Requester,
}

impl ForwardedCheck<'_> {
    fn allows(&self, operation: AclOperation, resource_type: ResourceType, name: &str) -> bool {
        let action = Action::new(operation, resource_type, name);
        let acls = self.image.acls();
        self.settings.authorize(acls, &self.requester.principal, self.requester.host, &action).allowed()
    }

    fn allows_cluster(&self, operation: AclOperation) -> bool {
        self.allows(operation, ResourceType::Cluster, CLUSTER_NAME)
    }

    /// The error refusing `request` whole, if it is: the checks Kafka makes once per request.
    pub fn refused_whole(&self, request: &RequestBody) -> Option<ErrorCode> {
        use AclOperation as Op;
        let operation = match request.api_key() {
            // Checked entry by entry.
            ApiKey::CreateTopics
            | ApiKey::DeleteTopics
            | ApiKey::CreatePartitions
            | ApiKey::AlterConfigs
            | ApiKey::IncrementalAlterConfigs => return None,
            ApiKey::AlterClientQuotas => Op::AlterConfigs,
            ApiKey::ListPartitionReassignments | ApiKey::DescribeQuorum => Op::Describe,
            ApiKey::BrokerRegistration
            | ApiKey::BrokerHeartbeat
            | ApiKey::AlterPartition
            | ApiKey::AllocateProducerIds
            | ApiKey::AssignReplicasToDirs
            | ApiKey::ControllerRegistration => Op::ClusterAction,
            // CreateAcls, DeleteAcls, AlterUserScramCredentials, ElectLeaders, UpdateFeatures,
            // AlterPartitionReassignments, UnregisterBroker, and anything new: an administrator's.
            _ => Op::Alter,
        };
        (!self.allows_cluster(operation)).then_some(ErrorCode::ClusterAuthorizationFailed)
    }

    /// Whether some entry of `request` (a topic or config resource) is refused.
    pub fn refuses_an_entry(&self, request: &RequestBody) -> bool {
        match request {
            RequestBody::CreateTopics(r) => r.topics.iter().any(|t| self.topic_refusal(request, &t.name).is_some()),
            RequestBody::DeleteTopics(r) => {
                let by_id = r.topics.iter().map(|t| t.name.clone().or_else(|| self.topic_name(t.topic_id)));
                let names = r.topic_names.iter().cloned().map(Some).chain(by_id);
                names.flatten().any(|name| self.topic_refusal(request, &name).is_some())
            }
            RequestBody::CreatePartitions(r) => r.topics.iter().any(|t| self.topic_refusal(request, &t.name).is_some()),
            RequestBody::AlterConfigs(r) => {
                r.resources.iter().any(|c| self.config_refusal(c.resource_type, &c.resource_name).is_some())
            }
            RequestBody::IncrementalAlterConfigs(r) => {
                r.resources.iter().any(|c| self.config_refusal(c.resource_type, &c.resource_name).is_some())
            }
            _ => false,
        }
    }

    /// Refuses, in the decision `response` to `request`, every entry the requester may not touch,
    /// whatever the decision said of it (authorization comes first, as in Kafka).
    pub fn refuse_entries(&self, request: &RequestBody, response: &mut ResponseBody) {
        match response {
            ResponseBody::CreateTopics(r) => {
                for topic in &mut r.topics {
                    if let Some(code) = self.topic_refusal(request, &topic.name) {
                        topic.error_code = code.code();
                        topic.error_message = Some(CREATE_REFUSED.to_owned());
                        topic.topic_id = strand_base::Uuid::ZERO;
                        topic.num_partitions = -1;
                        topic.replication_factor = -1;
                        topic.configs = Some(Vec::new());
                    }
                }
            }
            ResponseBody::DeleteTopics(r) => {
                for topic in &mut r.responses {
                    let name = topic.name.clone().or_else(|| self.topic_name(topic.topic_id));
                    if let Some(code) = name.and_then(|name| self.topic_refusal(request, &name)) {
                        refuse(&mut topic.error_code, &mut topic.error_message, code, code.message());
                    }
                }
            }
            ResponseBody::CreatePartitions(r) => {
                for topic in &mut r.results {
                    if let Some(code) = self.topic_refusal(request, &topic.name) {
                        refuse(&mut topic.error_code, &mut topic.error_message, code, code.message());
                    }
                }
            }
            ResponseBody::AlterConfigs(r) => {
                for c in &mut r.responses {
                    if let Some(code) = self.config_refusal(c.resource_type, &c.resource_name) {
                        refuse(&mut c.error_code, &mut c.error_message, code, code.message());
                    }
                }
            }
            ResponseBody::IncrementalAlterConfigs(r) => {
                for c in &mut r.responses {
                    if let Some(code) = self.config_refusal(c.resource_type, &c.resource_name) {
                        refuse(&mut c.error_code, &mut c.error_message, code, code.message());
                    }
                }
            }
            _ => {}
        }
    }

    /// The refusal of topic `name` in `request`: CREATE (on the cluster, or else the topic),
    /// DELETE (likewise), or ALTER on the topic.
    fn topic_refusal(&self, request: &RequestBody, name: &str) -> Option<ErrorCode> {
        let operation = match request {
            RequestBody::CreateTopics(_) => AclOperation::Create,
            RequestBody::DeleteTopics(_) => AclOperation::Delete,
            _ => AclOperation::Alter,
        };
        let by_cluster = operation != AclOperation::Alter && self.allows_cluster(operation);
        (!by_cluster && !self.allows(operation, ResourceType::Topic, name))
            .then_some(ErrorCode::TopicAuthorizationFailed)
    }

    /// ALTER_CONFIGS on a topic, group, or (for broker, broker logger and client metrics
    /// configs) the cluster, as Kafka's `authorizeAlterResource`.
    fn config_refusal(&self, resource_type: i8, name: &str) -> Option<ErrorCode> {
        let (resource, name, code) = match resource_type {
            CONFIG_TOPIC => (ResourceType::Topic, name, ErrorCode::TopicAuthorizationFailed),
            CONFIG_GROUP => (ResourceType::Group, name, ErrorCode::GroupAuthorizationFailed),
            CONFIG_BROKER | CONFIG_BROKER_LOGGER | CONFIG_CLIENT_METRICS => {
                (ResourceType::Cluster, CLUSTER_NAME, ErrorCode::ClusterAuthorizationFailed)
            }
            // No resource: the decision refuses the type.
            _ => return None,
        };
        (!self.allows(AclOperation::AlterConfigs, resource, name)).then_some(code)
    }

    fn topic_name(&self, id: strand_base::Uuid) -> Option<String> {
        self.image.topics().by_id(id).map(|t| t.name.clone())
    }
}

fn refuse(error_code: &mut i16, error_message: &mut Option<String>, code: ErrorCode, message: &str) {
    *error_code = code.code();
    *error_message = Some(message.to_owned());
}

/// `response` (a decision) refused whole with `code`: every entry, and the response's own error
/// where it has one.
pub fn refuse_all(response: &mut ResponseBody, code: ErrorCode) {
    let message = code.message();
    match response {
        ResponseBody::CreateAcls(r) => {
            r.results.iter_mut().for_each(|a| refuse(&mut a.error_code, &mut a.error_message, code, message))
        }
        ResponseBody::DeleteAcls(r) => {
            for filter in &mut r.filter_results {
                refuse(&mut filter.error_code, &mut filter.error_message, code, message);
                filter.matching_acls.clear();
            }
        }
        ResponseBody::ListPartitionReassignments(r) => {
            refuse(&mut r.error_code, &mut r.error_message, code, message);
            r.topics.clear();
        }
        ResponseBody::UnregisterBroker(r) => refuse(&mut r.error_code, &mut r.error_message, code, message),
        ResponseBody::DescribeQuorum(r) => {
            refuse(&mut r.error_code, &mut r.error_message, code, message);
            r.topics.clear();
            r.nodes.clear();
        }
        ResponseBody::UpdateFeatures(r) => {
            refuse(&mut r.error_code, &mut r.error_message, code, message);
            r.results.clear();
        }
        ResponseBody::ControllerRegistration(r) => refuse(&mut r.error_code, &mut r.error_message, code, message),
        ResponseBody::AllocateProducerIds(r) => r.error_code = code.code(),
        ResponseBody::BrokerRegistration(r) => r.error_code = code.code(),
        ResponseBody::BrokerHeartbeat(r) => r.error_code = code.code(),
        ResponseBody::AlterPartition(r) => r.error_code = code.code(),
        ResponseBody::AssignReplicasToDirs(r) => {
            r.error_code = code.code();
            r.directories.clear();
        }
        other => screening::fail_all(other, code, message),
    }
}
