//! [`Admin::list_offsets`]: Kafka's `Admin.listOffsets`. The partitions are grouped by leader,
//! one ListOffsets goes to each leader, and each partition gets its own answer: an offset, or
//! the error that partition met. A partition whose leader is unknown or moved (a retriable
//! error) is asked again after a fresh Metadata, with backoff, until `default.api.timeout.ms`.

use std::collections::{BTreeMap, HashMap};

use strand_base::BrokerId;
use strand_protocol::messages::ListOffsetsRequest;
use strand_protocol::messages::api::{ApiKey, RequestBody, ResponseBody};
use strand_protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};

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

type Answers = Vec<Option<Result<ListedOffset, ClientError>>>;

impl Admin {
    /// The offset `spec` names of each of `partitions` (topic, index), in their order.
    /// `isolation_level`: 0 read_uncommitted, 1 read_committed. Fails as a whole only when no
    /// Metadata can be had at all.
    pub async fn list_offsets(
        &self,
        partitions: &[(String, i32)],
        spec: OffsetSpec,
        isolation_level: i8,
    ) -> Result<Vec<Result<ListedOffset, ClientError>>, ClientError> {
        let client = self.client();
        let config = client.config();
        let deadline = tokio::time::Instant::now() + config.api_timeout;
        let mut backoff = config.retry_backoff;
        let mut answers: Answers = vec![None; partitions.len()];
        let mut topics: Vec<String> = partitions.iter().map(|(topic, _)| topic.clone()).collect();
        topics.sort();
        topics.dedup();
        loop {
            let mut last_failure = None;
            match client.refresh_metadata(Some(&topics)).await {
                Ok(metadata) => {
                    let leaders = leaders_of(&metadata);
                    let by_leader = self.pending_by_leader(partitions, &mut answers, &leaders);
                    for (leader, indexes) in by_leader {
                        let request = request(partitions, &indexes, spec, isolation_level);
                        match self.ask(leader, &request, spec).await {
                            Ok(found) => record(partitions, &indexes, &found, &mut answers),
                            Err(error) if error.is_retriable() => last_failure = Some(error),
                            Err(error) => indexes.iter().for_each(|&i| answers[i] = Some(Err(error.clone()))),
                        }
                    }
                }
                Err(error) if !error.is_retriable() => return Err(error),
                Err(error) => last_failure = Some(error),
            }
            if answers.iter().all(Option::is_some) {
                break;
            }
            if tokio::time::Instant::now() + backoff >= deadline {
                let timeout = last_failure.unwrap_or_else(|| ClientError::Timeout("listOffsets".into()));
                answers.iter_mut().filter(|a| a.is_none()).for_each(|a| *a = Some(Err(timeout.clone())));
                break;
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(config.retry_backoff_max);
        }
        Ok(answers.into_iter().map(|a| a.unwrap_or_else(|| Err(ClientError::Timeout("listOffsets".into())))).collect())
    }

    /// The partitions still unanswered, by leader. One whose leader is unknown waits for the
    /// next round; one that the fresh Metadata does not know, or reports with a lasting error,
    /// gets that error as its answer.
    fn pending_by_leader(
        &self,
        partitions: &[(String, i32)],
        answers: &mut Answers,
        leaders: &HashMap<(String, i32), Result<i32, i16>>,
    ) -> BTreeMap<i32, Vec<usize>> {
        const UNKNOWN_TOPIC_OR_PARTITION: i16 = 3;
        let mut by_leader: BTreeMap<i32, Vec<usize>> = BTreeMap::new();
        for (index, key) in partitions.iter().enumerate() {
            if answers[index].is_some() {
                continue;
            }
            let code = match leaders.get(key) {
                Some(Ok(leader)) => {
                    by_leader.entry(*leader).or_default().push(index);
                    continue;
                }
                Some(Err(code)) => *code,
                None => UNKNOWN_TOPIC_OR_PARTITION,
            };
            match ClientError::from_response(code, None) {
                Some(error) if code == UNKNOWN_TOPIC_OR_PARTITION || !error.is_retriable() => {
                    answers[index] = Some(Err(error))
                }
                _ => {}
            }
        }
        by_leader
    }

    /// Sends one leader its ListOffsets, refusing a spec its version cannot carry.
    async fn ask(
        &self,
        leader: i32,
        request: &RequestBody,
        spec: OffsetSpec,
    ) -> Result<HashMap<(String, i32), (i16, ListedOffset)>, ClientError> {
        let connection = self.client().node_connection(leader).await?;
        if connection.version(ApiKey::ListOffsets)? < spec.min_version() {
            return Err(ClientError::UnsupportedVersion(ApiKey::ListOffsets));
        }
        let ResponseBody::ListOffsets(response) = connection.call(request).await? else {
            return Err(ClientError::Config("not a ListOffsets response".into()));
        };
        let mut found = HashMap::new();
        for topic in response.topics {
            for p in topic.partitions {
                let listed = ListedOffset { offset: p.offset, timestamp: p.timestamp, leader_epoch: p.leader_epoch };
                found.insert((topic.name.clone(), p.partition_index), (p.error_code, listed));
            }
        }
        Ok(found)
    }
}

/// Each partition's leader from a Metadata answer, or the error its topic or partition has.
fn leaders_of(metadata: &strand_protocol::messages::MetadataResponse) -> HashMap<(String, i32), Result<i32, i16>> {
    let mut leaders = HashMap::new();
    for topic in &metadata.topics {
        let Some(name) = &topic.name else { continue };
        for partition in &topic.partitions {
            let leader = partition.leader_id.0;
            let answer = if partition.error_code == 0 && leader >= 0 { Ok(leader) } else { Err(partition.error_code) };
            leaders.insert((name.clone(), partition.partition_index), answer);
        }
    }
    leaders
}

fn request(partitions: &[(String, i32)], indexes: &[usize], spec: OffsetSpec, isolation_level: i8) -> RequestBody {
    let mut topics: BTreeMap<&str, Vec<ListOffsetsPartition>> = BTreeMap::new();
    for &index in indexes {
        let (topic, partition) = &partitions[index];
        topics.entry(topic).or_default().push(ListOffsetsPartition {
            partition_index: *partition,
            current_leader_epoch: -1,
            timestamp: spec.timestamp(),
            ..Default::default()
        });
    }
    RequestBody::ListOffsets(ListOffsetsRequest {
        replica_id: BrokerId(-1),
        isolation_level,
        topics: topics
            .into_iter()
            .map(|(name, partitions)| ListOffsetsTopic { name: name.to_owned(), partitions, ..Default::default() })
            .collect(),
        ..Default::default()
    })
}

/// Stores the leader's answers: an offset, a final error, or nothing (a retriable error or a
/// partition the leader left out: asked again next round).
fn record(
    partitions: &[(String, i32)],
    indexes: &[usize],
    found: &HashMap<(String, i32), (i16, ListedOffset)>,
    answers: &mut Answers,
) {
    for &index in indexes {
        let Some((code, listed)) = found.get(&partitions[index]) else { continue };
        answers[index] = match ClientError::from_response(*code, None) {
            None => Some(Ok(*listed)),
            Some(error) if error.is_retriable() => None,
            Some(error) => Some(Err(error)),
        };
    }
}
