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
//!
//! A dynamic quorum (formatted with `--standalone`, `--initial-controllers` or
//! `--no-initial-controllers`) has, as Kafka's `0-0.checkpoint` does, two more records in the
//! header's control batch: a `KRaftVersionRecord` (`kraft.version` 1) and, unless formatted
//! without initial controllers, the initial voters' `VotersRecord`, from which every initial
//! voter derives the quorum's first membership.

use std::path::Path;

use bytes::Bytes;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::snapshot_footer_record::SnapshotFooterRecord;
use strand_protocol::messages::snapshot_header_record::SnapshotHeaderRecord;
use strand_protocol::records::ControlRecordType;

use strand_protocol::Message;
use strand_protocol::messages::kraft_version_record::KRaftVersionRecord;
use strand_protocol::messages::voters_record::VotersRecord;

use super::QuorumError;
use super::config::QuorumVoters;
use super::entry::{KRAFT_VERSION, decode_frame, encode_frame, voters_from_record, voters_record};
use super::snapshot::{BatchWriter, checked_batches, encode_message, only_control_value};

/// The bootstrap file's name in the metadata log dir.
pub const BOOTSTRAP_FILE: &str = "bootstrap.checkpoint";
/// The most records in one data batch of the file.
const BATCH_RECORDS_MAX: usize = 1_000;

/// What a bootstrap file holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bootstrap {
    /// The metadata records (each at its version) the first leader commits.
    pub records: Vec<(MetadataRecord, i16)>,
    /// A dynamic quorum's initial voters (empty when formatted with `--no-initial-controllers`);
    /// `None` for a static quorum (`controller.quorum.voters`).
    pub dynamic_voters: Option<QuorumVoters>,
}

/// The file's bytes for `bootstrap`, stamped `timestamp_ms`.
pub fn encode_bootstrap(bootstrap: &Bootstrap, timestamp_ms: i64) -> Result<Vec<u8>, QuorumError> {
    let records = &bootstrap.records;
    let mut writer = BatchWriter::new(0, timestamp_ms);
    let header = SnapshotHeaderRecord { version: 0, last_contained_log_timestamp: 0, ..Default::default() };
    let mut control = vec![(ControlRecordType::SnapshotHeader, encode_message(&header)?)];
    if let Some(voters) = &bootstrap.dynamic_voters {
        let version =
            KRaftVersionRecord { version: 0, kraft_version: KRAFT_VERSION, unknown_tagged_fields: Vec::new() };
        control.push((ControlRecordType::KraftVersion, encode_message(&version)?));
        if !voters.is_empty() {
            control.push((ControlRecordType::KraftVoters, encode_message(&voters_record(voters))?));
        }
    }
    writer.control(control)?;
    for chunk in records.chunks(BATCH_RECORDS_MAX) {
        let frames = chunk.iter().map(|(record, version)| encode_frame(record, *version));
        writer.data(frames.collect::<Result<Vec<_>, _>>()?)?;
    }
    let footer = SnapshotFooterRecord { version: 0, ..Default::default() };
    writer.control(vec![(ControlRecordType::SnapshotFooter, encode_message(&footer)?)])?;
    Ok(writer.out)
}

/// What a bootstrap file's bytes hold. Every batch's CRC is checked; a file without its header
/// or footer, or with a control batch among the records but the voters' after the header, is
/// corrupt.
pub fn decode_bootstrap(bytes: Bytes) -> Result<Bootstrap, QuorumError> {
    let corrupt = |reason: String| QuorumError::CorruptLog(format!("{BOOTSTRAP_FILE}: {reason}"));
    let batches = checked_batches(bytes, corrupt)?;
    let [header, data @ .., footer] = batches.as_slice() else {
        return Err(corrupt(format!("{} batches, not a header, records and a footer", batches.len())));
    };
    let (kind, _) = only_control_value(footer).map_err(corrupt)?;
    if kind != ControlRecordType::SnapshotFooter {
        return Err(corrupt(format!("{kind:?} where a SnapshotFooter belongs")));
    }
    let dynamic_voters = decode_header(header).map_err(corrupt)?;
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
    Ok(Bootstrap { records, dynamic_voters })
}

/// The header's control batch: a `SnapshotHeaderRecord`, then for a dynamic quorum a
/// `KRaftVersionRecord` at level 1 and at most one `VotersRecord` (the initial voters).
fn decode_header(batch: &strand_protocol::records::RecordBatch) -> Result<Option<QuorumVoters>, String> {
    if !batch.attributes().is_control() {
        return Err(format!("batch at {} is not a control batch", batch.base_offset()));
    }
    let mut voters = None;
    let mut kraft_version = None;
    for (i, record) in batch.records().map_err(|e| e.to_string())?.iter().enumerate() {
        let record = record.map_err(|e| e.to_string())?;
        let value = Bytes::copy_from_slice(record.value().unwrap_or_default());
        let kind = ControlRecordType::decode_key(record.key().ok_or("a control record without a key")?)
            .map_err(|e| e.to_string())?;
        match kind {
            ControlRecordType::SnapshotHeader if i == 0 => {}
            _ if i == 0 => return Err(format!("{kind:?} where a SnapshotHeader belongs")),
            ControlRecordType::KraftVersion => {
                let record = KRaftVersionRecord::decode_exact(value, 0).map_err(|e| e.to_string())?;
                kraft_version = Some(record.kraft_version);
            }
            ControlRecordType::KraftVoters if voters.is_none() => {
                let record = VotersRecord::decode_exact(value, 0).map_err(|e| e.to_string())?;
                voters = Some(voters_from_record(record).map_err(|e| e.to_string())?);
            }
            other => return Err(format!("unexpected control record {other:?} in the header's batch")),
        }
    }
    match (kraft_version, voters) {
        (None, None) => Ok(None),
        (Some(KRAFT_VERSION), voters) => Ok(Some(voters.unwrap_or_else(|| QuorumVoters::none("")))),
        (other, _) => Err(format!("kraft.version {other:?} in the header's batch, not {KRAFT_VERSION}")),
    }
}

/// Writes `dir/bootstrap.checkpoint`, whole or not at all.
pub fn write_bootstrap(dir: &Path, bootstrap: &Bootstrap, timestamp_ms: i64) -> Result<(), QuorumError> {
    let path = dir.join(BOOTSTRAP_FILE);
    let bytes = encode_bootstrap(bootstrap, timestamp_ms)?;
    strand_log::file::write_atomically(&path, &bytes).map_err(|e| QuorumError::io(&path, e))
}

/// What `dir/bootstrap.checkpoint` holds, `None` if there is no such file.
pub fn read_bootstrap(dir: &Path) -> Result<Option<Bootstrap>, QuorumError> {
    let path = dir.join(BOOTSTRAP_FILE);
    match std::fs::read(&path) {
        Ok(bytes) => decode_bootstrap(Bytes::from(bytes)).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(QuorumError::io(&path, e)),
    }
}
