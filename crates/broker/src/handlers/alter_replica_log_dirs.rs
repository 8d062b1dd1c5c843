//! AlterReplicaLogDirs (`kafka-reassign-partitions.sh` with `log_dirs` in its JSON): moves this
//! node's replicas between its `log.dirs`, each partition answered as Kafka's
//! `ReplicaManager.alterReplicaLogDirs` answers (see [`strand_replication::ReplicaManager::alter_log_dir`]):
//! NONE when the move is under way (a future replica copying, swapped in once caught up) or the
//! replica is already in that directory, LOG_DIR_NOT_FOUND, KAFKA_STORAGE_ERROR or
//! REPLICA_NOT_AVAILABLE otherwise. A partition named under two directories moves to the last,
//! as Kafka's request map keeps the last.
//!
//! Without ALTER on the cluster every partition is answered CLUSTER_AUTHORIZATION_FAILED, as
//! Kafka's `AlterReplicaLogDirsRequest.getErrorResponse`.

use std::collections::BTreeMap;
use std::path::Path;

use strand_base::TopicPartition;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::alter_replica_log_dirs_response::{
    AlterReplicaLogDirPartitionResult, AlterReplicaLogDirTopicResult,
};
use strand_protocol::messages::{AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse};
use strand_security::Session;
use strand_security::acl::AclOperation;

use crate::Broker;

pub fn handle(broker: &Broker, request: AlterReplicaLogDirsRequest, session: &Session) -> AlterReplicaLogDirsResponse {
    // By partition, the last directory naming it.
    let mut wanted: BTreeMap<TopicPartition, &str> = BTreeMap::new();
    for dir in &request.dirs {
        for topic in &dir.topics {
            for partition in &topic.partitions {
                wanted.insert(TopicPartition::new(topic.name.clone(), *partition), dir.path.as_str());
            }
        }
    }
    let authorized = broker.authorize_cluster(session, AclOperation::Alter);
    let mut by_topic: BTreeMap<String, Vec<AlterReplicaLogDirPartitionResult>> = BTreeMap::new();
    for (tp, dir) in wanted {
        let error = if authorized {
            broker.replicas.alter_log_dir(&tp, Path::new(dir))
        } else {
            ErrorCode::ClusterAuthorizationFailed
        };
        by_topic.entry(tp.topic).or_default().push(AlterReplicaLogDirPartitionResult {
            partition_index: tp.partition,
            error_code: error.code(),
            ..Default::default()
        });
    }
    let results = by_topic
        .into_iter()
        .map(|(topic_name, partitions)| AlterReplicaLogDirTopicResult { topic_name, partitions, ..Default::default() })
        .collect();
    AlterReplicaLogDirsResponse { results, ..Default::default() }
}
