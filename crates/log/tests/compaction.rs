//! Compaction (`cleanup.policy=compact`), as Kafka's log cleaner does it: after a pass, a read from
//! the start yields the latest record per key at its original offset (holes between), the active
//! segment untouched; tombstones last `delete.retention.ms` after the pass that first kept them;
//! `min.compaction.lag.ms` protects recent records; a crash anywhere in the segment swap reopens
//! to the log before or after the pass; idempotent producers' last batches survive; Kafka's
//! DumpLogSegments reads the cleaned segments. Driven by a test clock.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use bytes::BytesMut;
use strand_base::testkit::ManualClock;
use strand_base::{Offset, ProducerId};
use strand_log::cleaner::{Cleaner, CleanerConfig};
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{Log, LogConfig};
use strand_protocol::records::control::{EndTxnMarker, TransactionResult, end_txn_marker_batch};
use strand_protocol::records::{Compression, NewRecord, RecordBatch, RecordBatchBuilder, RecordBatches};

const HOUR_MS: i64 = 60 * 60 * 1000;

/// One record as read back: offset, key, value (`None`: a tombstone).
type Read = (Offset, Option<String>, Option<String>);

fn config() -> LogConfig {
    LogConfig {
        segment_bytes: 400,
        segment_index_bytes: 4096,
        compact_enabled: true,
        delete_enabled: false,
        ..LogConfig::default()
    }
}

fn open(dir: &Path, config: LogConfig, clock: &Arc<ManualClock>) -> Log {
    Log::open(dir, config, LogCheckpoints::default(), clock.clone()).expect("open")
}

/// A pass with the high watermark at the log end.
fn clean_all(cleaner: &mut Cleaner, log: &mut Log) -> strand_log::Result<Option<strand_log::cleaner::CleanStats>> {
    let high_watermark = log.log_end_offset();
    log.producer_state_mut().on_high_watermark_updated(high_watermark);
    cleaner.clean(log, high_watermark)
}

fn small_cleaner() -> Cleaner {
    Cleaner::new(CleanerConfig { dedupe_buffer_bytes: 64 * 1024, ..CleanerConfig::default() })
}

/// Appends one batch of `records` (key, value) at `timestamp_ms`.
fn append(log: &mut Log, timestamp_ms: i64, records: &[(&str, Option<&str>)]) -> Offset {
    let builder = RecordBatchBuilder::new();
    append_built(log, builder, timestamp_ms, records)
}

fn append_built(log: &mut Log, mut builder: RecordBatchBuilder, ts: i64, records: &[(&str, Option<&str>)]) -> Offset {
    for (key, value) in records {
        let record =
            NewRecord { timestamp_ms: ts, key: Some(key.as_bytes()), value: value.map(str::as_bytes), headers: &[] };
        builder.append(&record).expect("record");
    }
    let batch = ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid");
    let info = log.append_as_leader(batch, 0, AppendContext::client(VerificationGuard::SENTINEL)).expect("append");
    info.first_offset
}

/// Every record of the log from its start, in order.
fn read_all(log: &Log) -> Vec<Read> {
    let mut out = Vec::new();
    let mut offset = log.log_start_offset();
    while let Some(slice) = log.read(offset, 1 << 20, None).expect("read") {
        for batch in RecordBatches::new(slice.read().expect("bytes")) {
            let batch = batch.expect("batch");
            assert!(batch.crc_is_valid(), "batch at {} has a valid CRC", batch.base_offset());
            offset = batch.next_offset();
            if batch.attributes().is_control() {
                out.push((batch.base_offset(), None, Some("<marker>".into())));
                continue;
            }
            for record in batch.records().expect("records").iter() {
                let record = record.expect("record");
                let text = |b: Option<&[u8]>| b.map(|b| String::from_utf8_lossy(b).into_owned());
                out.push((batch.record_offset(&record), text(record.key()), text(record.value())));
            }
        }
    }
    out
}

/// What compaction up to `end` keeps of `records`: below `end`, the latest record per key.
fn compacted(records: &[Read], end: Offset) -> Vec<Read> {
    let mut latest: BTreeMap<&Option<String>, Offset> = BTreeMap::new();
    for (offset, key, _) in records.iter().filter(|(o, _, _)| *o < end) {
        latest.insert(key, *offset);
    }
    records.iter().filter(|(o, k, _)| *o >= end || latest.get(k) == Some(o)).cloned().collect()
}

/// Appends `count` single-record batches cycling over `keys` keys, values naming their offset.
fn fill(log: &mut Log, ts: i64, keys: usize, count: usize) {
    for i in 0..count {
        let key = format!("k{}", i % keys);
        let value = format!("v{}", log.log_end_offset());
        append(log, ts, &[(&key, Some(&value))]);
    }
}

fn file_bytes(dir: &Path, base: Offset) -> Vec<u8> {
    std::fs::read(dir.join(format!("{base:020}.log"))).expect("segment file")
}

/// The latest value per key survives at its original offset, the active segment is untouched,
/// small segments are merged, and a read at a compacted-away offset starts at the next record.
#[test]
fn latest_value_per_key_keeps_its_offset() {
    let clock = Arc::new(ManualClock::default());
    let dir = tempfile::tempdir().expect("dir");
    let mut log = open(dir.path(), config(), &clock);
    fill(&mut log, 0, 5, 60);
    let before = read_all(&log);
    let segments_before = log.segment_count();
    let active = *log.segment_base_offsets().last().expect("active");
    let active_bytes = file_bytes(dir.path(), active);
    assert!(segments_before >= 5, "several segments: {segments_before}");

    let stats = clean_all(&mut small_cleaner(), &mut log).expect("clean").expect("a pass ran");
    assert_eq!((stats.first_dirty_offset, stats.end_offset, stats.map_full), (0, active, false));
    let after = read_all(&log);
    assert_eq!(after, compacted(&before, active));
    assert_eq!(file_bytes(dir.path(), active), active_bytes, "the active segment is untouched");
    assert_eq!(log.first_dirty_offset(), Some(active));

    // Offset 0 was compacted away: a read there starts at the first record kept.
    let first_kept = after[0].0;
    assert!(first_kept > 0);
    let slice = log.read(1, 1 << 20, None).expect("read").expect("records");
    let batch = RecordBatches::new(slice.read().expect("bytes")).next().expect("a batch").expect("valid");
    assert!(batch.base_offset() <= first_kept.max(1) && batch.last_offset() >= 1);

    // Nothing dirty: no second pass; a reopened log reads the same.
    assert_eq!(clean_all(&mut small_cleaner(), &mut log).expect("clean"), None);
    log.close().expect("close");
    let checkpoints =
        LogCheckpoints { recovery_point: log.log_end_offset(), log_start_offset: 0, clean_shutdown: true };
    let mut reopened = Log::open(dir.path(), config(), checkpoints, clock).expect("reopen");
    assert_eq!(read_all(&reopened), after);

    // The next pass merges the segments the first one shrank (groups are sized before cleaning,
    // as Kafka's are).
    fill(&mut reopened, 0, 5, 10);
    let before = read_all(&reopened);
    let stats = clean_all(&mut small_cleaner(), &mut reopened).expect("clean").expect("a pass ran");
    assert_eq!(read_all(&reopened), compacted(&before, stats.end_offset));
    assert!(stats.segments_written < stats.segments_read, "segments merged: {stats:?}");
    assert!(reopened.segment_count() < segments_before, "{:?}", reopened.segment_base_offsets());
}

/// A map too small for the dirty keys cleans up to where it got; the next pass continues.
#[test]
fn a_full_map_cleans_up_to_where_it_got() {
    let clock = Arc::new(ManualClock::default());
    let dir = tempfile::tempdir().expect("dir");
    let mut log = open(dir.path(), config(), &clock);
    fill(&mut log, 0, 40, 80);
    let before = read_all(&log);
    let mut cleaner = Cleaner::new(CleanerConfig { dedupe_buffer_bytes: 24 * 24, dedupe_buffer_load_factor: 0.9 });
    let stats = clean_all(&mut cleaner, &mut log).expect("clean").expect("a pass ran");
    assert!(stats.map_full && stats.end_offset > 0, "{stats:?}");
    assert_eq!(stats.keys_mapped, 21);
    assert_eq!(read_all(&log), compacted(&before, stats.end_offset));
    let second = clean_all(&mut cleaner, &mut log).expect("clean").expect("a second pass");
    assert_eq!(second.first_dirty_offset, stats.end_offset);
}

/// A tombstone removes its key's older values at once, and itself `delete.retention.ms` after
/// the pass that first kept it.
#[test]
fn tombstones_last_delete_retention_ms() {
    let clock = Arc::new(ManualClock::default());
    let dir = tempfile::tempdir().expect("dir");
    let config = LogConfig { delete_retention_ms: HOUR_MS, ..config() };
    let mut log = open(dir.path(), config, &clock);
    append(&mut log, 0, &[("gone", Some("old"))]);
    fill(&mut log, 0, 3, 10);
    let tombstone = append(&mut log, 0, &[("gone", None)]);
    fill(&mut log, 0, 3, 10);
    let mut cleaner = small_cleaner();

    clock.set(1000);
    clean_all(&mut cleaner, &mut log).expect("clean").expect("a pass ran");
    let gone: Vec<Read> = read_all(&log).into_iter().filter(|(_, k, _)| k.as_deref() == Some("gone")).collect();
    assert_eq!(gone, [(tombstone, Some("gone".into()), None)], "the old value went, the tombstone stays");

    clock.set(1000 + HOUR_MS - 1);
    assert_eq!(clean_all(&mut cleaner, &mut log).expect("clean"), None, "horizon not reached");
    assert!(read_all(&log).iter().any(|(o, _, _)| *o == tombstone));

    clock.set(1000 + HOUR_MS);
    clean_all(&mut cleaner, &mut log).expect("clean").expect("the horizon triggers a pass");
    assert!(read_all(&log).iter().all(|(_, k, _)| k.as_deref() != Some("gone")), "the tombstone went");
}

/// Records newer than `min.compaction.lag.ms` are not compacted.
#[test]
fn min_compaction_lag_protects_recent_records() {
    let clock = Arc::new(ManualClock::default());
    let dir = tempfile::tempdir().expect("dir");
    let config = LogConfig { min_compaction_lag_ms: HOUR_MS, ..config() };
    let mut log = open(dir.path(), config, &clock);
    fill(&mut log, 0, 3, 20);
    clock.set(2 * HOUR_MS);
    fill(&mut log, 2 * HOUR_MS, 3, 20);
    let before = read_all(&log);
    let mut cleaner = small_cleaner();

    clock.set(2 * HOUR_MS + 10);
    let stats = clean_all(&mut cleaner, &mut log).expect("clean").expect("old records are cleanable");
    assert!(stats.end_offset <= 20, "only segments older than the lag: {stats:?}");
    assert!(stats.end_offset > 0);
    assert_eq!(read_all(&log), compacted(&before, stats.end_offset));
    assert!(read_all(&log).iter().filter(|(o, _, _)| *o >= 20).count() == 20, "recent records all kept");

    clock.set(4 * HOUR_MS);
    let stats = clean_all(&mut cleaner, &mut log).expect("clean").expect("now everything");
    let active = *log.segment_base_offsets().last().expect("active");
    assert_eq!(stats.end_offset, active);
    assert_eq!(read_all(&log), compacted(&before, active));
}

/// Nothing at or above the high watermark is compacted.
#[test]
fn the_high_watermark_bounds_cleaning() {
    let clock = Arc::new(ManualClock::default());
    let dir = tempfile::tempdir().expect("dir");
    let mut log = open(dir.path(), config(), &clock);
    fill(&mut log, 0, 3, 30);
    let before = read_all(&log);
    let stats = small_cleaner().clean(&mut log, 10).expect("clean").expect("a pass ran");
    assert_eq!(stats.end_offset, 10);
    assert_eq!(read_all(&log), compacted(&before, 10));
}

/// Copies every file of `from` into `to`, renaming with `rename`.
fn copy_dir(from: &Path, to: &Path, rename: impl Fn(&str) -> Option<String>) {
    std::fs::create_dir_all(to).expect("dir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let path = entry.expect("entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).expect("name").to_owned();
        if let Some(new_name) = rename(&name) {
            std::fs::copy(&path, to.join(new_name)).expect("copy");
        }
    }
}

fn reopen_unclean(dir: &Path, clock: &Arc<ManualClock>) -> Log {
    let checkpoints = LogCheckpoints { recovery_point: 0, log_start_offset: 0, clean_shutdown: false };
    Log::open(dir, config(), checkpoints, clock.clone()).expect("reopen")
}

/// A crash with the cleaned segments still `.cleaned` reopens to the log before the pass; one
/// after their rename to `.swap` (old segments present, or some already deleted) reopens to the
/// log after it. The on-disk states are built from copies of the log before and after.
#[test]
fn a_crash_during_the_swap_leaves_the_old_or_the_new_log() {
    let clock = Arc::new(ManualClock::default());
    let root = tempfile::tempdir().expect("dir");
    let (live, before_dir) = (root.path().join("live"), root.path().join("before"));
    let mut log = open(&live, config(), &clock);
    for i in 0..40 {
        // Each segment also holds a key written once, so every cleaned group ends where it did.
        let unique = format!("u{i}");
        append(&mut log, 0, &[("k", Some(&format!("v{i}"))), (&unique, Some("once"))]);
    }
    log.close().expect("close");
    copy_dir(&live, &before_dir, |n| Some(n.to_owned()));
    let before = read_all(&log);
    clean_all(&mut small_cleaner(), &mut log).expect("clean").expect("a pass ran");
    log.close().expect("close");
    let after = read_all(&log);
    assert_ne!(before, after);
    let active = *log.segment_base_offsets().last().expect("active");
    let cleaned_file =
        |name: &str| name.split('.').next().and_then(|b| b.parse::<Offset>().ok()).is_some_and(|b| b < active);
    let segment_file = |name: &str| [".log", ".index", ".timeindex", ".txnindex"].iter().any(|e| name.ends_with(e));

    // Crash before the commit: `.cleaned` files beside the old segments.
    let crashed = root.path().join("cleaned");
    copy_dir(&before_dir, &crashed, |n| Some(n.to_owned()));
    copy_dir(&live, &crashed, |n| (cleaned_file(n) && segment_file(n)).then(|| format!("{n}.cleaned")));
    assert_eq!(read_all(&reopen_unclean(&crashed, &clock)), before);

    // Crash after the commit, before any old segment was deleted.
    let crashed = root.path().join("swap");
    copy_dir(&before_dir, &crashed, |n| Some(n.to_owned()));
    copy_dir(&live, &crashed, |n| (cleaned_file(n) && segment_file(n)).then(|| format!("{n}.swap")));
    let reopened = reopen_unclean(&crashed, &clock);
    assert_eq!(read_all(&reopened), after);
    assert_eq!(reopened.segment_base_offsets(), log.segment_base_offsets());

    // Crash after the commit with the old segments half deleted (`.log` renamed `.deleted`).
    let crashed = root.path().join("deleting");
    copy_dir(&before_dir, &crashed, |n| {
        Some(if n.ends_with(".log") && cleaned_file(n) { format!("{n}.deleted") } else { n.to_owned() })
    });
    copy_dir(&live, &crashed, |n| (cleaned_file(n) && segment_file(n)).then(|| format!("{n}.swap")));
    assert_eq!(read_all(&reopen_unclean(&crashed, &clock)), after);
    let leftovers: Vec<String> = std::fs::read_dir(&crashed)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".swap") || n.ends_with(".cleaned") || n.ends_with(".deleted"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// The last batch of an idempotent producer survives cleaning, emptied, so a retry of it is still
/// a duplicate after a restart that rebuilds the producer state from the log alone.
#[test]
fn an_idempotent_producers_last_batch_survives() {
    let clock = Arc::new(ManualClock::default());
    let dir = tempfile::tempdir().expect("dir");
    let mut log = open(dir.path(), config(), &clock);
    let producer = ProducerId(77);
    let producer_batch = |sequence: i32| RecordBatchBuilder::new().producer(producer, 0, sequence);
    append_built(&mut log, producer_batch(0), 0, &[("p", Some("1")), ("q", Some("1"))]);
    let last = append_built(&mut log, producer_batch(2), 0, &[("p", Some("2"))]);
    fill(&mut log, 0, 2, 10);
    append(&mut log, 0, &[("p", Some("3")), ("q", Some("3"))]);
    fill(&mut log, 0, 2, 10);
    clean_all(&mut small_cleaner(), &mut log).expect("clean").expect("a pass ran");
    assert!(read_all(&log).iter().all(|(o, _, _)| *o != last), "the producer's records were compacted away");
    let slice = log.read(last, 1 << 20, None).expect("read").expect("the batch");
    let kept = RecordBatches::new(slice.read().expect("bytes")).next().expect("a batch").expect("valid");
    assert_eq!((kept.base_offset(), kept.record_count(), kept.producer_id()), (last, 0, producer));
    log.close().expect("close");

    // Without snapshots, the producer state comes from the log itself.
    for entry in std::fs::read_dir(dir.path()).expect("dir") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "snapshot") {
            std::fs::remove_file(path).expect("remove snapshot");
        }
    }
    let mut reopened = reopen_unclean(dir.path(), &clock);
    let end = reopened.log_end_offset();
    let retry = append_built_info(&mut reopened, producer_batch(2), &[("p", Some("2"))]);
    assert!(retry.duplicate, "the retry is detected: {retry:?}");
    assert_eq!((retry.first_offset, reopened.log_end_offset()), (last, end));
}

fn append_built_info(
    log: &mut Log,
    mut builder: RecordBatchBuilder,
    records: &[(&str, Option<&str>)],
) -> strand_log::log::AppendInfo {
    for (key, value) in records {
        let record =
            NewRecord { timestamp_ms: 0, key: Some(key.as_bytes()), value: value.map(str::as_bytes), headers: &[] };
        builder.append(&record).expect("record");
    }
    let batch = ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid");
    log.append_as_leader(batch, 0, AppendContext::client(VerificationGuard::SENTINEL)).expect("append")
}

/// Compressed batches are rebuilt in their codec with the records they keep.
#[test]
fn compressed_batches_are_rebuilt_in_their_codec() {
    let clock = Arc::new(ManualClock::default());
    let dir = tempfile::tempdir().expect("dir");
    let mut log = open(dir.path(), LogConfig { segment_bytes: 2000, ..config() }, &clock);
    for (i, codec) in Compression::ALL.iter().cycle().take(20).enumerate() {
        let builder = RecordBatchBuilder::new().compression(*codec);
        let (a, b) = (format!("a{}", i % 3), format!("v{i}"));
        append_built(&mut log, builder, 0, &[(&a, Some(&b)), ("shared", Some(&b))]);
    }
    let before = read_all(&log);
    let active = *log.segment_base_offsets().last().expect("active");
    clean_all(&mut small_cleaner(), &mut log).expect("clean").expect("a pass ran");
    assert_eq!(read_all(&log), compacted(&before, active));
    let slice = log.read(0, 1 << 20, None).expect("read").expect("records");
    for batch in RecordBatches::new(slice.read().expect("bytes")) {
        let batch: RecordBatch = batch.expect("batch");
        assert!(batch.crc_is_valid());
    }
}

/// Appends a transaction marker for `producer` at `timestamp_ms`.
fn append_marker(log: &mut Log, producer: ProducerId, result: TransactionResult, timestamp_ms: i64) {
    let marker = end_txn_marker_batch(producer, 0, result, EndTxnMarker { coordinator_epoch: 1 }, timestamp_ms)
        .expect("marker")
        .build()
        .expect("marker batch");
    let marker = ValidatedBatch::validate(BytesMut::from(&marker[..])).expect("valid marker");
    log.append_as_leader(marker, 0, AppendContext::coordinator(0)).expect("marker");
}

/// Appends one transactional record of `producer` (epoch 0, sequence 0), verified first.
fn append_txn(log: &mut Log, producer: ProducerId, (key, value): (&str, &str)) {
    let guard = log.producer_state_mut().maybe_start_txn_verification(producer, 0, 0, false, 0).expect("verify");
    let mut builder = RecordBatchBuilder::new().producer(producer, 0, 0).transactional();
    let record = NewRecord { timestamp_ms: 0, key: Some(key.as_bytes()), value: Some(value.as_bytes()), headers: &[] };
    builder.append(&record).expect("record");
    let batch = ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid");
    log.append_as_leader(batch, 0, AppendContext::client(guard)).expect("transactional append");
}

/// A log with every kind of batch the cleaner treats differently: compressed data, tombstones,
/// an aborted and a committed transaction, an idempotent producer.
fn varied_log(log: &mut Log) {
    let (aborted, committed) = (ProducerId(10), ProducerId(11));
    append_txn(log, aborted, ("x", "aborted"));
    append_txn(log, committed, ("y", "kept"));
    append_marker(log, aborted, TransactionResult::Abort, 0);
    append_marker(log, committed, TransactionResult::Commit, 0);
    for (i, codec) in Compression::ALL.iter().cycle().take(15).enumerate() {
        let (key, value) = (format!("k{}", i % 4), format!("v{i}"));
        let tombstone = format!("t{i}");
        let builder = RecordBatchBuilder::new().compression(*codec);
        append_built(log, builder, 0, &[(&key, Some(&value)), (&tombstone, Some("x")), (&tombstone, None)]);
    }
    append_built(log, RecordBatchBuilder::new().producer(ProducerId(12), 0, 0), 0, &[("k0", Some("idempotent"))]);
    fill(log, 0, 4, 8);
}

/// Aborted transactional data is removed; committed data and both markers stay (their
/// transactions' batches are still there), with the aborted transaction still indexed.
#[test]
fn aborted_data_goes_and_markers_stay_while_needed() {
    let clock = Arc::new(ManualClock::default());
    let dir = tempfile::tempdir().expect("dir");
    let mut log = open(dir.path(), config(), &clock);
    varied_log(&mut log);
    let end = log.log_end_offset();
    let aborted_before = log.collect_aborted_txns(0, end);
    assert_eq!(aborted_before.len(), 1);
    clean_all(&mut small_cleaner(), &mut log).expect("clean").expect("a pass ran");
    let data: Vec<Read> = read_all(&log).into_iter().filter(|(o, _, _)| *o > 3).collect();
    let all = read_all(&log);
    assert!(!all.iter().any(|(_, _, v)| v.as_deref() == Some("aborted")), "aborted data removed");
    assert!(all.iter().any(|(_, k, v)| k.as_deref() == Some("y") && v.as_deref() == Some("kept")));
    assert!(all.iter().any(|(o, _, _)| *o == 2) && all.iter().any(|(o, _, _)| *o == 3), "both markers kept");
    assert!(!data.is_empty());
    assert_eq!(log.collect_aborted_txns(0, end), aborted_before);
}

/// Kafka's DumpLogSegments reads every cleaned segment (rebuilt, emptied and horizon-stamped
/// batches in every codec) without a complaint, and its indexes verify.
#[test]
fn kafka_dump_log_segments_reads_cleaned_segments() {
    let clock = Arc::new(ManualClock::default());
    let dir = tempfile::tempdir().expect("dir");
    let mut log = open(dir.path(), config(), &clock);
    varied_log(&mut log);
    clean_all(&mut small_cleaner(), &mut log).expect("clean").expect("a pass ran");
    log.close().expect("close");
    let expected: Vec<(Offset, Option<String>)> =
        read_all(&log).into_iter().filter(|(o, _, _)| *o > 3).map(|(o, k, _)| (o, k)).collect();
    assert!(expected.len() > 10, "{expected:?}");
    let logs = files(dir.path(), ".log");
    let output = kafka::dump_log_segments(&["--deep-iteration", "--print-data-log"], &logs);
    let mut read = Vec::new();
    for line in output.lines().filter(|l| l.starts_with("| offset: ")) {
        let field =
            |name: &str| line.split(&format!(" {name}: ")).nth(1).map(|r| r.split(' ').next().unwrap_or(r).to_owned());
        let offset: Offset = field("offset")
            .or_else(|| line.strip_prefix("| offset: ").map(|r| r.split(' ').next().unwrap_or(r).to_owned()))
            .and_then(|o| o.parse().ok())
            .expect("offset");
        if offset > 3 {
            read.push((offset, field("key")));
        }
    }
    assert_eq!(read, expected, "records as Kafka read them");
    assert!(output.contains("deleteHorizonMs"), "horizon-stamped batches are shown");
    let mut indexes = files(dir.path(), ".index");
    indexes.extend(files(dir.path(), ".timeindex"));
    kafka::dump_log_segments(&["--verify-index-only"], &indexes);
    kafka::dump_log_segments(&["--index-sanity-check"], &indexes);
}

fn files(dir: &Path, extension: &str) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.to_string_lossy().ends_with(extension))
        .collect();
    files.sort();
    files
}

/// Running Kafka 4.4's DumpLogSegments (jars from `compat/kafka/fetch-jars.sh`, as in
/// `kafka_dump_log.rs`; without them the test fails, it never skips).
mod kafka {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// What DumpLogSegments prints when it finds a problem.
    const PROBLEMS: [&str; 8] = [
        "Mismatches in",
        "out of order",
        "not found in the log",
        "Exception",
        "corrupt",
        "invalid bytes at the end",
        "isvalid: false",
        "Error at offset",
    ];

    /// Runs the tool over `files`; asserts it succeeded and reported no problem; returns stdout.
    pub fn dump_log_segments(options: &[&str], files: &[PathBuf]) -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).expect("workspace root").to_owned();
        let libs =
            std::env::var_os("STRAND_KAFKA_LIBS").map(PathBuf::from).unwrap_or_else(|| root.join("target/kafka-libs"));
        assert!(libs.is_dir(), "Kafka's jars are missing from {}: run compat/kafka/fetch-jars.sh", libs.display());
        let list: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        let output = Command::new("java")
            .arg("-cp")
            .arg(format!("{}/*", libs.display()))
            .arg(format!("-Dlog4j2.configurationFile={}", root.join("compat/kafka/log4j2.properties").display()))
            .arg("org.apache.kafka.tools.DumpLogSegments")
            .args(options)
            .arg("--files")
            .arg(list.join(","))
            .output()
            .expect("java (a JDK 17+ on PATH)");
        let (stdout, stderr) = (
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        );
        assert!(output.status.success(), "DumpLogSegments failed:\n{stderr}");
        for problem in PROBLEMS {
            assert!(!stdout.contains(problem) && !stderr.contains(problem), "{problem}:\n{stdout}\n{stderr}");
        }
        stdout
    }
}

/// When the cleaner takes a log: once its dirty share reaches the log's own
/// `min.cleanable.dirty.ratio`, or, whatever the share, once its oldest dirty record has waited
/// `max.compaction.lag.ms` (counted from the first batch of the oldest dirty segment).
#[test]
fn a_pass_is_due_by_the_dirty_ratio_or_the_maximum_lag() {
    let clock = Arc::new(ManualClock::default());
    let dir = tempfile::tempdir().expect("dir");
    let mut log = open(dir.path(), config(), &clock);
    fill(&mut log, 1_000, 5, 60);
    clean_all(&mut small_cleaner(), &mut log).expect("clean").expect("a pass ran");
    // A little more, with new keys: a small dirty share of the cleanable log.
    fill(&mut log, 2_000, 40, 12);
    let high_watermark = log.log_end_offset();
    let range = Cleaner::cleanable_range(&log, high_watermark).expect("something to clean");
    let ratio = range.dirty_ratio();
    assert!(ratio > 0.0 && ratio < 1.0, "{range:?}");

    log.set_config(LogConfig { min_cleanable_dirty_ratio: ratio + 0.01, ..config() });
    assert!(!Cleaner::is_due(&log, high_watermark), "below the ratio and no lag limit");
    log.set_config(LogConfig { min_cleanable_dirty_ratio: ratio - 0.01, ..config() });
    assert!(Cleaner::is_due(&log, high_watermark), "at or above the log's own ratio");

    // Below the ratio, the maximum lag forces a pass once the oldest dirty batch is older: the
    // first pass stopped at the then active segment, whose first batch was written at 1 000.
    let lagging = LogConfig { min_cleanable_dirty_ratio: 0.99, max_compaction_lag_ms: HOUR_MS, ..config() };
    log.set_config(lagging);
    clock.set(1_000 + HOUR_MS);
    assert!(!Cleaner::is_due(&log, high_watermark), "the oldest dirty record is exactly an hour old");
    clock.set(1_001 + HOUR_MS);
    assert!(Cleaner::is_due(&log, high_watermark), "past an hour: due whatever the ratio");
}

/// Appends one record of key `k0` whose value names its offset; returns it as read back.
fn append_during_pass(log: &mut Log) -> Read {
    let offset = log.log_end_offset();
    let value = format!("new{offset}");
    assert_eq!(append(log, 0, &[("k0", Some(&value))]), offset, "offsets go on from the log end");
    (offset, Some("k0".into()), Some(value))
}

/// Only a pass's first phase and its swaps need the log: between them the log takes appends
/// (rolling new segments), serves reads and flushes. The result is the compacted log followed by
/// every record appended meanwhile, at the offsets its append returned, before and after a
/// reopen.
#[test]
fn appends_go_on_while_a_pass_is_in_progress() {
    let clock = Arc::new(ManualClock::default());
    let dir = tempfile::tempdir().expect("dir");
    let mut log = open(dir.path(), config(), &clock);
    fill(&mut log, 0, 5, 60);
    let before = read_all(&log);
    let high_watermark = log.log_end_offset();
    log.producer_state_mut().on_high_watermark_updated(high_watermark);
    let active = *log.segment_base_offsets().last().expect("active");
    let mut cleaner = small_cleaner();

    let mut pass = Cleaner::prepare(&mut log, high_watermark).expect("prepare").expect("something to clean");
    let mut appended: Vec<Read> = (0..8).map(|_| append_during_pass(&mut log)).collect();
    assert!(log.segment_base_offsets().last() > Some(&active), "the appends rolled a new segment");
    assert!(cleaner.build_offset_map(&mut pass).expect("map"));
    appended.push(append_during_pass(&mut log));
    assert_eq!(read_all(&log)[..before.len()], before[..], "reads work during the pass");
    let mut swapped = 0;
    while let Some(group) = cleaner.clean_next_group(&mut pass).expect("clean a group") {
        appended.push(append_during_pass(&mut log));
        log.flush_to(log.log_end_offset()).expect("flush");
        assert!(pass.swap(&mut log, group).expect("swap"), "nothing invalidated the pass");
        swapped += 1;
        appended.push(append_during_pass(&mut log));
    }
    let stats = pass.finish(&mut log).expect("a pass ran");

    assert!(!stats.abandoned && swapped > 1 && stats.segments_swapped == swapped, "{stats:?}");
    assert_eq!(stats.end_offset, active, "the pass stopped where the active segment was when it started");
    let mut expected = compacted(&before, active);
    expected.extend(appended);
    assert_eq!(read_all(&log), expected);
    assert_eq!(log.first_dirty_offset(), Some(active));
    log.close().expect("close");
    assert_eq!(read_all(&reopen_unclean(dir.path(), &clock)), expected);
}

/// Between which phases of a pass a change to the log is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Moment {
    BeforeTheMap,
    BeforeTheFirstGroup,
    BeforeTheFirstSwap,
    AfterTheFirstSwap,
}

/// A change that invalidates a pass (retention, DeleteRecords, a truncation, a truncation to
/// empty, a close), made between any two of its phases, abandons it: nothing more is swapped in,
/// no `.cleaned` or `.swap` file is left, no first dirty offset is recorded, and the log reads as
/// the change left it, before and after a crash. The next pass cleans it as usual.
#[test]
fn a_log_changed_under_a_pass_abandons_it() {
    type Change = fn(&mut Log);
    let changes: [(&str, Change); 5] = [
        ("retention", |log| {
            let retention_bytes = i64::try_from(log.size()).expect("size") - 500;
            log.set_config(LogConfig { delete_enabled: true, retention_bytes, ..config() });
            assert!(log.apply_retention(log.log_end_offset()).expect("retention") > 0);
        }),
        ("DeleteRecords", |log| {
            let bases = log.segment_base_offsets();
            log.advance_log_start_offset(bases[2]).expect("delete records");
        }),
        ("truncation", |log| {
            let bases = log.segment_base_offsets();
            log.truncate_to(bases[bases.len() / 2] + 1).expect("truncate");
        }),
        ("truncation to empty", |log| log.truncate_fully_and_start_at(log.log_end_offset()).expect("truncate")),
        ("close", |log| log.close().expect("close")),
    ];
    let moments =
        [Moment::BeforeTheMap, Moment::BeforeTheFirstGroup, Moment::BeforeTheFirstSwap, Moment::AfterTheFirstSwap];
    for (name, change) in changes {
        for moment in moments {
            check_abandoned(name, change, moment);
        }
    }
}

fn check_abandoned(name: &str, change: fn(&mut Log), moment: Moment) {
    let clock = Arc::new(ManualClock::default());
    let dir = tempfile::tempdir().expect("dir");
    let mut log = open(dir.path(), config(), &clock);
    for i in 0..40 {
        // A key written once in every batch: no cleaned segment is empty (retention stops at one).
        let unique = format!("u{i}");
        append(&mut log, 0, &[("k", Some(&format!("v{i}"))), (&unique, Some("once"))]);
    }
    let high_watermark = log.log_end_offset();
    log.producer_state_mut().on_high_watermark_updated(high_watermark);
    let mut cleaner = small_cleaner();
    let mut changed = None;
    let mut at = |now: Moment, log: &mut Log| {
        if now == moment {
            change(log);
            changed = Some(read_all(log));
        }
    };

    let mut pass = Cleaner::prepare(&mut log, high_watermark).expect("prepare").expect("something to clean");
    at(Moment::BeforeTheMap, &mut log);
    if cleaner.build_offset_map(&mut pass).expect("map") {
        at(Moment::BeforeTheFirstGroup, &mut log);
        let mut first = true;
        while let Some(group) = cleaner.clean_next_group(&mut pass).expect("clean a group") {
            if first {
                at(Moment::BeforeTheFirstSwap, &mut log);
            }
            let swapped = pass.swap(&mut log, group).expect("swap");
            if first {
                at(Moment::AfterTheFirstSwap, &mut log);
                first = false;
            }
            if !swapped {
                break;
            }
        }
    }
    let stats = pass.finish(&mut log).expect("the pass reports what it did");

    let case = format!("{name}, {moment:?}: {stats:?}");
    let expected = changed.unwrap_or_else(|| panic!("{case}: the change was made"));
    assert!(stats.abandoned, "{case}");
    assert_eq!(stats.segments_swapped, usize::from(moment == Moment::AfterTheFirstSwap), "{case}");
    assert_eq!(read_all(&log), expected, "{case}");
    assert_eq!(log.first_dirty_offset(), None, "{case}");
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cleaned") || n.ends_with(".swap"))
        .collect();
    assert!(leftovers.is_empty(), "{case}: {leftovers:?}");
    drop(log);
    let mut reopened = reopen_unclean(dir.path(), &clock);
    assert_eq!(read_all(&reopened), expected, "{case}: after a crash");
    if let Some(stats) = clean_all(&mut small_cleaner(), &mut reopened).expect("the next pass") {
        assert!(!stats.abandoned, "{case}");
        assert_eq!(read_all(&reopened), compacted(&expected, stats.end_offset), "{case}: the next pass");
    }
}
