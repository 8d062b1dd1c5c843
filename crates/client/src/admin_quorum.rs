//! The quorum calls of Kafka's `Admin` that `kafka-metadata-quorum` makes:
//! `describeMetadataQuorum` (DescribeQuorum of `__cluster_metadata-0`) and `removeRaftVoter`,
//! each sent to any broker (which forwards) or to the active controller.

use std::collections::BTreeMap;

use strand_base::Uuid;
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::describe_quorum_request::{PartitionData, TopicData};
use strand_protocol::messages::{DescribeQuorumRequest, RemoveRaftVoterRequest};

use crate::{Admin, ClientError};

/// The metadata log's topic.
const CLUSTER_METADATA_TOPIC: &str = "__cluster_metadata";

/// A voter or observer as `QuorumInfo.ReplicaState` describes it (-1: not known).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaState {
    pub id: i32,
    pub directory_id: Uuid,
    pub log_end_offset: i64,
    pub last_fetch_timestamp: i64,
    pub last_caught_up_timestamp: i64,
}

/// What `describeMetadataQuorum` returns (`QuorumInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuorumInfo {
    pub leader_id: i32,
    pub leader_epoch: i32,
    pub high_watermark: i64,
    pub voters: Vec<ReplicaState>,
    pub observers: Vec<ReplicaState>,
    /// Each voter's endpoints as `LISTENER://host:port`, by node id (DescribeQuorum v2+).
    pub endpoints: BTreeMap<i32, Vec<String>>,
}

impl Admin {
    /// The metadata quorum's leader, voters and observers.
    pub async fn describe_metadata_quorum(&self) -> Result<QuorumInfo, ClientError> {
        let request = RequestBody::DescribeQuorum(DescribeQuorumRequest {
            topics: vec![TopicData {
                topic_name: CLUSTER_METADATA_TOPIC.to_owned(),
                partitions: vec![PartitionData { partition_index: 0, ..Default::default() }],
                ..Default::default()
            }],
            ..Default::default()
        });
        let response = self.client().retrying("describeMetadataQuorum", || self.call_either(&request)).await?;
        let ResponseBody::DescribeQuorum(response) = response else {
            return Err(ClientError::Config("not a DescribeQuorum response".into()));
        };
        if let Some(error) = ClientError::from_response(response.error_code, response.error_message.as_deref()) {
            return Err(error);
        }
        let partition = response.topics.into_iter().flat_map(|t| t.partitions).next();
        let partition = partition.ok_or_else(|| ClientError::Config("DescribeQuorum answered no partition".into()))?;
        if let Some(error) = ClientError::from_response(partition.error_code, partition.error_message.as_deref()) {
            return Err(error);
        }
        let states = |replicas: Vec<strand_protocol::messages::describe_quorum_response::ReplicaState>| {
            replicas
                .into_iter()
                .map(|r| ReplicaState {
                    id: r.replica_id.0,
                    directory_id: r.replica_directory_id,
                    log_end_offset: r.log_end_offset,
                    last_fetch_timestamp: r.last_fetch_timestamp,
                    last_caught_up_timestamp: r.last_caught_up_timestamp,
                })
                .collect()
        };
        Ok(QuorumInfo {
            leader_id: partition.leader_id.0,
            leader_epoch: partition.leader_epoch,
            high_watermark: partition.high_watermark,
            voters: states(partition.current_voters),
            observers: states(partition.observers),
            endpoints: response
                .nodes
                .into_iter()
                .map(|n| {
                    (n.node_id.0, n.listeners.iter().map(|l| format!("{}://{}:{}", l.name, l.host, l.port)).collect())
                })
                .collect(),
        })
    }

    /// Removes voter `id` with `directory_id` from the quorum (`removeRaftVoter`, KIP-853).
    pub async fn remove_raft_voter(&self, id: i32, directory_id: Uuid) -> Result<(), ClientError> {
        let cluster_id = self.client().cluster_id();
        let request = RequestBody::RemoveRaftVoter(RemoveRaftVoterRequest {
            cluster_id,
            voter_id: id,
            voter_directory_id: directory_id,
            ..Default::default()
        });
        let response = self.client().retrying("removeRaftVoter", || self.call_either(&request)).await?;
        let ResponseBody::RemoveRaftVoter(response) = response else {
            return Err(ClientError::Config("not a RemoveRaftVoter response".into()));
        };
        ClientError::from_response(response.error_code, response.error_message.as_deref()).map_or(Ok(()), Err)
    }
}
