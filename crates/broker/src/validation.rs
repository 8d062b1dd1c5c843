//! The produce path's checks on a partition's record set, before anything is appended, in the
//! order Kafka 4.4 makes them and with its error codes:
//!
//! 1. the record set is exactly one whole magic-2 batch (Kafka's `ProduceRequest.validateRecords`
//!    and `ByteBufferLogInputStream`: a few stray bytes after it that cannot start a batch, or the
//!    start of a batch cut short, are dropped; a second whole batch is refused), not zstd before
//!    Produce v7;
//! 2. the batch: base offset 0, no larger than `message.max.bytes`, a valid CRC, a known codec;
//!    its header consistent (Kafka's `LogValidator.validateBatch`: at least one record,
//!    `lastOffsetDelta` = count - 1, no control batch from a client, a sequence with every
//!    producer id);
//! 3. its records ([`strand_protocol::records::summarize`]): each record's structure, exactly the
//!    declared count, offset deltas in order in a compressed batch, every record's timestamp
//!    within `message.timestamp.*`, keys on a compacted topic. A compressed batch is walked by
//!    streaming decompression through a small window, on a blocking thread
//!    ([`validate_record_set_async`]); records are never decoded into objects or re-encoded
//!    (design §3).
//!
//! Under CreateTime a batch whose max timestamp is not its records' largest gets the right one
//! written (CRC recomputed), as Kafka's in-place validation does; under LogAppendTime the batch
//! carries the broker's time.
//!
//! Delayed delivery (`crate::delayed`): a batch with a record due later is stored as a pending
//! batch in its place, after every check above (so step 4 does not apply to it).
//!
//! 4. A topic whose `compression.type` names a codec other than the batch's gets the batch's
//!    records written again with it ([`strand_protocol::records::recompress`], Kafka's
//!    `buildRecordsAndAssignOffsets`), after every check above, on a blocking thread; at most
//!    [`RECOMPRESSIONS_IN_FLIGHT_MAX`] at once, each holding at most `max.message.bytes` of
//!    output (MESSAGE_TOO_LARGE past it, as Kafka checks the rebuilt batch) and a codec's
//!    bounded state. `producer`, or the batch's own codec, keeps the batch as it came.

use bytes::{Bytes, BytesMut};
use strand_base::limits::DECOMPRESSED_BATCH_BYTES_MAX;
use strand_log::log::ValidatedBatch;
use strand_protocol::records::{
    Compression, LOG_OVERHEAD, MAGIC, Recompression, RecordBatch, RecordsSummary, TargetCompression, TimestampType,
    recompress, summarize,
};

/// How many batches the node recompresses at once; more wait their turn. Each holds at most its
/// topic's `max.message.bytes` of output and a codec's state (at most 8 MiB of zstd window).
pub const RECOMPRESSIONS_IN_FLIGHT_MAX: usize = 4;

/// Shared by every produce of the process: the node's recompressions.
static RECOMPRESSIONS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(RECOMPRESSIONS_IN_FLIGHT_MAX);

/// A topic's `compression.type` with its level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompressionRule {
    /// `producer`: batches are stored with the codec they came with.
    Producer,
    /// `uncompressed`, `gzip`, `snappy`, `lz4` or `zstd`, at the topic's `compression.*.level`.
    Target(TargetCompression),
}

impl CompressionRule {
    /// The codec `batch` must be written again with, if any (Kafka's `inPlaceAssignment` is
    /// false): a target other than its own codec, except that an uncompressed control batch
    /// stays as it is.
    fn recompression_for(self, batch: &RecordBatch) -> Option<TargetCompression> {
        let CompressionRule::Target(target) = self else { return None };
        let source = batch.attributes().compression().ok()?;
        let control_kept = source == Compression::None && batch.attributes().is_control();
        (target.codec != source && !control_kept).then_some(target)
    }
}

/// The topic's timestamp settings.
#[derive(Debug, Clone, Copy)]
pub struct TimestampRules {
    /// `message.timestamp.type`: LogAppendTime replaces the producer's timestamps.
    pub log_append_time: bool,
    /// `message.timestamp.before.max.ms`.
    pub before_max_ms: i64,
    /// `message.timestamp.after.max.ms`.
    pub after_max_ms: i64,
}

/// Whether the topic keeps only the latest record per key: its records need keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRule {
    Optional,
    Required,
}

/// Everything a partition's record set is checked against.
#[derive(Debug, Clone, Copy)]
pub struct ProduceRules {
    /// The topic's `max.message.bytes`.
    pub message_bytes_max: usize,
    pub timestamps: TimestampRules,
    pub keys: KeyRule,
    /// The Produce request's version (zstd needs v7).
    pub version: i16,
    /// The topic's `compression.type`.
    pub compression: CompressionRule,
    /// The topic's delayed-delivery settings (Strand's own).
    pub delay: crate::delayed::DelayRule,
}

/// Why a record set was refused; each maps to the Produce error code Kafka answers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordSetError {
    /// CORRUPT_MESSAGE: a bad CRC, a batch length or magic no batch can have.
    #[error("corrupt record batch: {0}")]
    Corrupt(String),
    /// INVALID_RECORD: a batch whose header or records are inconsistent, or not what a client may
    /// send.
    #[error("invalid record batch: {0}")]
    Invalid(String),
    /// MESSAGE_TOO_LARGE.
    #[error("batch of {size} bytes exceeds message.max.bytes ({max})")]
    TooLarge { size: usize, max: usize },
    /// INVALID_TIMESTAMP.
    #[error("timestamp {timestamp} is outside the allowed range around {now}")]
    InvalidTimestamp { timestamp: i64, now: i64 },
    /// INVALID_RECORD: a record without a key for a compacted topic (Kafka's wording).
    #[error("Compacted topic cannot accept message without key")]
    MissingKey,
    /// MESSAGE_TOO_LARGE: the batch, written with the topic's codec, is larger than
    /// `max.message.bytes` (Kafka checks the rebuilt batch again).
    #[error("the batch recompressed with the topic's codec exceeds max.message.bytes ({max})")]
    RecompressedTooLarge { max: usize },
    /// UNSUPPORTED_COMPRESSION_TYPE: zstd in a Produce request older than v7.
    #[error("zstd compression needs Produce v7 or later (got v{0})")]
    ZstdTooOld(i16),
}

/// The smallest `batchLength` Kafka's record set reader accepts before it looks at the magic
/// (`LegacyRecord.RECORD_OVERHEAD_V0`).
const BATCH_LENGTH_MIN: i32 = 14;
/// The bytes up to and including the magic (Kafka's `HEADER_SIZE_UP_TO_MAGIC`).
const HEADER_BYTES_TO_MAGIC: usize = 17;
/// The first Produce version that may carry zstd (KIP-110).
const ZSTD_PRODUCE_VERSION_MIN: i16 = 7;

/// Checks a partition's record set and returns its one batch, ready to append. Runs every check
/// on the caller's thread; [`validate_record_set_async`] moves a compressed batch's walk off it.
pub fn validate_record_set(
    records: &Bytes,
    rules: ProduceRules,
    now_ms: i64,
) -> Result<ValidatedBatch, RecordSetError> {
    let (batch, validated) = check_batch(records, rules)?;
    check_records(&batch, validated, rules, now_ms)
}

/// [`validate_record_set`], with a compressed batch's records walked on a blocking thread.
pub async fn validate_record_set_async(
    records: &Bytes,
    rules: ProduceRules,
    now_ms: i64,
) -> Result<ValidatedBatch, RecordSetError> {
    let (batch, validated) = check_batch(records, rules)?;
    let recompressing = rules.compression.recompression_for(&batch).is_some();
    if batch.attributes().compression() == Ok(Compression::None) && !recompressing {
        return check_records(&batch, validated, rules, now_ms);
    }
    // The semaphore is never closed; a turn is held until the blocking work ends.
    let _turn = match recompressing {
        true => RECOMPRESSIONS.acquire().await.ok(),
        false => None,
    };
    tokio::task::spawn_blocking(move || check_records(&batch, validated, rules, now_ms))
        .await
        .unwrap_or_else(|e| Err(RecordSetError::Invalid(format!("the batch's check did not finish: {e}"))))
}

/// Steps 1 and 2: the record set's one batch (a view of the request's bytes, and the copy that
/// will be appended) and its header.
fn check_batch(records: &Bytes, rules: ProduceRules) -> Result<(RecordBatch, ValidatedBatch), RecordSetError> {
    let first = next_batch_len(records)?
        .ok_or_else(|| RecordSetError::Invalid("a produce request needs one record batch per partition".into()))?;
    if records[HEADER_BYTES_TO_MAGIC - 1] != MAGIC as u8 {
        return Err(RecordSetError::Invalid("only record batches with magic 2 are accepted".into()));
    }
    let batch = RecordBatch::parse(records.slice(..first)).map_err(|e| RecordSetError::Corrupt(e.to_string()))?;
    if rules.version < ZSTD_PRODUCE_VERSION_MIN && batch.attributes().compression() == Ok(Compression::Zstd) {
        return Err(RecordSetError::ZstdTooOld(rules.version));
    }
    if next_batch_len(&records.slice(first..))?.is_some() {
        return Err(RecordSetError::Invalid("only one record batch per partition is allowed".into()));
    }
    let validated = check_header(&batch, rules)?;
    Ok((batch, validated))
}

/// The length of the whole batch at the start of `bytes`, as Kafka's `ByteBufferLogInputStream`
/// finds it: `None` when `bytes` cannot hold a whole batch (too short to read, or cut short);
/// an error when its length or magic is impossible.
fn next_batch_len(bytes: &[u8]) -> Result<Option<usize>, RecordSetError> {
    let Some(length) = bytes.get(8..LOG_OVERHEAD) else { return Ok(None) };
    let length = i32::from_be_bytes([length[0], length[1], length[2], length[3]]);
    if length < BATCH_LENGTH_MIN {
        return Err(RecordSetError::Corrupt(format!("record size {length} is less than the minimum")));
    }
    let Some(&magic) = bytes.get(HEADER_BYTES_TO_MAGIC - 1) else { return Ok(None) };
    if !(0..=MAGIC).contains(&(magic as i8)) {
        return Err(RecordSetError::Corrupt(format!("invalid magic {}", magic as i8)));
    }
    let whole = LOG_OVERHEAD + length as usize;
    Ok((bytes.len() >= whole).then_some(whole))
}

/// Step 2: what Kafka checks of a client's batch before its records, in its order. The CRC,
/// the codec and the count against `lastOffsetDelta` are [`ValidatedBatch::validate`]'s checks
/// (made once, on the copy that will be appended); the client-only ones follow.
fn check_header(batch: &RecordBatch, rules: ProduceRules) -> Result<ValidatedBatch, RecordSetError> {
    let invalid = |m: String| Err(RecordSetError::Invalid(m));
    if batch.base_offset() != 0 {
        return invalid(format!("the base offset of a produced batch must be 0, not {}", batch.base_offset()));
    }
    let size = batch.size_in_bytes();
    if size > rules.message_bytes_max {
        return Err(RecordSetError::TooLarge { size, max: rules.message_bytes_max });
    }
    let validated = match ValidatedBatch::validate(BytesMut::from(&batch.as_bytes()[..])) {
        Ok(validated) => validated,
        // Its first check; only on this rare path is the CRC computed again, to name the error.
        Err(_) if !batch.crc_is_valid() => {
            return Err(RecordSetError::Corrupt(format!("CRC {} does not match the batch", batch.crc())));
        }
        Err(e) => return invalid(e.to_string()),
    };
    if batch.attributes().is_control() {
        return invalid("clients may not write control records".into());
    }
    if batch.producer_id().0 >= 0 && batch.base_sequence() < 0 {
        return invalid(format!(
            "invalid sequence {} for producer id {}",
            batch.base_sequence(),
            batch.producer_id().0
        ));
    }
    Ok(validated)
}

/// Step 3: walks the records (decompressing a compressed batch), applies the topic's rules and
/// returns the batch to append.
fn check_records(
    batch: &RecordBatch,
    mut validated: ValidatedBatch,
    rules: ProduceRules,
    now_ms: i64,
) -> Result<ValidatedBatch, RecordSetError> {
    let summary = summarize(batch, DECOMPRESSED_BATCH_BYTES_MAX).map_err(|e| RecordSetError::Invalid(e.to_string()))?;
    let compressed = batch.attributes().compression() != Ok(Compression::None);
    if compressed && !summary.offsets_in_order {
        return Err(RecordSetError::Invalid(
            "a compressed batch's records must have offset deltas 0, 1, 2, ...".into(),
        ));
    }
    if rules.keys == KeyRule::Required && summary.keyless {
        return Err(RecordSetError::MissingKey);
    }
    if !rules.timestamps.log_append_time {
        check_timestamps(&summary, rules.timestamps, now_ms)?;
    }
    // Delayed delivery: a record due later turns the batch into a pending batch in its place.
    if summary.delay_headers || rules.delay.topic_delay_ms > 0 {
        let (log_append_time, compacted) = (rules.timestamps.log_append_time, rules.keys == KeyRule::Required);
        if let Some(pending) = crate::delayed::pending_instead(batch, rules.delay, log_append_time, compacted, now_ms)?
        {
            return Ok(pending);
        }
    }
    if let Some(target) = rules.compression.recompression_for(batch) {
        return recompressed(batch, target, rules, now_ms);
    }
    // The one rewrite of a producer's bytes Kafka makes on this path: under LogAppendTime the
    // batch carries the broker's time; under CreateTime its max timestamp is its records'
    // largest. The CRC is recomputed only if a field changed.
    let stamped = if rules.timestamps.log_append_time {
        validated.set_max_timestamp(TimestampType::LogAppendTime, now_ms)
    } else {
        validated.set_max_timestamp(TimestampType::CreateTime, summary.max_timestamp)
    };
    stamped.map_err(|e| RecordSetError::Corrupt(e.to_string()))?;
    Ok(validated)
}

/// Step 4: `batch` written again with `target`, stamped as [`check_records`] would stamp it.
fn recompressed(
    batch: &RecordBatch,
    target: TargetCompression,
    rules: ProduceRules,
    now_ms: i64,
) -> Result<ValidatedBatch, RecordSetError> {
    let how = Recompression {
        target,
        log_append_time_ms: rules.timestamps.log_append_time.then_some(now_ms),
        decompressed_bytes_max: DECOMPRESSED_BATCH_BYTES_MAX,
        batch_bytes_max: rules.message_bytes_max,
    };
    let bytes = recompress(batch, &how).map_err(|e| match e {
        strand_protocol::records::RecordsError::RecompressedTooLarge { limit_bytes } => {
            RecordSetError::RecompressedTooLarge { max: limit_bytes }
        }
        other => RecordSetError::Invalid(other.to_string()),
    })?;
    let bytes = bytes.try_into_mut().unwrap_or_else(|shared| BytesMut::from(&shared[..]));
    ValidatedBatch::validate(bytes).map_err(|e| RecordSetError::Invalid(e.to_string()))
}

/// Every record's timestamp (its smallest and largest) against `message.timestamp.*`.
fn check_timestamps(summary: &RecordsSummary, rules: TimestampRules, now_ms: i64) -> Result<(), RecordSetError> {
    if summary.max_timestamp == -1 {
        return Ok(());
    }
    let too_old = now_ms.saturating_sub(summary.min_timestamp) > rules.before_max_ms;
    let too_new = summary.max_timestamp.saturating_sub(now_ms) > rules.after_max_ms;
    match (too_old, too_new) {
        (true, _) => Err(RecordSetError::InvalidTimestamp { timestamp: summary.min_timestamp, now: now_ms }),
        (_, true) => Err(RecordSetError::InvalidTimestamp { timestamp: summary.max_timestamp, now: now_ms }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strand_protocol::records::{NewRecord, RecordBatchBuilder};

    const TIMESTAMPS: TimestampRules =
        TimestampRules { log_append_time: false, before_max_ms: i64::MAX, after_max_ms: 3_600_000 };
    const RULES: ProduceRules = ProduceRules {
        message_bytes_max: 1 << 20,
        timestamps: TIMESTAMPS,
        keys: KeyRule::Optional,
        version: 9,
        compression: CompressionRule::Producer,
        delay: crate::delayed::DelayRule::DEFAULT,
    };

    fn batch(timestamp_ms: i64) -> Bytes {
        let mut builder = RecordBatchBuilder::new();
        builder.append(&NewRecord { timestamp_ms, key: None, value: Some(b"v"), headers: &[] }).expect("record");
        builder.build().expect("batch")
    }

    fn check(records: &Bytes, rules: ProduceRules, now: i64) -> Result<(), RecordSetError> {
        validate_record_set(records, rules, now).map(|_| ())
    }

    /// A good batch passes; a flipped byte, a cut batch, two batches, an oversized batch, a
    /// timestamp from the future and an empty set each fail with their own reason.
    #[test]
    fn record_sets_are_checked() {
        let now = 1_700_000_000_000;
        assert_eq!(check(&batch(now), RULES, now), Ok(()));

        let mut corrupt = batch(now).to_vec();
        let last = corrupt.len() - 1;
        corrupt[last] ^= 1;
        let err = check(&Bytes::from(corrupt), RULES, now).err();
        assert!(matches!(err, Some(RecordSetError::Corrupt(_))), "{err:?}");

        let whole = batch(now);
        let cut = whole.slice(..whole.len() - 3);
        assert!(matches!(check(&cut, RULES, now), Err(RecordSetError::Invalid(_))));
        let two = Bytes::from([whole.to_vec(), whole.to_vec()].concat());
        assert!(matches!(check(&two, RULES, now), Err(RecordSetError::Invalid(_))));
        let stray = Bytes::from([whole.to_vec(), vec![1, 2, 3]].concat());
        assert_eq!(check(&stray, RULES, now), Ok(()));

        let small = ProduceRules { message_bytes_max: 10, ..RULES };
        assert!(matches!(check(&batch(now), small, now), Err(RecordSetError::TooLarge { .. })));

        let err = check(&batch(now + 7_200_000), RULES, now).err();
        assert!(matches!(err, Some(RecordSetError::InvalidTimestamp { .. })), "{err:?}");

        assert!(matches!(check(&Bytes::new(), RULES, now), Err(RecordSetError::Invalid(_))));
    }

    /// A compacted topic refuses a record without a key, compressed or not, and takes keyed ones.
    #[test]
    fn compacted_topics_need_keys() {
        let now = 1_700_000_000_000;
        let compacted = ProduceRules { keys: KeyRule::Required, ..RULES };
        for codec in [Compression::None, Compression::Lz4] {
            let build = |key: Option<&[u8]>| {
                let mut builder = RecordBatchBuilder::new().compression(codec);
                builder
                    .append(&NewRecord { timestamp_ms: now, key: Some(b"k"), value: Some(b"v"), headers: &[] })
                    .expect("record");
                builder.append(&NewRecord { timestamp_ms: now, key, value: Some(b"v"), headers: &[] }).expect("record");
                builder.build().expect("batch")
            };
            assert_eq!(check(&build(Some(b"k2")), compacted, now), Ok(()), "{codec:?}");
            assert_eq!(check(&build(None), compacted, now), Err(RecordSetError::MissingKey), "{codec:?}");
            assert_eq!(check(&build(None), RULES, now), Ok(()));
        }
    }

    /// zstd is refused before Produce v7 (KIP-110), taken from v7 on.
    #[test]
    fn zstd_needs_produce_v7() {
        let now = 1_700_000_000_000;
        let mut builder = RecordBatchBuilder::new().compression(Compression::Zstd);
        builder.append(&NewRecord { timestamp_ms: now, key: None, value: Some(b"v"), headers: &[] }).expect("record");
        let zstd = builder.build().expect("batch");
        assert_eq!(check(&zstd, ProduceRules { version: 6, ..RULES }, now), Err(RecordSetError::ZstdTooOld(6)));
        assert_eq!(check(&zstd, ProduceRules { version: 7, ..RULES }, now), Ok(()));
    }

    /// Under LogAppendTime the batch carries the broker's time; under CreateTime a max timestamp
    /// that is not the records' largest is corrected; both with a valid CRC.
    #[test]
    fn the_max_timestamp_is_the_brokers_or_the_records() {
        let rules = ProduceRules { timestamps: TimestampRules { log_append_time: true, ..TIMESTAMPS }, ..RULES };
        let stamped = validate_record_set(&batch(5), rules, 42).expect("valid");
        let view = RecordBatch::parse(Bytes::copy_from_slice(stamped.as_bytes())).expect("batch");
        assert_eq!((view.max_timestamp(), view.attributes().timestamp_type()), (42, TimestampType::LogAppendTime));
        assert!(view.crc_is_valid());

        let mut lying = batch(1_000).to_vec();
        lying[35..43].copy_from_slice(&7i64.to_be_bytes());
        let crc = crc32c::crc32c(&lying[21..]);
        lying[17..21].copy_from_slice(&crc.to_be_bytes());
        let fixed = validate_record_set(&Bytes::from(lying), RULES, 2_000).expect("valid");
        let view = RecordBatch::parse(Bytes::copy_from_slice(fixed.as_bytes())).expect("batch");
        assert_eq!(view.max_timestamp(), 1_000);
        assert!(view.crc_is_valid());
    }

    fn rule(codec: Compression) -> ProduceRules {
        ProduceRules { compression: CompressionRule::Target(TargetCompression { codec, level: None }), ..RULES }
    }

    fn codec_batch(codec: Compression, now: i64) -> Bytes {
        let mut builder = RecordBatchBuilder::new().compression(codec).producer(strand_base::ProducerId(9), 1, 4);
        for value in [&b"a"[..], b"bb", b"ccc"] {
            builder
                .append(&NewRecord { timestamp_ms: now, key: None, value: Some(value), headers: &[] })
                .expect("record");
        }
        builder.build().expect("batch")
    }

    /// A topic codec other than the batch's stores the batch in the topic's codec with the
    /// producer's fields; the batch's own codec, or `producer`, stores the bytes as they came.
    #[test]
    fn the_topic_codec_decides_what_is_stored() {
        let now = 1_700_000_000_000;
        for from in Compression::ALL {
            let sent = codec_batch(from, now);
            for to in Compression::ALL {
                let stored = validate_record_set(&sent, rule(to), now).expect("valid");
                let view = RecordBatch::parse(Bytes::copy_from_slice(stored.as_bytes())).expect("batch");
                assert_eq!(view.attributes().compression(), Ok(to), "{from} -> {to}");
                assert_eq!((view.producer_id().0, view.producer_epoch(), view.base_sequence()), (9, 1, 4));
                assert_eq!((view.record_count(), view.max_timestamp()), (3, now));
                assert!(view.crc_is_valid());
                if from == to {
                    assert_eq!(stored.as_bytes(), &sent[..], "{from} kept as is");
                }
            }
            let kept = validate_record_set(&sent, RULES, now).expect("valid");
            assert_eq!(kept.as_bytes(), &sent[..], "producer keeps {from}");
        }
    }

    /// A batch recompressed past `max.message.bytes` is MESSAGE_TOO_LARGE; a lying batch is
    /// refused before any recompression, as without it.
    #[test]
    fn recompression_keeps_the_limits_and_the_checks() {
        let now = 1_700_000_000_000;
        let mut builder = RecordBatchBuilder::new().compression(Compression::Zstd);
        let zeros = vec![0u8; 100_000];
        builder.append(&NewRecord { timestamp_ms: now, key: None, value: Some(&zeros), headers: &[] }).expect("record");
        let small = builder.build().expect("batch");
        let limited = ProduceRules { message_bytes_max: 50_000, ..rule(Compression::None) };
        assert_eq!(check(&small, limited, now), Err(RecordSetError::RecompressedTooLarge { max: 50_000 }));
        assert_eq!(check(&small, ProduceRules { message_bytes_max: 50_000, ..rule(Compression::Gzip) }, now), Ok(()));

        let mut lying = codec_batch(Compression::None, now).to_vec();
        lying[57..61].copy_from_slice(&2i32.to_be_bytes());
        lying[23..27].copy_from_slice(&1i32.to_be_bytes());
        let crc = crc32c::crc32c(&lying[21..]);
        lying[17..21].copy_from_slice(&crc.to_be_bytes());
        let err = check(&Bytes::from(lying), rule(Compression::Lz4), now).err();
        assert!(matches!(err, Some(RecordSetError::Invalid(_))), "{err:?}");
    }
}
