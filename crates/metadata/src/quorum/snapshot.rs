//! Snapshots of the metadata log in Kafka's KRaft format: `<end offset>-<epoch>.checkpoint` in
//! the `__cluster_metadata-0` directory (20 and 10 digits), holding record batches that Kafka's
//! `DumpLogSegments --cluster-metadata-decoder` reads:
//!
//! | batch | records |
//! |---|---|
//! | control | `SnapshotHeaderRecord` (control type 3) |
//! | control | `KRaftVersionRecord` (type 5) and the voters, `VotersRecord` (type 6) |
//! | data, as many as needed | the image's records ([`MetadataImage::to_records`]), framed as in the log |
//! | control | `SnapshotFooterRecord` (type 4) |
//!
//! Offsets inside the file count from 0, every batch carries the snapshot's epoch and the last
//! contained record's timestamp, as Kafka's `RecordsSnapshotWriter` writes them. The snapshot
//! holds every record below its end offset; the epoch is that of the last one.
//!
//! Raft's numbering is not Kafka's (see `log_store`): the Raft index of the last entry in the
//! snapshot and the log id of the membership entry travel in the header as one tagged field
//! ([`STRAND_RAFT_TAG`]), which Kafka's readers keep as unknown and ignore.
//!
//! Files are written whole or not at all (`write_atomically`: a `.tmp` file, fsync, rename,
//! directory fsync); a leftover `.tmp` is deleted with the log's other leftovers when it opens.
//!
//! [`MetadataImage::to_records`]: crate::image::MetadataImage::to_records

use std::path::Path;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use openraft::{CommittedLeaderId, LogId, StoredMembership};
use strand_protocol::codec::RawTaggedField;
use strand_protocol::messages::records::MetadataRecord;
use strand_protocol::messages::snapshot_footer_record::SnapshotFooterRecord;
use strand_protocol::messages::snapshot_header_record::SnapshotHeaderRecord;
use strand_protocol::records::{ControlRecordType, NewRecord, RecordBatch, RecordBatchBuilder, RecordBatches};
use strand_protocol::{Decoder, Message};

use super::QuorumError;
use super::entry::{VoterNode, batch_entry, decode_frame, encode_frame, membership_records};

/// The file name suffix of a snapshot.
pub(crate) const SNAPSHOT_SUFFIX: &str = ".checkpoint";
/// The header's tagged field holding Strand's Raft position (no Kafka tag comes near it).
pub(crate) const STRAND_RAFT_TAG: u32 = 10_000;
/// The most records in one data batch of a snapshot.
const BATCH_RECORDS_MAX: usize = 1_000;

/// Kafka's snapshot id: every record below `end_offset` is in the snapshot, and the last of them
/// was written in `epoch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct SnapshotId {
    pub end_offset: i64,
    pub epoch: i32,
}

impl SnapshotId {
    /// Kafka's file name: `00000000000000000123-0000000004.checkpoint`.
    pub(crate) fn file_name(&self) -> String {
        format!("{:020}-{:010}{SNAPSHOT_SUFFIX}", self.end_offset, self.epoch)
    }

    /// The id a file name states, `None` for other files.
    pub(crate) fn parse(file_name: &str) -> Option<SnapshotId> {
        let stem = file_name.strip_suffix(SNAPSHOT_SUFFIX)?;
        let (offset, epoch) = stem.split_once('-')?;
        let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(offset, 20) || !digits(epoch, 10) {
            return None;
        }
        Some(SnapshotId { end_offset: offset.parse().ok()?, epoch: epoch.parse().ok()? })
    }
}

/// A snapshot: the image's records as of `id`, and where that is in Raft's numbering.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MetadataSnapshot {
    pub id: SnapshotId,
    /// The Raft log id of the last entry in the snapshot.
    pub last_log_id: LogId<u64>,
    /// The voters as of the snapshot, with the log id of the entry that set them.
    pub membership: StoredMembership<u64, VoterNode>,
    /// The timestamp of the last record in the snapshot.
    pub last_contained_timestamp_ms: i64,
    pub records: Vec<(MetadataRecord, i16)>,
}

impl MetadataSnapshot {
    /// The file's bytes: the batches described in the module doc.
    pub(crate) fn encode(&self) -> Result<Vec<u8>, QuorumError> {
        let mut writer = BatchWriter::new(self.id.epoch, self.last_contained_timestamp_ms);
        let header = SnapshotHeaderRecord {
            version: 0,
            last_contained_log_timestamp: self.last_contained_timestamp_ms,
            unknown_tagged_fields: vec![RawTaggedField { tag: STRAND_RAFT_TAG, data: self.raft_position() }],
        };
        let header = encode_message(&header)?;
        writer.control(vec![(ControlRecordType::SnapshotHeader, header)])?;
        let membership = self.membership.membership();
        let voters = membership_records(membership, true)?;
        let voters = voters
            .into_iter()
            .map(|(key, value)| Ok((key_type(key)?, value)))
            .collect::<Result<Vec<_>, QuorumError>>()?;
        writer.control(voters)?;
        for chunk in self.records.chunks(BATCH_RECORDS_MAX) {
            let frames = chunk.iter().map(|(record, version)| encode_frame(record, *version));
            writer.data(frames.collect::<Result<Vec<_>, _>>()?)?;
        }
        let footer = encode_message(&SnapshotFooterRecord { version: 0, unknown_tagged_fields: Vec::new() })?;
        writer.control(vec![(ControlRecordType::SnapshotFooter, footer)])?;
        Ok(writer.out)
    }

    /// Reads a snapshot's bytes back (`id` comes from the file name). Every batch's CRC is
    /// checked; a snapshot without its header, voters or footer is corrupt.
    pub(crate) fn decode(id: SnapshotId, bytes: Bytes) -> Result<MetadataSnapshot, QuorumError> {
        let corrupt = |reason: String| QuorumError::CorruptLog(format!("snapshot {}: {reason}", id.file_name()));
        let batches = checked_batches(bytes, corrupt)?;
        let [header, voters, data @ .., footer] = batches.as_slice() else {
            return Err(corrupt(format!("{} batches, not a header, voters, data and a footer", batches.len())));
        };
        let (timestamp, position) = read_header(header).map_err(corrupt)?;
        let (last_log_id, membership_log_id) = position;
        let (footer_type, _) = only_control_value(footer).map_err(corrupt)?;
        if footer_type != ControlRecordType::SnapshotFooter {
            return Err(corrupt(format!("ends with {footer_type:?}, not a footer")));
        }
        let membership = match batch_entry(voters, 0)?.payload {
            openraft::EntryPayload::Membership(membership) => membership,
            _ => return Err(corrupt("its second batch names no voters".into())),
        };
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
        Ok(MetadataSnapshot {
            id,
            last_log_id,
            membership: StoredMembership::new(membership_log_id, membership),
            last_contained_timestamp_ms: timestamp,
            records,
        })
    }

    /// Writes the snapshot to `dir` under its Kafka name, whole or not at all; returns its bytes.
    pub(crate) fn write(&self, dir: &Path) -> Result<Vec<u8>, QuorumError> {
        let bytes = self.encode()?;
        write_file(dir, self.id, &bytes)?;
        Ok(bytes)
    }

    /// Reads the snapshot `id` from `dir`.
    pub(crate) fn read(dir: &Path, id: SnapshotId) -> Result<MetadataSnapshot, QuorumError> {
        let path = dir.join(id.file_name());
        let bytes = std::fs::read(&path).map_err(|e| QuorumError::io(&path, e))?;
        MetadataSnapshot::decode(id, Bytes::from(bytes))
    }

    /// The header's tagged field: the last log id (term, index), then whether the membership has
    /// a log id and that log id (term, index), all big-endian.
    fn raft_position(&self) -> Bytes {
        let mut out = BytesMut::with_capacity(33);
        out.put_u64(self.last_log_id.leader_id.term);
        out.put_u64(self.last_log_id.index);
        match self.membership.log_id() {
            Some(id) => {
                out.put_u8(1);
                out.put_u64(id.leader_id.term);
                out.put_u64(id.index);
            }
            None => out.put_u8(0),
        }
        out.freeze()
    }
}

/// Writes a snapshot's bytes to `dir` under its Kafka name, whole or not at all.
pub(crate) fn write_file(dir: &Path, id: SnapshotId, bytes: &[u8]) -> Result<(), QuorumError> {
    let path = dir.join(id.file_name());
    strand_log::file::write_atomically(&path, bytes).map_err(|e| QuorumError::io(&path, e))
}

/// The ids of the snapshots in `dir`, oldest first.
pub(crate) fn snapshot_ids(dir: &Path) -> Result<Vec<SnapshotId>, QuorumError> {
    let entries = std::fs::read_dir(dir).map_err(|e| QuorumError::io(dir, e))?;
    let mut ids = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| QuorumError::io(dir, e))?;
        if let Some(id) = entry.file_name().to_str().and_then(SnapshotId::parse) {
            ids.push(id);
        }
    }
    ids.sort();
    Ok(ids)
}

/// Deletes every snapshot in `dir` older than `keep`.
pub(crate) fn delete_before(dir: &Path, keep: SnapshotId) -> Result<(), QuorumError> {
    let mut deleted = false;
    for id in snapshot_ids(dir)?.into_iter().filter(|id| *id < keep) {
        let path = dir.join(id.file_name());
        std::fs::remove_file(&path).map_err(|e| QuorumError::io(&path, e))?;
        deleted = true;
    }
    if deleted {
        strand_log::file::sync_dir(dir).map_err(|e| QuorumError::io(dir, e))?;
    }
    Ok(())
}

/// Appends a snapshot's (or the bootstrap file's) batches, numbering records from 0; every batch
/// carries `epoch` and every record `timestamp_ms`.
pub(crate) struct BatchWriter {
    pub(crate) out: Vec<u8>,
    next_offset: i64,
    epoch: i32,
    timestamp_ms: i64,
}

impl BatchWriter {
    pub(crate) fn new(epoch: i32, timestamp_ms: i64) -> BatchWriter {
        BatchWriter { out: Vec::new(), next_offset: 0, epoch, timestamp_ms }
    }

    pub(crate) fn control(&mut self, records: Vec<(ControlRecordType, Vec<u8>)>) -> Result<(), QuorumError> {
        let records = records.into_iter().map(|(kind, value)| (Some(kind.encode_key()), value)).collect();
        self.batch(true, records)
    }

    pub(crate) fn data(&mut self, frames: Vec<Vec<u8>>) -> Result<(), QuorumError> {
        self.batch(false, frames.into_iter().map(|frame| (None, frame)).collect())
    }

    fn batch(
        &mut self,
        control: bool,
        records: Vec<(Option<[u8; ControlRecordType::KEY_BYTES]>, Vec<u8>)>,
    ) -> Result<(), QuorumError> {
        let builder = RecordBatchBuilder::new().base_offset(self.next_offset).partition_leader_epoch(self.epoch);
        let mut builder = if control { builder.control() } else { builder };
        let timestamp_ms = self.timestamp_ms;
        for (key, value) in &records {
            let record =
                NewRecord { timestamp_ms, key: key.as_ref().map(|k| &k[..]), value: Some(value), headers: &[] };
            builder.append(&record).map_err(|e| QuorumError::Encode(e.to_string()))?;
        }
        let bytes = builder.build().map_err(|e| QuorumError::Encode(e.to_string()))?;
        self.next_offset += i64::try_from(records.len()).unwrap_or(i64::MAX);
        self.out.extend_from_slice(&bytes);
        Ok(())
    }
}

pub(crate) fn encode_message<M: Message>(message: &M) -> Result<Vec<u8>, QuorumError> {
    Ok(message.encode_to_bytes(0).map_err(|e| QuorumError::Encode(e.to_string()))?.to_vec())
}

fn key_type(key: Option<[u8; ControlRecordType::KEY_BYTES]>) -> Result<ControlRecordType, QuorumError> {
    let key = key.ok_or_else(|| QuorumError::Encode("a voters record without a control key".into()))?;
    ControlRecordType::decode_key(&key).map_err(|e| QuorumError::Encode(e.to_string()))
}

/// The type and value of a control batch's only record.
pub(crate) fn only_control_value(batch: &RecordBatch) -> Result<(ControlRecordType, Bytes), String> {
    if !batch.attributes().is_control() {
        return Err(format!("batch at {} is not a control batch", batch.base_offset()));
    }
    let records = batch.records().map_err(|e| e.to_string())?;
    let mut iter = records.iter();
    let record = iter.next().ok_or("an empty control batch")?.map_err(|e| e.to_string())?;
    if iter.next().is_some() {
        return Err(format!("control batch at {} holds more than one record", batch.base_offset()));
    }
    let kind = ControlRecordType::decode_key(record.key().ok_or("a control record without a key")?)
        .map_err(|e| e.to_string())?;
    Ok((kind, Bytes::copy_from_slice(record.value().unwrap_or_default())))
}

type RaftPosition = (LogId<u64>, Option<LogId<u64>>);

/// The header's last contained timestamp and Strand's Raft position.
fn read_header(batch: &RecordBatch) -> Result<(i64, RaftPosition), String> {
    let (kind, value) = only_control_value(batch)?;
    if kind != ControlRecordType::SnapshotHeader {
        return Err(format!("starts with {kind:?}, not a header"));
    }
    let mut d = Decoder::new(value);
    let header = <SnapshotHeaderRecord as strand_protocol::Struct>::decode(&mut d, 0).map_err(|e| e.to_string())?;
    let tag = header.unknown_tagged_fields.iter().find(|t| t.tag == STRAND_RAFT_TAG);
    let mut data = tag.ok_or("no Raft position in the header (not written by Strand)")?.data.clone();
    let log_id = |data: &mut Bytes| {
        let (term, index) = (data.get_u64(), data.get_u64());
        LogId::new(CommittedLeaderId::new(term, 0), index)
    };
    if data.len() != 17 && data.len() != 33 {
        return Err(format!("a Raft position of {} bytes", data.len()));
    }
    let last = log_id(&mut data);
    let membership = match data.get_u8() {
        0 if data.is_empty() => None,
        1 if data.len() == 16 => Some(log_id(&mut data)),
        other => return Err(format!("membership flag {other} with {} bytes", data.len())),
    };
    Ok((header.last_contained_log_timestamp, (last, membership)))
}

/// Every batch of a snapshot-shaped file, each CRC checked; `corrupt` words what is wrong (a bad
/// batch, a CRC mismatch, a torn batch at the end).
pub(super) fn checked_batches(
    bytes: Bytes,
    corrupt: impl Fn(String) -> QuorumError,
) -> Result<Vec<RecordBatch>, QuorumError> {
    let mut batches = Vec::new();
    let mut iter = RecordBatches::new(bytes);
    for batch in iter.by_ref() {
        let batch = batch.map_err(|e| corrupt(e.to_string()))?;
        if !batch.crc_is_valid() {
            return Err(corrupt(format!("batch at {}: CRC mismatch", batch.base_offset())));
        }
        batches.push(batch);
    }
    if iter.partial_tail() {
        return Err(corrupt("a torn batch at its end".into()));
    }
    Ok(batches)
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use openraft::Membership;
    use strand_protocol::messages::TopicRecord;

    use super::*;

    fn snapshot(records: usize) -> MetadataSnapshot {
        let membership = Membership::new(vec![BTreeSet::from([1, 2, 3])], BTreeMap::from([(1, VoterNode::default())]));
        let topic = |i: usize| MetadataRecord::TopicRecord(TopicRecord { name: format!("t{i}"), ..Default::default() });
        MetadataSnapshot {
            id: SnapshotId { end_offset: 4_321, epoch: 7 },
            last_log_id: LogId::new(CommittedLeaderId::new(7, 0), 1_234),
            membership: StoredMembership::new(Some(LogId::new(CommittedLeaderId::new(0, 0), 0)), membership),
            last_contained_timestamp_ms: 1_700_000_000_000,
            records: (0..records).map(|i| (topic(i), 0)).collect(),
        }
    }

    /// A snapshot comes back from its bytes whole, records split over batches included.
    #[test]
    fn snapshots_round_trip() {
        for records in [0, 1, BATCH_RECORDS_MAX, BATCH_RECORDS_MAX * 2 + 1] {
            let snapshot = snapshot(records);
            let bytes = Bytes::from(snapshot.encode().expect("encodes"));
            assert_eq!(MetadataSnapshot::decode(snapshot.id, bytes).expect("decodes"), snapshot);
        }
    }

    /// A torn, truncated or bit-flipped file is refused, never half read.
    #[test]
    fn damaged_snapshots_are_refused() {
        let snapshot = snapshot(10);
        let bytes = snapshot.encode().expect("encodes");
        for cut in [0, 20, bytes.len() / 2, bytes.len() - 1] {
            assert!(MetadataSnapshot::decode(snapshot.id, Bytes::copy_from_slice(&bytes[..cut])).is_err(), "cut {cut}");
        }
        let mut flipped = bytes.clone();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0x40;
        assert!(MetadataSnapshot::decode(snapshot.id, Bytes::from(flipped)).is_err());
    }

    /// Kafka's file names, and nothing else taken for one.
    #[test]
    fn file_names_are_kafkas() {
        let id = SnapshotId { end_offset: 123, epoch: 4 };
        assert_eq!(id.file_name(), "00000000000000000123-0000000004.checkpoint");
        assert_eq!(SnapshotId::parse(&id.file_name()), Some(id));
        for other in ["00000000000000000123.log", "123-4.checkpoint", "00000000000000000123-0000000004.checkpoint.tmp"]
        {
            assert_eq!(SnapshotId::parse(other), None, "{other}");
        }
    }

    /// Written atomically, listed oldest first, older ones deleted on request.
    #[test]
    fn snapshots_are_written_listed_and_deleted() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut older = snapshot(2);
        older.id = SnapshotId { end_offset: 100, epoch: 3 };
        older.write(dir.path()).expect("writes");
        let newer = snapshot(3);
        newer.write(dir.path()).expect("writes");
        assert_eq!(snapshot_ids(dir.path()).expect("lists"), [older.id, newer.id]);
        assert_eq!(MetadataSnapshot::read(dir.path(), newer.id).expect("reads"), newer);
        delete_before(dir.path(), newer.id).expect("deletes");
        assert_eq!(snapshot_ids(dir.path()).expect("lists"), [newer.id]);
    }
}
