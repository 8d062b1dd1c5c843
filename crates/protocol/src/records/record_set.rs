//! [`RecordBatches`]: a record set (the `records` bytes of a Produce request or Fetch response,
//! or a run of a segment file) split into [`RecordBatch`]es without copying.
//!
//! Only framing is checked here: each batch's `batchLength` (at least a header's worth) and magic.
//! A record set may end in a partial batch (a Fetch response is cut at `max_bytes`, a segment at a
//! crash); iteration stops cleanly there and [`RecordBatches::partial_tail`] says so. Whether a
//! partial tail is acceptable is the caller's decision: it is normal in a Fetch response and an
//! error in a Produce request.

use bytes::Bytes;

use super::RecordsError;
use super::batch::{BATCH_LENGTH, BATCH_LENGTH_MIN, LOG_OVERHEAD, MAGIC, MAGIC_POSITION, RecordBatch, field};

/// Splits a record set into batches. Yields an error for a corrupt batch header, then nothing
/// more; stops without an error at a trailing partial batch.
#[derive(Debug, Clone)]
pub struct RecordBatches {
    rest: Bytes,
    partial_tail: bool,
    failed: bool,
}

impl RecordBatches {
    pub fn new(record_set: Bytes) -> Self {
        RecordBatches { rest: record_set, partial_tail: false, failed: false }
    }

    /// Whether iteration stopped at an incomplete batch at the end of the record set.
    pub fn partial_tail(&self) -> bool {
        self.partial_tail
    }

    /// The bytes not yet split off: after the iterator ends, the partial tail (if any).
    pub fn remaining(&self) -> &Bytes {
        &self.rest
    }

    /// The size of the next batch, `None` when only a partial batch is left.
    fn next_batch_size(&self) -> Result<Option<usize>, RecordsError> {
        if self.rest.len() < LOG_OVERHEAD {
            return Ok(None);
        }
        let batch_length = i32::from_be_bytes(field(&self.rest, BATCH_LENGTH));
        if batch_length < BATCH_LENGTH_MIN {
            return Err(RecordsError::BatchLengthTooSmall { batch_length });
        }
        // The magic is checked as soon as it is there, so a partial tail is at least a magic-2 one.
        if self.rest.len() > MAGIC_POSITION {
            let magic = self.rest[MAGIC_POSITION] as i8;
            if magic != MAGIC {
                return Err(RecordsError::UnsupportedMagic(magic));
            }
        }
        let size = batch_length as usize + LOG_OVERHEAD;
        Ok((size <= self.rest.len()).then_some(size))
    }
}

impl Iterator for RecordBatches {
    type Item = Result<RecordBatch, RecordsError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.rest.is_empty() {
            return None;
        }
        match self.next_batch_size() {
            Ok(Some(size)) => {
                let result = RecordBatch::parse(self.rest.split_to(size));
                self.failed = result.is_err();
                Some(result)
            }
            Ok(None) => {
                self.partial_tail = true;
                None
            }
            Err(error) => {
                self.failed = true;
                Some(Err(error))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::builder::{NewRecord, RecordBatchBuilder};

    fn batch(base_offset: i64) -> Bytes {
        let mut builder = RecordBatchBuilder::new().base_offset(base_offset);
        let record = NewRecord { timestamp_ms: 1, key: None, value: Some(b"v"), headers: &[] };
        builder.append(&record).expect("appends");
        builder.build().expect("builds")
    }

    fn record_set(parts: &[&[u8]]) -> Bytes {
        Bytes::from(parts.concat())
    }

    /// Batches are split in order and share the record set's allocation.
    #[test]
    fn splits_batches_without_copying() {
        let (a, b) = (batch(0), batch(1));
        let set = record_set(&[&a, &b]);
        let mut batches = RecordBatches::new(set.clone());
        let first = batches.next().and_then(Result::ok).expect("first batch");
        let second = batches.next().and_then(Result::ok).expect("second batch");
        assert!(batches.next().is_none());
        assert!(!batches.partial_tail());
        assert_eq!((first.base_offset(), second.base_offset()), (0, 1));
        assert_eq!(second.as_bytes().as_ptr(), set[a.len()..].as_ptr());
    }

    /// A record set cut anywhere inside its last batch yields the whole batches and reports a
    /// partial tail, for every cut position.
    #[test]
    fn stops_cleanly_at_a_partial_tail() {
        let (a, b) = (batch(0), batch(1));
        for cut in 1..b.len() {
            let set = record_set(&[&a, &b[..cut]]);
            let mut batches = RecordBatches::new(set);
            let offsets: Vec<_> = batches.by_ref().map(|b| b.map(|b| b.base_offset())).collect();
            assert_eq!(offsets, vec![Ok(0)], "cut at {cut}");
            assert!(batches.partial_tail());
            assert_eq!(batches.remaining().len(), cut);
        }
    }

    /// A corrupt length or magic is an error, after which the iterator ends.
    #[test]
    fn corrupt_headers_are_errors() {
        let b = batch(1);
        let check = |position: usize, bytes: &[u8], expected: RecordsError| {
            let mut corrupt = b.to_vec();
            corrupt[position..position + bytes.len()].copy_from_slice(bytes);
            let set = record_set(&[&batch(0), &corrupt, &batch(2)]);
            let results: Vec<_> = RecordBatches::new(set).map(|b| b.map(|b| b.base_offset())).collect();
            assert_eq!(results, vec![Ok(0), Err(expected)]);
        };
        check(8, &10i32.to_be_bytes(), RecordsError::BatchLengthTooSmall { batch_length: 10 });
        check(16, &[0], RecordsError::UnsupportedMagic(0));
    }

    /// An empty record set has no batches and no partial tail.
    #[test]
    fn empty_record_set() {
        let mut batches = RecordBatches::new(Bytes::new());
        assert!(batches.next().is_none());
        assert!(!batches.partial_tail());
    }
}
