//! [`Admin::list_offsets`] and [`Admin::delete_records`]: Kafka's `Admin.listOffsets` and
//! `deleteRecords`, one request to each leader ([`per_leader`]); each partition gets its own
//! answer, or the error that partition met.

use std::collections::BTreeMap;

use strand_base::BrokerId;
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::messages::delete_records_request::{DeleteRecordsPartition, DeleteRecordsTopic};
use strand_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use strand_protocol::messages::{DeleteRecordsRequest, ListOffsetsRequest};

use crate::admin_groups::TopicPartition;
use crate::by_leader::{LeaderAnswers, per_leader};
use crate::{Admin, ClientError};

/// Which offset of a partition to look up (Kafka's `OffsetSpec`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffsetSpec {
    Earliest,
    Latest,
    /// The offset of the record with the largest timestamp (KIP-734).
    MaxTimestamp,
    /// The first offset held locally (KIP-405).
    EarliestLocal,
    /// The last offset in remote storage (KIP-1005).
    LatestTiered,
    /// The first offset not yet copied to remote storage (KIP-1023).
    EarliestPendingUpload,
    /// The first offset whose timestamp is at or after this time in ms.
    Timestamp(i64),
}

impl OffsetSpec {
    /// The timestamp ListOffsets carries for this spec.
    pub fn timestamp(self) -> i64 {
        match self {
            OffsetSpec::Earliest => -2,
            OffsetSpec::Latest => -1,
            OffsetSpec::MaxTimestamp => -3,
            OffsetSpec::EarliestLocal => -4,
            OffsetSpec::LatestTiered => -5,
            OffsetSpec::EarliestPendingUpload => -6,
            OffsetSpec::Timestamp(time) => time,
        }
    }

    /// The oldest ListOffsets version that can carry this spec, as Kafka's admin client asks.
    fn min_version(self) -> i16 {
        match self {
            OffsetSpec::Earliest | OffsetSpec::Latest => 0,
            OffsetSpec::Timestamp(_) => 1,
            OffsetSpec::MaxTimestamp => 7,
            OffsetSpec::EarliestLocal => 8,
            OffsetSpec::LatestTiered => 9,
            OffsetSpec::EarliestPendingUpload => 11,
        }
    }
}

/// One partition's answer: its offset (-1 when none matches, Kafka's `UNKNOWN_OFFSET`), the
/// timestamp of that record (-1 when not asked by time) and the leader epoch (-1 unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListedOffset {
    pub offset: i64,
    pub timestamp: i64,
    pub leader_epoch: i32,
}

/// How long a leader may wait for its followers to move their log start (DeleteRecords'
/// `timeout_ms`; Kafka's admin client sends its `request.timeout.ms`).
const DELETE_RECORDS_TIMEOUT_MS: i32 = 30_000;

impl Admin {
    /// The offset `spec` names of each of `partitions` (topic, index), in their order.
    /// `isolation_level`: 0 read_uncommitted, 1 read_committed.
    pub async fn list_offsets(
        &self,
        partitions: &[TopicPartition],
        spec: OffsetSpec,
        isolation_level: i8,
    ) -> Result<Vec<Result<ListedOffset, ClientError>>, ClientError> {
        per_leader(self.client(), partitions, "listOffsets", |leader, indexes| async move {
            let connection = self.client().node_connection(leader).await?;
            if connection.version(ApiKey::ListOffsets)? < spec.min_version() {
                return Err(ClientError::UnsupportedVersion(ApiKey::ListOffsets));
            }
            let mut topics: BTreeMap<&str, Vec<ListOffsetsPartition>> = BTreeMap::new();
            for index in indexes {
                let (topic, partition) = &partitions[index];
                topics.entry(topic).or_default().push(ListOffsetsPartition {
                    partition_index: *partition,
                    current_leader_epoch: -1,
                    timestamp: spec.timestamp(),
                    ..Default::default()
                });
            }
            let request = RequestBody::ListOffsets(ListOffsetsRequest {
                replica_id: BrokerId(-1),
                isolation_level,
                topics: topics
                    .into_iter()
                    .map(|(name, partitions)| ListOffsetsTopic {
                        name: name.to_owned(),
                        partitions,
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            });
            let ResponseBody::ListOffsets(response) = connection.call(&request).await? else {
                return Err(ClientError::Config("not a ListOffsets response".into()));
            };
            let mut found = LeaderAnswers::new();
            for topic in response.topics {
                for p in topic.partitions {
                    let listed =
                        ListedOffset { offset: p.offset, timestamp: p.timestamp, leader_epoch: p.leader_epoch };
                    found.insert((topic.name.clone(), p.partition_index), (p.error_code, listed));
                }
            }
            Ok(found)
        })
        .await
    }

    /// Deletes the records of each partition before its offset (-1: the high watermark), in
    /// the order given; each answer is the partition's new low watermark.
    pub async fn delete_records(
        &self,
        before: &[(TopicPartition, i64)],
    ) -> Result<Vec<Result<i64, ClientError>>, ClientError> {
        let partitions: Vec<TopicPartition> = before.iter().map(|(tp, _)| tp.clone()).collect();
        per_leader(self.client(), &partitions, "deleteRecords", |leader, indexes| async move {
            let mut topics: BTreeMap<&str, Vec<DeleteRecordsPartition>> = BTreeMap::new();
            for index in indexes {
                let ((topic, partition), offset) = &before[index];
                topics.entry(topic).or_default().push(DeleteRecordsPartition {
                    partition_index: *partition,
                    offset: *offset,
                    ..Default::default()
                });
            }
            let request = RequestBody::DeleteRecords(DeleteRecordsRequest {
                topics: topics
                    .into_iter()
                    .map(|(name, partitions)| DeleteRecordsTopic {
                        name: name.to_owned(),
                        partitions,
                        ..Default::default()
                    })
                    .collect(),
                timeout_ms: DELETE_RECORDS_TIMEOUT_MS,
                ..Default::default()
            });
            let ResponseBody::DeleteRecords(response) = self.client().call_node(leader, &request).await? else {
                return Err(ClientError::Config("not a DeleteRecords response".into()));
            };
            let mut found = LeaderAnswers::new();
            for topic in response.topics {
                for p in topic.partitions {
                    found.insert((topic.name.clone(), p.partition_index), (p.error_code, p.low_watermark));
                }
            }
            Ok(found)
        })
        .await
    }
}
