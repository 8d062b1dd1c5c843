//! Serving followers (the leader's side of replication): [`ReplicaManager::fetch_for_follower`]
//! for one partition, and [`ReplicaManager::replica_fetch`] for a whole Fetch request from a
//! broker (replica id 0 or more), which the broker's Fetch handler hands over as it came.
//!
//! A follower's fetch is not a consumer's: it reads to the log end offset (not the high
//! watermark), names the leader epoch it follows (FENCED_LEADER_EPOCH if older than this
//! leader's, UNKNOWN_LEADER_EPOCH if newer), carries its broker epoch (a registration older than
//! the metadata's is NOT_LEADER_OR_FOLLOWER, KIP-903), and its last fetched epoch: when that
//! epoch ends earlier here than the fetch offset, the answer is a diverging epoch and no records
//! (Fetch v12+, KIP-320). The fetch offset updates the follower's progress, which can add it to
//! the ISR and move the high watermark.
//!
//! The whole request is answered like a consumer's as to waiting (`min_bytes`, `max_wait_ms`,
//! woken by an append or progress change of a partition it reads, or by this node hosting one), sizes (`max_bytes` over the response, each
//! partition's `partition_max_bytes`, the first batch of the first partition whole) and record
//! sets (regions of segment files, sent with `sendfile`). Progress is recorded on the first pass
//! only: a follower held waiting has not moved. Errors answer at once, except those saying this
//! node is behind the follower's metadata (an unknown topic, not the leader yet, an unknown newer
//! epoch), which wait like an empty read, for this node to catch up (`leader_behind_follower`).
//!
//! The leader's replication throttle (KIP-73, `quota.rs`) answers a partition it throttles with
//! no records while its quota is exceeded, unless the follower is in the ISR; the bytes of
//! throttled partitions sent are recorded once the answer is final.
//!
//! What it is not: fetch sessions are not kept for followers (a follower's session epoch is
//! ignored and the answer is sessionless: Strand's own followers fetch sessionless).

use std::time::Duration;

use strand_base::{BrokerId, TopicPartition, Uuid};
use strand_log::segment::SegmentSlice;
use strand_protocol::codec::{FileRegion, Records};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::fetch_request::FetchPartition;
use strand_protocol::messages::fetch_response::{
    EpochEndOffset, FetchableTopicResponse, LeaderIdAndEpoch, PartitionData,
};
use strand_protocol::messages::{FetchRequest, FetchResponse};

use crate::delayed_fetch::{DelayedFetch, FetchWatch};
use crate::error::ReplicaError;
use crate::manager::ReplicaManager;
use crate::partition::Partition;
use crate::state::BrokerStatuses;
use crate::types::{FirstBatch, FollowerFetch, FollowerRead};

/// The longest a replica fetch may be held, whatever it asks.
pub const REPLICA_FETCH_WAIT_MS_MAX: i32 = 30_000;

/// The first Fetch version naming topics by id.
const TOPIC_ID_VERSION: i16 = 13;
/// The first Fetch version with tagged fields (diverging epoch, current leader).
const FLEXIBLE_VERSION: i16 = 12;
/// The first Fetch version carrying the replica in `replica_state`.
const REPLICA_STATE_VERSION: i16 = 15;

/// The broker a Fetch comes from and its broker epoch: `replica_state` from v15, `replica_id`
/// before (epoch -1). A consumer's is -1.
pub fn fetch_replica(request: &FetchRequest, version: i16) -> (BrokerId, i64) {
    if version >= REPLICA_STATE_VERSION {
        (request.replica_state.replica_id, request.replica_state.replica_epoch)
    } else {
        (request.replica_id, -1)
    }
}

/// Errors that say this node has not yet applied the metadata the follower acted on: the
/// partition, its leadership here, or its new leader epoch (the follower's image is ahead; both
/// learn from the same log). Such a fetch is not answered at once, which would send the follower
/// into `replica.fetch.backoff.ms` (1 s by default) just as the leader is about to catch up; it
/// waits, like a fetch short of `min_bytes`, for a change here or its `max_wait_ms`, and only
/// then answers the error. A new topic's first acks=all write waited out that backoff whenever a
/// follower's first fetch beat the leader's own metadata update. Kafka answers these errors at
/// once; only when the answer comes differs.
fn leader_behind_follower(code: i16) -> bool {
    [
        ErrorCode::UnknownTopicId,
        ErrorCode::UnknownTopicOrPartition,
        ErrorCode::NotLeaderOrFollower,
        ErrorCode::UnknownLeaderEpoch,
    ]
    .iter()
    .any(|e| e.code() == code)
}

/// One pass over a replica fetch's partitions.
struct Pass {
    responses: Vec<FetchableTopicResponse>,
    bytes: u64,
    /// An error or a diverging epoch: answer at once.
    urgent: bool,
}

impl ReplicaManager {
    /// Serves one follower's fetch of `tp` at `now_ms`: see the module doc. Records its progress
    /// (and may propose it for the ISR, and move the high watermark).
    pub fn fetch_for_follower(
        &self,
        tp: &TopicPartition,
        fetch: &FollowerFetch,
        now_ms: i64,
    ) -> Result<FollowerRead, ReplicaError> {
        let partition = self.shared.partition(tp)?;
        let brokers = self.shared.brokers();
        let (read, item) = partition.fetch_for_follower(fetch, now_ms, true, &brokers)?;
        if let Some(item) = item {
            self.shared.submit_alter_partition(partition, item);
        }
        Ok(read)
    }

    /// Answers a whole Fetch request from a follower broker (see the module doc).
    pub async fn replica_fetch(&self, request: FetchRequest, version: i16) -> FetchResponse {
        let (replica, broker_epoch) = fetch_replica(&request, version);
        let wait = Duration::from_millis(request.max_wait_ms.clamp(0, REPLICA_FETCH_WAIT_MS_MAX) as u64);
        let min_bytes = u64::try_from(request.min_bytes).unwrap_or(0);
        let mut first = true;
        let answer = DelayedFetch::new(wait).run(|watch| {
            // Woken by the partitions read, or by this node hosting a partition it did not.
            watch.add(self.shared.hosting.subscribe());
            let pass = self.replica_fetch_pass(&request, version, replica, broker_epoch, first, watch);
            first = false;
            let complete = pass.bytes >= min_bytes || pass.urgent || request.topics.is_empty();
            (pass.responses, complete)
        });
        let responses = answer.await;
        self.record_throttled(&responses, version);
        FetchResponse { responses, ..Default::default() }
    }

    /// Kafka's `shouldLeaderThrottle`: a follower not in the ISR fetching a partition this
    /// leader's quota throttles, while the quota is exceeded (`exceeded` caches that answer for
    /// the pass).
    fn leader_throttles(
        &self,
        partition: &Partition,
        replica: BrokerId,
        now_ms: i64,
        exceeded: &mut Option<bool>,
    ) -> bool {
        let quota = &self.shared.quotas.leader;
        if !quota.is_throttled(&partition.tp) || partition.has_in_sync(replica) {
            return false;
        }
        *exceeded.get_or_insert_with(|| quota.is_exceeded(now_ms))
    }

    /// Records on the leader's quota the bytes sent of every throttled partition, in sync or not
    /// (Kafka's `sizeOfThrottledPartitions`, counting record bytes).
    fn record_throttled(&self, responses: &[FetchableTopicResponse], version: i16) {
        let quota = &self.shared.quotas.leader;
        if !quota.throttles_any() {
            return;
        }
        let mut bytes = 0u64;
        for topic in responses {
            let name = if version >= TOPIC_ID_VERSION {
                self.shared.topic_name(topic.topic_id)
            } else {
                Some(topic.topic.clone())
            };
            let Some(name) = name else { continue };
            for data in &topic.partitions {
                let len = data.records.as_ref().map_or(0, |r| r.len() as u64);
                if len > 0 && quota.is_throttled(&TopicPartition::new(name.clone(), data.partition_index)) {
                    bytes += len;
                }
            }
        }
        quota.record(bytes, self.shared.clock.now_ms());
    }

    fn replica_fetch_pass(
        &self,
        request: &FetchRequest,
        version: i16,
        replica: BrokerId,
        broker_epoch: i64,
        update: bool,
        watch: &mut FetchWatch,
    ) -> Pass {
        let now_ms = self.shared.clock.now_ms();
        let brokers = self.shared.brokers();
        let mut budget = u64::try_from(request.max_bytes).unwrap_or(0);
        let mut pass = Pass { responses: Vec::with_capacity(request.topics.len()), bytes: 0, urgent: false };
        // Whether the leader's replication quota is exceeded, looked at once a pass if needed.
        let mut exceeded = None;
        for topic in &request.topics {
            let name = if version >= TOPIC_ID_VERSION {
                self.shared.topic_name(topic.topic_id)
            } else {
                Some(topic.topic.clone())
            };
            let mut partitions = Vec::with_capacity(topic.partitions.len());
            for wanted in &topic.partitions {
                let found = name
                    .as_ref()
                    .and_then(|name| self.shared.partition(&TopicPartition::new(name.clone(), wanted.partition)).ok())
                    .filter(|p| version < TOPIC_ID_VERSION || p.topic_id().is_ok_and(|id| id == topic.topic_id));
                let data = match found {
                    None if version >= TOPIC_ID_VERSION => failed(wanted.partition, ErrorCode::UnknownTopicId),
                    None => failed(wanted.partition, ErrorCode::UnknownTopicOrPartition),
                    Some(partition) => {
                        watch.add(partition.subscribe());
                        let limit = u64::try_from(wanted.partition_max_bytes).unwrap_or(0).min(budget);
                        // KIP-74: only the first partition with data may pass the limits, by its
                        // first batch. A throttled one reads nothing, its progress still counts.
                        let (limit, first_batch) = if self.leader_throttles(&partition, replica, now_ms, &mut exceeded)
                        {
                            (0, FirstBatch::Limited)
                        } else if pass.bytes == 0 {
                            (limit.max(1), FirstBatch::Whole)
                        } else {
                            (limit, FirstBatch::Limited)
                        };
                        let fetch = follower_fetch(wanted, replica, broker_epoch, limit);
                        let data = self.serve(&partition, &fetch, now_ms, update, &brokers, version, first_batch);
                        let len = data.records.as_ref().map_or(0, |r| r.len() as u64);
                        budget = budget.saturating_sub(len);
                        pass.bytes += len;
                        data
                    }
                };
                let error = data.error_code != 0 && !leader_behind_follower(data.error_code);
                pass.urgent |= error || data.diverging_epoch.epoch >= 0;
                partitions.push(data);
            }
            pass.responses.push(FetchableTopicResponse {
                topic: if version >= TOPIC_ID_VERSION { String::new() } else { topic.topic.clone() },
                topic_id: if version >= TOPIC_ID_VERSION { topic.topic_id } else { Uuid::ZERO },
                partitions,
                ..Default::default()
            });
        }
        pass
    }

    /// One partition of a replica fetch, as the response's partition data.
    #[allow(clippy::too_many_arguments)]
    fn serve(
        &self,
        partition: &std::sync::Arc<Partition>,
        fetch: &FollowerFetch,
        now_ms: i64,
        update: bool,
        brokers: &BrokerStatuses,
        version: i16,
        first_batch: FirstBatch,
    ) -> PartitionData {
        let index = partition.tp.partition;
        match partition.fetch_for_follower(fetch, now_ms, update, brokers) {
            Ok((read, item)) => {
                if let Some(item) = item {
                    self.shared.submit_alter_partition(partition.clone(), item);
                }
                let Some(records) = file_records(first_batch.apply(read.records, fetch.max_bytes)) else {
                    return failed(index, ErrorCode::KafkaStorageError);
                };
                PartitionData {
                    partition_index: index,
                    high_watermark: read.high_watermark,
                    last_stable_offset: read.last_stable_offset,
                    log_start_offset: read.log_start_offset,
                    diverging_epoch: read
                        .diverging_epoch
                        .map(|(epoch, end_offset)| EpochEndOffset { epoch, end_offset, ..Default::default() })
                        .unwrap_or_default(),
                    records: Some(records),
                    ..Default::default()
                }
            }
            Err(error) => {
                let code = error.code();
                let mut data = failed(index, code);
                if code == ErrorCode::OffsetOutOfRange
                    && let Ok(offsets) = partition.offsets()
                {
                    data.high_watermark = offsets.high_watermark;
                    data.last_stable_offset = offsets.last_stable_offset;
                    data.log_start_offset = offsets.log_start_offset;
                }
                if version >= FLEXIBLE_VERSION
                    && matches!(code, ErrorCode::NotLeaderOrFollower | ErrorCode::FencedLeaderEpoch)
                    && let Some((leader_id, leader_epoch)) = partition.leader_and_epoch()
                {
                    data.current_leader = LeaderIdAndEpoch { leader_id, leader_epoch, ..Default::default() };
                }
                data
            }
        }
    }
}

fn follower_fetch(wanted: &FetchPartition, replica: BrokerId, broker_epoch: i64, max_bytes: u64) -> FollowerFetch {
    FollowerFetch {
        replica_id: replica,
        broker_epoch,
        current_leader_epoch: wanted.current_leader_epoch,
        fetch_offset: wanted.fetch_offset,
        last_fetched_epoch: wanted.last_fetched_epoch,
        log_start_offset: wanted.log_start_offset,
        max_bytes,
    }
}

/// A Fetch partition answering `code` alone (offsets unknown, no records), as Kafka answers an
/// error; for consumers' and followers' fetches alike.
pub fn failed(index: i32, code: ErrorCode) -> PartitionData {
    PartitionData {
        partition_index: index,
        error_code: code.code(),
        high_watermark: -1,
        last_stable_offset: -1,
        log_start_offset: -1,
        records: Some(Records::default()),
        ..Default::default()
    }
}

/// A read's bytes as a region of their segment file: the connection sends them with `sendfile`,
/// never copying them through user space (design §4). `None` if the slice is longer than a record
/// set can be, which a segment (at most `segment.bytes`, an int) never is.
pub fn file_records(slice: Option<SegmentSlice>) -> Option<Records> {
    Some(match slice {
        Some(slice) => Records::File(FileRegion {
            file: slice.file,
            position: slice.position,
            len: u32::try_from(slice.len).ok().filter(|len| i32::try_from(*len).is_ok())?,
        }),
        None => Records::default(),
    })
}
