//! The consumer-group calls of Kafka's `Admin`, as `kafka-consumer-groups` makes them:
//! `listGroups`, `describeConsumerGroups`, `listConsumerGroupOffsets`,
//! `alterConsumerGroupOffsets`, `deleteConsumerGroups` and `deleteConsumerGroupOffsets`.
//!
//! Routing as Kafka's admin client does: ListGroups to every broker (each lists the groups it
//! coordinates), the rest to the group's coordinator (FindCoordinator), found again when a call
//! answers NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE. A group is described with
//! ConsumerGroupDescribe (KIP-848) and, when that answers that it is not a consumer group, with
//! DescribeGroups (a classic group).

use std::collections::BTreeMap;

use bytes::Bytes;
use strand_protocol::codec::{Decoder, Struct};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::offset_commit_request::{OffsetCommitRequestPartition, OffsetCommitRequestTopic};
use strand_protocol::messages::offset_delete_request::{OffsetDeleteRequestPartition, OffsetDeleteRequestTopic};
use strand_protocol::messages::offset_fetch_request::OffsetFetchRequestGroup;
use strand_protocol::messages::{
    ConsumerGroupDescribeRequest, ConsumerProtocolAssignment, DeleteGroupsRequest, DescribeGroupsRequest,
    FindCoordinatorRequest, ListGroupsRequest, OffsetCommitRequest, OffsetDeleteRequest, OffsetFetchRequest,
};

use crate::cluster::Node;
use crate::{Admin, ClientError};

/// A topic partition.
pub type TopicPartition = (String, i32);

/// OffsetFetch and OffsetCommit with topics by name (v10 names them by id).
const OFFSETS_VERSION: i16 = 9;
/// FindCoordinator's key type for groups.
const GROUP_KEY: i8 = 0;

/// A group as `listGroups` returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupListing {
    pub group_id: String,
    pub protocol_type: String,
    /// Kafka's `GroupState` name (`Stable`, `Empty`, ...).
    pub state: String,
    /// `classic`, `consumer`, `share` or `streams`.
    pub group_type: String,
}

/// One member of a described group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberDescription {
    pub member_id: String,
    pub group_instance_id: Option<String>,
    pub client_id: String,
    pub host: String,
    pub assignment: Vec<TopicPartition>,
    pub target_assignment: Option<Vec<TopicPartition>>,
    /// The member epoch (a consumer group's members only).
    pub member_epoch: Option<i32>,
}

/// A consumer group as `describeConsumerGroups` returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerGroupDescription {
    pub group_id: String,
    /// `classic` or `consumer`.
    pub group_type: String,
    pub state: String,
    /// The assignor (a classic group's protocol, a consumer group's server assignor).
    pub assignor: String,
    pub coordinator: Node,
    pub members: Vec<MemberDescription>,
    pub group_epoch: Option<i32>,
    pub target_assignment_epoch: Option<i32>,
}

/// A committed offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommittedOffset {
    pub offset: i64,
    pub leader_epoch: Option<i32>,
    pub metadata: String,
}

impl Admin {
    /// The groups of every broker (`listGroups`), filtered by Kafka's state and type names
    /// (none: all), sorted by id.
    pub async fn list_groups(&self, states: &[String], types: &[String]) -> Result<Vec<GroupListing>, ClientError> {
        let client = self.client();
        client.retrying("listGroups", || client.refresh_metadata(Some(&[]))).await?;
        let request = RequestBody::ListGroups(ListGroupsRequest {
            states_filter: states.to_vec(),
            types_filter: types.to_vec(),
            ..Default::default()
        });
        let mut groups = BTreeMap::new();
        for node in client.nodes() {
            let response = client.retrying("listGroups", || client.call_node(node.id, &request)).await?;
            let ResponseBody::ListGroups(response) = response else { return Err(unexpected("ListGroups")) };
            if let Some(error) = ClientError::from_response(response.error_code, None) {
                return Err(error);
            }
            for group in response.groups {
                let listing = GroupListing {
                    group_id: group.group_id.clone(),
                    protocol_type: group.protocol_type,
                    state: group.group_state,
                    group_type: group.group_type,
                };
                groups.insert(group.group_id, listing);
            }
        }
        Ok(groups.into_values().collect())
    }

    /// The node coordinating `group` (FindCoordinator).
    pub async fn group_coordinator(&self, group: &str) -> Result<Node, ClientError> {
        self.coordinator(GROUP_KEY, group).await
    }

    /// The coordinator of `key` (FindCoordinator's `key_type`: 0 a group, 1 a transactional id,
    /// 2 a share-group partition).
    pub async fn coordinator(&self, key_type: i8, key: &str) -> Result<Node, ClientError> {
        let client = self.client();
        client
            .retrying("findCoordinator", || async {
                // Batched keys (v4 and later: every broker of Kafka 3.0 on, and Strand).
                let request = RequestBody::FindCoordinator(FindCoordinatorRequest {
                    key_type,
                    coordinator_keys: vec![key.to_owned()],
                    ..Default::default()
                });
                let ResponseBody::FindCoordinator(response) = client.call_any(&request).await? else {
                    return Err(unexpected("FindCoordinator"));
                };
                let (code, message, id, host, port) = match response.coordinators.into_iter().next() {
                    Some(c) => (c.error_code, c.error_message, c.node_id.0, c.host, c.port),
                    None => {
                        (response.error_code, response.error_message, response.node_id.0, response.host, response.port)
                    }
                };
                if let Some(error) = ClientError::from_response(code, message.as_deref()) {
                    return Err(error);
                }
                client.refresh_metadata(Some(&[])).await?;
                Ok(Node { id, host, port, rack: None })
            })
            .await
    }

    /// Sends `request` to `group`'s coordinator; `check` reads the answer, whose
    /// NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE makes the call go round again.
    async fn call_coordinator<T>(
        &self,
        what: &str,
        group: &str,
        request: &RequestBody,
        version: Option<i16>,
        check: impl Fn(ResponseBody, &Node) -> Result<T, ClientError>,
    ) -> Result<T, ClientError> {
        let client = self.client();
        client
            .retrying(what, || async {
                let coordinator = self.group_coordinator(group).await?;
                let connection = client.node_connection(coordinator.id).await?;
                let response = match version {
                    Some(version) => connection.call_at(request, version).await?,
                    None => connection.call(request).await?,
                };
                check(response, &coordinator)
            })
            .await
    }

    /// Describes a consumer group (`describeConsumerGroups`): GROUP_ID_NOT_FOUND ("Group G not
    /// found.") for a group that does not exist or is dead, as Kafka's admin reports it.
    pub async fn describe_consumer_group(&self, group: &str) -> Result<ConsumerGroupDescription, ClientError> {
        let request = RequestBody::ConsumerGroupDescribe(ConsumerGroupDescribeRequest {
            group_ids: vec![group.to_owned()],
            ..Default::default()
        });
        let described = self
            .call_coordinator("describeConsumerGroups", group, &request, None, |response, coordinator| {
                let ResponseBody::ConsumerGroupDescribe(response) = response else {
                    return Err(unexpected("ConsumerGroupDescribe"));
                };
                let described =
                    response.groups.into_iter().next().ok_or_else(|| unexpected("ConsumerGroupDescribe"))?;
                if described.error_code == ErrorCode::GroupIdNotFound.code() {
                    // Not a consumer group: a classic one, or none.
                    return Ok(None);
                }
                if let Some(error) =
                    ClientError::from_response(described.error_code, described.error_message.as_deref())
                {
                    return Err(error);
                }
                let members = described
                    .members
                    .into_iter()
                    .map(|m| MemberDescription {
                        member_id: m.member_id,
                        group_instance_id: m.instance_id,
                        client_id: m.client_id,
                        host: m.client_host,
                        assignment: partitions(
                            m.assignment.topic_partitions.iter().map(|t| (&t.topic_name, &t.partitions)),
                        ),
                        target_assignment: Some(partitions(
                            m.target_assignment.topic_partitions.iter().map(|t| (&t.topic_name, &t.partitions)),
                        )),
                        member_epoch: Some(m.member_epoch),
                    })
                    .collect();
                Ok(Some(ConsumerGroupDescription {
                    group_id: described.group_id,
                    group_type: "consumer".into(),
                    state: described.group_state,
                    assignor: described.assignor_name,
                    coordinator: coordinator.clone(),
                    members,
                    group_epoch: Some(described.group_epoch),
                    target_assignment_epoch: Some(described.assignment_epoch),
                }))
            })
            .await;
        match described {
            Ok(Some(described)) => return Ok(described),
            Ok(None) => {}
            Err(e) if e.code() == Some(ErrorCode::UnsupportedVersion) => {}
            Err(ClientError::UnsupportedVersion(_)) => {}
            Err(e) => return Err(e),
        }
        self.describe_classic_group(group).await
    }

    async fn describe_classic_group(&self, group: &str) -> Result<ConsumerGroupDescription, ClientError> {
        let request =
            RequestBody::DescribeGroups(DescribeGroupsRequest { groups: vec![group.to_owned()], ..Default::default() });
        self.call_coordinator("describeConsumerGroups", group, &request, None, |response, coordinator| {
            let ResponseBody::DescribeGroups(response) = response else { return Err(unexpected("DescribeGroups")) };
            let described = response.groups.into_iter().next().ok_or_else(|| unexpected("DescribeGroups"))?;
            let not_found = described.error_code == ErrorCode::GroupIdNotFound.code()
                || (described.error_code == 0 && described.group_state == "Dead");
            if not_found {
                return Err(ClientError::Server {
                    code: ErrorCode::GroupIdNotFound.code(),
                    message: format!("Group {group} not found."),
                });
            }
            if let Some(error) = ClientError::from_response(described.error_code, described.error_message.as_deref()) {
                return Err(error);
            }
            let consumer = described.protocol_type.is_empty() || described.protocol_type == "consumer";
            if !consumer {
                return Err(ClientError::Server {
                    code: ErrorCode::GroupIdNotFound.code(),
                    message: format!("Group {group} is not a consumer group."),
                });
            }
            let members = described
                .members
                .into_iter()
                .map(|m| MemberDescription {
                    assignment: classic_assignment(&m.member_assignment),
                    member_id: m.member_id,
                    group_instance_id: m.group_instance_id,
                    client_id: m.client_id,
                    host: m.client_host,
                    target_assignment: None,
                    member_epoch: None,
                })
                .collect();
            Ok(ConsumerGroupDescription {
                group_id: described.group_id,
                group_type: "classic".into(),
                state: described.group_state,
                assignor: described.protocol_data,
                coordinator: coordinator.clone(),
                members,
                group_epoch: None,
                target_assignment_epoch: None,
            })
        })
        .await
    }

    /// The offsets `group` committed (`listConsumerGroupOffsets`), every partition it has one for.
    pub async fn list_group_offsets(
        &self,
        group: &str,
    ) -> Result<BTreeMap<TopicPartition, CommittedOffset>, ClientError> {
        let request = RequestBody::OffsetFetch(OffsetFetchRequest {
            groups: vec![OffsetFetchRequestGroup {
                group_id: group.to_owned(),
                member_epoch: -1,
                topics: None,
                ..Default::default()
            }],
            require_stable: true,
            ..Default::default()
        });
        self.call_coordinator("listConsumerGroupOffsets", group, &request, Some(OFFSETS_VERSION), |response, _| {
            let ResponseBody::OffsetFetch(response) = response else { return Err(unexpected("OffsetFetch")) };
            let answer = response.groups.into_iter().next().ok_or_else(|| unexpected("OffsetFetch"))?;
            if let Some(error) = ClientError::from_response(answer.error_code, None) {
                return Err(error);
            }
            let mut offsets = BTreeMap::new();
            for topic in answer.topics {
                for p in topic.partitions {
                    if let Some(error) = ClientError::from_response(p.error_code, None) {
                        return Err(error);
                    }
                    if p.committed_offset < 0 {
                        continue;
                    }
                    let committed = CommittedOffset {
                        offset: p.committed_offset,
                        leader_epoch: (p.committed_leader_epoch >= 0).then_some(p.committed_leader_epoch),
                        metadata: p.metadata.unwrap_or_default(),
                    };
                    offsets.insert((topic.name.clone(), p.partition_index), committed);
                }
            }
            Ok(offsets)
        })
        .await
    }

    /// Commits `offsets` for `group` outside any generation (`alterConsumerGroupOffsets`): the
    /// first partition error, if any (UNKNOWN_MEMBER_ID while the group has members).
    pub async fn alter_group_offsets(
        &self,
        group: &str,
        offsets: &BTreeMap<TopicPartition, i64>,
    ) -> Result<(), ClientError> {
        let request = RequestBody::OffsetCommit(OffsetCommitRequest {
            group_id: group.to_owned(),
            generation_id_or_member_epoch: -1,
            member_id: String::new(),
            retention_time_ms: -1,
            topics: commit_topics(offsets),
            ..Default::default()
        });
        self.call_coordinator("alterConsumerGroupOffsets", group, &request, Some(OFFSETS_VERSION), |response, _| {
            let ResponseBody::OffsetCommit(response) = response else { return Err(unexpected("OffsetCommit")) };
            for topic in response.topics {
                for p in topic.partitions {
                    if let Some(error) = ClientError::from_response(p.error_code, None) {
                        return Err(error);
                    }
                }
            }
            Ok(())
        })
        .await
    }

    /// Deletes `group` (`deleteConsumerGroups`).
    pub async fn delete_group(&self, group: &str) -> Result<(), ClientError> {
        let request = RequestBody::DeleteGroups(DeleteGroupsRequest {
            groups_names: vec![group.to_owned()],
            ..Default::default()
        });
        self.call_coordinator("deleteConsumerGroups", group, &request, None, |response, _| {
            let ResponseBody::DeleteGroups(response) = response else { return Err(unexpected("DeleteGroups")) };
            let result = response.results.into_iter().next().ok_or_else(|| unexpected("DeleteGroups"))?;
            match ClientError::from_response(result.error_code, result.error_message.as_deref()) {
                Some(error) => Err(error),
                None => Ok(()),
            }
        })
        .await
    }

    /// Deletes `group`'s committed offsets of `partitions` (`deleteConsumerGroupOffsets`): the
    /// group-level error, or each partition's outcome.
    pub async fn delete_group_offsets(
        &self,
        group: &str,
        partitions: &[TopicPartition],
    ) -> Result<BTreeMap<TopicPartition, Option<ClientError>>, ClientError> {
        let mut topics: BTreeMap<&str, Vec<OffsetDeleteRequestPartition>> = BTreeMap::new();
        for (topic, partition) in partitions {
            topics.entry(topic).or_default().push(OffsetDeleteRequestPartition { partition_index: *partition });
        }
        let request = RequestBody::OffsetDelete(OffsetDeleteRequest {
            group_id: group.to_owned(),
            topics: topics
                .into_iter()
                .map(|(name, partitions)| OffsetDeleteRequestTopic { name: name.to_owned(), partitions })
                .collect(),
        });
        self.call_coordinator("deleteConsumerGroupOffsets", group, &request, None, |response, _| {
            let ResponseBody::OffsetDelete(response) = response else { return Err(unexpected("OffsetDelete")) };
            if let Some(error) = ClientError::from_response(response.error_code, None) {
                return Err(error);
            }
            let mut outcomes = BTreeMap::new();
            for topic in response.topics {
                for p in topic.partitions {
                    outcomes.insert(
                        (topic.name.clone(), p.partition_index),
                        ClientError::from_response(p.error_code, None),
                    );
                }
            }
            Ok(outcomes)
        })
        .await
    }
}

/// `(topic, partitions)` pairs as sorted topic partitions.
fn partitions<'a>(topics: impl Iterator<Item = (&'a String, &'a Vec<i32>)>) -> Vec<TopicPartition> {
    let mut all: Vec<TopicPartition> =
        topics.flat_map(|(topic, partitions)| partitions.iter().map(|p| (topic.clone(), *p))).collect();
    all.sort();
    all
}

/// A classic consumer's assignment (Kafka's `ConsumerProtocol` bytes); none if it does not decode.
fn classic_assignment(bytes: &Bytes) -> Vec<TopicPartition> {
    if bytes.len() < 2 {
        return Vec::new();
    }
    let version = i16::from_be_bytes([bytes[0], bytes[1]]);
    let mut decoder = Decoder::with_budget(bytes.slice(2..), bytes.len().saturating_mul(8));
    match ConsumerProtocolAssignment::decode(&mut decoder, version.clamp(0, 3)) {
        Ok(assignment) => partitions(assignment.assigned_partitions.iter().map(|t| (&t.topic, &t.partitions))),
        Err(_) => Vec::new(),
    }
}

fn unexpected(api: &str) -> ClientError {
    ClientError::Io { address: String::new(), reason: format!("not a {api} response") }
}

/// OffsetCommit's topics for `offsets` (the next offset to read of each partition), no leader
/// epoch, empty metadata.
pub(crate) fn commit_topics(offsets: &BTreeMap<TopicPartition, i64>) -> Vec<OffsetCommitRequestTopic> {
    let mut topics: BTreeMap<&str, Vec<OffsetCommitRequestPartition>> = BTreeMap::new();
    for ((topic, partition), offset) in offsets {
        topics.entry(topic).or_default().push(OffsetCommitRequestPartition {
            partition_index: *partition,
            committed_offset: *offset,
            committed_leader_epoch: -1,
            committed_metadata: Some(String::new()),
            ..Default::default()
        });
    }
    let topic = |(name, partitions): (&str, _)| OffsetCommitRequestTopic {
        name: name.to_owned(),
        partitions,
        ..Default::default()
    };
    topics.into_iter().map(topic).collect()
}
