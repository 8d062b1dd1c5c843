//! AssignReplicasToDirs (KIP-858), as Kafka's `ReplicationControlManager.handleAssignReplicasToDirs`:
//! a broker with several log dirs tells the controller which dir holds each of its replicas, so
//! that a dir it later reports offline ([`super::broker_lifecycle::offline_dir_records`]) names
//! the partitions to move. A replica assigned to a dir the broker no longer reports online loses
//! its ISR place and leadership at once.
//!
//! What it is not: the moves between dirs themselves (AlterReplicaLogDirs, done by the broker,
//! which then sends the replica's new dir here).

use strand_base::{BrokerId, Uuid};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::assign_replicas_to_dirs_response::{DirectoryData, PartitionData, TopicData};
use strand_protocol::messages::{AssignReplicasToDirsRequest, AssignReplicasToDirsResponse};

use super::broker_lifecycle::{leave_isrs_where, partition_record};
use super::cluster::check_broker_epoch;
use super::partition_change::{ElrRules, PartitionChange};
use super::{ControllerDefaults, ControllerResult};
use crate::image::{MetadataDelta, MetadataImage, PartitionImage};

/// Records each listed replica's directory (a `PartitionChangeRecord` where it differs), and
/// answers per partition: UNKNOWN_TOPIC_ID, UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER
/// for a partition the broker is not a replica of, else NONE. STALE_BROKER_EPOCH for the whole
/// request when `broker_epoch` is not the registration's. Replicas assigned to a dir that is
/// not among the broker's online dirs then leave their ISR and leadership, decided on the image
/// the directory records leave.
pub fn assign_replicas_to_dirs(
    image: &MetadataImage,
    request: &AssignReplicasToDirsRequest,
    defaults: &ControllerDefaults,
) -> ControllerResult<AssignReplicasToDirsResponse> {
    let broker = request.broker_id;
    if let Err(error) = check_broker_epoch(image, broker, request.broker_epoch) {
        let response = AssignReplicasToDirsResponse { error_code: error.code.code(), ..Default::default() };
        return ControllerResult { records: Vec::new(), response };
    }
    let online = image.cluster().broker(broker).map(|b| b.log_dirs.clone()).unwrap_or_default();
    let mut records = Vec::new();
    let mut offline_assigned: Vec<(Uuid, i32)> = Vec::new();
    let mut directories = Vec::new();
    for dir in &request.directories {
        let dir_offline = !online.is_empty() && !online.contains(&dir.id);
        let mut topics = Vec::new();
        for topic in &dir.topics {
            let mut partitions = Vec::new();
            for p in &topic.partitions {
                let index = p.partition_index;
                let code = match assign(image, broker, topic.topic_id, index, dir.id, defaults) {
                    Ok(record) => {
                        records.extend(record.map(partition_record));
                        if dir_offline {
                            offline_assigned.push((topic.topic_id, index));
                        }
                        ErrorCode::None
                    }
                    Err(code) => code,
                };
                partitions.push(PartitionData {
                    partition_index: index,
                    error_code: code.code(),
                    ..Default::default()
                });
            }
            topics.push(TopicData { topic_id: topic.topic_id, partitions, ..Default::default() });
        }
        directories.push(DirectoryData { id: dir.id, topics, ..Default::default() });
    }
    if !offline_assigned.is_empty() {
        let mut delta = MetadataDelta::new(image);
        let replayed = records.iter().all(|r| delta.replay(&r.record).is_ok());
        let assigned = if replayed { delta.apply(image.provenance()) } else { image.clone() };
        let selected = |topic_id: Uuid, index: i32| offline_assigned.contains(&(topic_id, index));
        records.extend(leave_isrs_where(&assigned, broker, defaults, &|topic_id, index, _: &PartitionImage| {
            selected(topic_id, index)
        }));
    }
    let response = AssignReplicasToDirsResponse { directories, ..Default::default() };
    ControllerResult { records, response }
}

/// The record that puts `broker`'s replica of the partition in `dir`, `None` if it already is.
fn assign(
    image: &MetadataImage,
    broker: BrokerId,
    topic_id: Uuid,
    index: i32,
    dir: Uuid,
    defaults: &ControllerDefaults,
) -> Result<Option<strand_protocol::messages::PartitionChangeRecord>, ErrorCode> {
    let topic = image.topics().by_id(topic_id).ok_or(ErrorCode::UnknownTopicId)?;
    let partition = topic.partitions.get(&index).ok_or(ErrorCode::UnknownTopicOrPartition)?;
    if !partition.replicas.contains(&broker) {
        return Err(ErrorCode::NotLeaderOrFollower);
    }
    let rules = ElrRules::for_topic(image, topic, defaults);
    let change = PartitionChange::new(partition, topic_id, index, rules).directory(broker, dir);
    // Only the directory moves: every replica stays acceptable as it is.
    Ok(change.record(&|b| b == partition.leader))
}
