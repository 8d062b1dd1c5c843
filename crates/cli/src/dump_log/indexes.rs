//! The index and state files Kafka's `DumpLogSegments` dumps beside segments: `.index` (8-byte
//! entries: relative offset, position), `.timeindex` (12-byte entries: timestamp, relative
//! offset), each checked against its segment; `.txnindex` (34-byte aborted transactions) and
//! producer `.snapshot` files (through the `log` crate's decoder).
//!
//! An index is read whole and read-only; its entry count is its length over the entry size, as
//! Kafka counts a file it opens, and a zero entry past the first ends the dump (a preallocated
//! tail), as in Kafka.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Batches, DumpLogArgs, Findings, base_offset};

const OFFSET_ENTRY_BYTES: usize = 8;
const TIME_ENTRY_BYTES: usize = 12;
const TXN_ENTRY_BYTES: usize = 34;
/// The largest index file read (Kafka's `segment.index.bytes` default is 10 MiB).
const INDEX_BYTES_MAX: u64 = 1024 * 1024 * 1024;

/// What the time index checks found, per file (Kafka's `TimeIndexDumpErrors`).
#[derive(Debug, Default)]
pub struct TimeIndexFindings {
    /// (index timestamp, the batch's largest record timestamp).
    mismatches: BTreeMap<PathBuf, Vec<(i64, i64)>>,
    /// (index timestamp, the entry before's).
    out_of_order: BTreeMap<PathBuf, Vec<(i64, i64)>>,
    /// (indexed offset, the last offset of the batch found instead, or -1).
    not_found: BTreeMap<PathBuf, Vec<(i64, i64)>>,
}

impl TimeIndexFindings {
    pub fn report(&self) {
        for (file, found) in &self.mismatches {
            eprintln!("Found timestamp mismatch in :{}", file.display());
            for (index, log) in found {
                eprintln!("  Index timestamp: {index}, log timestamp: {log}");
            }
        }
        for (file, found) in &self.out_of_order {
            eprintln!("Found out of order timestamp in :{}", file.display());
            for (index, previous) in found {
                eprintln!("  Index timestamp: {index}, Previously indexed timestamp: {previous}");
            }
        }
        for found in self.not_found.values() {
            eprintln!("The following indexed offsets are not found in the log.");
            for (indexed, log) in found {
                eprintln!("Indexed offset: {indexed}, found log offset: {log}");
            }
        }
    }
}

/// Kafka's `dumpIndex`.
pub fn dump_index(path: &Path, args: &DumpLogArgs, findings: &mut Findings) -> Result<(), String> {
    let base = base_offset(path)?;
    let bytes = read_index(path)?;
    let entries = offset_entries(&bytes, base);
    if entries.is_empty() {
        println!("{} is empty.", path.display());
        return Ok(());
    }
    if args.index_sanity_check {
        let last = entries.last().map_or(base, |(offset, _)| *offset);
        if last < base {
            return Err(format!(
                "Corrupt index found, index file ({}) has non-zero size but the last offset is {last} which is less \
                 than the base offset {base}.",
                absolute(path).display()
            ));
        }
        println!("{} passed sanity check.", path.display());
        return Ok(());
    }
    let log = sibling(path, "log");
    let limit = u64::try_from(args.max_message_size).unwrap_or(0);
    for (i, (offset, position)) in entries.into_iter().enumerate() {
        if offset == base && i > 0 {
            break;
        }
        let mut batches = Batches::open(&log, u64::from(position), limit)?;
        let Some((_, batch)) = batches.next_batch()? else {
            return Err(format!("{}: no batch at position {position}", log.display()));
        };
        if batch.last_offset() != offset {
            findings.index_mismatches.entry(absolute(path)).or_default().insert(0, (offset, batch.last_offset()));
        }
        if !args.verify_index_only {
            println!("offset: {offset} position: {position}");
        }
    }
    Ok(())
}

/// Kafka's `dumpTimeIndex`.
pub fn dump_time_index(path: &Path, args: &DumpLogArgs, findings: &mut Findings) -> Result<(), String> {
    let base = base_offset(path)?;
    let bytes = read_index(path)?;
    let entries: Vec<(i64, i64)> =
        bytes.chunks_exact(TIME_ENTRY_BYTES).map(|e| (be_i64(&e[..8]), base + i64::from(be_i32(&e[8..12])))).collect();
    if args.index_sanity_check {
        return time_index_sanity(path, base, &entries, bytes.len());
    }
    let log = sibling(path, "log");
    let offsets = offset_entries(&read_index(&sibling(path, "index"))?, base);
    let file = absolute(path);
    let mut previous = -1i64;
    for (i, (timestamp, offset)) in entries.into_iter().enumerate() {
        if offset == base && i > 0 {
            break;
        }
        let position = offsets.iter().take_while(|(o, _)| *o <= offset).last().map_or(0, |(_, p)| *p);
        let mut batches = Batches::open(&log, u64::from(position), u64::MAX)?;
        let mut found = None;
        while let Some((_, batch)) = batches.next_batch()? {
            if batch.last_offset() >= offset {
                found = Some(batch);
                break;
            }
        }
        match found {
            None => findings.time_index.not_found.entry(file.clone()).or_default().push((offset, -1)),
            Some(batch) if batch.last_offset() != offset => {
                findings.time_index.not_found.entry(file.clone()).or_default().push((offset, batch.last_offset()))
            }
            Some(batch) => {
                let records = batch.records().map_err(|e| format!("{}: {e}", log.display()))?;
                let mut max = -1i64;
                for record in &records {
                    let record = record.map_err(|e| format!("{}: {e}", log.display()))?;
                    max = max.max(batch.record_timestamp(&record));
                }
                if max != timestamp {
                    findings.time_index.mismatches.entry(file.clone()).or_default().push((timestamp, max));
                }
                if previous >= timestamp {
                    findings.time_index.out_of_order.entry(file.clone()).or_default().push((timestamp, previous));
                }
            }
        }
        if !args.verify_index_only {
            println!("timestamp: {timestamp} offset: {offset}");
        }
        previous = timestamp;
    }
    Ok(())
}

/// Kafka's `TimeIndex.sanityCheck`, then the line saying it passed.
fn time_index_sanity(path: &Path, base: i64, entries: &[(i64, i64)], length: usize) -> Result<(), String> {
    let file = absolute(path);
    if let (Some((first, _)), Some((last_timestamp, last_offset))) = (entries.first(), entries.last()) {
        if last_timestamp < first {
            return Err(format!(
                "Corrupt time index found, time index file ({}) has non-zero size but the last timestamp is \
                 {last_timestamp} which is less than the first timestamp {first}",
                file.display()
            ));
        }
        if *last_offset < base {
            return Err(format!(
                "Corrupt time index found, time index file ({}) has non-zero size but the last offset is \
                 {last_offset} which is less than the first offset {base}",
                file.display()
            ));
        }
    }
    if !length.is_multiple_of(TIME_ENTRY_BYTES) {
        return Err(format!(
            "Time index file {} is corrupt, found {length} bytes which is neither positive nor a multiple of 12.",
            file.display()
        ));
    }
    println!("{} passed sanity check.", path.display());
    Ok(())
}

/// Kafka's `dumpTxnIndex`: each aborted transaction.
pub fn dump_txn_index(path: &Path) -> Result<(), String> {
    let bytes = read_index(path)?;
    if !bytes.len().is_multiple_of(TXN_ENTRY_BYTES) {
        return Err(format!("Unexpected size of transaction index {} bytes in {}", bytes.len(), path.display()));
    }
    for entry in bytes.chunks_exact(TXN_ENTRY_BYTES) {
        println!(
            "version: 0 producerId: {} firstOffset: {} lastOffset: {} lastStableOffset: {}",
            be_i64(&entry[2..10]),
            be_i64(&entry[10..18]),
            be_i64(&entry[18..26]),
            be_i64(&entry[26..34])
        );
    }
    Ok(())
}

/// Kafka's `dumpProducerIdSnapshot`: each producer, with its last batch.
pub fn dump_producer_snapshot(path: &Path) -> Result<(), String> {
    let bytes = read_index(path)?;
    let entries = match strand_log::producer_state::decode_snapshot(path, &bytes) {
        Ok(entries) => entries,
        Err(e) => {
            // Kafka's tool prints a corrupt snapshot's message and goes on.
            eprintln!("{e}");
            return Ok(());
        }
    };
    for e in entries {
        let first_txn_offset = match e.current_txn_first_offset {
            -1 => "OptionalLong.empty".to_owned(),
            offset => format!("OptionalLong[{offset}]"),
        };
        let first_sequence = decrement_sequence(e.last_sequence, e.offset_delta);
        println!(
            "producerId: {} producerEpoch: {} coordinatorEpoch: {} currentTxnFirstOffset: {first_txn_offset} \
             lastTimestamp: {} firstSequence: {first_sequence} lastSequence: {} lastOffset: {} offsetDelta: {} \
             timestamp: {}",
            e.producer_id.0,
            e.epoch,
            e.coordinator_epoch,
            e.timestamp,
            e.last_sequence,
            e.last_offset,
            e.offset_delta,
            e.timestamp
        );
    }
    Ok(())
}

/// Kafka's `DefaultRecordBatch.decrementSequence`.
fn decrement_sequence(sequence: i32, decrement: i32) -> i32 {
    if sequence < decrement { i32::MAX - (decrement - sequence) + 1 } else { sequence - decrement }
}

/// An offset index's entries: (absolute offset, position).
fn offset_entries(bytes: &[u8], base: i64) -> Vec<(i64, u32)> {
    bytes
        .chunks_exact(OFFSET_ENTRY_BYTES)
        .map(|e| (base + i64::from(be_i32(&e[..4])), u32::from_be_bytes([e[4], e[5], e[6], e[7]])))
        .collect()
}

fn read_index(path: &Path) -> Result<Vec<u8>, String> {
    let length = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?.len();
    if length > INDEX_BYTES_MAX {
        return Err(format!("{}: {length} bytes is more than an index holds", path.display()));
    }
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The file of the same segment with another suffix (`.log` beside `.index`).
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = name.split('.').next().unwrap_or_default();
    absolute(path).with_file_name(format!("{stem}.{suffix}"))
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

fn be_i32(bytes: &[u8]) -> i32 {
    i32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

fn be_i64(bytes: &[u8]) -> i64 {
    let mut array = [0u8; 8];
    array.copy_from_slice(&bytes[..8]);
    i64::from_be_bytes(array)
}
