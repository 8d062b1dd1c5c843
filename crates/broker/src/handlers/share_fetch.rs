//! ShareFetch and ShareAcknowledge (KIP-932, KIP-1222): share consumers fetch records from the
//! partition leader, which acquires them for the member in its share-partition for the group
//! (`strand_coordinator::share::SharePartition`), and acknowledge them there, piggybacked on the
//! next ShareFetch or in a ShareAcknowledge.
//!
//! Per request, in Kafka's order: `share.version` below 1 is UNSUPPORTED_VERSION; a missing group
//! or member id INVALID_REQUEST; READ on the group (GROUP_AUTHORIZATION_FAILED) for the request,
//! READ on each topic (TOPIC_AUTHORIZATION_FAILED) per partition. Then the share session
//! (`share::session`): epoch 0 opens one (acknowledgements there are INVALID_REQUEST), -1 closes
//! it and releases the member's acquired records, any other epoch must be the session's next
//! (INVALID_SHARE_SESSION_EPOCH, SHARE_SESSION_NOT_FOUND). Acknowledgements are applied per batch,
//! all or nothing, and answered per partition in `acknowledge_error_code` (ShareAcknowledge's
//! `error_code`): INVALID_RECORD_STATE for a record the member does not hold, INVALID_REQUEST for
//! a malformed batch. A RENEW-only request (`is_renew_ack`) fetches nothing.
//!
//! A partition led elsewhere is NOT_LEADER_OR_FOLLOWER with its current leader and that
//! leader's endpoint on the client's listener (KIP-951), as Kafka answers both APIs.
//!
//! A fetch reads each session partition led here from the share-partition's fetch offset (its
//! first available record, else its end), acquires at most `max_records` records in all (KIP-1206,
//! strictly) and answers the whole batches holding them with the acquired ranges; with nothing
//! acquired it waits up to `max_wait_ms` for an append. A share-partition is loaded from its
//! persisted state, or started at the log's end (`share.auto.offset.reset`'s default, latest),
//! when this leader first needs it (`crate::share::load`); acknowledgements and releases are
//! persisted before they are answered (`crate::share::persist`).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use strand_base::{BrokerId, TopicPartition, Uuid};
use strand_coordinator::share::{
    AckError, FINAL_EPOCH, INITIAL_EPOCH, LogBatch, SessionError, SessionPartition, SharePartition,
};
use strand_protocol::codec::Records;
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::share_acknowledge_response::{
    LeaderIdAndEpoch as AckLeader, NodeEndpoint as AckEndpoint, PartitionData as AckPartitionData,
    ShareAcknowledgeTopicResponse,
};
use strand_protocol::messages::share_fetch_response::{
    AcquiredRecords, LeaderIdAndEpoch as FetchLeader, NodeEndpoint as FetchEndpoint, PartitionData,
    ShareFetchableTopicResponse,
};
use strand_protocol::messages::{
    ShareAcknowledgeRequest, ShareAcknowledgeResponse, ShareFetchRequest, ShareFetchResponse,
};
use strand_replication::{DelayedFetch, FetchWatch, FirstBatch, Isolation, ReadFrom};
use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use super::share_groups::share_groups_enabled;
use crate::Broker;
use crate::leadership::LeaderHints;

/// The longest a share fetch waits for records, whatever the client asks.
const SHARE_FETCH_WAIT_MS_MAX: i32 = 30_000;
/// A record batch's header up to `lastOffsetDelta` included.
const BATCH_HEADER_BYTES: usize = 27;
/// The control flag in a batch's attributes.
const CONTROL_FLAG: i16 = 0x20;

/// One acknowledgement batch of a request: (first offset, last offset, types).
type AckBatch = (i64, i64, Vec<i8>);

/// What a request asks, once checked: its group, member, and acknowledgements by partition.
struct Checked {
    group_id: String,
    member_id: String,
    acks: BTreeMap<SessionPartition, Vec<AckBatch>>,
}

pub(crate) async fn share_fetch(broker: &Broker, request: ShareFetchRequest, session: &Session) -> ShareFetchResponse {
    let refused = |code: ErrorCode| ShareFetchResponse { error_code: code.code(), ..Default::default() };
    let acks = request.topics.iter().flat_map(|t| {
        t.partitions.iter().map(move |p| {
            let batches =
                p.acknowledgement_batches.iter().map(|b| (b.first_offset, b.last_offset, b.acknowledge_types.clone()));
            ((t.topic_id, p.partition_index), batches.collect::<Vec<_>>())
        })
    });
    let checked = match check(broker, &request.group_id, &request.member_id, acks.collect(), session) {
        Ok(checked) => checked,
        Err(code) => return refused(code),
    };
    let requested: BTreeSet<SessionPartition> =
        request.topics.iter().flat_map(|t| t.partitions.iter().map(move |p| (t.topic_id, p.partition_index))).collect();
    let forgotten: BTreeSet<SessionPartition> =
        request.forgotten_topics_data.iter().flat_map(|t| t.partitions.iter().map(move |&p| (t.topic_id, p))).collect();
    let epoch = request.share_session_epoch;
    let has_acks = checked.acks.values().any(|b| !b.is_empty());
    let now_ms = broker.clock.now_ms();
    let sessions = {
        let mut sessions = broker.share.sessions();
        match epoch {
            INITIAL_EPOCH if has_acks => return refused(ErrorCode::InvalidRequest),
            INITIAL_EPOCH => {
                sessions.open(&checked.group_id, &checked.member_id, requested.clone(), now_ms).map(|()| requested)
            }
            FINAL_EPOCH => sessions.close(&checked.group_id, &checked.member_id),
            _ => sessions.advance(&checked.group_id, &checked.member_id, epoch, &requested, &forgotten, now_ms),
        }
    };
    let partitions = match sessions {
        Ok(partitions) => partitions,
        Err(error) => return refused(session_error(error)),
    };
    let ack_codes = acknowledge(broker, &checked, session).await;
    let mut answers: BTreeMap<SessionPartition, PartitionData> = ack_codes
        .iter()
        .map(|(&key, &code)| {
            (key, PartitionData { partition_index: key.1, acknowledge_error_code: code.code(), ..Default::default() })
        })
        .collect();
    if epoch == FINAL_EPOCH {
        release(broker, &checked, &partitions).await;
    } else if !request.is_renew_ack {
        let fetched = fetch(broker, &checked, &request, &partitions, session).await;
        // Records whose lock ran out at the delivery limit go to the dead-letter topic.
        drain_dead_letters(broker, &checked.group_id, &partitions, session).await;
        for (key, mut data) in fetched {
            if let Some(acked) = answers.get(&key) {
                data.acknowledge_error_code = acked.acknowledge_error_code;
            }
            answers.insert(key, data);
        }
    }
    let mut hints = LeaderHints::new(broker, &session.listener);
    for (key, data) in &mut answers {
        if data.error_code == ErrorCode::NotLeaderOrFollower.code() {
            let (leader_id, leader_epoch) = hint(&mut hints, *key);
            data.current_leader = FetchLeader { leader_id: leader_id.0, leader_epoch, ..Default::default() };
        }
    }
    ShareFetchResponse {
        acquisition_lock_timeout_ms: broker.share.settings.record_lock_duration_ms,
        node_endpoints: hints
            .endpoints()
            .map(|e| FetchEndpoint {
                node_id: e.node_id,
                host: e.host,
                port: e.port,
                rack: e.rack,
                ..Default::default()
            })
            .collect(),
        responses: group_by_topic(answers, |topic_id, partitions| ShareFetchableTopicResponse {
            topic_id,
            partitions,
            ..Default::default()
        }),
        ..Default::default()
    }
}

pub(crate) async fn share_acknowledge(
    broker: &Broker,
    request: ShareAcknowledgeRequest,
    session: &Session,
) -> ShareAcknowledgeResponse {
    let refused = |code: ErrorCode| ShareAcknowledgeResponse { error_code: code.code(), ..Default::default() };
    let acks = request.topics.iter().flat_map(|t| {
        t.partitions.iter().map(move |p| {
            let batches =
                p.acknowledgement_batches.iter().map(|b| (b.first_offset, b.last_offset, b.acknowledge_types.clone()));
            ((t.topic_id, p.partition_index), batches.collect::<Vec<_>>())
        })
    });
    let checked = match check(broker, &request.group_id, &request.member_id, acks.collect(), session) {
        Ok(checked) => checked,
        Err(code) => return refused(code),
    };
    let epoch = request.share_session_epoch;
    let none = BTreeSet::new();
    let now_ms = broker.clock.now_ms();
    let sessions = {
        let mut sessions = broker.share.sessions();
        match epoch {
            INITIAL_EPOCH => Err(SessionError::InvalidEpoch),
            FINAL_EPOCH => sessions.close(&checked.group_id, &checked.member_id),
            _ => sessions.advance(&checked.group_id, &checked.member_id, epoch, &none, &none, now_ms),
        }
    };
    let partitions = match sessions {
        Ok(partitions) => partitions,
        Err(error) => return refused(session_error(error)),
    };
    let codes = acknowledge(broker, &checked, session).await;
    if epoch == FINAL_EPOCH {
        release(broker, &checked, &partitions).await;
    }
    let mut hints = LeaderHints::new(broker, &session.listener);
    let answers: BTreeMap<SessionPartition, AckPartitionData> = codes
        .into_iter()
        .map(|(key, code)| {
            let mut data = AckPartitionData { partition_index: key.1, error_code: code.code(), ..Default::default() };
            if code == ErrorCode::NotLeaderOrFollower {
                let (leader_id, leader_epoch) = hint(&mut hints, key);
                data.current_leader = AckLeader { leader_id: leader_id.0, leader_epoch, ..Default::default() };
            }
            (key, data)
        })
        .collect();
    ShareAcknowledgeResponse {
        acquisition_lock_timeout_ms: broker.share.settings.record_lock_duration_ms,
        node_endpoints: hints
            .endpoints()
            .map(|e| AckEndpoint { node_id: e.node_id, host: e.host, port: e.port, rack: e.rack, ..Default::default() })
            .collect(),
        responses: group_by_topic(answers, |topic_id, partitions| ShareAcknowledgeTopicResponse {
            topic_id,
            partitions,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The request-level checks both APIs share.
fn check(
    broker: &Broker,
    group_id: &Option<String>,
    member_id: &Option<String>,
    acks: BTreeMap<SessionPartition, Vec<AckBatch>>,
    session: &Session,
) -> Result<Checked, ErrorCode> {
    if !share_groups_enabled(broker) {
        return Err(ErrorCode::UnsupportedVersion);
    }
    let (Some(group_id), Some(member_id)) =
        (group_id.clone().filter(|g| !g.is_empty()), member_id.clone().filter(|m| !m.is_empty()))
    else {
        return Err(ErrorCode::InvalidRequest);
    };
    if !broker.authorize(session, AclOperation::Read, ResourceType::Group, &group_id) {
        return Err(ErrorCode::GroupAuthorizationFailed);
    }
    Ok(Checked { group_id, member_id, acks })
}

/// The current leader of a partition answered NOT_LEADER_OR_FOLLOWER (KIP-951), its endpoint
/// noted in `hints`.
fn hint(hints: &mut LeaderHints<'_>, key: SessionPartition) -> (BrokerId, i32) {
    match hints.topic_name(key.0) {
        Some(name) => hints.leader_of(&TopicPartition::new(name, key.1)),
        None => (BrokerId::NONE, -1),
    }
}

fn session_error(error: SessionError) -> ErrorCode {
    match error {
        SessionError::NotFound => ErrorCode::ShareSessionNotFound,
        SessionError::InvalidEpoch => ErrorCode::InvalidShareSessionEpoch,
        SessionError::LimitReached => ErrorCode::ShareSessionLimitReached,
    }
}

/// Where a partition of a request is, or why it cannot be served here.
fn locate(broker: &Broker, key: SessionPartition, session: &Session) -> Result<TopicPartition, ErrorCode> {
    let image = broker.image();
    let Some(topic) = image.topics().by_id(key.0) else { return Err(ErrorCode::UnknownTopicId) };
    if !broker.authorize(session, AclOperation::Read, ResourceType::Topic, &topic.name) {
        return Err(ErrorCode::TopicAuthorizationFailed);
    }
    if !topic.partitions.contains_key(&key.1) {
        return Err(ErrorCode::UnknownTopicOrPartition);
    }
    let tp = TopicPartition::new(topic.name.clone(), key.1);
    broker.check_replica(&image, &tp, None, true)?;
    Ok(tp)
}

/// Applies the acknowledgements and persists the share-partitions they changed; returns each
/// acknowledged partition's code.
async fn acknowledge(broker: &Broker, checked: &Checked, session: &Session) -> BTreeMap<SessionPartition, ErrorCode> {
    let mut codes = BTreeMap::new();
    for (&key, batches) in checked.acks.iter().filter(|(_, b)| !b.is_empty()) {
        let code = match locate(broker, key, session) {
            Err(code) => code,
            Ok(tp) => match crate::share::load(broker, &checked.group_id, &tp, key.0).await {
                Err(code) => code,
                Ok(()) => match apply_acks(broker, checked, &tp, batches) {
                    ErrorCode::None => match crate::share::persist(broker, &checked.group_id, &tp, key.0).await {
                        Ok(()) => {
                            crate::share_dlq::drain(broker, &checked.group_id, &tp, key.0).await;
                            ErrorCode::None
                        }
                        Err(code) => code,
                    },
                    code => code,
                },
            },
        };
        codes.insert(key, code);
    }
    codes
}

/// Applies one partition's acknowledgement batches, each all or nothing.
fn apply_acks(broker: &Broker, checked: &Checked, tp: &TopicPartition, batches: &[AckBatch]) -> ErrorCode {
    let now_ms = broker.clock.now_ms();
    let config = broker.share.partition_config(&broker.image(), &checked.group_id);
    let mut partitions = broker.share.partitions();
    let Some(share_partition) = partitions.get_mut(&(checked.group_id.clone(), tp.clone())) else {
        return ErrorCode::InvalidRecordState;
    };
    share_partition.set_config(config);
    batches
        .iter()
        .map(|(first, last, types)| share_partition.acknowledge(&checked.member_id, *first, *last, types, now_ms))
        .find_map(Result::err)
        .map_or(ErrorCode::None, |error| match error {
            AckError::NotAcquired => ErrorCode::InvalidRecordState,
            AckError::Malformed => ErrorCode::InvalidRequest,
        })
}

/// Releases what the member holds on the session's partitions (its session closed), and
/// persists them.
async fn release(broker: &Broker, checked: &Checked, partitions: &BTreeSet<SessionPartition>) {
    let image = broker.image();
    let config = broker.share.partition_config(&image, &checked.group_id);
    let mut released = Vec::new();
    {
        let mut share_partitions = broker.share.partitions();
        for key in partitions {
            let Some(topic) = image.topics().by_id(key.0) else { continue };
            let tp = TopicPartition::new(topic.name.clone(), key.1);
            if let Some(share_partition) = share_partitions.get_mut(&(checked.group_id.clone(), tp.clone())) {
                share_partition.set_config(config);
                share_partition.release_member(&checked.member_id);
                released.push((tp, key.0));
            }
        }
    }
    for (tp, topic_id) in released {
        if let Err(code) = crate::share::persist(broker, &checked.group_id, &tp, topic_id).await {
            tracing::debug!("could not persist {tp} of share group {} after a release: {code:?}", checked.group_id);
        }
        crate::share_dlq::drain(broker, &checked.group_id, &tp, topic_id).await;
    }
}

/// Writes the dead-letter records of the session's share-partitions led here, if any wait.
async fn drain_dead_letters(
    broker: &Broker,
    group_id: &str,
    partitions: &BTreeSet<SessionPartition>,
    session: &Session,
) {
    for &key in partitions {
        if let Ok(tp) = locate(broker, key, session) {
            crate::share_dlq::drain(broker, group_id, &tp, key.0).await;
        }
    }
}

/// Reads and acquires from the session's partitions, waiting for records when none are there.
async fn fetch(
    broker: &Broker,
    checked: &Checked,
    request: &ShareFetchRequest,
    partitions: &BTreeSet<SessionPartition>,
    session: &Session,
) -> BTreeMap<SessionPartition, PartitionData> {
    let wait = Duration::from_millis(request.max_wait_ms.clamp(0, SHARE_FETCH_WAIT_MS_MAX) as u64);
    let max_bytes = request.max_bytes.clamp(0, broker.settings.fetch_max_bytes.max(0)) as u64;
    let max_records = if request.max_records > 0 { i64::from(request.max_records) } else { i64::MAX };
    let mut not_loaded = BTreeMap::new();
    for &key in partitions {
        if let Ok(tp) = locate(broker, key, session)
            && let Err(code) = crate::share::load(broker, &checked.group_id, &tp, key.0).await
        {
            not_loaded.insert(key, code);
        }
    }
    DelayedFetch::new(wait)
        .run(|watch| {
            let mut answers = BTreeMap::new();
            let mut budget = Budget { bytes: max_bytes, records: max_records };
            let mut complete = partitions.is_empty();
            for &key in partitions {
                let data = match locate(broker, key, session) {
                    Err(code) => failed(key.1, code),
                    Ok(_) if let Some(&code) = not_loaded.get(&key) => failed(key.1, code),
                    Ok(tp) => fetch_partition(broker, checked, &tp, key.1, &mut budget, watch),
                };
                complete |= data.error_code != 0 || !data.acquired_records.is_empty();
                answers.insert(key, data);
            }
            (answers, complete)
        })
        .await
}

/// What is left of a fetch's limits.
struct Budget {
    bytes: u64,
    records: i64,
}

/// One partition of a fetch: reads from the share-partition's fetch offset and acquires.
fn fetch_partition(
    broker: &Broker,
    checked: &Checked,
    tp: &TopicPartition,
    index: i32,
    budget: &mut Budget,
    watch: &mut FetchWatch,
) -> PartitionData {
    if let Some(receiver) = broker.replicas.subscribe_partition(tp) {
        watch.add(receiver);
    }
    let offsets = match broker.replicas.offsets(tp) {
        Ok(offsets) => offsets,
        Err(e) => return failed(index, e.code()),
    };
    let now_ms = broker.clock.now_ms();
    let key = (checked.group_id.clone(), tp.clone());
    // The lock is not held while the segment is read: `acquire` takes only what is still free.
    let fetch_offset = {
        let config = broker.share.partition_config(&broker.image(), &checked.group_id);
        let mut share_partitions = broker.share.partitions();
        let share_partition =
            share_partitions.entry(key.clone()).or_insert_with(|| SharePartition::new(config, offsets.high_watermark));
        share_partition.set_config(config);
        share_partition.advance_to_log_start(offsets.log_start_offset);
        share_partition.fetch_offset(now_ms)
    };
    let Some(fetch_offset) = fetch_offset else { return failed(index, ErrorCode::None) };
    if budget.records <= 0 || budget.bytes == 0 || fetch_offset >= offsets.high_watermark {
        return failed(index, ErrorCode::None);
    }
    let read = broker.replicas.read_limited(
        tp,
        fetch_offset,
        budget.bytes,
        Isolation::ReadUncommitted,
        FirstBatch::Whole,
        ReadFrom::Leader,
    );
    let bytes = match read.map(|r| r.records) {
        Ok(None) => return failed(index, ErrorCode::None),
        Ok(Some(slice)) => match strand_log::file::read_range(&slice.file, slice.position, slice.len) {
            Ok(bytes) => bytes,
            Err(e) => {
                tracing::warn!("share fetch of {tp} could not read its segment: {e}");
                return failed(index, ErrorCode::KafkaStorageError);
            }
        },
        Err(e) => return failed(index, e.code()),
    };
    let batches = split_batches(&bytes, offsets.high_watermark);
    let log_batches: Vec<LogBatch> = batches.iter().map(|(batch, _)| *batch).collect();
    let acquired = match broker.share.partitions().get_mut(&key) {
        Some(share_partition) => share_partition.acquire(&checked.member_id, &log_batches, budget.records, now_ms),
        None => Vec::new(),
    };
    let count: i64 = acquired.iter().map(|r| r.last_offset - r.first_offset + 1).sum();
    budget.records -= count;
    let mut records = BytesMut::new();
    for (batch, raw) in &batches {
        if acquired.iter().any(|r| r.first_offset <= batch.last_offset && r.last_offset >= batch.base_offset) {
            records.extend_from_slice(raw);
        }
    }
    budget.bytes = budget.bytes.saturating_sub(records.len() as u64);
    PartitionData {
        partition_index: index,
        records: Some(Records::Bytes(records.freeze())),
        acquired_records: acquired
            .into_iter()
            .map(|r| AcquiredRecords {
                first_offset: r.first_offset,
                last_offset: r.last_offset,
                delivery_count: r.delivery_count,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// The whole batches of `bytes` below `high_watermark` (a batch cut by the read's size limit is
/// left out), each with its bytes.
fn split_batches(bytes: &Bytes, high_watermark: i64) -> Vec<(LogBatch, Bytes)> {
    let mut batches = Vec::new();
    let mut at = 0usize;
    while bytes.len() - at >= BATCH_HEADER_BYTES {
        let header = &bytes[at..at + BATCH_HEADER_BYTES];
        let base_offset = i64::from_be_bytes(header[0..8].try_into().unwrap_or_default());
        let batch_length = i32::from_be_bytes(header[8..12].try_into().unwrap_or_default());
        let attributes = i16::from_be_bytes(header[21..23].try_into().unwrap_or_default());
        let last_offset_delta = i32::from_be_bytes(header[23..27].try_into().unwrap_or_default());
        let Some(end) = usize::try_from(batch_length).ok().and_then(|len| (at + 12).checked_add(len)) else { break };
        let last_offset = base_offset + i64::from(last_offset_delta);
        if end > bytes.len() || last_offset >= high_watermark {
            break;
        }
        let batch = LogBatch { base_offset, last_offset, control: attributes & CONTROL_FLAG != 0 };
        batches.push((batch, bytes.slice(at..end)));
        at = end;
    }
    batches
}

fn failed(index: i32, code: ErrorCode) -> PartitionData {
    PartitionData {
        partition_index: index,
        error_code: code.code(),
        records: Some(Records::default()),
        ..Default::default()
    }
}

/// Per-partition answers grouped into per-topic ones, in topic id order.
fn group_by_topic<P, T>(answers: BTreeMap<SessionPartition, P>, topic: impl Fn(Uuid, Vec<P>) -> T) -> Vec<T> {
    let mut by_topic: BTreeMap<Uuid, Vec<P>> = BTreeMap::new();
    for ((topic_id, _), data) in answers {
        by_topic.entry(topic_id).or_default().push(data);
    }
    by_topic.into_iter().map(|(id, partitions)| topic(id, partitions)).collect()
}
