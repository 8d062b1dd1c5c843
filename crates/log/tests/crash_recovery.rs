//! A crash at any moment leaves a log that recovers to its last valid batch: the last batch's
//! file is cut at every byte (a torn write) or has a byte flipped (a bad sector), and recovery
//! after an unclean stop keeps exactly the batches before it, all readable, with the log end
//! offset where the damage starts.

use std::sync::Arc;

use bytes::BytesMut;
use strand_base::SystemClock;
use strand_log::log::{LogCheckpoints, ValidatedBatch};
use strand_log::producer_state::{AppendContext, VerificationGuard};
use strand_log::{Log, LogConfig};
use strand_protocol::records::{Compression, NewRecord, RecordBatchBuilder, RecordBatches};

fn batch(seed: u8, records: usize, codec: Compression) -> ValidatedBatch {
    let mut builder = RecordBatchBuilder::new().compression(codec);
    for i in 0..records {
        let value = vec![seed.wrapping_add(i as u8); 40];
        builder
            .append(&NewRecord { timestamp_ms: 1_000 + i as i64, key: Some(b"k"), value: Some(&value), headers: &[] })
            .expect("record");
    }
    ValidatedBatch::validate(BytesMut::from(&builder.build().expect("batch")[..])).expect("valid")
}

fn config() -> LogConfig {
    LogConfig { index_interval_bytes: 100, segment_index_bytes: 1024, ..LogConfig::default() }
}

/// Writes five batches; returns the segment file's length before and after the last one.
fn write_log(dir: &std::path::Path, codec: Compression) -> (u64, u64) {
    let mut log = Log::open(dir, config(), LogCheckpoints::default(), Arc::new(SystemClock)).expect("open");
    for seed in 0..4 {
        log.append_as_leader(batch(seed, 3, codec), 0, AppendContext::client(VerificationGuard::SENTINEL))
            .expect("append");
    }
    let before = std::fs::metadata(dir.join(format!("{:020}.log", 0))).expect("segment").len();
    log.append_as_leader(batch(9, 3, codec), 0, AppendContext::client(VerificationGuard::SENTINEL)).expect("append");
    let after = std::fs::metadata(dir.join(format!("{:020}.log", 0))).expect("segment").len();
    (before, after)
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
    }
}

/// Recovers a damaged copy and checks it kept exactly the first four batches (12 records).
fn recover_and_check(dir: &std::path::Path, expect_end: i64) {
    let checkpoints = LogCheckpoints { recovery_point: 0, log_start_offset: 0, clean_shutdown: false };
    let log = Log::open(dir, config(), checkpoints, Arc::new(SystemClock)).expect("recovers");
    assert_eq!(log.log_end_offset(), expect_end);
    let slice = log.read(0, u64::MAX, None).expect("read").expect("data");
    let batches: Vec<_> = RecordBatches::new(slice.read().expect("bytes")).map(|b| b.expect("whole batch")).collect();
    assert_eq!(batches.len() as i64, expect_end / 3);
    assert!(batches.iter().all(|b| b.crc_is_valid()));
}

/// Cutting the last batch at any byte recovers to the four batches before it.
#[test]
fn a_torn_last_batch_is_cut_off_at_every_byte() {
    for codec in [Compression::None, Compression::Zstd] {
        let original = tempfile::tempdir().expect("dir");
        let (before, after) = write_log(original.path(), codec);
        for cut in before..after {
            let copy = tempfile::tempdir().expect("dir");
            copy_dir(original.path(), copy.path());
            let segment = std::fs::OpenOptions::new().write(true).open(copy.path().join(format!("{:020}.log", 0)));
            segment.expect("segment").set_len(cut).expect("cut");
            recover_and_check(copy.path(), 12);
        }
        let copy = tempfile::tempdir().expect("dir");
        copy_dir(original.path(), copy.path());
        recover_and_check(copy.path(), 15);
    }
}

/// A flipped byte anywhere in the last batch's CRC-covered bytes is caught and the batch dropped.
#[test]
fn a_corrupt_last_batch_is_dropped() {
    let original = tempfile::tempdir().expect("dir");
    let (before, after) = write_log(original.path(), Compression::None);
    // Bytes 17.. of a batch are the CRC and what it covers.
    for at in (before + 17)..after {
        let copy = tempfile::tempdir().expect("dir");
        copy_dir(original.path(), copy.path());
        let path = copy.path().join(format!("{:020}.log", 0));
        let mut bytes = std::fs::read(&path).expect("read");
        bytes[at as usize] ^= 0x5a;
        std::fs::write(&path, &bytes).expect("write");
        recover_and_check(copy.path(), 12);
    }
}

/// Damage in an earlier segment ends the log there: the torn batch and every later segment are
/// removed, since nothing after a hole may be served.
#[test]
fn damage_in_an_earlier_segment_drops_the_later_ones() {
    let dir = tempfile::tempdir().expect("dir");
    let config = LogConfig { segment_bytes: 1024, segment_index_bytes: 1024, ..config() };
    let mut log =
        Log::open(dir.path(), config.clone(), LogCheckpoints::default(), Arc::new(SystemClock)).expect("open");
    for seed in 0..20 {
        log.append_as_leader(batch(seed, 3, Compression::None), 0, AppendContext::client(VerificationGuard::SENTINEL))
            .expect("append");
    }
    let bases = log.segment_base_offsets();
    assert!(bases.len() >= 4, "{bases:?}");
    drop(log);
    let damaged = bases[1];
    let path = dir.path().join(format!("{damaged:020}.log"));
    let mut bytes = std::fs::read(&path).expect("read");
    let last = bytes.len() - 5;
    bytes[last] ^= 0xff;
    std::fs::write(&path, &bytes).expect("write");

    let checkpoints = LogCheckpoints { recovery_point: 0, log_start_offset: 0, clean_shutdown: false };
    let log = Log::open(dir.path(), config, checkpoints, Arc::new(SystemClock)).expect("recovers");
    assert_eq!(log.segment_base_offsets(), bases[..2].to_vec());
    // The damaged segment keeps every batch before its last one.
    assert_eq!(log.log_end_offset(), bases[2] - 3);
}

/// A change to a batch's header bytes.
type HeaderEdit = fn(&mut Vec<u8>);

/// A batch after the good ones whose header lies (CRC recomputed, so only its fields are wrong):
/// each kind is cut by recovery, which keeps the four batches before it and never panics, so a
/// node always starts from its own data.
#[test]
fn a_batch_recovery_cannot_index_is_cut_off() {
    let cases: [(&str, HeaderEdit); 5] = [
        ("lastOffsetDelta -1", |b| b[23..27].copy_from_slice(&(-1i32).to_be_bytes())),
        ("lastOffsetDelta past the relative offsets", |b| b[23..27].copy_from_slice(&i32::MAX.to_be_bytes())),
        ("base offset behind the log end", |b| b[0..8].copy_from_slice(&3i64.to_be_bytes())),
        ("base offset past the relative offsets", |b| b[0..8].copy_from_slice(&(1i64 << 40).to_be_bytes())),
        ("a control batch whose marker does not parse", |b| {
            b[21..23].copy_from_slice(&0x30i16.to_be_bytes());
            b[43..51].copy_from_slice(&7i64.to_be_bytes());
        }),
    ];
    for (name, edit) in cases {
        let original = tempfile::tempdir().expect("dir");
        let (before, _) = write_log(original.path(), Compression::None);
        let path = original.path().join(format!("{:020}.log", 0));
        let mut bytes = std::fs::read(&path).expect("segment");
        let mut lying = bytes[before as usize..].to_vec();
        lying[0..8].copy_from_slice(&12i64.to_be_bytes());
        edit(&mut lying);
        let crc = crc32c::crc32c(&lying[21..]);
        lying[17..21].copy_from_slice(&crc.to_be_bytes());
        bytes.truncate(before as usize);
        bytes.extend_from_slice(&lying);
        std::fs::write(&path, &bytes).expect("write");
        let result = std::panic::catch_unwind(|| recover_and_check(original.path(), 12));
        assert!(result.is_ok(), "{name}: recovery panicked or kept the batch");
    }
}

/// A follower never writes what recovery would cut: a batch with a bad CRC or a negative
/// lastOffsetDelta from its leader is refused and the log stays as it was.
#[test]
fn a_follower_refuses_a_batch_recovery_would_cut() {
    let dir = tempfile::tempdir().expect("dir");
    write_log(dir.path(), Compression::None);
    let mut log = Log::open(dir.path(), config(), LogCheckpoints::default(), Arc::new(SystemClock)).expect("open");
    let good = batch(1, 3, Compression::None);
    let mut bytes = good.as_bytes().to_vec();
    bytes[0..8].copy_from_slice(&15i64.to_be_bytes());
    bytes[23..27].copy_from_slice(&(-1i32).to_be_bytes());
    let crc = crc32c::crc32c(&bytes[21..]);
    bytes[17..21].copy_from_slice(&crc.to_be_bytes());
    let lying = strand_protocol::records::RecordBatch::parse(bytes::Bytes::from(bytes.clone())).expect("parses");
    assert!(log.append_as_follower(&lying).is_err());
    bytes[23..27].copy_from_slice(&2i32.to_be_bytes());
    let bad_crc = strand_protocol::records::RecordBatch::parse(bytes::Bytes::from(bytes)).expect("parses");
    assert!(log.append_as_follower(&bad_crc).is_err());
    assert_eq!(log.log_end_offset(), 15);
}
