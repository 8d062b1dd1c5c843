//! DescribeLogDirs (`kafka-log-dirs.sh`, and `kafka-reassign-partitions.sh --generate`, which
//! reads where each replica lives): this node's log directories and the partitions in each, with
//! their sizes, as Kafka's `ReplicaManager.describeLogDirs`. A null topic list means every
//! partition. Offset lag is 0: there are no future replicas (no AlterReplicaLogDirs), and a
//! current replica's lag is Kafka's high watermark less log end, never positive. Total and usable
//! bytes are reported unknown (-1).

use std::collections::BTreeMap;

use strand_base::TopicPartition;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::describe_log_dirs_response::{
    DescribeLogDirsPartition, DescribeLogDirsResult, DescribeLogDirsTopic,
};
use strand_protocol::messages::{DescribeLogDirsRequest, DescribeLogDirsResponse};

use crate::Broker;

pub fn handle(broker: &Broker, request: DescribeLogDirsRequest) -> DescribeLogDirsResponse {
    let wanted = |tp: &TopicPartition| match &request.topics {
        None => true,
        Some(topics) => topics.iter().any(|t| t.topic == tp.topic && t.partitions.contains(&tp.partition)),
    };
    let dirs = match broker.replicas.log_dirs() {
        Ok(dirs) => dirs,
        Err(e) => {
            tracing::warn!("DescribeLogDirs: {e}");
            return DescribeLogDirsResponse { error_code: ErrorCode::KafkaStorageError.code(), ..Default::default() };
        }
    };
    let results = dirs
        .into_iter()
        .map(|dir| {
            let mut topics: BTreeMap<String, Vec<DescribeLogDirsPartition>> = BTreeMap::new();
            for (tp, size) in dir.partitions.into_iter().filter(|(tp, _)| wanted(tp)) {
                topics.entry(tp.topic).or_default().push(DescribeLogDirsPartition {
                    partition_index: tp.partition,
                    partition_size: i64::try_from(size).unwrap_or(i64::MAX),
                    offset_lag: 0,
                    is_future_key: false,
                    ..Default::default()
                });
            }
            DescribeLogDirsResult {
                log_dir: dir.path.display().to_string(),
                topics: topics
                    .into_iter()
                    .map(|(name, partitions)| DescribeLogDirsTopic { name, partitions, ..Default::default() })
                    .collect(),
                ..Default::default()
            }
        })
        .collect();
    DescribeLogDirsResponse { results, ..Default::default() }
}
