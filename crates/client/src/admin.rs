//! [`Admin`]: the calls of Kafka's `Admin` that the operator tools need, each retried as
//! [`Client::retrying`] says and answering what Kafka's `KafkaFuture`s would.
//!
//! Routing as Kafka's admin client does: CreateTopics, DeleteTopics, CreatePartitions and
//! ListPartitionReassignments to the controller Metadata names (a KRaft broker forwards them);
//! Metadata, DescribeTopicPartitions, DescribeConfigs and DescribeCluster to any node.
//! `describe_topics` uses DescribeTopicPartitions (KIP-966: it carries the ELR), paging with its
//! cursor, and Metadata on a node that does not serve it.

use std::collections::BTreeMap;

use strand_base::{BrokerId, Uuid};
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::messages::create_partitions_request::{CreatePartitionsAssignment, CreatePartitionsTopic};
use strand_protocol::messages::create_topics_request::{
    CreatableReplicaAssignment, CreatableTopic, CreatableTopicConfig,
};
use strand_protocol::messages::delete_topics_request::DeleteTopicState;
use strand_protocol::messages::describe_configs_request::DescribeConfigsResource;
use strand_protocol::messages::describe_topic_partitions_request::{Cursor, TopicRequest};
use strand_protocol::messages::list_partition_reassignments_request::ListPartitionReassignmentsTopics;
use strand_protocol::messages::{
    CreatePartitionsRequest, CreateTopicsRequest, DeleteTopicsRequest, DescribeClusterRequest, DescribeConfigsRequest,
    DescribeTopicPartitionsRequest, ListPartitionReassignmentsRequest,
};

use crate::cluster::{ENDPOINT_TYPE_BROKER, ENDPOINT_TYPE_CONTROLLER, Node};
use crate::{Client, ClientError};

/// Kafka's `ConfigResource.Type.TOPIC` and `BROKER`.
pub const RESOURCE_TOPIC: i8 = 2;
pub const RESOURCE_BROKER: i8 = 4;
/// `ConfigEntry.ConfigSource.DEFAULT_CONFIG` on the wire.
pub const CONFIG_SOURCE_DEFAULT: i8 = 5;
/// The partitions one DescribeTopicPartitions answer may hold (Kafka's tool default).
pub const DESCRIBE_PARTITIONS_PER_RESPONSE_MAX: i32 = 2000;

/// A topic as `listTopics` returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicListing {
    pub name: String,
    pub topic_id: Uuid,
    pub is_internal: bool,
}

/// One partition as `describeTopics` returns it. `elr` and `last_known_elr` are `None` when the
/// node answered through Metadata, which does not carry them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionInfo {
    pub partition: i32,
    pub leader: Option<i32>,
    pub replicas: Vec<i32>,
    pub isr: Vec<i32>,
    pub elr: Option<Vec<i32>>,
    pub last_known_elr: Option<Vec<i32>>,
    pub offline: Vec<i32>,
}

/// A topic as `describeTopics` returns it, partitions in partition order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicDescription {
    pub name: String,
    pub topic_id: Uuid,
    pub is_internal: bool,
    pub partitions: Vec<PartitionInfo>,
}

/// One config of a resource, as `describeConfigs` returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEntry {
    pub name: String,
    pub value: Option<String>,
    /// Kafka's `ConfigSource` id (1 dynamic topic config ... 5 default).
    pub source: i8,
    pub read_only: bool,
    pub sensitive: bool,
}

impl ConfigEntry {
    /// Kafka's `ConfigEntry.isDefault`.
    pub fn is_default(&self) -> bool {
        self.source == CONFIG_SOURCE_DEFAULT
    }
}

/// The cluster as `describeCluster` returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterDescription {
    pub cluster_id: String,
    pub controller: Option<i32>,
    pub nodes: Vec<Node>,
}

/// A topic to create: Kafka's `NewTopic`. `partitions` and `replication_factor` of -1 take the
/// cluster's defaults; `assignments` (partition to replicas) replaces both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTopic {
    pub name: String,
    pub partitions: i32,
    pub replication_factor: i16,
    pub assignments: BTreeMap<i32, Vec<i32>>,
    pub configs: Vec<(String, String)>,
}

impl NewTopic {
    pub fn new(name: impl Into<String>, partitions: i32, replication_factor: i16) -> NewTopic {
        NewTopic {
            name: name.into(),
            partitions,
            replication_factor,
            assignments: BTreeMap::new(),
            configs: Vec::new(),
        }
    }
}

/// A topic's partitions raised to `total_count` (Kafka's `NewPartitions.increaseTo`), the new
/// partitions on `assignments` (one replica list each) if given, else placed by the controller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionIncrease {
    pub topic: String,
    pub total_count: i32,
    pub assignments: Option<Vec<Vec<i32>>>,
}

/// A partition's reassignment in progress.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reassignment {
    pub replicas: Vec<i32>,
    pub adding: Vec<i32>,
    pub removing: Vec<i32>,
}

/// The admin API over a [`Client`].
#[derive(Debug)]
pub struct Admin {
    client: Client,
}

fn ids(brokers: &[BrokerId]) -> Vec<i32> {
    brokers.iter().map(|b| b.0).collect()
}

fn unexpected(api: &str) -> ClientError {
    ClientError::Io { address: String::new(), reason: format!("not a {api} response") }
}

impl Admin {
    pub fn new(client: Client) -> Admin {
        Admin { client }
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Every topic's name and id (`listTopics`), internal ones with `include_internal`.
    pub async fn list_topics(&self, include_internal: bool) -> Result<Vec<TopicListing>, ClientError> {
        let response = self.client.retrying("listTopics", || self.client.refresh_metadata(None)).await?;
        Ok(response
            .topics
            .into_iter()
            .filter(|t| t.error_code == 0 && (include_internal || !t.is_internal))
            .filter_map(|t| Some(TopicListing { name: t.name?, topic_id: t.topic_id, is_internal: t.is_internal }))
            .collect())
    }

    /// The named topics' partitions; the first topic that failed fails the call, as Kafka's
    /// `allTopicNames()` does.
    /// A topic's own error (UNKNOWN_TOPIC_OR_PARTITION, say) is not retried, as in Kafka.
    pub async fn describe_topics(&self, names: &[String]) -> Result<Vec<TopicDescription>, ClientError> {
        self.describe_topics_paged(names, DESCRIBE_PARTITIONS_PER_RESPONSE_MAX).await
    }

    /// [`Admin::describe_topics`] with at most `partitions_per_response` partitions in each
    /// DescribeTopicPartitions answer (Kafka's `partitionSizeLimitPerResponse`).
    pub async fn describe_topics_paged(
        &self,
        names: &[String],
        partitions_per_response: i32,
    ) -> Result<Vec<TopicDescription>, ClientError> {
        self.client
            .retrying("describeTopics", || async {
                let connection = self.client.any_connection().await?;
                if connection.supports(ApiKey::DescribeTopicPartitions) {
                    self.describe_topic_partitions(&connection, names, partitions_per_response).await
                } else {
                    self.describe_through_metadata(names).await
                }
            })
            .await?
    }

    async fn describe_topic_partitions(
        &self,
        connection: &crate::Connection,
        names: &[String],
        partitions_per_response: i32,
    ) -> Result<Result<Vec<TopicDescription>, ClientError>, ClientError> {
        let mut described: BTreeMap<String, TopicDescription> = BTreeMap::new();
        let mut cursor: Option<Cursor> = None;
        loop {
            let request = RequestBody::DescribeTopicPartitions(DescribeTopicPartitionsRequest {
                topics: names.iter().map(|name| TopicRequest { name: name.clone(), ..Default::default() }).collect(),
                response_partition_limit: partitions_per_response,
                cursor: cursor.take(),
                ..Default::default()
            });
            let ResponseBody::DescribeTopicPartitions(response) = connection.call(&request).await? else {
                return Err(unexpected("DescribeTopicPartitions"));
            };
            for topic in response.topics {
                if let Some(error) = ClientError::from_response(topic.error_code, None) {
                    return Ok(Err(error));
                }
                let name = topic.name.clone().unwrap_or_default();
                let entry = described.entry(name.clone()).or_insert_with(|| TopicDescription {
                    name,
                    topic_id: topic.topic_id,
                    is_internal: topic.is_internal,
                    partitions: Vec::new(),
                });
                entry.partitions.extend(topic.partitions.into_iter().map(|p| PartitionInfo {
                    partition: p.partition_index,
                    leader: (p.leader_id.0 >= 0).then_some(p.leader_id.0),
                    replicas: ids(&p.replica_nodes),
                    isr: ids(&p.isr_nodes),
                    elr: p.eligible_leader_replicas.as_deref().map(ids),
                    last_known_elr: p.last_known_elr.as_deref().map(ids),
                    offline: ids(&p.offline_replicas),
                }));
            }
            match response.next_cursor {
                Some(next) => {
                    cursor = Some(Cursor {
                        topic_name: next.topic_name,
                        partition_index: next.partition_index,
                        ..Default::default()
                    })
                }
                None => break,
            }
        }
        Ok(Ok(order(names, described)))
    }

    /// The named topics through Metadata, as Kafka's admin client describes topics by id: no
    /// ELR (`elr` and `last_known_elr` are `None`).
    pub async fn describe_topics_through_metadata(
        &self,
        names: &[String],
    ) -> Result<Vec<TopicDescription>, ClientError> {
        self.client.retrying("describeTopics", || self.describe_through_metadata(names)).await?
    }

    async fn describe_through_metadata(
        &self,
        names: &[String],
    ) -> Result<Result<Vec<TopicDescription>, ClientError>, ClientError> {
        let response = self.client.refresh_metadata(Some(names)).await?;
        let mut described = BTreeMap::new();
        for topic in response.topics {
            if let Some(error) = ClientError::from_response(topic.error_code, None) {
                return Ok(Err(error));
            }
            let name = topic.name.unwrap_or_default();
            let partitions = topic
                .partitions
                .into_iter()
                .map(|p| PartitionInfo {
                    partition: p.partition_index,
                    leader: (p.leader_id.0 >= 0).then_some(p.leader_id.0),
                    replicas: ids(&p.replica_nodes),
                    isr: ids(&p.isr_nodes),
                    elr: None,
                    last_known_elr: None,
                    offline: ids(&p.offline_replicas),
                })
                .collect();
            let description = TopicDescription {
                name: name.clone(),
                topic_id: topic.topic_id,
                is_internal: topic.is_internal,
                partitions,
            };
            described.insert(name, description);
        }
        Ok(Ok(order(names, described)))
    }

    /// The configs of each `(resource type, name)`, in the order asked; the first resource that
    /// failed fails the call.
    pub async fn describe_configs(&self, resources: &[(i8, String)]) -> Result<Vec<Vec<ConfigEntry>>, ClientError> {
        let request = RequestBody::DescribeConfigs(DescribeConfigsRequest {
            resources: resources
                .iter()
                .map(|(resource_type, name)| DescribeConfigsResource {
                    resource_type: *resource_type,
                    resource_name: name.clone(),
                    configuration_keys: None,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        });
        let response = self.client.retrying("describeConfigs", || self.client.call_any(&request)).await?;
        let ResponseBody::DescribeConfigs(response) = response else { return Err(unexpected("DescribeConfigs")) };
        let mut by_resource = BTreeMap::new();
        for result in response.results {
            if let Some(error) = ClientError::from_response(result.error_code, result.error_message.as_deref()) {
                return Err(error);
            }
            let entries = result
                .configs
                .into_iter()
                .map(|c| ConfigEntry {
                    name: c.name,
                    value: c.value,
                    source: c.config_source,
                    read_only: c.read_only,
                    sensitive: c.is_sensitive,
                })
                .collect::<Vec<_>>();
            by_resource.insert((result.resource_type, result.resource_name), entries);
        }
        Ok(resources.iter().map(|key| by_resource.remove(key).unwrap_or_default()).collect())
    }

    /// The cluster's id, controller and live brokers (`describeCluster`); the controllers when
    /// the client talks to them.
    pub async fn describe_cluster(&self) -> Result<ClusterDescription, ClientError> {
        let request = RequestBody::DescribeCluster(DescribeClusterRequest {
            endpoint_type: if self.client.to_controllers() { ENDPOINT_TYPE_CONTROLLER } else { ENDPOINT_TYPE_BROKER },
            ..Default::default()
        });
        let response = self.client.retrying("describeCluster", || self.client.call_any(&request)).await?;
        let ResponseBody::DescribeCluster(response) = response else { return Err(unexpected("DescribeCluster")) };
        if let Some(error) = ClientError::from_response(response.error_code, response.error_message.as_deref()) {
            return Err(error);
        }
        Ok(ClusterDescription {
            cluster_id: response.cluster_id,
            controller: (response.controller_id.0 >= 0).then_some(response.controller_id.0),
            nodes: response
                .brokers
                .into_iter()
                .map(|b| Node { id: b.broker_id.0, host: b.host, port: b.port, rack: b.rack })
                .collect(),
        })
    }

    /// Creates `topics`; each topic's outcome, in order.
    pub async fn create_topics(
        &self,
        topics: &[NewTopic],
        validate_only: bool,
    ) -> Result<Vec<Result<(), ClientError>>, ClientError> {
        let request = RequestBody::CreateTopics(CreateTopicsRequest {
            topics: topics.iter().map(creatable).collect(),
            timeout_ms: self.timeout_ms(),
            validate_only,
            ..Default::default()
        });
        let response = self.client.retrying("createTopics", || self.controller_call(&request)).await?;
        let ResponseBody::CreateTopics(response) = response else { return Err(unexpected("CreateTopics")) };
        let mut outcomes: BTreeMap<String, Result<(), ClientError>> = response
            .topics
            .into_iter()
            .map(|t| (t.name, ClientError::from_response(t.error_code, t.error_message.as_deref()).map_or(Ok(()), Err)))
            .collect();
        Ok(topics.iter().map(|t| outcomes.remove(&t.name).unwrap_or(Ok(()))).collect())
    }

    /// Deletes the named topics; each topic's outcome, in order.
    pub async fn delete_topics(&self, names: &[String]) -> Result<Vec<Result<(), ClientError>>, ClientError> {
        let timeout_ms = self.timeout_ms();
        let response = self
            .client
            .retrying("deleteTopics", || async {
                let connection = self.controller().await?;
                let version = connection.version(ApiKey::DeleteTopics)?;
                let mut request = DeleteTopicsRequest { timeout_ms, ..Default::default() };
                if version >= 6 {
                    request.topics = names
                        .iter()
                        .map(|name| DeleteTopicState {
                            name: Some(name.clone()),
                            topic_id: Uuid::ZERO,
                            ..Default::default()
                        })
                        .collect();
                } else {
                    request.topic_names = names.to_vec();
                }
                let response = connection.call_at(&RequestBody::DeleteTopics(request), version).await?;
                controller_moved(response)
            })
            .await?;
        let ResponseBody::DeleteTopics(response) = response else { return Err(unexpected("DeleteTopics")) };
        let mut outcomes: BTreeMap<String, Result<(), ClientError>> = response
            .responses
            .into_iter()
            .map(|t| {
                let outcome = ClientError::from_response(t.error_code, t.error_message.as_deref()).map_or(Ok(()), Err);
                (t.name.unwrap_or_default(), outcome)
            })
            .collect();
        Ok(names.iter().map(|name| outcomes.remove(name).unwrap_or(Ok(()))).collect())
    }

    /// Raises each topic's partition count; each topic's outcome, in order.
    pub async fn create_partitions(
        &self,
        increases: &[PartitionIncrease],
    ) -> Result<Vec<Result<(), ClientError>>, ClientError> {
        let request = RequestBody::CreatePartitions(CreatePartitionsRequest {
            topics: increases
                .iter()
                .map(|increase| CreatePartitionsTopic {
                    name: increase.topic.clone(),
                    count: increase.total_count,
                    assignments: increase.assignments.as_ref().map(|all| {
                        all.iter()
                            .map(|replicas| CreatePartitionsAssignment {
                                broker_ids: replicas.iter().copied().map(BrokerId).collect(),
                                ..Default::default()
                            })
                            .collect()
                    }),
                    ..Default::default()
                })
                .collect(),
            timeout_ms: self.timeout_ms(),
            ..Default::default()
        });
        let response = self.client.retrying("createPartitions", || self.controller_call(&request)).await?;
        let ResponseBody::CreatePartitions(response) = response else { return Err(unexpected("CreatePartitions")) };
        let mut outcomes: BTreeMap<String, Result<(), ClientError>> = response
            .results
            .into_iter()
            .map(|t| (t.name, ClientError::from_response(t.error_code, t.error_message.as_deref()).map_or(Ok(()), Err)))
            .collect();
        Ok(increases.iter().map(|increase| outcomes.remove(&increase.topic).unwrap_or(Ok(()))).collect())
    }

    /// Reassignments in progress among `partitions` (topic, partition); an empty map from a
    /// node that does not serve the API, as Kafka's tool treats it.
    pub async fn list_partition_reassignments(
        &self,
        partitions: &[(String, i32)],
    ) -> Result<BTreeMap<(String, i32), Reassignment>, ClientError> {
        self.list_reassignments(Some(partitions)).await
    }

    /// Every reassignment in progress in the cluster (`listPartitionReassignments()`).
    pub async fn list_all_partition_reassignments(&self) -> Result<BTreeMap<(String, i32), Reassignment>, ClientError> {
        self.list_reassignments(None).await
    }

    async fn list_reassignments(
        &self,
        partitions: Option<&[(String, i32)]>,
    ) -> Result<BTreeMap<(String, i32), Reassignment>, ClientError> {
        let topics = partitions.map(|partitions| {
            let mut topics: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
            for (topic, partition) in partitions {
                topics.entry(topic).or_default().push(*partition);
            }
            topics
                .into_iter()
                .map(|(name, partition_indexes)| ListPartitionReassignmentsTopics {
                    name: name.to_owned(),
                    partition_indexes,
                    ..Default::default()
                })
                .collect()
        });
        let request = RequestBody::ListPartitionReassignments(ListPartitionReassignmentsRequest {
            timeout_ms: self.timeout_ms(),
            topics,
            ..Default::default()
        });
        let response = match self.client.retrying("listPartitionReassignments", || self.controller_call(&request)).await
        {
            Err(ClientError::UnsupportedVersion(_)) => return Ok(BTreeMap::new()),
            other => other?,
        };
        let ResponseBody::ListPartitionReassignments(response) = response else {
            return Err(unexpected("ListPartitionReassignments"));
        };
        if let Some(error) = ClientError::from_response(response.error_code, response.error_message.as_deref()) {
            return Err(error);
        }
        let mut found = BTreeMap::new();
        for topic in response.topics {
            for p in topic.partitions {
                let reassignment = Reassignment {
                    replicas: ids(&p.replicas),
                    adding: ids(&p.adding_replicas),
                    removing: ids(&p.removing_replicas),
                };
                found.insert((topic.name.clone(), p.partition_index), reassignment);
            }
        }
        Ok(found)
    }

    fn timeout_ms(&self) -> i32 {
        i32::try_from(self.client.config().api_timeout.as_millis()).unwrap_or(i32::MAX)
    }

    async fn controller(&self) -> Result<std::sync::Arc<crate::Connection>, ClientError> {
        self.client.controller_connection().await
    }

    async fn controller_call(&self, request: &RequestBody) -> Result<ResponseBody, ClientError> {
        controller_moved(self.client.call_controller(request).await?)
    }
}

/// A NOT_CONTROLLER answer for any topic means the call must go again, to the new controller.
fn controller_moved(response: ResponseBody) -> Result<ResponseBody, ClientError> {
    use strand_protocol::error::ErrorCode;
    let not_controller = ErrorCode::NotController.code();
    let moved = match &response {
        ResponseBody::CreateTopics(r) => r.topics.iter().any(|t| t.error_code == not_controller),
        ResponseBody::DeleteTopics(r) => r.responses.iter().any(|t| t.error_code == not_controller),
        ResponseBody::CreatePartitions(r) => r.results.iter().any(|t| t.error_code == not_controller),
        ResponseBody::ListPartitionReassignments(r) => r.error_code == not_controller,
        _ => false,
    };
    if moved {
        return Err(
            ClientError::from_response(not_controller, None).unwrap_or(ClientError::Timeout("controller".into()))
        );
    }
    Ok(response)
}

fn creatable(topic: &NewTopic) -> CreatableTopic {
    let assigned = !topic.assignments.is_empty();
    CreatableTopic {
        name: topic.name.clone(),
        num_partitions: if assigned { -1 } else { topic.partitions },
        replication_factor: if assigned { -1 } else { topic.replication_factor },
        assignments: topic
            .assignments
            .iter()
            .map(|(partition, replicas)| CreatableReplicaAssignment {
                partition_index: *partition,
                broker_ids: replicas.iter().copied().map(BrokerId).collect(),
                ..Default::default()
            })
            .collect(),
        configs: topic
            .configs
            .iter()
            .map(|(name, value)| CreatableTopicConfig {
                name: name.clone(),
                value: Some(value.clone()),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// The described topics in the order asked, partitions sorted.
fn order(names: &[String], mut described: BTreeMap<String, TopicDescription>) -> Vec<TopicDescription> {
    names
        .iter()
        .filter_map(|name| described.remove(name))
        .map(|mut topic| {
            topic.partitions.sort_by_key(|p| p.partition);
            topic
        })
        .collect()
}
