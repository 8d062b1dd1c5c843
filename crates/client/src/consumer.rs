//! [`PartitionConsumer`]: reading assigned partitions without a group (Kafka's `assign` and
//! `seek`): offsets by ListOffsets (earliest, latest, by time) and records by Fetch, each sent to
//! the partition's leader, with the isolation level asked for. Records come decoded, with their
//! offsets, timestamps and headers; control batches (transaction markers) are skipped.
//!
//! What it is not (yet): no consumer group (subscribe, commits), no fetch sessions, no aborted
//! transactions filtered out under `read_committed` beyond what the last stable offset bounds.

use strand_base::{BrokerId, Uuid};
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use strand_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use strand_protocol::messages::{FetchRequest, ListOffsetsRequest};
use strand_protocol::records::{RecordBatches, TimestampType};

use crate::{Client, ClientError};

/// ListOffsets' special timestamps.
pub const EARLIEST: i64 = -2;
pub const LATEST: i64 = -1;
/// The most bytes one Fetch asks for.
pub const FETCH_BYTES_MAX: i32 = 50 << 20;

/// A topic's id and each partition's leader (by partition index; `None`: no leader now).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicLayout {
    pub topic_id: Uuid,
    pub leaders: Vec<Option<i32>>,
}

/// The topic's layout from a fresh Metadata; UNKNOWN_TOPIC_OR_PARTITION if it does not exist.
pub async fn layout(client: &Client, topic: &str) -> Result<TopicLayout, ClientError> {
    let response = client.refresh_metadata(Some(&[topic.to_owned()])).await?;
    let found = response.topics.into_iter().find(|t| t.name.as_deref() == Some(topic));
    let found =
        found.ok_or_else(|| ClientError::from_response(3, None).unwrap_or(ClientError::Timeout(topic.into())))?;
    if let Some(error) = ClientError::from_response(found.error_code, None) {
        return Err(error);
    }
    let mut leaders = vec![None; found.partitions.len()];
    for partition in &found.partitions {
        if let Some(slot) = usize::try_from(partition.partition_index).ok().and_then(|i| leaders.get_mut(i)) {
            *slot = (partition.leader_id.0 >= 0).then_some(partition.leader_id.0);
        }
    }
    Ok(TopicLayout { topic_id: found.topic_id, leaders })
}

/// One record read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerRecord {
    pub partition: i32,
    pub offset: i64,
    pub timestamp_ms: i64,
    pub timestamp_type: TimestampType,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub headers: Vec<(String, Option<Vec<u8>>)>,
}

/// Reads partitions of one topic.
#[derive(Debug)]
pub struct PartitionConsumer<'a> {
    client: &'a Client,
    topic: String,
    /// 0 read_uncommitted, 1 read_committed.
    isolation_level: i8,
}

impl<'a> PartitionConsumer<'a> {
    pub fn new(client: &'a Client, topic: impl Into<String>, isolation_level: i8) -> PartitionConsumer<'a> {
        PartitionConsumer { client, topic: topic.into(), isolation_level }
    }

    /// The topic's partition count.
    pub async fn partitions(&self) -> Result<usize, ClientError> {
        Ok(self.client.retrying("metadata", || layout(self.client, &self.topic)).await?.leaders.len())
    }

    /// The offset of `partition` for `timestamp` ([`EARLIEST`], [`LATEST`] or a time in ms;
    /// -1 when no record is that late).
    pub async fn offset_for(&self, partition: i32, timestamp: i64) -> Result<i64, ClientError> {
        self.client
            .retrying("listOffsets", || async {
                let connection = self.leader(partition).await?;
                let request = RequestBody::ListOffsets(ListOffsetsRequest {
                    replica_id: BrokerId(-1),
                    isolation_level: self.isolation_level,
                    topics: vec![ListOffsetsTopic {
                        name: self.topic.clone(),
                        partitions: vec![ListOffsetsPartition {
                            partition_index: partition,
                            current_leader_epoch: -1,
                            timestamp,
                            ..Default::default()
                        }],
                        ..Default::default()
                    }],
                    ..Default::default()
                });
                let ResponseBody::ListOffsets(response) = connection.call(&request).await? else {
                    return Err(ClientError::Config("not a ListOffsets response".into()));
                };
                let answer = response.topics.first().and_then(|t| t.partitions.first());
                let answer = answer.ok_or_else(|| ClientError::Config("an empty ListOffsets response".into()))?;
                match ClientError::from_response(answer.error_code, None) {
                    Some(error) => Err(error),
                    None => Ok(answer.offset),
                }
            })
            .await
    }

    /// The records of `partition` from `offset`, waiting up to `wait_ms` for some to arrive.
    pub async fn fetch(&self, partition: i32, offset: i64, wait_ms: i32) -> Result<Vec<ConsumerRecord>, ClientError> {
        let records = self
            .client
            .retrying("fetch", || async {
                let layout = layout(self.client, &self.topic).await?;
                let connection = self.leader(partition).await?;
                let version = connection.version(ApiKey::Fetch)?;
                let (topic, topic_id) =
                    if version >= 13 { (String::new(), layout.topic_id) } else { (self.topic.clone(), Uuid::ZERO) };
                let request = RequestBody::Fetch(FetchRequest {
                    replica_id: BrokerId(-1),
                    max_wait_ms: wait_ms,
                    min_bytes: 1,
                    max_bytes: FETCH_BYTES_MAX,
                    isolation_level: self.isolation_level,
                    session_epoch: -1,
                    topics: vec![FetchTopic {
                        topic,
                        topic_id,
                        partitions: vec![FetchPartition {
                            partition,
                            current_leader_epoch: -1,
                            fetch_offset: offset,
                            last_fetched_epoch: -1,
                            log_start_offset: -1,
                            partition_max_bytes: FETCH_BYTES_MAX,
                            ..Default::default()
                        }],
                        ..Default::default()
                    }],
                    ..Default::default()
                });
                let ResponseBody::Fetch(response) = connection.call_at(&request, version).await? else {
                    return Err(ClientError::Config("not a Fetch response".into()));
                };
                if let Some(error) = ClientError::from_response(response.error_code, None) {
                    return Err(error);
                }
                let answer = response.responses.into_iter().next().and_then(|t| t.partitions.into_iter().next());
                let answer = answer.ok_or_else(|| ClientError::Config("an empty Fetch response".into()))?;
                if let Some(error) = ClientError::from_response(answer.error_code, None) {
                    return Err(error);
                }
                Ok(answer.records.and_then(|r| r.as_bytes().cloned()).unwrap_or_default())
            })
            .await?;
        decode(partition, offset, records)
    }

    async fn leader(&self, partition: i32) -> Result<std::sync::Arc<crate::Connection>, ClientError> {
        let layout = layout(self.client, &self.topic).await?;
        let leader = usize::try_from(partition).ok().and_then(|p| layout.leaders.get(p).copied().flatten());
        let leader = leader
            .ok_or_else(|| ClientError::from_response(5, None).unwrap_or(ClientError::Timeout("leader".into())))?;
        self.client.node_connection(leader).await
    }
}

/// The records at `from` or later of a fetched record set (a batch may start earlier).
fn decode(partition: i32, from: i64, records: bytes::Bytes) -> Result<Vec<ConsumerRecord>, ClientError> {
    let broken =
        |e: strand_protocol::records::RecordsError| ClientError::Config(format!("a fetched batch is unreadable: {e}"));
    let mut decoded = Vec::new();
    for batch in RecordBatches::new(records) {
        let batch = batch.map_err(broken)?;
        if batch.attributes().is_control() {
            continue;
        }
        let timestamp_type = batch.attributes().timestamp_type();
        for record in batch.records().map_err(broken)?.iter() {
            let record = record.map_err(broken)?;
            let offset = batch.record_offset(&record);
            if offset < from {
                continue;
            }
            decoded.push(ConsumerRecord {
                partition,
                offset,
                timestamp_ms: batch.record_timestamp(&record),
                timestamp_type,
                key: record.key().map(<[u8]>::to_vec),
                value: record.value().map(<[u8]>::to_vec),
                headers: record.headers().map(|h| (h.key.to_owned(), h.value.map(<[u8]>::to_vec))).collect(),
            });
        }
    }
    Ok(decoded)
}
