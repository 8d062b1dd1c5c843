//! Produce: each partition's record set validated whole (never decoding records; recompressed
//! only for a topic's `compression.type`, `validation.rs`), appended with the partition's leader
//! epoch, answered per `acks`. `acks=0` gets no response, and an error
//! closes the connection instead (the client would never hear of it otherwise). Clients cannot
//! write to internal topics (`__consumer_offsets`): INVALID_TOPIC_EXCEPTION, as Kafka answers.
//!
//! `acks=all`: every partition is appended first (NOT_ENOUGH_REPLICAS, nothing appended, if its
//! ISR is below `min.insync.replicas`), then the request waits for all of them together, at most
//! `timeout_ms` for the replicas (Kafka's `DelayedProduce`): a partition whose ISR did not take
//! the batch in time answers REQUEST_TIMED_OUT, one whose ISR shrank below the minimum meanwhile
//! NOT_ENOUGH_REPLICAS_AFTER_APPEND, one whose leadership moved NOT_LEADER_OR_FOLLOWER.
//!
//! The wait is handed back to the connection as a [`ReplicaWait`] once everything is appended:
//! it changes nothing, so the connection reads and handles its next requests meanwhile (their
//! appends come after these, in order) and answers this one in its turn.
//!
//! KIP-951 (v10+): a partition answered NOT_LEADER_OR_FOLLOWER (here or after waiting) carries its
//! current leader and epoch in `current_leader`, and the response those leaders' endpoints on the
//! client's listener in `node_endpoints` (Kafka's `KafkaApis.handleProduceRequest`: only that
//! error, as Produce names no leader epoch to be fenced on).

use std::time::Duration;

use strand_base::topic::is_internal;
use strand_base::{ProducerId, TopicPartition};
use strand_log::log::ValidatedBatch;
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_protocol::error::ErrorCode;
use strand_protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use strand_protocol::messages::produce_response::{
    LeaderIdAndEpoch, NodeEndpoint, PartitionProduceResponse, TopicProduceResponse,
};
use strand_protocol::messages::{ProduceRequest, ProduceResponse};
use strand_protocol::records::{Attributes, Compression, TargetCompression};
use strand_replication::{Acks, DelayedProduce};
use strand_security::Session;
use strand_security::acl::{AclOperation, ResourceType};

use super::target;
use crate::validation::{
    CompressionRule, KeyRule, ProduceRules, RecordSetError, TimestampRules, validate_record_set_async,
};
use crate::{Broker, LeaderHints, Progress, TxnVerification};
use strand_metadata::image::TopicConfigResolver;

/// A produce handled up to its wait for the replicas: answered now (`None`: nothing to send,
/// acks=0), or appended (acks=all) and answered once [`ReplicaWait::finish`] returns.
pub type Produced = Progress<Option<ProduceResponse>, ReplicaWait>;

/// An acks=all produce whose partitions are appended, waiting for their replicas (and the
/// leader's own sync). Owns everything it needs, so it can outlive the handler's borrows.
#[derive(Debug)]
pub struct ReplicaWait {
    responses: Vec<TopicProduceResponse>,
    delayed: Vec<(usize, usize, DelayedProduce)>,
    /// `timeout_ms` from when the request was appended, not from when the connection gets to
    /// this wait (earlier requests of the connection may still be waiting), as Kafka times a
    /// `DelayedProduce` from its creation.
    deadline: tokio::time::Instant,
    version: i16,
    /// The client's listener: KIP-951's leader endpoints are on it.
    listener: String,
}

impl ReplicaWait {
    /// Waits for every partition's replicas together (one deadline for the request) and builds
    /// the response.
    pub async fn finish(self, broker: &Broker) -> ProduceResponse {
        let ReplicaWait { mut responses, delayed, deadline, version, listener } = self;
        wait_for_replicas(&mut responses, delayed, deadline).await;
        response(broker, responses, version, &listener)
    }
}

/// Handles a produce, waits included. `Ok(None)`: nothing to send (acks=0). `Err`: close the
/// connection (acks=0 with an error).
pub async fn handle(
    broker: &Broker,
    request: ProduceRequest,
    version: i16,
    session: &Session,
) -> Result<Option<ProduceResponse>, String> {
    match start(broker, request, version, session).await? {
        Produced::Done(response) => Ok(response),
        Produced::Waiting(wait) => Ok(Some(wait.finish(broker).await)),
    }
}

/// Validates and appends, up to the wait for the replicas. `Err`: close the connection (acks=0
/// with an error).
pub async fn start(
    broker: &Broker,
    request: ProduceRequest,
    version: i16,
    session: &Session,
) -> Result<Produced, String> {
    let Some(acks) = Acks::from_wire(request.acks) else {
        return Ok(Produced::Done(Some(all_failed(&request, ErrorCode::InvalidRequiredAcks))));
    };
    // Kafka: transactional records need WRITE on the request's transactional id, or nothing of
    // the request is appended.
    if has_transactional_records(&request) {
        let transactional_id = request.transactional_id.as_deref();
        let txn_allowed = transactional_id
            .is_some_and(|id| broker.authorize(session, AclOperation::Write, ResourceType::TransactionalId, id));
        if !txn_allowed && acks == Acks::None {
            // Kafka has no response to send an acks=0 producer: it closes the connection.
            return Err("acks=0 produce refused: TRANSACTIONAL_ID_AUTHORIZATION_FAILED".to_owned());
        }
        if !txn_allowed {
            return Ok(Produced::Done(Some(all_failed(&request, ErrorCode::TransactionalIdAuthorizationFailed))));
        }
    }
    let image = broker.image();
    let names: Vec<&str> = (request.topic_data.iter())
        .filter_map(|topic| {
            if version >= 13 { image.topics().by_id(topic.topic_id).map(|t| &*t.name) } else { Some(&*topic.name) }
        })
        .collect();
    let writable = broker.authorized_names(session, AclOperation::Write, ResourceType::Topic, names);
    // Built once per request: each partition's rules are then map lookups.
    let configs = broker.topic_configs(&image);
    let mut responses = Vec::with_capacity(request.topic_data.len());
    // Partitions validated and ready to append, by (topic, partition) slot in `responses`.
    let mut ready = Vec::new();
    for topic in &request.topic_data {
        let found =
            if version >= 13 { image.topics().by_id(topic.topic_id) } else { image.topics().by_name(&topic.name) };
        let mut partitions = Vec::with_capacity(topic.partition_data.len());
        for partition in &topic.partition_data {
            let slot = (responses.len(), partitions.len());
            let name = if version >= 13 { found.map(|t| &*t.name) } else { Some(&*topic.name) };
            let authorized = name.is_none_or(|name| writable.contains(name));
            let checked = if authorized {
                target(&image, found, partition.index, broker.identity.node_id)
            } else {
                Err(ErrorCode::TopicAuthorizationFailed)
            };
            let response = match checked {
                // Only coordinators write to internal topics (Kafka: "Cannot append to internal topic").
                Ok(target) if is_internal(&target.partition.topic) => {
                    let message = format!("Cannot append to internal topic {}", target.partition.topic);
                    failed(partition.index, ErrorCode::InvalidTopicException, Some(message))
                }
                Ok(target) => {
                    let rules = TopicRules::of(&configs, &target.partition.topic);
                    if acks == Acks::All && (target.isr_len as i64) < rules.min_insync_replicas {
                        // Kafka refuses before appending anything: NOT_ENOUGH_REPLICAS.
                        failed(partition.index, ErrorCode::NotEnoughReplicas, None)
                    } else {
                        match prepare(broker, target, partition, rules, version).await {
                            Ok(prepared) => {
                                ready.push((slot, prepared));
                                // Answered once appended.
                                failed(partition.index, ErrorCode::None, None)
                            }
                            Err((code, message)) => failed(partition.index, code, message),
                        }
                    }
                }
                Err(ErrorCode::UnknownTopicOrPartition) if version >= 13 && found.is_none() => {
                    failed(partition.index, ErrorCode::UnknownTopicId, None)
                }
                Err(code) => failed(partition.index, code, None),
            };
            partitions.push(response);
        }
        responses.push(TopicProduceResponse {
            name: if version >= 13 { String::new() } else { topic.name.clone() },
            topic_id: if version >= 13 { topic.topic_id } else { strand_base::Uuid::ZERO },
            partition_responses: partitions,
            ..Default::default()
        });
    }
    if ready.iter().any(|(_, p)| p.verifying.is_some()) {
        let Some(transactional_id) = request.transactional_id.clone() else {
            // Kafka: transactional records need the request's transactional id.
            return Ok(Produced::Done(Some(all_failed(&request, ErrorCode::TransactionalIdAuthorizationFailed))));
        };
        verify(broker, transactional_id, &mut ready, &mut responses, version).await;
    }
    let mut delayed = Vec::new();
    for ((topic, partition), prepared) in ready {
        let (response, waiting) = append(broker, prepared, acks);
        if let Some(waiting) = waiting {
            delayed.push((topic, partition, waiting));
        }
        if let Some(slot) = responses.get_mut(topic).and_then(|t| t.partition_responses.get_mut(partition)) {
            *slot = response;
        }
    }
    if !delayed.is_empty() {
        let timeout = Duration::from_millis(u64::try_from(request.timeout_ms).unwrap_or(0));
        let deadline = tokio::time::Instant::now() + timeout;
        let listener = session.listener.clone();
        return Ok(Produced::Waiting(ReplicaWait { responses, delayed, deadline, version, listener }));
    }
    if acks == Acks::None {
        let first_error = responses.iter().flat_map(|t| &t.partition_responses).find(|p| p.error_code != 0);
        return match first_error {
            None => Ok(Produced::Done(None)),
            Some(p) => Err(format!("acks=0 produce failed: {}", p.error_message.clone().unwrap_or_default())),
        };
    }
    Ok(Produced::Done(Some(response(broker, responses, version, &session.listener))))
}

/// The response, with KIP-951's leader hints for the partitions refused as not led here.
fn response(
    broker: &Broker,
    mut responses: Vec<TopicProduceResponse>,
    version: i16,
    listener: &str,
) -> ProduceResponse {
    let node_endpoints =
        if version >= LEADER_HINTS_VERSION_MIN { leader_hints(broker, listener, &mut responses) } else { Vec::new() };
    ProduceResponse { responses, node_endpoints, ..Default::default() }
}

/// The first version whose clients handle TRANSACTION_ABORTABLE (KIP-890).
const TRANSACTION_ABORTABLE_VERSION_MIN: i16 = 11;
/// The first version whose clients run transactions V2: a write adds its partition (KIP-890).
const TRANSACTIONS_V2_VERSION_MIN: i16 = 12;

/// KIP-890 part 1: asks the transaction coordinator whether the partitions about to get their
/// producer's first transactional write are in its transaction (V2: adds them), and answers
/// those that are not with the coordinator's error instead of appending them. A V2 add refused
/// with CONCURRENT_TRANSACTIONS is asked again every `add.partitions.to.txn.retry.backoff.ms` for
/// up to `add.partitions.to.txn.retry.backoff.max.ms`. Retriable coordinator errors become
/// NOT_ENOUGH_REPLICAS, which every client retries (Kafka's `ReplicaManager` does the same).
async fn verify(
    broker: &Broker,
    transactional_id: String,
    ready: &mut Vec<((usize, usize), Prepared)>,
    responses: &mut [TopicProduceResponse],
    version: i16,
) {
    let mut by_producer: std::collections::BTreeMap<(ProducerId, i16), Vec<TopicPartition>> = Default::default();
    for (_, prepared) in ready.iter() {
        if let Some(producer) = prepared.verifying {
            by_producer.entry(producer).or_default().push(prepared.tp.clone());
        }
    }
    let add = version >= TRANSACTIONS_V2_VERSION_MIN;
    let retry = broker.settings.txn_add_retry;
    let started = tokio::time::Instant::now();
    let mut refused = std::collections::BTreeMap::new();
    for ((producer_id, producer_epoch), mut partitions) in by_producer {
        loop {
            let verification = TxnVerification {
                transactional_id: transactional_id.clone(),
                producer_id,
                producer_epoch,
                partitions,
                add,
            };
            let answer = broker.txn_verifier.verify(verification).await;
            // Transactions V2: a producer starts its next transaction as soon as EndTxn returns,
            // while the coordinator may still be writing the previous one's markers. The broker
            // retries for a moment before telling the client to (KAFKA-18654).
            let concurrent = |code: &ErrorCode| *code == ErrorCode::ConcurrentTransactions;
            let again: Vec<TopicPartition> =
                answer.iter().filter(|(_, code)| concurrent(code)).map(|(tp, _)| tp.clone()).collect();
            if !add || again.is_empty() || started.elapsed() + retry.backoff > retry.max {
                refused.extend(answer);
                break;
            }
            refused.extend(answer.into_iter().filter(|(_, code)| !concurrent(code)));
            tokio::time::sleep(retry.backoff).await;
            partitions = again;
        }
    }
    ready.retain(|((topic, partition), prepared)| {
        let Some(&code) = refused.get(&prepared.tp) else { return true };
        tracing::debug!("transaction {transactional_id}: the coordinator did not verify {}: {code:?}", prepared.tp);
        let code = match code {
            ErrorCode::ConcurrentTransactions
            | ErrorCode::CoordinatorLoadInProgress
            | ErrorCode::CoordinatorNotAvailable
            | ErrorCode::NotCoordinator
            | ErrorCode::NetworkException
            | ErrorCode::RequestTimedOut => ErrorCode::NotEnoughReplicas,
            ErrorCode::TransactionAbortable if version < TRANSACTION_ABORTABLE_VERSION_MIN => {
                ErrorCode::InvalidTxnState
            }
            ErrorCode::ProducerFenced => ErrorCode::InvalidProducerEpoch,
            other => other,
        };
        let message = format!("the transaction coordinator did not verify {}: {:?}", prepared.tp, code);
        if let Some(slot) = responses.get_mut(*topic).and_then(|t| t.partition_responses.get_mut(*partition)) {
            *slot = failed(prepared.index, code, Some(message));
        }
        false
    });
}

/// The first version whose response names the current leader of a partition it refuses (KIP-951).
const LEADER_HINTS_VERSION_MIN: i16 = 10;

/// Fills `current_leader` of every partition answered NOT_LEADER_OR_FOLLOWER; returns the
/// endpoints of the leaders named, on the client's `listener`.
fn leader_hints(broker: &Broker, listener: &str, responses: &mut [TopicProduceResponse]) -> Vec<NodeEndpoint> {
    let refused = |p: &PartitionProduceResponse| p.error_code == ErrorCode::NotLeaderOrFollower.code();
    if !responses.iter().any(|t| t.partition_responses.iter().any(refused)) {
        return Vec::new();
    }
    let mut hints = LeaderHints::new(broker, listener);
    for topic in responses.iter_mut().filter(|t| t.partition_responses.iter().any(refused)) {
        let name = if topic.name.is_empty() { hints.topic_name(topic.topic_id) } else { Some(topic.name.clone()) };
        for partition in topic.partition_responses.iter_mut().filter(|p| refused(p)) {
            let (leader_id, leader_epoch) = match &name {
                Some(name) => hints.leader_of(&strand_base::TopicPartition::new(name.clone(), partition.index)),
                None => (strand_base::BrokerId::NONE, -1),
            };
            partition.current_leader = LeaderIdAndEpoch { leader_id, leader_epoch, ..Default::default() };
        }
    }
    hints
        .endpoints()
        .map(|e| NodeEndpoint { node_id: e.node_id, host: e.host, port: e.port, rack: e.rack, ..Default::default() })
        .collect()
}

/// A topic's produce settings: its own configs over the cluster's and the broker's.
struct TopicRules {
    message_bytes_max: usize,
    timestamps: TimestampRules,
    min_insync_replicas: i64,
    /// `cleanup.policy` includes `compact`: every record needs a key.
    keys: KeyRule,
    compression: CompressionRule,
    delay: crate::delayed::DelayRule,
}

impl TopicRules {
    fn of(resolver: &TopicConfigResolver<'_>, topic: &str) -> TopicRules {
        let configs = resolver.topic(topic);
        TopicRules {
            message_bytes_max: usize::try_from(configs.long("max.message.bytes")).unwrap_or(0),
            timestamps: TimestampRules {
                log_append_time: configs
                    .get("message.timestamp.type")
                    .is_some_and(|(t, _)| t.trim() == "LogAppendTime"),
                before_max_ms: configs.long("message.timestamp.before.max.ms"),
                after_max_ms: configs.long("message.timestamp.after.max.ms"),
            },
            min_insync_replicas: configs.long("min.insync.replicas"),
            keys: if configs.has_item("cleanup.policy", "compact") { KeyRule::Required } else { KeyRule::Optional },
            compression: compression_rule(&configs),
            delay: crate::delayed::DelayRule {
                topic_delay_ms: configs.long(crate::delayed::DELIVERY_DELAY_MS),
                max_delay_ms: configs.long(crate::delayed::DELIVERY_DELAY_MAX_MS),
            },
        }
    }
}

/// `compression.type` and its codec's `compression.<codec>.level` (validated when set: Kafka's
/// ranges); gzip's -1 is the codec's default level.
fn compression_rule(configs: &strand_metadata::image::TopicConfig<'_>) -> CompressionRule {
    let codec = match configs.get("compression.type").map(|(value, _)| value.trim()) {
        Some("uncompressed") => Compression::None,
        Some("gzip") => Compression::Gzip,
        Some("snappy") => Compression::Snappy,
        Some("lz4") => Compression::Lz4,
        Some("zstd") => Compression::Zstd,
        _ => return CompressionRule::Producer,
    };
    let level = match codec {
        Compression::Gzip => Some(configs.long("compression.gzip.level")).filter(|level| *level != -1),
        Compression::Lz4 => Some(configs.long("compression.lz4.level")),
        Compression::Zstd => Some(configs.long("compression.zstd.level")),
        Compression::None | Compression::Snappy => None,
    };
    let level = level.and_then(|level| i32::try_from(level).ok());
    CompressionRule::Target(TargetCompression { codec, level })
}

/// Waits for every `acks=all` partition's replicas together (one deadline for the request), and
/// turns the partitions that failed meanwhile into errors.
async fn wait_for_replicas(
    responses: &mut [TopicProduceResponse],
    delayed: Vec<(usize, usize, DelayedProduce)>,
    deadline: tokio::time::Instant,
) {
    for (topic, partition, waiting) in delayed {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if let Err(e) = waiting.wait(left).await
            && let Some(response) = responses.get_mut(topic).and_then(|t| t.partition_responses.get_mut(partition))
        {
            *response = failed(response.index, e.code(), Some(e.to_string()));
        }
    }
}

/// One partition's record set, validated and ready to append.
struct Prepared {
    index: i32,
    tp: TopicPartition,
    leader_epoch: i32,
    batch: ValidatedBatch,
    log_append_time: bool,
    now_ms: i64,
    /// The guard of the KIP-890 verification this append presents (the sentinel when none).
    guard: VerificationGuard,
    /// The producer whose first transactional write here awaits the coordinator's check.
    verifying: Option<(ProducerId, i16)>,
    /// The record set's size as the request carried it (before any recompression): Kafka's
    /// bytes in.
    request_bytes: u64,
}

/// Validates one partition's record set; for a transactional producer's first write here,
/// starts its verification (Kafka's `maybeStartTransactionVerificationForPartition`).
async fn prepare(
    broker: &Broker,
    target: super::Target,
    data: &PartitionProduceData,
    topic: TopicRules,
    version: i16,
) -> Result<Prepared, (ErrorCode, Option<String>)> {
    let Some(records) = &data.records else { return Err((ErrorCode::InvalidRecord, None)) };
    let now = broker.clock.now_ms();
    let rules = ProduceRules {
        message_bytes_max: topic.message_bytes_max,
        timestamps: topic.timestamps,
        keys: topic.keys,
        version,
        compression: topic.compression,
        delay: topic.delay,
    };
    let batch = match validate_record_set_async(records, rules, now).await {
        Ok(batch) => batch,
        Err(e) => return Err((record_set_code(&e), Some(e.to_string()))),
    };
    let mut prepared = Prepared {
        index: data.index,
        tp: target.partition,
        leader_epoch: target.leader_epoch,
        batch,
        log_append_time: topic.timestamps.log_append_time,
        now_ms: now,
        guard: VerificationGuard::SENTINEL,
        verifying: None,
        request_bytes: records.len() as u64,
    };
    let producer = prepared.batch.producer();
    // A client's batch is never a control batch: one is here only as a delayed-delivery pending
    // batch in place of the producer's, whose transaction it is.
    if producer.transactional {
        let supports_epoch_bump = version >= TRANSACTIONS_V2_VERSION_MIN;
        let ids = (producer.producer_id, producer.producer_epoch);
        match broker.replicas.maybe_start_txn_verification(
            &prepared.tp,
            ids,
            producer.base_sequence,
            supports_epoch_bump,
            now,
        ) {
            Ok(guard) if guard == VerificationGuard::SENTINEL => {}
            Ok(guard) => {
                prepared.guard = guard;
                prepared.verifying = Some(ids);
            }
            Err(e) => return Err((e.code(), Some(e.to_string()))),
        }
    }
    Ok(prepared)
}

/// Appends one partition's validated batch; with `acks=all`, also what to wait on.
fn append(broker: &Broker, prepared: Prepared, acks: Acks) -> (PartitionProduceResponse, Option<DelayedProduce>) {
    let Prepared { index, tp, leader_epoch, batch, guard, log_append_time, now_ms, request_bytes, .. } = prepared;
    let context = AppendContext::client(guard);
    let pending = batch.producer().control;
    let appended = match broker.replicas.append_as_leader(&tp, batch, leader_epoch, acks, context) {
        Ok(appended) => appended,
        Err(e) => return (failed(index, e.code(), Some(e.to_string())), None),
    };
    if pending {
        broker.replicas.note_delayed(&tp);
    }
    if !appended.info.duplicate {
        let records = appended.info.last_offset.saturating_sub(appended.info.first_offset).saturating_add(1);
        broker.metrics.topics.record_in(&tp.topic, u64::try_from(records).unwrap_or(0), request_bytes);
    }
    let response = PartitionProduceResponse {
        index,
        error_code: 0,
        base_offset: appended.info.first_offset,
        log_append_time_ms: if log_append_time { now_ms } else { -1 },
        log_start_offset: appended.log_start_offset,
        ..Default::default()
    };
    (response, appended.delayed)
}

fn record_set_code(error: &RecordSetError) -> ErrorCode {
    match error {
        RecordSetError::Corrupt(_) => ErrorCode::CorruptMessage,
        RecordSetError::TooLarge { .. } | RecordSetError::RecompressedTooLarge { .. } => ErrorCode::MessageTooLarge,
        RecordSetError::InvalidTimestamp { .. } => ErrorCode::InvalidTimestamp,
        RecordSetError::Invalid(_) | RecordSetError::MissingKey => ErrorCode::InvalidRecord,
        RecordSetError::ZstdTooOld(_) => ErrorCode::UnsupportedCompressionType,
    }
}

fn failed(index: i32, code: ErrorCode, message: Option<String>) -> PartitionProduceResponse {
    PartitionProduceResponse {
        index,
        error_code: code.code(),
        base_offset: -1,
        log_append_time_ms: -1,
        log_start_offset: -1,
        error_message: message,
        ..Default::default()
    }
}

/// Whether the first batch of any partition is transactional (Kafka's
/// `RequestUtils.hasTransactionalRecords`, which looks at first batches only).
fn has_transactional_records(request: &ProduceRequest) -> bool {
    let first_batches = request.topic_data.iter().flat_map(|t| &t.partition_data).filter_map(|p| p.records.as_ref());
    first_batches.into_iter().any(|records| {
        let header = records.get(..ATTRIBUTES_END).filter(|h| h[MAGIC_AT] == 2);
        header.is_some_and(|h| {
            Attributes(i16::from_be_bytes([h[ATTRIBUTES_END - 2], h[ATTRIBUTES_END - 1]])).is_transactional()
        })
    })
}

/// Where a magic-2 batch header keeps its magic byte, and where its attributes end.
const MAGIC_AT: usize = 16;
const ATTRIBUTES_END: usize = 23;

fn all_failed(request: &ProduceRequest, code: ErrorCode) -> ProduceResponse {
    let responses = request
        .topic_data
        .iter()
        .map(|topic: &TopicProduceData| TopicProduceResponse {
            name: topic.name.clone(),
            topic_id: topic.topic_id,
            partition_responses: topic.partition_data.iter().map(|p| failed(p.index, code, None)).collect(),
            ..Default::default()
        })
        .collect();
    ProduceResponse { responses, ..Default::default() }
}
