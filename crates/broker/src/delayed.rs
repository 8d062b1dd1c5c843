//! Delayed delivery on the produce path (ARCHITECTURE.md, "Delayed delivery"): a batch with a
//! record due later (its `strand.deliver.at` or `strand.delay.ms` header, or its topic's
//! `delivery.delay.ms`) is stored as a pending batch in its place, with the same producer
//! fields, so idempotence and transactions hold as for the batch it replaces. The partition's
//! leader appends copies of its records to the topic once they are due. A batch whose records
//! carry the `strand.cancel` header is stored as a cancel batch: each of its keys' pending
//! records is dropped.

use bytes::{Bytes, BytesMut};
use strand_base::limits::DECOMPRESSED_BATCH_BYTES_MAX;
use strand_log::log::ValidatedBatch;
use strand_protocol::records::delayed::{
    CANCEL_HEADER, DELAY_MS_HEADER, DELIVER_AT_HEADER, PendingRecord, cancel_batch, pending_batch,
};
use strand_protocol::records::{Record, RecordBatch};

use crate::validation::RecordSetError;

/// The topic config giving every record of the topic a delay, in milliseconds (0: none).
pub const DELIVERY_DELAY_MS: &str = "delivery.delay.ms";
/// The topic config bounding how far ahead a record may be due, in milliseconds.
pub const DELIVERY_DELAY_MAX_MS: &str = "delivery.delay.max.ms";

/// A topic's delayed-delivery settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DelayRule {
    /// `delivery.delay.ms`.
    pub topic_delay_ms: i64,
    /// `delivery.delay.max.ms`.
    pub max_delay_ms: i64,
}

impl DelayRule {
    /// No topic delay; headers may still ask for one, up to 90 days.
    pub const DEFAULT: DelayRule = DelayRule { topic_delay_ms: 0, max_delay_ms: 90 * 24 * 3_600_000 };
}

/// The pending batch to store instead of `batch`, if one of its records is due after `now`;
/// `None` if all are due (the batch is stored as it came). `compacted`: the topic keeps the
/// latest record per key, which delayed delivery does not serve (INVALID_RECORD).
pub fn pending_instead(
    batch: &RecordBatch,
    rule: DelayRule,
    log_append_time: bool,
    compacted: bool,
    now: i64,
) -> Result<Option<ValidatedBatch>, RecordSetError> {
    let invalid = |m: String| RecordSetError::Invalid(m);
    let records = batch.records_with_limit(DECOMPRESSED_BATCH_BYTES_MAX).map_err(|e| invalid(e.to_string()))?;
    if let Some(cancels) = cancellations(batch, &records)? {
        if compacted {
            return Err(invalid(
                "delayed delivery is not supported on a compacted topic (cleanup.policy=compact)".into(),
            ));
        }
        let producer = (batch.producer_id(), batch.producer_epoch(), batch.base_sequence());
        let bytes = cancel_batch(producer, &cancels).map_err(|e| invalid(e.to_string()))?;
        return ValidatedBatch::validate(BytesMut::from(&bytes[..])).map(Some).map_err(|e| invalid(e.to_string()));
    }
    let mut pending = Vec::with_capacity(usize::try_from(batch.record_count()).unwrap_or(0));
    let mut later = false;
    for record in records.iter() {
        let record = record.map_err(|e| invalid(e.to_string()))?;
        let due = due_time(&record, rule, now)?;
        later |= due > now;
        pending.push(PendingRecord {
            due_ms: due,
            timestamp_ms: if log_append_time { now } else { batch.record_timestamp(&record) },
            key: record.key().map(Bytes::copy_from_slice),
            value: record.value().map(Bytes::copy_from_slice),
            headers: record.headers().map(|h| (h.key.to_owned(), h.value.map(Bytes::copy_from_slice))).collect(),
        });
    }
    if !later {
        return Ok(None);
    }
    if compacted {
        return Err(invalid("delayed delivery is not supported on a compacted topic (cleanup.policy=compact)".into()));
    }
    let producer = (batch.producer_id(), batch.producer_epoch(), batch.base_sequence());
    let bytes =
        pending_batch(producer, batch.attributes().is_transactional(), &pending).map_err(|e| invalid(e.to_string()))?;
    ValidatedBatch::validate(BytesMut::from(&bytes[..])).map(Some).map_err(|e| invalid(e.to_string()))
}

/// The keys (with their records' timestamps) a batch of cancellations names: `None` if no record
/// carries the cancel header; INVALID_RECORD if only some do, one has no key, or the batch is
/// transactional.
fn cancellations(
    batch: &RecordBatch,
    records: &strand_protocol::records::BatchRecords,
) -> Result<Option<Vec<(i64, Bytes)>>, RecordSetError> {
    let invalid = |m: &str| RecordSetError::Invalid(m.to_string());
    let mut cancels = Vec::new();
    let mut plain = false;
    for record in records.iter() {
        let record = record.map_err(|e| RecordSetError::Invalid(e.to_string()))?;
        if !record.headers().any(|h| h.key == CANCEL_HEADER) {
            plain = true;
            continue;
        }
        let key = record.key().ok_or_else(|| invalid("a record with the strand.cancel header needs a key"))?;
        cancels.push((batch.record_timestamp(&record), Bytes::copy_from_slice(key)));
    }
    match (cancels.is_empty(), plain) {
        (true, _) => Ok(None),
        (false, true) => Err(invalid("a batch with strand.cancel records may hold nothing else")),
        (false, false) if batch.attributes().is_transactional() => {
            Err(invalid("strand.cancel is not accepted in a transaction"))
        }
        (false, false) => Ok(Some(cancels)),
    }
}

/// A record's due time: its `strand.deliver.at` (epoch ms), else its append time plus its
/// `strand.delay.ms`, else plus the topic's delay; never more than `delivery.delay.max.ms` ahead.
fn due_time(record: &Record<'_>, rule: DelayRule, now: i64) -> Result<i64, RecordSetError> {
    let (mut at, mut delay) = (None, None);
    for header in record.headers() {
        match header.key {
            DELIVER_AT_HEADER => at = Some(header_number(DELIVER_AT_HEADER, header.value)?),
            DELAY_MS_HEADER => delay = Some(header_number(DELAY_MS_HEADER, header.value)?),
            _ => {}
        }
    }
    let due = at.unwrap_or_else(|| now.saturating_add(delay.unwrap_or(rule.topic_delay_ms)));
    if due.saturating_sub(now) > rule.max_delay_ms {
        return Err(RecordSetError::Invalid(format!(
            "a record is due {} ms from now, more than {DELIVERY_DELAY_MAX_MS} ({})",
            due.saturating_sub(now),
            rule.max_delay_ms
        )));
    }
    Ok(due)
}

/// A header's value as a non-negative decimal number of milliseconds.
fn header_number(name: &str, value: Option<&[u8]>) -> Result<i64, RecordSetError> {
    value
        .and_then(|v| std::str::from_utf8(v).ok())
        .and_then(|v| v.trim().parse::<i64>().ok())
        .filter(|n| *n >= 0)
        .ok_or_else(|| {
            RecordSetError::Invalid(format!("header {name} must be a non-negative number of milliseconds in decimal"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use strand_base::ProducerId;
    use strand_protocol::records::delayed::{DelayedKind, delayed_kind, read_pending};
    use strand_protocol::records::{Header, NewRecord, RecordBatchBuilder};

    fn batch(headers: &[&[Header<'_>]]) -> RecordBatch {
        let mut builder = RecordBatchBuilder::new().producer(ProducerId(7), 1, 40);
        for h in headers {
            builder
                .append(&NewRecord { timestamp_ms: 900, key: Some(b"k"), value: Some(b"v"), headers: h })
                .expect("appends");
        }
        RecordBatch::parse(builder.build().expect("builds")).expect("parses")
    }

    /// Each way of naming a due time, the precedence of `strand.deliver.at`, the pending batch's
    /// producer fields, and the refusals.
    #[test]
    fn due_times_and_refusals() {
        let at = [
            Header { key: DELIVER_AT_HEADER, value: Some(b"5000") },
            Header { key: DELAY_MS_HEADER, value: Some(b"1") },
        ];
        let delay = [Header { key: DELAY_MS_HEADER, value: Some(b"250") }];
        let plain: [Header<'_>; 0] = [];
        let b = batch(&[&at, &delay, &plain]);
        let pending = pending_instead(&b, DelayRule::DEFAULT, false, false, 1000).expect("valid").expect("pending");
        let stored = RecordBatch::parse(Bytes::copy_from_slice(pending.as_bytes())).expect("parses");
        assert_eq!(delayed_kind(&stored), Some(DelayedKind::Pending));
        assert_eq!((stored.producer_id(), stored.producer_epoch(), stored.base_sequence()), (ProducerId(7), 1, 40));
        let dues: Vec<i64> = read_pending(&stored).expect("reads").into_iter().map(|(_, r)| r.due_ms).collect();
        assert_eq!(dues, vec![5000, 1250, 1000]);

        assert!(pending_instead(&batch(&[&plain]), DelayRule::DEFAULT, false, false, 1000).expect("valid").is_none());
        let topic = DelayRule { topic_delay_ms: 10, ..DelayRule::DEFAULT };
        assert!(pending_instead(&batch(&[&plain]), topic, false, false, 1000).expect("valid").is_some());
        let bounded = DelayRule { topic_delay_ms: 0, max_delay_ms: 100 };
        assert!(matches!(pending_instead(&b, bounded, false, false, 1000), Err(RecordSetError::Invalid(_))));
        assert!(matches!(pending_instead(&b, DelayRule::DEFAULT, false, true, 1000), Err(RecordSetError::Invalid(_))));
        let cancel = [Header { key: CANCEL_HEADER, value: None }];
        let cancelled = pending_instead(&batch(&[&cancel, &cancel]), DelayRule::DEFAULT, false, false, 0);
        let stored = RecordBatch::parse(Bytes::copy_from_slice(cancelled.expect("valid").expect("cancel").as_bytes()));
        assert_eq!(delayed_kind(&stored.expect("parses")), Some(DelayedKind::Cancel));
        let mixed = pending_instead(&batch(&[&cancel, &plain]), DelayRule::DEFAULT, false, false, 0);
        assert!(matches!(mixed, Err(RecordSetError::Invalid(_))), "cancels mixed with records");
        let bad = [Header { key: DELAY_MS_HEADER, value: Some(b"soon") }];
        assert!(matches!(
            pending_instead(&batch(&[&bad]), DelayRule::DEFAULT, false, false, 0),
            Err(RecordSetError::Invalid(_))
        ));
    }
}
