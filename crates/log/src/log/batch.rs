//! What a leader append takes and what an append returns: [`ValidatedBatch`] (a batch checked
//! once, on the produce path, before the log's lock), its [`BatchProducer`] fields, and
//! [`AppendInfo`].

use bytes::BytesMut;
use strand_base::Offset;
use strand_protocol::records::{RecordBatch, RecordBatchMut, TimestampType};

use crate::{LogError, Result};

/// A batch that passed the checks every leader append needs (header, length, magic, CRC, a
/// record count of at least one that `lastOffsetDelta` agrees with, and, uncompressed, records'
/// length prefixes that add up to it): the only thing [`Log::append_as_leader`](super::Log::append_as_leader) accepts. What a
/// client's batch must pass beyond that (Kafka's `LogValidator`) is the broker's produce path's.
#[derive(Debug)]
pub struct ValidatedBatch {
    pub(super) bytes: BytesMut,
    pub(super) record_count: i32,
    producer: BatchProducer,
}

/// The producer fields of a batch's header, read when it is validated (for the broker's
/// transaction checks before it appends).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchProducer {
    /// -1 for a batch of no idempotent producer.
    pub producer_id: strand_base::ProducerId,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    /// The transactional attribute (data or a marker).
    pub transactional: bool,
    /// The control attribute: a transaction marker or another control record.
    pub control: bool,
}

impl ValidatedBatch {
    /// Checks one batch without decoding its records (their length prefixes only, when it is
    /// uncompressed).
    pub fn validate(bytes: BytesMut) -> Result<ValidatedBatch> {
        // The view shares the buffer; once it is dropped the buffer is unique again and turns back
        // into a mutable one without a copy (the produce path copies a batch once, not twice).
        let frozen = bytes.freeze();
        let batch = RecordBatch::parse(frozen.clone()).map_err(|e| LogError::InvalidBatch(e.to_string()))?;
        if !batch.crc_is_valid() {
            return Err(LogError::InvalidBatch("CRC mismatch".into()));
        }
        let compressed = batch.attributes().compression().map_err(|e| LogError::InvalidBatch(e.to_string()))?;
        if compressed == strand_protocol::records::Compression::None {
            batch.validate_uncompressed_record_count().map_err(|e| LogError::InvalidBatch(e.to_string()))?;
        }
        let record_count = batch.record_count();
        if record_count <= 0 {
            return Err(LogError::InvalidBatch("a batch must hold at least one record".into()));
        }
        // Offsets are assigned from the header: a last offset delta that disagrees with the count
        // would make offsets go backwards or leave gaps.
        if i64::from(batch.last_offset_delta()) != i64::from(record_count) - 1 {
            return Err(LogError::InvalidBatch(format!(
                "lastOffsetDelta {} does not match the record count {record_count}",
                batch.last_offset_delta()
            )));
        }
        let producer = BatchProducer {
            producer_id: batch.producer_id(),
            producer_epoch: batch.producer_epoch(),
            base_sequence: batch.base_sequence(),
            transactional: batch.attributes().is_transactional(),
            control: batch.attributes().is_control(),
        };
        drop(batch);
        let bytes = frozen.try_into_mut().unwrap_or_else(|shared| BytesMut::from(&shared[..]));
        Ok(ValidatedBatch { bytes, record_count, producer })
    }

    pub fn record_count(&self) -> i32 {
        self.record_count
    }

    /// The batch's bytes as they will be appended (before offsets are assigned).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Sets the timestamp type and the max timestamp, recomputing the CRC if either changes (the
    /// produce path's one rewrite: LogAppendTime, or a max timestamp that is not the records'
    /// largest). The batch stays valid: nothing else changes.
    pub fn set_max_timestamp(&mut self, timestamp_type: TimestampType, max_timestamp: i64) -> Result<()> {
        let mut view = RecordBatchMut::new(&mut self.bytes).map_err(|e| LogError::InvalidBatch(e.to_string()))?;
        view.set_max_timestamp_and_type(timestamp_type, max_timestamp);
        Ok(())
    }

    /// The batch's producer fields.
    pub fn producer(&self) -> BatchProducer {
        self.producer
    }
}

/// What an append did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AppendInfo {
    pub first_offset: Offset,
    pub last_offset: Offset,
    pub max_timestamp: i64,
    /// The batch was a producer's retry of one already in the log: nothing was appended and the
    /// offsets are the original batch's (Kafka answers success with them).
    pub duplicate: bool,
}
