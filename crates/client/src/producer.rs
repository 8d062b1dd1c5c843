//! [`Producer`]: records to a topic's partitions' leaders. A record goes to its own partition if
//! it names one, else to Kafka's default partitioner's choice for its key (murmur2, positive,
//! modulo the partition count), else round-robin. One [`Producer::send`] builds one uncompressed
//! magic-2 batch per partition and one Produce request per leader, with `acks`, and retries a
//! partition whose leader moved (a retriable error) after refreshing Metadata.
//!
//! What it is not (yet): no idempotence or transactions (producer id -1), no compression, no
//! linger: the caller decides what one send holds (at most [`SEND_RECORDS_MAX`] records).

use std::collections::BTreeMap;

use bytes::Bytes;
use strand_base::Uuid;
use strand_protocol::messages::ProduceRequest;
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::records::{Header, NewRecord, RecordBatchBuilder};

use crate::consumer::{TopicLayout, layout};
use crate::{Client, ClientError};

/// The most records one send takes.
pub const SEND_RECORDS_MAX: usize = 100_000;

/// A record to produce. Header values are bytes; `None` is a null value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProducerRecord {
    pub partition: Option<i32>,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub headers: Vec<(String, Option<Vec<u8>>)>,
    pub timestamp_ms: i64,
}

/// Where a record was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordMetadata {
    pub partition: i32,
    pub offset: i64,
}

/// A producer to one cluster.
#[derive(Debug)]
pub struct Producer<'a> {
    client: &'a Client,
    /// Kafka's `acks`: 0, 1 or -1 (all).
    pub acks: i16,
    next_partition: std::cell::Cell<i32>,
}

impl<'a> Producer<'a> {
    pub fn new(client: &'a Client, acks: i16) -> Producer<'a> {
        Producer { client, acks, next_partition: std::cell::Cell::new(0) }
    }

    /// Writes `records` to `topic`; where each went (with acks=0, offset -1), in order.
    pub async fn send(&self, topic: &str, records: &[ProducerRecord]) -> Result<Vec<RecordMetadata>, ClientError> {
        if records.len() > SEND_RECORDS_MAX {
            return Err(ClientError::Config(format!("at most {SEND_RECORDS_MAX} records in one send")));
        }
        let partitions = self.client.retrying("producer metadata", || layout(self.client, topic)).await?.leaders.len();
        let mut by_partition: BTreeMap<i32, Vec<usize>> = BTreeMap::new();
        for (index, record) in records.iter().enumerate() {
            by_partition.entry(self.partition_of(record, partitions)?).or_default().push(index);
        }
        let mut placed = vec![RecordMetadata { partition: -1, offset: -1 }; records.len()];
        for (partition, indexes) in by_partition {
            let batch = batch(records, &indexes)?;
            let base = self
                .client
                .retrying("produce", || async {
                    let layout = layout(self.client, topic).await?;
                    self.produce(&layout, topic, partition, batch.clone()).await
                })
                .await?;
            for (delta, index) in indexes.into_iter().enumerate() {
                let offset = if base < 0 { -1 } else { base + delta as i64 };
                placed[index] = RecordMetadata { partition, offset };
            }
        }
        Ok(placed)
    }

    fn partition_of(&self, record: &ProducerRecord, partitions: usize) -> Result<i32, ClientError> {
        let count = i32::try_from(partitions).unwrap_or(i32::MAX);
        if count == 0 {
            return Err(ClientError::from_response(5, None).unwrap_or(ClientError::Timeout("partitions".into())));
        }
        Ok(match (record.partition, &record.key) {
            (Some(partition), _) => partition,
            (None, Some(key)) => (murmur2(key) & 0x7fff_ffff) % count,
            (None, None) => {
                let next = self.next_partition.get();
                self.next_partition.set((next + 1) % count);
                next % count
            }
        })
    }

    /// One Produce of `batch` to `partition`'s leader: the base offset.
    async fn produce(
        &self,
        layout: &TopicLayout,
        topic: &str,
        partition: i32,
        batch: Bytes,
    ) -> Result<i64, ClientError> {
        let leader = layout
            .leaders
            .get(partition as usize)
            .copied()
            .flatten()
            .ok_or_else(|| ClientError::from_response(5, None).unwrap_or(ClientError::Timeout("leader".into())))?;
        let connection = self.client.node_connection(leader).await?;
        let version = connection.version(ApiKey::Produce)?;
        let (name, topic_id) =
            if version >= 13 { (String::new(), layout.topic_id) } else { (topic.to_owned(), Uuid::ZERO) };
        let request = RequestBody::Produce(ProduceRequest {
            acks: self.acks,
            timeout_ms: i32::try_from(self.client.config().request_timeout.as_millis()).unwrap_or(i32::MAX),
            topic_data: vec![TopicProduceData {
                name,
                topic_id,
                partition_data: vec![PartitionProduceData {
                    index: partition,
                    records: Some(batch),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        });
        if self.acks == 0 {
            // No response comes: the request is sent and forgotten, as Kafka's acks=0 is.
            return connection.send_only(&request, version).await.map(|()| -1);
        }
        let ResponseBody::Produce(response) = connection.call_at(&request, version).await? else {
            return Err(ClientError::Config("not a Produce response".into()));
        };
        let answer = response.responses.first().and_then(|t| t.partition_responses.first());
        let answer = answer.ok_or_else(|| ClientError::Config("an empty Produce response".into()))?;
        match ClientError::from_response(answer.error_code, answer.error_message.as_deref()) {
            Some(error) => Err(error),
            None => Ok(answer.base_offset),
        }
    }
}

fn batch(records: &[ProducerRecord], indexes: &[usize]) -> Result<Bytes, ClientError> {
    let mut builder = RecordBatchBuilder::new();
    for index in indexes {
        let record = &records[*index];
        let headers: Vec<Header<'_>> =
            record.headers.iter().map(|(key, value)| Header { key, value: value.as_deref() }).collect();
        let new = NewRecord {
            timestamp_ms: record.timestamp_ms,
            key: record.key.as_deref(),
            value: record.value.as_deref(),
            headers: &headers,
        };
        builder.append(&new).map_err(|e| ClientError::Config(format!("a record cannot be written: {e}")))?;
    }
    builder.build().map_err(|e| ClientError::Config(format!("a batch cannot be written: {e}")))
}

/// Kafka's `Utils.murmur2` (seed 0x9747b28c), which its default partitioner hashes keys with.
pub fn murmur2(data: &[u8]) -> i32 {
    const SEED: u32 = 0x9747_b28c;
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;
    let length = data.len() as u32;
    let mut h = SEED ^ length;
    let mut chunks = data.chunks_exact(4);
    for chunk in &mut chunks {
        let mut k = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }
    let rest = chunks.remainder();
    if rest.len() >= 3 {
        h ^= u32::from(rest[2]) << 16;
    }
    if rest.len() >= 2 {
        h ^= u32::from(rest[1]) << 8;
    }
    if !rest.is_empty() {
        h ^= u32::from(rest[0]);
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's `UtilsTest.testMurmur2` values: the same keys land on the same partitions.
    #[test]
    fn murmur2_is_kafka_s() {
        for (key, expected) in [
            ("21", -973_932_308),
            ("foobar", -790_332_482),
            ("a-little-bit-long-string", -985_981_536),
            ("a-little-bit-longer-string", -1_486_304_829),
            ("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58_897_971),
        ] {
            assert_eq!(murmur2(key.as_bytes()), expected, "{key}");
        }
        assert_eq!(murmur2(b"abc"), 479_470_107);
    }
}
