//! Fetch from consumers: per partition, batches from the fetch offset up to the partition's and
//! the request's byte limits, never past the high watermark (or the last stable offset under
//! read_committed). KIP-74: the first partition that returns data returns its first batch whole
//! even past both limits; every later partition stays within them (a batch cut at the limit is
//! dropped by the client), so a response holds at most `max_bytes` or that one batch. When fewer
//! than `min_bytes` are there, the request waits up to `max_wait_ms` for a change of one of the
//! partitions it reads (an append elsewhere does not wake it).
//!
//! Fetch sessions (KIP-227, v7+), by `session_id` and `session_epoch`:
//! - epoch -1 (final): a full fetch without a session; a named session is closed first.
//! - epoch 0 (initial): a full fetch that opens a session holding the requested partitions (a
//!   named session is closed first); answered with session id 0 when the cache has no slot.
//! - epoch > 0: an incremental fetch on a cached session at that epoch: the request's partitions
//!   are added or updated, its forgotten ones dropped, every partition of the session is read, and
//!   only those with something new (records, an error, a moved high watermark, log start or last
//!   stable offset) are answered. With nothing new it waits like any fetch. A request that
//!   forgets the session's last partitions closes it and is answered sessionless.
//!
//! A consumer needs READ on each topic (TOPIC_AUTHORIZATION_FAILED, asked before the topic is
//! looked up). A fetch from a broker (replica id 0 or more: `replica_state` from v15, `replica_id`
//! before) is a follower's, allowed only with CLUSTER_ACTION on the cluster (every partition
//! TOPIC_AUTHORIZATION_FAILED otherwise, as Kafka answers): it goes whole to `ReplicaManager::replica_fetch`, which reads to the log end,
//! checks the follower's leader and broker epochs, answers diverging epochs and records the
//! follower's progress (`strand_replication`'s `leader.rs`).
//!
//! KIP-392, as Kafka's `KafkaApis` and `ReplicaManager` serve it: a consumer's fetch from v11 on
//! (which carries the client's `rack_id`) may be served by a follower, up to that follower's high
//! watermark (an offset between it and the follower's log end reads nothing; one past the log
//! end is OFFSET_OUT_OF_RANGE, after which the client goes back to the leader); before v11 a
//! follower answers NOT_LEADER_OR_FOLLOWER. With `replica.selector.class` set, the leader answers
//! a partition it would rather have read elsewhere (`replica_selector.rs`) with that replica in
//! `preferred_read_replica`, its offsets and no records, and the fetch is answered at once.
//! A consumer's `current_leader_epoch` (v9+, negative: unchecked) is checked first against this
//! replica's leader epoch (KIP-320): older is FENCED_LEADER_EPOCH, newer UNKNOWN_LEADER_EPOCH.
//!
//! KIP-951 (v16+): a partition answered NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH carries its
//! current leader and epoch in `current_leader`, and the response those leaders' endpoints on the
//! client's listener in `node_endpoints`, so the client retries at the new leader at once.

use std::collections::BTreeSet;
use std::time::Duration;

use strand_base::{BrokerId, ProducerId, TopicPartition, Uuid};
use strand_metadata::image::MetadataImage;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::fetch_request::FetchTopic;
use strand_protocol::messages::fetch_response::{
    AbortedTransaction, FetchableTopicResponse, LeaderIdAndEpoch, NodeEndpoint, PartitionData,
};
use strand_protocol::messages::{FetchRequest, FetchResponse};
use strand_replication::{
    DelayedFetch, FetchWatch, FirstBatch, Isolation, ReadFrom, ReplicaError, failed_fetch_partition, fetch_replica,
    file_records,
};

use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use crate::fetch_session::{
    CachedPartition, FINAL_EPOCH, FetchSessionCache, INITIAL_EPOCH, PartitionAnswer, SESSIONLESS_ID, SessionChanges,
    SessionError, SessionPartition, random_session_id,
};
use crate::replica_selector::preferred_read_replica;
use crate::{Broker, LeaderHints};

/// The longest a fetch may wait for data, whatever the client asks.
const FETCH_WAIT_MS_MAX: i32 = 30_000;
/// The first Fetch version with sessions.
const SESSION_VERSION_MIN: i16 = 7;

/// How a fetch relates to a session, decided before reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    /// Answer everything; no session is kept.
    Sessionless,
    /// Answer everything, then open a session holding the partitions read.
    Full,
    /// Answer what changed in session `id`.
    Incremental(i32),
}

/// Answers one Fetch: settles its session, reads until `min_bytes` or the wait runs out, then
/// answers as the session context says.
pub async fn handle(broker: &Broker, request: FetchRequest, version: i16, session: &Session) -> FetchResponse {
    let mut response = if fetch_replica(&request, version).0.0 >= 0 {
        // Only brokers may fetch as followers: a follower's fetch moves the high watermark.
        if !broker.authorize_cluster(session, AclOperation::ClusterAction) {
            return refused(&request, version, ErrorCode::TopicAuthorizationFailed);
        }
        broker.replicas.replica_fetch(request, version).await
    } else {
        consumer_fetch(broker, request, version, session).await
    };
    if version >= LEADER_HINTS_VERSION_MIN {
        response.node_endpoints = leader_hints(broker, &session.listener, &mut response.responses);
    }
    response
}

/// The first version whose response carries the endpoints of the leaders it names (KIP-951).
const LEADER_HINTS_VERSION_MIN: i16 = 16;

/// Every requested partition answering `code`, sessionless (Kafka's answer to a follower
/// without CLUSTER_ACTION).
fn refused(request: &FetchRequest, version: i16, code: ErrorCode) -> FetchResponse {
    let responses = request
        .topics
        .iter()
        .map(|topic| {
            let partitions = topic.partitions.iter().map(|p| failed_fetch_partition(p.partition, code)).collect();
            topic_response(topic, version, partitions)
        })
        .collect();
    FetchResponse { responses, ..Default::default() }
}

/// Fills `current_leader` of every partition answered NOT_LEADER_OR_FOLLOWER or
/// FENCED_LEADER_EPOCH (Kafka's `KafkaApis.handleFetchRequest`, for consumers and followers
/// alike); returns the endpoints of the leaders named, on the client's `listener`.
fn leader_hints(broker: &Broker, listener: &str, responses: &mut [FetchableTopicResponse]) -> Vec<NodeEndpoint> {
    let refused = [ErrorCode::NotLeaderOrFollower.code(), ErrorCode::FencedLeaderEpoch.code()];
    let mut hints = LeaderHints::new(broker, listener);
    for topic in responses {
        let name = if topic.topic.is_empty() { hints.topic_name(topic.topic_id) } else { Some(topic.topic.clone()) };
        for partition in &mut topic.partitions {
            if !refused.contains(&partition.error_code) {
                continue;
            }
            let (leader_id, leader_epoch) = match &name {
                Some(name) => hints.leader_of(&TopicPartition::new(name.clone(), partition.partition_index)),
                None => (BrokerId::NONE, -1),
            };
            partition.current_leader = LeaderIdAndEpoch { leader_id, leader_epoch, ..Default::default() };
        }
    }
    hints
        .endpoints()
        .map(|e| NodeEndpoint { node_id: e.node_id, host: e.host, port: e.port, rack: e.rack, ..Default::default() })
        .collect()
}

/// A consumer's fetch (see the module doc).
async fn consumer_fetch(broker: &Broker, mut request: FetchRequest, version: i16, session: &Session) -> FetchResponse {
    let (context, topics) = match open(broker, &mut request, version) {
        Ok(opened) => opened,
        Err(error) => return FetchResponse { error_code: error.code().code(), ..Default::default() },
    };
    let readable = readable_topics(broker, &topics, version, session);
    let wait = Duration::from_millis(request.max_wait_ms.clamp(0, FETCH_WAIT_MS_MAX) as u64);
    let reader = Reader { broker, request: &request, version, readable: &readable, listener: &session.listener };
    let responses = DelayedFetch::new(wait)
        .run(|watch| {
            let (responses, bytes) = reader.read_all(&topics, watch);
            // Kafka answers at once an error, or a partition sent to another replica.
            let answered_now = responses
                .iter()
                .flat_map(|t| &t.partitions)
                .any(|p| p.error_code != 0 || p.preferred_read_replica.0 >= 0);
            let complete = bytes >= request.min_bytes.max(0) as usize || answered_now || topics.is_empty();
            (responses, complete)
        })
        .await;
    let response = close(broker, context, &topics, responses, version);
    record_bytes_out(broker, &response);
    response
}

/// Kafka's bytes out: the record bytes a consumer's response carries, by topic.
fn record_bytes_out(broker: &Broker, response: &FetchResponse) {
    let mut image = None;
    for topic in &response.responses {
        let bytes: usize = topic.partitions.iter().filter_map(|p| p.records.as_ref()).map(|r| r.len()).sum();
        if bytes == 0 {
            continue;
        }
        if !topic.topic.is_empty() {
            broker.metrics.topics.record_out(&topic.topic, bytes as u64);
            continue;
        }
        let image = image.get_or_insert_with(|| broker.image());
        if let Some(found) = image.topics().by_id(topic.topic_id) {
            broker.metrics.topics.record_out(&found.name, bytes as u64);
        }
    }
}

/// The topics among `topics` the consumer may READ, asked once per fetch (not per pass of the
/// wait); topics unknown by id are not asked about (they answer UNKNOWN_TOPIC_ID).
fn readable_topics(broker: &Broker, topics: &[FetchTopic], version: i16, session: &Session) -> BTreeSet<String> {
    let image = broker.image();
    let names = topics.iter().filter_map(|topic| {
        if version >= 13 { image.topics().by_id(topic.topic_id).map(|t| &*t.name) } else { Some(&*topic.topic) }
    });
    broker.authorized_names(session, AclOperation::Read, ResourceType::Topic, names)
}

/// Decides the fetch's context from its session id and epoch, applying an incremental request to
/// its session; returns the context and the partitions to read.
fn open(broker: &Broker, request: &mut FetchRequest, version: i16) -> Result<(Context, Vec<FetchTopic>), SessionError> {
    let topics = std::mem::take(&mut request.topics);
    if version < SESSION_VERSION_MIN {
        return Ok((Context::Sessionless, topics));
    }
    let cache = sessions(broker);
    if request.session_epoch == FINAL_EPOCH || request.session_epoch == INITIAL_EPOCH {
        if request.session_id != SESSIONLESS_ID {
            cache.remove(request.session_id);
        }
        let context = if request.session_epoch == FINAL_EPOCH { Context::Sessionless } else { Context::Full };
        return Ok((context, topics));
    }
    let changes =
        SessionChanges { upserts: session_partitions(topics, version), forgotten: forgotten(request, version) };
    let now_ms = now_ms(broker);
    match cache.begin_incremental(request.session_id, request.session_epoch, version >= 13, changes, now_ms) {
        Ok(partitions) => Ok((Context::Incremental(request.session_id), fetch_topics(partitions))),
        Err(SessionError::Emptied) => Ok((Context::Sessionless, Vec::new())),
        Err(error) => Err(error),
    }
}

/// Builds the response for `context`: opens the session of a full fetch, or leaves out of an
/// incremental one the partitions with nothing new.
fn close(
    broker: &Broker,
    context: Context,
    topics: &[FetchTopic],
    mut responses: Vec<FetchableTopicResponse>,
    version: i16,
) -> FetchResponse {
    let answers = answers(topics, &responses);
    let session_id = match context {
        Context::Sessionless => SESSIONLESS_ID,
        Context::Full => {
            let partitions =
                session_partitions(topics.to_vec(), version).into_iter().zip(answers.into_iter().map(|(_, a)| a));
            let now_ms = now_ms(broker);
            let created = sessions(broker).create(partitions.collect(), version >= 13, now_ms, &mut random_session_id);
            created.unwrap_or(SESSIONLESS_ID)
        }
        Context::Incremental(id) => {
            let mut include = sessions(broker).finish_incremental(id, &answers).into_iter();
            for topic in &mut responses {
                topic.partitions.retain(|_| include.next().unwrap_or(true));
            }
            responses.retain(|t| !t.partitions.is_empty());
            id
        }
    };
    FetchResponse { session_id, responses, ..Default::default() }
}

fn sessions(broker: &Broker) -> &FetchSessionCache {
    &broker.fetch_sessions
}

fn now_ms(broker: &Broker) -> i64 {
    i64::try_from(broker.clock.monotonic_ns() / 1_000_000).unwrap_or(i64::MAX)
}

/// The request's partitions as a session holds them, keyed by topic id (v13+) or name.
fn session_partitions(topics: Vec<FetchTopic>, version: i16) -> Vec<CachedPartition> {
    topics
        .into_iter()
        .flat_map(|topic| {
            let (topic_id, name) =
                if version >= 13 { (topic.topic_id, String::new()) } else { (Uuid::ZERO, topic.topic) };
            topic.partitions.into_iter().map(move |request| {
                let key = SessionPartition { topic_id, topic: name.clone(), partition: request.partition };
                CachedPartition::new(key, request)
            })
        })
        .collect()
}

fn forgotten(request: &FetchRequest, version: i16) -> Vec<SessionPartition> {
    let mut keys = Vec::new();
    for topic in &request.forgotten_topics_data {
        let (topic_id, name) =
            if version >= 13 { (topic.topic_id, String::new()) } else { (Uuid::ZERO, topic.topic.clone()) };
        for &partition in &topic.partitions {
            keys.push(SessionPartition { topic_id, topic: name.clone(), partition });
        }
    }
    keys
}

/// A session's partitions as request topics, consecutive partitions of one topic grouped.
fn fetch_topics(partitions: Vec<CachedPartition>) -> Vec<FetchTopic> {
    let mut topics: Vec<FetchTopic> = Vec::new();
    for cached in partitions {
        match topics.last_mut() {
            Some(last) if last.topic_id == cached.key.topic_id && last.topic == cached.key.topic => {
                last.partitions.push(cached.request);
            }
            _ => topics.push(FetchTopic {
                topic: cached.key.topic,
                topic_id: cached.key.topic_id,
                partitions: vec![cached.request],
                ..Default::default()
            }),
        }
    }
    topics
}

/// What the responses say about each partition read, in reading order.
fn answers(topics: &[FetchTopic], responses: &[FetchableTopicResponse]) -> Vec<(SessionPartition, PartitionAnswer)> {
    let mut answers = Vec::new();
    for (topic, response) in topics.iter().zip(responses) {
        for (partition, data) in topic.partitions.iter().zip(&response.partitions) {
            let key = SessionPartition {
                topic_id: topic.topic_id,
                topic: topic.topic.clone(),
                partition: partition.partition,
            };
            let answer = PartitionAnswer {
                has_records: data.records.as_ref().is_some_and(|r| !r.is_empty()),
                redirected: data.preferred_read_replica.0 >= 0,
                error_code: data.error_code,
                high_watermark: data.high_watermark,
                log_start_offset: data.log_start_offset,
                last_stable_offset: data.last_stable_offset,
            };
            answers.push((key, answer));
        }
    }
    answers
}

/// What every pass of a consumer's fetch reads with.
struct Reader<'a> {
    broker: &'a Broker,
    request: &'a FetchRequest,
    version: i16,
    /// The topics the consumer may READ.
    readable: &'a BTreeSet<String>,
    /// The listener the consumer came through: a preferred read replica must be reachable on it.
    listener: &'a str,
}

impl Reader<'_> {
    /// One pass over every requested partition; returns the responses and the record bytes read.
    /// Each partition read is added to `watch` first.
    fn read_all(&self, topics: &[FetchTopic], watch: &mut FetchWatch) -> (Vec<FetchableTopicResponse>, usize) {
        let Reader { broker, request, version, readable, .. } = *self;
        let image = broker.image();
        // Kafka's `FetchParams.fetchOnlyLeader`: a consumer's fetch without client metadata (v11+).
        let from = if version >= CLIENT_METADATA_VERSION_MIN { ReadFrom::AnyReplica } else { ReadFrom::Leader };
        let isolation =
            if request.isolation_level == 1 { Isolation::ReadCommitted } else { Isolation::ReadUncommitted };
        // Kafka: the request's max_bytes capped by `fetch.max.bytes`.
        let mut budget = request.max_bytes.clamp(0, broker.settings.fetch_max_bytes.max(0)) as u64;
        let mut total = 0usize;
        let mut responses = Vec::with_capacity(topics.len());
        for topic in topics {
            let found =
                if version >= 13 { image.topics().by_id(topic.topic_id) } else { image.topics().by_name(&topic.topic) };
            let unknown = if version >= 13 { ErrorCode::UnknownTopicId } else { ErrorCode::UnknownTopicOrPartition };
            let name = if version >= 13 { found.map(|t| &*t.name) } else { Some(&*topic.topic) };
            // Kafka: READ is asked before existence, so a denied name never reveals whether it exists.
            let denied = name.is_some_and(|name| !readable.contains(name));
            let mut partitions = Vec::with_capacity(topic.partitions.len());
            for partition in &topic.partitions {
                let tp = found
                    .filter(|t| t.partitions.contains_key(&partition.partition))
                    .map(|t| TopicPartition::new(t.name.clone(), partition.partition));
                // The leader epoch the consumer knows, checked against this replica's (KIP-320).
                let current_leader_epoch =
                    (partition.current_leader_epoch >= 0).then_some(partition.current_leader_epoch);
                let checked = match &tp {
                    _ if denied => Err(ErrorCode::TopicAuthorizationFailed),
                    None if found.is_none() => Err(unknown),
                    None => Err(ErrorCode::UnknownTopicOrPartition),
                    Some(tp) => broker
                        .check_replica(&image, tp, current_leader_epoch, from == ReadFrom::Leader)
                        .and_then(|_| zstd_readable(broker, &image, version, tp))
                        .map(|_| tp),
                };
                let data = match checked {
                    Err(code) => failed_fetch_partition(partition.partition, code),
                    Ok(tp) if let Some(replica) = self.preferred_replica(&image, tp, partition.fetch_offset) => {
                        redirected(broker, tp, partition.partition, replica)
                    }
                    Ok(tp) => {
                        // KIP-74: the first partition with data may pass both limits by its first
                        // batch; every later one stays within them.
                        let limit = (partition.partition_max_bytes.max(0) as u64).min(budget);
                        let first_batch = if total == 0 { FirstBatch::Whole } else { FirstBatch::Limited };
                        if let Some(receiver) = broker.replicas.subscribe_partition(tp) {
                            watch.add(receiver);
                        }
                        match broker.replicas.read_limited(
                            tp,
                            partition.fetch_offset,
                            limit,
                            isolation,
                            first_batch,
                            from,
                        ) {
                            Ok(read) => {
                                let len = read.len();
                                let Some(records) = file_records(read.records) else {
                                    partitions.push(failed_fetch_partition(
                                        partition.partition,
                                        ErrorCode::KafkaStorageError,
                                    ));
                                    continue;
                                };
                                budget = budget.saturating_sub(len);
                                total += len as usize;
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
                                    records: Some(records),
                                    ..Default::default()
                                }
                            }
                            Err(ReplicaError::Log(strand_log::LogError::OffsetOutOfRange { .. })) => {
                                out_of_range(broker, tp, partition.partition)
                            }
                            Err(e) => failed_fetch_partition(partition.partition, e.code()),
                        }
                    }
                };
                partitions.push(data);
            }
            responses.push(topic_response(topic, version, partitions));
        }
        (responses, total)
    }

    /// The replica the leader would have this consumer read `tp` from instead (KIP-392), if any.
    fn preferred_replica(&self, image: &MetadataImage, tp: &TopicPartition, fetch_offset: i64) -> Option<BrokerId> {
        if self.version < CLIENT_METADATA_VERSION_MIN {
            return None;
        }
        preferred_read_replica(self.broker, image, tp, &self.request.rack_id, self.listener, fetch_offset)
    }
}

/// The first Fetch version carrying the client's rack (KIP-392's client metadata).
const CLIENT_METADATA_VERSION_MIN: i16 = 11;

/// The first Fetch version whose clients read zstd (KIP-110).
const ZSTD_VERSION_MIN: i16 = 10;

/// Kafka's `KafkaApis.maybeConvertFetchedData`: a fetch below v10 from a topic whose
/// `compression.type` is zstd gets UNSUPPORTED_COMPRESSION_TYPE and no records, whatever its
/// batches hold, since its client could not read what the topic stores.
fn zstd_readable(broker: &Broker, image: &MetadataImage, version: i16, tp: &TopicPartition) -> Result<(), ErrorCode> {
    if version >= ZSTD_VERSION_MIN {
        return Ok(());
    }
    let configs = broker.topic_configs(image);
    let zstd = configs.topic(&tp.topic).get("compression.type").is_some_and(|(codec, _)| codec.trim() == "zstd");
    if zstd { Err(ErrorCode::UnsupportedCompressionType) } else { Ok(()) }
}

/// A partition the leader sends to `replica`: its offsets, no records (Kafka's
/// `ReplicaManager.readFromLog` skips the read).
fn redirected(broker: &Broker, tp: &TopicPartition, index: i32, replica: BrokerId) -> PartitionData {
    let mut data = failed_fetch_partition(index, ErrorCode::None);
    data.preferred_read_replica = replica;
    if let Ok(offsets) = broker.replicas.offsets(tp) {
        data.high_watermark = offsets.high_watermark;
        data.last_stable_offset = offsets.last_stable_offset;
        data.log_start_offset = offsets.log_start_offset;
    }
    data
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
    let mut data = failed_fetch_partition(index, ErrorCode::OffsetOutOfRange);
    if let Ok(offsets) = broker.replicas.offsets(tp) {
        data.high_watermark = offsets.high_watermark;
        data.last_stable_offset = offsets.last_stable_offset;
        data.log_start_offset = offsets.log_start_offset;
    }
    data
}
