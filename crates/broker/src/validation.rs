//! The produce path's checks on a partition's record set, before anything is appended: split
//! into batches, each a whole magic-2 batch with a valid CRC and (uncompressed) a record count
//! that matches its records' length prefixes, no larger than `message.max.bytes`, with
//! timestamps within `message.timestamp.*`. Records are never decoded (design §3), except for a
//! compacted topic, whose records must all have keys: that check decodes them (decompressing with
//! the named bound), one of design §3's documented exceptions.

use bytes::{Bytes, BytesMut};
use strand_log::log::ValidatedBatch;
use strand_protocol::records::{RecordBatch, RecordBatchMut, RecordBatches, TimestampType};

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

/// Why a record set was refused; each maps to the Produce error code Kafka answers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordSetError {
    /// CORRUPT_MESSAGE: a batch that does not parse, a bad CRC, a count that disagrees.
    #[error("corrupt record batch: {0}")]
    Corrupt(String),
    /// MESSAGE_TOO_LARGE.
    #[error("batch of {size} bytes exceeds message.max.bytes ({max})")]
    TooLarge { size: usize, max: usize },
    /// INVALID_TIMESTAMP.
    #[error("timestamp {timestamp} is outside the allowed range around {now}")]
    InvalidTimestamp { timestamp: i64, now: i64 },
    /// INVALID_RECORD: an empty record set.
    #[error("the record set is empty")]
    Empty,
    /// INVALID_RECORD: a record without a key for a compacted topic (Kafka's wording).
    #[error("Compacted topic cannot accept message without key")]
    MissingKey,
}

/// Whether the topic keeps only the latest record per key: its records need keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyRule {
    Optional,
    Required,
}

/// Checks a partition's record set and returns its batches, ready to append.
pub fn validate_record_set(
    records: &Bytes,
    message_bytes_max: usize,
    rules: TimestampRules,
    keys: KeyRule,
    now_ms: i64,
) -> Result<Vec<ValidatedBatch>, RecordSetError> {
    let mut batches = Vec::new();
    let mut split = RecordBatches::new(records.clone());
    for batch in split.by_ref() {
        let batch = batch.map_err(|e| RecordSetError::Corrupt(e.to_string()))?;
        if keys == KeyRule::Required && !batch.attributes().is_control() {
            check_keys(&batch)?;
        }
        batches.push(validate_batch(batch, message_bytes_max, rules, now_ms)?);
    }
    if split.partial_tail() || !split.remaining().is_empty() {
        return Err(RecordSetError::Corrupt("the record set ends in a partial batch".into()));
    }
    if batches.is_empty() {
        return Err(RecordSetError::Empty);
    }
    Ok(batches)
}

/// Every record of `batch` has a key (decompressing within `DECOMPRESSED_BATCH_BYTES_MAX`).
fn check_keys(batch: &RecordBatch) -> Result<(), RecordSetError> {
    let records = batch.records().map_err(|e| RecordSetError::Corrupt(e.to_string()))?;
    for record in records.iter() {
        let record = record.map_err(|e| RecordSetError::Corrupt(e.to_string()))?;
        if record.key().is_none() {
            return Err(RecordSetError::MissingKey);
        }
    }
    Ok(())
}

fn validate_batch(
    batch: RecordBatch,
    message_bytes_max: usize,
    rules: TimestampRules,
    now_ms: i64,
) -> Result<ValidatedBatch, RecordSetError> {
    let size = batch.size_in_bytes();
    if size > message_bytes_max {
        return Err(RecordSetError::TooLarge { size, max: message_bytes_max });
    }
    if !rules.log_append_time && !batch.attributes().is_control() {
        for timestamp in [batch.base_timestamp(), batch.max_timestamp()] {
            let too_old = now_ms.saturating_sub(timestamp) > rules.before_max_ms;
            let too_new = timestamp.saturating_sub(now_ms) > rules.after_max_ms;
            if too_old || too_new {
                return Err(RecordSetError::InvalidTimestamp { timestamp, now: now_ms });
            }
        }
    }
    let mut bytes = BytesMut::from(&batch.as_bytes()[..]);
    if rules.log_append_time {
        // The one rewrite of a producer's bytes Kafka makes on this path: the batch says
        // LogAppendTime and carries the broker's time, with its CRC recomputed.
        let mut view = RecordBatchMut::new(&mut bytes).map_err(|e| RecordSetError::Corrupt(e.to_string()))?;
        view.set_max_timestamp_and_type(TimestampType::LogAppendTime, now_ms);
    }
    ValidatedBatch::validate(bytes).map_err(|e| RecordSetError::Corrupt(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use strand_protocol::records::{NewRecord, RecordBatchBuilder};

    const RULES: TimestampRules =
        TimestampRules { log_append_time: false, before_max_ms: i64::MAX, after_max_ms: 3_600_000 };

    fn batch(timestamp_ms: i64) -> Bytes {
        let mut builder = RecordBatchBuilder::new();
        builder.append(&NewRecord { timestamp_ms, key: None, value: Some(b"v"), headers: &[] }).expect("record");
        builder.build().expect("batch")
    }

    /// Two good batches pass; a flipped byte, a cut batch, an oversized batch, a timestamp from the
    /// future and an empty set each fail with their own reason.
    #[test]
    fn record_sets_are_checked() {
        let now = 1_700_000_000_000;
        let mut two = batch(now).to_vec();
        two.extend_from_slice(&batch(now));
        assert_eq!(
            validate_record_set(&Bytes::from(two.clone()), 1 << 20, RULES, KeyRule::Optional, now).map(|b| b.len()),
            Ok(2)
        );

        let mut corrupt = two.clone();
        let last = corrupt.len() - 1;
        corrupt[last] ^= 1;
        let err = validate_record_set(&Bytes::from(corrupt), 1 << 20, RULES, KeyRule::Optional, now).err();
        assert!(matches!(err, Some(RecordSetError::Corrupt(_))), "{err:?}");

        let cut = Bytes::from(two[..two.len() - 3].to_vec());
        assert!(matches!(
            validate_record_set(&cut, 1 << 20, RULES, KeyRule::Optional, now),
            Err(RecordSetError::Corrupt(_))
        ));

        let err = validate_record_set(&batch(now), 10, RULES, KeyRule::Optional, now).err();
        assert!(matches!(err, Some(RecordSetError::TooLarge { .. })), "{err:?}");

        let err = validate_record_set(&batch(now + 7_200_000), 1 << 20, RULES, KeyRule::Optional, now).err();
        assert!(matches!(err, Some(RecordSetError::InvalidTimestamp { .. })), "{err:?}");

        assert_eq!(
            validate_record_set(&Bytes::new(), 1 << 20, RULES, KeyRule::Optional, now).err(),
            Some(RecordSetError::Empty)
        );
    }

    /// A compacted topic refuses a record without a key, compressed or not, and takes keyed ones.
    #[test]
    fn compacted_topics_need_keys() {
        use strand_protocol::records::Compression;
        let now = 1_700_000_000_000;
        for codec in [Compression::None, Compression::Lz4] {
            let build = |key: Option<&[u8]>| {
                let mut builder = RecordBatchBuilder::new().compression(codec);
                builder
                    .append(&NewRecord { timestamp_ms: now, key: Some(b"k"), value: Some(b"v"), headers: &[] })
                    .expect("record");
                builder.append(&NewRecord { timestamp_ms: now, key, value: Some(b"v"), headers: &[] }).expect("record");
                builder.build().expect("batch")
            };
            let keyed = validate_record_set(&build(Some(b"k2")), 1 << 20, RULES, KeyRule::Required, now);
            assert_eq!(keyed.map(|b| b.len()), Ok(1), "{codec:?}");
            let keyless = validate_record_set(&build(None), 1 << 20, RULES, KeyRule::Required, now);
            assert_eq!(keyless.err(), Some(RecordSetError::MissingKey), "{codec:?}");
            assert!(validate_record_set(&build(None), 1 << 20, RULES, KeyRule::Optional, now).is_ok());
        }
    }

    /// Under LogAppendTime the batch carries the broker's time and a valid CRC.
    #[test]
    fn log_append_time_rewrites_the_batch() {
        let rules = TimestampRules { log_append_time: true, ..RULES };
        let batches = validate_record_set(&batch(5), 1 << 20, rules, KeyRule::Optional, 42).expect("valid");
        assert_eq!(batches.len(), 1);
    }
}
