//! Kafka's magic-2 record batches: the bytes a producer sends, the log stores and a consumer
//! fetches, viewed in place.
//!
//! A record set (the `records` field of Produce and Fetch) is a run of batches, each a 61-byte
//! header followed by its records, which may be compressed as one block:
//!
//! ```text
//! baseOffset i64 | batchLength i32 | partitionLeaderEpoch i32 | magic i8 (2) | crc u32
//! | attributes i16 | lastOffsetDelta i32 | baseTimestamp i64 | maxTimestamp i64
//! | producerId i64 | producerEpoch i16 | baseSequence i32 | recordCount i32 | records...
//! ```
//!
//! The CRC-32C covers everything from `attributes` to the end, so the broker can assign offsets
//! and leader epochs in place without recomputing it.
//!
//! - [`batch`]: [`RecordBatch`] (a zero-copy view of one batch's header), [`RecordBatchMut`] (the
//!   in-place rewrites the broker does), [`Attributes`], [`TimestampType`].
//! - [`record_set`]: [`RecordBatches`], splitting a record set into batches without copying.
//! - [`record`]: [`Record`] and [`Header`] views, [`RecordIter`] over a (decompressed) records
//!   region, [`BatchRecords`] (what [`RecordBatch::records`] returns).
//! - [`compression`]: [`Compression`] and the bounded [`decompress`] / [`compress`] of the four
//!   codecs Kafka defines.
//! - [`builder`]: [`RecordBatchBuilder`], for tests, the client and the CLI.
//! - [`recompress`]: a batch's records written again with another codec (a topic's
//!   `compression.type`), streaming.
//! - [`delayed`]: Strand's delayed delivery's pending and delivered control batches.
//! - [`control`]: control records (transaction markers): [`ControlRecordType`],
//!   [`EndTxnMarker`], [`end_txn_marker_batch`].
//!
//! What this module is not: it never decodes legacy message formats (magic 0 and 1, which Kafka 4
//! no longer accepts), never validates offsets or timestamps against a log (that is the broker's
//! job), and never decompresses anything unless asked, always under a size limit.

pub mod batch;
pub mod builder;
pub mod compression;
pub mod control;
pub mod delayed;
pub mod recompress;
pub mod record;
pub mod record_set;
pub mod walk;

pub use batch::{Attributes, LOG_OVERHEAD, MAGIC, RECORD_BATCH_OVERHEAD, RecordBatch, RecordBatchMut, TimestampType};
pub use builder::{NewRecord, RecordBatchBuilder};
pub use compression::{Compression, TargetCompression, compress, decompress};
pub use control::{ControlRecordType, EndTxnMarker, TransactionResult, end_txn_marker_batch};
pub use recompress::{Recompression, recompress};
pub use record::{BatchRecords, Header, HeaderIter, Record, RecordIter};
pub use record_set::RecordBatches;
pub use walk::{RecordsSummary, WALK_WINDOW_BYTES, summarize};

use crate::codec::DecodeError;

/// Why a record set, batch or record could not be read or written. Every reading variant is
/// something a client (or a corrupt file) can cause.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordsError {
    #[error("a record batch needs at least {needed} bytes but only {len} were given")]
    BatchTruncated { needed: usize, len: usize },
    #[error("batch length {batch_length} is smaller than a batch header")]
    BatchLengthTooSmall { batch_length: i32 },
    #[error("batch length {batch_length} does not match the {len} bytes given (expected length + 12)")]
    BatchLengthMismatch { batch_length: i32, len: usize },
    #[error("magic {0} is not 2; message formats v0 and v1 are not supported")]
    UnsupportedMagic(i8),
    #[error("compression codec id {0} is not one Kafka defines")]
    UnknownCompression(u8),
    #[error("record count {0} is negative")]
    NegativeRecordCount(i32),
    #[error("batch declares {declared} records but its bytes hold only {found}")]
    RecordCountMismatch { declared: i32, found: i32 },
    #[error("{0} bytes remain after the batch's last declared record")]
    TrailingRecordBytes(usize),
    #[error("record length {length} is invalid or exceeds the {remaining} bytes that remain")]
    RecordLengthInvalid { length: i32, remaining: usize },
    #[error("a record's fields take {read} bytes but its length prefix says {length}")]
    RecordSizeMismatch { length: usize, read: usize },
    #[error("{field} length {length} is negative or exceeds the bytes that remain")]
    FieldLengthInvalid { field: &'static str, length: i32 },
    #[error("a header key is not valid UTF-8")]
    HeaderKeyNotUtf8,
    #[error("malformed record: {0}")]
    Malformed(#[from] DecodeError),
    #[error("{codec} data decompresses to more than the {limit_bytes}-byte limit")]
    DecompressedTooLarge { codec: Compression, limit_bytes: usize },
    #[error("{codec} data is corrupt: {reason}")]
    Decompress { codec: Compression, reason: String },
    #[error("{codec} compression failed: {reason}")]
    Compress { codec: Compression, reason: String },
    #[error("the batch is compressed: its records cannot be counted without decompressing")]
    CompressedBatch,
    #[error("{what} does not fit its field ({size})")]
    TooLarge { what: &'static str, size: usize },
    #[error("the batch recompressed is larger than the {limit_bytes}-byte limit")]
    RecompressedTooLarge { limit_bytes: usize },
    #[error("a batch needs at least one record")]
    EmptyBatch,
    #[error("invalid control record: {0}")]
    InvalidControlRecord(&'static str),
}
