//! The cluster calls of Kafka's `Admin` that `kafka-cluster` makes: the nodes' endpoints
//! (`describeCluster` with an endpoint type, KIP-919), `unregisterBroker`,
//! `unregisterController`, each node's ApiVersions, `describeLogDirs` and `electLeaders`.

use std::collections::HashMap;

use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::messages::elect_leaders_request::TopicPartitions;
use strand_protocol::messages::{
    DescribeClusterRequest, DescribeLogDirsRequest, ElectLeadersRequest, UnregisterBrokerRequest,
    UnregisterControllerRequest,
};

use crate::admin_groups::TopicPartition;
use crate::cluster::{ENDPOINT_TYPE_BROKER, ENDPOINT_TYPE_CONTROLLER, Node};
use crate::{Admin, ClientError};

/// How long the controller may take to elect (Kafka's admin sends its request timeout).
const ELECT_LEADERS_TIMEOUT_MS: i32 = 30_000;

/// A node as `describeCluster` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub node: Node,
    /// A broker that is fenced (always false for a controller).
    pub fenced: bool,
    /// Whether the node is a controller (the client talks to the controllers).
    pub controller: bool,
}

/// One log directory of a broker, as `describeLogDirs` returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogDirDescription {
    pub path: String,
    /// The directory's error code (0: none), e.g. KAFKA_STORAGE_ERROR for an offline one.
    pub error_code: i16,
    /// Each replica in it, in the order the broker listed them.
    pub replicas: Vec<ReplicaInfo>,
}

/// A replica in a log directory (Kafka's `ReplicaInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaInfo {
    pub topic: String,
    pub partition: i32,
    pub size: i64,
    pub offset_lag: i64,
    pub is_future: bool,
}

impl Admin {
    /// Elects leaders (`electLeaders`; `election_type` 0 preferred, 1 unclean) for `partitions`,
    /// or for every partition that needs it when `None`: each partition's outcome in the order
    /// the controller answered.
    pub async fn elect_leaders(
        &self,
        election_type: i8,
        partitions: Option<&[TopicPartition]>,
    ) -> Result<Vec<(TopicPartition, Result<(), ClientError>)>, ClientError> {
        let topic_partitions = partitions.map(|partitions| {
            let mut by_topic: std::collections::BTreeMap<&str, Vec<i32>> = std::collections::BTreeMap::new();
            for (topic, partition) in partitions {
                by_topic.entry(topic).or_default().push(*partition);
            }
            by_topic
                .into_iter()
                .map(|(topic, partitions)| TopicPartitions {
                    topic: topic.to_owned(),
                    partitions,
                    ..Default::default()
                })
                .collect()
        });
        let request = RequestBody::ElectLeaders(ElectLeadersRequest {
            election_type,
            topic_partitions,
            timeout_ms: ELECT_LEADERS_TIMEOUT_MS,
            ..Default::default()
        });
        let response = self.client().retrying("electLeaders", || self.client().call_controller(&request)).await?;
        let ResponseBody::ElectLeaders(response) = response else {
            return Err(ClientError::Config("not an ElectLeaders response".into()));
        };
        if let Some(error) = ClientError::from_response(response.error_code, None) {
            return Err(error);
        }
        Ok(response
            .replica_election_results
            .into_iter()
            .flat_map(|t| {
                let topic = t.topic;
                t.partition_result.into_iter().map(move |p| {
                    let outcome =
                        ClientError::from_response(p.error_code, p.error_message.as_deref()).map_or(Ok(()), Err);
                    ((topic.clone(), p.partition_id), outcome)
                })
            })
            .collect())
    }

    /// Each log directory of broker `id` and the replicas in it (`describeLogDirs`).
    pub async fn describe_log_dirs(&self, id: i32) -> Result<Vec<LogDirDescription>, ClientError> {
        let request = RequestBody::DescribeLogDirs(DescribeLogDirsRequest { topics: None, ..Default::default() });
        let response = self.client().retrying("describeLogDirs", || self.client().call_node(id, &request)).await?;
        let ResponseBody::DescribeLogDirs(response) = response else {
            return Err(ClientError::Config("not a DescribeLogDirs response".into()));
        };
        if let Some(error) = ClientError::from_response(response.error_code, None) {
            return Err(error);
        }
        Ok(response
            .results
            .into_iter()
            .map(|dir| LogDirDescription {
                path: dir.log_dir,
                error_code: dir.error_code,
                replicas: dir
                    .topics
                    .into_iter()
                    .flat_map(|t| {
                        let topic = t.name;
                        t.partitions.into_iter().map(move |p| ReplicaInfo {
                            topic: topic.clone(),
                            partition: p.partition_index,
                            size: p.partition_size,
                            offset_lag: p.offset_lag,
                            is_future: p.is_future_key,
                        })
                    })
                    .collect(),
            })
            .collect())
    }

    /// The brokers (fenced ones too with `include_fenced`), or the controllers when the client
    /// talks to them, in the order the node answered.
    pub async fn describe_endpoints(&self, include_fenced: bool) -> Result<Vec<Endpoint>, ClientError> {
        let controller = self.client().to_controllers();
        let request = RequestBody::DescribeCluster(DescribeClusterRequest {
            endpoint_type: if controller { ENDPOINT_TYPE_CONTROLLER } else { ENDPOINT_TYPE_BROKER },
            include_fenced_brokers: include_fenced,
            ..Default::default()
        });
        let response = self.client().retrying("describeCluster", || self.client().call_any(&request)).await?;
        let ResponseBody::DescribeCluster(response) = response else {
            return Err(ClientError::Config("not a DescribeCluster response".into()));
        };
        if let Some(error) = ClientError::from_response(response.error_code, response.error_message.as_deref()) {
            return Err(error);
        }
        Ok(response
            .brokers
            .into_iter()
            .map(|b| Endpoint {
                node: Node { id: b.broker_id.0, host: b.host, port: b.port, rack: b.rack },
                fenced: b.is_fenced,
                controller,
            })
            .collect())
    }

    /// Unregisters broker `id` (`unregisterBroker`): sent to any broker, which forwards it, or
    /// to the active controller.
    pub async fn unregister_broker(&self, id: i32) -> Result<(), ClientError> {
        let request = RequestBody::UnregisterBroker(UnregisterBrokerRequest {
            broker_id: strand_base::BrokerId(id),
            ..Default::default()
        });
        let response = self.client().retrying("unregisterBroker", || self.call_either(&request)).await?;
        let ResponseBody::UnregisterBroker(response) = response else {
            return Err(ClientError::Config("not an UnregisterBroker response".into()));
        };
        ClientError::from_response(response.error_code, response.error_message.as_deref()).map_or(Ok(()), Err)
    }

    /// Unregisters controller `id` (`unregisterController`, Kafka 4.4).
    pub async fn unregister_controller(&self, id: i32) -> Result<(), ClientError> {
        let request =
            RequestBody::UnregisterController(UnregisterControllerRequest { controller_id: id, ..Default::default() });
        let response = self.client().retrying("unregisterController", || self.call_either(&request)).await?;
        let ResponseBody::UnregisterController(response) = response else {
            return Err(ClientError::Config("not an UnregisterController response".into()));
        };
        ClientError::from_response(response.error_code, response.error_message.as_deref()).map_or(Ok(()), Err)
    }

    /// Each node's advertised ApiVersions (the brokers, or the controllers when the client talks
    /// to them), in node order.
    pub async fn node_api_versions(&self) -> Result<Vec<(Endpoint, HashMap<i16, (i16, i16)>)>, ClientError> {
        let mut nodes = Vec::new();
        for endpoint in self.describe_endpoints(false).await? {
            let connection = self.client().node_connection(endpoint.node.id).await?;
            let versions = connection.advertised_versions().clone();
            nodes.push((endpoint, versions));
        }
        Ok(nodes)
    }

    /// Sends `request` as Kafka's `LeastLoadedBrokerOrActiveKController` does: to any broker,
    /// or to the active controller.
    pub(crate) async fn call_either(&self, request: &RequestBody) -> Result<ResponseBody, ClientError> {
        let connection = if self.client().to_controllers() {
            self.client().controller_connection().await?
        } else {
            self.client().any_connection().await?
        };
        if !connection.supports(request.api_key()) {
            return Err(ClientError::UnsupportedVersion(request.api_key()));
        }
        connection.call(request).await
    }
}

/// Whether `api` is one Kafka's clients know on a broker listener (`ApiKeys.clientApis()`).
pub fn client_api(api: ApiKey) -> bool {
    api.listeners().contains(&strand_protocol::messages::api::Listener::Broker)
}
