//! The `.snapshot` file format: `<20-digit offset>.snapshot` files in the partition directory
//! hold the producers' state as of that offset (exclusive), so recovery replays only the
//! segments after it. The layout is Kafka's `ProducerSnapshot` message, version 1, big-endian:
//! ```text
//! version i16 (1) | crc u32 (CRC-32C of everything after this field) | count i32
//! | count x (producerId i64 | epoch i16 | lastSequence i32 | lastOffset i64 | offsetDelta i32
//!            | timestamp i64 | coordinatorEpoch i32 | currentTxnFirstOffset i64 (-1: none))
//! ```
//! Only the last batch of each producer is kept in a snapshot, as Kafka does.

use std::path::{Path, PathBuf};

use strand_base::{Offset, ProducerId};

use super::entry::{BatchMetadata, ProducerStateEntry};
use crate::file::write_replacing;
use crate::{LogError, Result};

/// The producer snapshot format version written and read.
pub const SNAPSHOT_VERSION: i16 = 1;
/// The suffix of producer snapshot files.
pub const SNAPSHOT_SUFFIX: &str = ".snapshot";
/// The suffix a snapshot file gets when it is scheduled for deletion with its segment.
pub const DELETED_SUFFIX: &str = ".deleted";

const SNAPSHOT_CRC_AT: usize = 2;
const SNAPSHOT_ENTRIES_AT: usize = 6;
const SNAPSHOT_HEADER_BYTES: usize = 10;
const SNAPSHOT_ENTRY_BYTES: usize = 46;

/// One producer as a snapshot file stores it (the `ProducerEntry` of Kafka's `ProducerSnapshot`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerSnapshotEntry {
    pub producer_id: ProducerId,
    pub epoch: i16,
    pub last_sequence: i32,
    /// -1 when the producer has no remembered batch.
    pub last_offset: Offset,
    pub offset_delta: i32,
    pub timestamp: i64,
    pub coordinator_epoch: i32,
    /// -1 when no transaction is open.
    pub current_txn_first_offset: Offset,
}

/// The path of the snapshot at `offset` in `dir`: `<offset, 20 digits>.snapshot`.
pub fn snapshot_path(dir: &Path, offset: Offset) -> PathBuf {
    dir.join(format!("{offset:020}{SNAPSHOT_SUFFIX}"))
}

/// The offsets of the snapshot files in `dir`, ascending; none if `dir` does not exist. A file
/// ending in `.snapshot` whose name does not start with an offset is corrupt.
pub fn list_snapshots(dir: &Path) -> Result<Vec<Offset>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(LogError::io(dir, e)),
    };
    let mut offsets = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| LogError::io(dir, e))?;
        let file_type = entry.file_type().map_err(|e| LogError::io(&entry.path(), e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !file_type.is_file() || !name.ends_with(SNAPSHOT_SUFFIX) {
            continue;
        }
        let prefix = name.split('.').next().unwrap_or_default();
        let offset = prefix.parse().map_err(|_| LogError::corrupt(&entry.path(), "snapshot name is not an offset"))?;
        offsets.push(offset);
    }
    offsets.sort_unstable();
    Ok(offsets)
}

/// Writes `entries` (in producer id order if they come from the manager) as a snapshot file,
/// whole or not at all after a crash, but not durable until its directory is synced
/// ([`write_replacing`]): the log's next flush syncs it after the segments below the snapshot's
/// offset, so a power cut never keeps a snapshot of records it lost (Kafka too flushes a
/// snapshot only after the log it covers). Recovery rebuilds from an older snapshot meanwhile.
pub fn write_snapshot<'a>(path: &Path, entries: impl IntoIterator<Item = &'a ProducerStateEntry>) -> Result<()> {
    let entries: Vec<ProducerSnapshotEntry> = entries.into_iter().map(ProducerStateEntry::to_snapshot_entry).collect();
    write_replacing(path, &encode_snapshot(&entries)).map_err(|e| LogError::io(path, e))
}

/// Reads a snapshot file's producers.
pub fn read_snapshot(path: &Path) -> Result<Vec<ProducerStateEntry>> {
    let bytes = std::fs::read(path).map_err(|e| LogError::io(path, e))?;
    let entries = decode_snapshot(path, &bytes)?;
    Ok(entries.iter().map(ProducerStateEntry::from_snapshot_entry).collect())
}

/// The bytes of a version-1 snapshot of `entries`.
pub fn encode_snapshot(entries: &[ProducerSnapshotEntry]) -> Vec<u8> {
    let mut out = Vec::with_capacity(SNAPSHOT_HEADER_BYTES + SNAPSHOT_ENTRY_BYTES * entries.len());
    out.extend_from_slice(&SNAPSHOT_VERSION.to_be_bytes());
    out.extend_from_slice(&[0; 4]);
    assert!(i32::try_from(entries.len()).is_ok(), "{} producers do not fit a snapshot", entries.len());
    out.extend_from_slice(&(entries.len() as i32).to_be_bytes());
    for e in entries {
        out.extend_from_slice(&e.producer_id.0.to_be_bytes());
        out.extend_from_slice(&e.epoch.to_be_bytes());
        out.extend_from_slice(&e.last_sequence.to_be_bytes());
        out.extend_from_slice(&e.last_offset.to_be_bytes());
        out.extend_from_slice(&e.offset_delta.to_be_bytes());
        out.extend_from_slice(&e.timestamp.to_be_bytes());
        out.extend_from_slice(&e.coordinator_epoch.to_be_bytes());
        out.extend_from_slice(&e.current_txn_first_offset.to_be_bytes());
    }
    let crc = crc32c::crc32c(&out[SNAPSHOT_ENTRIES_AT..]);
    out[SNAPSHOT_CRC_AT..SNAPSHOT_ENTRIES_AT].copy_from_slice(&crc.to_be_bytes());
    out
}

/// Parses a snapshot's bytes; `path` only names the file in errors. The version, the CRC and
/// the exact length are checked; any mismatch is [`LogError::Corrupt`].
pub fn decode_snapshot(path: &Path, bytes: &[u8]) -> Result<Vec<ProducerSnapshotEntry>> {
    let corrupt = |reason: String| LogError::corrupt(path, reason);
    if bytes.len() < SNAPSHOT_HEADER_BYTES {
        return Err(corrupt(format!("{} bytes is shorter than a snapshot header", bytes.len())));
    }
    let mut reader = FieldReader { bytes, at: 0 };
    let version = reader.i16();
    if version != SNAPSHOT_VERSION {
        return Err(corrupt(format!("unknown snapshot version {version}")));
    }
    let stored_crc = reader.i32() as u32;
    let computed_crc = crc32c::crc32c(&bytes[SNAPSHOT_ENTRIES_AT..]);
    if stored_crc != computed_crc {
        return Err(corrupt(format!("stored crc {stored_crc:#010x}, computed {computed_crc:#010x}")));
    }
    let count = reader.i32();
    let expected_len = usize::try_from(count)
        .ok()
        .and_then(|n| n.checked_mul(SNAPSHOT_ENTRY_BYTES))
        .and_then(|n| n.checked_add(SNAPSHOT_HEADER_BYTES));
    if expected_len != Some(bytes.len()) {
        return Err(corrupt(format!("{count} entries do not fit the file's {} bytes", bytes.len())));
    }
    let entries = (0..count)
        .map(|_| ProducerSnapshotEntry {
            producer_id: ProducerId(reader.i64()),
            epoch: reader.i16(),
            last_sequence: reader.i32(),
            last_offset: reader.i64(),
            offset_delta: reader.i32(),
            timestamp: reader.i64(),
            coordinator_epoch: reader.i32(),
            current_txn_first_offset: reader.i64(),
        })
        .collect();
    Ok(entries)
}

/// Big-endian fields from a buffer whose length the caller has checked.
struct FieldReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl FieldReader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut field = [0; N];
        field.copy_from_slice(&self.bytes[self.at..self.at + N]);
        self.at += N;
        field
    }

    fn i16(&mut self) -> i16 {
        i16::from_be_bytes(self.take())
    }

    fn i32(&mut self) -> i32 {
        i32::from_be_bytes(self.take())
    }

    fn i64(&mut self) -> i64 {
        i64::from_be_bytes(self.take())
    }
}

impl ProducerStateEntry {
    /// The entry as a snapshot stores it: its last batch only.
    pub fn to_snapshot_entry(&self) -> ProducerSnapshotEntry {
        let last = self.batches.back();
        ProducerSnapshotEntry {
            producer_id: self.producer_id,
            epoch: self.producer_epoch,
            last_sequence: self.last_seq(),
            last_offset: self.last_data_offset(),
            offset_delta: last.map_or(0, |b| b.offset_delta),
            timestamp: self.last_timestamp,
            coordinator_epoch: self.coordinator_epoch,
            current_txn_first_offset: self.current_txn_first_offset.unwrap_or(-1),
        }
    }

    /// The entry a snapshot entry restores: one batch if `last_offset >= 0`.
    pub fn from_snapshot_entry(entry: &ProducerSnapshotEntry) -> Self {
        let batch = (entry.last_offset >= 0).then_some(BatchMetadata {
            last_seq: entry.last_sequence,
            last_offset: entry.last_offset,
            offset_delta: entry.offset_delta,
            timestamp: entry.timestamp,
        });
        ProducerStateEntry {
            producer_id: entry.producer_id,
            producer_epoch: entry.epoch,
            coordinator_epoch: entry.coordinator_epoch,
            last_timestamp: entry.timestamp,
            current_txn_first_offset: (entry.current_txn_first_offset >= 0).then_some(entry.current_txn_first_offset),
            batches: batch.into_iter().collect(),
        }
    }
}
