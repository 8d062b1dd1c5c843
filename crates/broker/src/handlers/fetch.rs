//! Fetch from consumers: per partition, whole batches from the fetch offset up to the partition's
//! and the request's byte limits (the first batch whole even if larger, KIP-74), never past the
//! high watermark (or the last stable offset under read_committed). When fewer than `min_bytes`
//! are there, the request waits up to `max_wait_ms` for an append.
//!
//! Not yet: incremental fetch sessions (KIP-227: every fetch is answered as a full one, with
//! session id 0, which clients accept), replica fetches (the cluster issue), and sending record
//! bytes straight from the segment file (they are copied into the response today).

use std::time::Duration;

use bytes::Bytes;
use strand_base::{ProducerId, Uuid};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::fetch_request::FetchTopic;
use strand_protocol::messages::fetch_response::{AbortedTransaction, FetchableTopicResponse, PartitionData};
use strand_protocol::messages::{FetchRequest, FetchResponse};
use strand_replication::{Isolation, ReplicaError};

use super::target;
use crate::Broker;

/// The longest a fetch may wait for data, whatever the client asks.
const FETCH_WAIT_MS_MAX: i32 = 30_000;

pub async fn handle(broker: &Broker, request: FetchRequest, version: i16) -> FetchResponse {
    let wait = Duration::from_millis(request.max_wait_ms.clamp(0, FETCH_WAIT_MS_MAX) as u64);
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let (responses, bytes) = read_all(broker, &request, version);
        let errors = responses.iter().flat_map(|t| &t.partitions).any(|p| p.error_code != 0);
        let now = tokio::time::Instant::now();
        if bytes >= request.min_bytes.max(0) as usize || errors || now >= deadline {
            return FetchResponse { responses, ..Default::default() };
        }
        broker.replicas.wait_for_append(deadline - now).await;
    }
}

/// One pass over every requested partition; returns the responses and the record bytes read.
fn read_all(broker: &Broker, request: &FetchRequest, version: i16) -> (Vec<FetchableTopicResponse>, usize) {
    let image = broker.image();
    let isolation = if request.isolation_level == 1 { Isolation::ReadCommitted } else { Isolation::ReadUncommitted };
    let mut budget = request.max_bytes.max(0) as u64;
    let mut total = 0usize;
    let mut responses = Vec::with_capacity(request.topics.len());
    for topic in &request.topics {
        let found =
            if version >= 13 { image.topics().by_id(topic.topic_id) } else { image.topics().by_name(&topic.topic) };
        let unknown = if version >= 13 { ErrorCode::UnknownTopicId } else { ErrorCode::UnknownTopicOrPartition };
        let mut partitions = Vec::with_capacity(topic.partitions.len());
        for partition in &topic.partitions {
            let data = match target(&image, found, partition.partition, broker.identity.node_id) {
                Err(_) if found.is_none() => failed(partition.partition, unknown),
                Err(code) => failed(partition.partition, code),
                Ok(target) => {
                    // The first partition with data may exceed the budget by its first batch.
                    let limit = (partition.partition_max_bytes.max(0) as u64).min(budget.max(1));
                    match broker.replicas.read(&target.partition, partition.fetch_offset, limit, isolation) {
                        Ok(read) => {
                            budget = budget.saturating_sub(read.records.len() as u64);
                            total += read.records.len();
                            PartitionData {
                                partition_index: partition.partition,
                                high_watermark: read.high_watermark,
                                last_stable_offset: read.last_stable_offset,
                                log_start_offset: read.log_start_offset,
                                aborted_transactions: (isolation == Isolation::ReadCommitted).then(|| {
                                    read.aborted
                                        .iter()
                                        .map(|a| AbortedTransaction {
                                            producer_id: ProducerId(a.producer_id),
                                            first_offset: a.first_offset,
                                            ..Default::default()
                                        })
                                        .collect()
                                }),
                                records: Some(read.records),
                                ..Default::default()
                            }
                        }
                        Err(ReplicaError::Log(strand_log::LogError::OffsetOutOfRange { .. })) => {
                            out_of_range(broker, &target.partition, partition.partition)
                        }
                        Err(_) => failed(partition.partition, ErrorCode::KafkaStorageError),
                    }
                }
            };
            partitions.push(data);
        }
        responses.push(topic_response(topic, version, partitions));
    }
    (responses, total)
}

fn topic_response(topic: &FetchTopic, version: i16, partitions: Vec<PartitionData>) -> FetchableTopicResponse {
    FetchableTopicResponse {
        topic: if version >= 13 { String::new() } else { topic.topic.clone() },
        topic_id: if version >= 13 { topic.topic_id } else { Uuid::ZERO },
        partitions,
        ..Default::default()
    }
}

fn out_of_range(broker: &Broker, tp: &strand_base::TopicPartition, index: i32) -> PartitionData {
    let mut data = failed(index, ErrorCode::OffsetOutOfRange);
    if let Ok(offsets) = broker.replicas.offsets(tp) {
        data.high_watermark = offsets.high_watermark;
        data.last_stable_offset = offsets.last_stable_offset;
        data.log_start_offset = offsets.log_start_offset;
    }
    data
}

fn failed(index: i32, code: ErrorCode) -> PartitionData {
    PartitionData {
        partition_index: index,
        error_code: code.code(),
        high_watermark: -1,
        last_stable_offset: -1,
        log_start_offset: -1,
        records: Some(Bytes::new()),
        ..Default::default()
    }
}
