//! One magic-2 record batch, viewed in place.
//!
//! [`RecordBatch`] owns a [`Bytes`] slice holding exactly one batch (usually a slice of a request
//! frame or a segment read) and reads its header fields on demand: parsing checks only that the
//! header fits, that `batchLength` matches the bytes and that the magic is 2, so it costs a few
//! comparisons and no copy. [`RecordBatchMut`] rewrites the fields the broker owns (base offset,
//! partition leader epoch, LogAppendTime) on a mutable buffer.
//!
//! Header layout (big-endian), with byte positions:
//!
//! ```text
//!  0 baseOffset i64        8 batchLength i32      12 partitionLeaderEpoch i32   16 magic i8
//! 17 crc u32              21 attributes i16      23 lastOffsetDelta i32        27 baseTimestamp i64
//! 35 maxTimestamp i64     43 producerId i64      51 producerEpoch i16          53 baseSequence i32
//! 57 recordCount i32      61 records...
//! ```
//!
//! `batchLength` counts the bytes after itself; the CRC-32C covers `attributes` to the end.

use bytes::Bytes;
use strand_base::limits::DECOMPRESSED_BATCH_BYTES_MAX;
use strand_base::{LeaderEpoch, Offset, ProducerId};

use super::RecordsError;
use super::compression::{Compression, decompress};
use super::record::{BatchRecords, Record, count_records};

/// The bytes in front of every batch that are not covered by `batchLength`: base offset and the
/// length itself (Kafka's `Records.LOG_OVERHEAD`).
pub const LOG_OVERHEAD: usize = 12;
/// The size of a magic-2 batch header, up to the first record (Kafka's `RECORD_BATCH_OVERHEAD`).
pub const RECORD_BATCH_OVERHEAD: usize = 61;
/// The only message format Strand reads and writes.
pub const MAGIC: i8 = 2;

const BASE_OFFSET: usize = 0;
pub(super) const BATCH_LENGTH: usize = 8;
const PARTITION_LEADER_EPOCH: usize = 12;
pub(super) const MAGIC_POSITION: usize = 16;
pub(super) const CRC: usize = 17;
pub(super) const ATTRIBUTES: usize = 21;
const LAST_OFFSET_DELTA: usize = 23;
const BASE_TIMESTAMP: usize = 27;
const MAX_TIMESTAMP: usize = 35;
const PRODUCER_ID: usize = 43;
const PRODUCER_EPOCH: usize = 51;
const BASE_SEQUENCE: usize = 53;
const RECORD_COUNT: usize = 57;

/// The smallest legal `batchLength`: a header with no records.
pub(super) const BATCH_LENGTH_MIN: i32 = (RECORD_BATCH_OVERHEAD - LOG_OVERHEAD) as i32;

/// Whether record timestamps were set by the producer or by the broker on append.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TimestampType {
    #[default]
    CreateTime,
    LogAppendTime,
}

/// A batch's `attributes` field. Bits 0-2: compression codec; 3: timestamp type; 4:
/// transactional; 5: control batch; 6: the base timestamp is the delete horizon (set by the log
/// cleaner). Higher bits are unused and kept as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Attributes(pub i16);

impl Attributes {
    const COMPRESSION_MASK: i16 = 0x07;
    const TIMESTAMP_TYPE: i16 = 0x08;
    const TRANSACTIONAL: i16 = 0x10;
    const CONTROL: i16 = 0x20;
    const DELETE_HORIZON: i16 = 0x40;

    /// The codec of the records region; ids 5 to 7 are not codecs and are an error.
    pub fn compression(self) -> Result<Compression, RecordsError> {
        Compression::from_id((self.0 & Self::COMPRESSION_MASK) as u8)
    }

    pub fn timestamp_type(self) -> TimestampType {
        if self.0 & Self::TIMESTAMP_TYPE == 0 { TimestampType::CreateTime } else { TimestampType::LogAppendTime }
    }

    pub fn is_transactional(self) -> bool {
        self.0 & Self::TRANSACTIONAL != 0
    }

    pub fn is_control(self) -> bool {
        self.0 & Self::CONTROL != 0
    }

    pub fn has_delete_horizon(self) -> bool {
        self.0 & Self::DELETE_HORIZON != 0
    }

    pub fn with_compression(self, codec: Compression) -> Self {
        Attributes((self.0 & !Self::COMPRESSION_MASK) | i16::from(codec.id()))
    }

    pub fn with_timestamp_type(self, timestamp_type: TimestampType) -> Self {
        match timestamp_type {
            TimestampType::CreateTime => Attributes(self.0 & !Self::TIMESTAMP_TYPE),
            TimestampType::LogAppendTime => Attributes(self.0 | Self::TIMESTAMP_TYPE),
        }
    }

    pub fn with_transactional(self) -> Self {
        Attributes(self.0 | Self::TRANSACTIONAL)
    }

    pub fn with_control(self) -> Self {
        Attributes(self.0 | Self::CONTROL)
    }
}

/// A zero-copy view of exactly one magic-2 batch. Cloning shares the bytes. Header fields are read
/// on each call (a few loads); nothing is decoded until [`RecordBatch::records`] is called.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordBatch {
    bytes: Bytes,
}

impl RecordBatch {
    /// Views `bytes` as one batch: the header must fit, `batchLength + 12` must equal the length
    /// of `bytes`, and the magic must be 2. The CRC is not checked here (see
    /// [`RecordBatch::crc_is_valid`]), so a view can be taken of a batch that is being repaired.
    pub fn parse(bytes: Bytes) -> Result<Self, RecordsError> {
        check_batch(&bytes)?;
        Ok(RecordBatch { bytes })
    }

    /// The whole batch, header included.
    pub fn as_bytes(&self) -> &Bytes {
        &self.bytes
    }

    pub fn into_bytes(self) -> Bytes {
        self.bytes
    }

    /// The batch's size on the wire and on disk: `batchLength + 12`.
    pub fn size_in_bytes(&self) -> usize {
        self.bytes.len()
    }

    pub fn base_offset(&self) -> Offset {
        i64::from_be_bytes(field(&self.bytes, BASE_OFFSET))
    }

    pub fn batch_length(&self) -> i32 {
        i32::from_be_bytes(field(&self.bytes, BATCH_LENGTH))
    }

    pub fn partition_leader_epoch(&self) -> LeaderEpoch {
        i32::from_be_bytes(field(&self.bytes, PARTITION_LEADER_EPOCH))
    }

    pub fn magic(&self) -> i8 {
        i8::from_be_bytes(field(&self.bytes, MAGIC_POSITION))
    }

    /// The CRC-32C stored in the header.
    pub fn crc(&self) -> u32 {
        u32::from_be_bytes(field(&self.bytes, CRC))
    }

    pub fn attributes(&self) -> Attributes {
        Attributes(i16::from_be_bytes(field(&self.bytes, ATTRIBUTES)))
    }

    pub fn last_offset_delta(&self) -> i32 {
        i32::from_be_bytes(field(&self.bytes, LAST_OFFSET_DELTA))
    }

    /// The first record's timestamp, or the delete horizon when
    /// [`Attributes::has_delete_horizon`] is set.
    pub fn base_timestamp(&self) -> i64 {
        i64::from_be_bytes(field(&self.bytes, BASE_TIMESTAMP))
    }

    /// The largest record timestamp, or the broker's append time under LogAppendTime.
    pub fn max_timestamp(&self) -> i64 {
        i64::from_be_bytes(field(&self.bytes, MAX_TIMESTAMP))
    }

    pub fn producer_id(&self) -> ProducerId {
        ProducerId(i64::from_be_bytes(field(&self.bytes, PRODUCER_ID)))
    }

    pub fn producer_epoch(&self) -> i16 {
        i16::from_be_bytes(field(&self.bytes, PRODUCER_EPOCH))
    }

    pub fn base_sequence(&self) -> i32 {
        i32::from_be_bytes(field(&self.bytes, BASE_SEQUENCE))
    }

    /// The declared number of records; it may be negative in a corrupt batch.
    pub fn record_count(&self) -> i32 {
        i32::from_be_bytes(field(&self.bytes, RECORD_COUNT))
    }

    /// `baseOffset + lastOffsetDelta`, wrapping as Java's arithmetic does on a corrupt batch.
    pub fn last_offset(&self) -> Offset {
        self.base_offset().wrapping_add(i64::from(self.last_offset_delta()))
    }

    /// The offset after this batch: `last_offset() + 1`.
    pub fn next_offset(&self) -> Offset {
        self.last_offset().wrapping_add(1)
    }

    /// The sequence number of the last record, wrapping past `i32::MAX` to 0 as Kafka's
    /// producers do; -1 when the batch carries no sequence.
    pub fn last_sequence(&self) -> i32 {
        match self.base_sequence() {
            -1 => -1,
            base => increment_sequence(base, self.last_offset_delta()),
        }
    }

    /// The delete horizon the log cleaner stored in the base timestamp, if any.
    pub fn delete_horizon_ms(&self) -> Option<i64> {
        self.attributes().has_delete_horizon().then(|| self.base_timestamp())
    }

    /// The CRC-32C of the bytes from `attributes` to the end, as it should be stored.
    pub fn compute_crc(&self) -> u32 {
        crc32c::crc32c(&self.bytes[ATTRIBUTES..])
    }

    /// Whether the stored CRC matches the bytes.
    pub fn crc_is_valid(&self) -> bool {
        self.crc() == self.compute_crc()
    }

    /// The records region (compressed or not) after the header, sharing the batch's bytes.
    pub fn records_region(&self) -> Bytes {
        self.bytes.slice(RECORD_BATCH_OVERHEAD..)
    }

    /// The offset of `record` in the partition: `baseOffset + offsetDelta`.
    pub fn record_offset(&self, record: &Record<'_>) -> Offset {
        self.base_offset().wrapping_add(i64::from(record.offset_delta()))
    }

    /// The timestamp of `record`, as Kafka reports it: the batch's max timestamp under
    /// LogAppendTime, otherwise `baseTimestamp + timestampDelta`.
    pub fn record_timestamp(&self, record: &Record<'_>) -> i64 {
        match self.attributes().timestamp_type() {
            TimestampType::LogAppendTime => self.max_timestamp(),
            TimestampType::CreateTime => self.base_timestamp().wrapping_add(record.timestamp_delta()),
        }
    }

    /// For an uncompressed batch, checks without decoding any record that the records' length
    /// prefixes add up to exactly the declared record count and exactly fill the batch: the
    /// check the produce path makes before storing a batch. A compressed batch is an error
    /// ([`RecordsError::CompressedBatch`]): its count can only be checked by decompressing.
    pub fn validate_uncompressed_record_count(&self) -> Result<(), RecordsError> {
        if self.attributes().compression()? != Compression::None {
            return Err(RecordsError::CompressedBatch);
        }
        count_records(&self.bytes[RECORD_BATCH_OVERHEAD..], self.record_count())
    }

    /// The batch's records, decompressed first if need be, within
    /// [`DECOMPRESSED_BATCH_BYTES_MAX`].
    pub fn records(&self) -> Result<BatchRecords, RecordsError> {
        self.records_with_limit(DECOMPRESSED_BATCH_BYTES_MAX)
    }

    /// The batch's records; a compressed region that would inflate past `limit_bytes` is an
    /// error, and no more than `limit_bytes` are ever allocated for it. An uncompressed batch is
    /// not copied.
    pub fn records_with_limit(&self, limit_bytes: usize) -> Result<BatchRecords, RecordsError> {
        let count = self.record_count();
        if count < 0 {
            return Err(RecordsError::NegativeRecordCount(count));
        }
        let region = match self.attributes().compression()? {
            Compression::None => self.records_region(),
            codec => Bytes::from(decompress(codec, &self.bytes[RECORD_BATCH_OVERHEAD..], limit_bytes)?),
        };
        Ok(BatchRecords::new(region, count))
    }
}

/// A mutable view of one batch for the rewrites the broker makes before appending: assigning
/// offsets and the leader epoch (outside the CRC, so the CRC stays valid) and stamping
/// LogAppendTime (inside it, so the CRC is recomputed).
#[derive(Debug)]
pub struct RecordBatchMut<'a> {
    buf: &'a mut [u8],
}

impl<'a> RecordBatchMut<'a> {
    /// Views `buf` as one batch, with the same checks as [`RecordBatch::parse`].
    pub fn new(buf: &'a mut [u8]) -> Result<Self, RecordsError> {
        check_batch(buf)?;
        Ok(RecordBatchMut { buf })
    }

    pub fn as_bytes(&self) -> &[u8] {
        self.buf
    }

    /// Sets the base offset. It is outside the CRC, which stays valid.
    pub fn set_base_offset(&mut self, base_offset: Offset) {
        self.buf[BASE_OFFSET..BASE_OFFSET + 8].copy_from_slice(&base_offset.to_be_bytes());
    }

    /// Sets the partition leader epoch. It is outside the CRC, which stays valid.
    pub fn set_partition_leader_epoch(&mut self, epoch: LeaderEpoch) {
        let at = PARTITION_LEADER_EPOCH;
        self.buf[at..at + 4].copy_from_slice(&epoch.to_be_bytes());
    }

    /// Sets the timestamp type bit and the max timestamp, then recomputes the CRC, as Kafka's
    /// `setMaxTimestamp` does for LogAppendTime. Does nothing if both already hold those values.
    pub fn set_max_timestamp_and_type(&mut self, timestamp_type: TimestampType, max_timestamp: i64) {
        let attributes = Attributes(i16::from_be_bytes(field(self.buf, ATTRIBUTES)));
        let current_max = i64::from_be_bytes(field(self.buf, MAX_TIMESTAMP));
        if attributes.timestamp_type() == timestamp_type && current_max == max_timestamp {
            return;
        }
        let attributes = attributes.with_timestamp_type(timestamp_type);
        self.buf[ATTRIBUTES..ATTRIBUTES + 2].copy_from_slice(&attributes.0.to_be_bytes());
        self.buf[MAX_TIMESTAMP..MAX_TIMESTAMP + 8].copy_from_slice(&max_timestamp.to_be_bytes());
        self.update_crc();
    }

    /// Recomputes and stores the CRC over `attributes` to the end.
    pub fn update_crc(&mut self) {
        let crc = crc32c::crc32c(&self.buf[ATTRIBUTES..]);
        self.buf[CRC..CRC + 4].copy_from_slice(&crc.to_be_bytes());
    }
}

/// Checks what [`RecordBatch::parse`] promises: header fits, length matches, magic is 2.
fn check_batch(buf: &[u8]) -> Result<(), RecordsError> {
    if buf.len() < RECORD_BATCH_OVERHEAD {
        return Err(RecordsError::BatchTruncated { needed: RECORD_BATCH_OVERHEAD, len: buf.len() });
    }
    let batch_length = i32::from_be_bytes(field(buf, BATCH_LENGTH));
    if batch_length < BATCH_LENGTH_MIN {
        return Err(RecordsError::BatchLengthTooSmall { batch_length });
    }
    if batch_length as usize + LOG_OVERHEAD != buf.len() {
        return Err(RecordsError::BatchLengthMismatch { batch_length, len: buf.len() });
    }
    let magic = i8::from_be_bytes(field(buf, MAGIC_POSITION));
    if magic != MAGIC {
        return Err(RecordsError::UnsupportedMagic(magic));
    }
    Ok(())
}

/// The `N` bytes at `at`. Callers index only inside a header already checked to fit.
pub(super) fn field<const N: usize>(buf: &[u8], at: usize) -> [u8; N] {
    let mut out = [0; N];
    out.copy_from_slice(&buf[at..at + N]);
    out
}

/// Kafka's `DefaultRecordBatch.incrementSequence`: sequences wrap from `i32::MAX` to 0.
/// Computed in `i64` so that a corrupt (negative) delta cannot overflow.
fn increment_sequence(sequence: i32, increment: i32) -> i32 {
    let next = i64::from(sequence) + i64::from(increment);
    if next > i64::from(i32::MAX) { (next - i64::from(i32::MAX) - 1) as i32 } else { next as i32 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::builder::{NewRecord, RecordBatchBuilder};

    fn sample_batch() -> Bytes {
        let mut builder =
            RecordBatchBuilder::new().base_offset(100).partition_leader_epoch(7).producer(ProducerId(42), 3, 10);
        for (i, value) in [&b"a"[..], b"bc", b"def"].into_iter().enumerate() {
            let record = NewRecord { timestamp_ms: 1_000 + i as i64, key: None, value: Some(value), headers: &[] };
            builder.append(&record).expect("record fits");
        }
        builder.build().expect("batch builds")
    }

    /// A batch written by an independent encoder (the example in the `kafka-protocol` crate's
    /// documentation): every header field and its one record read back, and the CRC verifies.
    #[test]
    fn reads_an_independently_written_batch() {
        let bytes = Bytes::from_static(&[
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 67, 0, 0, 0, 0, 2, 115, 109, 41, 123, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 34, 1, 208, 15, 2, 10,
            104, 101, 108, 108, 111, 10, 119, 111, 114, 108, 100, 0,
        ]);
        let batch = RecordBatch::parse(bytes).expect("valid batch");
        assert_eq!((batch.base_offset(), batch.batch_length(), batch.magic()), (0, 67, 2));
        assert_eq!((batch.last_offset_delta(), batch.base_timestamp()), (3, 0));
        assert_eq!((batch.max_timestamp(), batch.record_count()), (1 << 40, 1));
        assert!(batch.crc_is_valid());
        assert_eq!(batch.validate_uncompressed_record_count(), Ok(()));
        let records = batch.records().expect("uncompressed");
        let record = records.iter().next().expect("one record").expect("valid record");
        assert_eq!((record.attributes(), record.timestamp_delta(), record.offset_delta()), (1, 1000, 1));
        assert_eq!((record.key(), record.value()), (Some(&b"hello"[..]), Some(&b"world"[..])));
    }

    /// The builder's output reads back field by field, including derived offsets and sequences.
    #[test]
    fn header_fields_read_back() {
        let batch = RecordBatch::parse(sample_batch()).expect("valid batch");
        assert_eq!(batch.base_offset(), 100);
        assert_eq!(batch.partition_leader_epoch(), 7);
        assert_eq!(batch.producer_id(), ProducerId(42));
        assert_eq!(batch.producer_epoch(), 3);
        assert_eq!(batch.base_sequence(), 10);
        assert_eq!(batch.last_offset_delta(), 2);
        assert_eq!(batch.last_offset(), 102);
        assert_eq!(batch.next_offset(), 103);
        assert_eq!(batch.last_sequence(), 12);
        assert_eq!(batch.base_timestamp(), 1_000);
        assert_eq!(batch.max_timestamp(), 1_002);
        assert_eq!(batch.record_count(), 3);
        assert_eq!(batch.size_in_bytes(), batch.batch_length() as usize + 12);
        assert_eq!(batch.attributes(), Attributes(0));
        assert_eq!(batch.delete_horizon_ms(), None);
        assert!(batch.crc_is_valid());
    }

    /// Each malformed header is refused with its own error, never a panic.
    #[test]
    fn parse_rejects_malformed_headers() {
        let good = sample_batch().to_vec();
        let check = |bytes: Vec<u8>, expected: RecordsError| {
            assert_eq!(RecordBatch::parse(Bytes::from(bytes)), Err(expected));
        };
        check(good[..60].to_vec(), RecordsError::BatchTruncated { needed: 61, len: 60 });
        let mut extra = good.clone();
        extra.push(0);
        check(extra, RecordsError::BatchLengthMismatch { batch_length: good.len() as i32 - 12, len: good.len() + 1 });
        let mut short = good.clone();
        short[8..12].copy_from_slice(&48i32.to_be_bytes());
        check(short, RecordsError::BatchLengthTooSmall { batch_length: 48 });
        let mut negative = good.clone();
        negative[8..12].copy_from_slice(&(-1i32).to_be_bytes());
        check(negative, RecordsError::BatchLengthTooSmall { batch_length: -1 });
        let mut magic = good;
        magic[16] = 1;
        check(magic, RecordsError::UnsupportedMagic(1));
    }

    /// Offsets and leader epochs are rewritten in place without touching the CRC; the
    /// LogAppendTime rewrite recomputes it.
    #[test]
    fn in_place_rewrites_keep_the_crc_valid() {
        let mut buf = sample_batch().to_vec();
        let crc_before = RecordBatch::parse(Bytes::from(buf.clone())).expect("valid").crc();
        let mut batch = RecordBatchMut::new(&mut buf).expect("valid batch");
        batch.set_base_offset(5_000);
        batch.set_partition_leader_epoch(9);
        let view = RecordBatch::parse(Bytes::copy_from_slice(batch.as_bytes())).expect("valid");
        assert_eq!((view.base_offset(), view.partition_leader_epoch()), (5_000, 9));
        assert_eq!(view.crc(), crc_before);
        assert!(view.crc_is_valid());

        batch.set_max_timestamp_and_type(TimestampType::LogAppendTime, 77_777);
        let view = RecordBatch::parse(Bytes::copy_from_slice(batch.as_bytes())).expect("valid");
        assert_eq!(view.attributes().timestamp_type(), TimestampType::LogAppendTime);
        assert_eq!(view.max_timestamp(), 77_777);
        assert_ne!(view.crc(), crc_before);
        assert!(view.crc_is_valid());
        let records = view.records().expect("records");
        for record in records.iter() {
            assert_eq!(view.record_timestamp(&record.expect("record")), 77_777);
        }
    }

    /// Every attribute bit reads back on its own, and unknown codec ids are errors.
    #[test]
    fn attributes_decode_each_bit() {
        assert_eq!(Attributes(4).compression(), Ok(Compression::Zstd));
        assert_eq!(Attributes(5).compression(), Err(RecordsError::UnknownCompression(5)));
        assert_eq!(Attributes(0x08).timestamp_type(), TimestampType::LogAppendTime);
        assert!(Attributes(0x10).is_transactional());
        assert!(Attributes(0x20).is_control());
        assert!(Attributes(0x40).has_delete_horizon());
        let built = Attributes::default()
            .with_compression(Compression::Lz4)
            .with_timestamp_type(TimestampType::LogAppendTime)
            .with_transactional()
            .with_control();
        assert_eq!(built, Attributes(0x3b));
        assert_eq!(built.with_compression(Compression::None), Attributes(0x38));
    }

    /// Record counts are checked against the length prefixes, in both directions.
    #[test]
    fn uncompressed_record_count_is_checked() {
        let mut buf = sample_batch().to_vec();
        buf[57..61].copy_from_slice(&4i32.to_be_bytes());
        let batch = RecordBatch::parse(Bytes::from(buf.clone())).expect("valid header");
        assert_eq!(
            batch.validate_uncompressed_record_count(),
            Err(RecordsError::RecordCountMismatch { declared: 4, found: 3 })
        );
        buf[57..61].copy_from_slice(&2i32.to_be_bytes());
        let batch = RecordBatch::parse(Bytes::from(buf)).expect("valid header");
        assert!(matches!(batch.validate_uncompressed_record_count(), Err(RecordsError::TrailingRecordBytes(_))));
    }

    /// Sequences wrap past `i32::MAX` to zero, as Kafka's producers number them.
    #[test]
    fn sequences_wrap() {
        assert_eq!(increment_sequence(i32::MAX, 1), 0);
        assert_eq!(increment_sequence(i32::MAX - 1, 3), 1);
        assert_eq!(increment_sequence(5, 2), 7);
        assert_eq!(increment_sequence(i32::MAX, -1), i32::MAX - 1);
    }
}
