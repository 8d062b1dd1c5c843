//! The bootstrap file: `bootstrap.checkpoint` in the metadata log dir, the records a new
//! cluster's first leader commits before anything else (finalized features, the first SCRAM
//! credentials), as `strand storage format` decided them.
//!
//! Layout, Kafka's `BatchFileWriter`: a control batch holding a `SnapshotHeaderRecord`, data
//! batches of metadata records framed as in the log, a control batch holding a
//! `SnapshotFooterRecord`; offsets from 0, leader epoch 0, no compression. Kafka 3.x writes its
//! bootstrap metadata there under this name and Kafka 4.4 still reads it; Kafka 4.4's own format
//! writes the same batches as `__cluster_metadata-0/00000000000000000000-0000000000.checkpoint`,
//! which in Strand is a Raft snapshot with openraft's state in it, so Strand keeps Kafka 3's file.
//! Either file's batches read here (`tests/data/kafka-4.4-bootstrap.checkpoint`).

use std::path::Path;

use bytes::Bytes;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::snapshot_footer_record::SnapshotFooterRecord;
use strand_protocol::messages::snapshot_header_record::SnapshotHeaderRecord;
use strand_protocol::records::ControlRecordType;

use super::QuorumError;
use super::entry::{decode_frame, encode_frame};
use super::snapshot::{BatchWriter, checked_batches, encode_message, only_control_value};

/// The bootstrap file's name in the metadata log dir.
pub const BOOTSTRAP_FILE: &str = "bootstrap.checkpoint";
/// The most records in one data batch of the file.
const BATCH_RECORDS_MAX: usize = 1_000;

/// The file's bytes for `records` (each at its version), stamped `timestamp_ms`.
pub fn encode_bootstrap(records: &[(MetadataRecord, i16)], timestamp_ms: i64) -> Result<Vec<u8>, QuorumError> {
    let mut writer = BatchWriter::new(0, timestamp_ms);
    let header = SnapshotHeaderRecord { version: 0, last_contained_log_timestamp: 0, ..Default::default() };
    writer.control(vec![(ControlRecordType::SnapshotHeader, encode_message(&header)?)])?;
    for chunk in records.chunks(BATCH_RECORDS_MAX) {
        let frames = chunk.iter().map(|(record, version)| encode_frame(record, *version));
        writer.data(frames.collect::<Result<Vec<_>, _>>()?)?;
    }
    let footer = SnapshotFooterRecord { version: 0, ..Default::default() };
    writer.control(vec![(ControlRecordType::SnapshotFooter, encode_message(&footer)?)])?;
    Ok(writer.out)
}

/// The records of a bootstrap file's bytes. Every batch's CRC is checked; a file without its
/// header or footer, or with a control batch among the records, is corrupt.
pub fn decode_bootstrap(bytes: Bytes) -> Result<Vec<(MetadataRecord, i16)>, QuorumError> {
    let corrupt = |reason: String| QuorumError::CorruptLog(format!("{BOOTSTRAP_FILE}: {reason}"));
    let batches = checked_batches(bytes, corrupt)?;
    let [header, data @ .., footer] = batches.as_slice() else {
        return Err(corrupt(format!("{} batches, not a header, records and a footer", batches.len())));
    };
    for (batch, expected) in [(header, ControlRecordType::SnapshotHeader), (footer, ControlRecordType::SnapshotFooter)]
    {
        let (kind, _) = only_control_value(batch).map_err(corrupt)?;
        if kind != expected {
            return Err(corrupt(format!("{kind:?} where a {expected:?} belongs")));
        }
    }
    let mut records = Vec::new();
    for batch in data {
        if batch.attributes().is_control() {
            return Err(corrupt(format!("a control batch at {} among the records", batch.base_offset())));
        }
        for record in batch.records().map_err(|e| corrupt(e.to_string()))?.iter() {
            let record = record.map_err(|e| corrupt(e.to_string()))?;
            records.push(decode_frame(record.value().unwrap_or_default())?);
        }
    }
    Ok(records)
}

/// Writes `dir/bootstrap.checkpoint`, whole or not at all.
pub fn write_bootstrap(dir: &Path, records: &[(MetadataRecord, i16)], timestamp_ms: i64) -> Result<(), QuorumError> {
    let path = dir.join(BOOTSTRAP_FILE);
    let bytes = encode_bootstrap(records, timestamp_ms)?;
    strand_log::file::write_atomically(&path, &bytes).map_err(|e| QuorumError::io(&path, e))
}

/// The records of `dir/bootstrap.checkpoint`, `None` if there is no such file.
pub fn read_bootstrap(dir: &Path) -> Result<Option<Vec<(MetadataRecord, i16)>>, QuorumError> {
    let path = dir.join(BOOTSTRAP_FILE);
    match std::fs::read(&path) {
        Ok(bytes) => decode_bootstrap(Bytes::from(bytes)).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(QuorumError::io(&path, e)),
    }
}
