//! One module per API. [`SERVED`] lists the APIs this node answers; ApiVersions advertises
//! exactly these, so a client never negotiates an API that is not there.

pub mod alter_configs;
pub mod alter_partition_reassignments;
pub mod api_versions;
pub mod create_partitions;
pub mod create_topics;
pub mod delete_records;
pub mod delete_topics;
pub mod describe_cluster;
pub mod describe_configs;
pub mod describe_log_dirs;
pub mod describe_producers;
pub mod describe_topic_partitions;
pub mod fetch;
pub mod find_coordinator;
pub mod groups;
pub mod incremental_alter_configs;
pub mod init_producer_id;
pub mod list_offsets;
pub mod list_partition_reassignments;
pub mod metadata;
pub mod offset_for_leader_epoch;
pub mod produce;
pub mod transactions;
pub mod txn_offset_commit;
pub mod write_txn_markers;

use strand_base::TopicPartition;
use strand_metadata::image::{MetadataImage, TopicImage};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::api::ApiKey;

/// The APIs with a handler.
pub const SERVED: &[ApiKey] = &[
    ApiKey::Produce,
    ApiKey::Fetch,
    ApiKey::ListOffsets,
    ApiKey::Metadata,
    ApiKey::ApiVersions,
    ApiKey::CreateTopics,
    ApiKey::DeleteTopics,
    ApiKey::DeleteRecords,
    ApiKey::InitProducerId,
    ApiKey::OffsetForLeaderEpoch,
    ApiKey::DescribeConfigs,
    ApiKey::AlterConfigs,
    ApiKey::CreatePartitions,
    ApiKey::IncrementalAlterConfigs,
    ApiKey::DescribeCluster,
    ApiKey::DescribeTopicPartitions,
    ApiKey::FindCoordinator,
    ApiKey::JoinGroup,
    ApiKey::SyncGroup,
    ApiKey::Heartbeat,
    ApiKey::LeaveGroup,
    ApiKey::OffsetCommit,
    ApiKey::OffsetFetch,
    ApiKey::OffsetDelete,
    ApiKey::ListGroups,
    ApiKey::DescribeGroups,
    ApiKey::DeleteGroups,
    ApiKey::ConsumerGroupHeartbeat,
    ApiKey::ConsumerGroupDescribe,
    ApiKey::DescribeProducers,
    ApiKey::AddPartitionsToTxn,
    ApiKey::AddOffsetsToTxn,
    ApiKey::TxnOffsetCommit,
    ApiKey::EndTxn,
    ApiKey::WriteTxnMarkers,
    ApiKey::DescribeTransactions,
    ApiKey::ListTransactions,
    ApiKey::AlterPartitionReassignments,
    ApiKey::ListPartitionReassignments,
    ApiKey::DescribeLogDirs,
];

/// Every operation Kafka supports on a topic (READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE,
/// DESCRIBE_CONFIGS, ALTER_CONFIGS) as the 32-bit field of their `AclOperation` codes: what Kafka
/// reports as a topic's authorized operations when no authorizer is configured, as here.
pub(crate) const TOPIC_OPERATIONS_ALL: i32 = 1 << 3 | 1 << 4 | 1 << 5 | 1 << 6 | 1 << 7 | 1 << 8 | 1 << 10 | 1 << 11;

/// Where a partition's requests go: the topic (found by name or id) and its leader epoch here.
pub(crate) struct Target {
    pub partition: TopicPartition,
    /// How many replicas are in sync (for `min.insync.replicas` under `acks=all`).
    pub isr_len: usize,
    pub leader_epoch: i32,
}

/// Finds `topic` / `partition` in the image, led by `node`; the error code a client gets if not.
pub(crate) fn target(
    image: &MetadataImage,
    topic: Option<&TopicImage>,
    partition: i32,
    node: strand_base::BrokerId,
) -> Result<Target, ErrorCode> {
    let topic = topic.ok_or(ErrorCode::UnknownTopicOrPartition)?;
    let Some(state) = topic.partitions.get(&partition) else { return Err(ErrorCode::UnknownTopicOrPartition) };
    if state.leader != node {
        return Err(ErrorCode::NotLeaderOrFollower);
    }
    let _ = image;
    Ok(Target {
        partition: TopicPartition::new(topic.name.clone(), partition),
        isr_len: state.isr.len(),
        leader_epoch: state.leader_epoch,
    })
}
