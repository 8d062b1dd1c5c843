//! DescribeLogDirs (`kafka-log-dirs.sh`, and `kafka-reassign-partitions.sh --generate`, which
//! reads where each replica lives): this node's log directories and the partitions in each, with
//! their sizes, as Kafka's `ReplicaManager.describeLogDirs`. A null topic list means every
//! partition. A replica moving here (AlterReplicaLogDirs) shows as its future replica
//! (`is_future_key`), with how far its log end is behind the current log's as its offset lag; a
//! current replica's lag is Kafka's high watermark less log end, never positive: 0. Total and usable
//! bytes (v4+) are those of the file system holding each directory, as Java's `FileStore` reports
//! them to Kafka (`statvfs`: all blocks, and the free blocks a non-root process may use). A
//! directory a failed sync took offline, or whose file system cannot be read, is answered
//! KAFKA_STORAGE_ERROR without partitions, as Kafka answers for an offline directory.

use std::collections::{BTreeMap, BTreeSet};

use strand_base::TopicPartition;
use strand_log::LogDirContents;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::describe_log_dirs_response::{
    DescribeLogDirsPartition, DescribeLogDirsResult, DescribeLogDirsTopic,
};
use strand_protocol::messages::{DescribeLogDirsRequest, DescribeLogDirsResponse};

use strand_security::Session;
use strand_security::acl::AclOperation;

use crate::Broker;

/// Needs DESCRIBE on the cluster: CLUSTER_AUTHORIZATION_FAILED and no dirs otherwise.
pub fn handle(broker: &Broker, request: DescribeLogDirsRequest, session: &Session) -> DescribeLogDirsResponse {
    if !broker.authorize_cluster(session, AclOperation::Describe) {
        let error_code = strand_protocol::error::ErrorCode::ClusterAuthorizationFailed.code();
        return DescribeLogDirsResponse { error_code, ..Default::default() };
    }
    // A set, so that each hosted partition is a lookup, not a scan of the request.
    let requested: Option<BTreeSet<(&str, i32)>> = request
        .topics
        .as_ref()
        .map(|topics| topics.iter().flat_map(|t| t.partitions.iter().map(|p| (t.topic.as_str(), *p))).collect());
    let wanted =
        |tp: &TopicPartition| requested.as_ref().is_none_or(|r| r.contains(&(tp.topic.as_str(), tp.partition)));
    let dirs = match broker.replicas.log_dirs() {
        Ok(dirs) => dirs,
        Err(e) => {
            tracing::warn!("DescribeLogDirs: {e}");
            return DescribeLogDirsResponse { error_code: ErrorCode::KafkaStorageError.code(), ..Default::default() };
        }
    };
    let offline = broker.replicas.offline_dirs().unwrap_or_default();
    let results = dirs
        .into_iter()
        .map(|dir| {
            if offline.contains(&dir.path) {
                let log_dir = dir.path.display().to_string();
                DescribeLogDirsResult { log_dir, error_code: ErrorCode::KafkaStorageError.code(), ..Default::default() }
            } else {
                describe_dir(dir, &wanted)
            }
        })
        .collect();
    DescribeLogDirsResponse { results, ..Default::default() }
}

/// One directory's answer: its partitions that `wanted` selects, by topic, and its space.
fn describe_dir(dir: LogDirContents, wanted: &impl Fn(&TopicPartition) -> bool) -> DescribeLogDirsResult {
    let log_dir = dir.path.display().to_string();
    let space = match dir.space {
        Ok(space) => space,
        Err(reason) => {
            tracing::warn!("DescribeLogDirs: {reason}");
            return DescribeLogDirsResult {
                log_dir,
                error_code: ErrorCode::KafkaStorageError.code(),
                ..Default::default()
            };
        }
    };
    let mut topics: BTreeMap<String, Vec<DescribeLogDirsPartition>> = BTreeMap::new();
    let current = dir.partitions.into_iter().map(|(tp, size)| (tp, size, 0, false));
    let futures = dir.futures.into_iter().map(|(tp, size, lag)| (tp, size, lag, true));
    for (tp, size, offset_lag, is_future_key) in current.chain(futures).filter(|(tp, ..)| wanted(tp)) {
        topics.entry(tp.topic).or_default().push(DescribeLogDirsPartition {
            partition_index: tp.partition,
            partition_size: i64::try_from(size).unwrap_or(i64::MAX),
            offset_lag,
            is_future_key,
            ..Default::default()
        });
    }
    DescribeLogDirsResult {
        log_dir,
        topics: topics
            .into_iter()
            .map(|(name, partitions)| DescribeLogDirsTopic { name, partitions, ..Default::default() })
            .collect(),
        // Kafka's `adjustForLargeFileSystems`: a size past a signed long reads as its maximum.
        total_bytes: i64::try_from(space.total_bytes).unwrap_or(i64::MAX),
        usable_bytes: i64::try_from(space.usable_bytes).unwrap_or(i64::MAX),
        ..Default::default()
    }
}
