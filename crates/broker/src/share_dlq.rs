//! Share groups' dead-letter topics (KIP-1191), as the share-partition's leader writes them.
//!
//! A record a consumer REJECTs, or that reaches `group.share.delivery.count.limit`, in a group
//! whose `errors.deadletterqueue.topic.name` is set is `Archiving` in its share-partition
//! (`strand_coordinator::share::partition`). [`drain`] then, under the share-partition's
//! dead-letter lock:
//! 1. persists the share-partition (the records as Archiving, state 3) at the share coordinator;
//! 2. checks the topic as Kafka's `ShareGroupDLQStateManager` does: not `__`-prefixed, with the
//!    broker's `errors.deadletterqueue.topic.name.prefix` (default `dlq.`), existing (Strand
//!    never creates it), and opted in with `errors.deadletterqueue.group.enable=true`. A refused
//!    topic archives the records unwritten, with one warning line;
//! 3. writes one record per archived record to partition `source partition % partitions` of
//!    the topic, with Kafka's headers (`__dlq.errors.topic`, `.partition`, `.offset`, `.group`,
//!    `.delivery.count`, `.message`, values as UTF-8 text), timestamped now, and the original key
//!    and value only with `errors.deadletterqueue.copy.record.enable=true`;
//! 4. marks them `Archived` and persists again.
//!
//! Exactly once: a record leaves `Archiving` only after its write is acknowledged (acks=all),
//! and the persisted Archiving state makes a new leader (failover, restart) write what the old
//! one had not; a second drain finds nothing left. The one window left: a leader that dies after
//! the write is acknowledged and before step 4 is persisted has its successor write it again.
//! A write that fails is retried at the next drain (the share-partition's next fetch or
//! acknowledgement); its records hold the start offset until then.

use std::time::Duration;

use bytes::Bytes;
use strand_base::{TopicPartition, Uuid};
use strand_coordinator::share::DeadLetter;
use strand_metadata::image::group_configs::GroupConfig;
use strand_protocol::error::ErrorCode;
use strand_protocol::records::{Header, NewRecord, RecordBatch, RecordBatchBuilder, RecordBatches};
use strand_replication::{FirstBatch, Isolation, ReadFrom};

use crate::Broker;

/// Kafka's headers on a dead-letter record.
pub const HEADER_TOPIC: &str = "__dlq.errors.topic";
pub const HEADER_PARTITION: &str = "__dlq.errors.partition";
pub const HEADER_OFFSET: &str = "__dlq.errors.offset";
pub const HEADER_GROUP: &str = "__dlq.errors.group";
pub const HEADER_DELIVERY_COUNT: &str = "__dlq.errors.delivery.count";
pub const HEADER_MESSAGE: &str = "__dlq.errors.message";

/// The topic config a dead-letter topic must have set to `true`.
const GROUP_ENABLE: &str = "errors.deadletterqueue.group.enable";
/// The most bytes one dead-letter batch holds (less if the topic's `max.message.bytes` is).
const DEAD_LETTER_BATCH_BYTES_MAX: usize = 1024 * 1024;
/// The most bytes read from the source log per look-up of records to copy.
const SOURCE_READ_BYTES_MAX: u64 = 1024 * 1024;
/// Writes tried per drain before the records wait for the next one.
const WRITE_ATTEMPTS: u32 = 3;
const WRITE_BACKOFF: Duration = Duration::from_millis(100);

/// Writes the dead-letter records of `group_id`'s share-partition of `tp` (see the module doc).
pub(crate) async fn drain(broker: &Broker, group_id: &str, tp: &TopicPartition, topic_id: Uuid) {
    let key = (group_id.to_owned(), tp.clone());
    if !broker.share.partitions().get(&key).is_some_and(|p| p.has_dead_letters()) {
        return;
    }
    let pending = |broker: &Broker| broker.share.partitions().get(&key).map(|p| p.dead_letters()).unwrap_or_default();
    let lock = broker.share.dead_letter_lock(&key);
    let _one_at_a_time = lock.lock().await;
    let letters = pending(broker);
    if letters.is_empty() {
        return;
    }
    if let Err(code) = crate::share::persist(broker, group_id, tp, topic_id).await {
        tracing::debug!("share group {group_id}: {tp}'s dead letters wait, its state was not persisted: {code:?}");
        return;
    }
    let image = broker.image();
    let config = GroupConfig::of(image.configs(), group_id);
    let target = match config.dlq_topic.as_deref().map(|topic| check_topic(broker, topic, tp)) {
        Some(Ok(target)) => Some(target),
        Some(Err(reason)) => {
            tracing::warn!("share group {group_id}: {} record(s) of {tp} archived unwritten: {reason}", letters.len());
            None
        }
        None => None,
    };
    if let Some((dlq, max_bytes)) = target {
        let copies = if config.dlq_copy_record { source_records(broker, tp, &letters) } else { Vec::new() };
        let batches = build_batches(group_id, tp, &letters, &copies, max_bytes, broker.clock.now_ms());
        for batch in batches {
            if let Err(code) = write(broker, &dlq, batch).await {
                tracing::warn!(
                    "share group {group_id}: dead-letter write of {tp} to {dlq} failed ({code:?}); retried later"
                );
                return;
            }
        }
    }
    {
        let mut partitions = broker.share.partitions();
        if let Some(partition) = partitions.get_mut(&key) {
            for letter in &letters {
                partition.dead_lettered(letter.offset);
            }
        }
    }
    if let Err(code) = crate::share::persist(broker, group_id, tp, topic_id).await {
        tracing::debug!("share group {group_id}: {tp}'s archived dead letters not persisted: {code:?}");
    }
}

/// The dead-letter partition for records of `source`, and its batch size limit; or why the
/// topic is refused (Kafka's checks, in its order).
fn check_topic(broker: &Broker, topic: &str, source: &TopicPartition) -> Result<(TopicPartition, usize), String> {
    if topic.starts_with("__") {
        return Err(format!("dead-letter topic {topic} cannot start with __"));
    }
    let prefix = broker.settings.dlq_topic_prefix.as_str();
    if !prefix.is_empty() && !topic.starts_with(prefix) {
        return Err(format!("dead-letter topic {topic} does not start with the prefix {prefix}"));
    }
    let image = broker.image();
    let Some(found) = image.topics().by_name(topic) else {
        return Err(format!("dead-letter topic {topic} does not exist (Strand does not create it)"));
    };
    let configs = broker.topic_configs(&image);
    let topic_configs = configs.topic(topic);
    if !topic_configs.get(GROUP_ENABLE).is_some_and(|(v, _)| v.trim().eq_ignore_ascii_case("true")) {
        return Err(format!("dead-letter topic {topic} does not have {GROUP_ENABLE}=true"));
    }
    let partitions = i32::try_from(found.partitions.len()).unwrap_or(i32::MAX).max(1);
    let max_bytes = usize::try_from(topic_configs.long("max.message.bytes")).unwrap_or(DEAD_LETTER_BATCH_BYTES_MAX);
    Ok((
        TopicPartition::new(topic.to_owned(), source.partition % partitions),
        max_bytes.min(DEAD_LETTER_BATCH_BYTES_MAX),
    ))
}

/// Writes one batch, retrying a few times.
async fn write(broker: &Broker, dlq: &TopicPartition, batch: Bytes) -> Result<(), ErrorCode> {
    let Some(writer) = broker.dead_letter_writer.clone() else { return Ok(()) };
    let mut attempt = 1;
    loop {
        match writer.write(dlq.clone(), batch.clone()).await {
            Ok(()) => return Ok(()),
            Err(code) if attempt >= WRITE_ATTEMPTS => return Err(code),
            Err(_) => {
                tokio::time::sleep(WRITE_BACKOFF * attempt).await;
                attempt += 1;
            }
        }
    }
}

/// The key and value of each letter's record in `tp`'s log, by offset; a record the log no
/// longer holds (or cannot be read) is left out.
fn source_records(
    broker: &Broker,
    tp: &TopicPartition,
    letters: &[DeadLetter],
) -> Vec<(i64, Option<Bytes>, Option<Bytes>)> {
    let mut found: Vec<(i64, Option<Bytes>, Option<Bytes>)> = Vec::new();
    for letter in letters {
        if found.iter().any(|(offset, _, _)| *offset == letter.offset) {
            continue;
        }
        let read = broker.replicas.read_limited(
            tp,
            letter.offset,
            SOURCE_READ_BYTES_MAX,
            Isolation::ReadUncommitted,
            FirstBatch::Whole,
            ReadFrom::Leader,
        );
        let Ok(Some(slice)) = read.map(|r| r.records) else { continue };
        let Ok(bytes) = strand_log::file::read_range(&slice.file, slice.position, slice.len) else { continue };
        for batch in RecordBatches::new(bytes).map_while(Result::ok) {
            collect(&batch, letters, &mut found);
        }
    }
    found
}

fn collect(batch: &RecordBatch, letters: &[DeadLetter], found: &mut Vec<(i64, Option<Bytes>, Option<Bytes>)>) {
    if batch.attributes().is_control() {
        return;
    }
    let Ok(records) = batch.records() else { return };
    for record in records.iter().map_while(Result::ok) {
        let offset = batch.record_offset(&record);
        if letters.iter().any(|l| l.offset == offset) && !found.iter().any(|(o, _, _)| *o == offset) {
            found.push((offset, record.key().map(Bytes::copy_from_slice), record.value().map(Bytes::copy_from_slice)));
        }
    }
}

/// The dead-letter records of `letters`, in batches of at most `max_bytes` (a copied record too
/// large for one alone goes without its key and value).
fn build_batches(
    group_id: &str,
    source: &TopicPartition,
    letters: &[DeadLetter],
    copies: &[(i64, Option<Bytes>, Option<Bytes>)],
    max_bytes: usize,
    now_ms: i64,
) -> Vec<Bytes> {
    /// A batch's header and a record's framing, headers included, with room to spare.
    const OVERHEAD: usize = 61 + 512;
    let mut batches = Vec::new();
    let mut builder = RecordBatchBuilder::new();
    let mut size = 0usize;
    for letter in letters {
        let partition = source.partition.to_string();
        let offset = letter.offset.to_string();
        let count = letter.delivery_count.to_string();
        let headers = [
            Header { key: HEADER_TOPIC, value: Some(source.topic.as_bytes()) },
            Header { key: HEADER_PARTITION, value: Some(partition.as_bytes()) },
            Header { key: HEADER_OFFSET, value: Some(offset.as_bytes()) },
            Header { key: HEADER_GROUP, value: Some(group_id.as_bytes()) },
            Header { key: HEADER_DELIVERY_COUNT, value: Some(count.as_bytes()) },
            Header { key: HEADER_MESSAGE, value: Some(letter.cause.message().as_bytes()) },
        ];
        let copy = copies.iter().find(|(o, _, _)| *o == letter.offset);
        let copied_bytes =
            copy.map_or(0, |(_, k, v)| k.as_ref().map_or(0, Bytes::len) + v.as_ref().map_or(0, Bytes::len));
        let (key, value, bytes) = match copy {
            Some((_, k, v)) if OVERHEAD + copied_bytes <= max_bytes => {
                (k.as_deref(), v.as_deref(), OVERHEAD + copied_bytes)
            }
            _ => (None, None, OVERHEAD),
        };
        if builder.record_count() > 0 && size + bytes > max_bytes {
            batches.extend(std::mem::take(&mut builder).build().ok());
            size = 0;
        }
        let record = NewRecord { timestamp_ms: now_ms, key, value, headers: &headers };
        if builder.append(&record).is_ok() {
            size += bytes;
        }
    }
    if builder.record_count() > 0 {
        batches.extend(builder.build().ok());
    }
    batches
}
