//! [`ControllerApis`]: the Kafka requests a controller serves on its CONTROLLER listener beside
//! Strand's node-to-node frames (KIP-919, Kafka's `ControllerApis`), so admin clients with
//! `--bootstrap-controller` reach the quorum: ApiVersions (with the finalized features, for
//! `kafka-features`), DescribeCluster (the controllers, and the active one), DescribeQuorum
//! (forwarded to the quorum's leader when this node does not lead), Add/Remove/UpdateRaftVoter
//! (refused as a static quorum refuses them), DescribeConfigs (this node's and the cluster's
//! broker configs, and topics', as a broker describes them) and IncrementalAlterConfigs (decided
//! by the active controller), for `kafka-configs`, UpdateFeatures (decided by the active
//! controller), for `kafka-features`, DescribeAcls, CreateAcls and DeleteAcls (Kafka's `AclApis`,
//! as a broker serves them), for `kafka-acls`, the requests a broker forwards to the active
//! controller (ElectLeaders, Alter/ListPartitionReassignments, UnregisterBroker,
//! AlterClientQuotas, AlterUserScramCredentials, Create/Renew/ExpireDelegationToken;
//! DescribeUserScramCredentials from the image),
//! handled as a broker handles them, and the SASL APIs. Anything else closes the connection, as
//! an unserved API does on a broker; ApiVersions advertises exactly these. A change is answered
//! once this node's image holds it, so the next ApiVersions or DescribeConfigs here shows it.
//!
//! Each request is authorized as Kafka's controller authorizes it, against the node's image, on
//! the cluster unless said: DescribeQuorum, DescribeAcls, ListPartitionReassignments and
//! DescribeUserScramCredentials DESCRIBE; DescribeConfigs DESCRIBE_CONFIGS and
//! IncrementalAlterConfigs ALTER_CONFIGS on each resource (brokers' on the cluster);
//! AlterClientQuotas ALTER_CONFIGS; DescribeCluster, AddRaftVoter, RemoveRaftVoter,
//! UpdateFeatures, CreateAcls, DeleteAcls, ElectLeaders, AlterPartitionReassignments,
//! UnregisterBroker and AlterUserScramCredentials ALTER; UpdateRaftVoter CLUSTER_ACTION; the
//! delegation-token APIs as a broker checks them (no token-authenticated or unauthenticated
//! session; CREATE_TOKENS on another owner), as Kafka's `ControllerApis` does.
//!
//! What it is not: the connection (the server's `inter_node::listener` runs TLS and SASL first),
//! nor Strand's node-to-node frames.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use strand_base::BrokerId;
use strand_metadata::image::MetadataImage;
use strand_metadata::quorum::Leadership;
use strand_protocol::error::ErrorCode;
use strand_protocol::frame::{
    RequestError, api_versions_fallback, decode_request_body, encode_response, parse_request,
};
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::messages::api_versions_response::ApiVersion;
use strand_protocol::messages::describe_cluster_response::DescribeClusterBroker;
use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
use strand_protocol::messages::incremental_alter_configs_request::AlterConfigsResource;
use strand_protocol::messages::incremental_alter_configs_response::AlterConfigsResourceResponse;
use strand_protocol::messages::{
    AddRaftVoterResponse, DescribeClusterRequest, DescribeClusterResponse, DescribeConfigsRequest,
    DescribeConfigsResponse, DescribeQuorumRequest, DescribeQuorumResponse, IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse, RemoveRaftVoterResponse, UpdateFeaturesRequest, UpdateFeaturesResponse,
    UpdateRaftVoterResponse,
};
use strand_protocol::versions::advertised;
use strand_security::Session;
use strand_security::acl::{AclOperation, Action, Authorizer, CLUSTER_NAME, ResourceType};
use tokio::sync::watch;

use crate::BrokerConfigEntry;
use crate::authorization::{config_resource, operations_field, supported_operations, unique};
use crate::channels::{ask_controller, call_controller_for, requester};
use crate::handlers::admin_apis::AdminApis;
use crate::handlers::describe_cluster::{ENDPOINT_BROKER, ENDPOINT_CONTROLLER, check_endpoint_type};
use crate::handlers::describe_configs::{self, NodeConfigs};
use crate::handlers::{
    alter_client_quotas, alter_partition_reassignments, alter_user_scram_credentials, api_versions, config_preprocess,
    create_acls, create_delegation_token, delete_acls, describe_acls, describe_quorum, describe_user_scram_credentials,
    elect_leaders, expire_delegation_token, list_partition_reassignments, renew_delegation_token, sasl,
    unregister_broker, update_features,
};
use crate::{ControllerChannel, Outcome};

/// The APIs the CONTROLLER listener serves to Kafka clients.
pub const CONTROLLER_SERVED: &[ApiKey] = &[
    ApiKey::ApiVersions,
    ApiKey::SaslHandshake,
    ApiKey::SaslAuthenticate,
    ApiKey::DescribeConfigs,
    ApiKey::IncrementalAlterConfigs,
    ApiKey::DescribeCluster,
    ApiKey::DescribeQuorum,
    ApiKey::AddRaftVoter,
    ApiKey::RemoveRaftVoter,
    ApiKey::UpdateRaftVoter,
    ApiKey::UpdateFeatures,
    ApiKey::DescribeAcls,
    ApiKey::CreateAcls,
    ApiKey::DeleteAcls,
    ApiKey::ElectLeaders,
    ApiKey::AlterPartitionReassignments,
    ApiKey::ListPartitionReassignments,
    ApiKey::UnregisterBroker,
    ApiKey::AlterClientQuotas,
    ApiKey::DescribeUserScramCredentials,
    ApiKey::AlterUserScramCredentials,
    ApiKey::CreateDelegationToken,
    ApiKey::RenewDelegationToken,
    ApiKey::ExpireDelegationToken,
];

/// What a controller's Kafka requests reach.
#[derive(Debug)]
pub struct ControllerApis {
    cluster_id: String,
    image: watch::Receiver<Arc<MetadataImage>>,
    leadership: watch::Receiver<Leadership>,
    /// The quorum's leader: this node's controller or another's.
    controller: Arc<dyn ControllerChannel>,
    authorizer: Option<Arc<dyn Authorizer>>,
    /// This node's id and static configs, for DescribeConfigs.
    configs: NodeStatics,
}

/// A node's static configs as DescribeConfigs reports them.
#[derive(Debug, Default)]
pub struct NodeStatics {
    pub node_id: BrokerId,
    pub broker_configs: Vec<BrokerConfigEntry>,
    pub static_topic_configs: BTreeMap<String, String>,
}

impl ControllerApis {
    pub fn new(
        cluster_id: String,
        image: watch::Receiver<Arc<MetadataImage>>,
        leadership: watch::Receiver<Leadership>,
        controller: Arc<dyn ControllerChannel>,
        configs: NodeStatics,
    ) -> ControllerApis {
        ControllerApis { cluster_id, image, leadership, controller, authorizer: None, configs }
    }

    /// Checks every request against `authorizer` (without one, everything is allowed).
    pub fn with_authorizer(mut self, authorizer: Arc<dyn Authorizer>) -> ControllerApis {
        self.authorizer = Some(authorizer);
        self
    }

    /// Answers one Kafka request frame (without its size prefix) from `session`.
    pub async fn handle(&self, frame: Bytes, session: &Session) -> Outcome {
        let request = match parse_request(frame) {
            Ok(request) => request,
            Err(RequestError::UnsupportedVersion { api: ApiKey::ApiVersions, correlation_id, .. }) => {
                return respond(api_versions_fallback(correlation_id, served_versions()));
            }
            Err(e) => return Outcome::Close(e.to_string()),
        };
        if !CONTROLLER_SERVED.contains(&request.api_key) {
            return Outcome::Close(format!("{:?} is not served on the controller listener", request.api_key));
        }
        let body = match decode_request_body(&request) {
            Ok(body) => body,
            Err(e) => return Outcome::Close(e.to_string()),
        };
        let (correlation_id, version) = (request.correlation_id(), request.api_version());
        let response = match body {
            RequestBody::ApiVersions(r) if !api_versions::software_named(&r, version) => {
                ResponseBody::ApiVersions(api_versions::invalid())
            }
            RequestBody::ApiVersions(_) => {
                ResponseBody::ApiVersions(api_versions::response(served_versions(), &self.image.borrow()))
            }
            RequestBody::SaslHandshake(r) => ResponseBody::SaslHandshake(sasl::handshake(&r)),
            RequestBody::SaslAuthenticate(r) => ResponseBody::SaslAuthenticate(sasl::authenticate(&r)),
            RequestBody::DescribeConfigs(r) => ResponseBody::DescribeConfigs(self.describe_configs(&r, session)),
            RequestBody::IncrementalAlterConfigs(r) => {
                ResponseBody::IncrementalAlterConfigs(self.incremental_alter_configs(r, version, session).await)
            }
            RequestBody::UpdateFeatures(r) => {
                ResponseBody::UpdateFeatures(self.update_features(r, version, session).await)
            }
            RequestBody::DescribeCluster(r) => {
                ResponseBody::DescribeCluster(self.describe_cluster(&r, version, session))
            }
            RequestBody::DescribeQuorum(r) => {
                ResponseBody::DescribeQuorum(self.describe_quorum(r, version, session).await)
            }
            RequestBody::DescribeAcls(r) => match describe_acls::handle(&self.admin_apis(), r, session) {
                Ok(response) => ResponseBody::DescribeAcls(response),
                Err(reason) => return Outcome::Close(reason),
            },
            RequestBody::CreateAcls(r) => match create_acls::handle(&self.admin_apis(), r, version, session).await {
                Ok(response) => ResponseBody::CreateAcls(response),
                Err(reason) => return Outcome::Close(reason),
            },
            RequestBody::DeleteAcls(r) => match delete_acls::handle(&self.admin_apis(), r, version, session).await {
                Ok(response) => ResponseBody::DeleteAcls(response),
                Err(reason) => return Outcome::Close(reason),
            },
            RequestBody::ElectLeaders(r) => {
                ResponseBody::ElectLeaders(elect_leaders::handle(&self.admin_apis(), r, version, session).await)
            }
            RequestBody::AlterPartitionReassignments(r) => ResponseBody::AlterPartitionReassignments(
                alter_partition_reassignments::handle(&self.admin_apis(), r, version, session).await,
            ),
            RequestBody::ListPartitionReassignments(r) => ResponseBody::ListPartitionReassignments(
                list_partition_reassignments::handle(&self.admin_apis(), r, version, session).await,
            ),
            RequestBody::UnregisterBroker(r) => {
                ResponseBody::UnregisterBroker(unregister_broker::handle(&self.admin_apis(), r, version, session).await)
            }
            RequestBody::AlterClientQuotas(r) => ResponseBody::AlterClientQuotas(
                alter_client_quotas::handle(&self.admin_apis(), r, version, session).await,
            ),
            RequestBody::DescribeUserScramCredentials(r) => ResponseBody::DescribeUserScramCredentials(
                describe_user_scram_credentials::handle(&self.admin_apis(), r, session),
            ),
            RequestBody::AlterUserScramCredentials(r) => ResponseBody::AlterUserScramCredentials(
                alter_user_scram_credentials::handle(&self.admin_apis(), r, version, session).await,
            ),
            RequestBody::CreateDelegationToken(r) => ResponseBody::CreateDelegationToken(
                create_delegation_token::handle(&self.admin_apis(), r, version, session).await,
            ),
            RequestBody::RenewDelegationToken(r) => ResponseBody::RenewDelegationToken(
                renew_delegation_token::handle(&self.admin_apis(), r, version, session).await,
            ),
            RequestBody::ExpireDelegationToken(r) => ResponseBody::ExpireDelegationToken(
                expire_delegation_token::handle(&self.admin_apis(), r, version, session).await,
            ),
            voters @ (RequestBody::AddRaftVoter(_)
            | RequestBody::RemoveRaftVoter(_)
            | RequestBody::UpdateRaftVoter(_)) => self.raft_voters(voters, version, session).await,
            other => return Outcome::Close(format!("{:?} has no handler on the controller listener", other.api_key())),
        };
        respond(encode_response(correlation_id, &response, version))
    }

    /// The raft voter APIs: ALTER on the cluster to add or remove one, CLUSTER_ACTION to update
    /// one, then the quorum leader's answer (a static quorum's refusal, or a dynamic quorum's
    /// change); REQUEST_TIMED_OUT when no leader answers.
    async fn raft_voters(&self, request: RequestBody, version: i16, session: &Session) -> ResponseBody {
        let denied = ErrorCode::ClusterAuthorizationFailed;
        let message = || Some(denied.message().to_owned());
        let channel = self.controller.as_ref();
        let timed_out = |reason: String| {
            tracing::warn!("{:?}: {reason}", request.api_key());
            (ErrorCode::RequestTimedOut.code(), Some(reason))
        };
        match request {
            RequestBody::AddRaftVoter(ref r) if self.authorize(session, AclOperation::Alter) => {
                let answer = ask_controller(channel, &self.image, r, version, None).await;
                ResponseBody::AddRaftVoter(answer.unwrap_or_else(|reason| {
                    let (error_code, error_message) = timed_out(reason);
                    AddRaftVoterResponse { error_code, error_message, ..Default::default() }
                }))
            }
            RequestBody::AddRaftVoter(_) => ResponseBody::AddRaftVoter(AddRaftVoterResponse {
                error_code: denied.code(),
                error_message: message(),
                ..Default::default()
            }),
            RequestBody::RemoveRaftVoter(ref r) if self.authorize(session, AclOperation::Alter) => {
                let answer = ask_controller(channel, &self.image, r, version, None).await;
                ResponseBody::RemoveRaftVoter(answer.unwrap_or_else(|reason| {
                    let (error_code, error_message) = timed_out(reason);
                    RemoveRaftVoterResponse { error_code, error_message, ..Default::default() }
                }))
            }
            RequestBody::RemoveRaftVoter(_) => ResponseBody::RemoveRaftVoter(RemoveRaftVoterResponse {
                error_code: denied.code(),
                error_message: message(),
                ..Default::default()
            }),
            RequestBody::UpdateRaftVoter(ref r) if self.authorize(session, AclOperation::ClusterAction) => {
                let answer = ask_controller(channel, &self.image, r, version, None).await;
                ResponseBody::UpdateRaftVoter(answer.unwrap_or_else(|reason| {
                    let (error_code, _) = timed_out(reason);
                    UpdateRaftVoterResponse { error_code, ..Default::default() }
                }))
            }
            _ => ResponseBody::UpdateRaftVoter(UpdateRaftVoterResponse {
                error_code: denied.code(),
                ..Default::default()
            }),
        }
    }

    /// Kafka's `ControllerApis.handleDescribeCluster`: ALTER on the cluster (a controller's
    /// DescribeCluster asks more than a broker's DESCRIBE), then `computeDescribeClusterResponse`
    /// with CONTROLLER endpoints: the registered controllers (KIP-919) with an endpoint on the
    /// listener the request came in on, and the active one (-1 while none is known).
    fn describe_cluster(
        &self,
        request: &DescribeClusterRequest,
        version: i16,
        session: &Session,
    ) -> DescribeClusterResponse {
        let refused = |code: ErrorCode, message: String| DescribeClusterResponse {
            error_code: code.code(),
            error_message: Some(message),
            endpoint_type: ENDPOINT_BROKER,
            ..DescribeClusterResponse::default()
        };
        if !self.authorize(session, AclOperation::Alter) {
            let denied = ErrorCode::ClusterAuthorizationFailed;
            return refused(denied, denied.message().to_owned());
        }
        if let Err((code, message)) = check_endpoint_type(request.endpoint_type, ENDPOINT_CONTROLLER) {
            return refused(if version == 0 { ErrorCode::InvalidRequest } else { code }, message);
        }
        let image = self.image.borrow().clone();
        let brokers = image.cluster().controllers().filter_map(|controller| {
            let endpoint = controller.endpoints.iter().find(|e| e.name.eq_ignore_ascii_case(&session.listener))?;
            Some(DescribeClusterBroker {
                broker_id: BrokerId(controller.id),
                host: endpoint.host.clone(),
                port: i32::from(endpoint.port),
                ..DescribeClusterBroker::default()
            })
        });
        let cluster_authorized_operations = if !request.include_cluster_authorized_operations {
            i32::MIN
        } else if self.authorize(session, AclOperation::Describe) {
            let operations = supported_operations(ResourceType::Cluster).iter().copied();
            operations_field(operations.filter(|operation| self.authorize(session, *operation)))
        } else {
            0
        };
        DescribeClusterResponse {
            endpoint_type: ENDPOINT_CONTROLLER,
            cluster_id: self.cluster_id.clone(),
            controller_id: BrokerId(self.leadership.borrow().leader_id.unwrap_or(-1)),
            brokers: brokers.collect(),
            cluster_authorized_operations,
            ..DescribeClusterResponse::default()
        }
    }

    async fn describe_quorum(
        &self,
        request: DescribeQuorumRequest,
        version: i16,
        session: &Session,
    ) -> DescribeQuorumResponse {
        if !self.authorize(session, AclOperation::Describe) {
            return describe_quorum::error(ErrorCode::ClusterAuthorizationFailed, None);
        }
        match call_controller_for(self.controller.as_ref(), &request, version, Some(requester(session))).await {
            Ok((response, _)) => response,
            Err(reason) => {
                tracing::warn!("DescribeQuorum: {reason}");
                describe_quorum::error(ErrorCode::RequestTimedOut, Some(reason))
            }
        }
    }

    fn describe_configs(&self, request: &DescribeConfigsRequest, session: &Session) -> DescribeConfigsResponse {
        let node = NodeConfigs {
            node_id: self.configs.node_id,
            broker_configs: &self.configs.broker_configs,
            static_topic_configs: &self.configs.static_topic_configs,
        };
        let refusal = |r: &DescribeConfigsResource| {
            let (resource, name, code) = config_resource(r.resource_type, &r.resource_name)?;
            (!self.authorize_on(session, AclOperation::DescribeConfigs, resource, name)).then_some(code)
        };
        describe_configs::describe(&node, &self.image.borrow(), request, refusal)
    }

    /// ALTER on the cluster, then the active controller's decision.
    async fn update_features(
        &self,
        request: UpdateFeaturesRequest,
        version: i16,
        session: &Session,
    ) -> UpdateFeaturesResponse {
        if !self.authorize(session, AclOperation::Alter) {
            return update_features::failed(
                ErrorCode::ClusterAuthorizationFailed,
                ErrorCode::ClusterAuthorizationFailed.message(),
            );
        }
        match ask_controller(self.controller.as_ref(), &self.image, &request, version, Some(requester(session))).await {
            Ok(response) => response,
            Err(reason) => {
                tracing::warn!("UpdateFeatures: {reason}");
                update_features::failed(ErrorCode::RequestTimedOut, &reason)
            }
        }
    }

    /// ALTER_CONFIGS on each resource (a repeated one is the controller's to refuse), as Kafka's
    /// `ControllerApis.handleIncrementalAlterConfigs`; the rest decided by the active controller.
    /// Responses in request order.
    async fn incremental_alter_configs(
        &self,
        mut request: IncrementalAlterConfigsRequest,
        version: i16,
        session: &Session,
    ) -> IncrementalAlterConfigsResponse {
        let count = request.resources.len();
        let unique = unique(request.resources.iter().map(|r| (r.resource_type, r.resource_name.as_str())));
        let mut refused = BTreeMap::new();
        for (index, resource) in request.resources.iter().enumerate() {
            let (resource_type, name) = (resource.resource_type, resource.resource_name.as_str());
            let Some((acl_resource, acl_name, code)) = config_resource(resource_type, name) else { continue };
            if unique.contains(&(resource_type, name))
                && !self.authorize_on(session, AclOperation::AlterConfigs, acl_resource, acl_name)
            {
                refused.insert(index, config_answer(resource_type, name, code, code.message().to_owned()));
            }
        }
        request.resources = config_preprocess::unrefused(std::mem::take(&mut request.resources), &refused);
        let forwarded = if request.resources.is_empty() {
            Vec::new()
        } else {
            match ask_controller(self.controller.as_ref(), &self.image, &request, version, Some(requester(session)))
                .await
            {
                Ok(response) => response.responses,
                Err(reason) => {
                    tracing::warn!("IncrementalAlterConfigs: {reason}");
                    let timed_out = |r: &AlterConfigsResource| {
                        config_answer(r.resource_type, &r.resource_name, ErrorCode::RequestTimedOut, reason.clone())
                    };
                    request.resources.iter().map(timed_out).collect()
                }
            }
        };
        let responses = config_preprocess::merge(count, refused, forwarded);
        IncrementalAlterConfigsResponse { responses, ..Default::default() }
    }

    fn admin_apis(&self) -> AdminApis<'_> {
        AdminApis { authorizer: self.authorizer.as_deref(), image: &self.image, controller: self.controller.as_ref() }
    }

    /// Whether `session` may do `operation` on the cluster.
    fn authorize(&self, session: &Session, operation: AclOperation) -> bool {
        self.authorize_on(session, operation, ResourceType::Cluster, CLUSTER_NAME)
    }

    fn authorize_on(&self, session: &Session, operation: AclOperation, resource: ResourceType, name: &str) -> bool {
        let Some(authorizer) = &self.authorizer else { return true };
        authorizer.authorize(session, &Action::new(operation, resource, name))
    }
}

/// The CONTROLLER listener's APIs with the versions advertised for them.
pub fn served_versions() -> Vec<ApiVersion> {
    let version = |&api: &ApiKey| {
        let range = advertised(api);
        ApiVersion { api_key: api as i16, min_version: range.min, max_version: range.max, ..Default::default() }
    };
    CONTROLLER_SERVED.iter().map(version).collect()
}

fn config_answer(resource_type: i8, name: &str, code: ErrorCode, message: String) -> AlterConfigsResourceResponse {
    AlterConfigsResourceResponse {
        error_code: code.code(),
        error_message: Some(message),
        resource_type,
        resource_name: name.to_owned(),
        ..Default::default()
    }
}

fn respond(frame: Result<Bytes, strand_protocol::EncodeError>) -> Outcome {
    match frame {
        Ok(frame) => Outcome::Respond(frame.into()),
        Err(e) => Outcome::Close(format!("could not encode the response: {e}")),
    }
}
