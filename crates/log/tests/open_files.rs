//! What a partition costs in open file descriptors. A node hosts thousands of partitions under
//! an open-files limit: an idle partition must not hold a descriptor per file of every segment
//! (it held three per segment: `.log`, `.index`, `.timeindex`). Indexes hold none once loaded,
//! only the active segment's `.log` stays open (once appended to), and cold segments are opened on
//! demand through a cache bounded by `file::COLD_SEGMENT_FILES_MAX`.
//!
//! The descriptors are counted in `/proc/self/fd`, which every test of this binary shares: the
//! tests take turns on [`SERIAL`].

use std::path::Path;
use std::sync::{Arc, Mutex};

use bytes::BytesMut;
use strand_base::SystemClock;
use strand_log::file::COLD_SEGMENT_FILES_MAX;
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{Log, LogConfig};
use strand_protocol::records::{NewRecord, RecordBatchBuilder};

static SERIAL: Mutex<()> = Mutex::new(());

/// The descriptors the process holds now.
fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").expect("/proc/self/fd").count()
}

/// One record of `value_bytes` bytes, its value derived from `seed` so reads can be checked.
fn batch(seed: u8, value_bytes: usize) -> ValidatedBatch {
    let value = vec![seed; value_bytes];
    let mut builder = RecordBatchBuilder::new();
    builder.append(&NewRecord { timestamp_ms: 1_000, key: None, value: Some(&value), headers: &[] }).expect("record");
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

fn append(log: &mut Log, seed: u8) {
    log.append_as_leader(batch(seed, 300), 0, AppendContext::client(VerificationGuard::SENTINEL)).expect("append");
}

/// Small segments (a roll every few batches) with an index entry for every batch.
fn small_segments() -> LogConfig {
    LogConfig { segment_bytes: 1_000, index_interval_bytes: 1, segment_index_bytes: 4_096, ..LogConfig::default() }
}

fn open(dir: &Path, clean_shutdown: bool) -> Log {
    let checkpoints = LogCheckpoints { clean_shutdown, ..LogCheckpoints::default() };
    Log::open(dir, small_segments(), checkpoints, Arc::new(SystemClock)).expect("open")
}

/// Many partitions of several segments each: while they are written, each holds about one
/// descriptor (its active `.log`), not three per segment; after a clean restart, idle ones hold
/// none beyond the bounded cache of cold segments that reopening read through.
#[test]
fn many_partitions_of_many_segments_cost_about_one_descriptor_each() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    const PARTITIONS: usize = 300;
    let root = tempfile::tempdir().expect("dir");
    let before = open_fds();
    let mut logs: Vec<Log> = (0..PARTITIONS).map(|p| open(&root.path().join(format!("t-{p}")), false)).collect();
    for log in &mut logs {
        for seed in 0..10 {
            append(log, seed);
        }
        log.flush_to(log.log_end_offset()).expect("flush");
        assert!(log.segment_count() >= 3, "{} segments", log.segment_count());
    }
    let written = open_fds() - before;
    assert!(
        written <= PARTITIONS + COLD_SEGMENT_FILES_MAX + 8,
        "{PARTITIONS} written partitions of {} segments hold {written} descriptors",
        logs[0].segment_count()
    );
    for log in &mut logs {
        log.close().expect("close");
    }
    drop(logs);
    let logs: Vec<Log> = (0..PARTITIONS).map(|p| open(&root.path().join(format!("t-{p}")), true)).collect();
    let idle = open_fds() - before;
    assert!(idle <= COLD_SEGMENT_FILES_MAX + 8, "{PARTITIONS} idle partitions hold {idle} descriptors after a restart");
    drop(logs);
    let logs: Vec<Log> = (0..PARTITIONS).map(|p| open(&root.path().join(format!("t-{p}")), false)).collect();
    let recovered = open_fds() - before;
    assert!(recovered <= COLD_SEGMENT_FILES_MAX + 8, "{PARTITIONS} partitions hold {recovered} after recovery");
    drop(logs);
    eprintln!("{PARTITIONS} partitions: {written} descriptors written, {idle} idle, {recovered} recovered");
}

/// A cold segment's `.log` is closed once more cold segments than the cache holds are read, and
/// opened again when read again, with the same bytes; a fetch taken before the close keeps its
/// file region readable through the close and even after the segment is deleted.
#[test]
fn a_cold_segment_is_reopened_on_demand_and_a_fetch_outlives_its_close() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let root = tempfile::tempdir().expect("dir");
    let mut log = open(&root.path().join("t-0"), false);
    let mut seed = 0u8;
    while log.segment_count() <= COLD_SEGMENT_FILES_MAX + 20 {
        append(&mut log, seed);
        seed = seed.wrapping_add(1);
    }
    log.flush_to(log.log_end_offset()).expect("flush");
    let first_segment_end = log.segment_base_offsets()[1];
    let fetch = log.read(0, 1 << 20, None).expect("read").expect("bytes at 0");
    let fetched = fetch.read().expect("slice");
    assert_eq!(fetch.first_batch_offset, 0);
    assert_eq!(fetched.len() as u64, fetch.len);
    let first_len = 12 + u32::from_be_bytes(fetched[8..12].try_into().expect("a length")) as usize;
    let batch = strand_protocol::records::RecordBatch::parse(fetched.slice(..first_len)).expect("a batch at 0");
    assert_eq!(batch.last_offset(), 0, "the first batch");

    // Every other segment read once: the first one's descriptor is the least recently used.
    let before = open_fds();
    for base in log.segment_base_offsets().into_iter().skip(1) {
        let slice = log.read(base, 1 << 20, None).expect("read").expect("bytes");
        assert_eq!(slice.first_batch_offset, base);
    }
    assert!(strand_log::file::cold_segment_files_open() <= COLD_SEGMENT_FILES_MAX);
    assert!(open_fds() <= before + COLD_SEGMENT_FILES_MAX, "{} descriptors after reading every segment", open_fds());
    assert_eq!(fetch.read().expect("the fetch's region after its segment was closed"), fetched);

    // Read again: opened on demand, the same bytes; and an offset inside it, from its index.
    let again = log.read(0, 1 << 20, None).expect("read").expect("bytes at 0");
    assert_eq!(again.read().expect("slice"), fetched);
    let inside = log.read(first_segment_end - 1, 1 << 20, None).expect("read").expect("bytes");
    assert_eq!(inside.first_batch_offset, first_segment_end - 1);

    // Deleted while the fetch still holds its region: the fetch reads on.
    log.advance_log_start_offset(first_segment_end).expect("delete the first segment");
    assert!(!root.path().join("t-0").join("00000000000000000000.log").exists());
    assert_eq!(fetch.read().expect("the fetch's region after its segment was deleted"), fetched);
}

/// A compaction pass over a log of more segments than the cold-file cache holds takes a reader of
/// every segment it cleans without holding a descriptor for each, and still cleans them all.
#[test]
fn a_compaction_pass_over_many_segments_holds_no_descriptor_per_segment() {
    use strand_log::cleaner::{Cleaner, CleanerConfig};
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let root = tempfile::tempdir().expect("dir");
    let config = LogConfig { compact_enabled: true, delete_enabled: false, ..small_segments() };
    let mut log =
        Log::open(&root.path().join("t-0"), config, LogCheckpoints::default(), Arc::new(SystemClock)).expect("open");
    let mut n = 0u32;
    while log.segment_count() <= COLD_SEGMENT_FILES_MAX + 50 {
        let (key, value) = (format!("key-{}", n % 10), format!("{n:0300}"));
        let record =
            NewRecord { timestamp_ms: 1_000, key: Some(key.as_bytes()), value: Some(value.as_bytes()), headers: &[] };
        let mut builder = RecordBatchBuilder::new();
        builder.append(&record).expect("record");
        let batch = ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid");
        log.append_as_leader(batch, 0, AppendContext::client(VerificationGuard::SENTINEL)).expect("append");
        n += 1;
    }
    let high_watermark = log.log_end_offset();
    log.producer_state_mut().on_high_watermark_updated(high_watermark);
    let before = open_fds();
    let pass = Cleaner::prepare(&mut log, high_watermark).expect("prepare").expect("something to clean");
    let during = open_fds();
    assert!(
        during <= before + 8,
        "a pass over {} segments: {before} descriptors before, {during} during",
        log.segment_count()
    );
    drop(pass);
    let mut cleaner = Cleaner::new(CleanerConfig::default());
    cleaner.clean(&mut log, high_watermark).expect("clean").expect("a pass");
    let (mut values, mut records) = (std::collections::BTreeMap::new(), 0u32);
    let mut offset = log.log_start_offset();
    while let Some(slice) = log.read(offset, 1 << 20, None).expect("read") {
        for batch in strand_protocol::records::RecordBatches::new(slice.read().expect("slice")) {
            let batch = batch.expect("batch");
            offset = batch.next_offset();
            for record in batch.records().expect("records").iter() {
                let record = record.expect("record");
                records += 1;
                let key = String::from_utf8_lossy(record.key().unwrap_or_default()).into_owned();
                values.insert(key, String::from_utf8_lossy(record.value().unwrap_or_default()).into_owned());
            }
        }
    }
    let latest: std::collections::BTreeMap<String, String> =
        (n - 10..n).map(|i| (format!("key-{}", i % 10), format!("{i:0300}"))).collect();
    assert_eq!(values, latest, "the latest value of every key, after cleaning");
    assert!(records < n / 2, "{records} of {n} records left after cleaning");
}
