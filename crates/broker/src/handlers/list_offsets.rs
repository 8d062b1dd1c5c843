//! ListOffsets: the earliest offset (-2), the latest (-1: the high watermark, or the last stable
//! offset under read_committed), the offset of the largest timestamp (-3), or the first record at
//! or after a timestamp.

use strand_protocol::error::ErrorCode;
use strand_protocol::messages::list_offsets_response::{ListOffsetsPartitionResponse, ListOffsetsTopicResponse};
use strand_protocol::messages::{ListOffsetsRequest, ListOffsetsResponse};

use super::target;
use crate::Broker;

const EARLIEST_TIMESTAMP: i64 = -2;
const LATEST_TIMESTAMP: i64 = -1;
const MAX_TIMESTAMP: i64 = -3;

/// Leader epochs are in the response from v4 (KIP-320); older versions must leave them unset.
const LEADER_EPOCH_VERSION_MIN: i16 = 4;

pub fn handle(broker: &Broker, request: ListOffsetsRequest, version: i16) -> ListOffsetsResponse {
    let image = broker.image();
    let topics = request
        .topics
        .iter()
        .map(|topic| {
            let found = image.topics().by_name(&topic.name);
            let partitions = topic
                .partitions
                .iter()
                .map(|p| match target(&image, found, p.partition_index, broker.identity.node_id) {
                    Err(code) => failed(p.partition_index, code),
                    Ok(target) => lookup(
                        broker,
                        &target.partition,
                        p.partition_index,
                        p.timestamp,
                        if version >= LEADER_EPOCH_VERSION_MIN { target.leader_epoch } else { -1 },
                        request.isolation_level,
                    ),
                })
                .collect();
            ListOffsetsTopicResponse { name: topic.name.clone(), partitions, ..Default::default() }
        })
        .collect();
    ListOffsetsResponse { topics, ..Default::default() }
}

fn lookup(
    broker: &Broker,
    tp: &strand_base::TopicPartition,
    index: i32,
    timestamp: i64,
    leader_epoch: i32,
    isolation_level: i8,
) -> ListOffsetsPartitionResponse {
    let Ok(offsets) = broker.replicas.offsets(tp) else { return failed(index, ErrorCode::NotLeaderOrFollower) };
    let found = match timestamp {
        EARLIEST_TIMESTAMP => Ok(Some((-1, offsets.log_start_offset))),
        LATEST_TIMESTAMP if isolation_level == 1 => Ok(Some((-1, offsets.last_stable_offset))),
        LATEST_TIMESTAMP => Ok(Some((-1, offsets.high_watermark))),
        MAX_TIMESTAMP => broker.replicas.max_timestamp(tp),
        t if t >= 0 => broker.replicas.offset_for_timestamp(tp, t),
        _ => return failed(index, ErrorCode::InvalidRequest),
    };
    match found {
        Ok(Some((timestamp, offset))) => ListOffsetsPartitionResponse {
            partition_index: index,
            timestamp,
            offset,
            leader_epoch,
            ..Default::default()
        },
        // No record at or after the timestamp: Kafka answers -1 / -1.
        Ok(None) => ListOffsetsPartitionResponse {
            partition_index: index,
            timestamp: -1,
            offset: -1,
            leader_epoch: -1,
            ..Default::default()
        },
        Err(_) => failed(index, ErrorCode::KafkaStorageError),
    }
}

fn failed(index: i32, code: ErrorCode) -> ListOffsetsPartitionResponse {
    ListOffsetsPartitionResponse {
        partition_index: index,
        error_code: code.code(),
        timestamp: -1,
        offset: -1,
        leader_epoch: -1,
        ..Default::default()
    }
}
