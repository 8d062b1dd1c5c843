//! The reassignment calls of Kafka's `Admin` that `kafka-reassign-partitions` makes beside
//! `listPartitionReassignments` ([`crate::admin`]): `alterPartitionReassignments` (to the
//! controller, a KRaft broker forwarding it), and, for moves between a broker's log dirs,
//! `describeReplicaLogDirs` and `alterReplicaLogDirs` (each to the replica's broker).

use std::collections::BTreeMap;

use strand_base::BrokerId;
use strand_protocol::messages::alter_partition_reassignments_request::{ReassignablePartition, ReassignableTopic};
use strand_protocol::messages::alter_replica_log_dirs_request::{AlterReplicaLogDir, AlterReplicaLogDirTopic};
use strand_protocol::messages::api::{RequestBody, ResponseBody};
use strand_protocol::messages::describe_log_dirs_request::DescribableLogDirTopic;
use strand_protocol::messages::{
    AlterPartitionReassignmentsRequest, AlterReplicaLogDirsRequest, DescribeLogDirsRequest,
};

use crate::admin_groups::TopicPartition;
use crate::{Admin, ClientError};

/// How long the controller may take to start the reassignments (Kafka's admin sends its
/// request timeout).
const ALTER_REASSIGNMENTS_TIMEOUT_MS: i32 = 30_000;

/// A replica of a partition on a broker: Kafka's `TopicPartitionReplica` (topic, partition,
/// broker id).
pub type TopicPartitionReplica = (String, i32, i32);

/// Where a replica's log is: Kafka's `ReplicaLogDirInfo`. Both `None` when the broker does not
/// hold the replica in a live log dir.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplicaLogDir {
    /// The dir of the replica's current log.
    pub current: Option<String>,
    /// The dir the replica is being moved to (its future log), if a move is under way.
    pub future: Option<String>,
}

impl Admin {
    /// Starts (`Some(replicas)`) or cancels (`None`) the reassignment of each partition
    /// (`alterPartitionReassignments`), refused where it changes a partition's replication
    /// factor unless `allow_replication_factor_change` (KIP-860): each partition's outcome, in
    /// the order given.
    pub async fn alter_partition_reassignments(
        &self,
        targets: &[(TopicPartition, Option<Vec<i32>>)],
        allow_replication_factor_change: bool,
    ) -> Result<Vec<(TopicPartition, Result<(), ClientError>)>, ClientError> {
        let mut topics: BTreeMap<&str, Vec<ReassignablePartition>> = BTreeMap::new();
        for ((topic, partition), replicas) in targets {
            topics.entry(topic).or_default().push(ReassignablePartition {
                partition_index: *partition,
                replicas: replicas.as_ref().map(|r| r.iter().copied().map(BrokerId).collect()),
                ..Default::default()
            });
        }
        let request = RequestBody::AlterPartitionReassignments(AlterPartitionReassignmentsRequest {
            timeout_ms: ALTER_REASSIGNMENTS_TIMEOUT_MS,
            allow_replication_factor_change,
            topics: topics
                .into_iter()
                .map(|(name, partitions)| ReassignableTopic { name: name.to_owned(), partitions, ..Default::default() })
                .collect(),
            ..Default::default()
        });
        let response =
            self.client().retrying("alterPartitionReassignments", || self.client().call_controller(&request)).await?;
        let ResponseBody::AlterPartitionReassignments(response) = response else {
            return Err(ClientError::Config("not an AlterPartitionReassignments response".into()));
        };
        // A top-level error is every partition's (Kafka's admin client fails each future with it).
        let top = ClientError::from_response(response.error_code, response.error_message.as_deref());
        let mut outcomes: BTreeMap<TopicPartition, Result<(), ClientError>> = BTreeMap::new();
        for topic in response.responses {
            for p in topic.partitions {
                let outcome = ClientError::from_response(p.error_code, p.error_message.as_deref()).map_or(Ok(()), Err);
                outcomes.insert((topic.name.clone(), p.partition_index), outcome);
            }
        }
        Ok(targets
            .iter()
            .map(|(tp, _)| {
                let outcome = match &top {
                    Some(error) => Err(error.clone()),
                    None => outcomes.remove(tp).unwrap_or(Ok(())),
                };
                (tp.clone(), outcome)
            })
            .collect())
    }

    /// Where each replica's log is (`describeReplicaLogDirs`): one DescribeLogDirs for the
    /// named partitions to each broker. A replica its broker does not hold has both dirs `None`.
    pub async fn describe_replica_log_dirs(
        &self,
        replicas: &[TopicPartitionReplica],
    ) -> Result<BTreeMap<TopicPartitionReplica, ReplicaLogDir>, ClientError> {
        let mut by_broker: BTreeMap<i32, BTreeMap<&str, Vec<i32>>> = BTreeMap::new();
        for (topic, partition, broker) in replicas {
            by_broker.entry(*broker).or_default().entry(topic).or_default().push(*partition);
        }
        let mut found: BTreeMap<TopicPartitionReplica, ReplicaLogDir> =
            replicas.iter().map(|r| (r.clone(), ReplicaLogDir::default())).collect();
        for (broker, topics) in by_broker {
            let request = RequestBody::DescribeLogDirs(DescribeLogDirsRequest {
                topics: Some(
                    topics
                        .into_iter()
                        .map(|(topic, partitions)| DescribableLogDirTopic {
                            topic: topic.to_owned(),
                            partitions,
                            ..Default::default()
                        })
                        .collect(),
                ),
                ..Default::default()
            });
            let response =
                self.client().retrying("describeReplicaLogDirs", || self.client().call_node(broker, &request)).await?;
            let ResponseBody::DescribeLogDirs(response) = response else {
                return Err(ClientError::Config("not a DescribeLogDirs response".into()));
            };
            if let Some(error) = ClientError::from_response(response.error_code, None) {
                return Err(error);
            }
            for dir in response.results.into_iter().filter(|d| d.error_code == 0) {
                for topic in dir.topics {
                    for p in topic.partitions {
                        let Some(info) = found.get_mut(&(topic.name.clone(), p.partition_index, broker)) else {
                            continue;
                        };
                        let slot = if p.is_future_key { &mut info.future } else { &mut info.current };
                        *slot = Some(dir.log_dir.clone());
                    }
                }
            }
        }
        Ok(found)
    }

    /// Moves each replica's log to the dir given (`alterReplicaLogDirs`): one request to each
    /// broker; each replica's outcome, in the order given.
    pub async fn alter_replica_log_dirs(
        &self,
        moves: &[(TopicPartitionReplica, String)],
    ) -> Result<Vec<(TopicPartitionReplica, Result<(), ClientError>)>, ClientError> {
        let mut by_broker: BTreeMap<i32, BTreeMap<&str, BTreeMap<&str, Vec<i32>>>> = BTreeMap::new();
        for ((topic, partition, broker), dir) in moves {
            by_broker.entry(*broker).or_default().entry(dir).or_default().entry(topic).or_default().push(*partition);
        }
        let mut outcomes: BTreeMap<TopicPartitionReplica, Result<(), ClientError>> = BTreeMap::new();
        for (broker, dirs) in by_broker {
            let request = RequestBody::AlterReplicaLogDirs(AlterReplicaLogDirsRequest {
                dirs: dirs
                    .into_iter()
                    .map(|(path, topics)| AlterReplicaLogDir {
                        path: path.to_owned(),
                        topics: topics
                            .into_iter()
                            .map(|(name, partitions)| AlterReplicaLogDirTopic {
                                name: name.to_owned(),
                                partitions,
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            });
            let response =
                self.client().retrying("alterReplicaLogDirs", || self.client().call_node(broker, &request)).await?;
            let ResponseBody::AlterReplicaLogDirs(response) = response else {
                return Err(ClientError::Config("not an AlterReplicaLogDirs response".into()));
            };
            for topic in response.results {
                for p in topic.partitions {
                    let outcome = ClientError::from_response(p.error_code, None).map_or(Ok(()), Err);
                    outcomes.insert((topic.topic_name.clone(), p.partition_index, broker), outcome);
                }
            }
        }
        Ok(moves.iter().map(|(r, _)| (r.clone(), outcomes.remove(r).unwrap_or(Ok(())))).collect())
    }
}
